"""Fake chips for the driver tests: they model the registers and frames the drivers use.

``FakeMFRC522`` is an SPI device with the MFRC522's register file, FIFO, timer IRQ,
CRC coprocessor and ISO 14443A tags in its field (REQA/WUPA, bit-wise anticollision with
real collisions, SELECT over cascade levels, HLTA). ``FakePN532`` is an I2C link that
speaks the PN532's normal frames (ACK, status byte, InListPassiveTarget up to 2 tags).
"""

from __future__ import annotations

from dataclasses import dataclass


def crc_a(data: list[int]) -> list[int]:
    """ISO 14443A CRC_A (preset 0x6363), low byte first."""
    crc = 0x6363
    for byte in data:
        b = (byte ^ crc) & 0xFF
        b = (b ^ (b << 4)) & 0xFF
        crc = ((crc >> 8) ^ (b << 8) ^ (b << 3) ^ (b >> 4)) & 0xFFFF
    return [crc & 0xFF, crc >> 8]


@dataclass
class FakeTag:
    uid: bytes
    state: str = "idle"  # idle, ready, active, halt
    level: int = 0

    def cascade(self, level: int) -> list[int]:
        """The 4 UID bytes + BCC this tag answers at cascade ``level``."""
        u = list(self.uid)
        if len(u) == 4:
            parts = [u]
        elif len(u) == 7:
            parts = [[0x88, *u[0:3]], u[3:7]]
        else:
            parts = [[0x88, *u[0:3]], [0x88, *u[3:6]], u[6:10]]
        cl = parts[level]
        return [*cl, cl[0] ^ cl[1] ^ cl[2] ^ cl[3]]

    @property
    def levels(self) -> int:
        return {4: 1, 7: 2, 10: 3}[len(self.uid)]


