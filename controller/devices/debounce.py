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
DEFAULT_SPIN_S = 0.001  # epoll's granularity: see CardWatch
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
    # next_deadline(), kept current by observe() and expire(), the only places that change
    # the tags: a CardWatch asks every reader at every step, most of them idle.
    _due: float | None = field(default=None, init=False, repr=False)

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
        self._due = self._soonest()
        return events

    def expire(self) -> list[CardEvent]:
        """Report the tags whose missing time has run out, without a new scan."""
        events = list(self._left(self.clock()))
        self._due = self._soonest()
        return events

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
        return self._due

    def _soonest(self) -> float | None:
        soonest: float | None = None
        for tag in self._tags.values():
            if not tag.present:
                due = tag.first_seen + self.stable_s
            elif tag.missing_since is not None:
                due = tag.missing_since + self.gone_s
            else:
                continue
            if soonest is None or due < soonest:
                soonest = due
        return soonest


class CardWatch:
    """Scan a set of readers, debounce each, hand events to ``emit``.

    Push readers (the mock, seat nodes) are scanned when they say something changed and at
    debounce deadlines; the others are polled every ``poll_s``. ``step()`` does one round
    synchronously (tests call it after advancing a virtual clock); ``run()`` drives it on
    the asyncio loop.

    Latency (DESIGN budget: card placed -> ``CardArrived`` p99 <= 2 ms beyond the stable
    time). ``run()`` steps from plain loop callbacks, not from a task waiting on an event:
    a push schedules one ``call_soon`` step, a debounce deadline is a ``call_at`` timer at
    that very time, and ``emit`` is called in the step that finds the card stable. Which
    readers are push readers is decided once here: ``isinstance`` against a runtime
    protocol costs ~15 us, which per reader per step was most of a millisecond on a
    20-reader table.

    The loop's own wake-up is the other cost: epoll sleeps whole milliseconds, rounded
    up, so a timer fires 0..1 ms late before the kernel's own wake-up latency. A debounce
    deadline's timer is therefore set ``spin_s`` early and the last stretch is spent
    yielding to the loop (``call_soon``, so other tasks and I/O keep running) until the
    clock reaches it: at most ``spin_s`` of CPU per deadline, i.e. per card placed or
    lifted, never for reader polls (those keep a plain timer). ``spin_s=0`` turns it off.
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
        spin_s: float = DEFAULT_SPIN_S,
    ) -> None:
        self.readers = dict(readers)
        self.emit = emit
        self.clock = clock
        self.poll_s = poll_s
        self.spin_s = spin_s
        # a reader that reports only stable reads (a seat node debounces on the node:
        # ``debounced = True``) takes no second stable time here; its departures keep
        # ``gone_s``, so a moment's silence on its line is not a card lifted
        self.debouncers = {
            name: CardDebouncer(name, clock, 0.0 if getattr(r, "debounced", False)
                                else stable_s, gone_s)
            for name, r in self.readers.items()
        }
        self._push = {name: isinstance(r, PushReader) for name, r in self.readers.items()}
        self._polled = not all(self._push.values())
        self._order = {name: i for i, name in enumerate(self.readers)}
        self._pulled = [name for name, push in self._push.items() if not push]
        # Readers with a debounce deadline pending (from their debouncer, after each scan):
        # a step visits these, the dirty ones and, when a poll is due, the polled ones.
        self._deadlines: dict[str, float] = {}
        self._dirty: set[str] = set(self.readers)
        self._lock = threading.Lock()
        self._last_poll = float("-inf")
        # set while run() drives the watch
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread: int | None = None
        self._stopped: asyncio.Future[None] | None = None
        self._soon: asyncio.Handle | None = None
        self._timer: asyncio.Handle | None = None  # the wake-up (a timer, or a spin turn)
        self._timer_at: float | None = None  # clock time it is for
        self._timer_loop_at = 0.0  # the same in the loop's time (a spin ends at either)
        for name, reader in self.readers.items():
            if isinstance(reader, PushReader):
                reader.set_listener(self._listener_for(name))

    def _listener_for(self, name: str) -> Callable[[], None]:
        def changed() -> None:
            with self._lock:
                self._dirty.add(name)
            loop = self._loop
            if loop is None or loop.is_closed():
                return  # not running: the next step() scans it
            if threading.get_ident() == self._loop_thread:
                self._step_soon()
            else:  # a reader's own thread (a serial link's, gpiozero's)
                loop.call_soon_threadsafe(self._step_soon)

        return changed

    def present(self, reader: str) -> frozenset[bytes]:
        """The debounced tags at ``reader`` now."""
        return self.debouncers[reader].present

    def step(self) -> list[CardEvent]:
        """Scan what needs scanning now, emit and return the events that came due."""
        now = self.clock()
        poll_due = self._polled and now - self._last_poll >= self.poll_s
        if poll_due:
            self._last_poll = now
        with self._lock:
            dirty, self._dirty = self._dirty, set()
        out: list[CardEvent] = []
        visit = dirty.union(n for n, due in self._deadlines.items() if due <= now + _EPS)
        if poll_due:
            visit.update(self._pulled)
        for name in sorted(visit, key=self._order.__getitem__):  # the readers' order
            deb = self.debouncers[name]
            events = deb.observe(self.readers[name].scan())
            deadline = deb.next_deadline()
            if deadline is None:
                self._deadlines.pop(name, None)
            else:
                self._deadlines[name] = deadline
            for event in events:
                self.emit(event)
            out += events
        return out

    def next_wakeup(self) -> float | None:
        """When ``step`` next has work without a push: a deadline or the next poll."""
        deadline, poll = self._next_times()
        times = [t for t in (deadline, poll) if t is not None]
        return min(times) if times else None

    def _next_times(self) -> tuple[float | None, float | None]:
        """(the earliest debounce deadline, the next poll), each None if there is none."""
        deadlines = self._deadlines.values()
        return (
            min(deadlines) if deadlines else None,
            self._last_poll + self.poll_s if self._polled else None,
        )

    async def run(self) -> None:
        """Step on pushes, at deadlines and polls, on this loop, until cancelled."""
        if self._loop is not None:
            raise RuntimeError("this CardWatch is already running")
        loop = self._loop = asyncio.get_running_loop()
        self._loop_thread = threading.get_ident()
        stopped = self._stopped = loop.create_future()
        try:
            self._tick()
            await stopped  # never set but by a failing step: cancel run() to stop
        finally:
            for handle in (self._soon, self._timer):
                if handle is not None:
                    handle.cancel()
            self._soon = self._timer = self._timer_at = None
            self._loop = self._loop_thread = self._stopped = None

    def _step_soon(self) -> None:
        if self._soon is None and self._loop is not None:
            self._soon = self._loop.call_soon(self._tick)

    def _tick(self) -> None:
        """One step from the loop, then the wake-up for the next deadline or poll."""
        self._soon = None
        loop, stopped = self._loop, self._stopped
        if loop is None or stopped is None or stopped.done():
            return
        try:
            self.step()
            deadline, poll = self._next_times()
        except Exception as exc:  # a reader failing: run() raises it, as a task would
            stopped.set_exception(exc)
            return
        precise = deadline is not None and (poll is None or deadline <= poll)
        wakeup = deadline if precise else poll
        if wakeup == self._timer_at:
            return  # the wake-up already set is the right one
        if self._timer is not None:
            self._timer.cancel()
            self._timer = self._timer_at = None
        if wakeup is None:
            return
        self._timer_at = wakeup
        delay = wakeup - self.clock()
        self._timer_loop_at = loop.time() + delay
        if not precise:
            self._timer = loop.call_at(loop.time() + delay, self._woken)
        elif delay > self.spin_s:
            self._timer = loop.call_at(loop.time() + delay - self.spin_s, self._woken)
        else:
            self._timer = loop.call_soon(self._woken)

    def _woken(self) -> None:
        loop, at = self._loop, self._timer_at
        early = at is not None and self.clock() < at
        # early on purpose: one more loop turn, until the clock or (for a clock that is not
        # the loop's, say a virtual one) the loop's own time reaches the wake-up
        if loop is not None and early and loop.time() < self._timer_loop_at:
            self._timer = loop.call_soon(self._woken)
            return
        self._timer = self._timer_at = None
        self._tick()
