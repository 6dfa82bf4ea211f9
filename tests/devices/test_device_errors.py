"""The device layer fails in one line that says what is wrong and what to do: an absent bus
or GPIO chip (off a Pi), an unknown profile, a missing driver library, a seat node with no
link, a GPIO claimed twice. Every one is a ``DeviceError`` raised ``from None``, so that a
command prints it without a traceback of vendor internals."""

from __future__ import annotations

import errno
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory, MockPWMPin

from controller.devices.backends import backend_factory, open_devices
from controller.devices.buses import open_i2c
from controller.devices.errors import (
    BusAbsentError,
    DeviceAbsentError,
    DeviceError,
    DriverMissingError,
    PinBusyError,
    ProfileError,
    SeatLinkMissingError,
)
from controller.devices.gpio import GpioLight
from controller.devices.profile import PROFILE_DIR, load_profile, parse_profile, shipped_profiles

from .fakes import FakeMFRC522

SHIPPED = ", ".join(p.stem for p in shipped_profiles())


def one_clean_line(err: pytest.ExceptionInfo[DeviceError]) -> str:
    """The message, after checking it is one line and hides the vendor's exception."""
    msg = str(err.value)
    assert "\n" not in msg
    assert err.value.__cause__ is None and err.value.__suppress_context__ is True
    return msg


class _NoBus:
    """A vendor bus whose device node is missing or locked (spidev's and smbus2's OSError)."""

    code = errno.ENOENT

    def SpiDev(self) -> _NoBus:  # spidev's name
        return self

    def open(self, bus: int, cs: int) -> None:
        raise OSError(self.code, "No such file or directory" if self.code == errno.ENOENT
                      else "Permission denied")

    def SMBus(self, bus: int) -> None:  # smbus2's name
        self.open(bus, 0)


@pytest.fixture
def no_bus(monkeypatch: pytest.MonkeyPatch) -> _NoBus:
    """spidev and smbus2 as on a machine without /dev/spidev* and /dev/i2c-*."""
    bus = _NoBus()
    monkeypatch.setitem(sys.modules, "spidev", bus)
    monkeypatch.setitem(sys.modules, "smbus2", bus)
    return bus


# ------------------------------------------------------------------ buses and GPIO
def test_opening_sixmax_pi_without_spi_says_enable_spi_or_run_virtual(no_bus: _NoBus) -> None:
    with pytest.raises(BusAbsentError) as err:
        open_devices(load_profile("sixmax-pi"))
    assert one_clean_line(err) == (
        "SPI bus 0 is not available (/dev/spidev0.0 missing): enable SPI with raspi-config "
        "(dtoverlay=spi0-1cs in config.txt) and reboot, or run with --profile virtual off a Pi"
    )
    assert isinstance(err.value, DeviceAbsentError)


def test_an_spi_node_without_permission_says_which_group_to_join(no_bus: _NoBus) -> None:
    no_bus.code = errno.EACCES
    with pytest.raises(BusAbsentError) as err:
        open_devices(load_profile("sixmax-pi"))
    assert one_clean_line(err) == (
        "no permission to open /dev/spidev0.0: add the user to the spi group "
        "(sudo adduser $USER spi) and log in again"
    )


def test_an_absent_i2c_bus_says_enable_i2c_or_run_virtual(no_bus: _NoBus) -> None:
    with pytest.raises(BusAbsentError) as err:
        open_i2c("i2c1")
    assert one_clean_line(err) == (
        "I2C bus 1 is not available (/dev/i2c-1 missing): enable I2C with raspi-config "
        "(dtparam=i2c_arm=on in config.txt) and reboot, or run with --profile virtual off a Pi"
    )
    with pytest.raises(BusAbsentError, match=r"/dev/i2c-3 missing.*\(dtoverlay=i2c3 in"):
        open_i2c("i2c3")


def test_the_pn532_readers_of_sixmax_pi_reach_the_absent_i2c_bus(no_bus: _NoBus) -> None:
    """Past the SPI readers (here on fake chips), the first player reader opens I2C1."""
    with pytest.raises(BusAbsentError, match=r"^I2C bus 1 is not available"):
        open_devices(
            load_profile("sixmax-pi"),
            pin_factory=MockFactory(pin_class=MockPWMPin),
            spi_opener=lambda bus, cs, **kw: FakeMFRC522(),
        )


@pytest.fixture
def no_pin_factory(monkeypatch: pytest.MonkeyPatch) -> None:
    """gpiozero with no pin factory to be had, as off a Pi (here on any machine)."""
    monkeypatch.setattr(Device, "pin_factory", None)
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "no-such-factory")


def test_no_gpio_chip_says_install_lgpio_or_run_virtual(no_pin_factory: None) -> None:
    with pytest.raises(BusAbsentError) as err:
        open_devices(
            load_profile("sixmax-pi"),
            spi_opener=lambda bus, cs, **kw: FakeMFRC522(),
        )
    assert one_clean_line(err).startswith("GPIO is not available (")
    assert str(err.value).endswith(
        "; gpiozero found no pin factory): on a Pi, install lgpio (sudo apt install "
        "python3-lgpio); off a Pi, run with --profile virtual"
    )


