"""The table's hardware as one object: readers, keys, lights, displays and buzzer of one
table, with one event stream. Every backend builds one (``backends.open_devices``); the
object itself does not know which backend built its parts.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections import deque
from collections.abc import AsyncIterator, Callable, Mapping

from .debounce import CardWatch
from .errors import UnknownDeviceError
from .events import DeviceEvent, KeyEvent, SeatNodeOffline, SeatNodeOnline
from .interfaces import (
    BEEP_ERROR,
    BlindsDisplay,
    Buzzer,
    CardReader,
    Clock,
    DealerDisplay,
    DealerKeys,
    LightState,
    SeatLight,
    SeatNodeLink,
    ShotClockDisplay,
)
from .specs import Profile

DISPLAY_REFRESH_S = 0.05


class TableHardware:
    """Readers, keys, lights, displays and buzzer of one table, with one event stream."""

    def __init__(
        self,
        profile: Profile,
        *,
        readers: Mapping[str, CardReader],
        keys: Callable[[Callable[[KeyEvent], None]], DealerKeys],
        lights: Mapping[int, SeatLight],
        blinds: BlindsDisplay,
        shot_clock: ShotClockDisplay,
        buzzer: Buzzer,
        clock: Clock,
        seat_link: SeatNodeLink | None = None,
        dealer_display: DealerDisplay | None = None,
    ) -> None:
        self.profile = profile
        self.clock = clock
        self.readers = dict(readers)
        self.lights = dict(lights)
        self.blinds = blinds
        self.shot_clock = shot_clock
        self.buzzer = buzzer
        self.dealer_display = dealer_display  # beside the keypad; None: not built
        self._queue: deque[DeviceEvent] = deque()
        self._wake: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread: int | None = None
        deb = profile.debounce
        self.watch = CardWatch(
            self.readers,
            self._emit,
            clock=clock,
            stable_s=deb.stable_s,
            gone_s=deb.gone_s,
            poll_s=deb.poll_s,
        )
        self.keys = keys(self._emit)
        self.offline_seats: set[int] = set()  # seat nodes that missed their heartbeats
        if seat_link is not None:
            seat_link.subscribe_status(self._node_status)

    def _node_status(self, seat: int, online: bool) -> None:
        """A seat node came or went: an event for the table, and a beep when one is lost."""
        if online:
            if seat in self.offline_seats:
                self.offline_seats.discard(seat)
                self._emit(SeatNodeOnline(seat))
        elif seat not in self.offline_seats:
            self.offline_seats.add(seat)
            self.buzzer.beep(BEEP_ERROR)
            self._emit(SeatNodeOffline(seat))

    # -- events
    def _emit(self, event: DeviceEvent) -> None:
        self._queue.append(event)  # deque.append is thread-safe (gpiozero calls from its thread)
        loop, wake = self._loop, self._wake
        if loop is not None and wake is not None and not loop.is_closed():
            if threading.get_ident() == self._loop_thread:
                wake.set()
            else:
                loop.call_soon_threadsafe(wake.set)

    def poll(self) -> list[DeviceEvent]:
        """Synchronously: scan what is due, refresh blinking, return the events since last."""
        self.watch.step()
        self.shot_clock.refresh(self.clock())
        out = list(self._queue)
        self._queue.clear()
        return out

    async def events(self) -> AsyncIterator[DeviceEvent]:
        """Every event as it happens (run ``run()`` alongside to scan the readers)."""
        self._bind()
        assert self._wake is not None
        while True:
            while self._queue:
                yield self._queue.popleft()
            await self._wake.wait()
            self._wake.clear()

    def _bind(self) -> None:
        if self._wake is None:
            self._loop = asyncio.get_running_loop()
            self._loop_thread = threading.get_ident()
            self._wake = asyncio.Event()

    async def run(self) -> None:
        """Scan readers and refresh the shot clock until cancelled."""
        self._bind()
        async with asyncio.TaskGroup() as tg:
            tg.create_task(self.watch.run(), name="card-watch")
            tg.create_task(self._refresh(), name="display-refresh")

    async def _refresh(self) -> None:
        while True:
            self.shot_clock.refresh(self.clock())
            await asyncio.sleep(DISPLAY_REFRESH_S)

    # -- parts by name
    def reader(self, name: str) -> CardReader:
        try:
            return self.readers[name]
        except KeyError:
            raise UnknownDeviceError(
                f"no reader {name!r} on table {self.profile.name}; it has {', '.join(self.readers)}"
            ) from None

    def light(self, seat: int) -> SeatLight:
        try:
            return self.lights[seat]
        except KeyError:
            raise UnknownDeviceError(
                f"no seat {seat} on table {self.profile.name} (seats 1..{len(self.lights)})"
            ) from None

    def set_light(self, seat: int, state: LightState) -> None:
        self.light(seat).set(state)

    def present(self, reader: str) -> frozenset[bytes]:
        """The debounced tags at ``reader`` now."""
        self.reader(reader)
        return self.watch.present(reader)

    def close(self) -> None:
        parts: list[CardReader | SeatLight | DealerKeys | BlindsDisplay | ShotClockDisplay | Buzzer
                    | DealerDisplay]
        parts = [*self.readers.values(), *self.lights.values()]
        parts += [self.keys, self.blinds, self.shot_clock, self.buzzer]
        if self.dealer_display is not None:
            parts.append(self.dealer_display)
        for part in parts:
            with contextlib.suppress(Exception):
                part.close()
