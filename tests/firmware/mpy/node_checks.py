# The seat node's logic on real MicroPython: run by run.mjs under node, called from
# tests/firmware/test_on_micropython.py. Each check_* is independent; the script ends with
# "N passed, M failed" and raises if any failed.
import sys

import fake_mfrc522
import machine
import neopixel

from firmware import config, link
from firmware import main as node_main
from firmware.debounce import CARD_ARRIVED, CARD_LEFT, ButtonDebounce, CardPresence
from firmware.leds import LedRing
from firmware.mfrc522 import MFRC522

UID7 = b"\x04\xa1\xb2\xc3\xd4\xe5\xf6"


def check_runs_on_micropython():
    assert sys.implementation.name == "micropython"


def check_crc_and_cobs():
    assert link.crc16(b"123456789") == 0x29B1
    assert link.crc16 is link.crc16_table  # no binascii.crc_hqx here: the table runs
    for data in (b"", b"\x00", b"\x00\x00", bytes(range(256)) * 2, b"\x01" * 300):
        enc = link.cobs_encode(data)
        assert b"\x00" not in enc
        assert link.cobs_decode(enc) == data
    assert link.cobs_decode(b"\x05ab") is None


def check_frames_and_rejections():
    dec = link.FrameDecoder()
    good = link.encode_frame(link.T_CARD_ARRIVED, 513, link.card_body(1, UID7))
    got = dec.feed(good[:4])
    got += dec.feed(good[4:])
    assert got == [link.LinkFrame(link.T_CARD_ARRIVED, 513, link.card_body(1, UID7))]
    bad = bytearray(good)
    bad[3] ^= 0x10
    assert dec.feed(bytes(bad)) == []
    assert dec.feed(b"\x07" * 100 + b"\x00") == []
    assert dec.feed(b"\x01\x02\x00") == []
    assert dec.stats.rejected_oversize == 1
    assert dec.stats.rejected() == 3
    assert repr(got[0]).startswith("LinkFrame(type=0x10, seq=513")


def check_endpoint_acks_and_replays():
    node = link.LinkEndpoint(link.NODE_ACCEPTS, heartbeat_ms=100000)
    pi = link.LinkEndpoint(link.CONTROLLER_ACCEPTS, heartbeat_ms=100000)
    node.send(link.T_HELLO, link.hello_body(link.new_boot_id(), 2, (0, 1, 0)))
    node.send(link.T_BUTTON, b"\x00")
    node.poll(0)
    wire = node.output()
    assert [f.ftype for f in pi.feed(wire, 1)] == [link.T_HELLO]
    node.feed(pi.output(), 2)  # ack -> the button goes out
    frames = pi.feed(node.output(), 3)
    assert [f.ftype for f in frames] == [link.T_BUTTON]
    assert pi.feed(wire, 4) == []  # replayed hello
    assert pi.stats.rejected_replay == 1
    node.feed(pi.output(), 5)
    assert node.pending() == 0


def check_debounce():
    p = CardPresence(stable_ms=50, leave_ms=200)
    assert p.update(UID7, 0) is None
    assert p.update(UID7, 60) == (CARD_ARRIVED, UID7)
    assert p.update(None, 100) is None
    assert p.update(None, 270) == (CARD_LEFT, UID7)
    b = ButtonDebounce(20)
    assert not b.update(0, 0)
    assert b.update(0, 25)
    assert not b.update(0, 50)


def check_ring_shot_clock():
    strip = neopixel.NeoPixel(machine.Pin(22), 12)
    ring = LedRing(strip, 12)
    ring.set(link.LED_SHOT_CLOCK, (0, 200, 60), 6000, 12000, 1000)
    assert ring.show(1000)
    assert sum(1 for px in strip.shown if px != (0, 0, 0)) == 6
    assert not ring.show(1001)  # nothing changed: no write
    ring.show(5000)
    assert set(px for px in strip.shown if px != (0, 0, 0)) == {(230, 20, 20)}


def check_mfrc522_reads_4_and_7_byte_uids():
    machine.reset()
    spi = machine.SPI(0)
    chip = fake_mfrc522.FakeMFRC522()
    spi.attach(17, chip)
    reader = MFRC522(spi, machine.Pin(17, machine.Pin.OUT))
    assert reader.init() == 0x92
    assert reader.read_uid() is None
    chip.place(UID7)
    assert reader.read_uid() == UID7
    assert reader.read_uid() == UID7  # halted and woken again: no flicker
    chip.place(b"\xde\xad\xbe\xef")
    assert reader.read_uid() == b"\xde\xad\xbe\xef"


def check_whole_node_from_main_build():
    machine.reset()
    chips = [fake_mfrc522.FakeMFRC522() for _ in config.READER_CS]
    spi = machine.SPI(config.SPI_ID)
    for i in range(len(chips)):  # MicroPython's zip() has no strict=
        spi.attach(config.READER_CS[i], chips[i])
    real_spi = machine.SPI
    machine.SPI = lambda *a, **k: spi
    try:
        node = node_main.build(machine, neopixel)
    finally:
        machine.SPI = real_spi
    pi = link.LinkEndpoint(link.CONTROLLER_ACCEPTS, heartbeat_ms=500)
    pi.send(link.T_HELLO, link.hello_body(99, link.CONTROLLER_SEAT, (0, 1, 0)))
    got = []
    now = 0
    node.start(now)

    def run(ms):
        nonlocal now
        for _ in range(ms // 5):
            now += 5
            node.step(now)
            got.extend(pi.feed(node.uart.take_tx(), now))
            pi.poll(now)
            node.uart.inject(pi.output())

    run(100)
    assert got[0].ftype == link.T_HELLO
    assert link.parse_hello(got[0].body)[2] == config.SEAT
    chips[0].place(UID7)
    run(300)
    cards = [f for f in got if f.ftype == link.T_CARD_ARRIVED]
    assert cards and cards[-1].body == link.card_body(0, UID7)
    machine.pin(config.BUTTON_PIN).drive(0)
    run(100)
    assert any(f.ftype == link.T_BUTTON for f in got)
    pi.send(link.T_LED, link.led_body(link.LED_WINNER, (255, 170, 0)))
    run(50)
    assert node.ring.mode == link.LED_WINNER
    assert node.link.stats.rejected() == 0 and pi.stats.rejected() == 0


passed = 0
failed = 0
for name in sorted(k for k in globals() if k.startswith("check_")):
    try:
        globals()[name]()
        passed += 1
        print("ok", name)
    except Exception as exc:
        failed += 1
        print("FAIL", name, repr(exc))
        sys.print_exception(exc)
print(passed, "passed,", failed, "failed")
if failed:
    raise AssertionError(f"{failed} MicroPython check(s) failed")
