"""Ingest keeps each table's cursor in memory and stores off the event loop: what that must
not change — a restarted bridge resumes from the store, a batch that fails is taken again
message by message without counting twice, and the event loop never runs the store."""

from __future__ import annotations

import asyncio
import socket
import threading
from pathlib import Path

import pytest

from controller.events import LevelSet
from host_bridge.bridge import Bridge
from host_bridge.db import make_engine, migrate, session_factory
from host_bridge.ingest import FeedItem, Ingest, IngestResult, Parsed
from host_bridge.mqtt import MqttLink
from tests.bridge.conftest import make_settings
from tests.bridge.tablesim import WireTable
from tests.bridge.test_ingest import acks, event_count, table_row
from tests.sync.conftest import Mosquitto


def restarted(bridge: Bridge) -> Ingest:
    """A new ingest on the same store, as after a bridge restart (no cursors in memory)."""
    old = bridge.ingest
    return Ingest(old._sessions, old.site, host_boot="restarted", resend_after=50)


def test_a_restarted_bridge_resumes_a_gap_and_waiting_hole_cards_from_the_store(
        bridge: Bridge) -> None:
    wire = WireTable()
    m1, m2, m3 = (wire.seat(1, "alice", 500), wire.seat(2, "bob", 400),
                  wire.event(LevelSet(level=4)))
    bridge.ingest.take(*m1)
    assert acks(bridge.ingest.take(*m3)) == [("ack", 1, 1), ("resend", 2, 2)]
    again = restarted(bridge)
    # issue 17: an event above a gap is held in memory, not stored, so the restarted
    # bridge takes seq 3 anew (the table resends whatever is not acked)
    assert acks(again.take(*m3)) == [("ack", 1, 1), ("resend", 2, 2)]
    assert again.duplicates == 0
    assert acks(again.take(*m2)) == [("ack", 3, 3)]
    row = table_row(bridge)
    assert (row.acked_seq, row.level, row.boot) == (3, 4, "boot-1")
    assert event_count(bridge) == 3


def test_a_duplicate_below_the_cursor_is_compared_with_the_stored_payload(
        bridge: Bridge) -> None:
    wire = WireTable()
    bridge.ingest.take(*wire.seat(1, "alice", 500))
    bridge.ingest.take(*wire.seat(2, "bob", 500))
    again = restarted(bridge)
    forged = WireTable(seq=iter([1])).seat(1, "mallory", 9999)
    # issue 17: the table is asked once to confirm seq 1 (a resend of it), then the ack
    assert acks(again.take(*forged)) == [("resend", 1, 1), ("ack", 2, 2)]
    assert (again.conflicts, again.duplicates) == (1, 0)


def test_a_batch_taken_again_one_by_one_counts_each_message_once(
        bridge: Bridge, monkeypatch: pytest.MonkeyPatch) -> None:
    import host_bridge.ingest as ingest_module

    real_apply = ingest_module.apply_event

    def fail_t2(rows: object, table: str, message: object, seq: int,
                feed: list[FeedItem], *rest: object) -> None:
        if table == "t2":
            raise RuntimeError("simulated bug")
        real_apply(rows, table, message, seq, feed, *rest)  # type: ignore[arg-type]

    monkeypatch.setattr(ingest_module, "apply_event", fail_t2)
    t1, t2 = WireTable("t1"), WireTable("t2")
    first = t1.seat(1, "a", 100)
    bridge.ingest.take(*first)
    result = bridge.ingest.take_many([first, t1.seat(2, "b", 100), t2.seat(1, "c", 100)])
    assert (bridge.ingest.duplicates, bridge.ingest.failures) == (1, 1)
    assert acks(result) == [("ack", 2, 2)]  # t2 stored nothing, so it gets no ack
    assert [f["seq"] for f in result.feed if f["type"] == "event"] == [2]
    assert table_row(bridge, "t1").acked_seq == 2


def test_the_store_runs_off_the_event_loop(bridge: Bridge,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    threads: list[str] = []
    apply = bridge.ingest.apply

    def record(batch: list[Parsed]) -> IngestResult:
        threads.append(threading.current_thread().name)
        return apply(batch)

    monkeypatch.setattr(bridge.ingest, "apply", record)
    result = asyncio.run(bridge.receive(*WireTable().seat(1, "alice", 500)))
    assert acks(result) == [("ack", 1, 1)]
    assert threads and threads[0] != threading.main_thread().name
    assert threads[0].startswith("bridge-ingest")



def test_the_broker_connection_sends_small_packets_at_once(
        tmp_path: Path, mosquitto: Mosquitto) -> None:
    """TCP_NODELAY on the bridge's socket: with Nagle's algorithm and the broker's delayed
    ACKs an ack per batch could wait up to 40 ms."""
    settings = make_settings(tmp_path, mqtt_port=mosquitto.port)
    engine = make_engine(settings.database_url)
    migrate(engine)

    async def nodelay() -> int:
        async with MqttLink(Bridge(settings, session_factory(engine))) as link:
            await asyncio.wait_for(link.connected.wait(), 30)
            assert link._client is not None
            sock = link._client._client.socket()
            assert sock is not None
            return int(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))

    try:
        assert asyncio.run(nodelay()) != 0
    finally:
        engine.dispose()
