"""The seat link: framing, checks and reliable delivery between a seat node and the Pi.

One module, imported by the seat-node firmware (MicroPython) and by the controller
(CPython, ``controller/devices/seatlink.py``). It does no I/O and reads no clock: callers
feed it received bytes with the current time in milliseconds and take the bytes it wants
written.

Wire format. Each frame is COBS-encoded and ends with one ``0x00`` byte, so a receiver
resynchronises at the next zero whatever garbage came before. Decoded, a frame is::

    type (u8) | seq (u16, big endian) | body (0..MAX_BODY bytes) | CRC-16 (u16, big endian)

The CRC is CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF) over type, seq and body. Why
16 bits and this polynomial: frames are at most 21 bytes, where CRC-16/CCITT keeps a
Hamming distance of 4 (every 1-, 2- and 3-bit error and every burst up to 16 bits is
caught), which is what a UART/RS-485 line at a card table needs; it costs two bytes per
frame instead of four, its 256-entry table is 512 bytes of RAM on the node, and CPython
computes exactly this CRC in C (``binascii.crc_hqx(data, 0xFFFF)``), which keeps the Pi
side fast. The table-driven fallback here is what MicroPython runs; the tests prove the
two agree on arbitrary data.

Delivery. Data frames (hello, card, button, LED) carry a sequence number given when the
frame is first transmitted and are sent stop-and-wait: one in flight, retransmitted with
exponential backoff until acked, never given up (so the receiver never sees a gap it
must skip). ACK frames carry the acked seq; HEARTBEAT frames are neither sequenced nor
acked. A receiver accepts a data frame whose seq is ahead of the last accepted one
(serial-number arithmetic, half the 16-bit space); the same seq again is a duplicate
(re-acked, not delivered); anything behind is a replay (rejected, counted). A fresh
receiver takes the first data frame it sees as its baseline, and a HELLO carrying a boot
id it has not seen re-baselines it: a peer that rebooted starts over at seq 0.

Every rejected frame is counted in ``LinkStats`` and otherwise ignored: nothing a peer
or a noisy line sends can raise out of ``LinkEndpoint.feed``.
"""

try:
    from micropython import const
except ImportError:  # CPython
    const = lambda x: x  # noqa: E731


try:
    from time import ticks_diff  # type: ignore[attr-defined]
except ImportError:  # CPython: the controller's clock is monotonic and never wraps

    def ticks_diff(a, b):  # type: ignore[no-redef]
        return a - b


import struct

PROTOCOL_VERSION = const(2)  # 2: the body length is in the checked header

# Frame types. Control frames:
T_ACK = const(0x01)
T_HEARTBEAT = const(0x02)
# Data frames (sequenced, acked). Both directions:
T_HELLO = const(0x03)
# Node -> Pi:
T_CARD_ARRIVED = const(0x10)
T_CARD_LEFT = const(0x11)
T_BUTTON = const(0x12)
# Pi -> node:
T_LED = const(0x20)

NODE_ACCEPTS = (T_HELLO, T_LED)
CONTROLLER_ACCEPTS = (T_HELLO, T_CARD_ARRIVED, T_CARD_LEFT, T_BUTTON)

# LED ring modes carried by T_LED.
LED_OFF = const(0)
LED_IDLE = const(1)
LED_TURN = const(2)
LED_SHOT_CLOCK = const(3)
LED_ALL_IN = const(4)
LED_WINNER = const(5)
LED_MODES = (LED_OFF, LED_IDLE, LED_TURN, LED_SHOT_CLOCK, LED_ALL_IN, LED_WINNER)

NO_READER = const(0xFF)  # hello: the node has no player-card reader
CONTROLLER_SEAT = const(0xFF)  # hello: sent by the controller, not a seat

MAX_BODY = const(16)
# type, seq (2), body length: the length makes a frame cut short by a corrupted delimiter
# fail for certain, not by the 1-in-65536 chance of its last two bytes passing as a CRC.
_HEADER = const(4)
_CRC_LEN = const(2)
MIN_FRAME = const(6)  # header + CRC, empty body
MAX_FRAME = const(22)  # header + MAX_BODY + CRC
MAX_ENCODED = const(23)  # COBS adds one byte per 254 (so one here); the delimiter is extra

# Body length (min, max) per type; anything else is rejected as malformed.
_HELLO_FMT = ">BIBBBBBB"  # proto, boot id, seat, fw major, minor, patch, readers, player reader
_HELLO_LEN = const(11)
_LED_FMT = ">BBBBII"  # mode, r, g, b, remaining ms, total ms
_LED_LEN = const(12)
_BODY_LEN = {
    T_ACK: (0, 0),
    T_HEARTBEAT: (0, 0),
    T_HELLO: (_HELLO_LEN, _HELLO_LEN),
    T_CARD_ARRIVED: (5, 11),  # reader + 4, 7 or 10 byte UID
    T_CARD_LEFT: (5, 11),
    T_BUTTON: (1, 1),
    T_LED: (_LED_LEN, _LED_LEN),
}

