"""The values :mod:`host_bridge.ingest` works with: what it returns (the result, the
messages to publish, a parsed message), a table's cursor in memory (acked seq, events
waiting above it, its one outstanding resend, the hand in progress's log), one batch's
rows, and the live feed's items; split from the ingest so each stays a module a person
can hold in mind."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Protocol

from pydantic import BaseModel
from sqlalchemy.orm import Session

from controller.events import (
    BoardDealt,
    HandStarted,
    HoleDealt,
    PlayerBusted,
    PlayerMoved,
    PlayerRemoved,
    PlayerSeated,
    RakeTaken,
    StackAdjusted,
)
from controller.sync.messages import (
    EventMessage,
    ReplyMessage,
    SecureCards,
    StateMessage,
    StatusMessage,
)
from host_bridge.floor_model import (
    HAND_OVER,
    FeedItem,
    HandLog,
    changes_floor,
)
from host_bridge.floor_rows import FloorRows
from host_bridge.hand_history import HAND_LOG
from host_bridge.models import EventRecord, PokerTable

#: How far above a table's stored contiguous seq the bridge holds an event (or its hole
#: cards) for the gap below to fill: far more than a table sends in any outage. Further is
#: not a gap the table can fill (a forged or corrupt seq): refused, no resend asked (#17).
HOLD_AHEAD: Final = 100_000


def too_far_ahead(message: EventMessage | SecureCards, acked: int) -> str | None:
    """Why an event (or its hole cards) is refused for being beyond what the bridge holds
    above the table's stored contiguous seq ``acked`` (:data:`HOLD_AHEAD`); None if not."""
    if message.seq - acked <= HOLD_AHEAD:
        return None
    return (f"seq {message.seq} is more than {HOLD_AHEAD} above the last stored seq {acked} "
            f"of table {message.table}: not a gap the table can fill, so it is neither "
            "stored nor asked for; check the table's journal")


class Publisher(Protocol):
    """The seam to the broker: the MQTT client, or a fake in tests."""

    async def publish(self, topic: str, payload: bytes, qos: int, retain: bool) -> None:
        """Publish one message; raise :class:`PublishFailed` if it cannot be sent."""


class PublishFailed(Exception):
    """A message could not be handed to the broker (no connection)."""


@dataclass(frozen=True, slots=True)
class Outbound:
    """One message for the broker: its payload, or how to write it when it is sent (an
    ack that a newer one replaces before it goes out is never written)."""

    topic: str
    body: bytes | Callable[[], bytes]
    qos: int = 1
    retain: bool = False
    coalesce: bool = False  # an ack: a newer one on the same topic may replace it

    @property
    def payload(self) -> bytes:
        """The bytes to publish."""
        return self.body if isinstance(self.body, bytes) else self.body()


@dataclass(slots=True)
class IngestResult:
    """What a batch of inbound messages led to."""

    outbound: list[Outbound] = field(default_factory=list)
    feed: list[FeedItem] = field(default_factory=list)
    replies: list[ReplyMessage] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)  # why messages were ignored
    # the events stored and applied, typed, in each table's seq order (the observers')
    applied: list[EventMessage] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Parsed:
    """One inbound message, checked: the model, or None and why it was refused."""

    topic: str
    message: BaseModel | None
    reason: str | None = None
    payload: bytes = b""  # as received (a store in another process parses it again)
    item: FeedItem | None = None  # an event's live-feed item (built once, fed twice)


@dataclass(frozen=True, slots=True)
class _Gap:  # a table's one outstanding resend request (issue #17, item 6)
    from_seq: int
    to_seq: int
    progress_seq: int  # the table's contiguous seq when it last moved (or when asked)
    progress_at: float  # when it last moved: no move for resend_after seconds, ask again




@dataclass(slots=True)
class _Pending:  # an event stored (or about to be) above the acked seq, not yet applied
    message: EventMessage
    payload: str  # as stored: the normalised JSON
    in_db: bool  # False while it waits in the batch's insert buffer
    applied: bool = False
    queued: bool = True  # in a batch's insert buffer (or stored); False: held in memory only


@dataclass(slots=True)
class _Cursor:
    """A table's ingest state in memory: loaded from the store once, kept in step by each
    batch (dropped, to be loaded again, when a transaction rolls back)."""
    acked_seq: int
    boot: str | None
    last_ts: float | None
    events: dict[int, _Pending] = field(default_factory=dict)  # above acked_seq
    cards: set[int] = field(default_factory=set)  # hole cards stored above acked_seq
    holes: dict[int, list[str | None]] = field(default_factory=dict)  # their cards, by seq
    # hole-card rows above a gap, held in memory (not a shared store): stored when applied
    held_cards: dict[int, dict[str, Any]] = field(default_factory=dict)
    log: HandLog | None = None  # the hand in progress, if applied since it started


@dataclass(slots=True)
class _Batch:  # one transaction: rows waiting for a bulk insert, highest seq per table
    session: Session
    floor: FloorRows
    newest: dict[str, int] = field(default_factory=dict)
    events: list[tuple[str, int, _Pending]] = field(default_factory=list)
    cards: list[dict[str, Any]] = field(default_factory=list)
    applied: list[dict[str, Any]] = field(default_factory=list)  # stored rows now applied
    touched: set[str] = field(default_factory=set)  # tables whose cursor moved
    items: dict[int, FeedItem] = field(default_factory=dict)  # id(event message) -> item




