"""The store in a child process (opt-in, host_bridge.store_process): the same acks, rows
and feed as the store thread, and the child's errors come back to the caller."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from sqlalchemy import func, select

from host_bridge.bridge import Bridge
from host_bridge.db import make_engine, migrate, session_factory
from host_bridge.ingest import Parsed
from host_bridge.models import EventRecord, Hand
from host_bridge.store_process import StoreProcess
from tests.bridge.conftest import make_settings
from tests.bridge.tablesim import FakeBroker, WireTable, showdown_hand
from tests.bridge.test_ingest import acks


def test_a_store_process_stores_acks_and_feeds_like_the_store_thread(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    engine = make_engine(settings.database_url)
    migrate(engine)
    broker = FakeBroker()
    bridge = Bridge(settings, session_factory(engine), broker)
    store = StoreProcess(bridge.ingest, settings.database_url, host_boot=bridge.host_boot)
    bridge.ingest = store  # type: ignore[assignment]
    wire = WireTable()
    messages = [wire.seat(seat, name, 1000) for seat, name in ((1, "a"), (2, "b"), (3, "c"))]
    messages += wire.hand(1, (1, 2, 3), showdown_hand())
    last = sum(1 for topic, _ in messages if topic.endswith("/event"))

    async def scenario() -> list[int]:
        async with bridge.feed.subscribe() as queue:
            result = await bridge.receive_many(messages)
            assert acks(result) == [("ack", last, last)]
            seqs = []
            while not queue.empty():
                item = queue.get_nowait()
                if item["type"] == "event":
                    seqs.append(item["seq"])
            return seqs

    try:
        assert asyncio.run(scenario()) == list(range(1, last + 1))
        with pytest.raises(TypeError):  # the child fails on a payload that is no bytes...
            store.apply([Parsed(wire.topics.event, None, None, None)])  # type: ignore[arg-type]
        assert store.cpu_s() > 0  # ...and raises it here, and serves on
    finally:
        store.close()
    with session_factory(engine)() as session:
        assert session.scalar(select(func.count()).select_from(EventRecord)) == last
        hand = session.scalar(select(Hand))
        assert hand is not None and hand.phh is not None
    engine.dispose()
