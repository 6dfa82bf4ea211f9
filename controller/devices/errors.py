"""The device layer's exception tree: each error says what went wrong and what to do.

Everything the layer raises is a ``DeviceError``; vendor errors (spidev's and smbus2's
``OSError``, gpiozero's ``BadPinFactory``, a missing library's ``ImportError``) are
converted where the layer calls them (``raise ... from None``), so a command can print any
of them as one line.
"""

from __future__ import annotations


class DeviceError(Exception):
    """Base of every error the device layer raises."""


class ProfileError(DeviceError, ValueError):
    """A board profile that is missing or cannot describe a real table; says where and the fix."""

    def __init__(self, problem: str, *, fix: str, source: str = "", line: int | None = None):
        self.problem = problem
        self.fix = fix
        self.source = source
        self.line = line
        where = f"{source}:{line}: " if line is not None else (f"{source}: " if source else "")
        super().__init__(f"{where}{problem}. Fix: {fix}")


class UnknownBackendError(DeviceError, LookupError):
    """A backend name that no backend is registered under; lists the names that are."""


class DriverMissingError(DeviceError, ImportError):
    """A vendor library a backend needs (gpiozero, spidev, smbus2, luma...) is not importable."""


class DeviceAbsentError(DeviceError):
    """A device the profile names does not answer on its bus: unplugged, wrong address, no power."""


class BusAbsentError(DeviceAbsentError):
    """An SPI or I2C bus or the GPIO chip is not on this machine: not a Pi, or not enabled."""


class PinBusyError(DeviceError):
    """A GPIO the profile names cannot be claimed: another device or program holds it."""


class SeatLinkMissingError(DeviceError):
    """The profile puts parts on seat nodes, but no seat-node link was opened for them."""


class ChipError(DeviceError):
    """A reader chip answered, but wrongly: a bad frame, a checksum, a timeout inside the chip."""


class UnknownDeviceError(DeviceError, KeyError):
    """A reader, key, seat or light name that this table does not have."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""
