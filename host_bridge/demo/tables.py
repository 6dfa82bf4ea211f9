"""The demo's table controllers: one process per table, as on a floor, each the real
``pitboss table run --profile virtual ...`` with the mock hardware, the virtual dealer and
bots, its own journal, and its own MQTT link to the broker.

The bridge's rooms may not import the live table (DESIGN.md), so tables only ever run
here as child processes. Each runs in a session of its own, so a Ctrl-C at the terminal
reaches the demo alone and the demo stops the tables in order (SIGINT, then SIGTERM, then
SIGKILL for one that does not go); on Linux each child also gets SIGTERM if the demo dies
without stopping it (``PR_SET_PDEATHSIG``), so no table outlives the demo.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import ctypes.util
import logging
import signal
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

log = logging.getLogger(__name__)

_PR_SET_PDEATHSIG = 1
STOP_GRACE_S = 5.0  # after SIGINT, before SIGTERM
KILL_GRACE_S = 3.0  # after SIGTERM, before SIGKILL


def _die_with_parent() -> None:  # pragma: no cover - runs in the child before exec
    libc_name = ctypes.util.find_library("c")
    if libc_name is None:
        return
    libc = ctypes.CDLL(libc_name, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)


@dataclass(frozen=True, slots=True)
class TableSpec:
    """How to start one table controller."""

    table: str
    broker: str  # host:port
    db: Path
    site: str
    extra: tuple[str, ...] = ()  # more ``pitboss table run`` options (mode, speed, seed)

    def command(self) -> list[str]:
        """The command line (the running interpreter, so the same venv)."""
        return [sys.executable, "-m", "controller.table_runner", "table", "run", "--profile",
                "virtual", "--table", self.table, "--broker", self.broker, "--db",
                str(self.db), "--site", self.site, *self.extra]


@dataclass
class TableProcess:
    """One running table controller and what it printed."""

    spec: TableSpec
    log_path: Path
    proc: asyncio.subprocess.Process | None = None
    ready: asyncio.Event = field(default_factory=asyncio.Event)
    lines: list[str] = field(default_factory=list)
    _reader: asyncio.Task[None] | None = None

    @property
    def pid(self) -> int | None:
        """The child's process id while it exists."""
        return None if self.proc is None else self.proc.pid

    @property
    def returncode(self) -> int | None:
        """None while it runs."""
        return None if self.proc is None else self.proc.returncode

    async def start(self) -> None:
        """Start the controller; its log (stderr) goes to :attr:`log_path`."""
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        with self.log_path.open("ab") as errors:
            self.proc = await asyncio.create_subprocess_exec(
                *self.spec.command(), stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE, stderr=errors, start_new_session=True,
                preexec_fn=_die_with_parent if sys.platform == "linux" else None)
        self._reader = asyncio.create_task(self._read(), name=f"demo-table-{self.spec.table}")

    async def _read(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        async for raw in self.proc.stdout:
            line = raw.decode(errors="replace").rstrip()
            self.lines.append(line)
            del self.lines[:-20]
            if line.startswith("READY"):
                self.ready.set()

    def tail(self, lines: int = 5) -> str:
        """The end of its log, to say why it stopped."""
        try:
            text = self.log_path.read_text(errors="replace").strip().splitlines()
        except OSError:
            return ""
        return "\n".join(text[-lines:])

    async def stop(self) -> int | None:
        """Stop it: SIGINT (a clean stop), then SIGTERM, then SIGKILL; its return code."""
        proc = self.proc
        if proc is None:
            return None
        for sig, grace in ((signal.SIGINT, STOP_GRACE_S), (signal.SIGTERM, KILL_GRACE_S),
                           (signal.SIGKILL, 10.0)):
            if proc.returncode is not None:
                break
            with contextlib.suppress(ProcessLookupError):
                proc.send_signal(sig)
            try:
                await asyncio.wait_for(proc.wait(), grace)
            except TimeoutError:
                log.warning("table %s did not stop on %s", self.spec.table, sig.name)
        if self._reader is not None:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.wait_for(self._reader, 2.0)
        return proc.returncode


class TableFleet:
    """Every table of the demo: start them all, wait for them, stop them all."""

    def __init__(self, specs: Sequence[TableSpec], log_dir: Path) -> None:
        self.tables = [TableProcess(spec, log_dir / f"{spec.table}.log") for spec in specs]

    async def start(self, ready_within: float = 30.0) -> None:
        """Start every table and wait until each says READY (its link is up)."""
        for table in self.tables:
            await table.start()
        waits = [asyncio.create_task(t.ready.wait()) for t in self.tables]
        try:
            await asyncio.wait(waits, timeout=ready_within)
        finally:
            for w in waits:
                w.cancel()
        late = [t for t in self.tables if not t.ready.is_set()]
        if late:
            details = "; ".join(f"{t.spec.table} (exit {t.returncode}): {t.tail(2) or 'no log'}"
                                for t in late)
            raise RuntimeError(f"{len(late)} table(s) did not come up within "
                               f"{ready_within:.0f} s: {details}; their logs are in "
                               f"{late[0].log_path.parent}")

    def failed(self) -> list[TableProcess]:
        """Tables that stopped with an error (a closed table exits 0)."""
        return [t for t in self.tables if t.returncode not in (None, 0)]

    def running(self) -> list[TableProcess]:
        """Tables still running."""
        return [t for t in self.tables if t.proc is not None and t.returncode is None]

    async def stop(self) -> None:
        """Stop every table at once and wait for them all."""
        await asyncio.gather(*(t.stop() for t in self.tables), return_exceptions=True)
