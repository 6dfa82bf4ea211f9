"""Debouncing raw reader scans into ``CardArrived``/``CardLeft`` events, in injected time.

A tag *arrives* once every scan for ``stable_s`` seconds has read it (a stable read; with
``stable_s == 0`` the first read counts). It *leaves* once it has been missing from every
scan for ``gone_s`` seconds (default 0.5 s): a card slid a few millimetres, or a read lost
to noise, does not flicker. Time comes from the clock you pass in, so tests run in
virtual time and nothing here sleeps except ``CardWatch.run``.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from .events import CardArrived, CardEvent, CardLeft
from .interfaces import CardReader, Clock, PushReader

DEFAULT_STABLE_S = 0.03
DEFAULT_GONE_S = 0.5
DEFAULT_POLL_S = 0.02
_EPS = 1e-9  # float clocks: 1000.0 + 0.029 + 0.001 - 1000.0 < 0.03


@dataclass(slots=True)
class _Tag:
    first_seen: float
    missing_since: float | None = None
    present: bool = False


@dataclass(slots=True)
class CardDebouncer:
    """Debounce one reader's scans. Call ``observe`` with each scan, ``expire`` in between."""

    reader: str
    clock: Clock
    stable_s: float = DEFAULT_STABLE_S
    gone_s: float = DEFAULT_GONE_S
    _tags: dict[bytes, _Tag] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.stable_s < 0 or self.gone_s <= 0:
            raise ValueError(
                f"reader {self.reader}: stable_s must be >= 0 and gone_s > 0 "
                f"(got {self.stable_s}, {self.gone_s})"
            )

    @property
    def present(self) -> frozenset[bytes]:
        """The tags that have arrived and not yet left."""
        return frozenset(uid for uid, tag in self._tags.items() if tag.present)

    def observe(self, uids: Iterable[bytes]) -> list[CardEvent]:
        """Take one scan's UIDs, read now; return the events it completes, arrivals last."""
        now = self.clock()
        seen = set(uids)
        events: list[CardEvent] = []
        for uid in list(self._tags):
            tag = self._tags[uid]
            if uid in seen:
                tag.missing_since = None
            elif not tag.present:
                del self._tags[uid]  # an unstable read: forget it, start again next time
            elif tag.missing_since is None:
                tag.missing_since = now
        for uid in seen:
            if uid not in self._tags:
                self._tags[uid] = _Tag(first_seen=now)
        events.extend(self._left(now))
        for uid in sorted(seen):
            tag = self._tags[uid]
            if not tag.present and now - tag.first_seen >= self.stable_s - _EPS:
                tag.present = True
                events.append(CardArrived(self.reader, uid))
        return events

    def expire(self) -> list[CardEvent]:
        """Report the tags whose missing time has run out, without a new scan."""
        return list(self._left(self.clock()))

    def _left(self, now: float) -> Iterable[CardEvent]:
        for uid in sorted(self._tags):
            tag = self._tags[uid]
            if (
                tag.present
                and tag.missing_since is not None
                and now - tag.missing_since >= (self.gone_s)
            ):
                del self._tags[uid]
                yield CardLeft(self.reader, uid)

    def next_deadline(self) -> float | None:
        """The clock time at which an event may come due without anything else changing."""
        times = [
            tag.first_seen + self.stable_s if not tag.present else tag.missing_since + self.gone_s
            for tag in self._tags.values()
            if not tag.present or tag.missing_since is not None
        ]
        return min(times) if times else None


class CardWatch:
    """Scan a set of readers, debounce each, hand events to ``emit``.

    Push readers (the mock, seat nodes) are scanned when they say something changed and at
    debounce deadlines; the others are polled every ``poll_s``. ``step()`` does one round
    synchronously (tests call it after advancing a virtual clock); ``run()`` loops in asyncio.
    """

    def __init__(
        self,
        readers: Mapping[str, CardReader],
        emit: Callable[[CardEvent], None],
        *,
        clock: Clock,
        stable_s: float = DEFAULT_STABLE_S,
        gone_s: float = DEFAULT_GONE_S,
        poll_s: float = DEFAULT_POLL_S,
    ) -> None:
        self.readers = dict(readers)
        self.emit = emit
        self.clock = clock
        self.poll_s = poll_s
        self.debouncers = {
            name: CardDebouncer(name, clock, stable_s, gone_s) for name in self.readers
        }
        self._dirty: set[str] = set(self.readers)
        self._lock = threading.Lock()
        self._wake: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._last_poll = float("-inf")
        for name, reader in self.readers.items():
            if isinstance(reader, PushReader):
                reader.set_listener(self._listener_for(name))

    def _listener_for(self, name: str) -> Callable[[], None]:
        def changed() -> None:
            with self._lock:
                self._dirty.add(name)
            loop, wake = self._loop, self._wake
            if loop is not None and wake is not None and not loop.is_closed():
                try:
                    running = asyncio.get_running_loop()
                except RuntimeError:
                    running = None
                if running is loop:
                    wake.set()
                else:
                    loop.call_soon_threadsafe(wake.set)

        return changed

    def present(self, reader: str) -> frozenset[bytes]:
        """The debounced tags at ``reader`` now."""
        return self.debouncers[reader].present

    def step(self) -> list[CardEvent]:
        """Scan what needs scanning now, emit and return the events that came due."""
        now = self.clock()
        poll_due = now - self._last_poll >= self.poll_s
        if poll_due:
            self._last_poll = now
        with self._lock:
            dirty, self._dirty = self._dirty, set()
        out: list[CardEvent] = []
        for name, reader in self.readers.items():
            deb = self.debouncers[name]
            deadline = deb.next_deadline()
            due = deadline is not None and deadline <= now + _EPS
            is_push = isinstance(reader, PushReader)
            if name in dirty or due or (poll_due and not is_push):
                out.extend(deb.observe(reader.scan()))
        for event in out:
            self.emit(event)
        return out

    def next_wakeup(self) -> float | None:
        """When ``step`` next has work without a push: a deadline or the next poll."""
        times = [d for d in (deb.next_deadline() for deb in self.debouncers.values()) if d]
        if any(not isinstance(r, PushReader) for r in self.readers.values()):
            times.append(self._last_poll + self.poll_s)
        return min(times) if times else None

    async def run(self) -> None:
        """Step forever, sleeping until a push, a deadline or the next poll (cancel to stop)."""
        loop = self._loop = asyncio.get_running_loop()
        wake = self._wake = asyncio.Event()
        try:
            while True:
                self.step()
                wakeup = self.next_wakeup()
                timer = None
                if wakeup is not None:  # a plain timer: cheaper and more punctual than wait_for
                    timer = loop.call_later(max(0.0, wakeup - self.clock()), wake.set)
                await wake.wait()
                wake.clear()
                if timer is not None:
                    timer.cancel()
        finally:
            self._loop = self._wake = None
