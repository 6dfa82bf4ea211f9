"""A fake ``machine`` module for the seat node: Pin, SPI, UART with test helpers.

Runs on CPython and on MicroPython (the WebAssembly port the tests run under node), so it
uses only what both have. ``SPI`` routes each transfer to the fake chip whose chip-select
pin is low (``SPI.attach``); ``UART`` keeps what the node wrote and what the test feeds.
"""

_pins = {}  # pin id -> the latest Pin made for it


def reset():
    _pins.clear()


def pin(pin_id):
    """The Pin the firmware made for ``pin_id``."""
    return _pins[pin_id]


class Pin:
    IN = 0
    OUT = 1
    OPEN_DRAIN = 2
    PULL_UP = 1
    PULL_DOWN = 2

    def __init__(self, pin_id, mode=-1, pull=-1, value=None):
        self.id = pin_id
        self.mode = mode
        self.pull = pull
        self._level = 1 if pull == Pin.PULL_UP else 0
        if value is not None:
            self._level = 1 if value else 0
        _pins[pin_id] = self

    def value(self, v=None):
        if v is None:
            return self._level
        self._level = 1 if v else 0
        return None

    def on(self):
        self._level = 1

    def off(self):
        self._level = 0

    def drive(self, level):
        """Test helper: what the outside world puts on an input pin."""
        self._level = 1 if level else 0


class SPI:
    def __init__(self, spi_id, baudrate=1000000, sck=None, mosi=None, miso=None, **kw):
        self.id = spi_id
        self.baudrate = baudrate
        self._chips = []  # (cs pin id, chip)

    def attach(self, cs_id, chip):
        """Test helper: put ``chip`` on the bus behind chip-select pin ``cs_id``."""
        self._chips.append((cs_id, chip))

    def _selected(self):
        found = None
        for cs_id, chip in self._chips:
            if cs_id in _pins and _pins[cs_id].value() == 0:
                if found is not None:
                    raise OSError("two chip selects low at once")
                found = chip
        return found

    def write(self, buf):
        chip = self._selected()
        if chip is not None:
            chip.transfer(buf, None)

    def write_readinto(self, wbuf, rbuf):
        chip = self._selected()
        if chip is None:
            for i in range(len(rbuf)):
                rbuf[i] = 0xFF
        else:
            chip.transfer(wbuf, rbuf)


class UART:
    def __init__(self, uart_id, baudrate=115200, tx=None, rx=None, timeout=0, **kw):
        self.id = uart_id
        self.baudrate = baudrate
        self._rx = b""
        self.tx = b""

    def any(self):
        return len(self._rx)

    def read(self, n=-1):
        if not self._rx:
            return None
        if n < 0 or n >= len(self._rx):
            data, self._rx = self._rx, b""
        else:
            data, self._rx = self._rx[:n], self._rx[n:]
        return data

    def write(self, buf):
        self.tx += bytes(buf)
        return len(buf)

    def inject(self, data):
        """Test helper: bytes arriving from the Pi."""
        self._rx += bytes(data)

    def take_tx(self):
        """Test helper: what the node wrote since the last call."""
        data, self.tx = self.tx, b""
        return data
