"""The journal's public state against the live table's own engine: the virtual table (the
real ``Table`` on mock hardware, bots and a dealer, its engine holding the real cards)
journals every event as the controller does, and after each one the state's hand in play
(``PublicState.hand``, replayed from the public log) must say what the table's engine says:
the seat to act, the amount to call, the raise limits, the pots, the stacks and bets."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from controller.events import JournalEvent, PublicState
from controller.rules.hand import Hand, Phase
from controller.rules.view import view_of
from controller.sync.journal import Journal
from controller.table.lights import Level
from controller.table.virtual import VirtualTable


class Compared:
    """A sink journaling each event, then comparing the state with the table's engine."""

    def __init__(self, journal: Journal) -> None:
        self.journal = journal
        self.vt: VirtualTable | None = None
        self.seen: Counter[str] = Counter()

    def __call__(self, event: JournalEvent) -> None:
        self.journal.append([event])
        state = self.journal.state
        if self.vt is None or not state.hand_in_progress:
            return
        hand, positions = self.vt.table.hand, self.vt.table.positions
        if hand is None or positions is None or len(hand.log) != len(state.hand_log):
            return  # the table's engine is a step ahead of what it has reported so far
        self.seen[compare(state, hand, positions.dealt)] += 1


def compare(state: PublicState, hand: Hand, seats: tuple[int, ...]) -> str:
    """Assert the state's hand is the engine's view of ``hand``; say what was compared."""
    view = view_of(hand)
    got = state.hand
    assert got is not None, f"no hand view at hand {state.hand_no}"
    if view.phase is Phase.COMPLETE and got.stage == "showdown":
        # SHOW-3 table_all_at_once: the table's engine turned up the hands it had read,
        # which the public log cannot know until the hand_shown events that follow
        assert hand.profile.allin_table_at_once and got.to_act is None
        return "tabled at once"

    def seat(p: int | None) -> int | None:
        return None if p is None else seats[p]

    assert (got.stage, got.to_act, got.to_call, got.min_raise_to, got.max_raise_to,
            got.current_bet, got.pot_total) == (
        view.phase.value, seat(view.to_act), view.to_call, view.min_raise_to,
        view.max_raise_to, view.current_bet, view.pot_total), state.hand_log[-1:]
    assert [(p.seat, p.stack, p.bet, p.folded) for p in got.players] == list(
        zip(seats, view.stacks, view.bets, view.folded, strict=True))
    assert [(p.amount, p.seats) for p in got.pots] == [
        (p.amount, tuple(seats[i] for i in p.eligible)) for p in view.pots]
    return "to act" if view.to_act is not None else "nobody to act"


@pytest.mark.parametrize("players", [2, 6, 9])
def test_the_state_says_what_the_live_tables_engine_says_after_every_event(
        tmp_path: Path, players: int) -> None:
    journal = Journal(tmp_path / "t.db", table="t1")
    try:
        sink = Compared(journal)
        vt = VirtualTable(players, seed=players, sink=sink, stack=3_000)
        sink.vt = vt
        vt.play_hands(40)
        assert sink.seen["to act"] > 100 and sink.seen["nobody to act"] > 10
        assert journal.state.hand_no >= 40 and journal.state.hand is None
        assert journal.state.stakes is not None and journal.state.stakes.big_blind == 100
    finally:
        journal.close()


def test_ante_2_a_tournament_table_with_a_big_blind_ante_and_short_stacks(
        tmp_path: Path) -> None:
    journal = Journal(tmp_path / "t.db", table="t1")
    try:
        sink = Compared(journal)
        vt = VirtualTable(6, seed=11, sink=sink, stack=400, tournament=True,
                          levels=(Level(50, 100, ante=100),))
        sink.vt = vt
        for _ in range(30):
            if not vt.play_hand():
                break  # one player has every chip
        assert sink.seen["to act"] > 30
        assert journal.state.stakes is not None and journal.state.stakes.big_blind_ante == 100
    finally:
        journal.close()
