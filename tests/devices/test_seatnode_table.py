"""The table over real seat-node links: firmware nodes in-process, ``open_devices`` on top.

Each node is the real firmware (``firmware/main.py``'s ``build()``) on its own copy of the
fake ``machine`` module, with fake MFRC522 chips on its SPI bus; the Pi side is one
``SeatNodeLink`` per node on a loopback stream, combined by ``SeatNodeLinks`` and given to
``open_devices`` as the seat link. One virtual clock drives nodes, links and the table:
nothing here waits for real time.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
from collections.abc import Awaitable, Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from gpiozero.pins.mock import MockFactory, MockPWMPin

from controller.devices.backends import open_devices
from controller.devices.events import CardArrived, CardLeft, DeviceEvent
from controller.devices.interfaces import Colour, LightState
from controller.devices.profile import PROFILE_DIR, Profile, parse_profile
from controller.devices.seatlink import (
    NodeOnline,
    SeatNodeLink,
    SeatNodeLinks,
    profile_reader_name,
)
from controller.devices.seatnodes import SeatNodeReader, SeatNodeRing
from controller.devices.table_hardware import TableHardware
from firmware import config, link
from firmware import main as node_main
from firmware.seatnode import SeatNode
from tests.firmware.fakes import neopixel as fake_neopixel
from tests.firmware.fakes.fake_mfrc522 import FakeMFRC522

UID = bytes.fromhex("04a1b2c3d4e5f6")
PLAYER_UID = bytes.fromhex("11223344")
FAKE_MACHINE = Path(__file__).resolve().parents[1] / "firmware" / "fakes" / "machine.py"
HOLE_READER = 1  # index in config.READER_CS of the node's second hole-card reader


def tournament_profile_with_nodes_swapped(a: int, b: int) -> Profile:
    """tournament-10's seats on seat nodes (seat ``a`` on node ``b`` and back), the rest
    of the table mocked so that only the seat nodes are real."""
    seats = (PROFILE_DIR / "tournament-10.toml").read_text().split("# one antenna per board")[0]
    for old, new in ((a, "@"), (b, a), ("@", b)):
        seats = seats.replace(f"node = {old} }}", f"node = {new} }}")
    rest = (PROFILE_DIR / "virtual.toml").read_text().split("[[board]]", 1)[1]
    return parse_profile(seats + "[[board]]" + rest, "tournament-10-swapped.toml")


def _machine() -> ModuleType:
    """A fresh copy of the fake ``machine``: its pin registry is per node, as on a board."""
    spec = importlib.util.spec_from_file_location("fake_machine_copy", FAKE_MACHINE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class NodeLine:
    """What the Pi writes goes to the node's UART (the other way is ``Node.carry``)."""

    def __init__(self, node: SeatNode) -> None:
        self.node = node

    def write(self, data: bytes) -> None:
        self.node.uart.inject(data)

    async def drain(self) -> None:
        pass

    def close(self) -> None:
        pass


class Node:
    """One seat node (the firmware) with its fake readers, and the Pi's link to it."""

    def __init__(self, node_id: int, clock: Callable[[], float]) -> None:
        machine: Any = _machine()
        self.chips = [FakeMFRC522() for _ in config.READER_CS]
        spi = machine.SPI(config.SPI_ID)
        for cs, chip in zip(config.READER_CS, self.chips, strict=True):
            spi.attach(cs, chip)
        machine.SPI = lambda *a, **k: spi
        self.node = node_main.build(machine, fake_neopixel)
        self.node.seat = node_id  # what the deploy's seat_config.py would say
        self.node.boot_id = 100 + node_id
        self.stream = asyncio.StreamReader()
        self.link = SeatNodeLink(
            self.stream, NodeLine(self.node), clock=clock, tick_s=None, boot_id=node_id
        )

    def carry(self) -> None:
        data = self.node.uart.take_tx()
        if data:
            self.stream.feed_data(data)


