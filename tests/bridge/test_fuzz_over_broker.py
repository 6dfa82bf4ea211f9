"""Issue 17, item 9: Hypothesis fuzzing over a real Mosquitto, not only in-process.

The bridge's ingest: one bridge (its real MQTT session) hears, for one or two fresh tables
per example, genuine events in any order (shuffled, duplicated, above gaps filled later),
forged payloads for a seq whose genuine one came first, and junk (not JSON, another schema
version, a seq outside 1..2^63-1 or too far ahead, an unknown event kind, another table's
payload); then each table's genuine remainder in order. Whatever came: the store holds
1..N once each, byte for byte the table's, every forgery is kept as a conflict, no ack ran
ahead of what the table had really sent, the session never fell, and each junk message got
one log line with its reason and no traceback.

A table's command desk: a real TableLink (journal, outbox, desk) hears random commands on
its ``cmd`` topic: valid ones, ids reused with the same or another body, JSON that is not,
unknown names, bad fields, another table's. Each gets exactly one reply; a retry gets the
stored reply byte for byte; a reused id with another body is refused with a reason naming
it and changes nothing; the link stays up and logs no traceback.

Fails, saying so, where Mosquitto is not installed."""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import threading
import time
from collections.abc import Callable, Coroutine, Iterator
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any, TypeVar

import aiomqtt
import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from controller.sync.messages import AckMessage, parse_host_ack
from controller.sync.topics import Topics
from host_bridge.app import create_app
from host_bridge.bridge import Bridge
from host_bridge.models import EventRecord, HoleCards, SeqConflict
from tests.bridge.conftest import make_settings
from tests.bridge.tablesim import SITE, WireTable, showdown_hand
from tests.sync.conftest import Mosquitto
from tests.sync.harness import TableStack, running_table

WAIT_S = 30.0  # an upper bound for slow machines, not a budget
FUZZ = settings(max_examples=15, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow,
                                       HealthCheck.function_scoped_fixture,
                                       HealthCheck.data_too_large])
T = TypeVar("T")


def wait_for(what: str, predicate: Callable[[], bool]) -> None:
    deadline = time.monotonic() + WAIT_S
    while not predicate():
        if time.monotonic() > deadline:
            pytest.fail(f"gave up waiting for {what}")
        time.sleep(0.02)


class LoopThread:
    """An asyncio loop in a thread: the MQTT clients live there, the test drives them."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self._thread.start()

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(WAIT_S)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(WAIT_S)
        self.loop.close()


# ======================================================================= the bridge's ingest
class Peer:
    """Plays the tables' side: publishes raw payloads, and records each ack the bridge
    sends with what the test had published of that table (genuinely) by then."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.loop = LoopThread()
        self.client: aiomqtt.Client | None = None
        self.stack = AsyncExitStack()
        # per table: the highest seq k such that every genuine half of 1..k was published
        self.prefix: dict[str, int] = {}
        self.acks: dict[str, list[tuple[int, int]]] = {}  # (acked, prefix when heard)
        self.published = 0
        self.loop.run(self._start())

    async def _start(self) -> None:
        self.client = await self.stack.enter_async_context(
            aiomqtt.Client("127.0.0.1", self.port, identifier="pitboss-fuzz-peer"))
        await self.client.subscribe(f"pitboss/v1/{SITE}/host/ack/+", qos=1)
        asyncio.get_running_loop().create_task(self._listen())

    async def _listen(self) -> None:
        assert self.client is not None
        async for message in self.client.messages:
            assert isinstance(message.payload, bytes)
            ack = parse_host_ack(message.payload)
            if isinstance(ack, AckMessage):
                self.acks.setdefault(ack.table, []).append(
                    (ack.acked, self.prefix.get(ack.table, 0)))

    def publish(self, topic: str, payload: bytes) -> None:
        assert self.client is not None
        self.published += 1
        self.loop.run(self.client.publish(topic, payload, qos=1))

    def acked(self, table: str) -> int:
        return max((a for a, _ in self.acks.get(table, [])), default=0)

    def close(self) -> None:
        async def stop() -> None:
            for task in asyncio.all_tasks():
                if task is not asyncio.current_task():
                    task.cancel()
            await self.stack.aclose()
        try:
            self.loop.run(stop())
        finally:
            self.loop.close()


