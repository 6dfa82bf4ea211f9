"""A finished hand's PHH, rebuilt from the events the table sent.

The table's events say what happened; the rules engine (:class:`controller.rules.hand.Hand`)
replays them so the PHH comes from the same code that exports a hand at the table
(:func:`controller.rules.replay.history_from_hand`). A log the engine refuses is reported,
not guessed at. The public copy masks every hole card nobody showed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from controller.rules import phh
from controller.rules.cards import Card
from controller.rules.config import Variant
from controller.rules.errors import RulesError
from controller.rules.game import GameConfig
from controller.rules.hand import Hand
from controller.rules.replay import history_from_hand
from controller.sync.messages import (
    ActionAccepted,
    BoardDealt,
    HandStarted,
    HoleDealt,
)

HandLogEvent = HandStarted | HoleDealt | ActionAccepted | BoardDealt


class HandHistoryUnavailable(Exception):
    """The events of a hand could not be replayed into a PHH; the message says why."""


@dataclass(frozen=True, slots=True)
class HandExport:
    """The PHH of one hand: ``full`` with hole cards, ``public`` with unshown ones masked."""

    full: str
    public: str


def _cards(cards: Sequence[str | None]) -> tuple[Card | None, ...]:
    return tuple(None if c is None else Card.parse(c) for c in cards)


def _known(cards: Sequence[str]) -> tuple[Card, ...]:
    return tuple(Card.parse(c) for c in cards)


def replay_hand(events: Sequence[tuple[int, HandLogEvent]],
                hole_cards: Mapping[int, Sequence[str | None]], end_stacks: Sequence[int]) -> Hand:
    """The hand that ``(seq, event)`` pairs describe; ``hole_cards`` maps the seq of each
    ``hole_dealt`` to its secret cards (unknown cards stay unknown). Raises
    :class:`HandHistoryUnavailable` if the engine refuses the log."""
    if not events or not isinstance(events[0][1], HandStarted):
        raise HandHistoryUnavailable("the hand's events do not begin with hand_started")
    start = events[0][1]
    try:
        hand = Hand(GameConfig(variant=Variant.NT, stacks=start.stacks,
                               small_blind=start.small_blind, big_blind=start.big_blind))
        for seq, event in events[1:]:
            if isinstance(event, HoleDealt):
                cards = hole_cards.get(seq)
                hand.deal_hole(event.player, _cards(cards) if cards is not None
                               else (None,) * event.count)
            elif isinstance(event, BoardDealt):
                hand.deal_board(_known(event.cards))
            elif isinstance(event, ActionAccepted):
                _act(hand, event)
    except (RulesError, ValueError) as exc:
        raise HandHistoryUnavailable(f"hand {start.hand_no} does not replay: {exc}") from None
    if not hand.is_complete:
        raise HandHistoryUnavailable(f"hand {start.hand_no} ended at the table but its events "
                                     "leave it unfinished (an event is missing?)")
    if list(hand.stacks) != list(end_stacks):
        raise HandHistoryUnavailable(f"hand {start.hand_no}: the replay ends with stacks "
                                     f"{hand.stacks}, the table reported {list(end_stacks)}")
    return hand


def _act(hand: Hand, event: ActionAccepted) -> None:
    p = event.player
    if event.action == "fold":
        hand.fold(p)
    elif event.action == "check":
        hand.check(p)
    elif event.action == "call":
        hand.call(p)
    elif event.action == "bet_raise":
        if event.amount is None:
            raise HandHistoryUnavailable(f"bet_raise by player {p} without an amount")
        hand.bet_or_raise_to(event.amount, p)
    elif event.action == "show":
        hand.show(p, _known(event.cards) if event.cards else None)
    else:
        hand.muck(p)


def export_hand(events: Sequence[tuple[int, HandLogEvent]],
                hole_cards: Mapping[int, Sequence[str | None]],
                end_stacks: Sequence[int], players: Sequence[str] | None) -> HandExport:
    """The two PHH texts of a finished hand."""
    hand = replay_hand(events, hole_cards, end_stacks)
    history = history_from_hand(hand, players=players)
    masked = tuple(dataclasses.replace(a, cards=(None,) * len(a.cards))
                   if a.kind == "dh" and a.cards else a for a in history.actions)
    return HandExport(full=phh.dumps(history),
                      public=phh.dumps(dataclasses.replace(history, actions=masked)))
