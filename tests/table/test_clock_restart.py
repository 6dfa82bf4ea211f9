"""The clocks survive a controller restart (issue 5): the level, the time left in it, the
break and each player's time-bank extension chips come back from the journal (SQLite, the
real ``TableJournal``/``Outbox``); wall time the controller was down counts for a running
tournament clock (the floor's clock did not stop), not for a paused one; a host-run clock
is UNSYNCED until the host syncs again. The host's ``sync_clock`` goes through
``TableCommands``."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest

from controller.app import TableCommands, TableJournal, recover, restore
from controller.clocks.structure import Break, Structure
from controller.clocks.structure import Level as Lv
from controller.clocks.timebank import ExtensionChips
from controller.devices.mock import MockTable
from controller.devices.profile import load_profile
from controller.events import BreakStarted, Change, PublicEvent, SyncClock
from controller.rules.config import LIVE_TOURNAMENT
from controller.sync.journal import Journal
from controller.sync.messages import EventMessage, parse_message
from controller.sync.outbox import Outbox
from controller.table.table import Table

from .conftest import DECKMAP, Dealer

W0 = 1_800_000_000.0  # the wall clock when the first controller starts
S = Structure("test", (Lv(1, 100, 200, 0, 200, 600.0), Lv(2, 200, 400, 50, 400, 600.0),
                       Lv(3, 300, 600, 75, 600, 600.0)),
              breaks=(Break(2, 300.0, colour_up=(25,)),))
HANDS = {1: "AsKs", 3: "QdQc", 5: "7h2c"}


def table_on(sink: TableJournal, wall_at_start: float, chips: ExtensionChips
             ) -> tuple[Table, MockTable]:
    hw = MockTable(load_profile("virtual"))
    start = hw.clock()
    wall: Callable[[], float] = lambda: wall_at_start + hw.clock() - start  # noqa: E731
    table = Table(hw, sink=sink, structure=S, deck=DECKMAP, profile=LIVE_TOURNAMENT,
                  tournament=True, extensions=chips, wall_clock=wall)
    return table, hw


def chips() -> ExtensionChips:
    return ExtensionChips(30.0, {"day1": 2})


def changes(journal: Journal) -> list[PublicEvent]:
    events = (parse_message(EventMessage, p.public).event
              for p in journal.parcels(0, limit=10**9))
    return [e for e in events if isinstance(e, Change)]


def first_life(db: Path) -> float:
    """Seat three players, take the host's clock, spend an extension chip mid-hand, then
    the controller dies. Returns the wall-clock time of the crash."""
    async def run() -> float:
        journal = Journal(db, table="t1")
        try:
            async with Outbox(journal) as outbox:
                sink = TableJournal(outbox)
                bank = chips()
                table, hw = table_on(sink, W0, bank)
                for seat in HANDS:
                    table.take_seat(seat, f"player{seat}", 20_000)
                bank.enter_stage("day1", [f"player{s}" for s in HANDS])
                table.set_button(5)
                reply, events = TableCommands(table, sink).perform(
                    SyncClock(level=2, seconds_left=500.0), "c-sync-1")
                assert [e.kind for e in events if isinstance(e, Change)] == [
                    "clock_synced", "level_set"] and reply == {"change": "level_set"}
                outbox.record_now(events)  # the command desk journals them with its reply
                assert journal.state.clock is not None and journal.state.clock.host
                assert journal.state.clock.chips == (("player1", 2), ("player3", 2),
                                                     ("player5", 2))
                dealer = Dealer(table, hw)
                dealer.press("deal")
                dealer.deal(HANDS)
                assert table.use_extension(5)  # the button, first to act preflop
                assert dict(journal.state.clock.chips)["player5"] == 1
                dealer.step(100.0)
                assert table.seconds_left() == pytest.approx(400.0, abs=1.0)
                return table.clocks.wall()
        finally:
            journal.close()
    return asyncio.run(run())


def second_life(db: Path, wall: float, check: Callable[[Table, MockTable, Journal,
                                                         ExtensionChips], None]) -> None:
    async def run() -> None:
        journal = Journal(db, table="t1")
        try:
            assert recover(journal)  # the hand the crash cut short is voided (CRASH-1)
            async with Outbox(journal) as outbox:
                sink = TableJournal(outbox)
                bank = chips()
                with sink.muted():
                    table, hw = table_on(sink, wall, bank)
                restore(table, journal.state, sink)
                check(table, hw, journal, bank)
        finally:
            journal.close()
    asyncio.run(run())


def test_clock_restart_restores_level_time_left_and_extension_chips(tmp_path: Path) -> None:
    db = tmp_path / "t1.db"
    crashed = first_life(db)

    def check(table: Table, hw: MockTable, journal: Journal, bank: ExtensionChips) -> None:
        assert table.level_no == 2
        # the host's 500 s at W0, less every second since, the 30 s down included
        assert table.seconds_left() == pytest.approx(500.0 - (crashed + 30.0 - W0), abs=1e-6)
        frame = hw.blinds.frame
        assert frame is not None and frame.level == 2 and frame.unsynced
        assert (bank.stage, bank.chips("player5"), bank.chips("player1")) == ("day1", 1, 2)
        assert table.sync_clock(2, 300.0)  # the host again: synced
        assert hw.blinds.frame is not None and not hw.blinds.frame.unsynced

    second_life(db, crashed + 30.0, check)


def test_clock_restart_journals_what_the_downtime_changed(tmp_path: Path) -> None:
    """Down for ten minutes: level 2 ran out and its colour-up break began meanwhile."""
    db = tmp_path / "t1.db"
    crashed = first_life(db)

    def check(table: Table, hw: MockTable, journal: Journal, bank: ExtensionChips) -> None:
        assert table.clocks.on_break and table.level_no == 2
        started = [c for c in changes(journal) if isinstance(c, BreakStarted)]
        assert len(started) == 1 and started[0].colour_up == (25,) and started[0].level == 2
        assert started[0].clock is not None and started[0].clock.phase == "break"
        assert journal.state.clock is not None and journal.state.clock.phase == "break"
        left = 300.0 - (crashed + 600.0 - W0 - 500.0)  # the break began at W0 + 500
        assert table.seconds_left() is not None
        assert table.clocks.level is not None
        assert table.clocks.level.seconds_left(table.clock()) == pytest.approx(left, abs=1e-6)
        table.start_hand()
        assert table.hand is None  # no hand on a break

    second_life(db, crashed + 600.0, check)


def test_clock_restart_a_paused_clock_does_not_count_the_downtime(tmp_path: Path) -> None:
    db = tmp_path / "t1.db"

    async def first() -> float:
        journal = Journal(db, table="t1")
        try:
            async with Outbox(journal) as outbox:
                sink = TableJournal(outbox)
                table, hw = table_on(sink, W0, chips())
                for seat in HANDS:
                    table.take_seat(seat, f"player{seat}", 20_000)
                Dealer(table, hw).step(250.0)
                table.pause(True)
                assert journal.state.paused and journal.state.clock is not None
                assert journal.state.clock.paused
                return table.clocks.wall()
        finally:
            journal.close()

    crashed = asyncio.run(first())

    def check(table: Table, hw: MockTable, journal: Journal, bank: ExtensionChips) -> None:
        assert table.clocks.paused and table.level_no == 1
        assert table.seconds_left() == pytest.approx(350.0, abs=1e-6)
        frame = hw.blinds.frame
        assert frame is not None and not frame.unsynced  # the host never ran this clock
        table.pause(False)
        Dealer(table, hw).step(351.0)
        assert table.level_no == 2

    second_life_unvoided(db, crashed + 3600.0, check)


def second_life_unvoided(db: Path, wall: float,
                         check: Callable[[Table, MockTable, Journal, ExtensionChips], None]
                         ) -> None:
    async def run() -> None:
        journal = Journal(db, table="t1")
        try:
            assert not recover(journal)
            async with Outbox(journal) as outbox:
                sink = TableJournal(outbox)
                bank = chips()
                with sink.muted():
                    table, hw = table_on(sink, wall, bank)
                restore(table, journal.state, sink)
                check(table, hw, journal, bank)
        finally:
            journal.close()
    asyncio.run(run())


def test_sync_clock_is_refused_on_a_cash_table_with_the_reason(tmp_path: Path) -> None:
    from controller.sync.errors import CommandRefused
    from controller.table.lights import Level

    async def run() -> None:
        journal = Journal(tmp_path / "t1.db", table="t1")
        try:
            async with Outbox(journal) as outbox:
                sink = TableJournal(outbox)
                table = Table(MockTable(load_profile("virtual")), sink=sink,
                              levels=(Level(5, 10),))
                with pytest.raises(CommandRefused, match="not on a clock"):
                    TableCommands(table, sink).perform(SyncClock(level=1, seconds_left=9.0),
                                                       "c-1")
                assert journal.state.clock is None and journal.last_seq == 0
        finally:
            journal.close()

    asyncio.run(run())


def test_the_button_drawn_before_the_first_hand_is_journaled_and_survives_a_restart(
        tmp_path: Path) -> None:
    """BTN-4: the dealer's draw places the button before the first hand; it is journaled
    (the floor and a restarted controller know it) and the first hand is dealt from it."""
    db = tmp_path / "t1.db"

    async def draw() -> None:
        journal = Journal(db, table="t1")
        try:
            async with Outbox(journal) as outbox:
                table, _ = table_on(TableJournal(outbox), W0, chips())
                for seat in HANDS:
                    table.take_seat(seat, f"player{seat}", 20_000)
                assert table.set_button(3)
                assert journal.state.button_placed == 3
        finally:
            journal.close()

    asyncio.run(draw())

    async def restart() -> None:
        journal = Journal(db, table="t1")
        try:
            assert not recover(journal)  # no hand was under way
            async with Outbox(journal) as outbox:
                sink = TableJournal(outbox)
                with sink.muted():
                    table, hw = table_on(sink, W0, chips())
                restore(table, journal.state, sink)
                assert table.button == 3 and journal.state.button_placed == 3
                Dealer(table, hw).press("deal")
                assert table.positions is not None and table.positions.button == 3
                assert journal.state.button_placed is None  # the hand's layout has it now
        finally:
            journal.close()

    asyncio.run(restart())