# --- CRC-16/CCITT-FALSE -------------------------------------------------------------------


def _make_crc_table():
    table = []
    for i in range(256):
        crc = i << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
        table.append(crc & 0xFFFF)
    return tuple(table)


_CRC_TABLE = _make_crc_table()


def crc16_table(data, crc=0xFFFF):
    """CRC-16/CCITT-FALSE of ``data``, table-driven (what MicroPython runs)."""
    table = _CRC_TABLE
    for b in data:
        crc = ((crc << 8) & 0xFF00) ^ table[(crc >> 8) ^ b]
    return crc


try:
    from binascii import crc_hqx as _crc_hqx  # type: ignore[attr-defined]

    def crc16(data, crc=0xFFFF):
        """CRC-16/CCITT-FALSE of ``data`` (CPython: binascii's C implementation)."""
        return _crc_hqx(data, crc)

except ImportError:  # MicroPython
    crc16 = crc16_table


# --- COBS ---------------------------------------------------------------------------------


def cobs_encode(data):
    """COBS-encode ``data`` (no zero byte in the result; the delimiter is not added)."""
    out = bytearray(len(data) + len(data) // 254 + 2)
    code_at = 0
    code = 1
    o = 1
    for b in data:
        if b == 0:
            out[code_at] = code
            code_at = o
            o += 1
            code = 1
        else:
            out[o] = b
            o += 1
            code += 1
            if code == 0xFF:
                out[code_at] = code
                code_at = o
                o += 1
                code = 1
    out[code_at] = code
    return bytes(out[:o])


def cobs_decode(enc):
    """Decode one COBS block (without its delimiter); None if it is not valid COBS."""
    n = len(enc)
    if n == 0 or b"\x00" in enc:
        return None
    out = bytearray()
    i = 0
    while i < n:
        code = enc[i]
        j = i + code
        if j > n:
            return None  # a block that runs past the end: truncated
        out += enc[i + 1 : j]
        if code != 0xFF and j < n:
            out.append(0)
        i = j
    return bytes(out)


# --- Frames -------------------------------------------------------------------------------


class LinkFrame:
    """One checked frame: its type, sequence number and body."""

    def __init__(self, ftype, seq, body):
        self.ftype = ftype
        self.seq = seq
        self.body = body

    def __eq__(self, other):
        return (
            isinstance(other, LinkFrame)
            and self.ftype == other.ftype
            and self.seq == other.seq
            and self.body == other.body
        )

    def __repr__(self):
        return f"LinkFrame(type=0x{self.ftype:02x}, seq={self.seq}, body={self.body!r})"


def encode_frame(ftype, seq, body=b""):
    """The bytes to put on the wire for one frame, delimiter included."""
    if len(body) > MAX_BODY:
        raise ValueError("frame body too long")
    raw = bytearray(_HEADER + len(body) + _CRC_LEN)
    raw[0] = ftype
    raw[1] = (seq >> 8) & 0xFF
    raw[2] = seq & 0xFF
    raw[3] = len(body)
    raw[_HEADER : _HEADER + len(body)] = body
    crc = crc16(memoryview(raw)[: _HEADER + len(body)])
    raw[-2] = crc >> 8
    raw[-1] = crc & 0xFF
    return cobs_encode(raw) + b"\x00"


class LinkStats:
    """Counters of what the link received, rejected and resent (all ints, all start at 0)."""

    FIELDS = (
        "frames_ok",
        "rejected_cobs",
        "rejected_short",
        "rejected_oversize",
        "rejected_crc",
        "rejected_type",
        "rejected_length",
        "rejected_replay",
        "duplicates",
        "delivered",
        "acks_sent",
        "acked",
        "stale_acks",
        "retransmits",
        "dropped_queue_full",
        "heartbeats_sent",
    )

    def __init__(self):
        self.frames_ok = 0
        self.rejected_cobs = 0
        self.rejected_short = 0
        self.rejected_oversize = 0
        self.rejected_crc = 0
        self.rejected_type = 0
        self.rejected_length = 0
        self.rejected_replay = 0
        self.duplicates = 0
        self.delivered = 0
        self.acks_sent = 0
        self.acked = 0
        self.stale_acks = 0
        self.retransmits = 0
        self.dropped_queue_full = 0
        self.heartbeats_sent = 0

    def rejected(self):
        """Frames thrown away as damaged, unexpected or replayed."""
        return (
            self.rejected_cobs
            + self.rejected_short
            + self.rejected_oversize
            + self.rejected_crc
            + self.rejected_type
            + self.rejected_length
            + self.rejected_replay
        )

    def as_dict(self):
        return {name: getattr(self, name) for name in self.FIELDS}


class FrameDecoder:
    """Splits a byte stream at zero bytes and checks each frame; bad frames are counted."""

    def __init__(self, stats=None, accept=None):
        self.stats = stats if stats is not None else LinkStats()
        # Types this side accepts besides ACK and HEARTBEAT; None accepts every known type.
        self._accept = accept
        self._buf = bytearray(MAX_ENCODED)
        self._n = 0
        self._overflow = False

    def feed(self, data):
        """Feed received bytes; returns the list of good ``LinkFrame`` found in them."""
        frames = []
        start = 0
        n = len(data)
        while start < n:
            end = data.find(b"\x00", start)
            if end < 0:
                self._stash(data, start, n)
                break
            if self._n or self._overflow:
                self._stash(data, start, end)
                if self._overflow:
                    self.stats.rejected_oversize += 1
                    self._overflow = False
                    self._n = 0
                    start = end + 1
                    continue
                enc = bytes(self._buf[: self._n])
                self._n = 0
            else:
                enc = data[start:end]
            start = end + 1
            if enc:
                frame = self._check(enc)
                if frame is not None:
                    frames.append(frame)
        return frames

    def _stash(self, data, start, end):
        k = end - start
        if k <= 0:
            return
        if self._overflow or self._n + k > MAX_ENCODED:
            self._overflow = True
            return
        self._buf[self._n : self._n + k] = data[start:end]
        self._n += k

    def _check(self, enc):
        stats = self.stats
        if len(enc) > MAX_ENCODED:
            stats.rejected_oversize += 1
            return None
        raw = cobs_decode(enc)
        if raw is None:
            stats.rejected_cobs += 1
            return None
        n = len(raw)
        if n < MIN_FRAME:
            stats.rejected_short += 1
            return None
        if n > MAX_FRAME:
            stats.rejected_oversize += 1
            return None
        if crc16(raw[:-2]) != (raw[-2] << 8) | raw[-1]:
            stats.rejected_crc += 1
            return None
        if raw[3] != n - _HEADER - _CRC_LEN:  # cut short or run together
            stats.rejected_length += 1
            return None
        ftype = raw[0]
        limits = _BODY_LEN.get(ftype)
        if limits is None or (
            self._accept is not None
            and ftype != T_ACK
            and ftype != T_HEARTBEAT
            and ftype not in self._accept
        ):
            stats.rejected_type += 1
            return None
        blen = n - _HEADER - _CRC_LEN
        if blen < limits[0] or blen > limits[1]:
            stats.rejected_length += 1
            return None
        stats.frames_ok += 1
        return LinkFrame(ftype, (raw[1] << 8) | raw[2], raw[_HEADER:-2])


# --- Bodies -------------------------------------------------------------------------------


def hello_body(boot_id, seat, version, readers=0, player_reader=NO_READER):
    """Body of a HELLO: protocol version, boot id, seat id, firmware version, readers."""
    return struct.pack(
        _HELLO_FMT,
        PROTOCOL_VERSION,
        boot_id & 0xFFFFFFFF,
        seat,
        version[0],
        version[1],
        version[2],
        readers,
        player_reader,
    )


def parse_hello(body):
    """(protocol, boot id, seat, (major, minor, patch), readers, player reader)."""
    p, boot, seat, a, b, c, readers, player = struct.unpack(_HELLO_FMT, body)
    return p, boot, seat, (a, b, c), readers, player


def card_body(reader, uid):
    return bytes((reader,)) + bytes(uid)


def led_body(mode, rgb=(0, 0, 0), remaining_ms=0, total_ms=0):
    """Body of an LED command: a mode, a colour, and for the shot clock its time left/total."""
    return struct.pack(_LED_FMT, mode, rgb[0], rgb[1], rgb[2], remaining_ms, total_ms)


def parse_led(body):
    """(mode, (r, g, b), remaining ms, total ms)."""
    mode, r, g, b, remaining, total = struct.unpack(_LED_FMT, body)
    return mode, (r, g, b), remaining, total


def new_boot_id():
    """A random 32-bit id for this boot of the node or the controller."""
    try:
        from os import urandom

        b = urandom(4)
        return (b[0] << 24) | (b[1] << 16) | (b[2] << 8) | b[3]
    except (ImportError, AttributeError):
        import random

        return random.getrandbits(32)


# --- Reliable endpoint --------------------------------------------------------------------


class LinkEndpoint:
    """One end of the link: decodes, acks, rejects replays, retransmits, sends heartbeats.

    Time is passed in (milliseconds: ``time.ticks_ms()`` on the node, a monotonic clock on
    the Pi). ``feed`` returns the data frames to act on, in order and each once; bytes to
    write pile up until ``output()`` takes them.
    """

    def __init__(
        self,
        accept,
        rto_ms=200,
        rto_max_ms=2000,
        heartbeat_ms=500,
        queue_max=16,
    ):
        self.stats = LinkStats()
        self.decoder = FrameDecoder(self.stats, accept)
        self.rto_ms = rto_ms
        self.rto_max_ms = rto_max_ms
        self.heartbeat_ms = heartbeat_ms
        self.queue_max = queue_max
        self.last_heard = None  # ms of the last good frame from the peer
        self.peer_boot = None  # boot id from the peer's last HELLO
        self._rx_last = None  # seq of the last data frame accepted
        self._tx_seq = 0  # seq the next data frame gets
        self._queue = []  # (type, body) waiting, head first
        self._inflight = None  # encoded head frame once sent
        self._inflight_seq = 0
        self._sent_at = 0
        self._rto = rto_ms
        self._last_heartbeat = None
        self._out = []

    # sending
    def send(self, ftype, body=b""):
        """Queue a data frame for reliable delivery; drops the oldest unsent one if full."""
        if len(body) > MAX_BODY:
            raise ValueError("frame body too long")
        if len(self._queue) >= self.queue_max:
            # Never drop the head once it is in flight: its seq is already on the wire.
            drop_at = 1 if self._inflight is not None else 0
            if drop_at < len(self._queue):
                self._queue.pop(drop_at)
                self.stats.dropped_queue_full += 1
        self._queue.append((ftype, body))

    def pending(self):
        """Data frames queued or in flight, not yet acked."""
        return len(self._queue)

    def clear_pending(self):
        """Drop every unacked data frame (the peer restarted and lost its state anyway)."""
        self._queue = []
        self._inflight = None
        self._rto = self.rto_ms

    def poll(self, now):
        """Transmit the next frame, retransmit on timeout, send a heartbeat when due."""
        if self._inflight is None and self._queue:
            ftype, body = self._queue[0]
            self._inflight_seq = self._tx_seq
            self._tx_seq = (self._tx_seq + 1) & 0xFFFF
            self._inflight = encode_frame(ftype, self._inflight_seq, body)
            self._out.append(self._inflight)
            self._sent_at = now
            self._rto = self.rto_ms
        elif self._inflight is not None and ticks_diff(now, self._sent_at) >= self._rto:
            self._out.append(self._inflight)
            self._sent_at = now
            self._rto = min(self._rto * 2, self.rto_max_ms)
            self.stats.retransmits += 1
        if (
            self._last_heartbeat is None
            or ticks_diff(now, self._last_heartbeat) >= self.heartbeat_ms
        ):
            self._out.append(encode_frame(T_HEARTBEAT, 0))
            self._last_heartbeat = now
            self.stats.heartbeats_sent += 1

    def peer_alive(self, now, timeout_ms):
        """Whether a good frame came from the peer less than ``timeout_ms`` ago."""
        return self.last_heard is not None and ticks_diff(now, self.last_heard) < timeout_ms

    def output(self):
        """Bytes to write to the line (and forget)."""
        if not self._out:
            return b""
        data = b"".join(self._out)
        self._out = []
        return data

    # receiving
    def feed(self, data, now):
        """Take received bytes; returns the new data frames, in order, each delivered once."""
        delivered = []
        for frame in self.decoder.feed(data):
            self.last_heard = now
            ftype = frame.ftype
            if ftype == T_HEARTBEAT:
                continue
            if ftype == T_ACK:
                if self._inflight is not None and frame.seq == self._inflight_seq:
                    self._inflight = None
                    self._queue.pop(0)
                    self.stats.acked += 1
                    self.poll(now)  # the next one goes out at once
                else:
                    self.stats.stale_acks += 1
                continue
            if self._accept_seq(frame):
                self._ack(frame.seq)
                self.stats.delivered += 1
                delivered.append(frame)
        return delivered

    def _accept_seq(self, frame):
        seq = frame.seq
        if frame.ftype == T_HELLO and len(frame.body) == _HELLO_LEN:
            boot = parse_hello(frame.body)[1]
            if boot != self.peer_boot:
                self.peer_boot = boot
                self._rx_last = seq
                return True
        if self._rx_last is None:
            self._rx_last = seq
            return True
        d = (seq - self._rx_last) & 0xFFFF
        if d == 0:
            self.stats.duplicates += 1
            self._ack(seq)  # our ack was lost: say it again
            return False
        if d < 0x8000:
            self._rx_last = seq
            return True
        self.stats.rejected_replay += 1
        return False

    def _ack(self, seq):
        self._out.append(encode_frame(T_ACK, seq))
        self.stats.acks_sent += 1