class Genuine:
    """One table's real stream: three players seated and a showdown hand (hole cards on
    ``secure/cards`` with the seq of their ``hole_dealt``)."""

    def __init__(self, table: str) -> None:
        wire = WireTable(table=table)
        self.messages = [wire.seat(1, "a", 1000), wire.seat(2, "b", 1000),
                         wire.seat(3, "c", 1000)]
        self.messages += wire.hand(1, (1, 2, 3), showdown_hand())
        self.topics = wire.topics
        self.seqs = [json.loads(p)["seq"] for _, p in self.messages]
        self.last = max(self.seqs)
        self.events = {s: p for (t, p), s in zip(self.messages, self.seqs, strict=True)
                       if t == self.topics.event}
        self.cards = {s: json.loads(p)["cards"] for (t, p), s
                      in zip(self.messages, self.seqs, strict=True)
                      if t == self.topics.secure_cards}


def forged(topic: str, payload: bytes, how: int) -> bytes:
    """Another payload for the same seq on the same topic: hole cards that are not the
    table's, or an event with another body, ts or boot."""
    body = json.loads(payload)
    if "cards" in body:
        body["cards"] = ["2c", "3d"] if body["cards"] != ["2c", "3d"] else ["4h", "5s"]
    elif how == 0 and "stack" in body["event"]:
        body["event"]["stack"] += 1
    elif how == 1:
        body["boot"] = "boot-forged"
    else:
        body["ts"] += 0.5
    return json.dumps(body).encode()


def junk(table: str, n: int, topics: Topics) -> tuple[str, bytes]:
    """A message the bridge must refuse (one log line with the reason), for ``table``."""
    good = json.loads(WireTable(table=table).seat(4, "mallory", 10**6)[1])
    kinds: list[tuple[str, Any]] = [
        (topics.event, b"{not json"),
        (topics.event, b"\xff\xfe\x00"),
        (topics.event, b"[1, 2]"),
        (topics.event, good | {"schema": 1}),
        (topics.event, good | {"schema": 3}),
        (topics.event, good | {"seq": 0}),
        (topics.event, good | {"seq": -1}),
        (topics.event, good | {"seq": 2**63}),
        (topics.event, good | {"seq": 10**30}),
        (topics.event, good | {"seq": 2**62}),  # in range, but no gap the table can fill
        (topics.event, good | {"event": {"kind": "teleport", "seat": 1}}),
        (topics.event, good | {"table": "elsewhere"}),
        (topics.secure_cards, {"schema": 2, "table": table, "boot": "b", "seq": 2**63,
                               "ts": 1.0, "hand_no": 1, "player": 0, "cards": ["As", "Ks"]}),
        (topics.secure_cards, {"schema": 2, "table": table, "boot": "b", "seq": 3,
                               "ts": 1.0, "hand_no": 0, "player": 0, "cards": ["As"]}),
    ]
    topic, body = kinds[n % len(kinds)]
    return topic, body if isinstance(body, bytes) else json.dumps(body).encode()


JUNK_KINDS = 14
STEP = st.one_of(st.tuples(st.just("genuine"), st.integers(0, 10**6)),
                 st.tuples(st.just("forge"), st.integers(0, 10**6), st.integers(0, 2)),
                 st.tuples(st.just("junk"), st.integers(0, JUNK_KINDS - 1)))


def watch(bridge: Bridge) -> None:
    """Count, on the bridge, the messages whose batch is stored and its acks queued
    (``bridge.taken``), and record each ack handed to the broker (``bridge.acks_sent``):
    so a test knows when the bridge is quiet, without sleeping."""
    mqtt: Any = bridge.publisher
    store, hold, publish = bridge.store_admitted, mqtt.hold_acks, mqtt.publish
    done = {"taken": 0, "batch": 0}
    sent: dict[str, list[int]] = {}

    async def store_admitted(batch: Any) -> Any:
        done["batch"] = len(batch)
        return await store(batch)

    def hold_acks(result: Any) -> Any:
        urgent = hold(result)
        done["taken"] += done["batch"]  # after the batch's acks are queued
        return urgent

    async def publisher(topic: str, payload: bytes, qos: int, retain: bool) -> None:
        if "/host/ack/" in topic and isinstance(ack := parse_host_ack(payload), AckMessage):
            sent.setdefault(ack.table, []).append(ack.acked)
        await publish(topic, payload, qos, retain)

    bridge.store_admitted = store_admitted  # type: ignore[method-assign]
    mqtt.hold_acks, mqtt.publish = hold_acks, publisher
    bridge.done, bridge.acks_sent = done, sent  # type: ignore[attr-defined]


