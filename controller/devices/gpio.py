"""gpiozero backends: dealer console keys, seat LEDs, the buzzer.

Each asks gpiozero for its pins through the ``pin_factory`` it is given (the real backend
passes ``default_pin_factory()``; the mock backend a ``MockFactory``), so the same classes
run on the table and in the tests. gpiozero's errors become ``DeviceError``s here.
"""

from __future__ import annotations

import contextlib
import logging
import os
import warnings
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from gpiozero import LED, PWMLED, Device, DigitalInputDevice
from gpiozero import Buzzer as _GpioZeroBuzzer
from gpiozero.exc import BadPinFactory, GPIOZeroError

from .errors import BusAbsentError, PinBusyError, UnknownDeviceError
from .events import KeyEvent, KeyPressed, KeyReleased
from .interfaces import BeepPattern, LightMode, LightState

BLINK_ON_S = 0.25
BLINK_OFF_S = 0.25
GPIO_CHIP = "/dev/gpiochip0"

log = logging.getLogger(__name__)


def default_pin_factory() -> Any:
    """gpiozero's default pin factory (lgpio on a Pi), or a ``BusAbsentError`` saying why
    there is none. gpiozero's fall-back warnings go to the log, not the terminal."""
    with warnings.catch_warnings(record=True) as fallbacks:
        warnings.simplefilter("always")
        try:
            Device.ensure_pin_factory()
        except BadPinFactory:
            why = f"{GPIO_CHIP} missing" if not os.path.exists(GPIO_CHIP) else "no pin library"
            raise BusAbsentError(
                f"GPIO is not available ({why}; gpiozero found no pin factory): on a Pi, "
                "install lgpio (sudo apt install python3-lgpio); off a Pi, run with "
                "--profile virtual"
            ) from None
    for fallback in fallbacks:
        log.info("gpiozero: %s", fallback.message)
    return Device.pin_factory


@contextlib.contextmanager
def claiming(pin: int, what: str) -> Iterator[None]:
    """Around opening a gpiozero device on ``pin``: its errors become ``DeviceError``s."""
    try:
        yield
    except BadPinFactory:
        default_pin_factory()  # raises the one-line BusAbsentError
        raise
    except (GPIOZeroError, OSError) as exc:
        raise PinBusyError(
            f"GPIO{pin} for {what} cannot be claimed ({exc}): stop the program or overlay "
            "that holds it, or move it to a free GPIO in the profile"
        ) from None


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
        try:
            for name, pin in pins.items():
                with claiming(pin, f"key {name!r}"):
                    button = DigitalInputDevice(
                        pin, pull_up=True, bounce_time=bounce_s, pin_factory=pin_factory
                    )
                button.when_activated = _callback(on_event, KeyPressed(name))
                button.when_deactivated = _callback(on_event, KeyReleased(name))
                self._buttons[name] = button
        except BaseException:
            self.close()  # the keys opened so far give their pins back
            raise

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

    def __init__(
        self, pin: int, *, pwm: bool = False, pin_factory: Any = None, what: str = "a light"
    ) -> None:
        with claiming(pin, what):
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
        with claiming(pin, "the buzzer"):
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
