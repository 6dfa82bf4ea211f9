"""The HT16K33 shot clock driver against a fake chip on a fake I2C bus."""

from __future__ import annotations

import pytest

from controller.devices.displays import HT16K33ShotClock
from controller.devices.errors import DeviceAbsentError
from controller.devices.interfaces import Colour, ShotClockFrame

from .fakes import FakeHT16K33, FakeSMBus


@pytest.fixture
def chip() -> FakeHT16K33:
    return FakeHT16K33()


def test_ht16k33_start_turns_the_oscillator_and_display_on_at_full_brightness(
    chip: FakeHT16K33,
) -> None:
    HT16K33ShotClock(FakeSMBus({0x70: chip}))
    assert chip.oscillator and chip.display_on
    assert chip.brightness == 15
    assert chip.blink_hz == 0


def test_ht16k33_brightness_is_the_dimming_command(chip: FakeHT16K33) -> None:
    HT16K33ShotClock(FakeSMBus({0x70: chip}), brightness=4)
    assert chip.brightness == 4


def test_ht16k33_shows_seconds_right_aligned_on_the_four_digits(chip: FakeHT16K33) -> None:
    clock = HT16K33ShotClock(FakeSMBus({0x70: chip}))
    clock.show(ShotClockFrame.seconds(25, Colour.AMBER))
    assert chip.shown() == "  25"
    clock.show(ShotClockFrame.seconds(7))
    assert chip.shown() == "   7"  # the old digits are cleared
    clock.show(ShotClockFrame("0123"))
    assert chip.shown() == "0123"
    assert clock.frame == ShotClockFrame("0123")


def test_ht16k33_leaves_the_colon_dark(chip: FakeHT16K33) -> None:
    clock = HT16K33ShotClock(FakeSMBus({0x70: chip}))
    clock.show(ShotClockFrame("8888"))
    assert chip.ram[0x04] == 0


def test_ht16k33_longer_text_shows_its_last_four_and_unknown_glyphs_as_a_dash(
    chip: FakeHT16K33,
) -> None:
    clock = HT16K33ShotClock(FakeSMBus({0x70: chip}))
    clock.show(ShotClockFrame("12345"))
    assert chip.shown() == "2345"
    clock.show(ShotClockFrame("ab"))
    assert chip.shown() == "  A-"  # "a" is drawn as A; "b" has no glyph


def test_ht16k33_blinking_frame_is_the_chips_2_hz_blink_and_stops_after(
    chip: FakeHT16K33,
) -> None:
    clock = HT16K33ShotClock(FakeSMBus({0x70: chip}))
    clock.show(ShotClockFrame.seconds(5, Colour.RED, blink=True))
    assert chip.blink_hz == 2.0 and chip.display_on
    clock.refresh(1000.25)  # the chip blinks by itself: refresh changes nothing
    assert chip.shown() == "   5" and chip.blink_hz == 2.0
    clock.show(ShotClockFrame.seconds(4))
    assert chip.blink_hz == 0 and chip.shown() == "   4"


def test_ht16k33_close_turns_the_display_off(chip: FakeHT16K33) -> None:
    clock = HT16K33ShotClock(FakeSMBus({0x70: chip}))
    clock.show(ShotClockFrame.seconds(9))
    clock.close()
    assert not chip.display_on
    assert chip.shown() == ""


def test_ht16k33_talks_only_to_its_own_address() -> None:
    ours, other = FakeHT16K33(), FakeHT16K33()
    clock = HT16K33ShotClock(FakeSMBus({0x71: ours, 0x70: other}), 0x71)
    clock.show(ShotClockFrame.seconds(12))
    assert ours.shown() == "  12"
    assert not other.oscillator and other.ram == [0] * 16


def test_ht16k33_absent_chip_is_a_device_absent_error_naming_the_address() -> None:
    with pytest.raises(DeviceAbsentError, match=r"no HT16K33 answers on I2C at 0x71"):
        HT16K33ShotClock(FakeSMBus({0x70: FakeHT16K33()}), 0x71)
