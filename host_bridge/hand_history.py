"""A finished hand's PHH, rebuilt from the events the table sent.

The table's events say what happened; the rules engine (:class:`controller.rules.hand.Hand`)
replays them so the PHH comes from the same code that exports a hand at the table
(:func:`controller.rules.replay.history_from_hand`). The hand is set up from the
``hand_started`` event's ``config`` (the whole :class:`GameSetup`: antes, straddles, posts,
rake...); a payload from before ``config`` existed falls back to No-Limit with its blinds.
The dealer's corrections are folded into the log first, as the table's ledger does: an
``actions_undone`` (DEAL-6) takes back the last actions, an ``action_corrected`` replaces
one entry. A log the engine refuses is reported, not guessed at. The public copy masks
every hole card nobody showed. A void hand or a misdeal has no history to export.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final, assert_never

from controller.events import (
    ActionAccepted,
    ActionCorrected,
    ActionsUndone,
    BoardDealt,
    HandStarted,
    HoleDealt,
)
from controller.rules import phh
from controller.rules.cards import Card
from controller.rules.config import LIVE_CASH, RulesProfile, Variant
from controller.rules.errors import RulesError
from controller.rules.game import GameConfig
from controller.rules.hand import Hand
from controller.rules.replay import history_from_hand

HandLogEvent = (HandStarted | HoleDealt | ActionAccepted | BoardDealt | ActionsUndone
                | ActionCorrected)
_Step = HoleDealt | ActionAccepted | BoardDealt
#: the events a hand's PHH is rebuilt from, and their kinds (to read them from the store)
HAND_LOG: Final = (HandStarted, HoleDealt, ActionAccepted, BoardDealt, ActionsUndone,
                   ActionCorrected)
HAND_LOG_KINDS: Final = tuple(t.model_fields["kind"].default for t in HAND_LOG)


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


def hand_steps(events: Sequence[tuple[int, HandLogEvent]]) -> list[tuple[int, _Step]]:
    """The hand's log after the dealer's corrections, as ``(seq, step)``: undone actions
    taken out (DEAL-6), corrected entries replaced (an entry's index counts deals, as the
    engine's log does). Raises :class:`HandHistoryUnavailable` if a correction does not
    match the log."""
    steps: list[tuple[int, _Step]] = []
    for seq, event in events:
        match event:
            case HoleDealt() | BoardDealt() | ActionAccepted():
                steps.append((seq, event))
            case ActionsUndone():
                n = len(event.actions)
                tail = [step for _, step in steps[len(steps) - n:]][::-1] \
                    if n <= len(steps) else []
                if len(tail) != n or any(
                        not isinstance(t, ActionAccepted) or t.move() != a.move()
                        for t, a in zip(tail, event.actions, strict=True)):
                    raise HandHistoryUnavailable(f"hand {event.hand_no}: the actions undone "
                                                 f"at seq {seq} are not the last {n} of its "
                                                 "log")
                del steps[len(steps) - n:]
            case ActionCorrected():
                entry = steps[event.index][1] if event.index < len(steps) else None
                if not isinstance(entry, ActionAccepted) or entry.move() != event.old.move():
                    raise HandHistoryUnavailable(f"hand {event.hand_no}: the correction at "
                                                 f"seq {seq} names log entry {event.index}, "
                                                 "which is not the corrected action")
                steps[event.index] = (steps[event.index][0], event.new)
                for later in event.replayed:  # later entries the replay changed
                    if event.index < later.index < len(steps):
                        steps[later.index] = (steps[later.index][0], later.step)
            case HandStarted():
                pass  # the hand's start (replay_hand sets the hand up from it)
            case _:
                assert_never(event)
    return steps


def _config(start: HandStarted) -> GameConfig:
    if start.config is not None:
        return start.config.config(tuple(start.stacks))
    return GameConfig(variant=Variant.NT, stacks=start.stacks, small_blind=start.small_blind,
                      big_blind=start.big_blind)


def _profile(start: HandStarted) -> RulesProfile:
    """The rules the table played the hand under (SHOW-3, POT-5, BET-9...)."""
    return LIVE_CASH if start.config is None else start.config.profile()


def replay_hand(events: Sequence[tuple[int, HandLogEvent]],
                hole_cards: Mapping[int, Sequence[str | None]], end_stacks: Sequence[int]) -> Hand:
    """The hand that ``(seq, event)`` pairs describe; ``hole_cards`` maps the seq of each
    ``hole_dealt`` to its secret cards (unknown cards stay unknown). Raises
    :class:`HandHistoryUnavailable` if the engine refuses the log."""
    if not events or not isinstance(events[0][1], HandStarted):
        raise HandHistoryUnavailable("the hand's events do not begin with hand_started")
    start = events[0][1]
    try:
        hand = Hand(_config(start), _profile(start))
        for seq, event in hand_steps(events[1:]):
            match event:
                case HoleDealt(player=player, count=count):
                    cards = hole_cards.get(seq)
                    hand.deal_hole(player, _cards(cards) if cards is not None
                                   else (None,) * count)
                case BoardDealt(cards=board):
                    hand.deal_board(_known(board))
                case ActionAccepted():
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
    if event.action == "show":
        hand.show(p, _known(event.cards) if event.cards else None)
    elif event.action == "bet_raise" and event.amount is None:
        raise HandHistoryUnavailable(f"bet_raise by player {p} without an amount")
    else:  # fold (with its forfeit), check, call, bet_raise, muck, kill
        hand.apply(event.rules_action())


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
