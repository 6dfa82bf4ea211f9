"""Two bridges on one PostgreSQL behind a shared subscription on a real Mosquitto: the
broker splits each table's events between them, and still every event is stored exactly
once, applied once in seq order, every hand exported, and each table acked up to its last
event. Fails, saying so, where Mosquitto or PostgreSQL (Debian's packages) are missing."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import aiomqtt
from sqlalchemy import func, select

from controller.sync.messages import parse_host_ack
from host_bridge.bridge import Bridge
from host_bridge.db import make_engine, migrate, session_factory
from host_bridge.models import EventRecord, Hand, PokerTable
from host_bridge.mqtt import MqttLink
from tests.bridge.conftest import make_settings
from tests.bridge.tablesim import SITE, WireTable, showdown_hand
from tests.sync.conftest import Mosquitto

TABLES = ("t1", "t2", "t3", "t4")
WAIT_S = 60.0


def script(table: str) -> list[tuple[str, bytes]]:
    """A table's messages: three players seated, a showdown hand."""
    wire = WireTable(table=table, boot=f"{table}-boot")
    messages = [wire.seat(s, f"{table}-p{s}", 1000) for s in (1, 2, 3)]
    return messages + wire.hand(1, (1, 2, 3), showdown_hand())


def test_two_bridges_on_one_postgresql_store_each_event_once_and_ack_right(
        tmp_path: Path, postgres_url: str, mosquitto: Mosquitto) -> None:
    broker = mosquitto
    engine = make_engine(postgres_url)
    migrate(engine)
    scripts = {t: script(t) for t in TABLES}
    last = {t: max(json.loads(p)["seq"] for topic, p in s if topic.endswith("/event"))
            for t, s in scripts.items()}
    bridges = [Bridge(make_settings(tmp_path / name, database_url=postgres_url,
                                    mqtt_port=broker.port, bridge_id=name),
                      session_factory(make_engine(postgres_url)))
               for name in ("bridge-a", "bridge-b")]

    async def scenario() -> dict[str, int]:
        acked: dict[str, int] = {}
        async with MqttLink(bridges[0]) as one, MqttLink(bridges[1]) as two:
            await asyncio.wait_for(one.connected.wait(), WAIT_S)
            await asyncio.wait_for(two.connected.wait(), WAIT_S)
            async with aiomqtt.Client("127.0.0.1", broker.port, identifier="tables") as tables:
                await tables.subscribe(f"pitboss/v1/{SITE}/host/ack/+", qos=1)

                async def play(table: str) -> None:
                    for topic, payload in scripts[table]:
                        await tables.publish(topic, payload, qos=1)

                await asyncio.gather(*(play(t) for t in TABLES))
                async with asyncio.timeout(WAIT_S):
                    async for message in tables.messages:
                        assert isinstance(message.payload, bytes)
                        ack = parse_host_ack(message.payload)
                        if ack.kind == "ack":
                            acked[ack.table] = max(acked.get(ack.table, 0), ack.acked)
                        if all(acked.get(t, 0) >= last[t] for t in TABLES):
                            break
        return acked

    try:
        acked = asyncio.run(scenario())
        with session_factory(engine)() as session:
            events = session.scalar(select(func.count()).select_from(EventRecord))
            unapplied = session.scalar(select(func.count()).select_from(EventRecord).where(
                EventRecord.applied.is_(False)))
            rows = {t.id: t.acked_seq for t in session.scalars(select(PokerTable))}
            hands = session.scalars(select(Hand)).all()
    finally:
        for bridge in bridges:
            bind = bridge.ingest._sessions.kw["bind"]
            bind.dispose()
        engine.dispose()
    assert acked == last  # each table acked exactly up to its last event
    assert events == sum(last.values())  # each (table, seq) stored once
    assert unapplied == 0
    assert rows == last
    assert len(hands) == len(TABLES)
    assert all(h.status == "ended" and h.phh is not None for h in hands), [
        (h.table_id, h.phh_error) for h in hands]
    taken = [b.ingest._taken for b in bridges]
    # the tables send only events and hole cards (shared): both bridges got some of them
    assert all(n > 0 for n in taken), taken
