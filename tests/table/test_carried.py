"""What follows a player moved from another table (issues 5 and 9): the time-bank extension
chips they hold and the hands of a penalty still to serve (PEN-4, PEN-5, TOURN-32), on the
wire (``SeatPlayer``, ``player_seated``, ``penalty_served``), on the live table (chips
spent at the shot clock; the penalty served dealt in, posting and killed, BLIND-7) and
through a controller restart (the real ``TableJournal``/``Outbox`` on SQLite)."""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from pathlib import Path

from controller import events as ev
from controller.app import TableCommands, TableJournal, recover, restore
from controller.clocks.timebank import ExtensionChips
from controller.events import (
    ActionAccepted,
    CameBack,
    HandEnded,
    HandStarted,
    PenaltyServed,
    Rejected,
    SeatPlayer,
    ShotClockReport,
)
from controller.rules.actions import Fold, Kill
from controller.sync.journal import Journal
from controller.sync.messages import CommandMessage, EventMessage, parse_message
from controller.sync.outbox import Outbox
from controller.table.lights import Level
from controller.table.seats import SeatState
from controller.table.virtual import VirtualTable

from .conftest import Rig
from .test_clock_restart import W0, S, table_on
from .test_clocks import dealt

PENALISED = 9


def _command(command: SeatPlayer) -> bytes:
    return CommandMessage(table="t1", boot="host", seq=1, ts=time.time(), command_id="c-1",
                          command=command).to_wire()


def test_pen_5_seat_player_carries_extension_chips_and_penalty_hands_on_the_wire() -> None:
    sent = SeatPlayer(seat=4, player="p4", stack=12_000, extension_chips=2, penalty_hands=11)
    back = parse_message(CommandMessage, _command(sent)).command
    assert back == sent and isinstance(back, SeatPlayer)
    assert (back.extension_chips, back.penalty_hands) == (2, 11)
    # backward compatible: nothing carried, neither is sent (an older table refuses
    # unknown fields), and a payload without them is a seat with nothing carried
    old = json.loads(_command(SeatPlayer(seat=4, player="p4", stack=12_000)))
    assert old["command"] == {"name": "seat_player", "seat": 4, "player": "p4",
                              "stack": 12_000}
    plain = parse_message(CommandMessage, json.dumps(old).encode()).command
    assert isinstance(plain, SeatPlayer)
    assert (plain.extension_chips, plain.penalty_hands) == (None, None)
    # the table's report carries them too (player_seated; penalty_served counts down)
    for change in (ev.PlayerSeated(seat=4, player="p4", stack=12_000,
                                   extension_chips=2, penalty_hands=11),
                   ev.PenaltyServed(seat=4, player="p4", hands_left=10, hand_no=7)):
        message = EventMessage(table="t1", boot="b", seq=3, ts=1.0, event=change)
        assert parse_message(EventMessage, message.to_wire()).event == change


def test_tourn_32_a_player_seated_with_2_extension_chips_uses_exactly_2() -> None:
    bank = ExtensionChips(30.0)  # no stage granted here: only what the player brings
    rig = Rig(seats={1: 1000, 3: 1000}, button=5, extensions=bank)
    try:
        assert rig.table.take_seat(5, "player5", 1000, extension_chips=2)
        assert bank.chips("player5") == 2 and bank.chips("player1") == 0
        t = dealt(rig).table  # seat 5, the button, acts first preflop
        assert t.use_extension(5) and t.use_extension(5)
        taken = [e for e in rig.of(ShotClockReport) if e.what == "extension"]
        assert [(e.seat, e.chips_left) for e in taken] == [(5, 1), (5, 0)]
        assert not t.use_extension(5)  # a third: none left
        last = rig.last(Rejected)
        assert isinstance(last, Rejected) and "no extension chips" in last.reason
        assert len([e for e in rig.of(ShotClockReport) if e.what == "extension"]) == 2
    finally:
        rig.hw.close()


def penalised_table(hands: int) -> VirtualTable:
    """A tournament table the host seats: three players, then one moved in with a penalty."""
    vt = VirtualTable(0, seed=5, tournament=True, levels=(Level(50, 100),))
    for seat in (1, 4, 7):
        assert vt.table.take_seat(seat, f"p{seat}", 20_000)
    assert vt.table.take_seat(PENALISED, f"p{PENALISED}", 20_000, penalty_hands=hands)
    return vt


def test_pen_4_a_penalised_player_posts_and_is_folded_n_hands_then_plays() -> None:
    vt = penalised_table(3)
    t = vt.table
    assert t.roster[PENALISED].state is SeatState.SITTING_OUT
    assert not t.come_back(PENALISED)  # the dealer cannot cut the penalty short
    last = vt.events[-1]
    assert isinstance(last, Rejected) and last.rule == "PEN-4"
    stacks = [t.roster[PENALISED].stack]
    for n in range(3):
        assert vt.play_hand()
        hand = [e for e in vt.events if isinstance(e, HandStarted)][-1]
        assert PENALISED in hand.seats  # dealt in (BLIND-7): blinds and antes posted
        moves = [e.rules_action() for e in vt.events if isinstance(e, ActionAccepted)
                 and e.hand_no == hand.hand_no and hand.seats[e.player] == PENALISED]
        assert moves and all(isinstance(m, Fold | Kill) for m in moves), moves
        stacks.append(t.roster[PENALISED].stack)
        served = [e for e in vt.events if isinstance(e, PenaltyServed)][-1]
        assert (served.seat, served.player, served.hands_left, served.hand_no) == (
            PENALISED, f"p{PENALISED}", 2 - n, hand.hand_no)
    assert all(a >= b for a, b in itertools.pairwise(stacks))  # never wins
    assert stacks[-1] < stacks[0]  # three hands at four players: a blind was posted
    assert any(isinstance(e, CameBack) and e.seat == PENALISED for e in vt.events)
    assert t.roster[PENALISED].state is SeatState.PLAYING and not t.penalties
    served = sum(isinstance(e, PenaltyServed) for e in vt.events)
    assert vt.play_hand()  # the fourth hand: dealt in and playing
    hand = [e for e in vt.events if isinstance(e, HandStarted)][-1]
    assert PENALISED in hand.seats
    assert sum(isinstance(e, PenaltyServed) for e in vt.events) == served  # nothing more
    vt.check_chips()


