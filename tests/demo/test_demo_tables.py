"""The two things the demo asks of a tournament table beyond the floor's contract
(controller.table_runner, controller.table.virtual): a paced dealer, so the clocks and the
play keep step at ``--speed``, and a colour-up begun by the host's break run by the
virtual dealer (the demo's break after level 2 colours up the 25 chips, CHIPRACE-1).

In process, with the tournament-table harness of tests/app (real journal, commands
through the command desk, the runner's dealer loop)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from controller.app import TableCommands, TableJournal, restore
from controller.clocks.structure import structure
from controller.events import BreakStarted, StackAdjusted
from controller.sync.commands import CommandDesk
from controller.sync.journal import Journal
from controller.sync.outbox import Outbox
from controller.table.virtual import VirtualTable
from controller.table_runner import RunOptions, WakingCommands, _tournament_autoplay
from tests.app.test_tournament_table import GUARD, HostRun


@asynccontextmanager
async def two_level_run(db: Path, pace: float = 0.0) -> AsyncIterator[HostRun]:
    """Like tests/app's ``host_run``, on a level clock of two levels (25/50, then
    50/100), so the host's clock applies and a colour-up can be due; ``pace``: virtual
    seconds per bot action (``run_table`` passes ``RunOptions.pace``)."""
    journal = Journal(db, table="t1")
    try:
        async with Outbox(journal) as outbox:
            sink = TableJournal(outbox)
            with sink.muted():
                vt = VirtualTable(0, seed=4, sink=sink, tournament=True, levels=(), pace=pace,
                                  structure=structure([(25, 50, 0), (50, 100, 0)],
                                                      level_minutes=10))
            sink.table = vt.table
            restore(vt.table, journal.state, sink)
            commands = WakingCommands(TableCommands(vt.table, sink))
            yield HostRun(vt, journal, outbox, commands, CommandDesk(outbox, commands))
    finally:
        journal.close()


async def until(check: object, what: str) -> None:
    async with asyncio.timeout(GUARD):
        while not check():  # type: ignore[operator]
            await asyncio.sleep(0.01)


def test_a_paced_dealer_keeps_virtual_time_with_the_clock(tmp_path: Path) -> None:
    """``--speed 100 --pace 4``: hands are dealt, and virtual time never runs further
    ahead of 100 x real time than one hand's worth."""
    speed, pace = 100.0, 4.0

    async def scenario() -> tuple[int, float, float]:
        async with two_level_run(tmp_path / "t1.db", pace=pace) as run:
            clock = run.vt.hardware.virtual_clock
            options = RunOptions(autoplay=0, tournament=True, speed=speed, pace=pace)
            for seat, player in ((1, "ann"), (4, "bob"), (7, "cy")):
                await run.send("seat_player", seat=seat, player=player, stack=1_000_000)
            virtual0, real0 = clock.now, time.monotonic()
            dealer = asyncio.create_task(
                _tournament_autoplay(run.vt, run.outbox, run.commands, options))
            ahead = 0.0
            for _ in range(150):  # 1.5 s
                await asyncio.sleep(0.01)
                ahead = max(ahead, clock.now - virtual0 - (time.monotonic() - real0) * speed)
            await run.send("close_table")
            async with asyncio.timeout(GUARD):
                await dealer
            return run.journal.state.hand_no, clock.now - virtual0, ahead

    hands, virtual, ahead = asyncio.run(scenario())
    assert hands >= 2  # it plays
    assert virtual >= 100  # virtual time keeps up with the clock (1.5 s x 100, roughly)
    assert ahead <= 60 * pace  # never more than one long hand (60 actions) ahead


def test_chiprace_1_a_colour_up_begun_by_the_hosts_break_is_run_by_the_dealer(
        tmp_path: Path) -> None:
    """The floor schedules the colour-up for level 2; the host's clock puts the table on
    the break before it (SyncClock on_break): the colour-up starts between hands and the
    virtual dealer runs its chip race, so play goes on after the break."""
    async def scenario() -> None:
        async with two_level_run(tmp_path / "t1.db") as run:
            options = RunOptions(autoplay=0, tournament=True, speed=0)
            for seat, player in ((1, "ann"), (4, "bob"), (7, "cy")):
                await run.send("seat_player", seat=seat, player=player, stack=10_000)
            scheduled = await run.send("colour_up", at_level=2)
            assert scheduled["status"] == "ok", scheduled["error"]
            dealer = asyncio.create_task(
                _tournament_autoplay(run.vt, run.outbox, run.commands, options))
            await until(lambda: run.journal.state.hand_no >= 2, "two hands")
            on_break = await run.send("sync_clock", level=1, seconds_left=300, on_break=True)
            assert on_break["status"] == "ok", on_break["error"]
            await until(lambda: any(isinstance(e, StackAdjusted) and e.reason == "colour_up"
                                    for e in run.events()), "the colour-up's chip race")
            at_break = run.journal.state.hand_no
            assert (await run.send("sync_clock", level=2, seconds_left=600))["status"] == "ok"
            await until(lambda: run.journal.state.hand_no > at_break, "a hand after the break")
            await run.send("close_table")
            async with asyncio.timeout(GUARD):
                await dealer
            assert any(isinstance(e, BreakStarted) for e in run.events())

    asyncio.run(scenario())
