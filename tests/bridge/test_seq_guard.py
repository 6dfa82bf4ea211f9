"""Issue 17, items 3 and 4, through a real Mosquitto: the bridge never stores, acks or feeds
an event ahead of its table's contiguous seq; a conflicting payload for a stored seq is kept
for audit, counted, shown (API, the table card's alert) and the table is asked once to
confirm; a seq outside 1..2^63-1, or too far ahead to be a gap, is refused with one log line
and no traceback, and nothing is stored. Fails, saying so, where Mosquitto is not installed."""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import aiomqtt
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from controller.sync.errors import MessageRejected
from controller.sync.messages import AckMessage, ResendRequest, parse_host_ack
from host_bridge.app import create_app
from host_bridge.bridge import Bridge
from host_bridge.ingest import FeedItem
from host_bridge.models import EventRecord, Seat
from host_bridge.settings import Role
from tests.bridge.conftest import auth, make_settings
from tests.bridge.tablesim import SITE, WireTable
from tests.sync.conftest import Mosquitto

WAIT_S = 30.0  # an upper bound for slow machines, not a budget
SETTLE_S = 0.6  # longer than an ack's pacing (0.5 s): what has not come by then won't


def wait_for(what: str, predicate: Callable[[], bool]) -> None:
    deadline = time.monotonic() + WAIT_S
    while not predicate():
        if time.monotonic() > deadline:
            pytest.fail(f"gave up waiting for {what}")
        time.sleep(0.02)


