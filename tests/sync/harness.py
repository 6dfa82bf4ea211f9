"""The controller's sync stack in the test process, on a real broker."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from controller.sync.commands import CommandDesk
from controller.sync.journal import KEEP, Journal, Retention
from controller.sync.ledger import SeatingControls
from controller.sync.link import LinkSettings, TableLink
from controller.sync.outbox import Outbox
from controller.sync.soak_node import VirtualTable, open_table
from tests.sync.conftest import Mosquitto
from tests.sync.floor import FloorRecorder

GUARD = 60.0  # seconds before a stuck test fails instead of hanging (not a budget)


@dataclass
class TableStack:
    """Journal, outbox, command desk and link of one table."""

    journal: Journal
    outbox: Outbox
    desk: CommandDesk
    link: TableLink

    async def play(self, hands: int, seed: int = 1, pace: float = 0.0) -> None:
        """Play ``hands`` hands on the virtual table."""
        table = VirtualTable(self.outbox, self.outbox.state, random.Random(seed), pace=pace)
        for _ in range(hands):
            assert table.can_deal(self.outbox.state)
            await table.play_hand()


@asynccontextmanager
async def running_table(db: Path, port: int, *, table: str = "t1",
                        retention: Retention = KEEP, history_every: float = 60.0,
                        **settings: float) -> AsyncIterator[TableStack]:
    """A table controller (no hardware) connected to the broker on ``port``."""
    journal = open_table(db, table, retention=retention)
    try:
        async with Outbox(journal, history_every=history_every) as outbox:
            desk = CommandDesk(outbox, SeatingControls(lambda: outbox.state))
            link_settings = LinkSettings(site="test", port=port, **settings)  # type: ignore[arg-type]
            async with TableLink(link_settings, outbox, desk) as link:
                async with asyncio.timeout(GUARD):
                    await link.connected.wait()
                yield TableStack(journal, outbox, desk, link)
    finally:
        journal.close()


def assert_host_matches_table(host: FloorRecorder, journal: Journal, table: str = "t1") -> None:
    """Every event exactly once, in order, byte-identical to what the journal still holds
    (all of it unless retention pruned the oldest); the host's stacks = the table's."""
    rec = host.tables[table]
    assert rec.conflicts == []
    assert rec.applied == list(range(1, journal.last_seq + 1))
    assert set(rec.events) == set(rec.applied)
    stored = {p.seq: p for p in journal.parcels(0, limit=10**9)}
    assert set(stored) == set(range(journal.pruned + 1, journal.last_seq + 1))
    assert all(rec.events[s] == stored[s].public for s in stored)
    assert {s for s, p in stored.items() if p.secure} == {s for s in rec.secure
                                                          if s > journal.pruned}
    assert rec.state == journal.state  # seats, stacks, level, pause... as the table has them
    assert sum(s.stack for s in rec.state.seats) == 6 * 20_000  # no chip made or lost


async def drained(host: FloorRecorder, stack: TableStack) -> None:
    """Wait until the host holds everything and the table knows it."""
    async with asyncio.timeout(GUARD):
        while stack.outbox.acked < stack.outbox.last_seq:
            await host.flush()
            await host.announce(True)  # host/status online: the table resends the unacked
            await asyncio.sleep(0.2)


@dataclass
class OutageFigures:
    """What a broker outage did to the outbox."""

    seconds: float
    events_during: int
    outbox_at_return: int
    catch_up_s: float
    connects: int


async def outage_run(broker: Mosquitto, db: Path, *, seconds: float, pace: float = 0.01
                     ) -> OutageFigures:
    """The virtual table plays on while the broker is down for ``seconds``; then measure
    the outbox at the broker's return and the time until the host holds all of it. The
    host is checked against the journal at the end."""
    import time

    async with running_table(db, broker.port) as stack:
        async with FloorRecorder(broker.port) as host:
            await stack.play(2)
            await drained(host, stack)
        tables = host.tables
        stop = asyncio.Event()

        async def keep_playing() -> None:
            table = VirtualTable(stack.outbox, stack.outbox.state, random.Random(5), pace=pace)
            while not stop.is_set() and table.can_deal(stack.outbox.state):
                await table.play_hand()  # until one player has every chip

        player = asyncio.create_task(keep_playing(), name="virtual-table")
        await asyncio.to_thread(broker.stop)
        before = stack.outbox.last_seq
        await asyncio.sleep(seconds)
        await asyncio.to_thread(broker.start)
        returned = time.perf_counter()
        at_return, backlog = stack.outbox.last_seq, stack.outbox.size
        async with FloorRecorder(broker.port, tables=tables) as host:
            async with asyncio.timeout(GUARD + seconds):
                while stack.outbox.acked < at_return:
                    await asyncio.sleep(0.005)
            caught_up = time.perf_counter() - returned
            stop.set()
            await player
            await drained(host, stack)
            assert_host_matches_table(host, stack.journal)
        return OutageFigures(seconds, at_return - before, backlog, caught_up,
                             stack.link.connects)