def test_a_gpio_claimed_twice_names_the_pin_and_the_part() -> None:
    factory = MockFactory(pin_class=MockPWMPin)
    first = GpioLight(17, pin_factory=factory, what="seat 1 light")
    try:
        with pytest.raises(PinBusyError) as err:
            GpioLight(17, pin_factory=factory, what="seat 2 light")
        msg = one_clean_line(err)
        assert msg.startswith("GPIO17 for seat 2 light cannot be claimed (")
        assert msg.endswith("move it to a free GPIO in the profile")
    finally:
        first.close()


class _SilentSpi:
    """An SPI bus with nothing on it: every byte reads back 0x00."""

    def xfer2(self, data: list[int]) -> list[int]:
        return [0] * len(data)


def test_a_reader_chip_that_does_not_answer_is_named_with_its_bus() -> None:
    with pytest.raises(DeviceAbsentError) as err:
        open_devices(
            load_profile("sixmax-pi"),
            pin_factory=MockFactory(pin_class=MockPWMPin),
            spi_opener=lambda bus, cs, **kw: _SilentSpi(),
        )
    assert one_clean_line(err).startswith(
        "reader seat1 (MFRC522 on spi0): no MFRC522 answers on this SPI bus "
        "(VersionReg read 0x00): check the wiring"
    )
    assert not isinstance(err.value, BusAbsentError)


# ------------------------------------------------------------------ seat nodes
def test_tournament_10_without_a_seat_node_link_says_what_to_run_instead() -> None:
    with pytest.raises(SeatLinkMissingError) as err:
        open_devices(load_profile("tournament-10"))
    assert str(err.value) == (
        "reader seat1 is on seat node 1 at /dev/pitboss-seat1, but no seat-node link was "
        "opened for it: run it with `pitboss table run`, which opens the profile's seat-node "
        "ports; in code, open them with controller.devices.seatlines.SeatLines and pass it "
        "as seat_link= to open_devices"
    )


# ------------------------------------------------------------------ profiles
def test_an_unknown_profile_lists_the_shipped_ones() -> None:
    with pytest.raises(ProfileError) as err:
        load_profile("foo")
    assert one_clean_line(err) == (
        f"profile 'foo' not found. Fix: choose one of {SHIPPED}, or give a path to a .toml file"
    )
    assert SHIPPED == "sixmax-pi, tournament-10, virtual"


def test_a_misspelt_profile_suggests_the_near_one() -> None:
    with pytest.raises(ProfileError, match=r"choose one of .* \(did you mean sixmax-pi\?\)"):
        load_profile("sixmax")


def test_a_missing_profile_file_says_check_the_path(tmp_path: Any) -> None:
    missing = tmp_path / "table.toml"
    with pytest.raises(ProfileError) as err:
        load_profile(missing)
    assert one_clean_line(err) == (
        f"profile file {missing} not found. Fix: check the path, or choose one of {SHIPPED}"
    )


def test_a_profile_that_is_a_directory_is_a_profile_error(tmp_path: Any) -> None:
    folder = tmp_path / "build.toml"
    folder.mkdir()
    with pytest.raises(ProfileError, match=r"^cannot read profile .*build\.toml \("):
        load_profile(folder)


# ------------------------------------------------------------------ drivers
def test_a_missing_spidev_says_which_package_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "spidev", None)  # import spidev -> ImportError
    with pytest.raises(DriverMissingError) as err:
        open_devices(load_profile("sixmax-pi"))
    msg = one_clean_line(err)
    assert msg.startswith("SPI bus spi0 needs the `spidev` package, which is not installed (")
    assert msg.endswith("): pip install spidev on the Pi, or run with --profile virtual off a Pi")
    assert isinstance(err.value, ImportError)


def test_a_missing_luma_says_which_package_the_display_needs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text = (PROFILE_DIR / "virtual.toml").read_text()
    start = text.index("[blinds_display]")
    end = text.index("[", start + 1)
    text = text[:start] + '[blinds_display]\nkind = "ssd1306"\nbus = "i2c1"\n\n' + text[end:]
    profile = parse_profile(text, "oled.toml")
    monkeypatch.setitem(sys.modules, "luma.oled.device", None)
    with pytest.raises(DriverMissingError) as err:
        open_devices(profile, backend="real", pin_factory=MockFactory(pin_class=MockPWMPin))
    msg = one_clean_line(err)
    assert msg.startswith("the blinds display needs the `luma.oled` package (")
    assert msg.endswith("): pip install luma.oled")


@pytest.fixture
def without_gpiozero(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """gpiozero not installed, and the backends not yet imported (restored afterwards)."""
    monkeypatch.setitem(sys.modules, "gpiozero", None)
    for name in list(sys.modules):
        if name.startswith("gpiozero.") or name in (
            "controller.devices.gpio",
            "controller.devices.hardware",
            "controller.devices.mock",
        ):
            monkeypatch.delitem(sys.modules, name)
    yield


def test_a_backend_whose_driver_is_missing_names_the_package(without_gpiozero: None) -> None:
    with pytest.raises(DriverMissingError) as err:
        backend_factory("real")
    assert one_clean_line(err) == (
        "the 'real' device backend needs the `gpiozero` package, which is not installed: "
        "pip install gpiozero, or use another backend (mock)"
    )

