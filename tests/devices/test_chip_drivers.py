"""MFRC522 and PN532 drivers against fake chips that model their registers and frames."""

from __future__ import annotations

import pytest

from controller.devices.errors import ChipError, DeviceAbsentError
from controller.devices.mfrc522 import MFRC522
from controller.devices.pn532 import PN532, frame

from .fakes import FakeMFRC522, FakePN532, crc_a

UID4 = bytes.fromhex("deadbeef")
UID7 = bytes.fromhex("04a1b2c3d4e5f6")
UID7_NEIGHBOUR = bytes.fromhex("04a1b2c3d4e5f7")  # differs in the very last bit
UID10 = bytes.fromhex("0102030405060708090a")


def test_crc_a_matches_the_iso_14443_example() -> None:
    assert crc_a([0x00, 0x00]) == [0xA0, 0x1E]  # ISO/IEC 14443-3 annex B


def test_mfrc522_empty_field_scans_nothing() -> None:
    assert MFRC522(FakeMFRC522()).scan() == frozenset()


@pytest.mark.parametrize("uid", [UID4, UID7, UID10], ids=["4-byte", "7-byte", "10-byte"])
def test_mfrc522_reads_each_uid_length_through_the_cascade_levels(uid: bytes) -> None:
    chip = FakeMFRC522()
    chip.place(uid)
    assert MFRC522(chip).scan() == {uid}


def test_mfrc522_resolves_colliding_tags_and_reports_them_all() -> None:
    chip = FakeMFRC522()
    for uid in (UID7, UID7_NEIGHBOUR, UID4, UID10):
        chip.place(uid)
    reader = MFRC522(chip)
    assert reader.scan() == {UID7, UID7_NEIGHBOUR, UID4, UID10}
    assert reader.scan() == {UID7, UID7_NEIGHBOUR, UID4, UID10}  # WUPA woke the halted ones


def test_mfrc522_sees_a_lifted_card_gone_on_the_next_scan() -> None:
    chip = FakeMFRC522()
    chip.place(UID7)
    chip.place(UID4)
    reader = MFRC522(chip)
    reader.scan()
    chip.lift(UID7)
    assert reader.scan() == {UID4}


def test_mfrc522_max_tags_limits_a_scan() -> None:
    chip = FakeMFRC522()
    for uid in (UID7, UID7_NEIGHBOUR, UID4):
        chip.place(uid)
    assert len(MFRC522(chip, max_tags=2).scan()) == 2


def test_mfrc522_absent_chip_says_what_to_check() -> None:
    with pytest.raises(DeviceAbsentError, match=r"VersionReg read 0x00.*check the wiring"):
        MFRC522(FakeMFRC522(version=0x00))


def test_mfrc522_antenna_off_reads_nothing() -> None:
    chip = FakeMFRC522()
    chip.place(UID7)
    reader = MFRC522(chip)
    reader.antenna_off()
    assert reader.scan() == frozenset()


def test_mfrc522_protocol_error_is_a_chip_error() -> None:
    chip = FakeMFRC522()
    chip.place(UID7)
    reader = MFRC522(chip)
    original = chip._transceive

    def noisy(tx_last_bits: int, rx_align: int) -> None:
        original(tx_last_bits, rx_align)
        chip.regs[0x06] |= 0x01  # ProtocolErr

    chip._transceive = noisy  # type: ignore[method-assign]
    with pytest.raises(ChipError, match="receive error"):
        reader.scan()


def test_pn532_frame_has_length_and_data_checksums() -> None:
    assert frame(b"\x02") == bytes.fromhex("0000ff02fed4022a00")


def test_pn532_reads_firmware_and_configures_on_open() -> None:
    chip = FakePN532(firmware=(1, 6))
    reader = PN532(chip)
    assert reader.firmware == (1, 6)
    assert chip.commands == [0x02, 0x14, 0x32]


def test_pn532_lists_up_to_two_tags_and_releases_them() -> None:
    chip = FakePN532()
    reader = PN532(chip)
    assert reader.scan() == frozenset()
    chip.place(UID7)
    chip.place(UID4)
    chip.place(UID10)
    assert reader.scan() == {UID7, UID4}  # the chip's limit is two targets
    assert chip.commands[-2:] == [0x4A, 0x52]


def test_pn532_absent_chip_says_what_to_check() -> None:
    with pytest.raises(DeviceAbsentError, match=r"no PN532 answers on I2C.*mode switches"):
        PN532(FakePN532(present=False))


def test_pn532_bad_checksum_is_a_chip_error() -> None:
    chip = FakePN532()
    reader = PN532(chip)
    chip.corrupt_next = True
    with pytest.raises(ChipError, match="data checksum"):
        reader.scan()
