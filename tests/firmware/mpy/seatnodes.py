# Seat nodes simulated on real MicroPython: the firmware's own SeatNode, built by
# firmware/main.py's build() for each node, on a `machine` of its own (pins, SPI bus with
# fake MFRC522 chips at register level, UART) and a fake NeoPixel strip. Loaded by
# seatnodes.mjs; the host (tests/firmware/simnodes.py) talks to it in text lines.
#
# Why one MicroPython instance for every node: each WebAssembly instance costs ~10 MB and
# a start; the nodes share nothing but the interpreter (every node has its own machine,
# chips, link endpoint and boot id), and the host steps them all on one loop period.
#
# In (host -> nodes), one command per line:
#   rx N HEX          bytes from the Pi arrive at node N's UART
#   place N R UIDHEX  a card's tag lies on node N's reader R (0, 1: hole cards; 2: player)
#   lift N R          the card leaves node N's reader R
#   button N 0|1      node N's seat button is released (0) or held down (1)
#   off N / on N      node N loses power / is powered again (a new boot: a new boot id)
# Out (nodes -> host), one line per happening:
#   hello N MAJ.MIN.PATCH BOOT   node N booted (firmware version, boot id)
#   tx N HEX                     bytes node N wrote to its UART
#   ring N MODE R,G,B LOST       node N's LED ring changed (mode from firmware/link.py)
#   error TEXT                   a command that could not be carried out
import binascii

import fake_mfrc522
import machine
import neopixel

from firmware import config
from firmware import main as node_main
from firmware.seatnode import FIRMWARE_VERSION


def _hex(data):
    return binascii.hexlify(data).decode()


class NodeMachine:
    """A `machine` module of one node: its own pins (so ten nodes can each have pin 17),
    its SPI bus with the node's reader chips behind their chip selects, its UART.

    The bus is the fake one's, with the selected chip kept as the chip-select pins move
    instead of looked up at every transfer: a card read is ~130 register accesses, and
    this halves what each costs the simulation (the driver's own work is unchanged)."""

    def __init__(self, chips):
        pins = {}
        self.pins = pins
        selects = {}
        for i in range(len(config.READER_CS)):
            selects[config.READER_CS[i]] = chips[i]
        bus = [None]  # the chip whose chip select is low

        class Pin(machine.Pin):
            def __init__(self, pin_id, mode=-1, pull=-1, value=None):
                super().__init__(pin_id, mode, pull, value)
                pins[pin_id] = self
                self.chip = selects.get(pin_id)

            def value(self, v=None):
                if v is None:
                    return self._level
                self._level = 1 if v else 0
                chip = self.chip
                if chip is not None:
                    if not v:
                        if bus[0] is not None and bus[0] is not chip:
                            raise OSError("two chip selects low at once")
                        bus[0] = chip
                    elif bus[0] is chip:
                        bus[0] = None
                return None

        class SPI(machine.SPI):
            def write(self, buf):
                chip = bus[0]
                if chip is not None:
                    chip.transfer(buf, None)

            def write_readinto(self, wbuf, rbuf):
                chip = bus[0]
                if chip is None:
                    for i in range(len(rbuf)):
                        rbuf[i] = 0xFF
                else:
                    chip.transfer(wbuf, rbuf)

        self.Pin = Pin
        self.SPI = SPI
        self.UART = machine.UART


class SimNode:
    """One seat node: chips that keep their cards across a power cycle, and the firmware."""

    def __init__(self, seat, out):
        self.seat = seat
        self.out = out
        self.chips = [fake_mfrc522.FakeMFRC522() for _ in config.READER_CS]
        self.node = None
        self.machine = None
        self._ring = None

    def power_on(self, now):
        self.machine = NodeMachine(self.chips)
        node = node_main.build(self.machine, neopixel)
        node.seat = self.seat
        self.node = node
        self._ring = None
        v = FIRMWARE_VERSION
        self.out.append(f"hello {self.seat} {v[0]}.{v[1]}.{v[2]} {node.boot_id}")
        node.start(now)
        self._flush()

    def power_off(self):
        self.node = None

    def _flush(self):
        data = self.node.uart.take_tx()
        if data:
            self.out.append(f"tx {self.seat} {_hex(data)}")

    def step(self, now):
        node = self.node
        if node is None:
            return
        node.step(now)
        self._flush()
        ring = node.ring
        shown = (ring.mode, ring.rgb, ring.link_lost)
        if shown != self._ring:
            self._ring = shown
            r, g, b = ring.rgb
            lost = 1 if ring.link_lost else 0
            self.out.append(f"ring {self.seat} {ring.mode} {r},{g},{b} {lost}")

    def button(self, down):
        if self.node is not None:
            self.machine.pins[config.BUTTON_PIN].drive(0 if down else 1)


_out = []
_nodes = {}


def sim_boot(seats, now):
    for seat in seats:
        _nodes[seat] = SimNode(seat, _out)
        _nodes[seat].power_on(now)
    return _take()


def _take():
    if not _out:
        return ""
    text = "\n".join(_out) + "\n"
    _out.clear()
    return text


def _command(line, now):
    words = line.split()
    if not words:
        return
    verb = words[0]
    node = _nodes.get(int(words[1])) if len(words) > 1 else None
    if node is None:
        _out.append(f"error no node in {line!r}")
        return
    if verb == "rx":
        if node.node is not None:  # a node without power hears nothing
            node.node.uart.inject(binascii.unhexlify(words[2]))
    elif verb == "place":
        node.chips[int(words[2])].place(binascii.unhexlify(words[3]))
    elif verb == "lift":
        node.chips[int(words[2])].remove()
    elif verb == "button":
        node.button(words[2] == "1")
    elif verb == "off":
        node.power_off()
    elif verb == "on":
        if node.node is None:
            node.power_on(now)
    else:
        _out.append(f"error unknown command {line!r}")


def sim_step(now, inbox):
    """Take the host's lines, run one turn of every powered node's loop at ``now`` (ms)."""
    if inbox:
        for line in inbox.split("\n"):
            try:
                _command(line, now)
            except Exception as exc:  # a bad line must not stop the other nodes
                _out.append(f"error {line!r}: {exc!r}")
    for node in _nodes.values():
        node.step(now)
    return _take()
