"""MFRC522 RFID reader (13.56 MHz, ISO 14443A) over SPI: reads the UID of the card on it.

Given its SPI bus and chip-select pin, never creating them (several readers share one
bus). Reads 4- and 7-byte UIDs (MIFARE Classic, NTAG21x playing cards) with the
ISO 14443-3 WUPA / anticollision / select / HLTA sequence. Buffers are
allocated once; ``read_uid()`` allocates only the UID it returns.
"""

try:
    from micropython import const
except ImportError:  # CPython
    const = lambda x: x  # noqa: E731


# Registers
_CommandReg = const(0x01)
_ComIrqReg = const(0x04)
_DivIrqReg = const(0x05)
_ErrorReg = const(0x06)
_FIFODataReg = const(0x09)
_FIFOLevelReg = const(0x0A)
_BitFramingReg = const(0x0D)
_ModeReg = const(0x11)
_TxControlReg = const(0x14)
_TxASKReg = const(0x15)
_CRCResultRegH = const(0x21)
_CRCResultRegL = const(0x22)
_TModeReg = const(0x2A)
_TPrescalerReg = const(0x2B)
_TReloadRegH = const(0x2C)
_TReloadRegL = const(0x2D)
_VersionReg = const(0x37)
# Chip commands
_PCD_IDLE = const(0x00)
_PCD_CALCCRC = const(0x03)
_PCD_TRANSCEIVE = const(0x0C)
_PCD_SOFTRESET = const(0x0F)
# Card commands
_PICC_WUPA = const(0x52)
_PICC_HLTA = const(0x50)
_PICC_SEL_CL1 = const(0x93)
_PICC_SEL_CL2 = const(0x95)
_CASCADE_TAG = const(0x88)
_POLL_LIMIT = const(200)


