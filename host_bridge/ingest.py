"""Ingest: what the tables send, applied to the store once, in seq order.

:class:`Ingest` is synchronous and does no network I/O: :meth:`Ingest.take_many` gets a
batch of MQTT messages (topic, payload), applies it in one transaction, and returns an
:class:`IngestResult` with what to publish once it is committed (per table, the ack of the
highest contiguous seq stored, and a resend request when it sees a gap), what to push to
the live feed, and the command replies. The MQTT client (or a test)
publishes the result through a :class:`Publisher`.

Idempotence: an event is stored once per (table, seq) — a table's seq strictly increases
across boots, and the boot travels with it; a duplicate is counted and ignored, a payload
that differs from the stored one under the same seq is a conflict, logged and ignored.
Events are applied to the floor model strictly in seq order, each exactly once; a
``hole_dealt`` counts as stored only when its ``secure/cards`` half arrived too, so the
table never prunes hole cards the bridge does not hold.

Hole cards are never logged.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from pydantic import BaseModel
from sqlalchemy import delete, select
from sqlalchemy.orm import Session, sessionmaker

from controller.sync.errors import MessageRejected
from controller.sync.messages import (
    AckMessage,
    EventMessage,
    HandEnded,
    HandStarted,
    HandVoided,
    ReplyMessage,
    ResendRequest,
    SecureCards,
    StateMessage,
    StatusMessage,
    TableChanged,
    parse_message,
)
from controller.sync.topics import PREFIX, Topics
from host_bridge.hand_history import HandHistoryUnavailable, HandLogEvent, export_hand
from host_bridge.models import (
    EventRecord,
    Hand,
    HoleCards,
    LevelRecord,
    Player,
    PokerTable,
    Seat,
    StackRecord,
)

log = logging.getLogger(__name__)

FeedItem = dict[str, Any]


class Publisher(Protocol):
    """The seam to the broker: the MQTT client, or a fake in tests."""

    async def publish(self, topic: str, payload: bytes, qos: int, retain: bool) -> None:
        """Publish one message; raise :class:`PublishFailed` if it cannot be sent."""


class PublishFailed(Exception):
    """A message could not be handed to the broker (no connection)."""


@dataclass(frozen=True, slots=True)
class Outbound:
    """One message for the broker."""

    topic: str
    payload: bytes
    qos: int = 1
    retain: bool = False


@dataclass(slots=True)
class IngestResult:
    """What a batch of inbound messages led to."""

    outbound: list[Outbound] = field(default_factory=list)
    feed: list[FeedItem] = field(default_factory=list)
    replies: list[ReplyMessage] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)  # why messages were ignored


@dataclass(slots=True)
class _Gap:
    from_seq: int
    asked_at: int  # the ingest's message counter when it asked


_MODELS: dict[str, type[BaseModel]] = {
    "event": EventMessage, "secure/cards": SecureCards, "status": StatusMessage,
    "state": StateMessage, "reply": ReplyMessage,
}


class Ingest:
    """Applies table messages to the store; one per bridge process."""

    def __init__(self, sessions: sessionmaker[Session], site: str, *, host_boot: str,
                 clock: Callable[[], float] = time.time, resend_after: int = 50) -> None:
        self._sessions = sessions
        self.site = site
        self._root = f"{PREFIX}/{site}/table/"
        self._host_boot = host_boot
        self._clock = clock
        self._resend_after = resend_after
        self._host_seq = 0
        self._taken = 0
        self._gaps: dict[str, _Gap] = {}
        self.duplicates = 0
        self.conflicts = 0
        self.failures = 0

    # ------------------------------------------------------------------ dispatch
    def take(self, topic: str, payload: bytes) -> IngestResult:
        """Apply one message from ``pitboss/v1/{site}/table/{id}/...``."""
        return self.take_many([(topic, payload)])

    def take_many(self, messages: Iterable[tuple[str, bytes]]) -> IngestResult:
        """Apply a batch in one transaction (one commit, one ack per table, sent after
        the commit by the caller). A message that fails unexpectedly is rolled back alone
        and logged; the table sends it again since it is not acknowledged."""
        result = IngestResult()
        newest: dict[str, int] = {}  # table -> highest seq seen in this batch
        with self._sessions() as session, session.begin():
            for topic, payload in messages:
                self._taken += 1
                message = self._parse(topic, payload, result)
                if message is None:
                    continue
                try:
                    with session.begin_nested():
                        self._dispatch(session, message, result, newest)
                except Exception:
                    self.failures += 1
                    log.exception("message on %s failed; rolled back, not acknowledged",
                                  topic)  # the exception names the problem, not the payload
            for table_id, seq in newest.items():
                table = session.get(PokerTable, table_id)
                if table is not None:
                    self._acknowledge(table, seq, session, result)
        return result

    def _parse(self, topic: str, payload: bytes,
               result: IngestResult) -> BaseModel | None:
        if not topic.startswith(self._root):
            self._reject(result, topic, f"topic is not under {self._root}")
            return None
        table, _, kind = topic[len(self._root):].partition("/")
        model = _MODELS.get(kind)
        if model is None:
            self._reject(result, topic, f"no handler for {kind!r}")
            return None
        try:
            message = parse_message(model, payload)
        except MessageRejected as exc:
            self._reject(result, topic, exc.reason)
            return None
        named = getattr(message, "table", None)
        if named != table:
            self._reject(result, topic,
                         f"payload names table {named!r} but the topic names {table!r}")
            return None
        return message

    def _reject(self, result: IngestResult, topic: str, reason: str) -> None:
        log.warning("ignored a message on %s: %s", topic, reason)  # never the payload
        result.rejected.append(reason)

    def _dispatch(self, session: Session, message: BaseModel, result: IngestResult,
                  newest: dict[str, int]) -> None:
        if isinstance(message, ReplyMessage):
            result.replies.append(message)
        elif isinstance(message, StatusMessage):
            self._take_status(session, message, result)
        elif isinstance(message, StateMessage):
            _table(session, message.table).snapshot = message.state.model_dump_json()
        elif isinstance(message, EventMessage):
            self._take_event(session, message, result)
            newest[message.table] = max(newest.get(message.table, 0), message.seq)
        elif isinstance(message, SecureCards):
            self._take_secure_cards(session, message, result)
            newest[message.table] = max(newest.get(message.table, 0), message.seq)

    def _next_host_seq(self) -> int:
        self._host_seq += 1
        return self._host_seq

    # ------------------------------------------------------------------ status
    def _take_status(self, session: Session, message: StatusMessage,
                     result: IngestResult) -> None:
        """Mark the table online or offline (a retained status, or the table's Will)."""
        # arrival order decides: the broker keeps a topic's order, and a Will carries the ts
        # of the connect it was set at, older than the ``online`` that followed it
        table = _table(session, message.table)
        table.online = message.status == "online"
        table.status_at = message.ts
        log.info("table %s is %s", message.table, message.status)
        result.feed.append({"type": "status", "table": message.table,
                            "online": table.online, "ts": message.ts})

    # ------------------------------------------------------------------ events
    def _take_event(self, session: Session, message: EventMessage,
                    result: IngestResult) -> None:
        """Store an event once and apply what became contiguous."""
        payload = message.model_dump_json(by_alias=True)
        table = _table(session, message.table)
        stored = session.scalar(select(EventRecord).where(
            EventRecord.table_id == message.table, EventRecord.seq == message.seq))
        if stored is None:
            session.add(EventRecord(table_id=message.table, boot=message.boot,
                                    seq=message.seq, kind=message.event.kind, ts=message.ts,
                                    payload=payload, applied=False,
                                    received_at=self._clock()))
            session.flush()
        elif stored.boot != message.boot or stored.payload != payload:
            self.conflicts += 1
            log.warning("table %s sent seq %d again with a different payload (boot %s, "
                        "stored boot %s); the stored event stands", message.table,
                        message.seq, message.boot, stored.boot)
        else:
            self.duplicates += 1
        self._advance(session, table, result)

    def _take_secure_cards(self, session: Session, message: SecureCards,
                           result: IngestResult) -> None:
        """Store the hole cards of a ``hole_dealt`` event (same seq), once."""
        table = _table(session, message.table)
        stored = session.scalar(select(HoleCards).where(
            HoleCards.table_id == message.table, HoleCards.seq == message.seq))
        if stored is None:
            session.add(HoleCards(table_id=message.table, seq=message.seq,
                                  hand_no=message.hand_no, player=message.player,
                                  cards=list(message.cards), received_at=self._clock()))
            session.flush()
        else:
            self.duplicates += 1
        self._advance(session, table, result)

    def _complete(self, session: Session, table_id: str, seq: int) -> EventRecord | None:
        rec = session.scalar(select(EventRecord).where(EventRecord.table_id == table_id,
                                                       EventRecord.seq == seq))
        if rec is None:
            return None
        if rec.kind == "hole_dealt" and session.scalar(select(HoleCards.id).where(
                HoleCards.table_id == table_id, HoleCards.seq == seq)) is None:
            return None
        return rec

    def _advance(self, session: Session, table: PokerTable, result: IngestResult) -> None:
        while (rec := self._complete(session, table.id, table.acked_seq + 1)) is not None:
            event = EventMessage.model_validate_json(rec.payload)
            _apply(session, table, event, rec.seq, result)
            rec.applied = True
            table.acked_seq = rec.seq
            table.boot = rec.boot
            table.last_event_ts = rec.ts
            result.feed.append({"type": "event", "table": table.id, "seq": rec.seq,
                                "event": event.event.model_dump(mode="json")})
            session.flush()

    def _acknowledge(self, table: PokerTable, seq: int, session: Session,
                     result: IngestResult) -> None:
        topics = Topics(self.site, table.id)
        boot, now = self._host_boot, self._clock()
        result.outbound.append(Outbound(topics.ack, AckMessage(
            table=table.id, boot=boot, ts=now, seq=self._next_host_seq(),
            acked=table.acked_seq).to_wire()))
        gap_from = table.acked_seq + 1
        if seq <= gap_from:
            if seq < gap_from:
                self._gaps.pop(table.id, None)  # nothing missing below what just arrived
            return
        asked = self._gaps.get(table.id)
        if asked is not None and asked.from_seq == gap_from and \
                self._taken - asked.asked_at < self._resend_after:
            return  # asked for this gap recently
        above = session.scalars(select(EventRecord.seq).where(
            EventRecord.table_id == table.id, EventRecord.seq > gap_from,
            EventRecord.seq <= seq).order_by(EventRecord.seq)).all()
        gap_to = (above[0] if above else seq) - 1
        if self._complete(session, table.id, gap_from) is None and \
                session.scalar(select(EventRecord.id).where(
                    EventRecord.table_id == table.id, EventRecord.seq == gap_from)) is not None:
            gap_to = max(gap_to, gap_from)  # the event is here, its hole cards are not
        self._gaps[table.id] = _Gap(gap_from, self._taken)
        log.info("table %s: seq %d..%d missing, asking for a resend", table.id, gap_from,
                 gap_to)
        result.outbound.append(Outbound(topics.ack, ResendRequest(
            table=table.id, boot=boot, ts=now, seq=self._next_host_seq(), from_seq=gap_from,
            to_seq=gap_to).to_wire()))


# ---------------------------------------------------------------------- floor model
def _table(session: Session, table_id: str) -> PokerTable:
    table = session.get(PokerTable, table_id)
    if table is None:
        table = PokerTable(id=table_id, online=False, acked_seq=0, level=1, paused=False,
                           hand_for_hand=False, closed=False, hand_no=0,
                           hand_in_progress=False)
        session.add(table)
        session.flush()
    return table


def _apply(session: Session, table: PokerTable, message: EventMessage, seq: int,
           result: IngestResult) -> None:
    event = message.event
    if isinstance(event, TableChanged):
        _apply_change(session, table, event, seq, message.ts)
    elif isinstance(event, HandStarted):
        session.execute(delete(Hand).where(Hand.table_id == table.id,
                                           Hand.hand_no == event.hand_no))
        session.add(Hand(table_id=table.id, hand_no=event.hand_no, boot=message.boot,
                         status="in_progress", seats=list(event.seats),
                         start_stacks=list(event.stacks), end_stacks=None,
                         small_blind=event.small_blind, big_blind=event.big_blind, board=[],
                         rake=0, first_seq=seq, started_ts=message.ts))
        table.hand_no = event.hand_no
        table.hand_in_progress = True
    elif event.kind == "board":
        hand = _hand(session, table.id, event.hand_no)
        if hand is not None:
            hand.board = [*hand.board, *event.cards]
    elif isinstance(event, HandEnded | HandVoided):
        hand = _hand(session, table.id, event.hand_no)
        table.hand_in_progress = False
        table.clock_on_seat = None
        if hand is None:
            log.warning("table %s: hand %d ended but never started here", table.id,
                        event.hand_no)
            return
        hand.end_stacks = list(event.stacks)
        hand.last_seq = seq
        hand.ended_ts = message.ts
        _settle(session, table, hand, seq)
        if isinstance(event, HandEnded):
            hand.status = "ended"
            hand.rake = event.rake
            _export(session, table, hand)
            result.feed.append({"type": "hand_ended", "table": table.id,
                                "hand_no": hand.hand_no})
        else:
            hand.status = "voided"


def _hand(session: Session, table_id: str, hand_no: int) -> Hand | None:
    return session.scalar(select(Hand).where(Hand.table_id == table_id,
                                             Hand.hand_no == hand_no))


def _settle(session: Session, table: PokerTable, hand: Hand, seq: int) -> None:
    for seat_no, chips in zip(hand.seats, hand.end_stacks or [], strict=False):
        seat = session.get(Seat, (table.id, seat_no))
        if seat is not None:
            seat.stack = chips
        session.add(StackRecord(table_id=table.id, seq=seq, seat=seat_no,
                                player_id=seat.player_id if seat else None, chips=chips,
                                hand_no=hand.hand_no))


def _export(session: Session, table: PokerTable, hand: Hand) -> None:
    rows = session.scalars(select(EventRecord).where(
        EventRecord.table_id == table.id, EventRecord.seq >= hand.first_seq,
        EventRecord.seq <= (hand.last_seq or hand.first_seq)).order_by(EventRecord.seq)).all()
    events: list[tuple[int, HandLogEvent]] = []
    for row in rows:
        ev = EventMessage.model_validate_json(row.payload).event
        if ev.kind in ("hand_started", "hole_dealt", "action", "board") and \
                getattr(ev, "hand_no", None) == hand.hand_no:
            events.append((row.seq, ev))
    holes = {h.seq: h.cards for h in session.scalars(select(HoleCards).where(
        HoleCards.table_id == table.id, HoleCards.hand_no == hand.hand_no))}
    players = []
    for seat_no in hand.seats:
        seat = session.get(Seat, (table.id, seat_no))
        players.append(seat.player_id if seat else f"seat {seat_no}")
    try:
        export = export_hand(events, holes, hand.end_stacks or [], players)
    except HandHistoryUnavailable as exc:
        hand.phh_error = str(exc)
        log.warning("table %s: no PHH for hand %d: %s", table.id, hand.hand_no, exc)
        return
    except Exception as exc:  # an engine bug must not stop the table's events
        hand.phh_error = f"the export failed: {exc!r}"
        log.exception("table %s: the PHH export of hand %d failed", table.id, hand.hand_no)
        return
    hand.phh, hand.phh_public, hand.phh_error = export.full, export.public, None


def _apply_change(session: Session, table: PokerTable, event: TableChanged, seq: int,
                  ts: float) -> None:
    change = event.change
    if change in ("paused", "resumed"):
        table.paused = change == "paused"
    elif change == "level_set" and event.level is not None:
        table.level = event.level
        session.add(LevelRecord(table_id=table.id, seq=seq, level=event.level, ts=ts))
    elif change == "clock_called":
        table.clock_on_seat = event.seat
    elif change == "hand_for_hand" and event.on is not None:
        table.hand_for_hand = event.on
    elif change == "colour_up_scheduled":
        table.colour_up_at_level = event.level
    elif change == "player_seated" and event.seat is not None and event.player is not None:
        if session.get(Player, event.player) is None:
            session.add(Player(id=event.player, first_seen_ts=ts))
            session.flush()
        stack = event.stack or 0
        seat = session.get(Seat, (table.id, event.seat))
        if seat is None:
            session.add(Seat(table_id=table.id, seat=event.seat, player_id=event.player,
                             stack=stack))
        else:
            seat.player_id, seat.stack = event.player, stack
        session.add(StackRecord(table_id=table.id, seq=seq, seat=event.seat,
                                player_id=event.player, chips=stack, hand_no=None))
    elif change in ("player_removed", "player_moved") and event.seat is not None:
        session.execute(delete(Seat).where(Seat.table_id == table.id,
                                           Seat.seat == event.seat))
    elif change == "table_closed":
        table.closed = True
    else:
        log.warning("table %s: change %s at seq %d lacks its fields; stored, not applied",
                    table.id, change, seq)


def feed_json(item: FeedItem) -> str:
    """One feed item as the JSON text sent to browsers."""
    return json.dumps(item, separators=(",", ":"))
