"""The delayed broadcast view of a table (issue 21): the live hand as it stood
``hole_card_delay_s`` seconds ago, hole cards and equities included, for the ``broadcast``
role only.

Everything is delayed, not only the hole cards: the view shows the events the bridge had
received by ``now - delay`` and nothing after, so a stream that shows it never runs ahead
of the cards, and nothing of a hand younger than the delay leaks (not its start, its
actions or its board). Hole cards come on top, each once its ``hole_dealt`` is in the view
and the bridge has released it to the broadcast role:

* live, by the feed's ``hole_cards`` items (:class:`host_bridge.live.HoleCardRelease`
  releases each after the delay, or at the end of its hand), which a stream follows;
* from the store, for what happened before a stream started or for the snapshot route, by
  the same rule the release and ``GET /tables/{id}/hole-cards`` apply (the delay has
  passed since the cards arrived, or their hand is over).

:class:`DelayedTable` holds one table's timeline (events with the time they arrived,
released cards); :func:`load_table` fills it from the store; :func:`follow` keeps it up to
date from the feed and hands each changed view to a sender (the WebSocket route).
"""

from __future__ import annotations

import asyncio
import bisect
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Final

from pydantic import ValidationError
from sqlalchemy import and_, func, select
from sqlalchemy.orm import Session, sessionmaker
from starlette.concurrency import run_in_threadpool

from controller.events import (
    TABLE_EVENTS,
    HandEnded,
    HandShown,
    HandStarted,
    HandVoided,
    HoleDealt,
    MisdealDeclared,
    PotAwarded,
    PublicEvent,
)
from controller.sync.messages import EventMessage
from host_bridge.bridge import Bridge
from host_bridge.broadcast.equity import warm_up
from host_bridge.broadcast.view import BroadcastView, Cards, hand_view
from host_bridge.hand_history import HAND_LOG_KINDS
from host_bridge.ingest import FeedItem
from host_bridge.models import EventRecord, Hand, HoleCards, Seat

log = logging.getLogger(__name__)

__all__ = ["TICK_S", "DelayedTable", "FellBehind", "follow", "load_table"]

#: the event kinds a hand's broadcast view is built from (the rest cannot change it)
VIEW_KINDS: Final = (*HAND_LOG_KINDS, *(t.model_fields["kind"].default for t in (
    HandShown, PotAwarded, HandEnded, HandVoided, MisdealDeclared)))
#: a stream looks again at least this often (seconds), for a bridge on an injected clock
TICK_S: Final = 0.5


class FellBehind(Exception):
    """The stream's feed subscription fell too far behind and was dropped; reconnect."""


@dataclass(slots=True)
class _Timed:
    event: PublicEvent
    received_at: float


@dataclass(slots=True)
class _Hole:
    hand_no: int
    cards: Cards
    received_at: float | None  # None: the feed released them
    released: bool = False


class DelayedTable:
    """One table's timeline for the broadcast view, ``delay_s`` behind the bridge."""

    def __init__(self, table_id: str, delay_s: float, names: dict[int, str]) -> None:
        self.table_id = table_id
        self.delay_s = delay_s
        self.names = names  # seat -> player (the seats as the store has them)
        self._seqs: list[int] = []  # sorted
        self._events: dict[int, _Timed] = {}
        self._holes: dict[int, _Hole] = {}  # by the seq of the hole_dealt
        self._over: set[int] = set()  # hands over at the live table: their cards are out

    def add_event(self, seq: int, event: PublicEvent, received_at: float) -> None:
        """An event as it reached the bridge; the first arrival of a seq stands."""
        if seq in self._events:
            return
        self._events[seq] = _Timed(event, received_at)
        bisect.insort(self._seqs, seq)

    def add_cards(self, seq: int, hand_no: int, cards: Cards, *,
                  received_at: float | None = None) -> None:
        """Hole cards: from the store with the time they arrived, or (no time) released
        by the feed."""
        hole = self._holes.get(seq)
        if hole is None:
            self._holes[seq] = _Hole(hand_no, cards, received_at, received_at is None)
        elif received_at is None:
            hole.released = True

    def hand_over(self, hand_no: int) -> None:
        """The live table finished ``hand_no``: all its hole cards are released."""
        self._over.add(hand_no)

    def take(self, item: FeedItem, now: float) -> bool:
        """A feed item: this table's events and released hole cards (True: taken); the
        rest is not the broadcast view's."""
        if item.get("table") != self.table_id:
            return False
        if item.get("type") == "event" and item.get("event", {}).get("kind") in VIEW_KINDS:
            try:
                event = TABLE_EVENTS.validate_python(item["event"])
            except ValidationError:  # parsed once at ingest already: cannot happen
                log.warning("broadcast: table %s seq %s is not an event", self.table_id,
                            item.get("seq"))
                return False
            self.add_event(item["seq"], event, now)
            return True
        if item.get("type") == "hole_cards":
            self.add_cards(item["seq"], item["hand_no"], tuple(item["cards"]))
            return True
        return False

    def _released(self, hole: _Hole, now: float) -> bool:
        """The release rule of :class:`~host_bridge.live.HoleCardRelease`."""
        return hole.released or hole.hand_no in self._over or (
            hole.received_at is not None and now - hole.received_at >= self.delay_s)

    def _due(self, now: float) -> list[tuple[int, PublicEvent]]:
        """The events in the view at ``now``: in seq order, up to the first that is not
        (a later seq never shows before an earlier one)."""
        cutoff = now - self.delay_s
        due: list[tuple[int, PublicEvent]] = []
        for seq in self._seqs:
            timed = self._events[seq]
            if timed.received_at > cutoff:
                break
            due.append((seq, timed.event))
        return due

    def view(self, now: float) -> BroadcastView:
        """The broadcast view at ``now``; forgets hands older than the one it shows."""
        due = self._due(now)
        starts = [i for i, (_, e) in enumerate(due) if isinstance(e, HandStarted)]
        if not starts:
            return BroadcastView(table_id=self.table_id, delay_s=self.delay_s,
                                 as_of=now - self.delay_s, hand=None)
        first_seq, start = due[starts[-1]]
        assert isinstance(start, HandStarted)
        self._forget_before(first_seq)
        events = [(seq, e) for seq, e in due[starts[-1]:]
                  if getattr(e, "hand_no", None) == start.hand_no]
        released: dict[int, Cards] = {}
        withheld = 0
        for seq, event in events:
            hole = self._holes.get(seq) if isinstance(event, HoleDealt) else None
            if hole is not None and self._released(hole, now):
                released[seq] = hole.cards
            elif isinstance(event, HoleDealt):
                withheld += 1
        return BroadcastView(table_id=self.table_id, delay_s=self.delay_s,
                             as_of=now - self.delay_s, withheld=withheld,
                             hand=hand_view(events, released, self.names))

    def _forget_before(self, seq: int) -> None:
        cut = bisect.bisect_left(self._seqs, seq)
        for old in self._seqs[:cut]:
            del self._events[old]
        del self._seqs[:cut]
        for old in [s for s in self._holes if s < seq]:
            del self._holes[old]

    def next_change(self, now: float) -> float | None:
        """When the view changes next by itself (an event or cards come due), if known."""
        times = [h.received_at + self.delay_s for h in self._holes.values()
                 if h.received_at is not None and not self._released(h, now)]
        for seq in self._seqs:
            at = self._events[seq].received_at + self.delay_s
            if at > now:
                times.append(at)
                break
        return min(times, default=None)


