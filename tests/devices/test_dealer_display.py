"""The dealer's keypad and display in the board profile: ``[keypad]`` and
``[dealer_display]`` validated like the other parts, built by both backends, held by the
table's hardware, listed in the wiring tables and the bill of materials."""

from __future__ import annotations

import sys
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from controller.devices import wiring
from controller.devices.backends import open_devices
from controller.devices.displays import LumaDealerDisplay
from controller.devices.errors import BusAbsentError, DriverMissingError, ProfileError
from controller.devices.mock import MockTable
from controller.devices.profile import PROFILE_DIR, load_profile, parse_profile

SIXMAX = (PROFILE_DIR / "sixmax-pi.toml").read_text()
VIRTUAL = (PROFILE_DIR / "virtual.toml").read_text()
LINES = ("S1 call 100 pot 150", "raise 200-10000", "L1 50/100 30", "> S3 2.5 BB",
         "BET-4: a raise must be", "to between 200 and")


def _line_of(text: str, needle: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if needle in line)


def test_the_shipped_profiles_name_their_keypad_and_dealer_display() -> None:
    for name in ("sixmax-pi", "tournament-10"):
        p = load_profile(name)
        assert p.keypad is not None and p.keypad.kind == "evdev"
        assert p.keypad.device is not None and p.keypad.device.startswith("/dev/input/by-id/")
        assert p.keypad.map == "dealer-48"
        d = p.dealer_display
        assert (d.kind, d.bus, d.address) == ("ssd1306", "i2c1", 0x3D)  # the blinds have 0x3C
    v = load_profile("virtual")
    assert v.keypad is not None and (v.keypad.kind, v.keypad.device) == ("mock", None)
    assert v.dealer_display.kind == "mock"


@pytest.mark.parametrize(("old", "new", "problem", "fix", "at"), [
    ('map = "dealer-48"', 'map = "dealer-84"',
     "keypad map 'dealer-84' is not in", "(did you mean 'dealer-48'?)", 'map = "dealer-84"'),
    ('device = "/dev/input/by-id/', 'device = "/tmp/by-id/',
     "keypad device '/tmp/by-id/", "`ls /dev/input/by-id` lists them", 'device = "/tmp'),
    ('kind = "evdev"\ndevice', 'kind = "evdve"\ndevice', "unknown keypad kind 'evdve'",
     'use one of evdev, mock (did you mean "evdev"?)', 'kind = "evdve"'),
    ("address = 0x3D", "address = 0x3C",
     "i2c1 address 0x3C is used twice: by dealer display and by blinds display",
     "change the address", "address = 0x3C\n\n[buzzer]"),
])
def test_a_wrong_keypad_or_dealer_display_fails_on_its_line_with_the_fix(
        old: str, new: str, problem: str, fix: str, at: str) -> None:
    assert old in SIXMAX
    text = SIXMAX.replace(old, new)
    with pytest.raises(ProfileError) as err:
        parse_profile(text, "six.toml")
    message = str(err.value)
    assert message.startswith(f"six.toml:{err.value.line}: {problem}"), message
    assert fix in message
    lines = text.splitlines()
    first = at.split("\n")[0]
    candidates = [n for n, line in enumerate(lines, 1) if first in line]
    assert err.value.line in candidates


def test_the_mock_backend_draws_the_dealer_display_and_saves_its_frame(tmp_path: object
                                                                        ) -> None:
    hw = MockTable(load_profile("virtual"))
    display = hw.dealer_display
    assert isinstance(display, LumaDealerDisplay)
    display.show(LINES)
    display.show(LINES)  # the same lines: no frame sent to the panel again
    assert display.lines == LINES and display.frames == 1
    image = hw.frame("dealer")
    assert image.size == (128, 64)
    lit = [y for y in range(64) if any(image.getpixel((x, y)) != (0, 0, 0) for x in range(128))]
    assert min(lit) < 10 and max(lit) > 54  # six lines from the top to the bottom
    entry_row = [image.getpixel((x, 35)) for x in range(128)]
    assert entry_row.count((255, 255, 255)) > 100  # the entry line is drawn inverted
    hw.close()


OLED = VIRTUAL.replace('[dealer_display]\nkind = "mock"',
                      '[dealer_display]\nkind = "ssd1306"\nbus = "i2c1"\naddress = 0x3D')


def test_the_real_backend_opens_an_ssd1306_dealer_display_at_its_address(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from luma.core.device import dummy
    from luma.core.interface import serial
    from luma.oled import device as oled

    opened: list[tuple[int, int]] = []

    def i2c(port: int, address: int) -> tuple[int, int]:
        opened.append((port, address))
        return port, address

    monkeypatch.setattr(serial, "i2c", i2c)
    monkeypatch.setattr(oled, "ssd1306", lambda bus: dummy(width=128, height=64, mode="1"))
    hw = open_devices(parse_profile(OLED, "oled.toml"), backend="real",
                      pin_factory=MockFactory(pin_class=MockPWMPin))
    assert opened == [(1, 0x3D)]
    assert isinstance(hw.dealer_display, LumaDealerDisplay)
    hw.dealer_display.show(LINES)
    panel: Any = hw.dealer_display.device
    assert panel.image.mode == "1"  # drawn for the panel's 1-bit pixels
    hw.close()


def test_a_dealer_display_on_a_bus_the_machine_lacks_says_how_to_enable_it() -> None:
    with pytest.raises(BusAbsentError) as err:  # this machine has no /dev/i2c-1
        open_devices(parse_profile(OLED, "oled.toml"), backend="real",
                     pin_factory=MockFactory(pin_class=MockPWMPin))
    assert str(err.value).startswith("I2C bus 1 is not available (/dev/i2c-1 missing): "
                                     "enable I2C with raspi-config")


def test_a_missing_luma_says_which_package_the_dealer_display_needs(
        monkeypatch: pytest.MonkeyPatch) -> None:
    text = VIRTUAL.replace('[dealer_display]\nkind = "mock"',
                           '[dealer_display]\nkind = "ssd1306"\nbus = "i2c1"')
    monkeypatch.setitem(sys.modules, "luma.oled.device", None)
    with pytest.raises(DriverMissingError, match=r"^the dealer display needs the `luma.oled` "
                       r"package \(.*\): pip install luma.oled$"):
        open_devices(parse_profile(text, "oled.toml"), backend="real",
                     pin_factory=MockFactory(pin_class=MockPWMPin))


def test_the_wiring_tables_list_the_keypad_and_both_oleds() -> None:
    six = load_profile("sixmax-pi")
    section = wiring.profile_section(six)
    assert ("| dealer keypad | USB, /dev/input/by-id/usb-Genovation_ControlPad_CP48-event-kbd, "
            "key map `dealer-48` |") in section
    assert "| dealer display | ssd1306 on i2c1 0x3D |" in section
    bom = wiring.bill_of_materials(six)
    assert bom["ssd1306"] == 2 and bom["keypad"] == 1
    assert "keypad" not in wiring.bill_of_materials(load_profile("virtual"))  # a mock costs 0
