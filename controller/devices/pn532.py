"""PN532 (NXP) NFC reader over I2C: the normal-frame protocol, of our own.

The driver is given its link: an object with ``write(bytes)`` and ``read(n) -> bytes``
that talks to the chip's I2C address (``buses.I2CDevice`` on the Pi, behind a TCA9548A
channel where the profile says so; the fake chip in the tests). ``scan()`` lists up to
two ISO 14443A targets with InListPassiveTarget (the chip's own limit) and releases them.
"""

from __future__ import annotations

from typing import Final, Protocol

from .errors import ChipError, DeviceAbsentError

_PREAMBLE: Final = b"\x00\x00\xff"
_ACK: Final = b"\x00\x00\xff\x00\xff\x00"
_TFI_HOST: Final = 0xD4
_TFI_CHIP: Final = 0xD5
_STATUS_READY: Final = 0x01
_CMD_GET_FIRMWARE_VERSION: Final = 0x02
_CMD_SAM_CONFIGURATION: Final = 0x14
_CMD_RF_CONFIGURATION: Final = 0x32
_CMD_IN_LIST_PASSIVE_TARGET: Final = 0x4A
_CMD_IN_RELEASE: Final = 0x52
_BRTY_ISO14443A: Final = 0x00
_MAX_TARGETS: Final = 2
_POLLS: Final = 100


class I2CLink(Protocol):
    """Raw reads and writes at the chip's address."""

    def write(self, data: bytes) -> None: ...

    def read(self, n: int) -> bytes: ...


def frame(data: bytes, tfi: int = _TFI_HOST) -> bytes:
    """A PN532 normal information frame around ``data`` (command and parameters)."""
    body = bytes([tfi]) + data
    length = len(body)
    return _PREAMBLE + bytes([length, (-length) & 0xFF]) + body + bytes([(-sum(body)) & 0xFF, 0x00])


class PN532:
    """One PN532 on I2C. ``scan()`` returns the UIDs in the field now (at most two)."""

    multi_tag = True

    def __init__(self, link: I2CLink, *, max_tags: int = _MAX_TARGETS) -> None:
        self.link = link
        self.max_tags = max(1, min(max_tags, _MAX_TARGETS))
        try:
            version = self.call(_CMD_GET_FIRMWARE_VERSION, b"", 4)
        except OSError as exc:
            raise DeviceAbsentError(
                f"no PN532 answers on I2C ({exc}): check SDA/SCL, power, the mode switches "
                "(I2C: SEL0=1, SEL1=0) and the address"
            ) from None
        self.firmware = (version[1], version[2])
        self.call(_CMD_SAM_CONFIGURATION, b"\x01\x14\x00", 0)  # normal mode, no IRQ pin
        # MxRtyATR, MxRtyPSL, MxRtyPassiveActivation: give up quickly on an empty field
        self.call(_CMD_RF_CONFIGURATION, b"\x05\xff\x01\x01", 0)

    def _wait_ready(self) -> None:
        for _ in range(_POLLS):
            if self.link.read(1)[0] == _STATUS_READY:
                return
        raise ChipError("PN532 never became ready: reset the reader (power-cycle it)")

    def call(self, command: int, params: bytes, min_reply: int) -> bytes:
        """Send ``command`` with ``params``; return the reply's data after the command byte."""
        self.link.write(frame(bytes([command]) + params))
        self._wait_ready()
        ack = self.link.read(1 + len(_ACK))[1:]
        if ack != _ACK:
            raise ChipError(f"PN532 did not acknowledge command 0x{command:02X} (got {ack.hex()})")
        self._wait_ready()
        head = self.link.read(1 + 6 + 2 + 255 + 2)[1:]
        return self._parse(head, command, min_reply)

    @staticmethod
    def _parse(raw: bytes, command: int, min_reply: int) -> bytes:
        start = raw.find(_PREAMBLE)
        if start < 0 or len(raw) < start + 5:
            raise ChipError("PN532 reply has no preamble: a noisy bus, check pull-ups")
        length, lcs = raw[start + 3], raw[start + 4]
        if (length + lcs) & 0xFF:
            raise ChipError("PN532 reply length checksum is wrong: a noisy bus, check pull-ups")
        body = raw[start + 5 : start + 5 + length]
        dcs = raw[start + 5 + length] if len(raw) > start + 5 + length else -1
        if len(body) != length or (sum(body) + dcs) & 0xFF:
            raise ChipError("PN532 reply data checksum is wrong: a noisy bus, check pull-ups")
        if body[:1] == b"\x7f":
            raise ChipError(f"PN532 rejected command 0x{command:02X} (application error frame)")
        if body[0] != _TFI_CHIP or body[1] != command + 1:
            raise ChipError(f"PN532 answered 0x{body[1]:02X} to command 0x{command:02X}")
        data = body[2:]
        if len(data) < min_reply:
            raise ChipError(
                f"PN532 reply to 0x{command:02X} is {len(data)} bytes, expected >= {min_reply}"
            )
        return data

    def scan(self) -> frozenset[bytes]:
        """The UIDs of up to ``max_tags`` ISO 14443A tags in the field now."""
        data = self.call(_CMD_IN_LIST_PASSIVE_TARGET, bytes([self.max_tags, _BRTY_ISO14443A]), 1)
        count, pos, uids = data[0], 1, []
        for _ in range(count):
            # Tg, SENS_RES (2), SEL_RES, NFCIDLength, NFCID1, [ATS]
            if len(data) < pos + 5:
                raise ChipError("PN532 target list is cut short")
            uid_len = data[pos + 4]
            uid = data[pos + 5 : pos + 5 + uid_len]
            if len(uid) != uid_len or uid_len not in (4, 7, 10):
                raise ChipError(f"PN532 reported a {uid_len}-byte UID, which ISO 14443A has not")
            uids.append(bytes(uid))
            pos += 5 + uid_len
        if count:
            self.call(_CMD_IN_RELEASE, b"\x00", 1)
        return frozenset(uids)