class MFRC522:
    """One MFRC522 on a shared SPI bus, selected by ``cs`` (a ``machine.Pin``, output)."""

    def __init__(self, spi, cs):
        self.spi = spi
        self.cs = cs
        self._addr = bytearray(1)
        self._val = bytearray(1)
        self._io = bytearray(2)
        self._frame = bytearray(9)  # select command: SEL, NVB, 4 UID bytes, BCC, CRC_A
        self._fifo = bytearray(16)
        cs.value(1)

    # --- registers ------------------------------------------------------------------------
    def _write(self, reg, value):
        io = self._io
        io[0] = (reg << 1) & 0x7E
        io[1] = value
        self.cs.value(0)
        self.spi.write(io)
        self.cs.value(1)

    def _read(self, reg):
        io = self._io
        io[0] = ((reg << 1) & 0x7E) | 0x80
        io[1] = 0
        self.cs.value(0)
        self.spi.write_readinto(io, io)
        self.cs.value(1)
        return io[1]

    def _set_bits(self, reg, mask):
        self._write(reg, self._read(reg) | mask)

    def _clear_bits(self, reg, mask):
        self._write(reg, self._read(reg) & (~mask & 0xFF))

    # --- chip -----------------------------------------------------------------------------
    def init(self):
        """Reset the chip and turn the antenna on; returns its version byte (0x91/0x92)."""
        self._write(_CommandReg, _PCD_SOFTRESET)
        self._write(_TModeReg, 0x8D)
        self._write(_TPrescalerReg, 0x3E)
        self._write(_TReloadRegL, 30)
        self._write(_TReloadRegH, 0)
        self._write(_TxASKReg, 0x40)
        self._write(_ModeReg, 0x3D)
        self._set_bits(_TxControlReg, 0x03)
        return self._read(_VersionReg)

    def _transceive(self, data, n, tx_last_bits=0):
        """Send ``data[:n]`` to the card; returns the number of bytes read into the FIFO
        buffer, or -1 on timeout or error."""
        self._write(_CommandReg, _PCD_IDLE)
        self._write(_ComIrqReg, 0x7F)
        self._write(_FIFOLevelReg, 0x80)
        for i in range(n):
            self._write(_FIFODataReg, data[i])
        self._write(_BitFramingReg, tx_last_bits)
        self._write(_CommandReg, _PCD_TRANSCEIVE)
        self._set_bits(_BitFramingReg, 0x80)
        for _ in range(_POLL_LIMIT):
            irq = self._read(_ComIrqReg)
            if irq & 0x30:  # RxIRq | IdleIRq
                break
            if irq & 0x01:  # TimerIRq: no card answered
                return -1
        else:
            return -1
        self._clear_bits(_BitFramingReg, 0x80)
        if self._read(_ErrorReg) & 0x13:  # BufferOvfl | ParityErr | ProtocolErr
            return -1
        k = self._read(_FIFOLevelReg)
        if k > len(self._fifo):
            return -1
        for i in range(k):
            self._fifo[i] = self._read(_FIFODataReg)
        return k

    def _crc_a(self, data, n):
        """CRC_A of ``data[:n]`` by the chip's coprocessor, appended at ``data[n:n+2]``."""
        self._write(_CommandReg, _PCD_IDLE)
        self._write(_DivIrqReg, 0x04)
        self._write(_FIFOLevelReg, 0x80)
        for i in range(n):
            self._write(_FIFODataReg, data[i])
        self._write(_CommandReg, _PCD_CALCCRC)
        for _ in range(_POLL_LIMIT):
            if self._read(_DivIrqReg) & 0x04:
                break
        else:
            return False
        self._write(_CommandReg, _PCD_IDLE)
        data[n] = self._read(_CRCResultRegL)
        data[n + 1] = self._read(_CRCResultRegH)
        return True

    # --- cards ----------------------------------------------------------------------------
    def _anticollision(self, level):
        """The 4 UID bytes at cascade ``level`` (in ``_frame[2:6]``), True if the BCC holds."""
        f = self._frame
        f[0] = level
        f[1] = 0x20
        if self._transceive(f, 2) != 5:
            return False
        fifo = self._fifo
        if fifo[0] ^ fifo[1] ^ fifo[2] ^ fifo[3] != fifo[4]:
            return False
        for i in range(5):
            f[2 + i] = fifo[i]
        return True

    def _select(self, level):
        """Select the card at ``level`` with the UID part in ``_frame``; returns its SAK or -1."""
        f = self._frame
        f[0] = level
        f[1] = 0x70
        if not self._crc_a(f, 7):
            return -1
        if self._transceive(f, 9) != 3:
            return -1
        return self._fifo[0]

    def _halt(self):
        """Put the card to sleep (HALT): the next WUPA wakes it, so every poll reads it."""
        f = self._frame
        f[0] = _PICC_HLTA
        f[1] = 0
        if self._crc_a(f, 2):
            self._transceive(f, 4)  # a halted card does not answer: a timeout is success

    def read_uid(self):
        """The UID (bytes, 4 or 7 long) of the card on the reader, or None.

        WUPA, anticollision and select (cascade level 2 for 7-byte UIDs), then HLTA: a
        card left on the reader answers the next poll's WUPA again, so presence does not
        flicker the way REQA-only polling does.
        """
        f = self._frame
        f[0] = _PICC_WUPA
        if self._transceive(f, 1, 0x07) != 2:  # WUPA is a 7-bit frame; ATQA is 2 bytes
            return None
        if not self._anticollision(_PICC_SEL_CL1):
            return None
        if f[2] != _CASCADE_TAG:
            uid = bytes(f[2:6])
            if self._select(_PICC_SEL_CL1) < 0:
                return None
        else:
            head = bytes(f[3:6])  # 7-byte UID: CT, uid0..2 at level 1, uid3..6 at level 2
            if self._select(_PICC_SEL_CL1) < 0:
                return None
            if not self._anticollision(_PICC_SEL_CL2):
                return None
            uid = head + bytes(f[2:6])
            if self._select(_PICC_SEL_CL2) < 0:
                return None
        self._halt()
        return uid
