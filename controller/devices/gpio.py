"""gpiozero backends: dealer console keys, seat LEDs, the buzzer.

Each asks gpiozero for its pins through the ``pin_factory`` it is given (``None`` means
gpiozero's default; the mock backend passes a ``MockFactory``), so the same classes run
on the table and in the tests.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from gpiozero import LED, PWMLED, Button
from gpiozero import Buzzer as _GpioZeroBuzzer

from .errors import UnknownDeviceError
from .events import KeyEvent, KeyPressed, KeyReleased
from .interfaces import BeepPattern, LightMode, LightState

BLINK_ON_S = 0.25
BLINK_OFF_S = 0.25


class GpioKeys:
    """The dealer console: one push button per key, to ground, internal pull-ups."""

    def __init__(
        self,
        pins: Mapping[str, int],
        on_event: Callable[[KeyEvent], None],
        *,
        pin_factory: Any = None,
        bounce_s: float | None = 0.02,
    ) -> None:
        self.names = tuple(pins)
        self._buttons: dict[str, Button] = {}
        for name, pin in pins.items():
            button = Button(pin, pull_up=True, bounce_time=bounce_s, pin_factory=pin_factory)
            button.when_pressed = _callback(on_event, KeyPressed(name))
            button.when_released = _callback(on_event, KeyReleased(name))
            self._buttons[name] = button

    def button(self, key: str) -> Button:
        try:
            return self._buttons[key]
        except KeyError:
            raise UnknownDeviceError(
                f"no dealer key {key!r}; this table has {', '.join(self.names)}"
            ) from None

    def is_pressed(self, key: str) -> bool:
        return bool(self.button(key).is_pressed)

    def close(self) -> None:
        for button in self._buttons.values():
            button.close()


def _callback(on_event: Callable[[KeyEvent], None], event: KeyEvent) -> Callable[[], None]:
    def fire() -> None:
        on_event(event)

    return fire


class GpioLight:
    """A seat's action light on one GPIO (``pwm`` for a dimmable LED). Colour is ignored."""

    def __init__(self, pin: int, *, pwm: bool = False, pin_factory: Any = None) -> None:
        self.device: LED | PWMLED = (
            PWMLED(pin, pin_factory=pin_factory) if pwm else LED(pin, pin_factory=pin_factory)
        )
        self._state = LightState.off()

    @property
    def state(self) -> LightState:
        return self._state

    def set(self, state: LightState) -> None:
        if state.mode is LightMode.OFF:
            self.device.off()
        elif state.mode is LightMode.ON:
            self.device.on()
        else:
            self.device.blink(on_time=BLINK_ON_S, off_time=BLINK_OFF_S)
        self._state = state

    def close(self) -> None:
        self.device.close()


class GpioBuzzer:
    """An active buzzer on one GPIO; patterns play on gpiozero's background thread."""

    def __init__(self, pin: int, *, pin_factory: Any = None) -> None:
        self.device = _GpioZeroBuzzer(pin, pin_factory=pin_factory)
        self.played: list[BeepPattern] = []

    def beep(self, pattern: BeepPattern) -> None:
        self.played.append(pattern)
        self.device.blink(
            on_time=pattern.on_s, off_time=pattern.off_s or 0.01, n=pattern.count, background=True
        )

    def silence(self) -> None:
        self.device.off()

    def close(self) -> None:
        self.device.close()
