"""The real backend: builds each part a profile names on the Pi (gpiozero pins, spidev and
smbus2 buses, luma displays, seat nodes over the link it is given).

It is registered as ``"real"`` in ``backends``; ``backends.open_devices(profile)`` asks
for it by name. Parts of ``kind = "mock"`` in a real profile are ``stand_ins``. Factories
and openers are keyword-only and injectable; vendor errors become ``DeviceError``s.
"""

from __future__ import annotations

import contextlib
import errno
import importlib
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from . import pins
from .buses import (
    GpioChipSelectSpi,
    I2CDevice,
    i2c_unavailable,
    open_i2c,
    open_spi,
    spi_unavailable,
)
from .errors import (
    BusAbsentError,
    ChipError,
    DeviceAbsentError,
    DriverMissingError,
    SeatLinkMissingError,
)
from .events import KeyEvent
from .gpio import GpioBuzzer, GpioKeys, GpioLight, claiming, default_pin_factory
from .interfaces import (
    BlindsDisplay,
    Buzzer,
    CardReader,
    Clock,
    DealerDisplay,
    DealerKeys,
    SeatLight,
    SeatNodeLink,
    ShotClockDisplay,
)
from .seatnodes import SeatNodeReader, SeatNodeRing
from .specs import BuzzerSpec, DisplaySpec, LightSpec, Profile, ReaderSpec
from .stand_ins import (
    MockBuzzer,
    MockCardReader,
    MockSeatLight,
    mock_blinds_display,
    mock_dealer_display,
    mock_shot_clock,
)
from .table_hardware import TableHardware

__all__ = ["ChipReader", "RealBackend", "TableHardware"]


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


