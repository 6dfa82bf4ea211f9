"""The table's hardware as one object, and the real backend that builds it from a profile.

``open_devices(profile)`` gives a ``TableHardware`` on the Pi; ``mock.MockTable(profile)``
gives the same object over mock parts. Factories are keyword-only and injectable.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any

from .buses import GpioChipSelectSpi, I2CDevice, open_i2c, open_spi
from .debounce import CardWatch
from .errors import DeviceError, DriverMissingError, UnknownDeviceError
from .events import DeviceEvent, KeyEvent, SeatNodeOffline, SeatNodeOnline
from .gpio import GpioBuzzer, GpioKeys, GpioLight
from .interfaces import (
    BEEP_ERROR,
    BlindsDisplay,
    Buzzer,
    CardReader,
    Clock,
    DealerKeys,
    LightState,
    SeatLight,
    SeatNodeLink,
    ShotClockDisplay,
)
from .profile import BuzzerSpec, DisplaySpec, LightSpec, Profile, ReaderSpec
from .seatnodes import SeatNodeReader, SeatNodeRing

DISPLAY_REFRESH_S = 0.05


class ChipReader:
    """A reader chip driver (MFRC522, PN532) under a reader name."""

    def __init__(self, name: str, chip: Any, *, multi_tag: bool = True) -> None:
        self.name = name
        self.chip = chip
        self.multi_tag = multi_tag

    def scan(self) -> frozenset[bytes]:
        result: frozenset[bytes] = self.chip.scan()
        return result

    def close(self) -> None:
        pass


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
    ) -> None:
        self.profile = profile
        self.clock = clock
        self.readers = dict(readers)
        self.lights = dict(lights)
        self.blinds = blinds
        self.shot_clock = shot_clock
        self.buzzer = buzzer
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
        parts: list[CardReader | SeatLight | DealerKeys | BlindsDisplay | ShotClockDisplay | Buzzer]
        parts = [*self.readers.values(), *self.lights.values()]
        parts += [self.keys, self.blinds, self.shot_clock, self.buzzer]
        for part in parts:
            with contextlib.suppress(Exception):
                part.close()


def _luma(module: str, what: str) -> Any:
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        package = module.rsplit(".", 1)[0].replace("luma.", "luma.")
        raise DriverMissingError(
            f"the {what} needs `{package}` ({exc}): `pip install {package}`"
        ) from None


class RealBackend:
    """Builds each part of a profile for the Pi. ``mock.MockBackend`` overrides the chips."""

    def __init__(
        self,
        *,
        pin_factory: Any = None,
        seat_link: SeatNodeLink | None = None,
        spi_opener: Callable[..., Any] = open_spi,
        i2c_opener: Callable[[str], Any] = open_i2c,
    ) -> None:
        self.pin_factory = pin_factory
        self.seat_link = seat_link
        self.spi_opener = spi_opener
        self.i2c_opener = i2c_opener
        self._i2c: dict[str, Any] = {}
        self._spi_shared: dict[str, Any] = {}

    def i2c(self, bus: str) -> Any:
        if bus not in self._i2c:
            self._i2c[bus] = self.i2c_opener(bus)
        return self._i2c[bus]

    def _link(self, what: str) -> SeatNodeLink:
        if self.seat_link is None:
            raise DeviceError(
                f"{what} is on a seat node, but no seat-node link was given: pass "
                "seat_link= (the open link from controller.devices.seatlink)"
            )
        return self.seat_link

    def reader(self, spec: ReaderSpec) -> CardReader:
        from gpiozero import DigitalOutputDevice

        from .mfrc522 import MFRC522
        from .pn532 import PN532

        if spec.reset_pin is not None:  # hold the chip out of reset
            DigitalOutputDevice(spec.reset_pin, initial_value=True, pin_factory=self.pin_factory)
        if spec.kind == "mfrc522":
            assert spec.bus is not None
            if spec.cs is not None:
                spi = self.spi_opener(spec.bus, spec.cs)
            else:
                if spec.bus not in self._spi_shared:
                    self._spi_shared[spec.bus] = self.spi_opener(spec.bus, 0, no_cs=True)
                select = DigitalOutputDevice(
                    spec.cs_pin, active_high=False, pin_factory=self.pin_factory
                )
                spi = GpioChipSelectSpi(self._spi_shared[spec.bus], select)
            return ChipReader(spec.name, MFRC522(spi))
        if spec.kind == "pn532":
            assert spec.bus is not None and spec.address is not None
            link = I2CDevice(
                self.i2c(spec.bus), spec.address, mux=spec.mux, channel=spec.channel or 0
            )
            return ChipReader(spec.name, PN532(link), multi_tag=True)
        if spec.kind == "seatnode":
            assert spec.node is not None
            return SeatNodeReader(
                spec.name, self._link(f"reader {spec.name}"), spec.node, spec.slot
            )
        return self.mock_reader(spec)

    def mock_reader(self, spec: ReaderSpec) -> CardReader:
        from .mock import MockCardReader

        return MockCardReader(spec.name, multi_tag=spec.multi_tag)

    def light(self, seat: int, spec: LightSpec) -> SeatLight:
        if spec.kind in ("led", "pwm_led"):
            assert spec.pin is not None
            return GpioLight(spec.pin, pwm=spec.kind == "pwm_led", pin_factory=self.pin_factory)
        if spec.kind == "seatnode_ring":
            assert spec.node is not None
            return SeatNodeRing(self._link(f"seat {seat} light"), spec.node)
        from .mock import MockSeatLight

        return MockSeatLight()

    def blinds(self, spec: DisplaySpec) -> BlindsDisplay:
        from .displays import LumaBlindsDisplay

        if spec.kind == "ssd1306":
            serial = _luma("luma.core.interface.serial", "blinds display")
            oled = _luma("luma.oled.device", "blinds display")
            bus = int((spec.bus or "i2c1").removeprefix("i2c"))
            return LumaBlindsDisplay(oled.ssd1306(serial.i2c(port=bus, address=spec.address)))
        from .mock import mock_blinds_display

        return mock_blinds_display()

    def shot_clock(self, spec: DisplaySpec) -> ShotClockDisplay:
        from .displays import HT16K33ShotClock, SevenSegmentShotClock

        if spec.kind == "max7219":
            serial = _luma("luma.core.interface.serial", "shot clock")
            matrix = _luma("luma.led_matrix.device", "shot clock")
            virtual = _luma("luma.core.virtual", "shot clock")
            bus = int((spec.bus or "spi0").removeprefix("spi"))
            device = matrix.max7219(serial.spi(port=bus, device=spec.cs or 0), cascaded=1)
            return SevenSegmentShotClock(virtual.sevensegment(device))
        if spec.kind == "ht16k33":
            assert spec.bus is not None and spec.address is not None
            return HT16K33ShotClock(self.i2c(spec.bus), spec.address)
        from .mock import mock_shot_clock

        return mock_shot_clock()

    def buzzer(self, spec: BuzzerSpec) -> Buzzer:
        if spec.kind == "gpio":
            assert spec.pin is not None
            return GpioBuzzer(spec.pin, pin_factory=self.pin_factory)
        from .mock import MockBuzzer

        return MockBuzzer()

    def keys(self, pins: Mapping[str, int]) -> Callable[[Callable[[KeyEvent], None]], DealerKeys]:
        return lambda emit: GpioKeys(pins, emit, pin_factory=self.pin_factory)

    def parts(self, profile: Profile) -> dict[str, Any]:
        """The keyword arguments of ``TableHardware`` for ``profile``, less the clock."""
        return {
            "readers": {name: self.reader(spec) for name, spec in profile.readers.items()},
            "keys": self.keys(profile.keys),
            "lights": {s.number: self.light(s.number, s.light) for s in profile.seats},
            "blinds": self.blinds(profile.blinds_display),
            "shot_clock": self.shot_clock(profile.shot_clock),
            "buzzer": self.buzzer(profile.buzzer),
            "seat_link": self.seat_link,
        }

    def build(self, profile: Profile, clock: Clock) -> TableHardware:
        return TableHardware(profile, clock=clock, **self.parts(profile))


def open_devices(
    profile: Profile,
    *,
    pin_factory: Any = None,
    seat_link: SeatNodeLink | None = None,
    spi_opener: Callable[..., Any] = open_spi,
    i2c_opener: Callable[[str], Any] = open_i2c,
    clock: Clock = time.monotonic,
) -> TableHardware:
    """Open the real hardware a profile describes (``mock`` kinds in it stay mocks).

    Seat nodes are reached through ``seat_link``: on the table, a started
    ``seatlink.SeatNodeLinks(links, profile=profile)`` (given the profile, the links' own
    events name readers as the table does).
    """
    backend = RealBackend(
        pin_factory=pin_factory, seat_link=seat_link, spi_opener=spi_opener, i2c_opener=i2c_opener
    )
    return backend.build(profile, clock)
