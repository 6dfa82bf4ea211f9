"""The runner opens a table's seat-node lines from its profile: the nodes are the real
firmware on MicroPython behind pseudo-terminals (``pitboss hardware simulate``), the
controller runs as ``pitboss table run --backend mock --seat-ports DIR`` does.

A node unplugged is shown at the table (the dealer's prompt, its journaled irregularity,
the public state the floor receives) and comes back when plugged in again, without a
restart, with the card still on its reader; a wrong port or a missing permission stops
``pitboss table run`` with one line naming the port and the fix.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from controller.app import TableJournal, open_desk
from controller.devices.debounce import CardWatch
from controller.devices.events import CardArrived, CardEvent
from controller.devices.mock import MockSeatNodeLink, MockTable, VirtualClock
from controller.devices.seatlines import SeatLines
from controller.devices.seatnodes import SeatNodeReader
from controller.devices.stand_ins import MockCardReader
from controller.events import Irregularity, SeatNodeBack
from controller.sync.messages import EventMessage, parse_message
from controller.table.table import Table
from controller.table_runner import RunOptions, run_table
from controller.terminal.desk import Desk
from tests.firmware.simnodes import PACKAGE, SimulatorProcess
from tests.needs import missing
from tests.sync.conftest import ROOT, free_port

GUARD = 30.0  # seconds before a stuck wait fails (not a budget)
UID = bytes.fromhex("04c0071122aa44")
UID2 = bytes.fromhex("04c0081122bb44")

TWO_SEATS = """
[table]
name = "two-nodes"
description = "Two seats on seat nodes, the rest mocked: the seat-line tests."
seats = 2

[[seat]]
number = 1
cards = { kind = "seatnode", port = "/dev/pitboss-seat1", node = 1 }
light = { kind = "seatnode_ring", port = "/dev/pitboss-seat1", node = 1 }
player = { kind = "seatnode", port = "/dev/pitboss-seat1", node = 1 }

[[seat]]
number = 2
cards = { kind = "seatnode", port = "/dev/pitboss-seat2", node = 2 }
light = { kind = "seatnode_ring", port = "/dev/pitboss-seat2", node = 2 }
player = { kind = "seatnode", port = "/dev/pitboss-seat2", node = 2 }

[[board]]
kind = "mock"

[muck]
kind = "mock"

[deck]
kind = "mock"

[keys]
deal = 17

[blinds_display]
kind = "mock"

[shot_clock]
kind = "mock"

