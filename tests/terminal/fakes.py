"""A fake evdev keypad: an ``InputDevice`` stand-in that yields real ``evdev.InputEvent``s,
and an opener that plays the kernel (a device present, missing, not readable, grabbed by
another program, unplugged and plugged back)."""

from __future__ import annotations

import asyncio
import errno
import time
from collections.abc import AsyncIterator

from evdev import InputEvent, ecodes

SCAN = 0x04  # MSC_SCAN: a USB keyboard reports the scan code before the key


class FakeKeypad:
    """One plugged-in keypad. ``press(code)`` queues what the kernel sends for one press
    and release (MSC scan, key down, SYN, key up, SYN); ``settle()`` waits until the reader
    has handled every queued event (the reader asks for the next one only when done)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.name = "Genovation ControlPad CP48 (fake)"
        self.grabbed = False
        self.closed = False
        self.grab_error: OSError | None = None
        self._queue: asyncio.Queue[InputEvent | OSError] = asyncio.Queue()

    def grab(self) -> None:
        if self.grab_error is not None:
            raise self.grab_error
        self.grabbed = True

    def ungrab(self) -> None:
        if self.closed:
            raise OSError(errno.ENODEV, "No such device")
        self.grabbed = False

    def close(self) -> None:
        self.closed = True

    async def async_read_loop(self) -> AsyncIterator[InputEvent]:
        while True:
            item = await self._queue.get()
            try:
                if isinstance(item, OSError):
                    raise item
                yield item
            finally:
                self._queue.task_done()

    def _event(self, etype: int, code: int, value: int) -> None:
        now = time.time()
        sec = int(now)
        self._queue.put_nowait(InputEvent(sec, int((now - sec) * 1e6), etype, code, value))

    def press(self, code: str, *, repeats: int = 0) -> None:
        number = ecodes.ecodes[code]
        self._event(ecodes.EV_MSC, SCAN, number)
        self._event(ecodes.EV_KEY, number, 1)
        self._event(ecodes.EV_SYN, ecodes.SYN_REPORT, 0)
        for _ in range(repeats):  # held down: the kernel's auto-repeat
            self._event(ecodes.EV_KEY, number, 2)
            self._event(ecodes.EV_SYN, ecodes.SYN_REPORT, 0)
        self._event(ecodes.EV_KEY, number, 0)
        self._event(ecodes.EV_SYN, ecodes.SYN_REPORT, 0)

    def pull_out(self) -> None:
        """The cable is pulled: the next read fails as the kernel's does (ENODEV)."""
        self._queue.put_nowait(OSError(errno.ENODEV, "No such device"))

    async def settle(self) -> None:
        await self._queue.join()


class FakeInputs:
    """``/dev/input`` as the opener sees it: ``open`` is the reader's injectable opener."""

    def __init__(self) -> None:
        self.devices: dict[str, FakeKeypad] = {}
        self.refuse: dict[str, OSError] = {}  # path -> the error opening it raises
        self.opened: list[str] = []

    def plug(self, path: str) -> FakeKeypad:
        pad = FakeKeypad(path)
        self.devices[path] = pad
        return pad

    def unplug(self, path: str) -> None:
        self.devices.pop(path).pull_out()

    def open(self, path: str) -> FakeKeypad:
        self.opened.append(path)
        if path in self.refuse:
            raise self.refuse[path]
        if path not in self.devices:
            raise FileNotFoundError(errno.ENOENT, "No such file or directory", path)
        return self.devices[path]
