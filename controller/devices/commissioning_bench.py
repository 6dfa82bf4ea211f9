"""The parts of a table being commissioned, each opened on its own, and where each is wired.

Why not ``backends.open_devices``: a table being commissioned is exactly where a part is
missing or miswired, and ``open_devices`` stops at the first one. ``open_bench`` asks the
backend for one part at a time (``PartMaker``: the real backend and the mock build parts
that way); a part that cannot be opened is kept as a failed step naming its pin, bus or
port (``reader_where``, ``key_where``...), and the walk (``commissioning.py``) goes on
with the rest.
"""

from __future__ import annotations

import contextlib
from collections import deque
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Protocol, TypeVar, runtime_checkable

from . import pins
from .commissioning_report import Status, Step
from .errors import DeviceError
from .events import KeyEvent
from .interfaces import (
    BlindsDisplay,
    Buzzer,
    CardReader,
    DealerDisplay,
    DealerKeys,
    SeatLight,
    SeatNodeLink,
    ShotClockDisplay,
)
from .keypad import KeyDown
from .seatnodes import SeatNodeReader, SeatNodeRing
from .specs import BuzzerSpec, DisplaySpec, LightSpec, Profile, ReaderSpec

T = TypeVar("T")


# ------------------------------------------------------------------ where a part is wired
def gpio_at(pin: int | None) -> str:
    return "no GPIO" if pin is None else f"GPIO{pin} (pin {pins.HEADER_PIN.get(pin, '?')})"


def reader_where(spec: ReaderSpec, path: str | None = None) -> str:
    if spec.kind == "mfrc522":
        cs = f"CE{spec.cs}" if spec.cs is not None else f"CS {gpio_at(spec.cs_pin)}"
        return f"MFRC522 on {spec.bus}, {cs}"
    if spec.kind == "pn532":
        via = f" via mux 0x{spec.mux:02X} channel {spec.channel}" if spec.mux is not None else ""
        return f"PN532 on {spec.bus} 0x{spec.address or 0:02X}{via}"
    if spec.kind == "seatnode":
        return f"seat node {spec.node} on {node_port(spec.port, path)}, {spec.slot} antenna"
    return "mock"


def light_where(spec: LightSpec, path: str | None = None) -> str:
    if spec.kind in ("led", "pwm_led"):
        return f"LED on {gpio_at(spec.pin)}"
    if spec.kind == "seatnode_ring":
        return f"LED ring of seat node {spec.node} on {node_port(spec.port, path)}"
    return "mock"


def display_where(spec: DisplaySpec) -> str:
    if spec.address is not None:
        return f"{spec.kind.upper()} on {spec.bus} 0x{spec.address:02X}"
    if spec.bus is not None:
        return f"{spec.kind.upper()} on {spec.bus} CE{spec.cs}"
    return "mock"


def buzzer_where(spec: BuzzerSpec) -> str:
    return f"buzzer on {gpio_at(spec.pin)}" if spec.kind == "gpio" else "mock"


def key_where(pin: int) -> str:
    return f"{gpio_at(pin)} to GND"


def node_port(port: str | None, path: str | None) -> str:
    return f"{port} (opened as {path})" if path and path != port else str(port)


def one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())


# ------------------------------------------------------------------ opening the parts
@runtime_checkable
class PartMaker(Protocol):
    """A backend that builds one part at a time (``hardware.RealBackend`` and the mock)."""

    def reader(self, spec: ReaderSpec) -> CardReader: ...

    def light(self, seat: int, spec: LightSpec) -> SeatLight: ...

    def blinds(self, spec: DisplaySpec) -> BlindsDisplay: ...

    def shot_clock(self, spec: DisplaySpec) -> ShotClockDisplay: ...

    def buzzer(self, spec: BuzzerSpec) -> Buzzer: ...

    def keys(
        self, pins: Mapping[str, int]
    ) -> Callable[[Callable[[KeyEvent], None]], DealerKeys]: ...


class NodeLine(Protocol):
    """What the firmware check reads of one seat node's line (``seatlink.SeatNodeLink``)."""

    @property
    def seat(self) -> int | None: ...

    @property
    def firmware(self) -> tuple[int, int, int] | None: ...


@dataclass(frozen=True)
class SeatLines:
    """The seat-node lines opened for a profile: by the profile's port name, the line, or
    why it did not open, and the device actually opened (``--seat-ports``)."""

    link: SeatNodeLink  # the device-layer seam over every open line (``SeatNodeLinks``)
    lines: Mapping[str, NodeLine]
    errors: Mapping[str, str]
    paths: Mapping[str, str]


@dataclass(frozen=True)
class KeypadCheck:
    """The dealer's USB keypad, as the command opens it: where it is, the keys its map
    names (in the map's order, with their keycaps), and its key presses (``read()``
    opens it; a ``DeviceError`` there names the device path)."""

    where: str
    keys: tuple[tuple[str, str], ...]  # (key, keycap)
    read: Callable[[], AsyncIterator[KeyDown]]