def _bits(data: list[int], n: int) -> list[int]:
    return [(data[i // 8] >> (i % 8)) & 1 for i in range(n)]


class FakeMFRC522:
    """An MFRC522 on SPI (spidev's xfer2) with tags in its field."""

    def __init__(self, version: int = 0x92) -> None:
        self.version = version
        self.tags: list[FakeTag] = []
        self.transfers = 0
        self._reset()

    def _reset(self) -> None:
        self.regs = [0] * 64
        self.regs[0x37] = self.version
        self.fifo: list[int] = []

    def place(self, uid: bytes) -> None:
        self.tags.append(FakeTag(uid))

    def lift(self, uid: bytes) -> None:
        self.tags = [t for t in self.tags if t.uid != uid]

    # -- SPI
    def xfer2(self, data: list[int]) -> list[int]:
        self.transfers += 1
        reg = (data[0] >> 1) & 0x3F
        if data[0] & 0x80:
            regs = [reg] + [(b >> 1) & 0x3F for b in data[1:-1]]
            return [0] + [self._read(r) for r in regs]
        for value in data[1:]:
            self._write(reg, value)
        return [0] * len(data)

    def _read(self, reg: int) -> int:
        if reg == 0x09:
            return self.fifo.pop(0) if self.fifo else 0
        if reg == 0x0A:
            return len(self.fifo)
        return self.regs[reg]

    def _write(self, reg: int, value: int) -> None:
        if reg == 0x09:
            self.fifo.append(value)
        elif reg == 0x0A:
            if value & 0x80:
                self.fifo.clear()
        elif reg in (0x04, 0x05):  # ComIrqReg/DivIrqReg: bit 7 says set or clear
            mask = value & 0x7F
            self.regs[reg] = self.regs[reg] | mask if value & 0x80 else self.regs[reg] & ~mask
        elif reg == 0x01:
            self.regs[reg] = value
            command = value & 0x0F
            if command == 0x0F:
                self._reset()
            elif command == 0x03:
                self.regs[0x22], self.regs[0x21] = crc_a(self.fifo)
                self.regs[0x05] |= 0x04
        elif reg == 0x0D:
            self.regs[reg] = value
            if value & 0x80 and self.regs[0x01] & 0x0F == 0x0C:
                self._transceive(value & 0x07, (value >> 4) & 0x07)
        else:
            self.regs[reg] = value

    # -- the air interface
    def _transceive(self, tx_last_bits: int, rx_align: int) -> None:
        tx, self.fifo = self.fifo, []
        self.regs[0x06] = 0
        self.regs[0x0C] &= ~0x07
        reply = None
        if self.regs[0x14] & 0x03 == 0:
            reply = None  # antenna off: nobody hears us
        elif tx in ([0x26], [0x52]) and tx_last_bits == 7:
            reply = self._request(wake=tx[0] == 0x52)
        elif tx and tx[0] in (0x93, 0x95, 0x97):
            reply = self._select(tx, rx_align)
        elif tx[:2] == [0x50, 0x00] and tx[2:] == crc_a(tx[:2]):
            for t in self.tags:
                if t.state == "active":
                    t.state = "halt"
        if reply is None:
            self.regs[0x04] |= 0x01  # TimerIRq
        else:
            self.fifo = reply
            self.regs[0x04] |= 0x30  # RxIRq | IdleIRq

    def _request(self, wake: bool) -> list[int] | None:
        answering = [t for t in self.tags if t.state != "halt" or wake]
        for t in self.tags:
            t.state, t.level = ("ready", 0) if t in answering else (t.state, t.level)
        if not answering:
            return None
        return [0x44 if len(answering[0].uid) > 4 else 0x04, 0x00]

    def _select(self, tx: list[int], rx_align: int) -> list[int] | None:
        level = (0x93, 0x95, 0x97).index(tx[0])
        ready = [t for t in self.tags if t.state == "ready" and t.level == level]
        nvb = tx[1]
        if nvb == 0x70:  # SELECT
            if len(tx) != 9 or tx[7:9] != crc_a(tx[:7]):
                return None
            chosen = [t for t in ready if t.cascade(level) == tx[2:7]]
            if not chosen:
                return None
            tag = chosen[0]
            for t in ready:
                if t is not tag:
                    t.state = "idle"
            if level + 1 < tag.levels:
                tag.level += 1
                sak = 0x04
            else:
                tag.state = "active"
                sak = 0x00
            return [sak, *crc_a([sak])]
        known = ((nvb >> 4) - 2) * 8 + (nvb & 0x0F)
        prefix = _bits(tx[2:], known)
        answering = [t for t in ready if _bits(t.cascade(level), known) == prefix]
        if not answering:
            return None
        streams = [_bits(t.cascade(level), 40)[known:] for t in answering]
        out_bits: list[int] = []
        collision = None
        for i, column in enumerate(zip(*streams, strict=True)):
            if len(set(column)) > 1:
                collision = i
                break
            out_bits.append(column[0])
        whole = known // 8
        bits = [0] * rx_align + out_bits
        bits += [0] * ((40 - whole * 8) - len(bits))
        reply = [sum(b << j for j, b in enumerate(bits[k : k + 8])) for k in range(0, len(bits), 8)]
        if collision is not None:
            self.regs[0x06] |= 0x08  # CollErr
            self.regs[0x0E] = (rx_align + collision + 1) & 0x1F
        return reply


class FakePN532:
    """A PN532 on I2C: write a frame, poll the status byte, read ACK, then the reply."""

    def __init__(self, firmware: tuple[int, int] = (1, 6), *, present: bool = True) -> None:
        self.firmware = firmware
        self.present = present
        self.tags: list[bytes] = []
        self._pending: list[bytes] = []
        self.commands: list[int] = []
        self.corrupt_next = False

    def place(self, uid: bytes) -> None:
        self.tags.append(uid)

    def lift(self, uid: bytes) -> None:
        self.tags.remove(uid)

    @staticmethod
    def _frame(body: bytes) -> bytes:
        n = len(body)
        return bytes([0, 0, 0xFF, n, (-n) & 0xFF]) + body + bytes([(-sum(body)) & 0xFF, 0])

    def write(self, data: bytes) -> None:
        if not self.present:
            raise OSError(121, "Remote I/O error")
        assert data[:3] == b"\x00\x00\xff", "frame without preamble"
        n, lcs = data[3], data[4]
        assert (n + lcs) & 0xFF == 0, "bad LCS"
        body = data[5 : 5 + n]
        assert (sum(body) + data[5 + n]) & 0xFF == 0, "bad DCS"
        assert body[0] == 0xD4
        command, params = body[1], body[2:]
        self.commands.append(command)
        reply = self._answer(command, params)
        frame = self._frame(bytes([0xD5, command + 1]) + reply)
        if self.corrupt_next:
            self.corrupt_next = False
            frame = frame[:-2] + bytes([frame[-2] ^ 0xFF]) + frame[-1:]
        self._pending = [b"\x00\x00\xff\x00\xff\x00", frame]

    def _answer(self, command: int, params: bytes) -> bytes:
        if command == 0x02:
            return bytes([0x32, *self.firmware, 0x07])
        if command == 0x4A:
            max_tg = params[0]
            out = bytearray([min(max_tg, len(self.tags))])
            for i, uid in enumerate(self.tags[:max_tg]):
                out += bytes([i + 1, 0x00, 0x44, 0x00, len(uid)]) + uid
            return bytes(out)
        if command == 0x52:
            return b"\x00"
        return b""

    def read(self, n: int) -> bytes:
        if not self.present:
            raise OSError(121, "Remote I/O error")
        if not self._pending:
            return bytes([0x00] + [0] * (n - 1))
        if n == 1:
            return b"\x01"
        payload = self._pending.pop(0)
        return (b"\x01" + payload + bytes(n))[:n]


# the 7-segment glyphs the HT16K33 fake reads back (a = bit 0 ... g = bit 6, dp = bit 7),
# written out here from the segment drawing, not taken from the driver
_GLYPHS = {
    0x3F: "0", 0x06: "1", 0x5B: "2", 0x4F: "3", 0x66: "4", 0x6D: "5", 0x7D: "6",
    0x07: "7", 0x7F: "8", 0x6F: "9", 0x40: "-", 0x00: " ", 0x79: "E", 0x73: "P",
    0x77: "A", 0x3E: "U", 0x38: "L",
}  # fmt: skip
_BACKPACK_DIGITS = (0x00, 0x02, 0x06, 0x08)  # Adafruit 4-digit backpack; 0x04 is the colon


class FakeHT16K33:
    """An HT16K33 LED driver as an SMBus device: command bytes and 16 bytes of display RAM."""

    def __init__(self) -> None:
        self.oscillator = False
        self.display_on = False
        self.blink_hz = 0.0
        self.brightness = 0  # 0..15 (duty 1/16..16/16)
        self.ram = [0] * 16

    def command(self, value: int) -> None:
        kind = value & 0xF0
        if kind == 0x20:  # system setup
            self.oscillator = bool(value & 0x01)
        elif kind == 0x80:  # display setup: on, blink rate
            self.display_on = bool(value & 0x01)
            self.blink_hz = {0: 0.0, 1: 2.0, 2: 1.0, 3: 0.5}[(value >> 1) & 0x03]
        elif kind == 0xE0:  # dimming
            self.brightness = value & 0x0F
        else:
            raise AssertionError(f"HT16K33: 0x{value:02X} is not a command")

    def write_ram(self, start: int, data: list[int]) -> None:
        if start + len(data) > 16:
            raise AssertionError(f"HT16K33: RAM write {start}+{len(data)} runs past 0x0F")
        self.ram[start : start + len(data)] = [b & 0xFF for b in data]

    def shown(self) -> str:
        """What the four digits show (blank with the display or oscillator off)."""
        if not (self.oscillator and self.display_on):
            return ""
        return "".join(_GLYPHS.get(self.ram[a] & 0x7F, "?") for a in _BACKPACK_DIGITS)


class FakeSMBus:
    """An ``smbus2.SMBus`` stand-in: devices by address; others NACK (OSError 121)."""

    def __init__(self, devices: dict[int, FakeHT16K33]) -> None:
        self.devices = devices

    def _device(self, address: int) -> FakeHT16K33:
        if address not in self.devices:
            raise OSError(121, "Remote I/O error")
        return self.devices[address]

    def write_byte(self, address: int, value: int) -> None:
        self._device(address).command(value)

    def write_i2c_block_data(self, address: int, register: int, data: list[int]) -> None:
        if len(data) > 32:
            raise OSError(22, "an SMBus block is at most 32 bytes")
        self._device(address).write_ram(register, data)
