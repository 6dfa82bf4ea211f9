"""The table under arbitrary reads, keys, console input and time (hypothesis).

Whatever arrives, the table never crashes, never makes or loses a chip, and every input
it refuses comes back as a ``Rejected`` with a reason.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from controller.events import (
    HandEnded,
    Irregularity,
    PlayerRemoved,
    PlayerSeated,
    Rejected,
)
from controller.rules.actions import BetRaise, Call, Check, Fold
from controller.rules.cards import DECK
from controller.rules.config import LIVE_CASH, LIVE_TOURNAMENT
from controller.table.table import Stage

from .conftest import UIDS, Rig

READERS = [f"seat{n}" for n in range(1, 11)] + [f"player{n}" for n in range(1, 11)] + [
    "board1", "muck", "deck"]
KEYS = ["deal", "undo", "misdeal", "next_level", "pause", "call_clock"]
ENDED: list[int] = []
FOREIGN = bytes.fromhex("04deadbeef0000")


class TableMachine(RuleBasedStateMachine):
    @initialize(tournament=st.booleans(), seats=st.sets(st.integers(1, 10), min_size=2,
                                                        max_size=6),
                stack=st.integers(20, 400))
    def setup(self, tournament: bool, seats: set[int], stack: int) -> None:
        self.rig = Rig(seats=dict.fromkeys(sorted(seats), stack), button=min(seats),
                       profile=LIVE_TOURNAMENT if tournament else LIVE_CASH,
                       tournament=tournament)
        self.table = self.rig.table
        self.on: list[tuple[str, bytes]] = []

    # ------------------------------------------------------------------ hardware
    @rule(reader=st.sampled_from(READERS), card=st.integers(0, 52))
    def place(self, reader: str, card: int) -> None:
        tag = UIDS[card] if card < 52 else FOREIGN
        self.rig.hw.drive_card_placed(reader, tag)
        self.on.append((reader, tag))
        self.rig.dealer.step()

    @rule(data=st.data())
    def lift(self, data: st.DataObject) -> None:
        if not self.on:
            return
        reader, tag = self.on.pop(data.draw(st.integers(0, len(self.on) - 1)))
        self.rig.hw.drive_card_lifted(reader, tag)
        self.rig.dealer.step(data.draw(st.sampled_from([0.0, 0.2, 0.6])))

    @rule(key=st.sampled_from(KEYS))
    def key(self, key: str) -> None:
        self.rig.dealer.press(key)

    @rule(seconds=st.sampled_from([0.01, 1.0, 30.0, 600.0]))
    def time_passes(self, seconds: float) -> None:
        self.rig.dealer.step(seconds)

    # ------------------------------------------------------------------ the dealer's hands
    @rule(card=st.integers(0, 51))
    def deal_to_next_seat(self, card: int) -> None:
        """Mostly well-formed play, so that hands get somewhere."""
        r = self.table.reads
        seat = r.next_seat if r is not None else None
        reader = f"seat{seat}" if seat is not None else "board1"
        self.place(reader, card)

    @rule(card=st.integers(0, 51), steps=st.integers(1, 25))
    def dealer_moves_on(self, card: int, steps: int) -> None:
        """The right next steps, so that hands reach the showdown and the pots."""
        for k in range(steps):
            self._next_step(card + 7 * k)

    def _next_step(self, card: int) -> None:
        t = self.table
        hand, r = t.hand, t.reads
        if hand is None or r is None:
            self.rig.dealer.press("deal")
            return
        fresh = next((c for c in range(card, card + 52) if not r.knows(DECK[c % 52])), None)
        if t.stage is Stage.DEALING and fresh is not None:
            self.place(f"seat{r.next_seat}", fresh % 52)
        elif t.stage is Stage.PLAYING and hand.actor is None and fresh is not None:
            self.place("board1", fresh % 52)
        elif t.stage is Stage.PLAYING and hand.actor is not None:
            t.call() if hand.call_amount else t.check()
        elif t.stage is Stage.SHOWDOWN:
            t.show()
        elif t.stage is Stage.AWARDING:
            t.confirm()

    @rule(word=st.sampled_from(["fold", "check", "call", "raise"]),
          to=st.integers(0, 500), seat=st.none() | st.integers(0, 11))
    def act(self, word: str, to: int, seat: int | None) -> None:
        self.table.act(word, to, seat=seat)

    @rule(chips=st.integers(-5, 500) | st.lists(st.sampled_from([1, 5, 25, 100]),
                                                 max_size=5),
          seat=st.none() | st.integers(1, 10))
    def push_chips(self, chips: int | list[int], seat: int | None) -> None:
        self.table.chips(chips, seat=seat)

    @rule(data=st.data())
    def resolve(self, data: st.DataObject) -> None:
        keys = [k for p in self.table.prompts for k in p.actions] + ["continue", "nonsense"]
        self.table.resolve(data.draw(st.sampled_from(keys)))

    @rule(what=st.sampled_from(["show", "muck", "confirm"]), seat=st.none() | st.integers(1, 10))
    def showdown(self, what: str, seat: int | None) -> None:
        if what == "confirm":
            self.table.confirm()
        else:
            getattr(self.table, what)(seat)

    @rule(count=st.integers(-1, 4))
    def undo(self, count: int) -> None:
        self.table.undo(count, "machine")

    @rule(index=st.integers(-1, 30), kind=st.sampled_from([Fold, Check, Call, BetRaise]),
          player=st.integers(0, 5), to=st.integers(0, 300))
    def correct(self, index: int, kind: type, player: int, to: int) -> None:
        action = (BetRaise(player, to) if kind is BetRaise else
                  Call(player, to) if kind is Call else kind(player))
        self.table.correct(index, action, "floor")

    @rule(seat=st.integers(0, 11), what=st.sampled_from(["take", "leave", "out", "back"]),
          stack=st.integers(-1, 300))
    def seats(self, seat: int, what: str, stack: int) -> None:
        t = self.table
        if what == "take":
            t.take_seat(seat, f"p{seat}", stack)
        elif what == "leave":
            t.leave_seat(seat)
        elif what == "out":
            t.sit_out(seat)
        else:
            t.come_back(seat)

    # ------------------------------------------------------------------ invariants
    def teardown(self) -> None:
        ENDED.append(sum(isinstance(e, HandEnded) for e in self.rig.events))
        self.rig.hw.close()

    @invariant()
    def chips_are_conserved(self) -> None:
        events = self.rig.events
        bought = sum(e.stack for e in events if isinstance(e, PlayerSeated)) - sum(
            e.stack or 0 for e in events if isinstance(e, PlayerRemoved))
        rake = sum(e.rake for e in events if isinstance(e, HandEnded))
        t = self.table
        on_table = t.roster.total_chips()
        hand, pos = t.hand, t.positions
        if hand is not None and pos is not None:
            assert sum(hand.stacks) + hand.pot_total == sum(hand.config.stacks) or \
                hand.payouts is not None
            in_hand = sum(hand.stacks) if hand.payouts is not None else \
                sum(hand.stacks) + hand.pot_total
            on_table += in_hand + hand.rake - sum(t.roster[s].stack for s in pos.dealt)
        assert on_table + rake == bought

    @invariant()
    def every_refusal_has_a_reason(self) -> None:
        for event in self.rig.events[-20:]:
            if isinstance(event, Rejected):
                assert event.reason
            if isinstance(event, Irregularity):
                assert event.reason and event.choices


TableMachine.TestCase.settings = settings(
    max_examples=int(os.environ.get("TABLE_MACHINE_EXAMPLES", "60")),
    stateful_step_count=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
test_table_machine = TableMachine.TestCase


def test_the_machine_reached_the_end_of_hands() -> None:
    """The machine is worth its time only if hands get to the end (runs after it)."""
    if ENDED:
        assert max(ENDED) > 0
