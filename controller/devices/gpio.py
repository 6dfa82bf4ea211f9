"""gpiozero backends: dealer console keys, seat LEDs, the buzzer.

Each asks gpiozero for its pins through the ``pin_factory`` it is given (``None`` means
gpiozero's default; the mock backend passes a ``MockFactory``), so the same classes run
on the table and in the tests.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from gpiozero import LED, PWMLED, DigitalInputDevice
from gpiozero import Buzzer as _GpioZeroBuzzer

from .errors import UnknownDeviceError
from .events import KeyEvent, KeyPressed, KeyReleased
from .interfaces import BeepPattern, LightMode, LightState

BLINK_ON_S = 0.25
BLINK_OFF_S = 0.25


class GpioKeys:
    """The dealer console: one push button per key, to ground, internal pull-ups.

    Each key is a ``DigitalInputDevice``, not a gpiozero ``Button``: a ``Button`` starts a
    hold thread per key (for ``when_held``, which the console does not use) that polls
    every 0.1 s and, while its key is down, sleeps the whole ``hold_time`` (1 s) without
    looking at its stop flag, so closing a console took up to 0.1 s per key, and a full
    second with a key held. The events and the bounce filter are the same.
    """

    def __init__(
        self,
        pins: Mapping[str, int],
        on_event: Callable[[KeyEvent], None],
        *,
        pin_factory: Any = None,
        bounce_s: float | None = 0.02,
    ) -> None:
        self.names = tuple(pins)
        self._buttons: dict[str, DigitalInputDevice] = {}
        for name, pin in pins.items():
            button = DigitalInputDevice(
                pin, pull_up=True, bounce_time=bounce_s, pin_factory=pin_factory
            )
            button.when_activated = _callback(on_event, KeyPressed(name))
            button.when_deactivated = _callback(on_event, KeyReleased(name))
            self._buttons[name] = button

    def button(self, key: str) -> DigitalInputDevice:
        try:
            return self._buttons[key]
        except KeyError:
            raise UnknownDeviceError(
                f"no dealer key {key!r}; this table has {', '.join(self.names)}"
            ) from None

    def is_pressed(self, key: str) -> bool:
        return bool(self.button(key).is_active)

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
