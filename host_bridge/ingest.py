"""Ingest: what the tables send, applied to the store once, in seq order.

:class:`Ingest` is synchronous and does no network I/O: :meth:`Ingest.take_many` gets a
batch of MQTT messages (topic, payload), applies it in one transaction, and returns an
:class:`IngestResult` with what to publish once it is committed (per table, the ack of the
highest contiguous seq stored, and a resend request when it sees a gap), what to push to
the live feed, and the command replies. The MQTT client (or a test)
publishes the result through a :class:`Publisher`.

Idempotence: an event is stored once per (table, seq) — a table's seq strictly increases
across boots, and the boot travels with it; a duplicate is counted and ignored, a payload
that differs from the stored one under the same seq is a conflict: the first stands, the
other is kept for audit (``seq_conflicts``), the floor is told and the table asked once to
resend that seq (issue 17). An event above a gap is held in memory (a shared store keeps it
unapplied) and neither applied, acked nor fed until the gap fills; one more than
:data:`HOLD_AHEAD` above is refused with a reason.
Events are applied to the floor model strictly in seq order, each exactly once; a
``hole_dealt`` counts as stored only when its ``secure/cards`` half arrived too, so the
table never prunes hole cards the bridge does not hold.

Two steps: :meth:`Ingest.parse` checks a message (on the event loop, as it arrives, so the
live feed gets a public event at once, before it is stored: the table journaled it before
sending it), and :meth:`Ingest.apply` stores a batch of parsed messages (on the bridge's
store thread). :meth:`Ingest.take_many` does both. What applying an event changes in the
floor model is :mod:`host_bridge.floor_model`.

Speed (DESIGN budget: 200 tables, >= 5,000 events/s): each table's cursor (acked seq, the
events and hole cards waiting above it) lives in memory, loaded once; a batch's new rows go
in with one executemany; the floor model's rows are plain values read and written in bulk
once per batch (:mod:`host_bridge.floor_rows`), never ORM objects; an event's live-feed
item is built once, when it is parsed. Hole cards are never logged.
"""

from __future__ import annotations

import functools
import itertools
import json
import logging
import time
from collections.abc import Callable, Iterable, Sequence

from pydantic import BaseModel, ValidationError
from sqlalchemy import bindparam, insert, select, update
from sqlalchemy.orm import Session, sessionmaker

from controller.events import CardBurned, CardRead, HandEnded, HoleDealt
from controller.sync.errors import MessageRejected
from controller.sync.messages import (
    AckMessage,
    EventMessage,
    ReplyMessage,
    ResendRequest,
    SecureCards,
    StateMessage,
    StatusMessage,
    parse_message,
)
from controller.sync.topics import PREFIX, Topics
from host_bridge.card_reads import flush_reads, read_seqs, take_read
from host_bridge.floor_model import HAND_OVER, FeedItem, apply_event, changes_floor
from host_bridge.floor_rows import FloorRows
from host_bridge.hand_history import HAND_LOG
from host_bridge.ingest_parts import (
    HOLD_AHEAD,
    STATE_FIELDS,
    IngestResult,
    Outbound,
    Parsed,
    Publisher,
    PublishFailed,
    _Batch,
    _Cursor,
    _Gap,
    _HotSql,
    _log_step,
    _Pending,
    _sha256,
    event_item,
    feed_json,
    preload,
    state_item,
    too_far_ahead,
)
from host_bridge.models import EventRecord, HoleCards, PokerTable, SeqConflict

log = logging.getLogger(__name__)

__all__ = ["HOLD_AHEAD", "STATE_FIELDS", "FeedItem", "Ingest", "IngestResult", "Outbound", "Parsed",
           "PublishFailed", "Publisher", "event_item", "feed_json", "state_item"]


#: Events that count as stored only once their secure/cards half has arrived too.
_SECRET_HALF = (HoleDealt, CardBurned, CardRead)


