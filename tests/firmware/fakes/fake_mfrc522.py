"""A fake MFRC522 chip with an ISO 14443A card that can be put on and taken off.

It models the registers the driver uses, the FIFO, the CRC coprocessor, and the card's
IDLE / READY / ACTIVE / HALT states (ISO 14443-3), so the driver's command sequences are
checked, not just its reads. Runs on CPython and MicroPython.
"""

_COMMAND = 0x01
_COM_IRQ = 0x04
_DIV_IRQ = 0x05
_ERROR = 0x06
_FIFO_DATA = 0x09
_FIFO_LEVEL = 0x0A
_BIT_FRAMING = 0x0D
_CRC_H = 0x21
_CRC_L = 0x22
_VERSION = 0x37

IDLE, READY, ACTIVE, HALT = 0, 1, 2, 3


def crc_a(data):
    """ISO 14443A CRC (init 0x6363, reflected 0x8408): (low byte, high byte)."""
    crc = 0x6363
    for b in data:
        b ^= crc & 0xFF
        b = (b ^ (b << 4)) & 0xFF
        crc = (crc >> 8) ^ (b << 8) ^ (b << 3) ^ (b >> 4)
    return crc & 0xFF, (crc >> 8) & 0xFF


class FakeMFRC522:
    def __init__(self):
        self.regs = bytearray(64)
        self.fifo = []
        self.uid = None
        self.state = IDLE
        self.level = 0  # cascade level selected so far
        self.commands = []  # card commands received, for the tests

    # the card
    def place(self, uid):
        self.uid = bytes(uid)
        self.state = IDLE
        self.level = 0

    def remove(self):
        self.uid = None

    # SPI
    def transfer(self, wbuf, rbuf):
        addr = wbuf[0]
        reg = (addr >> 1) & 0x3F
        if addr & 0x80:
            if rbuf is not None:
                rbuf[0] = 0
                for i in range(1, len(wbuf)):
                    rbuf[i] = self._read(reg)
        else:
            for i in range(1, len(wbuf)):
                self._write(reg, wbuf[i])

    def _read(self, reg):
        if reg == _FIFO_DATA:
            return self.fifo.pop(0) if self.fifo else 0
        if reg == _FIFO_LEVEL:
            return len(self.fifo)
        if reg == _VERSION:
            return 0x92
        return self.regs[reg]

    def _write(self, reg, v):
        if reg == _FIFO_DATA:
            self.fifo.append(v)
        elif reg == _FIFO_LEVEL:
            if v & 0x80:
                self.fifo = []
        elif reg in (_COM_IRQ, _DIV_IRQ):
            if v & 0x80:
                self.regs[reg] |= v & 0x7F
            else:
                self.regs[reg] &= ~v & 0xFF
        elif reg == _COMMAND:
            self.regs[reg] = v
            if v == 0x0F:  # soft reset
                self.regs = bytearray(64)
                self.fifo = []
            elif v == 0x03:  # CalcCRC
                lo, hi = crc_a(self.fifo)
                self.regs[_CRC_L] = lo
                self.regs[_CRC_H] = hi
                self.fifo = []
                self.regs[_DIV_IRQ] |= 0x04
        elif reg == _BIT_FRAMING:
            self.regs[reg] = v
            if v & 0x80 and self.regs[_COMMAND] == 0x0C:
                self._transceive(bytes(self.fifo), v & 0x07)
        else:
            self.regs[reg] = v

    # the air
    def _transceive(self, tx, last_bits):
        self.fifo = []
        self.regs[_ERROR] = 0
        if tx:
            self.commands.append(tx[0])
        reply = self._card(tx, last_bits) if self.uid is not None else None
        if reply is None:
            self.regs[_COM_IRQ] |= 0x01  # timer: nobody answered
        else:
            self.fifo = list(reply)
            self.regs[_COM_IRQ] |= 0x30

    def _part(self, level):
        uid = self.uid
        if len(uid) == 4:
            return uid
        return (b"\x88" + uid[:3]) if level == 1 else uid[3:7]

    def _card(self, tx, last_bits):
        cmd = tx[0]
        if len(tx) == 1 and last_bits == 7 and cmd in (0x26, 0x52):
            if self.state == IDLE or (self.state == HALT and cmd == 0x52):
                self.state = READY
                self.level = 1
                return b"\x44\x00" if len(self.uid) == 7 else b"\x04\x00"
            return None
        if len(tx) == 2 and tx[1] == 0x20 and cmd in (0x93, 0x95) and self.state == READY:
            level = 1 if cmd == 0x93 else 2
            if level != self.level:
                self.state = IDLE
                return None
            part = self._part(level)
            return part + bytes((part[0] ^ part[1] ^ part[2] ^ part[3],))
        if len(tx) == 9 and tx[1] == 0x70 and cmd in (0x93, 0x95) and self.state == READY:
            level = 1 if cmd == 0x93 else 2
            part = self._part(level)
            want = bytes((cmd, 0x70)) + part + bytes((part[0] ^ part[1] ^ part[2] ^ part[3],))
            if tx[:7] != want or bytes(crc_a(tx[:7])) != tx[7:9]:
                self.state = IDLE
                return None
            more = len(self.uid) == 7 and level == 1
            sak = 0x04 if more else 0x00
            if more:
                self.level = 2
            else:
                self.state = ACTIVE
            return bytes((sak,)) + bytes(crc_a(bytes((sak,))))
        if len(tx) == 4 and cmd == 0x50 and self.state == ACTIVE:
            if bytes(crc_a(tx[:2])) == tx[2:4]:
                self.state = HALT
            return None
        # anything else makes the card drop back (ISO 14443-3)
        self.state = HALT if self.state == HALT else IDLE
        return None