class Bench:
    """One table's parts, each opened on its own. A part that failed to open is kept as
    its failed step, and the walk reports it where the part's check would have run."""

    def __init__(self, profile: Profile, backend: str, lines: SeatLines | None,
                 keypad: KeypadCheck | None = None) -> None:
        self.profile = profile
        self.backend = backend
        self.lines = lines
        self.keypad = keypad
        self.readers: dict[str, CardReader] = {}
        self.keys: dict[str, DealerKeys] = {}
        self.lights: dict[int, SeatLight] = {}
        self.blinds: BlindsDisplay | None = None
        self.shot_clock: ShotClockDisplay | None = None
        self.buzzer: Buzzer | None = None
        self.dealer_display: DealerDisplay | None = None  # only when the profile has one
        self.unopened: dict[str, Step] = {}  # part -> why it could not be opened
        self.key_events: deque[KeyEvent] = deque()  # appended from gpiozero's thread

    def path(self, port: str | None) -> str | None:
        return None if self.lines is None or port is None else self.lines.paths.get(port)

    def open(self, part: str, where: str, make: Callable[[], T]) -> T | None:
        try:
            return make()
        except DeviceError as exc:
            self.unopened[part] = Step(
                part, "open", Status.FAIL, f"cannot be opened: {one_line(exc)}", where
            )
            return None

    def close(self) -> None:
        parts: list[object] = [*self.readers.values(), *self.keys.values()]
        parts += [*self.lights.values(), self.blinds, self.shot_clock, self.buzzer,
                  self.dealer_display]
        for part in parts:
            close = getattr(part, "close", None)
            if close is not None:
                with contextlib.suppress(Exception):
                    close()


def _seat_node_part(bench: Bench, port: str | None) -> SeatNodeLink | None:
    """The link for a part on the seat node at ``port``, or None (its open step says why)."""
    lines = bench.lines
    assert lines is not None and port is not None
    if port in lines.lines:
        return lines.link
    return None


def open_bench(
    profile: Profile, maker: PartMaker, *, backend: str, lines: SeatLines | None = None,
    keypad: KeypadCheck | None = None,
) -> Bench:
    """Open every part ``profile`` names through ``maker``, one at a time.

    Parts on seat nodes use ``lines`` when given (the real lines, or simulated nodes
    behind pseudo-terminals); without them they are whatever ``maker`` builds (the mock
    backend's stand-ins; the real backend refuses, naming the port). The USB keypad is
    opened by the walk itself (``keypad``), as it is read on the event loop."""
    bench = Bench(profile, backend, lines, keypad)
    for name, spec in profile.readers.items():
        part, where = f"reader {name}", reader_where(spec, bench.path(spec.port))
        if spec.kind == "seatnode" and lines is not None:
            link = _seat_node_part(bench, spec.port)
            if link is None:
                why = lines.errors.get(str(spec.port), "not opened")
                bench.unopened[part] = Step(
                    part, "open", Status.SKIP, f"its seat node's line is not open ({why})", where
                )
                continue
            assert spec.node is not None
            bench.readers[name] = SeatNodeReader(name, link, spec.node, spec.slot)
            continue
        reader = bench.open(part, where, partial(maker.reader, spec))
        if reader is not None:
            bench.readers[name] = reader
    for key, pin in profile.keys.items():
        # one key at a time: a key whose GPIO cannot be claimed is named, the others open
        opened = bench.open(f"key '{key}'", key_where(pin), partial(_open_key, maker, key, pin,
                                                                     bench.key_events.append))
        if opened is not None:
            bench.keys[key] = opened
    for seat in profile.seats:
        part = f"seat {seat.number} light"
        where = light_where(seat.light, bench.path(seat.light.port))
        if seat.light.kind == "seatnode_ring" and lines is not None:
            link = _seat_node_part(bench, seat.light.port)
            if link is None:
                bench.unopened[part] = Step(
                    part, "open", Status.SKIP, "its seat node's line is not open", where
                )
                continue
            assert seat.light.node is not None
            bench.lights[seat.number] = SeatNodeRing(link, seat.light.node)
            continue
        light = bench.open(part, where, partial(maker.light, seat.number, seat.light))
        if light is not None:
            bench.lights[seat.number] = light
    blinds, clock, buzzer = profile.blinds_display, profile.shot_clock, profile.buzzer
    bench.blinds = bench.open("blinds display", display_where(blinds),
                              partial(maker.blinds, blinds))
    bench.shot_clock = bench.open("shot clock", display_where(clock),
                                  partial(maker.shot_clock, clock))
    bench.buzzer = bench.open("buzzer", buzzer_where(buzzer), partial(maker.buzzer, buzzer))
    dealer = profile.dealer_display
    make_dealer = getattr(maker, "dealer_display", None)
    if has_dealer_display(profile) and make_dealer is not None:
        bench.dealer_display = bench.open("dealer display", display_where(dealer),
                                          partial(make_dealer, dealer))
    return bench


def has_dealer_display(profile: Profile) -> bool:
    """The profile names a dealer display (one it does not name is a stand-in, not checked)."""
    spec = profile.dealer_display
    return spec.kind != "mock" or spec.line > 0


def _open_key(
    maker: PartMaker, key: str, pin: int, emit: Callable[[KeyEvent], None]
) -> DealerKeys:
    return maker.keys({key: pin})(emit)


def seat_node_ports(profile: Profile) -> dict[str, int]:
    """Each seat-node port the profile names, with the node id it expects there."""
    out: dict[str, int] = {}
    for seat in profile.seats:
        for spec in (seat.cards, seat.player, seat.light):
            if spec.kind in ("seatnode", "seatnode_ring") and spec.port and spec.node:
                out.setdefault(spec.port, spec.node)
    return out
