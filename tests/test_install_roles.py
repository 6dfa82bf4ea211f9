"""Installs by role (DESIGN.md): ``pip install pitboss[table]`` in a fresh virtual
environment brings what a table needs and nothing of the bridge or the demo; the table
plays there; the bridge, asked for there, says which extra to install.

The checkout's build inputs are copied first (the install writes its metadata beside
them) and installed editable, as a Pi is deployed: from a clone (README, "A real table
and floor"). Needs PyPI (or the pip index this machine is set up with); about 20 s with
pip's cache, a minute or so without.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.needs import missing

ROOT = Path(__file__).resolve().parents[1]
BUILD_INPUTS = ("pyproject.toml", "README.md", "controller", "host_bridge", "firmware",
                "hardware")
NETWORK_TROUBLE = ("NewConnectionError", "Temporary failure in name resolution",
                   "Network is unreachable", "ConnectTimeout", "ReadTimeout",
                   "Max retries exceeded", "No route to host")
HANDS = 5


@dataclass(frozen=True)
class Venv:
    root: Path

    @property
    def python(self) -> Path:
        return self.root / "bin" / "python"

    @property
    def pitboss(self) -> Path:
        return self.root / "bin" / "pitboss"


def _copy_checkout(to: Path) -> None:
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info", "node_modules", "*.pyc")
    for name in BUILD_INPUTS:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, to / name, ignore=ignore)
        else:
            shutil.copy2(source, to / name)


@pytest.fixture(scope="module")
def table_venv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Venv]:
    work = tmp_path_factory.mktemp("roles")
    src = work / "pitboss"
    src.mkdir()
    _copy_checkout(src)
    venv = Venv(work / "venv")
    made = subprocess.run([sys.executable, "-m", "venv", str(venv.root)],
                          capture_output=True, text=True, timeout=300)
    if made.returncode != 0:
        missing(f"python -m venv failed (Debian: apt-get install python3-venv): "
                f"{made.stderr.strip()[-300:]}")
    env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    env.pop("PYTHONPATH", None)
    started = time.monotonic()
    pip = subprocess.run([str(venv.python), "-m", "pip", "install", "-q", "-e",
                          f"{src}[table]"], capture_output=True, text=True, timeout=600,
                         env=env)
    took = time.monotonic() - started
    if pip.returncode != 0:
        out = pip.stdout + pip.stderr
        if any(sign in out for sign in NETWORK_TROUBLE):
            missing(f"pip could not reach the package index: {out.strip()[-300:]}")
        pytest.fail(f"pip install -e '.[table]' failed:\n{out[-3000:]}")
    print(f"pip install -e '.[table]' took {took:.0f} s")
    yield venv


def _importable(venv: Venv, modules: list[str]) -> dict[str, bool]:
    script = ("import importlib.util, sys\n"
              "for name in sys.argv[1:]:\n"
              "    print(name, importlib.util.find_spec(name) is not None)\n")
    proc = subprocess.run([str(venv.python), "-c", script, *modules], capture_output=True,
                          text=True, timeout=60, check=True)
    return {name: found == "True" for name, found in
            (line.split() for line in proc.stdout.splitlines())}


def test_a_table_install_has_what_a_table_needs_and_nothing_of_the_bridge(
        table_venv: Venv) -> None:
    table = ["gpiozero", "luma.core", "luma.oled", "luma.led_matrix", "serial_asyncio_fast",
             "smbus2", "mpremote", "aiomqtt", "paho.mqtt", "pydantic", "rich", "uvicorn"]
    if sys.platform == "linux":
        table += ["spidev", "evdev"]
    bridge_and_demo = ["fastapi", "sqlalchemy", "alembic", "amqtt", "pydantic_settings"]
    found = _importable(table_venv, table + bridge_and_demo)
    assert [m for m in table if not found[m]] == []
    assert [m for m in bridge_and_demo if found[m]] == []


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_table_install_plays_hands(table_venv: Venv, tmp_path: Path) -> None:
    # No broker: the table plays on and keeps everything for the host. `--autoplay N`
    # does not end the process by itself (it waits for the table to be closed), so the
    # technician's Ctrl-C ends it once the hands are played.
    errors = tmp_path / "stderr.log"
    with errors.open("w") as stderr:
        proc = subprocess.Popen(
            [str(table_venv.pitboss), "table", "run", "--profile", "virtual", "--table", "T1",
             "--db", str(tmp_path / "t1.db"), "--autoplay", str(HANDS),
             "--broker", f"127.0.0.1:{_free_port()}"],
            cwd=tmp_path, stdout=subprocess.PIPE, stderr=stderr, text=True,
            # a test runner started in the background would hand down an ignored SIGINT
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    watchdog = threading.Timer(120, proc.kill)  # silent and stuck: the loop below ends
    watchdog.start()
    lines: list[str] = []
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line.strip())
            if line.startswith("PLAYED"):
                break
        proc.send_signal(signal.SIGINT)
        code = proc.wait(timeout=30)
    finally:
        watchdog.cancel()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    log = errors.read_text()
    assert lines and lines[0].startswith("READY "), (lines, log[-2000:])
    assert lines[-1].startswith(f"PLAYED hands={HANDS} "), (lines, log[-2000:])
    assert code in (0, 130), log[-2000:]  # 130: the Ctrl-C, journal already durable
    assert "Traceback" not in log


def test_the_bridge_in_a_table_install_names_its_extra(table_venv: Venv) -> None:
    proc = subprocess.run([str(table_venv.pitboss), "bridge", "run"], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 1
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("pitboss bridge: this needs the bridge extra ("), lines[0]
    assert lines[0].endswith("[bridge]'"), lines[0]


def test_the_demo_in_a_table_install_names_its_extra(table_venv: Venv) -> None:
    proc = subprocess.run([str(table_venv.pitboss), "demo", "--headless"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert proc.stderr.startswith("pitboss demo: this needs the demo extra ("), proc.stderr
    assert proc.stderr.count("\n") == 1
