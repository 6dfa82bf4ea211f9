"""What the table layer may rely on, whatever the backend: protocols and the values they take.

Backends (``gpio``, ``mfrc522``, ``pn532``, ``displays``, ``mock``) implement these; the
contract suite in ``tests/devices`` runs the same tests over each of them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Protocol, runtime_checkable

Clock = Callable[[], float]
"""A monotonic clock in seconds (``time.monotonic`` on the table, a virtual one in tests)."""

Listener = Callable[[], None]


class Colour(Enum):
    """The colours a seat ring or the shot clock can take (RGB tuples for rendering)."""

    OFF = (0, 0, 0)
    WHITE = (255, 255, 255)
    GREEN = (0, 200, 60)
    AMBER = (255, 170, 0)
    RED = (230, 20, 20)
    BLUE = (40, 110, 255)


class LightMode(Enum):
    """How a seat's action light is lit."""

    OFF = "off"
    ON = "on"
    BLINK = "blink"


@dataclass(frozen=True, slots=True)
class LightState:
    """A seat light's state; plain LEDs ignore the colour."""

    mode: LightMode = LightMode.OFF
    colour: Colour = Colour.WHITE

    @classmethod
    def off(cls) -> LightState:
        return cls(LightMode.OFF, Colour.OFF)

    @classmethod
    def on(cls, colour: Colour = Colour.WHITE) -> LightState:
        return cls(LightMode.ON, colour)

    @classmethod
    def blink(cls, colour: Colour = Colour.WHITE) -> LightState:
        return cls(LightMode.BLINK, colour)


@dataclass(frozen=True, slots=True)
class BeepPattern:
    """``count`` beeps of ``on_s`` seconds separated by ``off_s`` seconds of silence."""

    name: str
    on_s: float
    off_s: float
    count: int

    @property
    def duration_s(self) -> float:
        return self.count * self.on_s + (self.count - 1) * self.off_s


BEEP_SHORT = BeepPattern("short", 0.08, 0.0, 1)
BEEP_WARNING = BeepPattern("warning", 0.1, 0.1, 2)
BEEP_EXPIRED = BeepPattern("expired", 0.5, 0.15, 3)
BEEP_ERROR = BeepPattern("error", 0.05, 0.05, 5)


@dataclass(frozen=True, slots=True)
class BlindsFrame:
    """What the button-and-blinds display shows."""

    level: int
    small_blind: int
    big_blind: int
    ante: int = 0
    button_seat: int | None = None
    seconds_left: int | None = None  # of the level (of the break, on a break)
    on_break: bool = False  # a break is on: no hand starts
    unsynced: bool = False  # the host runs the level clock and has not been heard
    game: str = ""  # the house's game for the players: "NLHE", "PLO", "FLHE 100/200" ("": none)


@dataclass(frozen=True, slots=True)
class ShotClockFrame:
    """What the shot-clock display shows: up to 4 characters, a colour, blinking or not."""

    text: str = ""
    colour: Colour = Colour.GREEN
    blink: bool = False

    @classmethod
    def seconds(cls, s: int, colour: Colour = Colour.GREEN, blink: bool = False) -> ShotClockFrame:
        return cls(str(max(0, min(s, 9999))), colour, blink)


@runtime_checkable
class CardReader(Protocol):
    """One antenna. ``scan()`` returns the UIDs it reads now (raw, not debounced)."""

    name: str
    multi_tag: bool  # True when one scan can report several tags

    def scan(self) -> frozenset[bytes]: ...

    def close(self) -> None: ...


@runtime_checkable
class PushReader(CardReader, Protocol):
    """A reader that says when its contents may have changed, so nobody needs to poll it."""

    def set_listener(self, listener: Listener | None) -> None: ...


class SeatLight(Protocol):
    """A seat's action light (LED pin or the seat node's LED ring)."""

    @property
    def state(self) -> LightState: ...

    def set(self, state: LightState) -> None: ...

    def close(self) -> None: ...


class Buzzer(Protocol):
    """The table's buzzer; ``beep`` returns at once and plays in the background."""

    def beep(self, pattern: BeepPattern) -> None: ...

    def silence(self) -> None: ...

    def close(self) -> None: ...


class BlindsDisplay(Protocol):
    """The button-and-blinds display."""

    @property
    def frame(self) -> BlindsFrame | None: ...

    def show(self, frame: BlindsFrame) -> None: ...

    def close(self) -> None: ...


class ShotClockDisplay(Protocol):
    """The shot-clock display. ``refresh(now)`` advances blinking where the chip cannot blink."""

    @property
    def frame(self) -> ShotClockFrame: ...

    def show(self, frame: ShotClockFrame) -> None: ...

    def refresh(self, now: float) -> None: ...

    def close(self) -> None: ...


class DealerDisplay(Protocol):
    """The small text display beside the dealer's keypad (an SSD1306 128x64): a few lines
    of what the terminal's screen says, the entry being keyed and the last reply."""

    @property
    def lines(self) -> tuple[str, ...]: ...

    def show(self, lines: Sequence[str]) -> None: ...

    def close(self) -> None: ...


class DealerKeys(Protocol):
    """The dealer console: named keys; presses go to the listener given at construction."""

    names: tuple[str, ...]

    def is_pressed(self, key: str) -> bool: ...

    def close(self) -> None: ...


class SeatNodeLink(Protocol):
    """The seam to ``seatlink.py``: what the device layer needs from the seat-node link.

    ``tags(node, slot)`` is the set of UIDs node ``node`` last reported at its ``slot``
    (``"cards"`` or ``"player"``); the link calls each subscribed listener after a frame
    changed any set. ``set_light`` sends a ring state to a node.
    """

    def tags(self, node: int, slot: str) -> frozenset[bytes]: ...

    def subscribe(self, listener: Listener) -> Callable[[], None]: ...

    def set_light(self, node: int, state: LightState) -> None: ...

    def subscribe_status(self, listener: Callable[[int, bool], None]) -> Callable[[], None]:
        """Call ``listener(node, online)`` when a node comes online or goes offline."""
        ...
