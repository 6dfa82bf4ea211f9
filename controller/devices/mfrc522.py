"""MFRC522 (NXP) ISO 14443A reader driver over SPI, of our own: no RPi.GPIO, no threads.

The driver is given its bus: any object with spidev's ``xfer2(list[int]) -> list[int]``
(``spidev.SpiDev``, a GPIO-chip-select wrapper, or the fake chip in the tests). It reads
4-, 7- and 10-byte UIDs (cascade levels 1-3) and several tags at one antenna: it selects
one, halts it (HLTA), and asks again with REQA until no tag answers; the next scan starts
with WUPA, which wakes the halted ones.
"""

from __future__ import annotations

from typing import Final, Protocol

from .errors import ChipError, DeviceAbsentError

# registers
_REG_COMMAND: Final = 0x01
_REG_COM_IRQ: Final = 0x04
_REG_DIV_IRQ: Final = 0x05
_REG_ERROR: Final = 0x06
_REG_FIFO_DATA: Final = 0x09
_REG_FIFO_LEVEL: Final = 0x0A
_REG_CONTROL: Final = 0x0C
_REG_BIT_FRAMING: Final = 0x0D
_REG_COLL: Final = 0x0E
_REG_MODE: Final = 0x11
_REG_TX_CONTROL: Final = 0x14
_REG_TX_ASK: Final = 0x15
_REG_CRC_RESULT_H: Final = 0x21
_REG_CRC_RESULT_L: Final = 0x22
_REG_T_MODE: Final = 0x2A
_REG_T_PRESCALER: Final = 0x2B
_REG_T_RELOAD_H: Final = 0x2C
_REG_T_RELOAD_L: Final = 0x2D
_REG_VERSION: Final = 0x37
# chip commands
_CMD_IDLE: Final = 0x00
_CMD_CALC_CRC: Final = 0x03
_CMD_TRANSCEIVE: Final = 0x0C
_CMD_SOFT_RESET: Final = 0x0F
# bits
_IRQ_TIMER: Final = 0x01
_IRQ_ERR: Final = 0x02
_IRQ_IDLE: Final = 0x10
_IRQ_RX: Final = 0x20
_DIV_IRQ_CRC: Final = 0x04
_ERR_PROTOCOL: Final = 0x01
_ERR_PARITY: Final = 0x02
_ERR_CRC: Final = 0x04
_ERR_COLL: Final = 0x08
_ERR_BUFFER_OVFL: Final = 0x10
_COLL_POS_NOT_VALID: Final = 0x20
_START_SEND: Final = 0x80
_FLUSH: Final = 0x80
# PICC commands (ISO 14443-3)
_PICC_REQA: Final = 0x26
_PICC_WUPA: Final = 0x52
_PICC_SEL: Final = (0x93, 0x95, 0x97)
_PICC_HLTA: Final = 0x50
_CASCADE_TAG: Final = 0x88
_SAK_CASCADE: Final = 0x04

KNOWN_VERSIONS: Final = {0x88: "FM17522 clone", 0x91: "MFRC522 v1.0", 0x92: "MFRC522 v2.0"}
_POLLS: Final = 200  # ComIrqReg reads before giving up (the chip's own timer fires ~25 ms)


class SpiBus(Protocol):
    """What the driver needs from its bus (spidev.SpiDev has it)."""

    def xfer2(self, data: list[int]) -> list[int]: ...


class _Timeout(Exception):
    """No tag answered before the chip's timer ran out (normal when the antenna is empty)."""


class _Collision(Exception):
    """Two tags answered with different bits; ``received`` holds the bits up to there."""

    def __init__(self, position: int, received: list[int]) -> None:
        self.position = position
        self.received = received