def test_pen_4_a_misdealt_hand_is_dealt_again_and_does_not_count() -> None:
    vt = penalised_table(2)
    t = vt.table
    vt._draw_button()
    assert t.start_hand() and t.misdeal("a card was exposed in the deal")
    assert not [e for e in vt.events if isinstance(e, PenaltyServed)]
    assert t.penalties == {f"p{PENALISED}": 2}
    assert vt.play_hand()
    assert [e.hands_left for e in vt.events if isinstance(e, PenaltyServed)] == [1]


# ---------------------------------------------------------------------------- restart
def test_pen_5_restart_keeps_the_penalty_still_to_serve(tmp_path: Path) -> None:
    db = tmp_path / "t1.db"

    async def first() -> None:
        journal = Journal(db, table="t1")
        try:
            async with Outbox(journal) as outbox:
                sink = TableJournal(outbox)
                vt = VirtualTable(0, seed=2, tournament=True, structure=S, sink=sink)
                commands = TableCommands(vt.table, sink)
                for seat in (1, 4, 7):
                    outbox.record_now(commands.perform(
                        SeatPlayer(seat=seat, player=f"p{seat}", stack=20_000), f"c{seat}")[1])
                reply, events = commands.perform(SeatPlayer(
                    seat=PENALISED, player=f"p{PENALISED}", stack=20_000, penalty_hands=4),
                    "c-moved")
                assert reply == {"change": "player_seated"}
                outbox.record_now(events)
                view = {s.seat: s for s in journal.state.seats}[PENALISED]
                assert view.sitting_out and view.penalty_hands == 4
                assert vt.play_hand()
                view = {s.seat: s for s in journal.state.seats}[PENALISED]
                assert view.penalty_hands == 3 and view.sitting_out
        finally:
            journal.close()

    async def second() -> VirtualTable:
        journal = Journal(db, table="t1")
        try:
            assert not recover(journal)
            async with Outbox(journal) as outbox:
                sink = TableJournal(outbox)
                with sink.muted():
                    vt = VirtualTable(0, seed=3, tournament=True, structure=S, sink=sink)
                restore(vt.table, journal.state, sink)
                assert vt.table.penalties == {f"p{PENALISED}": 3}
                assert vt.table.roster[PENALISED].state is SeatState.SITTING_OUT
                for _ in range(3):
                    assert vt.play_hand()
                view = {s.seat: s for s in journal.state.seats}[PENALISED]
                assert view.penalty_hands == 0 and not view.sitting_out
                return vt
        finally:
            journal.close()

    asyncio.run(first())
    vt = asyncio.run(second())
    assert [e.hands_left for e in vt.events if isinstance(e, PenaltyServed)] == [2, 1, 0]
    assert vt.table.roster[PENALISED].state is SeatState.PLAYING


def test_tourn_32_restart_keeps_the_extension_chips_a_moved_player_brought(
        tmp_path: Path) -> None:
    db = tmp_path / "t1.db"

    async def first() -> None:
        journal = Journal(db, table="t1")
        try:
            async with Outbox(journal) as outbox:
                sink = TableJournal(outbox)
                bank = ExtensionChips(30.0)  # no stage: only what players bring
                table, _ = table_on(sink, W0, bank)
                _, events = TableCommands(table, sink).perform(SeatPlayer(
                    seat=3, player="mover", stack=20_000, extension_chips=2), "c-moved")
                outbox.record_now(events)
                seated = [e for e in events if isinstance(e, ev.PlayerSeated)]
                assert seated[0].extension_chips == 2 and seated[0].clock is not None
                assert journal.state.clock is not None
                assert dict(journal.state.clock.chips) == {"mover": 2}
        finally:
            journal.close()

    async def second() -> ExtensionChips:
        journal = Journal(db, table="t1")
        try:
            async with Outbox(journal) as outbox:
                sink = TableJournal(outbox)
                bank = ExtensionChips(30.0)
                with sink.muted():
                    table, _ = table_on(sink, W0 + 5.0, bank)
                restore(table, journal.state, sink)
                assert table.roster[3].player == "mover"
                return bank
        finally:
            journal.close()

    asyncio.run(first())
    assert asyncio.run(second()).chips("mover") == 2


def test_pen_5_a_table_keeps_no_penalty_for_a_player_who_left() -> None:
    vt = penalised_table(5)
    assert vt.table.leave_seat(PENALISED)  # moved on: the host carries the count
    assert vt.table.penalties == {}
    assert vt.table.take_seat(PENALISED, f"p{PENALISED}", 20_000)  # back with none
    assert vt.table.roster[PENALISED].state is SeatState.PLAYING
    assert vt.play_hand() and [e for e in vt.events if isinstance(e, HandEnded)]
    assert not [e for e in vt.events if isinstance(e, PenaltyServed)]