[buzzer]
kind = "mock"
"""


def two_seat_profile(tmp: Path) -> Path:
    path = tmp / "two-nodes.toml"
    path.write_text(TWO_SEATS)
    return path


def need_micropython() -> None:
    if shutil.which("node") is None or not (PACKAGE / "micropython.mjs").is_file():
        missing("node or the MicroPython npm package is absent (run `npm ci` in "
                "tests/firmware/mpy): the simulated seat nodes run on it")


def table_run(*args: str, prefix: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    """``pitboss table run ARGS`` as a technician runs it."""
    return subprocess.run([*prefix, sys.executable, "-m", "controller.cli", "table", "run",
                           *args], cwd=ROOT, capture_output=True, text=True, timeout=60)


async def until(check: Callable[[], bool], what: str) -> None:
    try:
        async with asyncio.timeout(GUARD):
            while not check():
                await asyncio.sleep(0.02)
    except TimeoutError:
        raise AssertionError(f"gave up waiting for {what}") from None


# ------------------------------------------------------------------ one stable time, the node's
def test_a_card_a_node_reports_reaches_the_table_without_a_second_stable_time() -> None:
    # the node reports a card once it read it stably (firmware/debounce.py): waiting the
    # profile's stable time again on the Pi would put it on every card (DESIGN budget:
    # card at a node -> display, p99 <= 5 ms beyond the node's read cycle)
    link, clock = MockSeatNodeLink(), VirtualClock()
    board = MockCardReader("board1")
    got: list[CardEvent] = []
    watch = CardWatch({"seat3": SeatNodeReader("seat3", link, 3, "cards"), "board1": board},
                      got.append, clock=clock, stable_s=0.03)
    link.report(3, "cards", {UID})
    board.place(UID2)
    watch.step()
    assert got == [CardArrived("seat3", UID)]  # at once
    clock.advance(0.03)
    watch.step()
    assert got == [CardArrived("seat3", UID), CardArrived("board1", UID2)]  # after 30 ms
    link.report(3, "cards", set())
    clock.advance(0.49)
    watch.step()
    assert len(got) == 2  # a node's card still takes the gone time to leave


# ------------------------------------------------------------------ a wrong port, one line
def test_a_missing_seat_port_stops_table_run_with_one_line_naming_it(tmp_path: Path) -> None:
    ports = tmp_path / "ports"
    ports.mkdir()  # empty: no simulator is running
    done = table_run("--profile", "tournament-10", "--backend", "mock", "--seat-ports",
                     str(ports), "--table", "T1", "--db", str(tmp_path / "t1.db"),
                     "--broker", f"127.0.0.1:{free_port()}")
    assert done.returncode == 1, done.stderr
    assert done.stderr.splitlines() == [
        f"pitboss table: seat-node port {ports}/pitboss-seat1 does not exist: plug the node "
        "in, or check its udev rule and the profile's port (hardware/README.md, seat nodes) "
        "(9 more seat-node port(s) did not open either)"]
    assert "READY" not in done.stdout


def test_a_seat_port_without_permission_is_one_line_with_the_fix(tmp_path: Path) -> None:
    ports = tmp_path / "ports"
    ports.mkdir()
    for n in (1, 2):
        port = ports / f"pitboss-seat{n}"
        port.touch()
        port.chmod(0)
    prefix: tuple[str, ...] = ()
    if os.geteuid() == 0:  # root opens anything: run the command without that privilege
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            missing("running as root without setpriv (util-linux): cannot drop the "
                    "privilege that opens any file")
        prefix = (setpriv, "--bounding-set=-all", "--inh-caps=-all")
    done = table_run("--profile", str(two_seat_profile(tmp_path)), "--backend", "mock",
                     "--seat-ports", str(ports), "--table", "T1",
                     "--db", str(tmp_path / "t1.db"), "--broker", f"127.0.0.1:{free_port()}",
                     prefix=prefix)
    assert done.returncode == 1, done.stderr
    assert done.stderr.splitlines() == [
        f"pitboss table: no permission to open seat-node port {ports}/pitboss-seat1: add this "
        "user to the dialout group (sudo usermod -aG dialout $USER, then log in again) or "
        'give the port GROUP="dialout" in its udev rule (hardware/README.md, seat nodes) '
        "(1 more seat-node port(s) did not open either)"]


# ------------------------------------------------------------------ unplugged and back
def test_an_unplugged_node_is_shown_and_recovers_without_a_restart(tmp_path: Path) -> None:
    need_micropython()
    profile = two_seat_profile(tmp_path)
    ports = tmp_path / "ports"

    async def scenario() -> None:
        got: dict[str, Any] = {}

        def attach(table: Table, sink: TableJournal) -> None:
            got["table"], got["sink"], got["desk"] = table, sink, open_desk(table, sink)

        options = RunOptions(backend="mock", seat_ports=str(ports), tournament=True,
                             table_ready=attach)
        async with SimulatorProcess(str(profile), ports) as sim:
            run = asyncio.create_task(run_table(
                str(profile), site="test", table_id="T1", broker=f"127.0.0.1:{free_port()}",
                db_path=tmp_path / "t1.db", options=options))
            try:
                await until(lambda: "table" in got or run.done(), "the table to start")
                if run.done():
                    run.result()
                table, sink, desk = got["table"], got["sink"], got["desk"]
                assert isinstance(table, Table) and isinstance(sink, TableJournal)
                assert isinstance(desk, Desk)
                hw = table.hardware
                assert isinstance(hw, MockTable)
                lines = hw.backend.seat_link
                assert isinstance(lines, SeatLines)  # the runner opened the profile's ports
                assert lines.online() == (1, 2)
                assert lines.firmware == {1: (0, 1, 0), 2: (0, 1, 0)}
                await sim.send(f"place 2 0 {UID.hex()}")
                await until(lambda: UID in hw.present("seat2"),
                            "the card at node 2 to reach the table")

                mark = len(sim.lines)
                await sim.send("unplug 2")
                await sim.expect(r"^unplugged 2$", since=mark)
                # the journal's public state (what the floor receives) and the dealer's screen
                await until(lambda: sink.outbox.state.seat_nodes_offline == (2,),
                            "node 2 offline")
                prompt = desk.screen().prompt
                assert prompt is not None
                assert (prompt.kind, prompt.seat) == ("seat_node_offline", 2)
                assert lines.online() == (1,) and lines.offline() == (2,)
                assert UID in hw.present("seat2")  # a pulled cable moves no card

                await sim.send("plug 2")
                await until(lambda: sink.outbox.state.seat_nodes_offline == (), "node 2 back")
                assert desk.screen().prompt is None
                assert lines.online() == (1, 2)
                assert [line.opened for line in lines.lines] == [1, 2]  # reopened, no restart
                await sim.send(f"place 2 1 {UID2.hex()}")  # node 2 reads again
                await until(lambda: hw.present("seat2") == {UID, UID2},
                            "both cards at node 2 after its return")
                events = [parse_message(EventMessage, p.public).event
                          for p in sink.outbox.journal.parcels(0, limit=1000)]
                lost = [e for e in events if isinstance(e, Irregularity)
                        and e.what == "seat_node_offline"]
                back = [e for e in events if isinstance(e, SeatNodeBack)]
                assert [e.seat for e in lost] == [2] and [e.seat for e in back] == [2]
                assert events.index(lost[0]) < events.index(back[0])
            finally:
                run.cancel()
                await asyncio.gather(run, return_exceptions=True)
        assert not any(ports.iterdir())  # the simulator took its ports away

    asyncio.run(scenario())


# ------------------------------------------------------------------ silent nodes, a restart
@contextlib.asynccontextmanager
async def controller(profile: Path, ports: Path, db: Path) -> AsyncIterator[TableJournal]:
    """The controller as ``pitboss table run --backend mock --seat-ports`` runs it; its
    journal's sink while it runs."""
    got: list[TableJournal] = []
    options = RunOptions(backend="mock", seat_ports=str(ports),
                         table_ready=lambda table, sink: got.append(sink))
    run = asyncio.create_task(run_table(str(profile), site="test", table_id="T1",
                                        broker=f"127.0.0.1:{free_port()}", db_path=db,
                                        options=options))
    try:
        await until(lambda: bool(got) or run.done(), "the table to start")
        if run.done():
            run.result()  # it failed: say why
        yield got[0]
    finally:
        run.cancel()
        await asyncio.gather(run, return_exceptions=True)