@pytest.fixture
def ingest_floor(tmp_path: Path, mosquitto: Mosquitto) -> Iterator[tuple[Bridge, Peer]]:
    """One bridge on the real Mosquitto (its own MQTT session) and a table peer, for every
    example of a test."""
    app = create_app(make_settings(tmp_path, mqtt_port=mosquitto.port), connect=True)
    with TestClient(app):
        bridge: Bridge = app.state.bridge
        wait_for("the bridge to connect", bridge.publisher.connected.is_set)  # type: ignore[attr-defined]
        watch(bridge)
        peer = Peer(mosquitto.port)
        try:
            yield bridge, peer
        finally:
            peer.close()


def refusals(caplog: pytest.LogCaptureFixture, table: str) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.getMessage().startswith("ignored a message on ")
            and f"/table/{table}/" in r.getMessage()]


@pytest.mark.slow  # a soak; the in-process fuzz (test_schema_fuzz) runs by default
def test_fuzzed_messages_over_mosquitto_store_each_seq_once_in_order_genuine(
        ingest_floor: tuple[Bridge, Peer], caplog: pytest.LogCaptureFixture) -> None:
    bridge, peer = ingest_floor
    caplog.set_level(logging.INFO)
    session = bridge.publisher.session  # type: ignore[attr-defined]
    numbering = itertools.count()
    seen = {"forged": 0, "junk": 0, "early": 0}

    @FUZZ
    @given(tables=st.integers(1, 2), steps=st.lists(st.tuples(st.integers(0, 1), STEP),
                                                    max_size=14))
    @example(tables=2, steps=[  # the cases the fuzz is for, whatever Hypothesis draws besides
        (0, ("genuine", 5)),  # seq 5's hole cards alone, above a gap
        (0, ("genuine", 10)), (0, ("genuine", 10)),  # a later event, twice, above the gap
        (0, ("genuine", 0)), (0, ("forge", 0, 0)),  # seq 1, then another body for it
        (0, ("forge", 1, 0)), (0, ("forge", 2, 1)),  # other hole cards; a held event forged
        *[(1, ("junk", k)) for k in range(JUNK_KINDS)]])
    def run(tables: int, steps: list[tuple[int, tuple[Any, ...]]]) -> None:
        caplog.clear()
        n = next(numbering)
        ids = [f"fz{n}x{i}" for i in range(tables)]
        streams = {t: Genuine(t) for t in ids}
        sent: dict[str, set[int]] = {t: set() for t in ids}  # indexes of genuine messages
        forgeries: dict[str, set[tuple[int, str]]] = {t: set() for t in ids}
        junked = dict.fromkeys(ids, 0)
        sent_order: dict[str, list[int]] = {t: [] for t in ids}  # genuine, as published

        def quiet() -> None:
            """Wait until the bridge stored all that was published and each ack it sent
            was heard; then check each ack against what the table had really sent."""
            mqtt: Any = bridge.publisher
            done: dict[str, int] = bridge.done  # type: ignore[attr-defined]
            sent_acks: dict[str, list[int]] = bridge.acks_sent  # type: ignore[attr-defined]
            wait_for("the bridge to store all", lambda: done["taken"] == peer.published)
            for table in ids:
                def heard_all(t: str = table) -> bool:
                    return Topics(SITE, t).ack not in mqtt._acks_due and len(
                        peer.acks.get(t, [])) == len(sent_acks.get(t, []))
                wait_for(f"{table}'s acks heard", heard_all)
                heard = [a for a, _ in peer.acks.get(table, [])]
                assert all(a <= peer.prefix.get(table, 0) for a in heard), (
                    heard, peer.prefix.get(table, 0))
                assert all(a <= bridge.ingest.acked_seqs().get(table, 0) for a in heard)

        def send_genuine(table: str, i: int) -> None:
            g = streams[table]
            sent[table].add(i)
            sent_order[table].append(i)
            complete = {g.seqs[j] for j in range(len(g.messages))} - {
                g.seqs[j] for j in range(len(g.messages)) if j not in sent[table]}
            peer.prefix[table] = next(k for k in itertools.count(1) if k not in complete) - 1
            peer.publish(*g.messages[i])

        for which, step in steps:
            table = ids[which % tables]
            g = streams[table]
            if step[0] == "genuine":
                send_genuine(table, step[1] % len(g.messages))
            elif step[0] == "forge":
                if not sent[table]:
                    continue  # a forgery only for a seq whose genuine payload came first
                i = sorted(sent[table])[step[1] % len(sent[table])]
                topic, payload = g.messages[i]
                peer.publish(topic, forged(topic, payload, step[2]))
                forgeries[table].add((g.seqs[i], topic.rsplit("/table/", 1)[1].partition(
                    "/")[2]))
            else:
                junked[table] += 1
                peer.publish(*junk(table, step[1], g.topics))
        quiet()  # no ack may have run ahead of what the fuzz sent
        for table in ids:  # the table's remainder, in order
            g = streams[table]
            for i in range(len(g.messages)):
                if i not in sent[table]:
                    send_genuine(table, i)

        quiet()
        for table in ids:
            g = streams[table]
            def complete(t: str = table, n: int = g.last) -> bool:
                return bridge.ingest.acked_seqs().get(t) == n and peer.acked(t) == n

            def refused(t: str = table) -> bool:
                return len(refusals(caplog, t)) >= junked[t]
            wait_for(f"{table} stored and acked to {g.last}", complete)
            wait_for(f"{table}'s {junked[table]} refusals", refused)

        with bridge.ingest._sessions() as db:
            for table in ids:
                g = streams[table]
                rows = db.execute(select(EventRecord.seq, EventRecord.payload, EventRecord.applied)
                                  .where(EventRecord.table_id == table)
                                  .order_by(EventRecord.seq)).all()
                # 1..N, each once, each the table's own bytes, each applied
                assert [r.seq for r in rows] == list(range(1, g.last + 1))
                assert {r.seq: r.payload.encode() for r in rows} == g.events
                assert all(r.applied for r in rows)
                cards = db.execute(select(HoleCards.seq, HoleCards.cards).where(
                    HoleCards.table_id == table).order_by(HoleCards.seq)).all()
                assert [c.seq for c in cards] == sorted(g.cards)
                assert {c.seq: list(c.cards) for c in cards} == g.cards
                kept = {(c.seq, c.topic) for c in db.scalars(select(SeqConflict).where(
                    SeqConflict.table_id == table))}
                assert kept == forgeries[table]  # every forgery kept, nothing else
        for table in ids:
            # no ack ran ahead of what the table had really sent when it was heard
            assert all(acked <= prefix for acked, prefix in peer.acks[table]), \
                peer.acks[table]
            rejected = refusals(caplog, table)
            assert len(rejected) == junked[table]  # one line each, with its reason
            for record in rejected:
                reason = record.getMessage().partition(": ")[2]
                assert reason.strip() and "\n" not in record.getMessage()
        assert all(r.exc_info is None for r in caplog.records)
        assert "Traceback" not in caplog.text
        assert bridge.ingest.failures == 0
        assert session._task is not None and not session._task.done()  # never knocked off
        assert session.connects == 1
        seen["forged"] += sum(map(len, forgeries.values()))
        seen["junk"] += sum(junked.values())
        seen["early"] += sum(any(i < j for i in sent_order[t][k + 1:])
                             for t in ids for k, j in enumerate(sent_order[t]))

    run()
    # the fuzz reached what it is for (coarse floors: Hypothesis's draws vary)
    assert seen["forged"] > 0 and seen["junk"] >= JUNK_KINDS and seen["early"] > 0


