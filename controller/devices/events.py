"""What the table's hardware reports: frozen dataclasses, one per kind of happening."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class CardArrived:
    """A tag has been read stably at ``reader`` (e.g. ``seat3``, ``board1``, ``muck``)."""

    reader: str
    uid: bytes


@dataclass(frozen=True, slots=True)
class CardLeft:
    """A tag that had arrived at ``reader`` has been missing for the configured time."""

    reader: str
    uid: bytes


@dataclass(frozen=True, slots=True)
class KeyPressed:
    """A dealer console key went down."""

    key: str


@dataclass(frozen=True, slots=True)
class KeyReleased:
    """A dealer console key came back up."""

    key: str


@dataclass(frozen=True, slots=True)
class SeatNodeOffline:
    """The seat node at ``seat`` missed its heartbeats: its readers and ring are not heard."""

    seat: int


@dataclass(frozen=True, slots=True)
class SeatNodeOnline:
    """The seat node at ``seat`` said hello (again): its readers and ring work."""

    seat: int


CardEvent = CardArrived | CardLeft
KeyEvent = KeyPressed | KeyReleased
NodeEvent = SeatNodeOffline | SeatNodeOnline
DeviceEvent = CardArrived | CardLeft | KeyPressed | KeyReleased | SeatNodeOffline | SeatNodeOnline
