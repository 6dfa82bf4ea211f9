"""The device layer's exception tree: each error says what went wrong and what to do."""

from __future__ import annotations


class DeviceError(Exception):
    """Base of every error the device layer raises."""


class ProfileError(DeviceError, ValueError):
    """A board profile that cannot describe a real table; names the line and the fix."""

    def __init__(self, problem: str, *, fix: str, source: str = "", line: int | None = None):
        self.problem = problem
        self.fix = fix
        self.source = source
        self.line = line
        where = f"{source}:{line}: " if line is not None else (f"{source}: " if source else "")
        super().__init__(f"{where}{problem}. Fix: {fix}")


class DriverMissingError(DeviceError, ImportError):
    """A vendor library a real backend needs (spidev, smbus2, luma.oled...) is not importable."""


class DeviceAbsentError(DeviceError):
    """A device the profile names does not answer on its bus: unplugged, wrong address, no power."""


class ChipError(DeviceError):
    """A reader chip answered, but wrongly: a bad frame, a checksum, a timeout inside the chip."""


class UnknownDeviceError(DeviceError, KeyError):
    """A reader, key, seat or light name that this table does not have."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""