# ==================================================================== a table's command desk
def refusal(cid: str, name: str) -> str:
    return (f"command_id {cid} was already used for another command; nothing was done: "
            f"send {name} with a new command_id")


VALID = st.one_of(
    st.just({"name": "pause"}), st.just({"name": "resume"}),
    st.builds(lambda v: {"name": "set_level", "level": v}, st.integers(1, 12)),
    st.builds(lambda v: {"name": "hand_for_hand", "on": v}, st.booleans()),
    st.builds(lambda v: {"name": "colour_up", "at_level": v}, st.integers(2, 12)))
BAD = st.sampled_from([
    {"name": "teleport"}, {"name": "set_level", "level": -3}, {"name": "set_level"},
    {"name": "pause", "extra": 1}, "pause", {"name": 7}, None])
#: (kind, command, id index, a variant): kinds: a valid command, a bad command (refused by
#: the parser, with its id), another schema version, another table, bytes that are no JSON
COMMAND = st.one_of(
    st.tuples(st.just("valid"), VALID, st.integers(0, 2), st.booleans()),
    st.tuples(st.just("bad"), BAD, st.integers(0, 3), st.booleans()),
    st.tuples(st.just("schema"), VALID, st.integers(0, 3), st.sampled_from([1, 3, "2"])),
    st.tuples(st.just("table"), VALID, st.integers(0, 3), st.just(0)),
    st.tuples(st.just("garbage"), st.sampled_from([b"", b"{", b"\xff\xfe{}", b"[" * 3000,
                                                   b"null", b'"pause"']),
              st.just(0), st.just(0)))