def _luma(module: str, what: str) -> Any:
    """A luma module, or ``DriverMissingError`` naming the package to install."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        package = ".".join(module.split(".")[:2])  # luma.oled, luma.led_matrix, luma.core
        raise DriverMissingError(
            f"the {what} needs the `{package}` package ({exc}): pip install {package}"
        ) from None


def _luma_open(what: str, bus: str, make: Callable[[], Any], *, cs: int | None = None) -> Any:
    """``make()`` a luma device; a missing bus or a silent device is a ``DeviceError``."""
    error = _luma("luma.core.error", what)
    try:
        return make()
    except (error.DeviceNotFoundError, error.DevicePermissionError) as exc:
        code = errno.EACCES if isinstance(exc, error.DevicePermissionError) else errno.ENOENT
        cause = OSError(code, str(exc))
        absent = i2c_unavailable(bus, cause) if cs is None else spi_unavailable(bus, cs, cause)
        raise absent from None
    except (error.Error, OSError) as exc:
        raise DeviceAbsentError(
            f"the {what} on {bus} does not answer ({exc}): check its wiring, power and address"
        ) from None


def _ssd1306(what: str, spec: DisplaySpec) -> Any:
    """An SSD1306 on I2C opened with luma (the blinds display, the dealer's display)."""
    serial = _luma("luma.core.interface.serial", what)
    oled = _luma("luma.oled.device", what)
    bus, address = spec.bus or "i2c1", spec.address

    def open_ssd1306() -> Any:
        return oled.ssd1306(serial.i2c(port=pins.i2c_device(bus), address=address))

    return _luma_open(what, bus, open_ssd1306)


@contextlib.contextmanager
def _naming(part: str) -> Iterator[None]:
    """A chip that does not answer, or answers wrongly, is named: which reader it is."""
    try:
        yield
    except BusAbsentError:
        raise
    except (DeviceAbsentError, ChipError) as exc:
        raise type(exc)(f"{part}: {exc}") from None


class RealBackend:
    """Builds each part of a profile for the Pi; ``mock.MockBackend`` overrides the chips."""

    name = "real"

    def __init__(
        self,
        *,
        pin_factory: Any = None,
        seat_link: SeatNodeLink | None = None,
        spi_opener: Callable[..., Any] = open_spi,
        i2c_opener: Callable[[str], Any] = open_i2c,
    ) -> None:
        """``pin_factory=None``: gpiozero's default, looked up when the first GPIO is needed."""
        self._pin_factory = pin_factory
        self.seat_link = seat_link
        self.spi_opener = spi_opener
        self.i2c_opener = i2c_opener
        self._i2c: dict[str, Any] = {}
        self._spi_shared: dict[str, Any] = {}

    @property
    def pin_factory(self) -> Any:
        """The gpiozero pin factory every GPIO part is opened with (``BusAbsentError``
        off a Pi)."""
        if self._pin_factory is None:
            self._pin_factory = default_pin_factory()
        return self._pin_factory

    def i2c(self, bus: str) -> Any:
        if bus not in self._i2c:
            self._i2c[bus] = self.i2c_opener(bus)
        return self._i2c[bus]

    def _link(self, what: str, node: int | None, port: str | None) -> SeatNodeLink:
        if self.seat_link is None:
            raise SeatLinkMissingError(
                f"{what} is on seat node {node} at {port}, but no seat-node link was opened "
                "for it: run it with `pitboss table run`, which opens the profile's seat-node "
                "ports; in code, open them with controller.devices.seatlines.SeatLines and "
                "pass it as seat_link= to open_devices"
            )
        return self.seat_link

    def _output(self, pin: int, what: str, **kwargs: Any) -> Any:
        from gpiozero import DigitalOutputDevice

        factory = self.pin_factory
        with claiming(pin, what):
            return DigitalOutputDevice(pin, pin_factory=factory, **kwargs)

    def reader(self, spec: ReaderSpec) -> CardReader:
        from .mfrc522 import MFRC522
        from .pn532 import PN532

        if spec.reset_pin is not None:  # hold the chip out of reset
            self._output(spec.reset_pin, f"reader {spec.name} reset", initial_value=True)
        if spec.kind == "mfrc522":
            assert spec.bus is not None
            if spec.cs is not None:
                spi = self.spi_opener(spec.bus, spec.cs)
            else:
                assert spec.cs_pin is not None
                if spec.bus not in self._spi_shared:
                    self._spi_shared[spec.bus] = self.spi_opener(spec.bus, 0, no_cs=True)
                select = self._output(
                    spec.cs_pin, f"reader {spec.name} chip select", active_high=False
                )
                spi = GpioChipSelectSpi(self._spi_shared[spec.bus], select)
            with _naming(f"reader {spec.name} (MFRC522 on {spec.bus})"):
                return ChipReader(spec.name, MFRC522(spi))
        if spec.kind == "pn532":
            assert spec.bus is not None and spec.address is not None
            link = I2CDevice(
                self.i2c(spec.bus), spec.address, mux=spec.mux, channel=spec.channel or 0
            )
            with _naming(f"reader {spec.name} (PN532 on {spec.bus})"):
                return ChipReader(spec.name, PN532(link), multi_tag=True)
        if spec.kind == "seatnode":
            assert spec.node is not None
            link_ = self._link(f"reader {spec.name}", spec.node, spec.port)
            return SeatNodeReader(spec.name, link_, spec.node, spec.slot)
        return MockCardReader(spec.name, multi_tag=spec.multi_tag)

    def light(self, seat: int, spec: LightSpec) -> SeatLight:
        if spec.kind in ("led", "pwm_led"):
            assert spec.pin is not None
            return GpioLight(
                spec.pin,
                pwm=spec.kind == "pwm_led",
                pin_factory=self.pin_factory,
                what=f"seat {seat} light",
            )
        if spec.kind == "seatnode_ring":
            assert spec.node is not None
            return SeatNodeRing(self._link(f"seat {seat} light", spec.node, spec.port), spec.node)
        return MockSeatLight()

    def blinds(self, spec: DisplaySpec) -> BlindsDisplay:
        from .displays import LumaBlindsDisplay

        if spec.kind == "ssd1306":
            return LumaBlindsDisplay(_ssd1306("blinds display", spec))
        return mock_blinds_display()

    def dealer_display(self, spec: DisplaySpec) -> DealerDisplay:
        """The dealer's display beside the keypad: an SSD1306 on I2C, or a stand-in."""
        from .displays import LumaDealerDisplay

        if spec.kind == "ssd1306":
            return LumaDealerDisplay(_ssd1306("dealer display", spec))
        return mock_dealer_display()

    def shot_clock(self, spec: DisplaySpec) -> ShotClockDisplay:
        from .displays import HT16K33ShotClock, SevenSegmentShotClock

        if spec.kind == "max7219":
            serial = _luma("luma.core.interface.serial", "shot clock")
            matrix = _luma("luma.led_matrix.device", "shot clock")
            virtual = _luma("luma.core.virtual", "shot clock")
            bus, cs = spec.bus or "spi0", spec.cs or 0

            def open_max7219() -> Any:  # no DC or reset line: luma needs no GPIO library
                port = serial.spi(port=pins.spi_device(bus), device=cs, gpio=serial.noop())
                return matrix.max7219(port, cascaded=1)

            device = _luma_open("shot clock", bus, open_max7219, cs=cs)
            return SevenSegmentShotClock(virtual.sevensegment(device))
        if spec.kind == "ht16k33":
            assert spec.bus is not None and spec.address is not None
            return HT16K33ShotClock(self.i2c(spec.bus), spec.address)
        return mock_shot_clock()

    def buzzer(self, spec: BuzzerSpec) -> Buzzer:
        if spec.kind == "gpio":
            assert spec.pin is not None
            return GpioBuzzer(spec.pin, pin_factory=self.pin_factory)
        return MockBuzzer()

    def keys(self, pins: Mapping[str, int]) -> Callable[[Callable[[KeyEvent], None]], DealerKeys]:
        factory = self.pin_factory if pins else None
        return lambda emit: GpioKeys(pins, emit, pin_factory=factory)

    def parts(self, profile: Profile) -> dict[str, Any]:
        """The keyword arguments of ``TableHardware`` for ``profile``, less the clock."""
        return {
            "readers": {name: self.reader(spec) for name, spec in profile.readers.items()},
            "keys": self.keys(profile.keys),
            "lights": {s.number: self.light(s.number, s.light) for s in profile.seats},
            "blinds": self.blinds(profile.blinds_display),
            "shot_clock": self.shot_clock(profile.shot_clock),
            "dealer_display": self.dealer_display(profile.dealer_display),
            "buzzer": self.buzzer(profile.buzzer),
            "seat_link": self.seat_link,
        }

    def build(self, profile: Profile, clock: Clock | None = None) -> TableHardware:
        """The table ``profile`` describes, on ``clock`` (``time.monotonic`` by default)."""
        return TableHardware(profile, clock=clock or time.monotonic, **self.parts(profile))
