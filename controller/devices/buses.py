"""Opening the Pi's buses for the real backends. spidev and smbus2 are imported lazily:
they only exist (and only work) on a Linux board with the buses enabled. Their errors
become one-line ``DeviceError``s that say how to enable the bus."""

from __future__ import annotations

import errno
import importlib
from types import ModuleType
from typing import Any, Protocol

from . import pins
from .errors import BusAbsentError, DeviceError, DriverMissingError

OFF_A_PI = "or run with --profile virtual off a Pi"


def vendor(module: str, package: str, what: str) -> ModuleType:
    """Import a driver library, or raise ``DriverMissingError`` naming the package."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise DriverMissingError(
            f"{what} needs the `{package}` package, which is not installed ({exc}): "
            f"pip install {package} on the Pi, {OFF_A_PI}"
        ) from None


def spi_unavailable(bus: str, cs: int, exc: OSError, *, no_cs: bool = False) -> DeviceError:
    """The error for ``/dev/spidevN.M`` failing to open with ``exc``."""
    n = pins.spi_device(bus)
    path = f"/dev/spidev{n}.{cs}"
    if exc.errno == errno.EACCES:
        return BusAbsentError(
            f"no permission to open {path}: add the user to the spi group "
            "(sudo adduser $USER spi) and log in again"
        )
    setting = "dtparam=spi=on" if bus == "spi0" and not no_cs else f"dtoverlay={bus}-1cs"
    why = "missing" if exc.errno == errno.ENOENT else (exc.strerror or str(exc))
    return BusAbsentError(
        f"SPI bus {n} is not available ({path} {why}): enable SPI with raspi-config "
        f"({setting} in config.txt) and reboot, {OFF_A_PI}"
    )


def i2c_unavailable(bus: str, exc: OSError) -> DeviceError:
    """The error for ``/dev/i2c-N`` failing to open with ``exc``."""
    n = pins.i2c_device(bus)
    path = f"/dev/i2c-{n}"
    if exc.errno == errno.EACCES:
        return BusAbsentError(
            f"no permission to open {path}: add the user to the i2c group "
            "(sudo adduser $USER i2c) and log in again"
        )
    setting = "dtparam=i2c_arm=on" if bus == "i2c1" else f"dtoverlay={bus}"
    why = "missing" if exc.errno == errno.ENOENT else (exc.strerror or str(exc))
    return BusAbsentError(
        f"I2C bus {n} is not available ({path} {why}): enable I2C with raspi-config "
        f"({setting} in config.txt) and reboot, {OFF_A_PI}"
    )


def open_spi(bus: str, cs: int, *, max_hz: int = 1_000_000, no_cs: bool = False) -> Any:
    """An open ``spidev.SpiDev`` on ``spi0``/``spi1``, chip select ``cs`` (mode 0)."""
    spidev = vendor("spidev", "spidev", f"SPI bus {bus}")
    dev = spidev.SpiDev()
    try:
        dev.open(pins.spi_device(bus), cs)
    except OSError as exc:
        raise spi_unavailable(bus, cs, exc, no_cs=no_cs) from None
    dev.max_speed_hz = max_hz
    dev.mode = 0
    if no_cs:
        dev.no_cs = True
    return dev


def open_i2c(bus: str) -> Any:
    """An open ``smbus2.SMBus`` on ``i2c1``..``i2c6``."""
    smbus2 = vendor("smbus2", "smbus2", f"I2C bus {bus}")
    try:
        return smbus2.SMBus(pins.i2c_device(bus))
    except OSError as exc:
        raise i2c_unavailable(bus, exc) from None


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
        self._msg = vendor("smbus2", "smbus2", "I2C").i2c_msg

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
