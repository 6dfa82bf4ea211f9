"""Fixtures for the sync tests: a real Mosquitto on a free loopback port, started and
stopped by the test (a test fails, saying so, where the binary is absent;
scripts/system-deps.sh installs the Debian package), and the controller run as a
subprocess for the crash tests."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

MOSQUITTO = shutil.which("mosquitto") or next(
    (p for p in ("/usr/sbin/mosquitto", "/usr/local/sbin/mosquitto") if os.path.exists(p)), None)
ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Mosquitto:
    """A Mosquitto broker owned by one test: start, stop, restart on the same port."""

    def __init__(self, workdir: Path) -> None:
        assert MOSQUITTO is not None
        self.port = free_port()
        self.workdir = workdir
        workdir.mkdir(parents=True, exist_ok=True)
        self.config = workdir / "mosquitto.conf"
        self.config.write_text(
            f"listener {self.port} 127.0.0.1\n"
            "allow_anonymous true\n"
            "set_tcp_nodelay true\n"
            "persistence true\n"
            f"persistence_location {workdir}/\n"
            "max_queued_messages 0\n"      # 0: no limit on a persistent session's queue
            "max_inflight_messages 0\n"
            "log_dest stderr\n"
            "log_type error\n"
            "log_type warning\n")
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        """Start and wait until it accepts connections."""
        assert MOSQUITTO is not None
        log = (self.workdir / "mosquitto.log").open("ab")
        self.proc = subprocess.Popen([MOSQUITTO, "-c", str(self.config)],
                                     stdout=log, stderr=log)
        for _ in range(500):
            if self.proc.poll() is not None:
                log_text = (self.workdir / "mosquitto.log").read_text()
                raise RuntimeError(f"mosquitto exited: {log_text}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError:
                time.sleep(0.01)
        raise RuntimeError("mosquitto did not start listening")

    def stop(self) -> None:
        """Stop it cleanly (it saves its persistence file)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None

    def restart(self) -> None:
        """Stop, then start again on the same port."""
        self.stop()
        self.start()


@pytest.fixture
def broker(mosquitto: Mosquitto) -> Mosquitto:
    """A running Mosquitto on a free port (the shared ``mosquitto`` fixture), stopped
    after the test."""
    return mosquitto


class Amqtt:
    """An amqtt broker (MQTT 3.1.1 only, the demo's embedded broker) owned by one test, in a
    subprocess: start, stop, restart on the same port."""

    def __init__(self, workdir: Path) -> None:
        self.port = free_port()
        self.workdir = workdir
        workdir.mkdir(parents=True, exist_ok=True)
        self.proc: subprocess.Popen[str] | None = None

    def start(self) -> None:
        """Start and wait until it accepts connections."""
        log = (self.workdir / "amqtt.log").open("a")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.sync.amqtt_broker", "--port", str(self.port)],
            cwd=ROOT, text=True, stdout=subprocess.PIPE, stderr=log)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line.startswith("LISTENING"):
            self.proc.wait(10)
            raise RuntimeError(f"amqtt did not start: {(self.workdir / 'amqtt.log').read_text()}")

    def stop(self) -> None:
        """Stop it (SIGTERM: it shuts down cleanly; it keeps nothing across a restart)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc is not None and self.proc.stdout is not None:
            self.proc.stdout.close()
        self.proc = None

    def restart(self) -> None:
        """Stop, then start again on the same port."""
        self.stop()
        self.start()


@pytest.fixture
def amqtt_broker(tmp_path: Path) -> Iterator[Amqtt]:
    """A running amqtt broker (MQTT 3.1.1 only) on a free port, stopped after the test."""
    b = Amqtt(tmp_path / "amqtt")
    b.start()
    try:
        yield b
    finally:
        b.stop()


def node_command(db: Path, port: int, *extra: str) -> list[str]:
    """The command line of a controller subprocess (``controller.sync.soak_node``)."""
    return [sys.executable, "-m", "controller.sync.soak_node", "--db", str(db),
            "--port", str(port), *extra]


def start_node(db: Path, port: int, *extra: str) -> subprocess.Popen[str]:
    """Start a controller subprocess from the project root."""
    return subprocess.Popen(node_command(db, port, *extra), cwd=ROOT, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