class Rig:
    """Two firmware nodes and the table built by ``open_devices`` over their links."""

    def __init__(self, profile: Profile, node_ids: tuple[int, ...]) -> None:
        self.now_ms = 50_000
        clock = self.clock
        self.nodes = {n: Node(n, clock) for n in node_ids}
        self.links = SeatNodeLinks([n.link for n in self.nodes.values()], profile=profile)
        self.table: TableHardware = open_devices(
            profile,
            seat_link=self.links,
            pin_factory=MockFactory(pin_class=MockPWMPin),
            clock=clock,
        )

    def clock(self) -> float:
        return self.now_ms / 1000

    async def run(self, ms: int, step_ms: int = 5) -> list[DeviceEvent]:
        """Move time on: nodes step, bytes cross both ways, the table polls."""
        got: list[DeviceEvent] = []
        for _ in range(ms // step_ms):
            self.now_ms += step_ms
            for n in self.nodes.values():
                n.node.step(self.now_ms)
                n.carry()
            await asyncio.sleep(0)  # each link's read loop takes what arrived
            for n in self.nodes.values():
                n.link.tick()
            got += self.table.poll()
        return got


def rig_test(fn: Callable[[Rig], Awaitable[None]]) -> Callable[[], None]:
    def run() -> None:
        async def main() -> None:
            rig = Rig(tournament_profile_with_nodes_swapped(3, 7), (3, 7))
            async with contextlib.AsyncExitStack() as stack:
                for n in rig.nodes.values():
                    n.node.start(rig.now_ms)
                    n.carry()
                    await stack.enter_async_context(n.link)
                stack.callback(rig.table.close)
                await rig.run(50)
                await fn(rig)

        asyncio.run(main())

    run.__name__ = fn.__name__
    return run


def test_open_devices_puts_seat_node_readers_and_rings_on_the_given_link() -> None:
    profile = tournament_profile_with_nodes_swapped(3, 7)
    table = open_devices(
        profile, seat_link=SeatNodeLinks([]), pin_factory=MockFactory(pin_class=MockPWMPin)
    )
    try:
        seat3 = table.reader("seat3")
        assert isinstance(seat3, SeatNodeReader) and (seat3.node, seat3.slot) == (7, "cards")
        player7 = table.reader("player7")
        assert isinstance(player7, SeatNodeReader) and (player7.node, player7.slot) == (3, "player")
        ring = table.light(3)
        assert isinstance(ring, SeatNodeRing) and ring.node == 7
    finally:
        table.close()


def test_link_reader_names_come_from_the_profile_by_node_not_by_seat_number() -> None:
    name = profile_reader_name(tournament_profile_with_nodes_swapped(3, 7))
    assert [name(7, 0, False), name(7, 1, False), name(7, 2, True)] == [
        "seat3",  # both hole-card antennas are the seat's one hole-card reader
        "seat3",
        "player3",
    ]
    assert name(3, 2, True) == "player7"
    assert name(5, 1, False) == "seat5"  # not swapped: node 5 is seat 5
    assert name(12, 1, False) == "seat12.1"  # a node the profile does not know: per antenna


@rig_test
async def test_a_card_on_a_nodes_hole_reader_is_card_arrived_for_its_seat(rig: Rig) -> None:
    rig.nodes[7].chips[HOLE_READER].place(UID)  # node 7 serves seat 3
    got = await rig.run(300)
    assert got == [CardArrived("seat3", UID)]
    assert rig.table.present("seat3") == {UID}
    assert rig.table.present("seat7") == frozenset()
    rig.nodes[7].chips[HOLE_READER].remove()
    got = await rig.run(1000)  # the node's leave time, then the table's gone time
    assert got == [CardLeft("seat3", UID)]
    assert rig.table.present("seat3") == frozenset()


@rig_test
async def test_a_player_card_is_card_arrived_at_the_seats_player_reader(rig: Rig) -> None:
    rig.nodes[3].chips[config.PLAYER_READER].place(PLAYER_UID)  # node 3 serves seat 7
    got = await rig.run(300)
    assert got == [CardArrived("player7", PLAYER_UID)]
    assert rig.table.present("seat7") == frozenset()


@rig_test
async def test_the_links_own_events_name_readers_as_the_profile_does(rig: Rig) -> None:
    rig.nodes[7].chips[0].place(UID)
    rig.nodes[7].chips[config.PLAYER_READER].place(PLAYER_UID)
    table_events = await rig.run(300)
    link_events = rig.nodes[7].link.pending_events()
    cards = [e for e in link_events if isinstance(e, CardArrived)]
    assert set(cards) == {CardArrived("seat3", UID), CardArrived("player3", PLAYER_UID)}
    assert set(cards) == set(table_events)
    assert any(isinstance(e, NodeOnline) and e.seat == 7 for e in link_events)


@rig_test
async def test_a_light_set_on_the_table_reaches_the_seats_node_ring(rig: Rig) -> None:
    rig.table.set_light(3, LightState.on(Colour.GREEN))
    await rig.run(50)
    ring = rig.nodes[7].node.ring  # seat 3's node
    assert ring.mode == link.LED_TURN and ring.rgb == Colour.GREEN.value
    assert rig.nodes[3].node.ring.mode == link.LED_OFF  # seat 7's node: untouched
    assert rig.table.light(3).state == LightState.on(Colour.GREEN)
    rig.table.set_light(3, LightState.off())
    await rig.run(50)
    assert ring.mode == link.LED_OFF
