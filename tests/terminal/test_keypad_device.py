"""The keypad's evdev reader: it grabs the device, takes key-downs only, names unmapped
keys on the display, says what to do when the keypad is missing, unreadable or held by
another program, and picks the keypad up again after it was unplugged mid-run."""

from __future__ import annotations

import asyncio
import errno
from pathlib import Path

import pytest
from evdev import ecodes

from controller.devices.errors import DeviceAbsentError, DeviceError
from controller.devices.keypad import (
    KeypadBusyError,
    KeypadMissingError,
    KeypadPermissionError,
    code_name,
    open_keypad,
)
from controller.events import HandStarted
from controller.table.lights import Level
from controller.terminal.keypad import run_keypad

from .rig import PATH, keypad_table

SEATS = {1: 10_000, 2: 10_000, 3: 10_000}
BLINDS = (Level(50, 100),)
PROFILE = "hardware/sixmax-pi.toml"


def test_the_keypad_is_grabbed_while_read_and_let_go_after(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with keypad_table(tmp_path, SEATS, levels=BLINDS) as rig:
            assert rig.inputs.opened == [PATH] and rig.pad.grabbed  # its keys type nowhere
            pad = rig.pad
        assert pad.closed and not pad.grabbed  # released when the reader stops

    asyncio.run(scenario())


def test_a_held_key_is_one_press_and_releases_are_not_keys(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with keypad_table(tmp_path, SEATS, levels=BLINDS) as rig:
            rig.pad.press("KEY_KP5", repeats=4)  # held down: the kernel auto-repeats
            rig.pad.press("KEY_0")  # the top row's 0: the map takes both codes
            await rig.pad.settle()
            await rig.drawn()
            assert rig.desk.entry == "50" and rig.shown[3] == "> 50"

    asyncio.run(scenario())


def test_a_key_the_map_does_not_name_is_reported_on_the_display(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with keypad_table(tmp_path, SEATS, levels=BLINDS) as rig:
            await rig.keys("5")
            rig.pad.press("KEY_F5")
            await rig.pad.settle()
            await rig.drawn()
            assert rig.said == ("KEY_F5 is no key of map dealer-48: reprogram that key, or "
                                f"add it to {rig.keymap.source}")
            assert rig.shown[4] == "KEY_F5 is no key of"
            assert rig.desk.entry == "5"  # what was keyed stays

    asyncio.run(scenario())


def test_an_unplugged_keypad_is_reported_and_read_again_when_it_is_back(
        tmp_path: Path) -> None:
    async def scenario() -> None:
        async with keypad_table(tmp_path, SEATS, levels=BLINDS) as rig:
            await rig.keys("1 button 5")  # "5" keyed when the cable is pulled
            first = rig.pad
            rig.inputs.unplug(PATH)
            await first.settle()
            await rig.drawn()
            assert rig.said == ("keypad lost (No such device): plug it back in; the table "
                                "waits for it")
            assert rig.shown[4] == "keypad lost (No such"
            assert first.closed and rig.desk.entry == ""  # a half-keyed entry is dropped
            await asyncio.sleep(0.05)  # looked for every 0.01 s: not there yet
            assert rig.inputs.opened.count(PATH) >= 3
            rig.pad = rig.inputs.plug(PATH)
            for _ in range(100):
                if rig.said == "keypad back":
                    break
                await asyncio.sleep(0.01)
            assert rig.said == "keypad back" and rig.pad.grabbed
            await rig.keys("deal")  # keys read from the keypad plugged back in
            assert rig.last(HandStarted).hand_no == 1

    asyncio.run(scenario())


OTHER = "/dev/input/by-id/usb-other-event-kbd"


@pytest.mark.parametrize(("error", "kind", "message"), [
    (None, KeypadMissingError,
     f"no keypad at {OTHER}: plug it in, or fix [keypad] device in {PROFILE}"),
    (PermissionError(errno.EACCES, "Permission denied", OTHER), KeypadPermissionError,
     f"no permission to read the keypad at {OTHER}: add the pitboss user to the input group "
     "(sudo usermod -aG input pitboss), log in again and restart"),
])
def test_a_keypad_that_cannot_be_opened_stops_the_start_with_what_to_do(
        tmp_path: Path, error: OSError | None, kind: type[DeviceError], message: str) -> None:
    async def scenario() -> None:
        async with keypad_table(tmp_path, SEATS, levels=BLINDS) as rig:
            if error is not None:
                rig.inputs.plug(OTHER)
                rig.inputs.refuse[OTHER] = error
            with pytest.raises(kind) as err:
                await run_keypad(rig.desk, OTHER, rig.keymap, opener=rig.inputs.open,
                                 profile=PROFILE)
            assert str(err.value) == message

    asyncio.run(scenario())


def test_a_keypad_grabbed_by_another_program_is_named_and_closed_again() -> None:
    from .fakes import FakeInputs

    inputs = FakeInputs()
    pad = inputs.plug(PATH)
    pad.grab_error = OSError(errno.EBUSY, "Device or resource busy")
    with pytest.raises(KeypadBusyError, match=r"^another program has grabbed the keypad at "):
        open_keypad(PATH, opener=inputs.open)
    assert pad.closed


def test_the_real_evdev_opener_turns_a_missing_or_wrong_device_into_one_line(
        tmp_path: Path) -> None:
    with pytest.raises(KeypadMissingError) as err:
        open_keypad(str(tmp_path / "no-keypad"), profile=PROFILE)
    assert str(err.value) == (f"no keypad at {tmp_path / 'no-keypad'}: plug it in, or fix "
                              f"[keypad] device in {PROFILE}")
    not_input = tmp_path / "event0"
    not_input.write_bytes(b"")  # a file, not an input device: the ioctl fails
    with pytest.raises(DeviceAbsentError, match=r"cannot be opened \(.*\): plug it in again"):
        open_keypad(str(not_input), profile=PROFILE)


def test_code_names_are_the_kernels() -> None:
    assert code_name(ecodes.KEY_KP7) == "KEY_KP7"
    assert code_name(ecodes.KEY_MUTE) == "KEY_MUTE"  # not its alias KEY_MIN_INTERESTING
    assert code_name(ecodes.BTN_0) == "BTN_0"  # a keypad may send buttons
    assert code_name(266) == "KEY_? (266)"