def event_item(message: EventMessage) -> FeedItem:
    """The live feed's item for a public event (the same whether it is pushed when it
    arrives or when it is applied)."""
    return {"type": "event", "table": message.table, "seq": message.seq, "ts": message.ts,
            "event": message.event.model_dump(mode="json")}


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _log_step(cursor: _Cursor, seq: int, message: EventMessage) -> None:
    """Keep the hand in progress in memory, so its PHH export need not read it back from
    the store; a hand whose start this cursor did not see (a restart, a rollback) or whose
    hole cards it does not hold is read from the store instead."""
    event = message.event
    if isinstance(event, HandStarted):
        cursor.log = HandLog(event.hand_no, [(seq, event)], {})
        return
    log_ = cursor.log
    if log_ is None or not isinstance(event, HAND_LOG) or event.hand_no != log_.hand_no:
        return  # not a step of the hand this cursor follows
    if isinstance(event, HoleDealt):
        cards = cursor.holes.get(seq)
        if cards is None:
            cursor.log = None
            return
        log_.holes[seq] = cards
    log_.events.append((seq, event))


#: what a ``state`` feed item carries of the table's public state: what a floor page shows
#: of the hand in play (the engine's view) and of the table; the hand's log and the clocks'
#: snapshot stay in the store (GET /api/v1/tables/{id}, ``reported``)
STATE_FIELDS: Final = frozenset({"hand_no", "hand_in_progress", "level", "paused",
                                 "clock_on_seat", "stakes", "hand", "seat_nodes_offline"})


def state_item(message: StateMessage) -> FeedItem:
    """The live feed's item for a table's new public state, as of event ``seq``."""
    return {"type": "state", "table": message.table, "seq": message.seq, "ts": message.ts,
            "state": message.state.model_dump(mode="json", include=set(STATE_FIELDS))}


def feed_json(item: FeedItem) -> str:
    """One feed item as the JSON text sent to browsers."""
    return json.dumps(item, separators=(",", ":"))


#: events whose floor-model change reads the table's seats (preloaded for their tables)
_READS_SEATS: Final = (PlayerSeated, StackAdjusted, PlayerRemoved, PlayerMoved, PlayerBusted,
                       *HAND_OVER)
#: events whose floor-model change reads the table's open hand (preloaded likewise)
_READS_HANDS: Final = (BoardDealt, RakeTaken, *HAND_OVER)


def preload(batch: _Batch, messages: Sequence[BaseModel]) -> None:
    """Read up front the floor-model rows the batch's messages will touch, in one query
    per kind (:meth:`FloorRows.preload`): the rows of the tables with a change in it,
    their seats where an event reads them (a seating, a stack, a hand's end), their open
    hands where an event reads those (a board, a rake, a hand's end), the hands a start
    names, the players being seated, the snapshots a state compares with."""
    tables: set[str] = set()
    seated: set[str] = set()
    handed: set[str] = set()
    started: set[tuple[str, int]] = set()
    players: set[str] = set()
    states: set[str] = set()
    for message in messages:
        if isinstance(message, EventMessage):
            event = message.event
            if not changes_floor(event):
                continue
            table = message.table
            tables.add(table)
            if isinstance(event, _READS_SEATS):
                seated.add(table)
            if isinstance(event, _READS_HANDS):
                handed.add(table)
            elif isinstance(event, HandStarted):
                started.add((table, event.hand_no))
            if isinstance(event, PlayerSeated):
                players.add(event.player)
        elif isinstance(message, StatusMessage):
            tables.add(message.table)
        elif isinstance(message, StateMessage):
            tables.add(message.table)
            states.add(message.table)
    if tables:
        batch.floor.preload(tables, seated, handed, started, players, states)


@dataclass(frozen=True, slots=True)
class _HotSql:
    """The two statements every batch runs on many rows, as the driver's own SQL: the
    rows go to its ``executemany`` as tuples, without SQLAlchemy's per-row parameter
    processing (~4 µs a row; these are ~1.5 rows an event). Plain columns only (text,
    numbers, a boolean), which every driver takes as they are."""

    insert_events: str
    move_cursors: str

    @classmethod
    def for_paramstyle(cls, paramstyle: str) -> _HotSql:
        def marks(n: int) -> list[str]:
            if paramstyle == "qmark":
                return ["?"] * n
            if paramstyle in ("format", "pyformat"):
                return ["%s"] * n
            if paramstyle == "numeric":
                return [f":{i}" for i in range(1, n + 1)]
            raise ValueError(f"no hot SQL for the DB-API paramstyle {paramstyle!r}")

        events = EventRecord.__tablename__
        columns = ("table_id", "boot", "seq", "kind", "ts", "payload", "applied",
                   "received_at")
        a, b, last, tid = marks(4)
        return cls(
            insert_events=f"INSERT INTO {events} ({', '.join(columns)}) "
                          f"VALUES ({', '.join(marks(len(columns)))})",
            move_cursors=f"UPDATE {PokerTable.__tablename__} SET acked_seq = {a}, "
                         f"boot = {b}, last_event_ts = {last} WHERE id = {tid}")
