"""The tables' reports applied to the director's model (TOURN-10, -22, -24, -27, -32,
CHIPRACE-1..4, PEN-4): a hand's start and end (stacks, eliminations, places), a void hand,
the seats, pause and hand-for-hand as the table reports them, a time-bank chip spent, a
colour-up's chip race. After every hand the invariants are checked (every player seated
once, no table over its seats, chips conserved, places unique and complete); a failure is
an anomaly.

:class:`TableReports` is given the model, the tables' views, what the tables are let deal,
the draw's ``random.Random`` (ties of TOURN-24), the figures it counts and where anomalies
go. Bridge side (the vocabulary's typed events, dispatched with ``match``).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping

from controller.events import (
    HandEnded,
    HandForHandSet,
    HandStarted,
    HandVoided,
    MisdealDeclared,
    Paused,
    PlayerBusted,
    PlayerMoved,
    PlayerRemoved,
    PlayerSeated,
    PublicEvent,
    Resumed,
    ShotClockReport,
    StackAdjusted,
    TableClosed,
)
from controller.rules.button import Positions
from controller.rules.errors import RulesError

from .entries import HandResult
from .errors import DirectorError
from .floorstate import Dealing, HandInPlay, TableView
from .handforhand import H4H
from .tournament import Tournament


def positions(ev: HandStarted) -> Positions | None:
    """The hand's button and blinds as the table reports them (None: not given)."""
    button, bb, sb = ev.button, ev.big_blind_seat, ev.small_blind_seat
    if button is None or bb is None:
        return None
    for small in (sb, None):
        try:
            return Positions(button, small, bb, ev.seats, small_blind_seat=sb)
        except (RulesError, TypeError):
            continue
    return None


class TableReports:
    """Applies one table's report to the model, its view and the dealing state."""

    def __init__(self, model: Tournament, views: Mapping[str, TableView], dealing: Dealing,
                 rng: random.Random, *, figures: dict[str, int],
                 anomaly: Callable[[str], None]) -> None:
        self._model = model
        self._views = views
        self._dealing = dealing
        self._rng = rng
        self._figures = figures
        self._anomaly = anomaly

    def apply(self, wire: str, ev: PublicEvent) -> None:
        view = self._views[wire]
        match ev:
            case HandStarted():
                self._hand_started(view, ev)
            case HandEnded():
                self._hand_ended(view, ev)
            case HandVoided() | MisdealDeclared():
                self._hand_void(view)
            case PlayerSeated(seat=seat, player=player):
                view.seats[seat] = player
                # seated by a command sent in this stage: the table holds its grant
                view.granted[seat] = self._model.time_bank.stage
            case PlayerMoved(seat=seat, stack=stack):
                moved = view.seats.pop(seat, None)
                view.granted.pop(seat, None)
                if moved is not None:
                    view.moved_stacks[moved] = stack
            case PlayerRemoved(seat=seat) | PlayerBusted(seat=seat):
                view.seats.pop(seat, None)
                view.granted.pop(seat, None)
            case Paused() | Resumed():
                view.paused = isinstance(ev, Paused)
            case HandForHandSet(on=on):
                view.hand_for_hand = on
            case TableClosed():
                view.closed = True
            case ShotClockReport(what="extension", seat=seat, chips_left=int() as left) \
                    if seat in view.seats:
                # a time-bank chip spent: the host's count follows (it goes with a move)
                self._model.time_bank.carry_in(view.seats[seat], left)
            case StackAdjusted(reason="colour_up", seats=seats):
                after = {view.seats[a.seat]: a.after for a in seats if a.seat in view.seats}
                try:
                    self._model.chip_race(after)  # CHIPRACE-1..4: the race's new stacks
                except DirectorError as exc:
                    self._anomaly(f"table {wire}'s colour-up: {exc}")
            case _:
                pass  # the table's other reports change nothing the director keeps

    def _hand_started(self, view: TableView, ev: HandStarted) -> None:
        model, dealing = self._model, self._dealing
        number = view.number
        chart = model.floor.tables[number].players
        players = [view.seats.get(s) or chart.get(s) for s in ev.seats]
        known = [p for p in players if p is not None]
        if len(known) != len(players):
            self._anomaly(f"table {view.wire} dealt a seat the director has nobody in")
            return
        if model.floor.tables[number].in_hand:
            self._anomaly(f"table {view.wire} started a hand before reporting the last one's "
                          "end")
            model.floor.tables[number].in_hand = False
        try:
            model.hand_started(number, self._rng, reported=True)
        except DirectorError as exc:
            self._anomaly(f"table {view.wire}'s hand: {exc}")
        h4h_hand = None
        if dealing.h4h is not None and number in dealing.h4h.state:
            dealing.released.discard(number)  # its NextHand is used up
            try:
                h4h_hand = dealing.h4h.hand_started(number)
            except DirectorError as exc:
                self._anomaly(f"table {view.wire} dealt out of turn: {exc}")
        if dealing.last_hands is not None and view.hand_for_hand and \
                dealing.last_hands.may_deal(number):  # TOURN-27: released hands only
            dealing.released.discard(number)
            dealing.last_hands.hand_started(number)
        view.hand = HandInPlay(known, list(ev.stacks), positions(ev), h4h_hand)

    def _hand_ended(self, view: TableView, ev: HandEnded) -> None:
        model, dealing = self._model, self._dealing
        hand, view.hand = view.hand, None
        number = view.number
        if hand is None:
            self._anomaly(f"table {view.wire} ended a hand the director did not see start")
            return
        result = HandResult(number, dict(zip(hand.players, hand.start, strict=False)),
                            dict(zip(hand.players, ev.stacks, strict=False)), hand.positions,
                            h4h_hand=hand.h4h)
        if dealing.h4h is not None and dealing.h4h.state.get(number) in (H4H.PLAYING,
                                                                        H4H.FROZEN):
            dealing.h4h.hand_ended(number)
            self._figures["h4h_hands"] += 1
        if dealing.last_hands is not None:
            dealing.last_hands.hand_ended(number)
        try:
            model.hand_ended(result, self._rng)
        except DirectorError as exc:
            self._anomaly(f"table {view.wire}'s hand report: {exc}")
            model.floor.tables[number].in_hand = False
        view.hands += 1
        self._figures["hands"] += 1
        self._check()

    def _hand_void(self, view: TableView) -> None:
        """A void hand or misdeal: stacks back, the same hand is dealt again (it does not
        count toward a penalty either, PEN-4)."""
        if view.hand is not None:
            self._model.penalties.hand_voided(view.hand.players)
        view.hand = None
        self._model.floor.tables[view.number].in_hand = False
        h4h = self._dealing.h4h
        if h4h is not None and h4h.state.get(view.number) is H4H.PLAYING:
            h4h.state[view.number] = H4H.WAITING  # it deals the same hand again (TOURN-22)
            h4h.to_deal.add(view.number)
            self._dealing.released.discard(view.number)

    def _check(self) -> None:
        """The invariants after every hand (every player seated once, no table over its
        seats, chips conserved, places unique and complete)."""
        self._figures["checks"] += 1
        try:
            self._model.check()
        except AssertionError as exc:
            self._anomaly(f"an invariant does not hold: {exc}")
