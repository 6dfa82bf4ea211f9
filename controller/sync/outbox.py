"""The outbox: the table's side of store-and-forward.

The live table hands its accepted events to :meth:`Outbox.record` (the :class:`EventSink`
it is given); they are journaled and fsynced on the journal's own thread, then queued for
the link. Everything the host has not acknowledged stays in the journal's outbox and goes
out again on reconnect, when ``host/status`` turns online, or, for a range, when the host
asks. A resend is paced: one range waits at a time (a new request widens it), and the link
takes it :data:`RESEND_CHUNK` events at a time, between its live batches, dropping whatever
the host has acknowledged meanwhile or the link's own stream is about to send anyway (after
a rewind or a new session). Acks prune it; they are written at most every
``prune_every`` seconds, since a lost ack only costs a resend that the host ignores.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from types import TracebackType
from typing import Protocol, Self, TypeVar

from controller.events import JournalEvent, PublicState
from controller.sync.journal import Journal, Parcel
from controller.sync.tasks import stop

log = logging.getLogger(__name__)
T = TypeVar("T")

RECENT = 4096  # parcels kept in memory for the fast path; older ones are read back
RESEND_CHUNK = 256  # events a resend sends before the live stream gets its turn


class EventSink(Protocol):
    """Where the live table puts each accepted event (DESIGN.md, How data flows, 4-5).

    ``record`` returns once the events are durable, with their seqs; only then may the
    table display them. A batch (an action and the board and pots it completes) is atomic.
    """

    async def record(self, events: Sequence[JournalEvent]) -> Sequence[int]:
        """Journal ``events`` in order; return their seqs."""
        ...


class Outbox:
    """Journal-backed queue of events for the host; an async context manager."""

    def __init__(self, journal: Journal, *, prune_every: float = 0.2,
                 history_every: float = 60.0) -> None:
        self.journal = journal
        self.table = journal.table
        self.boot = journal.boot
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="journal")
        self._recent: deque[Parcel] = deque(maxlen=RECENT)
        self._arrived = asyncio.Event()
        self._ack_changed = asyncio.Event()
        self._prune_every = prune_every
        # the range still to resend, and the host's ack when it was asked
        self._resend: tuple[int, int, int] | None = None
        self._rewind = False
        self._pruner: asyncio.Task[None] | None = None
        self._history_every = history_every  # seconds between journal retention passes
        self._historian: asyncio.Task[None] | None = None
        self.state: PublicState = journal.state
        self.last_seq = journal.last_seq
        self.acked = journal.acked
        self.size = journal.last_seq - journal.acked
        self.state_version = 0

    async def __aenter__(self) -> Self:
        self._pruner = asyncio.create_task(self._prune_loop(), name=f"outbox-prune:{self.table}")
        self._historian = asyncio.create_task(self._history_loop(),
                                              name=f"journal-retention:{self.table}")
        return self

    async def __aexit__(self, et: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await stop(self._pruner)
        await stop(self._historian)
        await self.run(self.journal.acknowledge, self.acked)
        self._pool.shutdown(wait=True)

    async def run(self, fn: Callable[..., T], *args: object) -> T:
        """Run ``fn(*args)`` on the journal's thread (every SQLite call goes there)."""
        return await asyncio.get_running_loop().run_in_executor(self._pool, fn, *args)

    # ------------------------------------------------------------------ the sink
    async def record(self, events: Sequence[JournalEvent]) -> Sequence[int]:
        """Journal ``events`` (fsync) and queue them for the host; return their seqs."""
        parcels = await self.run(self.journal.append, events)
        self.accept(parcels)
        return [p.seq for p in parcels]

    def record_now(self, events: Sequence[JournalEvent]) -> list[int]:
        """:meth:`record` for a synchronous caller on the event loop's thread (the live
        table): blocks until the events are durable, on the journal's thread as always,
        then queues them. :class:`~controller.sync.errors.JournalError` if refused."""
        parcels = self._pool.submit(self.journal.append, events).result()
        self.accept(parcels)
        return [p.seq for p in parcels]

    def accept(self, parcels: Sequence[Parcel]) -> None:
        """Queue parcels the journal has just made durable (the caller appended them)."""
        if not parcels or parcels[-1].seq <= self.last_seq:
            return  # none, or a later batch (another writer's) was accepted first
        if self._recent and parcels[0].seq != self._recent[-1].seq + 1:
            self._recent.clear()  # not contiguous: read the journal until it is again
        self._recent.extend(parcels)
        self.last_seq = parcels[-1].seq
        self.size = self.last_seq - self.acked
        self.state = self.journal.state
        self.state_version += 1
        self._arrived.set()

    # ------------------------------------------------------------------ the link side
    async def next_batch(self, after: int, limit: int = 256) -> list[Parcel]:
        """The parcels after seq ``after`` (at most ``limit``), waiting until there are some."""
        while self.last_seq <= after:
            self._arrived.clear()
            await self._arrived.wait()
        recent = self._recent
        if recent and recent[0].seq <= after + 1:
            start = after + 1 - recent[0].seq
            return [recent[i] for i in range(start, min(len(recent), start + limit))]
        return await self.run(lambda: self.journal.parcels(after, limit=limit))

    async def wait_for_news(self) -> None:
        """Return when an event, a resend request or a rewind arrives."""
        self._arrived.clear()
        await self._arrived.wait()

    def acknowledge(self, acked: int) -> bool:
        """The host holds everything up to ``acked``; False for an ack of the future."""
        if acked > self.last_seq:
            return False
        if acked > self.acked:
            self.acked = acked
            self.size = self.last_seq - acked
            self._ack_changed.set()
        return True

    def request_resend(self, from_seq: int, to_seq: int) -> bool:
        """Queue a resend of ``from_seq..to_seq`` (clipped to what exists); False if empty.
        One range waits at a time: a request while one waits widens it (the host asks from
        its contiguous seq, so the two overlap or touch)."""
        to_seq = min(to_seq, self.last_seq)
        if from_seq > to_seq:
            return False
        acked = self.acked
        if self._resend is not None:
            from_seq, to_seq = min(from_seq, self._resend[0]), max(to_seq, self._resend[1])
            acked = min(acked, self._resend[2])
        self._resend = (from_seq, to_seq, acked)
        self._arrived.set()
        return True

    def take_resend(self, sent: int) -> tuple[int, int] | None:
        """The next chunk (at most :data:`RESEND_CHUNK` events) of the waiting resend, if
        any. ``sent`` is the highest seq the link's stream has sent this session: the part
        of the range above it goes out with that stream anyway, and the part the host has
        acknowledged since it asked is not needed; both are dropped (so a resend request
        does not double a rewind's traffic). What was acknowledged before the request
        (history a new host asks for, a seq it asks to confirm) is sent."""
        if self._resend is None:
            return None
        first, last, acked = self._resend
        if self.acked > acked:
            first = max(first, self.acked + 1)
        last = min(last, sent)
        if first > last:
            self._resend = None
            return None
        end = min(last, first + RESEND_CHUNK - 1)
        self._resend = (end + 1, last, acked) if end < last else None
        return first, end

    def rewind(self) -> None:
        """Everything unacknowledged goes out again (the host came online)."""
        self._rewind = True
        self._arrived.set()

    def take_rewind(self) -> bool:
        """True once after :meth:`rewind`."""
        rewind, self._rewind = self._rewind, False
        return rewind

    async def range(self, from_seq: int, to_seq: int) -> list[Parcel]:
        """Journaled parcels ``from_seq..to_seq`` (for a resend request)."""
        if from_seq <= self.journal.pruned:
            log.warning("resend of %d..%d asked: events up to %d are past the journal's "
                        "retention and acknowledged; only the later ones go out", from_seq,
                        to_seq, self.journal.pruned)
        return await self.run(lambda: self.journal.parcels(
            from_seq - 1, upto=to_seq, limit=max(1, to_seq - from_seq + 1)))

    async def _prune_loop(self) -> None:
        while True:
            await self._ack_changed.wait()
            self._ack_changed.clear()
            try:
                left = await self.run(self.journal.acknowledge, self.acked)
            except Exception as exc:  # a failed prune is retried with the next ack
                log.warning("outbox prune failed: %s", exc)
                self._ack_changed.set()
            else:
                log.debug("outbox pruned to seq %d, %d left", self.acked, left)
            await asyncio.sleep(self._prune_every)

    async def _history_loop(self) -> None:
        """Journal retention: prune old acknowledged history now and then, a batch at a
        time, so appends queued on the journal's thread go between the batches."""
        batch = self.journal.retention.batch
        while True:
            try:
                while await self.run(self.journal.prune_history) >= batch:
                    await asyncio.sleep(0)
            except Exception as exc:  # retried at the next pass; nothing is lost meanwhile
                log.warning("journal retention pass failed: %s", exc)
            await asyncio.sleep(self._history_every)