def node_events(sink: TableJournal) -> list[tuple[str, int | None]]:
    """The seat nodes lost and back, as journaled (what the floor is told)."""
    events = [parse_message(EventMessage, p.public).event
              for p in sink.outbox.journal.parcels(0, limit=10_000)]
    return [("back" if isinstance(e, SeatNodeBack) else "lost", e.seat) for e in events
            if isinstance(e, SeatNodeBack)
            or (isinstance(e, Irregularity) and e.what == "seat_node_offline")]


def test_a_silent_node_is_offline_at_start_back_after_a_restart_and_by_heartbeat(
        tmp_path: Path) -> None:
    need_micropython()
    profile, ports, db = two_seat_profile(tmp_path), tmp_path / "ports", tmp_path / "t1.db"

    async def scenario() -> None:
        async with SimulatorProcess(str(profile), ports) as sim:
            await sim.send("power 2 off")  # its port is there; the node says nothing
            await sim.expect(r"^power 2 off$")
            async with controller(profile, ports, db) as sink:
                # offline once its line has been open the hello time without a word
                await until(lambda: sink.outbox.state.seat_nodes_offline == (2,),
                            "silent node 2 reported offline")
                assert node_events(sink) == [("lost", 2)]

            await sim.send("power 2 on")  # it boots while the controller is down
            await sim.expect(r"^hello 2 ")
            async with controller(profile, ports, db) as sink:
                # the journal had node 2 offline; it answers now: journaled back
                await until(lambda: sink.outbox.state.seat_nodes_offline == (),
                            "node 2 back after the restart")
                assert node_events(sink) == [("lost", 2), ("back", 2)]
                await sim.send("power 1 off")  # node 1 hangs, its line stays: heartbeats stop
                await until(lambda: sink.outbox.state.seat_nodes_offline == (1,),
                            "node 1 offline after its missed heartbeats")
                await sim.send("power 1 on")
                await until(lambda: sink.outbox.state.seat_nodes_offline == (),
                            "node 1 back after its reboot")
                assert node_events(sink) == [("lost", 2), ("back", 2), ("lost", 1),
                                             ("back", 1)]

    asyncio.run(scenario())
