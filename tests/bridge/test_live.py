"""The live feed does not wait for the store: an event is pushed when it arrives (each
table's events once, in seq order), its ack only after the commit; what the store applies
that the feed missed is pushed then. Hole cards reach only the ``broadcast`` role's feed,
after the configured delay or at the end of the hand. The MQTT link sends each table's
newest ack at most every ACK_EVERY_S, resend requests at once."""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

import pytest
from fastapi.testclient import TestClient

from controller.sync.messages import EventMessage, SecureCards, parse_host_ack
from host_bridge.bridge import Bridge
from host_bridge.ingest import FeedItem, IngestResult, Parsed, event_item
from host_bridge.live import HOLD_LIMIT, FloorFeed, HoleCardRelease
from host_bridge.mqtt import MqttLink
from host_bridge.settings import Role
from tests.bridge.conftest import ManualClock, auth
from tests.bridge.tablesim import FakeBroker, WireTable, showdown_hand

URL = "/api/v1/feed"


def drain(queue: asyncio.Queue[FeedItem]) -> list[FeedItem]:
    """Everything queued so far."""
    out = []
    while not queue.empty():
        out.append(queue.get_nowait())
    return out


def item(table: str, seq: int) -> FeedItem:
    """A feed item for an event of ``table`` at ``seq``."""
    return {"type": "event", "table": table, "seq": seq, "ts": 1.0, "event": {"kind": "x"}}


def test_an_event_reaches_the_feed_before_it_is_stored_and_is_acked_after(
        bridge: Bridge, broker: FakeBroker, monkeypatch: pytest.MonkeyPatch) -> None:
    stored = threading.Event()
    release = threading.Event()
    apply = bridge.ingest.apply

    def slow_store(batch: list[Parsed]) -> IngestResult:
        assert release.wait(10), "the test never released the store"
        result = apply(batch)
        stored.set()
        return result

    monkeypatch.setattr(bridge.ingest, "apply", slow_store)

    async def scenario() -> None:
        async with bridge.feed.subscribe() as queue:
            receiving = asyncio.create_task(bridge.receive(*WireTable().seat(1, "alice", 500)))
            first = await asyncio.wait_for(queue.get(), 5)  # while the store is held up
            assert first["type"] == "event" and first["seq"] == 1
            assert first["event"]["kind"] == "player_seated"
            assert not stored.is_set()
            assert not [t for t, *_ in broker.published if "/host/ack/" in t]  # no ack yet
            release.set()
            result = await asyncio.wait_for(receiving, 10)
            assert stored.is_set()
            assert [t for t, *_ in broker.published if "/host/ack/" in t] == [
                "pitboss/v1/test/host/ack/t1"]
            assert result.feed[0]["seq"] == 1
            # the store's copy of the event is not pushed twice; the table's reload signal is
            assert [i["type"] for i in drain(queue)] == ["stored"]

    asyncio.run(scenario())


def test_an_event_above_a_gap_waits_for_the_gap_and_a_resend_is_not_pushed_twice(
        bridge: Bridge) -> None:
    wire = WireTable()
    m1, m2, m3 = (wire.seat(s, f"p{s}", 100) for s in (1, 2, 3))

    async def scenario() -> list[int]:
        async with bridge.feed.subscribe() as queue:
            bridge.admit(*m3)
            bridge.admit(*m2)
            assert drain(queue) == []  # seq 1 is missing: held
            bridge.admit(*m1)
            bridge.admit(*m2)  # a resend
            return [i["seq"] for i in drain(queue)]

    assert asyncio.run(scenario()) == [1, 2, 3]


def test_the_feed_starts_after_what_the_store_holds_and_settles_what_it_missed() -> None:
    feed = FloorFeed()
    feed.start_at({"t1": 5})

    async def scenario() -> list[tuple[str, int]]:
        async with feed.subscribe() as queue:
            assert not feed.offer(item("t1", 5))  # stored before a restart: not again
            assert feed.offer(item("t1", 6))
            assert not feed.offer(item("t1", 9))  # held above the gap 7..8
            feed.settle(item("t1", 7))  # the store applied 7 (e.g. pending since a restart)
            feed.settle(item("t1", 6))  # already pushed
            feed.offer(item("t1", 8))  # the gap fills: 8, then the held 9
            feed.settle({"type": "status", "table": "t1", "online": True, "ts": 1.0})
            return [(i["type"], i.get("seq", 0)) for i in drain(queue)]

    assert asyncio.run(scenario()) == [("event", 6), ("event", 7), ("event", 8), ("event", 9),
                                       ("status", 0)]
    assert feed.fed_seq("t1") == 9