class MFRC522:
    """One MFRC522 on its SPI bus. ``scan()`` returns the UIDs in the field now."""

    def __init__(self, spi: SpiBus, *, max_tags: int = 5) -> None:
        self.spi = spi
        self.max_tags = max_tags
        self._read_buf = [0, 0]
        self.version = 0
        self.reset()

    # -- registers
    def _write(self, reg: int, *values: int) -> None:
        self.spi.xfer2([(reg << 1) & 0x7E, *values])

    def _read(self, reg: int) -> int:
        self._read_buf[0] = ((reg << 1) & 0x7E) | 0x80
        self._read_buf[1] = 0
        return self.spi.xfer2(self._read_buf)[1]

    def _set_bits(self, reg: int, mask: int) -> None:
        self._write(reg, self._read(reg) | mask)

    def _clear_bits(self, reg: int, mask: int) -> None:
        self._write(reg, self._read(reg) & ~mask & 0xFF)

    # -- set-up
    def reset(self) -> None:
        """Soft-reset and configure: 25 ms timeout, 100% ASK, CRC preset 0x6363, antenna on."""
        self._write(_REG_COMMAND, _CMD_SOFT_RESET)
        self.version = self._read(_REG_VERSION)
        if self.version in (0x00, 0xFF):
            raise DeviceAbsentError(
                f"no MFRC522 answers on this SPI bus (VersionReg read 0x{self.version:02X}): "
                "check the wiring (MISO/MOSI/SCK/CS), 3.3 V power, and that SPI is enabled"
            )
        self._write(_REG_T_MODE, 0x80)  # timer starts after each transmission
        self._write(_REG_T_PRESCALER, 0xA9)  # 40 kHz ticks
        self._write(_REG_T_RELOAD_H, 0x03)
        self._write(_REG_T_RELOAD_L, 0xE8)  # 1000 ticks = 25 ms
        self._write(_REG_TX_ASK, 0x40)
        self._write(_REG_MODE, 0x3D)
        self._set_bits(_REG_TX_CONTROL, 0x03)  # antenna on

    # -- primitives
    def _crc(self, data: list[int]) -> list[int]:
        self._write(_REG_COMMAND, _CMD_IDLE)
        self._write(_REG_DIV_IRQ, _DIV_IRQ_CRC)
        self._write(_REG_FIFO_LEVEL, _FLUSH)
        self._write(_REG_FIFO_DATA, *data)
        self._write(_REG_COMMAND, _CMD_CALC_CRC)
        for _ in range(_POLLS):
            if self._read(_REG_DIV_IRQ) & _DIV_IRQ_CRC:
                self._write(_REG_COMMAND, _CMD_IDLE)
                return [self._read(_REG_CRC_RESULT_L), self._read(_REG_CRC_RESULT_H)]
        raise ChipError("MFRC522 did not finish a CRC: reset the reader (power-cycle it)")

    def _transceive(
        self, data: list[int], tx_last_bits: int = 0, rx_align: int = 0
    ) -> tuple[list[int], int]:
        """Send ``data``; return the received bytes and the valid bits in the last one."""
        self._write(_REG_COMMAND, _CMD_IDLE)
        self._write(_REG_COM_IRQ, 0x7F)
        self._write(_REG_FIFO_LEVEL, _FLUSH)
        self._write(_REG_FIFO_DATA, *data)
        framing = (rx_align << 4) | tx_last_bits
        self._write(_REG_BIT_FRAMING, framing)
        self._write(_REG_COMMAND, _CMD_TRANSCEIVE)
        self._write(_REG_BIT_FRAMING, framing | _START_SEND)
        for _ in range(_POLLS):
            irq = self._read(_REG_COM_IRQ)
            if irq & (_IRQ_RX | _IRQ_IDLE):
                break
            if irq & _IRQ_TIMER:
                raise _Timeout
        else:
            raise ChipError("MFRC522 transceive never completed: reset the reader")
        self._write(_REG_BIT_FRAMING, framing)
        error = self._read(_REG_ERROR)
        if error & (_ERR_BUFFER_OVFL | _ERR_PARITY | _ERR_PROTOCOL):
            raise ChipError(f"MFRC522 receive error (ErrorReg 0x{error:02X}): a tag moved mid-read")
        n = self._read(_REG_FIFO_LEVEL)
        received = [self._read(_REG_FIFO_DATA) for _ in range(n)]
        last_bits = self._read(_REG_CONTROL) & 0x07
        if error & _ERR_COLL:
            coll = self._read(_REG_COLL)
            if coll & _COLL_POS_NOT_VALID:
                raise ChipError("MFRC522 saw a collision beyond its window: move the cards apart")
            raise _Collision((coll & 0x1F) or 32, received)
        return received, last_bits

    def _request(self, command: int) -> bool:
        """REQA/WUPA: True when at least one tag answered (an ATQA came back)."""
        self._clear_bits(_REG_COLL, 0x80)
        try:
            atqa, _ = self._transceive([command], tx_last_bits=7)
        except _Timeout:
            return False
        except _Collision:
            return True  # ATQAs of different tag types collide; someone is there
        return len(atqa) == 2

    def _anticollision(self, level: int) -> list[int]:
        """Resolve one cascade level: return its 4 UID bytes + BCC, picking 1 on collisions."""
        sel = _PICC_SEL[level]
        uid = [0, 0, 0, 0, 0]
        known = 0  # bits of uid[] already known
        for _ in range(40):
            whole, rem = divmod(known, 8)
            frame = [sel, ((2 + whole) << 4) | rem, *uid[: whole + (1 if rem else 0)]]
            try:
                rx, _ = self._transceive(frame, tx_last_bits=rem, rx_align=rem)
                collision = 0
            except _Collision as c:
                collision = whole * 8 + c.position  # 1-based bit of uid[] that collided
                rx = c.received
            # merge received bits into uid[] from bit `known` on
            for i, byte in enumerate(rx):
                idx = whole + i
                if idx >= 5:
                    break
                mask = (0xFF << rem) & 0xFF if i == 0 else 0xFF
                uid[idx] = (uid[idx] & ~mask & 0xFF) | (byte & mask)
            if not collision:
                if uid[0] ^ uid[1] ^ uid[2] ^ uid[3] != uid[4]:
                    raise ChipError("MFRC522 read a UID with a bad BCC: a tag moved mid-read")
                return uid
            if collision <= known:
                raise ChipError("MFRC522 reported a collision at a bit already resolved")
            bit = collision - 1
            # keep bits below the collision, set the collided bit to 1, drop the rest
            byte_i, bit_i = divmod(bit, 8)
            uid[byte_i] = (uid[byte_i] & ((1 << bit_i) - 1)) | (1 << bit_i)
            for j in range(byte_i + 1, 5):
                uid[j] = 0
            known = collision
        raise ChipError("MFRC522 anticollision did not converge: too many tags at one antenna")

    def _select(self) -> bytes | None:
        """Anticollision + SELECT through the cascade levels; the selected tag's UID."""
        uid: list[int] = []
        for level in range(3):
            cl = self._anticollision(level)
            frame = [_PICC_SEL[level], 0x70, *cl]
            frame += self._crc(frame)
            try:
                sak, _ = self._transceive(frame)
            except _Timeout:
                return None  # the tag left between anticollision and select
            if len(sak) != 3 or self._crc(sak[:1]) != sak[1:]:
                raise ChipError("MFRC522 got a SAK with a bad CRC: a tag moved mid-read")
            if sak[0] & _SAK_CASCADE:
                if cl[0] != _CASCADE_TAG:
                    raise ChipError("MFRC522 got a cascade SAK without the cascade tag")
                uid += cl[1:4]
                continue
            return bytes(uid + cl[:4])
        raise ChipError("MFRC522 tag claims more than 3 cascade levels")

    def _halt(self) -> None:
        frame = [_PICC_HLTA, 0x00]
        frame += self._crc(frame)
        try:
            self._transceive(frame)
        except _Timeout:
            return  # HLTA is answered by silence
        raise ChipError("MFRC522 tag answered HLTA, which tags must not do")

    # -- public
    def scan(self) -> frozenset[bytes]:
        """The UIDs of the tags in the field now (up to ``max_tags``)."""
        found: list[bytes] = []
        if not self._request(_PICC_WUPA):
            return frozenset()
        while len(found) < self.max_tags:
            uid = self._select()
            if uid is None:
                break
            found.append(uid)
            self._halt()
            if not self._request(_PICC_REQA):
                break
        return frozenset(found)

    def antenna_off(self) -> None:
        self._clear_bits(_REG_TX_CONTROL, 0x03)
