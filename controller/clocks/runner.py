"""The asyncio driver: wakes the clocks with ``loop.call_at`` on the loop's monotonic clock.

The clocks are pure; this is the only place where time passes by itself. A clock is
anything with ``poll(now)`` and ``next_deadline()``. Commands from the table go through
:meth:`ClockRunner.do`, which hands the command the loop's ``now``, delivers the events it
returns and re-arms the timer::

    runner = ClockRunner([shot_clock, level_clock], panel.handle)
    runner.do(lambda now: shot_clock.start(3, now, can_check=True))
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable, Iterable, Sequence
from typing import Protocol

from .events import ClockEvent


class Pollable(Protocol):
    """A clock the runner can drive."""

    def poll(self, now: float) -> Sequence[ClockEvent]: ...

    def next_deadline(self) -> float | None: ...


Sink = Callable[[ClockEvent], None]


class ClockRunner:
    """Keeps one ``call_at`` timer armed for the earliest deadline of its clocks."""

    def __init__(self, clocks: Iterable[Pollable], sink: Sink, *,
                 loop: asyncio.AbstractEventLoop | None = None) -> None:
        self.clocks = list(clocks)
        self.sink = sink
        self._loop = loop
        self._handle: asyncio.TimerHandle | None = None
        self._armed_for = math.inf
        self.wakeups = 0

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        if self._loop is None:
            self._loop = asyncio.get_running_loop()
        return self._loop

    def now(self) -> float:
        return self.loop.time()

    def do(self, command: Callable[[float], Sequence[ClockEvent]]) -> Sequence[ClockEvent]:
        """Run a clock command at the loop's ``now``, deliver its events, re-arm."""
        events = command(self.now())
        for event in events:
            self.sink(event)
        self.kick()
        return events

    def kick(self) -> None:
        """Re-arm the timer (after a clock changed outside :meth:`do`)."""
        deadlines = [d for c in self.clocks if (d := c.next_deadline()) is not None]
        when = min(deadlines, default=math.inf)
        if when == self._armed_for and self._handle is not None:
            return
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        self._armed_for = when
        if when != math.inf:
            self._handle = self.loop.call_at(when, self._wake)

    def _wake(self) -> None:
        self._handle = None
        self._armed_for = math.inf
        self.wakeups += 1
        now = self.loop.time()
        for clock in self.clocks:
            for event in clock.poll(now):
                self.sink(event)
        self.kick()

    def close(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        self._armed_for = math.inf

    async def run(self) -> None:
        """Keep the timer armed until cancelled (run it as a named task)."""
        self.kick()
        try:
            await asyncio.Future()
        finally:
            self.close()