def _hole(seq: int, hand_no: int = 1, player: int = 0) -> SecureCards:
    return SecureCards(table="t1", boot="b", seq=seq, ts=1.0, hand_no=hand_no, player=player,
                       cards=("As", "Ks"))


def test_broadcast_hole_cards_wait_for_the_delay_and_never_reach_other_roles() -> None:
    clock = ManualClock()
    feed = FloorFeed()
    feed.start_at({"t1": 30})  # the cards' hole_dealt events are on the feed
    release = HoleCardRelease(feed, 30.0, clock=clock)

    async def scenario() -> None:
        async with feed.subscribe(privileged=True) as broadcast, feed.subscribe() as viewer:
            release.hold(_hole(4))
            clock.now += 29.9
            release.release_due()
            assert drain(broadcast) == []  # one side of the delay
            clock.now += 0.2
            release.release_due()
            (cards,) = drain(broadcast)  # the other side
            assert cards == {"type": "hole_cards", "table": "t1", "seq": 4, "hand_no": 1,
                             "player": 0, "cards": ["As", "Ks"]}
            release.hold(_hole(4))  # a resend of cards already released
            clock.now += 60
            release.release_due()
            assert drain(broadcast) == []
            assert drain(viewer) == []

    asyncio.run(scenario())


def test_broadcast_hole_cards_are_released_at_the_end_of_the_hand_before_the_delay() -> None:
    clock = ManualClock()
    feed = FloorFeed()
    feed.start_at({"t1": 30})  # the cards' hole_dealt events are on the feed
    release = HoleCardRelease(feed, 30.0, clock=clock)

    async def scenario() -> None:
        async with feed.subscribe(privileged=True) as broadcast, feed.subscribe() as viewer:
            release.hold(_hole(4, player=0))
            release.hold(_hole(5, player=1))
            release.hold(_hole(20, hand_no=2))
            release.hand_over("t1", 1)
            assert [(i["seq"], i["player"]) for i in drain(broadcast)] == [(4, 0), (5, 1)]
            assert release.waiting == 1  # hand 2 still waits for its delay
            release.hold(_hole(5, player=1))  # a late resend of the finished hand
            assert drain(broadcast) == [] and release.waiting == 1
            assert drain(viewer) == []

    asyncio.run(scenario())


def _frames_until(ws: Any, kind: str) -> list[dict[str, Any]]:
    frames: list[dict[str, Any]] = []
    while not frames or frames[-1].get("type") != kind:
        frames.append(json.loads(ws.receive_text()))
    return frames


def test_only_the_broadcast_feed_gets_the_hole_cards_of_a_finished_hand(
        client: TestClient, bridge: Bridge) -> None:
    wire = WireTable()
    messages = [wire.seat(seat, name, 1000) for seat, name in ((1, "a"), (2, "b"), (3, "c"))]
    messages += wire.hand(1, (1, 2, 3), showdown_hand())
    with client.websocket_connect(URL, headers=auth(Role.BROADCAST)) as broadcast, \
            client.websocket_connect(URL, headers=auth(Role.VIEWER)) as viewer, \
            client.websocket_connect(URL, headers=auth(Role.FLOOR)) as floor:
        for ws in (broadcast, viewer, floor):
            ws.receive_json()  # hello
        for topic, payload in messages:
            client.portal.call(bridge.receive, topic, payload)  # type: ignore[union-attr]
        seen = _frames_until(broadcast, "hand_ended")
        while len([f for f in seen if f["type"] == "hole_cards"]) < 3:
            seen.append(json.loads(broadcast.receive_text()))
        holes = {f["player"]: f["cards"] for f in seen if f["type"] == "hole_cards"}
        assert holes == {0: ["As", "Ks"], 1: ["7c", "2d"], 2: ["Qh", "Qd"]}
        for ws in (viewer, floor):
            frames = _frames_until(ws, "hand_ended")
            assert not [f for f in frames if f["type"] == "hole_cards"]
            assert "AsKs" not in json.dumps(frames) and '"As"' not in json.dumps(frames)


def test_the_event_item_is_the_same_whether_pushed_on_arrival_or_when_applied(
        bridge: Bridge) -> None:
    topic, payload = WireTable().seat(1, "alice", 500)
    result = bridge.ingest.take(topic, payload)
    assert result.feed[0] == event_item(EventMessage.model_validate_json(payload))