_MODELS: dict[str, type[BaseModel]] = {
    "event": EventMessage, "secure/cards": SecureCards, "status": StatusMessage,
    "state": StateMessage, "reply": ReplyMessage,
}


class Ingest:
    """Applies table messages to the store; one per bridge process.

    Not thread-safe: one batch at a time (the bridge runs them on one worker thread)."""

    def __init__(self, sessions: sessionmaker[Session], site: str, *, host_boot: str,
                 clock: Callable[[], float] = time.time, resend_after: float = 2.0,
                 shared_store: bool | None = None) -> None:
        self._sessions = sessions
        bind = sessions.kw.get("bind")
        dialect = getattr(getattr(bind, "dialect", None), "name", "")
        # several bridges may share a PostgreSQL store (see _claim); SQLite is one bridge's
        self._shared = dialect == "postgresql" if shared_store is None else shared_store
        self._dialect = dialect
        self._sql = _HotSql.for_paramstyle(getattr(getattr(bind, "dialect", None),
                                                   "paramstyle", "qmark"))
        self.site = site
        self._root = f"{PREFIX}/{site}/table/"
        self._host_boot = host_boot
        self._clock = clock
        self._resend_after = resend_after
        self._host_seqs = itertools.count(1)  # next() is atomic: acks are written on
        self._ack_topics: dict[str, str] = {}  # the event loop, resend requests here
        self._taken = 0
        self._gaps: dict[str, _Gap] = {}
        self._cursors: dict[str, _Cursor] = {}
        self.duplicates = 0
        self.conflicts = 0
        self.failures = 0
        self._confirming: set[tuple[str, int]] = set()  # (table, seq) asked to confirm

    def acked_seqs(self) -> dict[str, int]:
        """Each stored table's highest contiguous seq (one query; the live feed starts
        from these)."""
        with self._sessions() as session:
            return {row.id: row.acked_seq for row in session.execute(
                select(PokerTable.id, PokerTable.acked_seq))}

    # ------------------------------------------------------------------ dispatch
    def take(self, topic: str, payload: bytes) -> IngestResult:
        """Apply one message from ``pitboss/v1/{site}/table/{id}/...``."""
        return self.take_many([(topic, payload)])

    def take_many(self, messages: Iterable[tuple[str, bytes]]) -> IngestResult:
        """Parse and apply a batch (see :meth:`apply`)."""
        return self.apply([self.parse(topic, payload) for topic, payload in messages])

    def apply(self, batch: Sequence[Parsed]) -> IngestResult:
        """Apply a batch of parsed messages in one transaction (one commit, one ack per
        table, sent after the commit by the caller). A message that fails unexpectedly is
        rolled back alone and logged; the table sends it again since it is not acknowledged.

        The batch is first tried whole (bulk inserts, no savepoints); if anything in it
        fails, it is rolled back and taken again one message per savepoint."""
        parsed = [(p.topic, p.message) for p in batch]
        items = {id(p.message): p.item for p in batch if p.item is not None}
        rejected = [p.reason for p in batch if p.reason is not None]
        counters = (self._taken, self.duplicates, self.conflicts, dict(self._gaps))
        try:
            return self._take_all(parsed, rejected, items, isolate=False)
        except Exception:
            log.warning("a batch of %d messages failed; taking them again one at a time",
                        len(parsed))
            self._cursors.clear()
            self._taken, self.duplicates, self.conflicts, self._gaps = counters
            return self._take_all(parsed, rejected, items, isolate=True)

    def _take_all(self, parsed: list[tuple[str, BaseModel | None]], rejected: list[str],
                  items: dict[int, FeedItem], *, isolate: bool) -> IngestResult:
        result = IngestResult(rejected=list(rejected))
        try:
            # no autoflush: the batch's ORM changes go out together (at the commit, or a
            # savepoint's end); where a query must see them, the code flushes itself
            with self._sessions(autoflush=False) as session, session.begin():
                batch = _Batch(session, FloorRows(session), items=items)
                if self._shared:
                    self._claim(session, {t for _, m in parsed
                                          if isinstance(t := getattr(m, "table", None), str)})
                preload(batch, [m for _, m in parsed if m is not None])
                for topic, message in parsed:
                    self._taken += 1
                    if message is None:
                        continue
                    if not isolate:
                        self._dispatch(batch, message, result)
                        continue
                    mark = (len(result.feed), len(result.replies), len(result.applied))
                    try:
                        with session.begin_nested():
                            self._dispatch(batch, message, result)
                            self._flush(batch)
                            self._sync(batch)
                    except Exception as exc:
                        self.failures += 1
                        self._cursors.pop(getattr(message, "table", ""), None)
                        del result.feed[mark[0]:], result.replies[mark[1]:]
                        del result.applied[mark[2]:]
                        batch.events.clear()
                        batch.cards.clear()
                        batch.applied.clear()
                        batch.touched.clear()
                        batch.floor = FloorRows(session)  # read again after the rollback
                        # one line, no traceback: the error's first line names the problem
                        # (a database error's later lines would hold the parameters)
                        log.error("message on %s failed (%s: %s); rolled back, not "
                                  "acknowledged: the table sends it again", topic,
                                  type(exc).__name__, str(exc).partition("\n")[0][:200])
                self._flush(batch)
                self._sync(batch)
                for table_id, seq in batch.newest.items():
                    cursor = self._cursor(batch, table_id)
                    self._acknowledge(table_id, cursor, seq, result)
            # committed: a table whose floor model changed can be read again (the feed's
            # events went out before they were stored; a dashboard reloads on this)
            for table_id in dict.fromkeys(
                    m.table for m in result.applied if changes_floor(m.event)):
                if (moved := self._cursors.get(table_id)) is not None:
                    result.feed.append({"type": "stored", "table": table_id,
                                        "seq": moved.acked_seq})
        except Exception:
            self._cursors.clear()
            raise
        return result

    def _claim(self, session: Session, tables: set[str]) -> None:
        """Several bridges on one store, a shared subscription splitting each table's
        messages between them: a batch takes its tables' rows with a row lock (SELECT ...
        FOR UPDATE, in id order, rows created first if new) and reads their cursors from the
        store again, so one bridge at a time moves a table, from what the others stored."""
        if not tables:
            return
        ids = sorted(tables)
        new_rows = [{"id": table_id} for table_id in ids]
        if self._dialect == "postgresql":
            from sqlalchemy.dialects.postgresql import insert as pg_insert

            session.execute(pg_insert(PokerTable).values(new_rows).on_conflict_do_nothing(
                index_elements=["id"]))
        else:  # SQLite: the IMMEDIATE transaction already holds the whole store
            from sqlalchemy.dialects.sqlite import insert as sqlite_insert

            session.execute(sqlite_insert(PokerTable).values(new_rows).on_conflict_do_nothing(
                index_elements=["id"]))
        session.execute(select(PokerTable.id).where(PokerTable.id.in_(ids))
                        .order_by(PokerTable.id).with_for_update())
        for table_id in ids:
            self._cursors.pop(table_id, None)

    def _sync(self, batch: _Batch) -> None:
        """Write the moved cursors to their tables' rows: one UPDATE for the batch (these
        columns are the cursor's alone; the ORM writes only the columns it changed)."""
        if not batch.touched:
            return
        batch.session.connection().exec_driver_sql(self._sql.move_cursors, [
            (c.acked_seq, c.boot, c.last_ts, tid)
            for tid in batch.touched for c in (self._cursors[tid],)])
        batch.touched.clear()

    def parse(self, topic: str, payload: bytes) -> Parsed:
        """Check one message from ``pitboss/v1/{site}/table/{id}/...`` (no store access,
        safe on the event loop). The raw bytes are validated in one pass; only a payload
        that fails is decoded again, for the reason (schema version first)."""
        if not topic.startswith(self._root):
            return self._reject(topic, f"topic is not under {self._root}")
        table, _, kind = topic[len(self._root):].partition("/")
        model = _MODELS.get(kind)
        if model is None:
            return self._reject(topic, f"no handler for {kind!r}")
        try:
            message = model.model_validate_json(payload)
        except ValidationError:
            try:
                message = parse_message(model, payload)
            except MessageRejected as exc:
                return self._reject(topic, exc.reason)
        named = getattr(message, "table", None)
        if named != table:
            return self._reject(topic,
                                f"payload names table {named!r} but the topic names {table!r}")
        item = event_item(message) if isinstance(message, EventMessage) else None
        return Parsed(topic, message, None, payload, item)

    @staticmethod
    def _reject(topic: str, reason: str) -> Parsed:
        log.warning("ignored a message on %s: %s", topic, reason)  # never the payload
        return Parsed(topic, None, reason)

    def _dispatch(self, batch: _Batch, message: BaseModel, result: IngestResult) -> None:
        if isinstance(message, ReplyMessage):
            result.replies.append(message)
        elif isinstance(message, StatusMessage):
            self._take_status(batch.floor, message, result)
        elif isinstance(message, StateMessage):
            self._take_state(batch.floor, message, result)
        elif isinstance(message, EventMessage | SecureCards):
            why = too_far_ahead(message, self._cursor(batch, message.table).acked_seq)
            if why is not None:
                kind = "event" if isinstance(message, EventMessage) else "secure/cards"
                log.warning("ignored a message on %s%s/%s: %s", self._root, message.table,
                            kind, why)  # never the payload
                result.rejected.append(why)
                return
            if isinstance(message, EventMessage):
                self._take_event(batch, message, result)
            else:
                self._take_secure_cards(batch, message, result)
            self._advance(batch, message.table, result)
            batch.newest[message.table] = max(batch.newest.get(message.table, 0), message.seq)

    def _next_host_seq(self) -> int:
        return next(self._host_seqs)

    # ------------------------------------------------------------------ status
    def _take_status(self, floor: FloorRows, message: StatusMessage,
                     result: IngestResult) -> None:
        """Mark the table online or offline (a retained status, or the table's Will)."""
        # arrival order decides: the broker keeps a topic's order, and a Will carries the ts
        # of the connect it was set at, older than the ``online`` that followed it
        table = floor.table(message.table)
        table["online"] = online = message.status == "online"
        table["status_at"] = message.ts
        log.info("table %s is %s", message.table, message.status)
        result.feed.append({"type": "status", "table": message.table,
                            "online": online, "ts": message.ts})

    # ------------------------------------------------------------------ state
    @staticmethod
    def _take_state(floor: FloorRows, message: StateMessage, result: IngestResult) -> None:
        """Keep the table's retained public state (the engine's view of the hand in play,
        the stakes in force...) and, when it changed, tell the live feed."""
        snapshot = message.state.model_dump_json()
        if floor.snapshot(message.table) == snapshot:
            return  # the retained copy again (a reconnect): nothing new to show
        floor.set_snapshot(message.table, snapshot)
        result.feed.append(state_item(message))

    # ------------------------------------------------------------------ events
    def _cursor(self, batch: _Batch, table_id: str) -> _Cursor:
        cursor = self._cursors.get(table_id)
        if cursor is None:  # first sight since start (or since a rollback): load it
            session = batch.session
            table = batch.floor.table(table_id)
            acked = table["acked_seq"]
            cursor = _Cursor(acked, table["boot"], table["last_event_ts"])
            for rec in session.scalars(select(EventRecord).where(
                    EventRecord.table_id == table_id, EventRecord.seq > acked)):
                cursor.events[rec.seq] = _Pending(
                    EventMessage.model_validate_json(rec.payload), rec.payload, in_db=True)
            for seq, cards in session.execute(select(HoleCards.seq, HoleCards.cards).where(
                    HoleCards.table_id == table_id, HoleCards.seq > acked)):
                cursor.cards.add(seq)
                cursor.holes[seq] = cards
            cursor.cards.update(read_seqs(session, table_id, acked))  # issue 21
            self._cursors[table_id] = cursor
        return cursor

    def _take_event(self, batch: _Batch, message: EventMessage, result: IngestResult) -> None:
        """Store an event once (buffered for the batch's bulk insert). One above a gap is
        held in memory until the gap fills, and stored then (a shared store keeps it, not
        applied, so that another bridge can apply it); a payload that differs from the one
        held or stored for its seq is a conflict (:meth:`_conflict`)."""
        cursor = self._cursor(batch, message.table)
        payload = message.model_dump_json(by_alias=True)
        seq = message.seq
        if seq <= cursor.acked_seq:  # applied already: compare with the stored row
            if batch.events:  # applied in this batch: its row may still be in the buffer
                self._flush(batch)
            stored = batch.session.execute(select(EventRecord.boot, EventRecord.payload).where(
                EventRecord.table_id == message.table, EventRecord.seq == seq)).first()
            stored_payload = stored.payload if stored is not None else payload
            stored_boot = stored.boot if stored is not None else None
            same = stored is None or (stored.boot == message.boot and stored.payload == payload)
        elif (pending := cursor.events.get(seq)) is not None:
            same = pending.payload == payload
            stored_payload, stored_boot = pending.payload, pending.message.boot
        else:
            # ahead of the contiguous seq: held, neither applied, acked nor fed (#17)
            queue = self._shared or seq == cursor.acked_seq + 1
            new = _Pending(message, payload, in_db=False, queued=queue)
            cursor.events[seq] = new
            if queue:
                batch.events.append((message.table, seq, new))
            return
        if same:
            self.duplicates += 1
            self._confirmed(batch, message.table, seq, "event")
        else:
            self._conflict(batch, result, message, "event", payload, stored_payload,
                           stored_boot)

    def _conflict(self, batch: _Batch, result: IngestResult, message: EventMessage |
                  SecureCards, topic: str, payload: str, stored: str,
                  stored_boot: str | None, *, hashed: str | None = None) -> None:
        """A payload for a seq that holds another one: the first stands; the other is kept
        for audit (:class:`SeqConflict`, counted), the floor is told (a ``conflict`` feed
        item: the page shows an alert), and the table is asked once to resend that seq:
        what its journal resends settles which one was the table's (:meth:`_confirmed`)."""
        self.conflicts += 1
        session, now = batch.session, self._clock()
        table, seq = message.table, message.seq
        digest = _sha256(payload if hashed is None else hashed)
        row = session.scalar(select(SeqConflict).where(
            SeqConflict.table_id == table, SeqConflict.seq == seq, SeqConflict.topic == topic,
            SeqConflict.payload_hash == digest))
        if row is not None:  # again: counted (a repeat proves nothing: whoever sent it
            row.count += 1  # once can send it again; only the stored payload coming back
            row.last_at = now  # from the table settles it, see _confirmed)
        else:
            asked = session.scalar(select(SeqConflict.id).where(
                SeqConflict.table_id == table, SeqConflict.seq == seq).limit(1)) is not None
            session.add(SeqConflict(
                table_id=table, seq=seq, topic=topic, boot=message.boot,
                stored_boot=stored_boot, stored_hash=_sha256(stored), payload_hash=digest,
                payload=payload, first_at=now, last_at=now, count=1,
                confirm_asked_at=None if asked else now))
            session.flush()
            if not asked:
                self._confirming.add((table, seq))
                topics = Topics(self.site, table)
                result.outbound.append(Outbound(topics.ack, ResendRequest(
                    table=table, boot=self._host_boot, ts=now, seq=self._next_host_seq(),
                    from_seq=seq, to_seq=seq).to_wire()))
        log.warning("table %s sent seq %d on %s again with a different payload (boot %s, "
                    "stored boot %s); the stored one stands, the other is kept for audit "
                    "(GET /api/v1/tables/%s/conflicts)", table, seq, topic, message.boot,
                    stored_boot, table)
        result.feed.append({"type": "conflict", "table": table, "seq": seq, "topic": topic})

    def _confirmed(self, batch: _Batch, table: str, seq: int, topic: str) -> None:
        """A copy of the stored payload for a seq the table was asked to confirm: its
        journal holds what the bridge stored, so the conflicting payloads were not the
        table's (verdict ``stored``)."""
        if (table, seq) not in self._confirming:
            return
        self._confirming.discard((table, seq))
        batch.session.execute(update(SeqConflict).where(
            SeqConflict.table_id == table, SeqConflict.seq == seq, SeqConflict.topic == topic,
            SeqConflict.verdict.is_(None)).values(verdict="stored"))
        log.warning("table %s resent seq %d as stored: the conflicting payload was not the "
                    "table's", table, seq)

    def _take_secure_cards(self, batch: _Batch, message: SecureCards,
                           result: IngestResult) -> None:
        """Store the hole cards of a ``hole_dealt`` event (same seq), once (held in memory
        like their event while above a gap); a burn card's half only completes its ``burn``
        event. Other hole cards for a seq that holds some are a conflict."""
        cursor = self._cursor(batch, message.table)
        seq = message.seq
        if message.what == "read" and take_read(cursor, batch, message, self._clock()):
            return  # the card a reader read (issue 21), for the dispute timeline alone
        if seq in cursor.cards:
            stored = cursor.holes.get(seq)
        elif seq <= cursor.acked_seq:
            stored = batch.session.scalar(select(HoleCards.cards).where(
                HoleCards.table_id == message.table, HoleCards.seq == seq))
        else:
            stored = None
        if seq in cursor.cards or stored is not None:
            cards = list(message.cards)
            if message.what == "burn" or stored is None or list(stored) == cards:
                self.duplicates += 1
                self._confirmed(batch, message.table, seq, "secure/cards")
            else:  # compared and hashed, never logged
                self._conflict(batch, result, message, "secure/cards",
                               message.model_dump_json(by_alias=True), json.dumps(stored),
                               None, hashed=json.dumps(cards))
            return
        if seq > cursor.acked_seq:
            cursor.cards.add(seq)
            if message.what == "hole":
                cursor.holes[seq] = list(message.cards)
        if message.what != "hole":
            return  # a burn completes its event (never shown); a read's copy: stored already
        row = {"table_id": message.table, "seq": seq, "hand_no": message.hand_no,
               "player": message.player, "cards": list(message.cards),
               "received_at": self._clock()}
        if self._shared or seq <= cursor.acked_seq + 1:
            batch.cards.append(row)
        else:
            cursor.held_cards[seq] = row  # stored with its event, once the gap fills

    def _flush(self, batch: _Batch) -> None:
        """The buffered rows, in bulk: new events, hole cards, events now applied."""
        session = batch.session
        if batch.events:
            now = self._clock()
            session.connection().exec_driver_sql(self._sql.insert_events, [
                (table_id, p.message.boot, seq, p.message.event.kind, p.message.ts,
                 p.payload, p.applied, now) for table_id, seq, p in batch.events])
            for _, _, p in batch.events:
                p.in_db = True
            batch.events.clear()
        if batch.cards and flush_reads(session, batch.cards):  # the reads' rows go first
            session.connection().execute(insert(HoleCards.__table__),  # type: ignore[arg-type]
                                         batch.cards)
            batch.cards.clear()
        if batch.applied:
            session.connection().execute(
                update(EventRecord.__table__).where(  # type: ignore[arg-type]
                    EventRecord.__table__.c.table_id == bindparam("t"),
                    EventRecord.__table__.c.seq == bindparam("s")).values(applied=True),
                batch.applied)
            batch.applied.clear()
        batch.floor.write()

    def _advance(self, batch: _Batch, table_id: str, result: IngestResult) -> None:
        """Apply what became contiguous, in seq order; a ``hole_dealt`` only with its
        hole cards."""
        cursor = self._cursor(batch, table_id)
        while (pending := cursor.events.get(seq := cursor.acked_seq + 1)) is not None:
            message = pending.message
            event = message.event
            if isinstance(event, _SECRET_HALF) and seq not in cursor.cards:
                break  # stored only with its secure/cards half (same seq)
            if isinstance(event, HAND_LOG):
                _log_step(cursor, seq, message)
            if changes_floor(event):
                if isinstance(event, HandEnded) and cursor.log is None:
                    self._flush(batch)  # the export reads the hand's events and cards
                apply_event(batch.floor, table_id, message, seq, result.feed, cursor.log)
                if isinstance(event, HAND_OVER):
                    cursor.log = None
            if pending.in_db:
                batch.applied.append({"t": table_id, "s": seq})
            elif not pending.queued:  # held in memory above a gap: stored now, applied
                pending.queued = True
                batch.events.append((table_id, seq, pending))
            if (held_row := cursor.held_cards.pop(seq, None)) is not None:
                batch.cards.append(held_row)
            pending.applied = True
            del cursor.events[seq]
            cursor.cards.discard(seq)
            cursor.holes.pop(seq, None)
            cursor.acked_seq, cursor.boot, cursor.last_ts = seq, message.boot, message.ts
            batch.touched.add(table_id)
            result.feed.append(batch.items.get(id(message)) or event_item(message))
            result.applied.append(message)

    def _ack_payload(self, table_id: str, acked: int) -> bytes:
        """An ack, written when it is sent (the link sends a table's newest only)."""
        return AckMessage(table=table_id, boot=self._host_boot, ts=self._clock(),
                          seq=self._next_host_seq(), acked=acked).to_wire()

    def _acknowledge(self, table_id: str, cursor: _Cursor, seq: int,
                     result: IngestResult) -> None:
        topic = self._ack_topics.get(table_id)
        if topic is None:
            topic = self._ack_topics[table_id] = Topics(self.site, table_id).ack
        boot, now = self._host_boot, self._clock()
        result.outbound.append(Outbound(topic, functools.partial(
            self._ack_payload, table_id, cursor.acked_seq), coalesce=True))
        # One outstanding resend request per table (#17): while its answer lands (the
        # contiguous seq moves) nothing is asked again; only when it is answered, or when
        # nothing moved for ``resend_after`` seconds, is the next one sent.
        acked, gap_from = cursor.acked_seq, cursor.acked_seq + 1
        asked = self._gaps.get(table_id)
        if asked is not None:
            if acked >= asked.to_seq:  # answered: anything still missing is asked now
                del self._gaps[table_id]
                seq = max(seq, max(cursor.events, default=0), max(cursor.cards, default=0))
            elif acked > asked.progress_seq:  # the answer is landing
                self._gaps[table_id] = _Gap(asked.from_seq, asked.to_seq, acked, now)
                return
            elif now - asked.progress_at < self._resend_after:
                return  # asked, and not yet timed out
            else:
                seq = max(seq, max(cursor.events, default=0), max(cursor.cards, default=0))
        if seq <= gap_from:
            return
        above = [s for s in cursor.events if gap_from < s <= seq]
        gap_to = (min(above) if above else seq) - 1
        if gap_from in cursor.events:
            gap_to = max(gap_to, gap_from)  # the event is here, its hole cards are not
        self._gaps[table_id] = _Gap(gap_from, gap_to, acked, now)
        log.info("table %s: seq %d..%d missing, asking for a resend%s", table_id, gap_from,
                 gap_to, "" if asked is None or acked >= asked.to_seq else
                 f" again (nothing arrived for {self._resend_after:g} s)")
        result.outbound.append(Outbound(topic, ResendRequest(
            table=table_id, boot=boot, ts=now, seq=self._next_host_seq(), from_seq=gap_from,
            to_seq=gap_to).to_wire()))


