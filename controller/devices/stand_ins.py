"""Stand-ins: the parts a profile marks ``kind = "mock"`` (a reader where tags are placed by
hand, a light and a buzzer that remember, displays that draw into memory).

Every backend builds a profile's mock kinds from here: the real backend for the odd part
a build leaves out (a table without a buzzer), the mock backend (``mock.py``) for all of
them. Imports only the interfaces and the display rendering.
"""

from __future__ import annotations

from typing import Any

from .displays import LumaBlindsDisplay, LumaDealerDisplay, LumaShotClock
from .errors import DriverMissingError
from .interfaces import BeepPattern, LightState, Listener


class MockCardReader:
    """An antenna where tests place and lift tags. A push reader: it says when it changed."""

    def __init__(self, name: str, *, multi_tag: bool = True) -> None:
        self.name = name
        self.multi_tag = multi_tag
        self.tags: list[bytes] = []  # in placing order
        self.scans = 0
        self.dropouts = 0  # the next n scans read nothing (a noisy field)
        self._listener: Listener | None = None

    def place(self, uid: bytes) -> None:
        if uid not in self.tags:
            self.tags.append(uid)
        self._changed()

    def lift(self, uid: bytes) -> None:
        if uid in self.tags:
            self.tags.remove(uid)
        self._changed()

    def _changed(self) -> None:
        if self._listener is not None:
            self._listener()

    def scan(self) -> frozenset[bytes]:
        self.scans += 1
        if self.dropouts:
            self.dropouts -= 1
            return frozenset()
        # a single-tag reader reads only the first tag placed
        return frozenset(self.tags if self.multi_tag else self.tags[:1])

    def set_listener(self, listener: Listener | None) -> None:
        self._listener = listener

    def close(self) -> None:
        self._listener = None


class MockSeatLight:
    """A seat light that remembers its state (for lights that are not on a GPIO)."""

    def __init__(self) -> None:
        self._state = LightState.off()
        self.history: list[LightState] = []

    @property
    def state(self) -> LightState:
        return self._state

    def set(self, state: LightState) -> None:
        self._state = state
        self.history.append(state)

    def close(self) -> None:
        pass


class MockBuzzer:
    """A buzzer that remembers what it played."""

    def __init__(self) -> None:
        self.played: list[BeepPattern] = []
        self.silenced = 0

    def beep(self, pattern: BeepPattern) -> None:
        self.played.append(pattern)

    def silence(self) -> None:
        self.silenced += 1

    def close(self) -> None:
        pass


def _dummy(width: int = 128, height: int = 64) -> Any:
    try:
        from luma.core.device import dummy
    except ImportError as exc:
        raise DriverMissingError(
            f"the mock displays need `luma.core` ({exc}): pip install luma.core"
        ) from None
    return dummy(width=width, height=height, mode="RGB")


def mock_blinds_display() -> LumaBlindsDisplay:
    """The button-and-blinds frame drawn into ``luma.core``'s dummy device (saveable as PNG)."""
    return LumaBlindsDisplay(_dummy())


def mock_shot_clock() -> LumaShotClock:
    """The shot clock drawn into ``luma.core``'s dummy device (saveable as PNG)."""
    return LumaShotClock(_dummy())


def mock_dealer_display() -> LumaDealerDisplay:
    """The dealer's display drawn into ``luma.core``'s dummy device (saveable as PNG)."""
    return LumaDealerDisplay(_dummy())