class Host:
    """The host's side of one table's command topic, in a loop thread."""

    def __init__(self, port: int, db: Path) -> None:
        self.loop = LoopThread()
        self.stack = AsyncExitStack()
        self.topics = Topics("test", "t1")
        self.replies: asyncio.Queue[bytes] | None = None
        self.table: TableStack = self.loop.run(self._start(port, db))

    async def _start(self, port: int, db: Path) -> TableStack:
        self.replies = asyncio.Queue()
        client = await self.stack.enter_async_context(
            aiomqtt.Client("127.0.0.1", port, identifier="pitboss-fuzz-host"))
        await client.subscribe(self.topics.reply, qos=1)
        self.client = client
        self.listener = asyncio.get_running_loop().create_task(self._listen())
        return await self.stack.enter_async_context(running_table(db, port))

    async def _listen(self) -> None:
        assert self.replies is not None
        async for message in self.client.messages:
            assert isinstance(message.payload, bytes)
            self.replies.put_nowait(message.payload)

    def ask(self, payload: bytes) -> bytes:
        """Publish one command and take the next reply."""
        async def go() -> bytes:
            assert self.replies is not None
            await self.client.publish(self.topics.cmd, payload, qos=1)
            return await self.replies.get()
        return self.loop.run(go())

    def pending(self) -> int:
        assert self.replies is not None
        return self.replies.qsize()

    def close(self) -> None:
        async def stop() -> None:
            self.listener.cancel()
            await self.stack.aclose()
        try:
            self.loop.run(stop())
        finally:
            self.loop.close()


def command_payload(kind: str, command: Any, cid: str, variant: Any) -> bytes:
    if kind == "garbage":
        assert isinstance(command, bytes)
        return command
    if kind == "valid" and variant and isinstance(command, dict):
        command = dict(reversed(list(command.items())))  # the same command, written another way
    body = {"schema": 2, "table": "t1", "boot": "host-1", "seq": 1, "ts": time.time(),
            "command_id": cid, "command": command}
    if kind == "schema":
        body["schema"] = variant
    elif kind == "table":
        body["table"] = "t9"
    return json.dumps(body).encode()


