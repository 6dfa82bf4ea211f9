"""The dealer's USB keypad, read with python-evdev: key-down events in, key names out.

A USB keypad is a keyboard to Linux: its key codes would type into a console and into
whatever has the focus. The reader opens it by its stable path
(``/dev/input/by-id/usb-...-event-kbd``) and *grabs* it, so its keys reach pitboss alone;
it reads the kernel's events with ``async_read_loop()`` and yields a :class:`KeyDown` for
each key pressed (value 1; auto-repeats, value 2, and releases, value 0, are dropped: a
held key is one press). Which key is which is the key map's business
(``controller.terminal.keymap``): the reader takes a ``{code: name}`` mapping.

Failures are :class:`~controller.devices.errors.DeviceError`s that say what to do: no
keypad at the path, no permission to read it, another program holding it. A keypad
unplugged while the table runs is reported through ``on_status`` and opened again when it
comes back (a dealer knocks the cable; the table must not stop).

Opening is injectable (``opener``): tests pass a fake device that yields real
``evdev.InputEvent``\\ s.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import re
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from .errors import DeviceAbsentError, DeviceError, DriverMissingError

log = logging.getLogger("pitboss.devices.keypad")

EV_KEY = 0x01  # linux/input-event-codes.h: a key or button event
KEY_DOWN = 1  # its value: 1 pressed, 0 released, 2 auto-repeat
RETRY_S = 1.0  # how often an unplugged keypad is looked for again
_MARKER = re.compile(r"_MIN_|_MAX$|_MISC$")  # evdev's range names among a code's aliases


class KeypadMissingError(DeviceAbsentError):
    """No keypad at the profile's path: unplugged, or the path is wrong."""


class KeypadPermissionError(DeviceError):
    """The keypad is there but this user may not read it (not in the input group)."""


class KeypadBusyError(DeviceError):
    """Another program has grabbed the keypad (a second pitboss, a console tool)."""


class InputDevice(Protocol):
    """What the reader uses of ``evdev.InputDevice``."""

    path: str

    def grab(self) -> None: ...

    def ungrab(self) -> None: ...

    def close(self) -> None: ...

    def async_read_loop(self) -> AsyncIterator[Any]: ...


Opener = Callable[[str], InputDevice]
StatusListener = Callable[[bool, str], None]
"""``(connected, message)``: the keypad was lost (False) or is back (True)."""


@dataclass(frozen=True, slots=True)
class KeyDown:
    """A key pressed: its name in the key map (None: the map has no such key) and the
    kernel's name for its code (``KEY_KP7``), for the message about an unmapped key."""

    key: str | None
    code: str


def _evdev() -> Any:
    try:
        import evdev
    except ImportError as exc:
        raise DriverMissingError(
            f"the dealer keypad needs the `evdev` package ({exc}): pip install evdev "
            "(Linux only), or run the table without [keypad]") from None
    return evdev


def open_evdev(path: str) -> InputDevice:
    """``evdev.InputDevice(path)``: the default opener."""
    device: InputDevice = _evdev().InputDevice(path)
    return device


def key_code(name: str) -> int:
    """The kernel's number for a key code name (``KEY_KP1`` -> 79); KeyError if unknown."""
    codes = _evdev().ecodes.ecodes
    if not (name.startswith("KEY_") or name.startswith("BTN_")) or name not in codes:
        raise KeyError(name)
    code: int = codes[name]
    return code


def code_name(code: int) -> str:
    """``KEY_KP1`` for 79, ``BTN_0`` for 256; ``KEY_? (n)`` for a code evdev has no name
    for. Of a code's
    aliases, a range marker is passed over (``KEY_MUTE``, not ``KEY_MIN_INTERESTING``)."""
    try:
        codes = _evdev().ecodes
    except DriverMissingError:
        return f"KEY_? ({code})"
    names = codes.KEY.get(code) or codes.BTN.get(code)
    if names is None:
        return f"KEY_? ({code})"
    if isinstance(names, str):
        return names
    return next((n for n in names if not _MARKER.search(n)), str(names[0]))


def open_keypad(path: str, *, opener: Opener = open_evdev,
                profile: str = "the board profile") -> InputDevice:
    """Open the keypad at ``path`` and grab it; a ``DeviceError`` says what to do."""
    try:
        device = opener(path)
    except FileNotFoundError:
        raise KeypadMissingError(
            f"no keypad at {path}: plug it in, or fix [keypad] device in {profile}") from None
    except PermissionError:
        raise KeypadPermissionError(
            f"no permission to read the keypad at {path}: add the pitboss user to the input "
            "group (sudo usermod -aG input pitboss), log in again and restart") from None
    except OSError as exc:
        raise KeypadMissingError(
            f"the keypad at {path} cannot be opened ({exc.strerror or exc}): plug it in "
            f"again, or fix [keypad] device in {profile}") from None
    try:
        device.grab()
    except OSError as exc:
        with contextlib.suppress(OSError):
            device.close()
        if exc.errno == errno.EBUSY:
            raise KeypadBusyError(
                f"another program has grabbed the keypad at {path}: stop it (a second "
                "pitboss, evtest --grab) and start again") from None
        raise KeypadMissingError(
            f"the keypad at {path} went away while being opened ({exc.strerror or exc}): "
            "plug it in again") from None
    log.info("keypad opened and grabbed: %s", path)
    return device


def _release(device: InputDevice) -> None:
    """Let go of a keypad, gone or not (an unplugged device fails both calls)."""
    with contextlib.suppress(OSError):
        device.ungrab()
    with contextlib.suppress(OSError):
        device.close()


async def read_keys(path: str, codes: Mapping[int, str], *, opener: Opener = open_evdev,
                    profile: str = "the board profile",
                    on_status: StatusListener | None = None,
                    retry_s: float = RETRY_S) -> AsyncGenerator[KeyDown, None]:
    """Every key pressed on the keypad at ``path``, named through ``codes``.

    Opening fails at once with a ``DeviceError`` (the table was started without its
    keypad). Once running, a keypad that goes away (``ENODEV`` when unplugged) is reported
    through ``on_status(False, message)``, looked for every ``retry_s`` seconds, grabbed
    again when it is back and reported with ``on_status(True, message)``."""
    device = open_keypad(path, opener=opener, profile=profile)
    try:
        while True:
            try:
                async for event in device.async_read_loop():
                    if event.type == EV_KEY and event.value == KEY_DOWN:
                        yield KeyDown(codes.get(event.code), code_name(event.code))
                why = "its device closed"
            except OSError as exc:  # ENODEV once unplugged
                why = exc.strerror or str(exc)
            _release(device)
            message = f"keypad lost ({why}): plug it back in; the table waits for it"
            log.warning("%s (%s)", message, path)
            if on_status is not None:
                on_status(False, message)
            device = await _reopen(path, opener, profile, retry_s)
            log.info("keypad back: %s", path)
            if on_status is not None:
                on_status(True, "keypad back")
    finally:
        _release(device)


async def _reopen(path: str, opener: Opener, profile: str, retry_s: float) -> InputDevice:
    """The keypad, once it can be opened and grabbed again."""
    while True:
        await asyncio.sleep(retry_s)
        try:
            return open_keypad(path, opener=opener, profile=profile)
        except DeviceError as exc:  # not back yet (or udev has not set its mode yet)
            log.debug("keypad not back yet: %s", exc)
