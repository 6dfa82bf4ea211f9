"""The hand in play as the rules engine sees it, for the table's public state.

:func:`hand_public` replays a hand's public log (``PublicState.hand_log``: deals, the
hole cards hidden, boards, actions) through :class:`controller.rules.hand.Hand` set up from
the ``hand_started``'s :class:`~controller.events.GameSetup` and rules profile, and copies
:func:`controller.rules.view.view_of` into a :class:`~controller.events.state.PublicHand`,
positions turned into seats. No betting rule is worked out here: every number is the
engine's.

Cost: the ledger folds every event of a hand into the state, so replaying the whole log
each time would be quadratic in the hand's length. :class:`LiveHands` keeps the engine
hand of each log it has built, keyed by the log's identity (the fold adds one entry to a
new tuple each step): the next step takes that hand, applies one action and moves it to
the new log. Anything else (the first sight of a hand after a restart, an undo, a
correction, a state forked off an older one) replays the log from the start, which gives
the same answer, only slower. An entry exists only for the log its hand reflects, so a
hand is never shared by two states.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Sequence
from typing import Final, get_args

from controller.events import ActionAccepted, BoardDealt, GameSetup, HandStep, HoleDealt
from controller.events.state import LegalMove, PublicHand, PublicPlayer, PublicPot, Stage
from controller.rules.cards import Card
from controller.rules.errors import RulesError
from controller.rules.hand import Hand
from controller.rules.view import view_of

log = logging.getLogger(__name__)

__all__ = ["LIVE_HANDS", "LiveHands", "engine_hand", "hand_public"]

_STAGES: Final = frozenset(get_args(Stage))
Log = tuple[HandStep, ...]


def _step(hand: Hand, step: HandStep) -> None:
    """Apply one public log entry to the engine hand (hole cards stay hidden)."""
    match step:
        case HoleDealt(player=player, count=count):
            hand.deal_hole(player, (None,) * count)
        case BoardDealt(cards=cards):
            hand.deal_board(tuple(Card.parse(c) for c in cards))
        case ActionAccepted(action="show", player=player, cards=cards):
            hand.show(player, tuple(Card.parse(c) for c in cards) if cards else None)
        case ActionAccepted():
            hand.apply(step.rules_action())


def engine_hand(setup: GameSetup, stacks: tuple[int, ...], steps: Sequence[HandStep]
                ) -> Hand:
    """The engine hand of ``steps`` from the start, under the rules profile the table
    played it under (``GameSetup.rules``; the live cash profile if the table did not say);
    raises ``RulesError`` (or ``ValueError``) if the engine refuses the setup or a step."""
    hand = Hand(setup.config(stacks), setup.profile())
    for step in steps:
        _step(hand, step)
    return hand


class LiveHands:
    """The engine hands of the latest logs (a few: one per table a process folds, plus a
    spare), each keyed by its log's identity and its setup's."""

    def __init__(self, size: int = 16) -> None:
        self._size = size
        # (id(log), id(setup)) -> (log, setup, stacks, hand): the objects are held, so
        # their ids cannot be reused while the entry lives
        self._hands: OrderedDict[tuple[int, int], tuple[Log, GameSetup, tuple[int, ...],
                                                        Hand]] = OrderedDict()
        self.replays = 0  # whole-log replays (a test reads it: the hot path never does)

    def _take(self, log_: Log, setup: GameSetup, stacks: tuple[int, ...]) -> Hand | None:
        entry = self._hands.pop((id(log_), id(setup)), None)
        if entry is None or entry[0] is not log_ or entry[1] is not setup \
                or entry[2] != stacks:
            return None
        return entry[3]

    def _keep(self, log_: Log, setup: GameSetup, stacks: tuple[int, ...], hand: Hand) -> None:
        self._hands[(id(log_), id(setup))] = (log_, setup, stacks, hand)
        while len(self._hands) > self._size:
            self._hands.popitem(last=False)

    def hand(self, setup: GameSetup, stacks: tuple[int, ...], log_: Log,
             previous: Log | None = None) -> Hand:
        """The engine hand after ``log_``; ``previous`` is the log it grew from by one
        entry, if it did (the hand kept for it, if any, is taken on from there). Raises as
        :func:`engine_hand` does; the hand is then forgotten."""
        hand = None
        if previous is not None and len(log_) == len(previous) + 1:
            hand = self._take(previous, setup, stacks)
            if hand is not None:
                _step(hand, log_[-1])
        if hand is None:
            self.replays += 1
            hand = engine_hand(setup, stacks, log_)
        self._keep(log_, setup, stacks, hand)
        return hand


LIVE_HANDS: Final = LiveHands()


def _stage(phase: str) -> Stage:
    assert phase in _STAGES, phase
    return phase  # type: ignore[return-value]


def public_of(hand: Hand, seats: tuple[int, ...], previous: PublicHand | None = None
              ) -> PublicHand:
    """:func:`view_of` ``hand`` with each position as its seat (``seats`` in position
    order). The players and pots of ``previous`` (the view one step before) that did not
    change are taken over as they are (a step changes a player or two)."""
    v = view_of(hand)
    legal: list[LegalMove] = []
    if v.can_fold:
        legal.append("fold")
    if v.can_check:
        legal.append("check")
    if v.can_call:
        legal.append("call")
    if v.can_bet_or_raise:
        legal.append("bet_raise")
    was = previous.players if previous is not None else ()
    players = tuple(
        was[i] if i < len(was) and row == (was[i].seat, was[i].stack, was[i].bet,
                                           was[i].folded, was[i].all_in, was[i].mucked)
        else PublicPlayer(seat=row[0], stack=row[1], bet=row[2], folded=row[3],
                          all_in=row[4], mucked=row[5])
        for i, row in enumerate(zip(seats, v.stacks, v.bets, v.folded, v.all_in, v.mucked,
                                    strict=True)))
    pots = tuple(_pot(previous, i, p.amount, tuple(seats[j] for j in p.eligible))
                 for i, p in enumerate(v.pots))
    return PublicHand(
        stage=_stage(v.phase.value), street=v.street.value,
        board=tuple(str(c) for c in v.board), pots=pots, pot_total=v.pot_total,
        players=players, current_bet=v.current_bet,
        to_act=None if v.to_act is None else seats[v.to_act], to_call=v.to_call,
        min_raise_to=v.min_raise_to, max_raise_to=v.max_raise_to, legal=tuple(legal),
        next_to_show=None if v.next_to_show is None else seats[v.next_to_show])


def _pot(previous: PublicHand | None, i: int, amount: int, seats: tuple[int, ...]
         ) -> PublicPot:
    if previous is not None and i < len(previous.pots):
        was = previous.pots[i]
        if was.amount == amount and was.seats == seats:
            return was
    return PublicPot(amount=amount, seats=seats)


def hand_public(setup: GameSetup | None, stacks: tuple[int, ...], seats: tuple[int, ...],
                log_: Log, previous: Log | None = None, *, shown: PublicHand | None = None,
                hands: LiveHands = LIVE_HANDS) -> PublicHand | None:
    """The hand in play as the engine sees it after ``log_`` (None without a setup, or if
    the engine refuses the log: a table whose own engine accepted every step never sends
    one it refuses, so that is logged as the bug it is). ``previous``: the log one entry
    shorter, if ``log_`` grew from it; ``shown``: the view of the hand before, whose
    unchanged parts are taken over."""
    if setup is None:
        return None
    try:
        hand = hands.hand(setup, stacks, log_, previous)
    except (RulesError, ValueError) as exc:
        log.warning("the hand's public log does not replay (%s); no hand view", exc)
        return None
    return public_of(hand, seats, shown)
