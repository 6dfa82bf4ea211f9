"""Rebuys and add-ons reach the table (issue 9): the host's ``add_chips`` command, the live
table's ``add_chips`` (between hands only, to the player in the seat), journaled as one
``stack_adjusted`` with the command id, kept through a controller restart, and counted by
the virtual table's chip check (TOURN-10, -11, -12)."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest

from controller.app import TableCommands, TableJournal, recover, restore
from controller.events import (
    AddChips,
    PublicState,
    Rejected,
    SeatAdjustment,
    SeatPlayer,
    SeatView,
    StackAdjusted,
)
from controller.sync.errors import CommandRefused, MessageRejected
from controller.sync.journal import Journal
from controller.sync.ledger import SeatingControls
from controller.sync.messages import CommandMessage, EventMessage, parse_message
from controller.sync.outbox import Outbox
from controller.table.lights import Level
from controller.table.virtual import VirtualTable

from .conftest import Rig

SEATS = (1, 4, 7)


def _wire(command: dict[str, object]) -> bytes:
    return json.dumps({"schema": 2, "table": "t1", "boot": "host", "seq": 1,
                       "ts": time.time(), "command_id": "c-1", "command": command}).encode()


def tournament_table(sink: TableJournal | None = None) -> VirtualTable:
    return VirtualTable(0, seed=4, tournament=True, levels=(Level(50, 100),), sink=sink)


def seat_three(commands: TableCommands, outbox: Outbox) -> None:
    for seat in SEATS:
        _, events = commands.perform(SeatPlayer(seat=seat, player=f"p{seat}", stack=4_000),
                                     f"c-seat{seat}")
        outbox.record_now(events)


def test_tourn_10_add_chips_on_the_wire() -> None:
    sent = AddChips(seat=4, player="p4", chips=10_000, reason="rebuy")
    back = parse_message(CommandMessage, CommandMessage(
        table="t1", boot="host", seq=1, ts=1.0, command_id="c-1", command=sent).to_wire())
    assert back.command == sent
    for bad, field in (({"chips": 0}, "chips"), ({"reason": "top_up"}, "reason"),
                       ({"seat": 11}, "seat")):
        command = {"name": "add_chips", "seat": 4, "player": "p4", "chips": 10_000,
                   "reason": "rebuy"} | bad
        with pytest.raises(MessageRejected) as info:
            parse_message(CommandMessage, _wire(command))
        assert field in info.value.reason and info.value.command_id == "c-1"


def test_tourn_11_a_rebuy_between_hands_is_one_stack_adjusted_journaled(
        tmp_path: Path) -> None:
    async def run() -> None:
        journal = Journal(tmp_path / "t1.db", table="t1")
        try:
            async with Outbox(journal) as outbox:
                sink = TableJournal(outbox)
                vt = tournament_table(sink)
                commands = TableCommands(vt.table, sink)
                seat_three(commands, outbox)
                assert vt.play_hand()
                before = vt.table.roster[4].stack
                reply, events = commands.perform(
                    AddChips(seat=4, player="p4", chips=10_000, reason="rebuy"), "c-rebuy")
                assert reply == {"change": "stack_adjusted", "seat": 4,
                                 "stack": before + 10_000}
                assert len(events) == 1
                adjusted = events[0]
                assert isinstance(adjusted, StackAdjusted)
                assert adjusted.reason == "rebuy" and adjusted.command_id == "c-rebuy"
                assert [(a.seat, a.before, a.after) for a in adjusted.seats] == [
                    (4, before, before + 10_000)]
                seq = outbox.record_now(events)
                stacks = {s.seat: s.stack for s in journal.state.seats}
                assert stacks[4] == before + 10_000 == vt.table.roster[4].stack
                sent = [parse_message(EventMessage, p.public).event
                        for p in journal.parcels(0, limit=10**6)]
                assert sum(isinstance(e, StackAdjusted) for e in sent) == 1, seq
                assert vt.play_hand()  # the bought chips play in the next hand
                vt.check_chips()
        finally:
            journal.close()

    asyncio.run(run())


def test_tourn_12_an_add_on_goes_out_as_stack_adjusted_add_on() -> None:
    vt = tournament_table()
    for seat in SEATS:
        assert vt.table.take_seat(seat, f"p{seat}", 4_000)
    assert vt.table.add_chips(7, "p7", 5_000, "add_on")
    added = vt.events[-1]
    assert isinstance(added, StackAdjusted) and added.reason == "add_on"
    assert added.seats == (SeatAdjustment(seat=7, before=4_000, after=9_000),)
    assert vt.bought_in == 3 * 4_000 + 5_000  # the chip check counts bought chips
    vt.check_chips()


def test_tourn_11_add_chips_during_a_hand_is_refused_with_the_reason(
        tmp_path: Path) -> None:
    async def run() -> None:
        journal = Journal(tmp_path / "t1.db", table="t1")
        try:
            async with Outbox(journal) as outbox:
                sink = TableJournal(outbox)
                vt = tournament_table(sink)
                commands = TableCommands(vt.table, sink)
                seat_three(commands, outbox)
                vt._draw_button()
                assert vt.table.start_hand()
                sent = len(list(journal.parcels(0, limit=10**6)))
                with pytest.raises(CommandRefused) as info:
                    commands.perform(AddChips(seat=4, player="p4", chips=1_000,
                                              reason="rebuy"), "c-1")
                assert "is in play" in info.value.reason
                assert "TOURN-11" in info.value.reason
                assert len(list(journal.parcels(0, limit=10**6))) == sent  # nothing journaled
                assert not [e for e in vt.events if isinstance(e, StackAdjusted)]
                stacks = {s.seat: s.stack for s in journal.state.seats}
                assert stacks[4] == 4_000
        finally:
            journal.close()

    asyncio.run(run())


@pytest.mark.parametrize(("seat", "player", "says"), [
    (2, "p2", "seat 2 is empty"), (4, "p7", "seat 4 is player4's, not p7's"),
    (11, "p4", "there is no seat 11")])
def test_tourn_10_add_chips_to_an_empty_seat_or_someone_else_is_refused(
        seat: int, player: str, says: str) -> None:
    rig = Rig(seats={1: 1000, 4: 1000}, button=1, tournament=True)
    try:
        assert not rig.table.add_chips(seat, player, 1_000, "rebuy")
        last = rig.last(Rejected)
        assert isinstance(last, Rejected) and says in last.reason
        assert [rig.table.roster[s].stack for s in (1, 4)] == [1000, 1000]
        assert not rig.of(StackAdjusted)
    finally:
        rig.hw.close()


def test_tourn_10_a_cash_table_takes_no_rebuy() -> None:
    rig = Rig(seats={1: 1000, 4: 1000}, button=1)
    try:
        assert not rig.table.add_chips(1, "player1", 1_000, "rebuy")
        last = rig.last(Rejected)
        assert isinstance(last, Rejected) and "cash table" in last.reason
    finally:
        rig.hw.close()


def test_tourn_10_restart_keeps_the_rebought_stack(tmp_path: Path) -> None:
    db = tmp_path / "t1.db"

    async def first() -> int:
        journal = Journal(db, table="t1")
        try:
            async with Outbox(journal) as outbox:
                sink = TableJournal(outbox)
                vt = tournament_table(sink)
                commands = TableCommands(vt.table, sink)
                seat_three(commands, outbox)
                _, events = commands.perform(
                    AddChips(seat=1, player="p1", chips=6_000, reason="rebuy"), "c-rebuy")
                outbox.record_now(events)
                return vt.table.roster[1].stack
        finally:
            journal.close()

    async def second() -> int:
        journal = Journal(db, table="t1")
        try:
            assert not recover(journal)
            async with Outbox(journal) as outbox:
                sink = TableJournal(outbox)
                with sink.muted():
                    vt = tournament_table(sink)
                restore(vt.table, journal.state, sink)
                return vt.table.roster[1].stack
        finally:
            journal.close()

    stack = asyncio.run(first())
    assert stack == 10_000
    assert asyncio.run(second()) == 10_000


def test_tourn_11_the_reference_controls_add_chips_between_hands_only() -> None:
    seats = (SeatView(seat=2, player="ana", stack=3_000), SeatView(seat=5, player="ben",
                                                                      stack=9_000))
    state = PublicState(seats=seats)
    controls = SeatingControls(lambda: state)
    data, events = controls.perform(AddChips(seat=2, player="ana", chips=5_000,
                                             reason="add_on"), "c-9")
    assert data == {"change": "stack_adjusted", "seat": 2, "stack": 8_000}
    (adjusted,) = events
    assert isinstance(adjusted, StackAdjusted) and adjusted.command_id == "c-9"
    assert adjusted.reason == "add_on" and adjusted.seats[0].after == 8_000
    for command, says in ((AddChips(seat=5, player="ana", chips=1, reason="rebuy"),
                           "seat 5 is ben's"),
                          (AddChips(seat=3, player="ana", chips=1, reason="rebuy"),
                           "seat 3 is empty")):
        with pytest.raises(CommandRefused) as info:
            controls.perform(command, "c-10")
        assert says in info.value.reason
    state = PublicState(seats=seats, hand_no=4, hand_in_progress=True)
    with pytest.raises(CommandRefused) as info:
        controls.perform(AddChips(seat=2, player="ana", chips=1, reason="rebuy"), "c-11")
    assert "during hand 4" in info.value.reason
