"""The dealer console on gpiozero's mock pins: presses and releases, and nothing left running."""

from __future__ import annotations

import threading

from gpiozero.pins.mock import MockFactory

from controller.devices.events import KeyEvent, KeyPressed, KeyReleased
from controller.devices.gpio import GpioKeys
from controller.devices.mock import MockTable
from controller.devices.profile import load_profile

PINS = {"deal": 17, "undo": 27}


def test_a_key_press_and_release_are_one_event_each_and_is_pressed_follows() -> None:
    factory = MockFactory()
    got: list[KeyEvent] = []
    keys = GpioKeys(PINS, got.append, pin_factory=factory, bounce_s=None)
    try:
        factory.pin(17).drive_low()
        assert keys.is_pressed("deal") and not keys.is_pressed("undo")
        factory.pin(17).drive_high()
        assert got == [KeyPressed("deal"), KeyReleased("deal")]
        assert not keys.is_pressed("deal")
    finally:
        keys.close()


def test_the_dealer_console_starts_no_thread_per_key() -> None:
    # gpiozero's Button starts a hold thread per key, which made closing a console take
    # 0.1 s per key and a full second with a key held; the console needs no thread at all
    before = set(threading.enumerate())
    keys = GpioKeys(PINS, lambda event: None, pin_factory=MockFactory())
    try:
        assert set(threading.enumerate()) - before == set()
    finally:
        keys.close()


def test_closing_a_table_with_a_key_held_leaves_no_thread_behind() -> None:
    before = set(threading.enumerate())
    table = MockTable(load_profile("virtual"))
    table.drive_key_press("deal")
    assert KeyPressed("deal") in table.poll()
    table.close()
    assert {t for t in threading.enumerate() if t.is_alive()} - before == set()