def load_table(session: Session, table_id: str, *, now: float, delay_s: float
               ) -> DelayedTable:
    """A table's timeline from the store: the hand the view shows at ``now`` (the last
    one started by ``now - delay_s``) and everything stored after it."""
    names = {s.seat: s.player_id for s in session.scalars(
        select(Seat).where(Seat.table_id == table_id))}
    table = DelayedTable(table_id, delay_s, names)
    started = session.scalar(
        select(Hand.first_seq).join(EventRecord, and_(EventRecord.table_id == Hand.table_id,
                                                      EventRecord.seq == Hand.first_seq))
        .where(Hand.table_id == table_id, EventRecord.received_at <= now - delay_s)
        .order_by(Hand.hand_no.desc()).limit(1))
    if started is None:  # no hand in the view yet: the first one that will be
        started = session.scalar(select(func.min(Hand.first_seq))
                                 .where(Hand.table_id == table_id))
    if started is None:
        return table
    rows = session.execute(select(EventRecord.seq, EventRecord.payload,
                                  EventRecord.received_at).where(
        EventRecord.table_id == table_id, EventRecord.seq >= started,
        EventRecord.applied.is_(True), EventRecord.kind.in_(VIEW_KINDS))
        .order_by(EventRecord.seq)).all()
    for seq, payload, received_at in rows:
        table.add_event(seq, EventMessage.model_validate_json(payload).event, received_at)
    for hole in session.scalars(select(HoleCards).where(HoleCards.table_id == table_id,
                                                        HoleCards.seq >= started)):
        table.add_cards(hole.seq, hole.hand_no, tuple(hole.cards),
                        received_at=hole.received_at)
    for hand_no in session.scalars(select(Hand.hand_no).where(
            Hand.table_id == table_id, Hand.first_seq >= started,
            Hand.status != "in_progress")):
        table.hand_over(hand_no)
    return table


def _comparable(view: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in view.items() if k != "as_of"}  # as_of moves on by itself


async def follow(bridge: Bridge, sessions: sessionmaker[Session], table_id: str,
                 send: Callable[[dict[str, Any]], Awaitable[None]]) -> None:
    """Send the table's broadcast view now and each time it changes, until cancelled;
    raises :class:`FellBehind` if the feed drops this subscriber."""
    delay = bridge.settings.hole_card_delay_s
    async with bridge.feed.subscribe(privileged=True) as queue:  # before the store: no gap

        def load() -> DelayedTable:
            warm_up()  # the equity tables, built once, off the event loop
            with sessions() as session:
                return load_table(session, table_id, now=bridge.clock(), delay_s=delay)

        table = await run_in_threadpool(load)
        sent: dict[str, Any] | None = None
        looked = -TICK_S  # time.monotonic() of the last look at the view
        dirty = True
        while True:
            now = bridge.clock()
            at = table.next_change(now)
            if dirty or (at is not None and at <= now) or time.monotonic() - looked >= TICK_S:
                # the release's own timer runs on the real clock; asking it here too
                # serves a bridge on an injected clock (tests, a replay)
                bridge.hole_cards.release_due()
                view = table.view(now).model_dump(mode="json")
                looked, dirty = time.monotonic(), False
                if sent is None or _comparable(view) != _comparable(sent):
                    await send({"type": "broadcast", **view})
                    sent = view
                continue  # released cards may be queued now
            wait = TICK_S - (time.monotonic() - looked)
            if at is not None:
                wait = min(wait, at - now + 0.001)
            try:
                item = await asyncio.wait_for(queue.get(), max(0.0, wait))
            except TimeoutError:
                continue
            if item.get("type") == "dropped":
                raise FellBehind(str(item.get("reason", "")))
            dirty = table.take(item, bridge.clock())
