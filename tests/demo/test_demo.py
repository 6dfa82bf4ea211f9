"""``pitboss demo`` as a user runs it: a process started from the command line, its floor
checked at the bridge's store, stopped with Ctrl-C (SIGINT to its process group).

The runs against a real Mosquitto use the sync tests' fixture (failing, saying so,
where the binary is absent; the test script installs the Debian package).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from host_bridge.demo.tables import TableSpec
from tests.demo.conftest import (
    ROOT,
    WAIT_S,
    alive,
    descendants,
    hands_ended,
    start_demo,
    wait_for,
)
from tests.sync.conftest import Mosquitto, free_port

# a table controller's process, as the demo starts it (``python -m <module> table run``)
TABLE_PROCESS = TableSpec(table="T1", broker="", db=Path("t.db"), site="").command()[2].encode()


def test_ctrl_c_stops_the_whole_floor_leaving_no_process_and_no_port(
        mosquitto: Mosquitto, tmp_path: Path) -> None:
    """Against a real Mosquitto, one process per table: every table reports hands to the
    bridge; Ctrl-C (SIGINT to the demo's process group) ends it with exit code 0, every
    table process gone and the dashboard's port free again."""
    port = free_port()
    data = tmp_path / "floor"
    demo = start_demo("--headless", "--tables", "3", "--players", "12", "--mode", "cash",
                      "--broker", f"127.0.0.1:{mosquitto.port}", "--port", str(port),
                      "--data", str(data))
    children: set[int] = set()
    try:
        wait_for(lambda: len(hands_ended(data / "bridge.db")) == 3,
                 "every table had a hand stored at the bridge", demo)
        children = descendants(demo.pid)
        tables = [p for p in children
                  if TABLE_PROCESS in Path(f"/proc/{p}/cmdline").read_bytes()]
        assert len(tables) == 3  # one controller process per table
        os.killpg(demo.pid, signal.SIGINT)
        out, _ = demo.communicate(timeout=WAIT_S)
    finally:
        if demo.poll() is None:
            os.killpg(demo.pid, signal.SIGKILL)
            demo.communicate()
    assert demo.returncode == 0, out
    assert out.splitlines()[0].startswith(f"Pitboss demo: the dashboard is at "
                                          f"http://127.0.0.1:{port}/dashboard/")
    assert "demo stopped: stopped on request" in out
    assert [p for p in children if alive(p)] == []
    with socket.socket() as s:  # the dashboard's port is free again (a server may bind it;
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # closed connections may
        s.bind(("127.0.0.1", port))                              # linger in TIME_WAIT)
        s.listen()
    assert (data / "bridge.db").exists()  # --data is kept
    assert sorted(p.name for p in (data / "tables").glob("*.db")) == ["T1.db", "T2.db", "T3.db"]


def test_a_temporary_floor_is_removed_after_its_minutes(mosquitto: Mosquitto,
                                                         tmp_path: Path) -> None:
    """Without --data the floor lives in a temporary folder, gone once the run ends."""
    env_tmp = tmp_path / "tmp"
    env_tmp.mkdir()
    proc = subprocess.run(
        [sys.executable, "-m", "controller.cli", "demo", "--headless", "--tables", "2",
         "--players", "6", "--mode", "cash", "--broker", f"127.0.0.1:{mosquitto.port}",
         "--port", "0", "--minutes", "0.05"],
        cwd=ROOT, text=True, capture_output=True, timeout=WAIT_S * 2,
        env={**os.environ, "TMPDIR": str(env_tmp)})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0.05 minute(s) are up" in proc.stdout
    assert list(env_tmp.iterdir()) == []


def test_a_busy_dashboard_port_is_refused_with_what_to_do(mosquitto: Mosquitto) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        proc = subprocess.run(
            [sys.executable, "-m", "controller.cli", "demo", "--headless", "--port",
             str(port), "--broker", f"127.0.0.1:{mosquitto.port}"],
            cwd=ROOT, text=True, capture_output=True, timeout=WAIT_S)
    assert proc.returncode == 2
    assert f"cannot serve the dashboard on 127.0.0.1:{port}" in proc.stderr
    assert "--port" in proc.stderr


def test_ctrl_c_while_the_tables_start_stops_what_was_started(mosquitto: Mosquitto,
                                                              tmp_path: Path) -> None:
    """Ctrl-C as soon as the address is printed (the broker, the bridge and the table
    processes still starting): exit code 0 and no table process left behind."""
    demo = start_demo("--headless", "--tables", "3", "--players", "9", "--broker",
                      f"127.0.0.1:{mosquitto.port}", "--port", "0", "--data",
                      str(tmp_path / "floor"))
    seen: set[int] = set()
    try:
        assert demo.stdout is not None
        first = demo.stdout.readline()
        assert first.startswith("Pitboss demo: the dashboard is at"), first
        deadline = time.monotonic() + WAIT_S  # until a table process exists
        while not any(TABLE_PROCESS in _cmdline(p) for p in seen):
            assert time.monotonic() < deadline, "no table process started"
            seen |= descendants(demo.pid)
            time.sleep(0.02)
        os.killpg(demo.pid, signal.SIGINT)
        out, _ = demo.communicate(timeout=WAIT_S)
    finally:
        if demo.poll() is None:
            os.killpg(demo.pid, signal.SIGKILL)
            demo.communicate()
    assert demo.returncode == 0, out
    assert "demo stopped: stopped on request" in out
    assert [p for p in seen if alive(p)] == []


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""
