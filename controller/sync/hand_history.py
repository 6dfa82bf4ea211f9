"""A finished hand's PHH, rebuilt from the events the table sent (the bridge's export) or
journaled (the table's own, ``pitboss table run --export-phh DIR``: :class:`HandFiles`).

The table's events say what happened; the rules engine (:class:`controller.rules.hand.Hand`)
replays them so the PHH comes from the same code that exports a hand at the table
(:func:`controller.rules.replay.history_from_hand`). The hand is set up from the
``hand_started`` event's ``config`` (the whole :class:`GameSetup`: antes, straddles, posts,
rake...); a payload from before ``config`` existed falls back to No-Limit with its blinds.
The dealer's corrections are folded into the log first, as the table's ledger does: an
``actions_undone`` (DEAL-6) takes back the last actions, an ``action_corrected`` replaces
one entry. A log the engine refuses is reported, not guessed at. The public copy masks
every hole card nobody showed. A void hand or a misdeal has no history to export.

:class:`HandFiles` follows the outbox, so it sees only what the journal holds (the journal
is the truth: a hand is written after its last event is durable), and writes each
finished hand as ``DIR/<table>-<hand_no>.phh`` with every hole card (the table's own file:
mode 0600). A file it cannot write is one WARNING naming it; the table plays on.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, assert_never

from controller.events import (
    ActionAccepted,
    ActionCorrected,
    ActionsUndone,
    BoardDealt,
    HandEnded,
    HandStarted,
    HandVoided,
    HoleDealt,
    MisdealDeclared,
    PlayerBusted,
    PlayerMoved,
    PlayerRemoved,
    PlayerSeated,
    PublicEvent,
    PublicState,
)
from controller.rules import phh
from controller.rules.cards import Card
from controller.rules.config import LIVE_CASH, RulesProfile, Variant
from controller.rules.errors import RulesError
from controller.rules.game import GameConfig
from controller.rules.hand import Hand
from controller.rules.replay import history_from_hand
from controller.sync.errors import MessageRejected
from controller.sync.journal import Parcel
from controller.sync.messages import EventMessage, SecureCards, parse_message
from controller.sync.outbox import Outbox

log = logging.getLogger(__name__)

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
    full, public = phh.dumps_pair(history, masked)
    return HandExport(full=full, public=public)


# ============================================================================ the table's files
@dataclass
class _OpenHand:
    """The journaled log of the hand under way, and its secret hole cards by seq."""

    start: HandStarted
    events: list[tuple[int, HandLogEvent]]
    holes: dict[int, Sequence[str | None]] = field(default_factory=dict)
    players: list[str] = field(default_factory=list)


class HandFiles:
    """Each finished hand of ``table`` as ``directory/<table>-<hand_no>.phh`` (full hole
    cards, mode 0600), from the journaled events after seq ``after``; ``state`` is the
    journal's state at that seq (who sits where, for the players' names).

    Feed it parcels (:meth:`take`), or let it follow an outbox (:meth:`follow`,
    :meth:`catch_up`). A void hand or a misdeal writes nothing; a hand whose events do not
    replay, or a file that cannot be written, is one WARNING naming the file."""

    def __init__(self, directory: str | Path, table: str, *, after: int,
                 state: PublicState | None = None) -> None:
        self.directory = Path(directory)
        self.table = table
        self.seq = after  # the last journaled seq taken
        self.names = {v.seat: v.player for v in (state.seats if state else ())}
        self.written: list[Path] = []
        self.failed: list[Path] = []
        self._hand: _OpenHand | None = None

    @staticmethod
    def prepare(directory: str | Path) -> Path:
        """Create the directory (mode 0700: hole cards are in it) if it is not there; an
        OSError says why not (the command line refuses the option)."""
        path = Path(directory)
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not os.access(path, os.W_OK | os.X_OK):
            raise PermissionError(13, "not writable", str(path))
        return path

    def path_of(self, hand_no: int) -> Path:
        """Where hand ``hand_no`` is written."""
        return self.directory / f"{self.table}-{hand_no}.phh"

    # ------------------------------------------------------------------ following
    async def follow(self, outbox: Outbox) -> None:
        """Take every parcel the outbox queues (only journaled ones), until cancelled."""
        while True:
            for parcel in await outbox.next_batch(self.seq):
                self.take(parcel)

    async def catch_up(self, outbox: Outbox) -> None:
        """Take what is journaled up to now (before the table stops)."""
        while self.seq < outbox.last_seq:
            for parcel in await outbox.next_batch(self.seq):
                self.take(parcel)
            await asyncio.sleep(0)

    # ------------------------------------------------------------------ the events
    def take(self, parcel: Parcel) -> Path | None:
        """One journaled event; the file written when it ends a hand."""
        if parcel.seq <= self.seq:
            return None  # already taken (a resend, a batch read twice)
        self.seq = parcel.seq
        try:
            event = parse_message(EventMessage, parcel.public).event
        except MessageRejected as exc:  # the journal wrote it: never expected
            log.warning("journal event %d is unreadable, not exported: %s", parcel.seq,
                        exc.reason)
            self._hand = None
            return None
        self._seating(event)
        return self._hand_event(parcel, event)

    def _seating(self, event: PublicEvent) -> None:
        match event:
            case PlayerSeated(seat=seat, player=player):
                self.names[seat] = player
            case PlayerRemoved(seat=seat) | PlayerMoved(seat=seat) | PlayerBusted(seat=seat):
                self.names.pop(seat, None)
            case _:
                pass

    def _hand_event(self, parcel: Parcel, event: PublicEvent) -> Path | None:
        hand = self._hand
        match event:
            case HandStarted():
                self._hand = _OpenHand(event, [(parcel.seq, event)], players=[
                    self.names.get(s, f"seat {s}") for s in event.seats])
            case HoleDealt() | ActionAccepted() | BoardDealt() | ActionsUndone() \
                    | ActionCorrected() if hand is not None \
                    and event.hand_no == hand.start.hand_no:
                hand.events.append((parcel.seq, event))
                if isinstance(event, HoleDealt) and parcel.secure is not None:
                    hand.holes[parcel.seq] = self._hole_cards(parcel)
            case HandVoided() | MisdealDeclared():
                self._hand = None  # CRASH-1, LIVE-25: no hand to export
            case HandEnded() if hand is not None and event.hand_no == hand.start.hand_no:
                self._hand = None
                return self._write(hand, event)
            case _:
                pass
        return None

    @staticmethod
    def _hole_cards(parcel: Parcel) -> Sequence[str | None]:
        assert parcel.secure is not None
        try:
            return parse_message(SecureCards, parcel.secure).cards
        except MessageRejected:
            return ()  # unknown cards stay unknown (replay_hand deals them as unread)

    def _write(self, hand: _OpenHand, ended: HandEnded) -> Path | None:
        path = self.path_of(ended.hand_no)
        try:
            text = export_hand(hand.events, hand.holes, ended.stacks, hand.players).full
        except HandHistoryUnavailable as exc:
            self._failed(path, f"no hand history: {exc}")
            return None
        except Exception as exc:  # an engine bug must not stop the table
            self._failed(path, f"the export failed: {exc!r}")
            return None
        try:
            _write_private(path, text)
        except OSError as exc:
            self._failed(path, f"cannot write it: {exc.strerror or exc}")
            return None
        self.written.append(path)
        return path

    def _failed(self, path: Path, why: str) -> None:
        """One WARNING naming the file; the table plays on."""
        log.warning("hand history %s: %s (the table plays on; the journal keeps the hand)",
                    path, why)
        self.failed.append(path)


def _write_private(path: Path, text: str) -> None:
    """Write ``text`` whole (a temporary file renamed over it), readable by the owner
    alone: a hand history with every hole card is the table's secret."""
    temporary = path.with_name(f".{path.name}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            fd = -1
            file.write(text)
        os.replace(temporary, path)
    except BaseException:
        if fd >= 0:
            os.close(fd)
        temporary.unlink(missing_ok=True)
        raise
