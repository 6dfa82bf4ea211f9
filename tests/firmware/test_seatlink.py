"""The Pi's end of the link against the real seat-node firmware (CPython), over a loopback.

The node is built by ``firmware/main.py``'s ``build()`` from the fake ``machine`` module,
with fake MFRC522 chips on its SPI bus; the Pi side is ``SeatNodeLink`` reading an asyncio
stream. One virtual clock drives both: nothing here waits for real time.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from controller.devices.events import CardArrived, CardLeft
from controller.devices.interfaces import Colour, LightState
from controller.devices.seatlink import (
    NodeOffline,
    NodeOnline,
    RingCommand,
    RingMode,
    SeatButtonPressed,
    SeatLinkEvent,
    SeatNodeLink,
    SeatNodeLinks,
)
from firmware import config, link
from firmware import main as node_main
from firmware.seatnode import FIRMWARE_VERSION, SeatNode
from tests.firmware.fakes import machine as fake_machine
from tests.firmware.fakes import neopixel as fake_neopixel
from tests.firmware.fakes.fake_mfrc522 import FakeMFRC522

SEAT = 4
UID = bytes.fromhex("04a1b2c3d4e5f6")


class NodeWriter:
    """The Pi's writer: what it writes arrives at the node's UART."""

    def __init__(self) -> None:
        self.node: SeatNode | None = None
        self.cut = False

    def write(self, data: bytes) -> None:
        if self.node is not None and not self.cut:
            self.node.uart.inject(data)

    async def drain(self) -> None:
        pass

    def close(self) -> None:
        pass


class Table:
    """One seat node and the Pi's link to it, on one virtual clock."""

    def __init__(self) -> None:
        self.now_ms = 10_000
        self.reader = asyncio.StreamReader()
        self.writer = NodeWriter()
        self.chips = [FakeMFRC522() for _ in config.READER_CS]
        self.link = SeatNodeLink(
            self.reader, self.writer, clock=lambda: self.now_ms / 1000, tick_s=None, boot_id=7
        )
        self.events: list[SeatLinkEvent] = []
        self.boot(boot_id=1)

    def boot(self, boot_id: int) -> None:
        fake_machine.reset()
        spi = fake_machine.SPI(config.SPI_ID)
        for cs, chip in zip(config.READER_CS, self.chips, strict=True):
            spi.attach(cs, chip)
        real_spi = fake_machine.SPI
        fake_machine.SPI = lambda *a, **k: spi  # type: ignore[misc,assignment]
        try:
            self.node = node_main.build(fake_machine, fake_neopixel)
        finally:
            fake_machine.SPI = real_spi  # type: ignore[misc]
        self.node.seat = SEAT
        self.node.boot_id = boot_id
        self.writer.node = self.node
        self.node.start(self.now_ms)
        self.carry()

    def carry(self) -> None:
        data = self.node.uart.take_tx()
        if data and not self.writer.cut:
            self.reader.feed_data(data)

    async def run(self, ms: int, step_ms: int = 5) -> list[SeatLinkEvent]:
        for _ in range(ms // step_ms):
            self.now_ms += step_ms
            self.node.step(self.now_ms)
            self.carry()
            await asyncio.sleep(0)  # the link's read loop takes what arrived
            self.link.tick()
        got = self.link.pending_events()
        self.events += got
        return got

    def button(self, pressed: bool) -> None:
        fake_machine.pin(config.BUTTON_PIN).drive(0 if pressed else 1)


def table_test(fn: Callable[[Table], Awaitable[None]]) -> Callable[[], None]:
    def run() -> None:
        async def main() -> None:
            table = Table()
            async with table.link:
                await fn(table)

        asyncio.run(main())

    run.__name__ = fn.__name__
    return run


@table_test
async def test_a_node_saying_hello_comes_online_with_its_seat_and_firmware(t: Table) -> None:
    got = await t.run(50)
    assert got[0] == NodeOnline(SEAT, FIRMWARE_VERSION, 1)
    assert t.link.online and t.link.seat == SEAT


@table_test
async def test_a_card_left_on_a_reader_arrives_once_then_leaves(t: Table) -> None:
    await t.run(50)
    t.chips[1].place(UID)
    got = await t.run(300)
    assert got == [CardArrived("seat4.1", UID)]
    assert t.link.tags(SEAT, "cards") == {UID}
    t.chips[1].remove()
    got = await t.run(600)
    assert got == [CardLeft("seat4.1", UID)]
    assert t.link.tags(SEAT, "cards") == frozenset()


@table_test
async def test_the_player_card_reader_is_named_and_tagged_apart(t: Table) -> None:
    await t.run(50)
    t.chips[config.PLAYER_READER].place(b"\x11\x22\x33\x44")
    got = await t.run(300)
    assert got == [CardArrived("seat4.player", b"\x11\x22\x33\x44")]
    assert t.link.tags(SEAT, "player") == {b"\x11\x22\x33\x44"}
    assert t.link.tags(SEAT, "cards") == frozenset()


@table_test
async def test_a_bouncing_button_is_one_press(t: Table) -> None:
    await t.run(50)
    for _ in range(3):  # contact bounce, shorter than the debounce time
        t.button(True)
        await t.run(5)
        t.button(False)
        await t.run(5)
    t.button(True)
    got = await t.run(100)
    t.button(False)
    got += await t.run(100)
    assert got == [SeatButtonPressed(SEAT)]


@table_test
async def test_a_shot_clock_counts_down_on_the_ring(t: Table) -> None:
    await t.run(50)
    t.link.set_ring(RingCommand(RingMode.SHOT_CLOCK, (0, 200, 60), 10.0, 20.0))
    await t.run(20)
    strip: Any = t.node.ring.strip
    assert sum(px != (0, 0, 0) for px in strip.shown) == config.LED_COUNT // 2
    await t.run(5000)  # 5 s later: a quarter left, and red
    lit = [px for px in strip.shown if px != (0, 0, 0)]
    assert len(lit) == config.LED_COUNT // 4
    assert set(lit) == {(230, 20, 20)}


@table_test
async def test_a_silent_node_goes_offline_after_missed_heartbeats_and_back(t: Table) -> None:
    status: list[tuple[int, bool]] = []
    t.link.subscribe_status(lambda seat, online: status.append((seat, online)))
    await t.run(50)
    t.writer.cut = True  # the cable is pulled
    got = await t.run(int(t.link.offline_after_ms) - 100)
    assert got == []
    got = await t.run(200)
    assert got == [NodeOffline(SEAT)]
    assert not t.link.online
    await t.run(3000)
    assert t.node.ring.link_lost  # the node shows it too
    t.writer.cut = False
    got = await t.run(600)  # the next heartbeat gets through
    assert got == [NodeOnline(SEAT, FIRMWARE_VERSION, 1)]
    await t.run(1100)
    assert not t.node.ring.link_lost
    assert status == [(SEAT, True), (SEAT, False), (SEAT, True)]  # hello, lost, back


@table_test
async def test_garbage_on_the_line_is_counted_and_the_link_goes_on(t: Table) -> None:
    await t.run(50)
    t.reader.feed_data(b"\x13\x37\xff\x00\x02\x01\x00\x00" + bytes(range(1, 200)) + b"\x00")
    t.chips[0].place(UID)
    got = await t.run(300)
    assert got == [CardArrived("seat4.0", UID)]
    assert t.link.stats["rejected_oversize"] >= 1
    assert sum(v for k, v in t.link.stats.items() if k.startswith("rejected_")) >= 2


@table_test
async def test_a_rebooted_node_is_online_again_and_gets_its_ring_back(t: Table) -> None:
    await t.run(50)
    t.link.set_ring(RingCommand(RingMode.TURN, (40, 110, 255)))
    await t.run(50)
    t.boot(boot_id=2)
    got = await t.run(100)
    assert NodeOnline(SEAT, FIRMWARE_VERSION, 2) in got
    assert t.node.ring.mode == link.LED_TURN and t.node.ring.rgb == (40, 110, 255)


@table_test
async def test_a_restarted_controller_hears_the_cards_already_on_the_seat(t: Table) -> None:
    await t.run(50)
    t.chips[0].place(UID)
    await t.run(300)
    # the Pi restarts: a new link (new boot id) on the same line
    await t.link.aclose()
    t.link = SeatNodeLink(t.reader, t.writer, clock=lambda: t.now_ms / 1000, tick_s=None, boot_id=8)
    async with t.link:
        got = await t.run(200)
    assert got[:2] == [NodeOnline(SEAT, FIRMWARE_VERSION, 1), CardArrived("seat4.0", UID)]


@table_test
async def test_the_device_layer_seam_lights_and_notifies(t: Table) -> None:
    await t.run(50)
    calls: list[int] = []
    links = SeatNodeLinks([t.link])
    undo = links.subscribe(lambda: calls.append(1))
    links.set_light(SEAT, LightState.on(Colour.GREEN))
    t.chips[0].place(UID)
    await t.run(300)
    assert calls == [1]
    assert links.tags(SEAT, "cards") == {UID}
    assert t.node.ring.mode == link.LED_TURN and t.node.ring.rgb == Colour.GREEN.value
    undo()
    links.set_light(SEAT + 1, LightState.off())  # another seat: not this node
    assert t.node.ring.mode == link.LED_TURN


def test_opening_a_missing_serial_port_is_a_device_absent_error() -> None:
    from controller.devices.errors import DeviceAbsentError
    from controller.devices.seatlink import open_seat_link

    with pytest.raises(DeviceAbsentError, match="/dev/ttyNOPE"):
        asyncio.run(open_seat_link("/dev/ttyNOPE"))
