"""Opening the Pi's buses for the real backends. spidev and smbus2 are imported lazily:
they only exist (and only work) on a Linux board with the buses enabled."""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any, Protocol

from . import pins
from .errors import DeviceAbsentError, DriverMissingError


def _vendor(module: str, package: str, what: str) -> ModuleType:
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise DriverMissingError(
            f"{what} needs the `{package}` package ({exc}): `pip install {package}` on the Pi, "
            "or use the mock backend (profile `virtual`)"
        ) from None


def open_spi(bus: str, cs: int, *, max_hz: int = 1_000_000, no_cs: bool = False) -> Any:
    """An open ``spidev.SpiDev`` on ``spi0``/``spi1``, chip select ``cs`` (mode 0)."""
    spidev = _vendor("spidev", "spidev", f"SPI bus {bus}")
    dev = spidev.SpiDev()
    try:
        dev.open(pins.spi_device(bus), cs)
    except OSError as exc:
        raise DeviceAbsentError(
            f"cannot open /dev/spidev{pins.spi_device(bus)}.{cs} ({exc}): enable SPI "
            f"(raspi-config, or dtparam=spi=on / dtoverlay={bus}-1cs in config.txt)"
        ) from None
    dev.max_speed_hz = max_hz
    dev.mode = 0
    if no_cs:
        dev.no_cs = True
    return dev


def open_i2c(bus: str) -> Any:
    """An open ``smbus2.SMBus`` on ``i2c1``..``i2c6``."""
    smbus2 = _vendor("smbus2", "smbus2", f"I2C bus {bus}")
    try:
        return smbus2.SMBus(pins.i2c_device(bus))
    except OSError as exc:
        raise DeviceAbsentError(
            f"cannot open /dev/i2c-{pins.i2c_device(bus)} ({exc}): enable I2C "
            f"(raspi-config, or dtparam=i2c_arm=on / dtoverlay={bus.replace('c', 'c-', 1)})"
        ) from None


class _Output(Protocol):
    def on(self) -> None: ...

    def off(self) -> None: ...


class GpioChipSelectSpi:
    """An SPI bus whose chip select is a GPIO (many readers on one bus): spidev's ``xfer2``."""

    def __init__(self, spi: Any, select: _Output) -> None:
        self.spi = spi
        self.select = select  # active-low output: on() pulls the line low
        self.select.off()

    def xfer2(self, data: list[int]) -> list[int]:
        self.select.on()
        try:
            return list(self.spi.xfer2(data))
        finally:
            self.select.off()


class I2CDevice:
    """Raw reads/writes at one I2C address, behind a TCA9548A channel if given."""

    def __init__(self, bus: Any, address: int, *, mux: int | None = None, channel: int = 0):
        self.bus = bus
        self.address = address
        self.mux = mux
        self.channel = channel
        self._msg = _vendor("smbus2", "smbus2", "I2C").i2c_msg

    def _select(self) -> None:
        if self.mux is not None:
            self.bus.write_byte(self.mux, 1 << self.channel)

    def write(self, data: bytes) -> None:
        self._select()
        self.bus.i2c_rdwr(self._msg.write(self.address, data))

    def read(self, n: int) -> bytes:
        self._select()
        msg = self._msg.read(self.address, n)
        self.bus.i2c_rdwr(msg)
        return bytes(msg)