def test_fuzzed_commands_over_mosquitto_get_one_reply_each_and_a_reused_id_does_nothing(
        mosquitto: Mosquitto, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    host = Host(mosquitto.port, tmp_path / "t1.db")
    stack = host.table
    numbering = itertools.count()
    seen = {"retries": 0, "refused": 0, "rejected": 0}
    try:
        @FUZZ
        @given(commands=st.lists(COMMAND, max_size=12))
        @example(commands=[  # the cases the fuzz is for, whatever Hypothesis draws besides
            ("valid", {"name": "set_level", "level": 3}, 0, False),
            ("valid", {"name": "set_level", "level": 3}, 0, True),  # a retry, keys reordered
            ("valid", {"name": "pause"}, 0, False),  # reused for another command
            ("bad", {"name": "teleport"}, 0, False), ("garbage", b"{", 0, 0),
            ("valid", {"name": "set_level", "level": 3}, 0, False)])
        def run(commands: list[tuple[str, Any, int, Any]]) -> None:
            caplog.clear()
            n = next(numbering)
            stored: dict[str, tuple[str, bytes]] = {}  # id -> (canonical command, reply)
            unparsed = reused = 0
            for kind, command, which, variant in (
                    [*commands, ("valid", {"name": "set_level", "level": 1}, 9, False)]):
                cid = f"e{n}-{which}"  # a few ids per example: reuse is common
                before = (stack.outbox.last_seq, stack.outbox.state, stack.desk.performed)
                raw = host.ask(command_payload(kind, command, cid, variant))
                reply = json.loads(raw)
                assert reply["table"] == "t1" and reply["status"] in ("ok", "error")
                if reply["status"] == "error":
                    assert isinstance(reply["error"], str) and reply["error"].strip()
                unchanged = (stack.outbox.last_seq, stack.outbox.state,
                             stack.desk.performed) == before
                if kind == "garbage":
                    assert reply["command_id"] is None and reply["status"] == "error"
                    assert unchanged
                    unparsed += 1
                elif kind in ("bad", "schema"):
                    assert reply["command_id"] == cid and reply["status"] == "error"
                    assert unchanged
                    unparsed += 1
                elif kind == "table":
                    assert reply["command_id"] == cid
                    assert reply["error"] == "command for table t9 reached table t1"
                    assert unchanged
                else:
                    canonical = json.dumps(command, sort_keys=True)
                    if cid not in stored:
                        assert reply["command_id"] == cid
                        stored[cid] = (canonical, raw)
                    elif stored[cid][0] == canonical:  # a retry: the stored reply, as is
                        assert raw == stored[cid][1] and unchanged
                        seen["retries"] += 1
                    else:  # reused for another command: refused, nothing done
                        assert reply["status"] == "error" and reply["command_id"] == cid
                        assert reply["error"] == refusal(cid, command["name"])
                        assert unchanged
                        reused += 1
                        seen["refused"] += 1
            assert host.pending() == 0  # exactly one reply each: none left over
            logged = [r.getMessage() for r in caplog.records]
            # a payload the desk could not read: one line with the reason, then its reply
            assert sum(m.startswith("command rejected: ") for m in logged) == unparsed
            assert sum("reused for another command" in m for m in logged) == reused
            assert all(r.exc_info is None for r in caplog.records)
            assert "Traceback" not in caplog.text
            assert stack.link.connects == 1 and stack.link.connected.is_set()
            task = stack.link.session._task
            assert task is not None and not task.done()
            seen["rejected"] += unparsed

        run()
    finally:
        host.close()
    # the fuzz reached what it is for (Hypothesis's examples vary; these are coarse floors)
    assert seen["refused"] > 0 and seen["retries"] > 0 and seen["rejected"] > 0


def test_a_forgery_in_the_batch_that_applied_its_seq_is_still_kept_as_a_conflict(
        tmp_path: Path) -> None:
    """Found by the fuzz above: a forged payload in the same batch as the genuine one it
    contradicts, after it was applied (its row still in the batch's insert buffer), was
    counted as a duplicate and not kept for audit; forged hole cards could be stored beside
    the genuine ones."""
    bridge: Bridge = create_app(make_settings(tmp_path)).state.bridge
    g = Genuine("t1")
    m = g.messages
    hole = next(i for i, (t, _) in enumerate(m) if t == g.topics.secure_cards)
    # hole cards alone above the gap, a later event above it, then seq 1 and a forgery of
    # each, all in one batch (as the fuzz's explicit example reaches the bridge)
    batch = [m[hole], m[hole + 5], m[0], (m[0][0], forged(*m[0], 0)),
             (m[hole][0], forged(*m[hole], 0)), *m[1:hole], *m[hole + 1:hole + 5]]
    bridge.ingest.take_many(batch)
    with bridge.ingest._sessions() as db:
        kept = {(c.seq, c.topic) for c in db.scalars(select(SeqConflict))}
        cards = db.execute(select(HoleCards.seq, HoleCards.cards)).all()
        stored = db.scalar(select(EventRecord.payload).where(EventRecord.seq == 1))
    assert kept == {(1, "event"), (g.seqs[hole], "secure/cards")}
    assert len({c.seq for c in cards}) == len(cards) and g.seqs[hole] in {c.seq for c in cards}
    assert all(list(c.cards) == g.cards[c.seq] for c in cards)  # the genuine ones, once
    assert stored is not None and stored.encode() == g.events[1]
    assert bridge.ingest.conflicts == 2
    # hole cards forged after their seq was applied, in the batch that applied it
    g2 = Genuine("t2")
    bridge.ingest.take_many([*g2.messages[:hole + 1],
                             (g2.messages[hole][0], forged(*g2.messages[hole], 0))])
    with bridge.ingest._sessions() as db:
        kept = {(c.seq, c.topic) for c in db.scalars(select(SeqConflict).where(
            SeqConflict.table_id == "t2"))}
        cards = db.execute(select(HoleCards.seq, HoleCards.cards).where(
            HoleCards.table_id == "t2")).all()
    assert kept == {(g2.seqs[hole], "secure/cards")}
    assert [(c.seq, list(c.cards)) for c in cards] == [(g2.seqs[hole],
                                                       g2.cards[g2.seqs[hole]])]