class TablePeer:
    """Plays the table's side of the broker in a thread: publishes payloads on t1's topics
    and records what the bridge sends on ``host/ack/t1`` (acks and resend requests)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.heard: list[AckMessage | ResendRequest] = []
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._client: aiomqtt.Client | None = None
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)

    def __enter__(self) -> TablePeer:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._listen(), self._loop)
        assert self._ready.wait(WAIT_S), "the peer did not connect"
        return self

    def __exit__(self, *_: object) -> None:
        for task in asyncio.all_tasks(self._loop):
            self._loop.call_soon_threadsafe(task.cancel)
        time.sleep(0.1)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(WAIT_S)

    async def _listen(self) -> None:
        async with aiomqtt.Client("127.0.0.1", self.port, identifier="pitboss-t1-peer") as c:
            self._client = c
            await c.subscribe(f"pitboss/v1/{SITE}/host/ack/t1", qos=1)
            self._ready.set()
            async for message in c.messages:
                assert isinstance(message.payload, bytes)
                self.heard.append(parse_host_ack(message.payload))

    def publish(self, topic: str, payload: bytes) -> None:
        assert self._client is not None
        asyncio.run_coroutine_threadsafe(
            self._client.publish(topic, payload, qos=1), self._loop).result(WAIT_S)

    def acked(self) -> int:
        return max((m.acked for m in self.heard if isinstance(m, AckMessage)), default=0)

    def resends(self) -> list[tuple[int, int]]:
        return [(m.from_seq, m.to_seq) for m in self.heard if isinstance(m, ResendRequest)]


@pytest.fixture
def floor(tmp_path: Path, mosquitto: Mosquitto) -> Iterator[tuple[TestClient, Bridge,
                                                                   TablePeer, list[FeedItem]]]:
    """A bridge connected to a real Mosquitto, a table peer, and what the bridge fed."""
    app = create_app(make_settings(tmp_path, mqtt_port=mosquitto.port), connect=True)
    with TestClient(app) as client:
        bridge: Bridge = app.state.bridge
        wait_for("the bridge to connect", bridge.publisher.connected.is_set)  # type: ignore[attr-defined]
        fed: list[FeedItem] = []
        publish = bridge.feed.publish

        def record(item: FeedItem, *, private: bool = False) -> None:
            fed.append(item)
            publish(item, private=private)

        bridge.feed.publish = record  # type: ignore[method-assign]
        with TablePeer(mosquitto.port) as peer:
            yield client, bridge, peer, fed


def stored_seqs(bridge: Bridge) -> list[int]:
    with bridge.ingest._sessions() as session:
        return sorted(session.scalars(select(EventRecord.seq)))


def seated(bridge: Bridge) -> dict[int, str]:
    with bridge.ingest._sessions() as session:
        return {s.seat: s.player_id for s in session.scalars(select(Seat))}


def fed_seqs(fed: list[FeedItem]) -> list[int]:
    return [i["seq"] for i in fed if i["type"] == "event" and i["table"] == "t1"]


def test_a_future_seq_event_is_neither_stored_acked_nor_fed_until_the_gap_fills(
        floor: tuple[TestClient, Bridge, TablePeer, list[FeedItem]]) -> None:
    client, bridge, peer, fed = floor
    wire = WireTable()
    alice, bob = wire.seat(1, "alice", 500), wire.seat(2, "bob", 400)
    mallory = wire.seat(3, "mallory", 1_000_000)  # seq 3, published before seq 2
    peer.publish(*alice)
    wait_for("seq 1 acked", lambda: peer.acked() == 1)
    peer.publish(*mallory)
    wait_for("the resend request for seq 2", lambda: (2, 2) in peer.resends())
    time.sleep(SETTLE_S)
    assert stored_seqs(bridge) == [1]  # seq 3 is held, not stored
    assert peer.acked() == 1
    assert fed_seqs(fed) == [1]  # nor shown on the floor
    table = client.get("/api/v1/tables/t1", headers=auth(Role.VIEWER)).json()
    assert [s["player"] for s in table["seats"]] == ["alice"] and table["acked_seq"] == 1
    peer.publish(*bob)  # the gap fills: all in order
    wait_for("seq 3 acked", lambda: peer.acked() == 3)
    assert stored_seqs(bridge) == [1, 2, 3]
    assert fed_seqs(fed) == [1, 2, 3]
    assert seated(bridge) == {1: "alice", 2: "bob", 3: "mallory"}


def test_a_conflicting_payload_is_kept_counted_shown_and_the_table_asked_once(
        floor: tuple[TestClient, Bridge, TablePeer, list[FeedItem]]) -> None:
    client, bridge, peer, fed = floor
    wire = WireTable()
    alice = wire.seat(1, "alice", 500)
    forged = WireTable().seat(1, "mallory", 1_000_000)  # seq 1 again, another payload
    peer.publish(*alice)
    wait_for("seq 1 acked", lambda: peer.acked() == 1)
    peer.publish(*forged)
    peer.publish(*forged)
    url = "/api/v1/tables/t1/conflicts"
    wait_for("the conflict counted twice", lambda: client.get(
        url, headers=auth(Role.VIEWER)).json()["data"][:1] != [] and client.get(
        url, headers=auth(Role.VIEWER)).json()["data"][0]["count"] == 2)
    time.sleep(SETTLE_S)
    assert peer.resends() == [(1, 1)]  # asked once to confirm seq 1
    body = client.get(url, headers=auth(Role.VIEWER)).json()
    assert body["count"] == 1
    record = body["data"][0]
    # a repeat of the conflicting payload is counted, not taken as the table's answer
    assert record["seq"] == 1 and record["topic"] == "event" and record["verdict"] is None
    assert json.loads(record["payload"])["event"]["player"] == "mallory"
    assert record["confirm_asked_at"] is not None
    table = client.get("/api/v1/tables/t1", headers=auth(Role.VIEWER)).json()
    assert table["conflicts"] == 1  # the table card's alert reads this
    assert [s["player"] for s in table["seats"]] == ["alice"]  # the first stands
    assert [i for i in fed if i["type"] == "conflict"] != []  # the page reloads the card
    peer.publish(*alice)  # the table's journal resends its original, byte for byte
    wait_for("the verdict", lambda: client.get(url, headers=auth(Role.VIEWER)).json()
             ["data"][0]["verdict"] == "stored")
    finding = client.get(url, headers=auth(Role.VIEWER)).json()["data"][0]["finding"]
    assert "the conflicting one was not the table's" in finding
    assert bridge.ingest.conflicts == 2


@pytest.mark.parametrize("seq", [0, -1, 2**63, 2**64 + 1, 2**62],
                         ids=["0", "-1", "2^63", "2^64+1", "2^62"])
def test_a_seq_out_of_range_is_refused_in_one_line_and_nothing_is_stored(
        floor: tuple[TestClient, Bridge, TablePeer, list[FeedItem]],
        caplog: pytest.LogCaptureFixture, seq: int) -> None:
    _client, bridge, peer, fed = floor
    caplog.set_level(logging.INFO)
    topic, payload = WireTable().seat(1, "mallory", 1_000_000)
    bad: dict[str, Any] = json.loads(payload) | {"seq": seq}
    peer.publish(topic, json.dumps(bad).encode())

    def refusals() -> list[logging.LogRecord]:
        return [r for r in caplog.records if "ignored a message" in r.getMessage()]

    wait_for("the refusal", lambda: refusals() != [])
    time.sleep(SETTLE_S)
    assert len(refusals()) == 1 and "seq" in refusals()[0].getMessage()
    assert "\n" not in refusals()[0].getMessage()
    assert "Traceback" not in caplog.text
    assert all(r.exc_info is None for r in caplog.records)
    assert stored_seqs(bridge) == [] and fed_seqs(fed) == []
    assert peer.resends() == []  # nothing to ask for
    with bridge.ingest._sessions() as session:
        assert session.scalar(select(func.count()).select_from(Seat)) == 0


@pytest.mark.parametrize("ack", [{"kind": "ack", "acked": 2**63},
                                 {"kind": "ack", "acked": -1},
                                 {"kind": "resend", "from_seq": 0, "to_seq": 5},
                                 {"kind": "resend", "from_seq": 1, "to_seq": 2**64}])
def test_an_ack_or_resend_request_out_of_range_is_refused_with_a_reason(
        ack: dict[str, Any]) -> None:
    payload = {"schema": 2, "table": "t1", "boot": "host-1", "seq": 1, "ts": 1.0} | ack
    with pytest.raises(MessageRejected, match=r"malformed host ack: .*than or equal"):
        parse_host_ack(json.dumps(payload).encode())
