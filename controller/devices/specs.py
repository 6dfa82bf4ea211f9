"""A board profile as frozen data: the specs of its readers, lights, displays and buzzer.

``profile.py`` reads a profile's TOML into these; the backends build parts from them. This
module imports nothing of the device layer, so every other module may import it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

DEFAULT_BACKEND = "real"  # a profile that names no backend is built on the Pi's hardware


@dataclass(frozen=True, slots=True)
class ReaderSpec:
    """One card reader: an antenna on the Pi's SPI/I2C, on a seat node, or a mock."""

    name: str
    kind: str
    line: int
    bus: str | None = None
    cs: int | None = None
    cs_pin: int | None = None
    address: int | None = None
    mux: int | None = None  # I2C address of a TCA9548A the reader sits behind
    channel: int | None = None  # its channel on that mux
    reset_pin: int | None = None
    port: str | None = None
    node: int | None = None
    slot: str = "cards"
    multi_tag: bool = True
    key_lines: tuple[tuple[str, int], ...] = ()  # (key, line) of each key given in the file

    def line_of(self, key: str) -> int:
        """The line of ``key`` in the file, or of the reader's table if it was not given."""
        return dict(self.key_lines).get(key, self.line)


@dataclass(frozen=True, slots=True)
class LightSpec:
    """A seat's action light."""

    kind: str
    line: int
    pin: int | None = None
    port: str | None = None
    node: int | None = None


@dataclass(frozen=True, slots=True)
class SeatSpec:
    """One seat: hole-card reader, action light, player-card reader."""

    number: int
    cards: ReaderSpec
    light: LightSpec
    player: ReaderSpec
    line: int


@dataclass(frozen=True, slots=True)
class DisplaySpec:
    """The button-and-blinds or the shot-clock display."""

    kind: str
    line: int
    bus: str | None = None
    address: int | None = None
    cs: int | None = None
    key_lines: tuple[tuple[str, int], ...] = ()  # (key, line) of each key given in the file

    def line_of(self, key: str) -> int:
        """The line of ``key`` in the file, or of the display's table if it was not given."""
        return dict(self.key_lines).get(key, self.line)


@dataclass(frozen=True, slots=True)
class KeypadSpec:
    """The dealer's USB keypad: read with evdev at ``device`` (a ``/dev/input/by-id/``
    path), its keys named by the key map ``map`` (``hardware/keypads/<map>.toml``).
    ``kind = "mock"``: no device is opened (the virtual table; tests pass a fake)."""

    kind: str
    line: int
    map: str
    device: str | None = None


@dataclass(frozen=True, slots=True)
class BuzzerSpec:
    """The buzzer (an active buzzer on a GPIO pin)."""

    kind: str
    line: int
    pin: int | None = None


@dataclass(frozen=True, slots=True)
class DebounceSpec:
    """Card debouncing and polling times, in seconds."""

    stable_s: float = 0.03
    gone_s: float = 0.5
    poll_s: float = 0.02


@dataclass(frozen=True, slots=True)
class Profile:
    """A table build: validated, frozen. ``readers`` maps reader names to their specs."""

    name: str
    description: str
    source: str
    seats: tuple[SeatSpec, ...]
    board: tuple[ReaderSpec, ...]
    muck: ReaderSpec
    deck: ReaderSpec
    keys: Mapping[str, int]
    key_lines: Mapping[str, int]
    blinds_display: DisplaySpec
    shot_clock: DisplaySpec
    buzzer: BuzzerSpec
    debounce: DebounceSpec = field(default_factory=DebounceSpec)
    backend: str = DEFAULT_BACKEND  # the backend that builds it (``backends.names()``)
    keypad: KeypadSpec | None = None  # None: no keypad (the tablet alone)
    # the dealer's display beside the keypad; a profile without one gets a stand-in
    dealer_display: DisplaySpec = field(default_factory=lambda: DisplaySpec("mock", 0))

    @property
    def seat_count(self) -> int:
        return len(self.seats)

    @property
    def readers(self) -> dict[str, ReaderSpec]:
        out = {s.cards.name: s.cards for s in self.seats}
        out.update({s.player.name: s.player for s in self.seats})
        out.update({r.name: r for r in self.board})
        out[self.muck.name] = self.muck
        out[self.deck.name] = self.deck
        return out