def test_a_gap_is_never_skipped_even_once_the_hold_is_full() -> None:
    # issue 17: the feed never shows an event ahead of its table's contiguous seq; beyond
    # the hold, an event reaches the feed when the store applies it (settle)
    feed = FloorFeed()

    async def scenario() -> tuple[list[int], list[int], list[int]]:
        async with feed.subscribe() as queue:
            for seq in range(2, 2 + HOLD_LIMIT + 1):  # one more than the hold keeps
                feed.offer(item("t1", seq))
            before = [i["seq"] for i in drain(queue)]  # seq 1 missing: nothing goes out
            feed.offer(item("t1", 1))
            filled = [i["seq"] for i in drain(queue)]
            feed.settle(item("t1", 2 + HOLD_LIMIT))  # the store applied the one not held
            return before, filled, [i["seq"] for i in drain(queue)]

    before, filled, settled = asyncio.run(scenario())
    assert before == []
    assert filled == list(range(1, 2 + HOLD_LIMIT))
    assert settled == [2 + HOLD_LIMIT]


def test_hole_cards_that_arrive_after_their_hand_ended_go_out_at_once() -> None:
    feed = FloorFeed()
    feed.start_at({"t1": 30})  # the cards' hole_dealt events are on the feed
    release = HoleCardRelease(feed, 30.0, clock=ManualClock())

    async def scenario() -> list[int]:
        async with feed.subscribe(privileged=True) as broadcast:
            release.hand_over("t1", 1)  # the hand_ended overtook the secure/cards message
            release.hold(_hole(4))
            release.hold(_hole(4))  # and its resend
            return [i["seq"] for i in drain(broadcast)]

    assert asyncio.run(scenario()) == [4]


def test_the_delay_releases_hole_cards_on_its_own_timer() -> None:
    feed = FloorFeed()
    feed.start_at({"t1": 30})  # the cards' hole_dealt events are on the feed
    release = HoleCardRelease(feed, 0.05)  # the real clock

    async def scenario() -> list[int]:
        async with feed.subscribe(privileged=True) as broadcast:
            release.hold(_hole(4))
            release.hold(_hole(5, player=1))
            assert drain(broadcast) == []
            first = await asyncio.wait_for(broadcast.get(), 5)  # nothing else happens
            second = await asyncio.wait_for(broadcast.get(), 5)
            return [first["seq"], second["seq"]]

    assert asyncio.run(scenario()) == [4, 5]


def test_acks_are_coalesced_per_table_and_resend_requests_go_at_once(
        bridge: Bridge, broker: FakeBroker) -> None:
    link = MqttLink(bridge)
    bridge.attach(broker)  # publish through the fake broker, not the link
    t1, t2 = WireTable("t1"), WireTable("t2")
    first = bridge.ingest.take_many([t1.seat(1, "a", 100), t2.seat(1, "b", 100)])
    t1.seat(2, "lost", 100)  # seq 2 never arrives: t1's next batch asks for it
    second = bridge.ingest.take_many([t1.seat(3, "c", 100)])
    assert link.hold_acks(first).outbound == []
    urgent = link.hold_acks(second).outbound
    assert [parse_host_ack(o.payload).kind for o in urgent] == ["resend"]
    asyncio.run(link.flush_acks())
    sent = sorted((parse_host_ack(p).table, parse_host_ack(p).kind, parse_host_ack(p).acked)
                  for _, p, _, _ in broker.published if parse_host_ack(p).kind == "ack")
    assert sent == [("t1", "ack", 1), ("t2", "ack", 1)]  # one per table, the newest
    asyncio.run(link.flush_acks())
    assert len(broker.published) == 2  # nothing waits any more


def test_hole_cards_above_a_gap_wait_for_the_feed_to_reach_their_seq() -> None:
    """Issue 17: nothing is shown ahead of a table's contiguous seq, hole cards included:
    cards whose delay is over but whose hole_dealt is above a gap wait for the gap."""
    clock = ManualClock()
    feed = FloorFeed()
    feed.start_at({"t1": 3})  # the feed has had seqs 1..3; 4 is missing
    release = HoleCardRelease(feed, 30.0, clock=clock)

    async def scenario() -> tuple[list[dict[str, Any]], list[int]]:
        async with feed.subscribe(privileged=True) as broadcast:
            feed.offer(item("t1", 5))  # held above the gap
            release.hold(_hole(5))
            clock.now += 31
            release.release_due()
            release.hand_over("t1", 1)  # not even the hand's end shows them early
            before = drain(broadcast)
            feed.offer(item("t1", 4))  # the gap fills: 4, 5, then the cards
            return before, [i["seq"] for i in drain(broadcast)]

    before, after = asyncio.run(scenario())
    assert before == []
    assert after == [4, 5, 5] and release.waiting == 0
