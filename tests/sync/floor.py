"""A minimal host for the sync tests (the real bridge is a later issue).

It stores each table's events by (table, boot, seq), applies them in seq order, acks the
highest contiguous seq, asks for a resend when it sees a gap, and can be told to make its
own input worse: deliver some messages twice, hold some back (reordering), drop some; and
the table's: send some acks twice and some stale acks after newer ones.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import random
import socket
import time
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Self

import aiomqtt

from controller.events import PublicState
from controller.sync.ledger import fold
from controller.sync.messages import (
    AckMessage,
    EventMessage,
    HostStatusMessage,
    ResendRequest,
    SecureCards,
    parse_message,
)
from controller.sync.tasks import stop
from controller.sync.topics import PREFIX, Topics, table_of


@dataclass
class TableRecord:
    """What the host holds for one table."""

    events: dict[int, bytes] = field(default_factory=dict)  # seq -> payload
    keys: set[tuple[str, int]] = field(default_factory=set)  # (boot, seq)
    applied: list[int] = field(default_factory=list)  # seqs in the order the host applied them
    contiguous: int = 0
    duplicates: int = 0
    conflicts: list[int] = field(default_factory=list)  # same seq, different payload
    secure: dict[int, bytes] = field(default_factory=dict)
    state: PublicState = field(default_factory=PublicState)
    asked: dict[int, int] = field(default_factory=dict)  # gap start -> when asked


class FloorRecorder:
    """The test host; an async context manager around one aiomqtt connection."""

    def __init__(self, port: int, site: str = "test", *, chaos: random.Random | None = None,
                 ack: bool = True, tables: dict[str, TableRecord] | None = None,
                 mqtt5: bool = True) -> None:
        self.port = port
        self.mqtt5 = mqtt5  # False for a broker that speaks 3.1.1 only (amqtt)
        self.site = site
        self.root = f"{PREFIX}/{site}"
        self.tables: dict[str, TableRecord] = {} if tables is None else tables  # kept across
        # reconnects when passed in, as a real host keeps its database
        self.replies: dict[str, dict[str, Any]] = {}
        self.statuses: dict[str, list[str]] = {}
        self.states: dict[str, bytes] = {}
        self.received = 0
        self.ack_chaos = 0  # acks sent twice or out of order
        self.stray: list[str] = []  # topics received that no subscription asked for
        self.arrival: dict[tuple[str, int], float] = {}  # first arrival, perf_counter
        self._chaos = chaos
        self._held: list[tuple[str, bytes]] = []
        self._ack = ack
        self._changed = asyncio.Condition()
        self._client: aiomqtt.Client | None = None
        self._task: asyncio.Task[None] | None = None
        self._seq = itertools.count(1)

    async def __aenter__(self) -> Self:
        nodelay = [(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)]
        if self.mqtt5:
            self._client = aiomqtt.Client("127.0.0.1", self.port,
                                          identifier="pitboss-test-host",
                                          protocol=aiomqtt.ProtocolVersion.V5, clean_start=True,
                                          socket_options=nodelay)
        else:
            self._client = aiomqtt.Client("127.0.0.1", self.port,
                                          identifier="pitboss-test-host",
                                          protocol=aiomqtt.ProtocolVersion.V311,
                                          clean_session=True, socket_options=nodelay)
        await self._client.__aenter__()
        await self._client.subscribe([(f"{self.root}/table/+/{t}", 1) for t in
                                      ("event", "secure/cards", "reply", "status", "state")])
        await self.announce(True)
        self._task = asyncio.create_task(self._receive(), name="floor-recorder")
        return self

    async def __aexit__(self, et: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await stop(self._task)
        if self._client is not None:
            await self._client.__aexit__(None, None, None)

    def _envelope(self, table: str) -> dict[str, Any]:
        return {"table": table, "boot": "host-1", "seq": next(self._seq), "ts": time.time()}

    async def announce(self, online: bool) -> None:
        """Publish ``host/status`` (retained)."""
        assert self._client is not None
        await self._client.publish(f"{self.root}/host/status", HostStatusMessage(
            boot="host-1", seq=next(self._seq), ts=time.time(), online=online).to_wire(),
            qos=1, retain=True)

    async def publish(self, topic: str, payload: bytes) -> None:
        """Publish anything anywhere (fuzzing)."""
        assert self._client is not None
        await self._client.publish(topic, payload, qos=1)

    async def command(self, table: str, command_id: str, command: dict[str, Any],
                      **overrides: Any) -> dict[str, Any]:
        """Send a command and wait for its reply."""
        body = {"schema": 2, **self._envelope(table), "command_id": command_id,
                "command": command, **overrides}
        self.replies.pop(command_id, None)
        await self.publish(Topics(self.site, table).cmd, json.dumps(body).encode())
        await self.until(lambda: command_id in self.replies)
        return self.replies[command_id]

    async def until(self, predicate: Any) -> None:
        """Wait until ``predicate()`` holds (re-checked on every message)."""
        async with self._changed:
            await self._changed.wait_for(predicate)

    async def flush(self) -> None:
        """Deliver what the chaos held back."""
        held, self._held = self._held, []
        for topic, data in held:
            await self._take(topic, data)

    # ------------------------------------------------------------------ receiving
    async def _receive(self) -> None:
        assert self._client is not None
        async for message in self._client.messages:
            payload = message.payload
            assert isinstance(payload, bytes | bytearray)
            item = (message.topic.value, bytes(payload))
            for topic, data in self._disorder(item):
                await self._take(topic, data)
            async with self._changed:
                self._changed.notify_all()

    def _disorder(self, item: tuple[str, bytes]) -> list[tuple[str, bytes]]:
        """The chaos: deliver twice, hold back (reorder), or drop an event."""
        rng = self._chaos
        if rng is None or not item[0].endswith("/event"):
            return [item]
        roll = rng.random()
        if roll < 0.05:
            return []  # dropped: only a resend brings it back
        if roll < 0.15:
            return [item, item]
        if roll < 0.30:
            self._held.append(item)
            return []
        out = [item, *self._held]
        self._held.clear()
        return out

    async def _take(self, topic: str, payload: bytes) -> None:
        table = table_of(topic)
        if table is None:  # not a table's topic: amqtt 0.12 can hand a reused client id a
            self.stray.append(topic)  # message its old session queued on another topic
            return
        self.received += 1
        kind = topic.rsplit("/", 1)[-1]
        if kind == "event":
            await self._take_event(table, payload)
        elif kind == "cards":
            cards = parse_message(SecureCards, payload)
            rec = self.tables.setdefault(table, TableRecord())
            rec.secure[cards.seq] = payload
            if cards.seq == rec.contiguous + 1:
                await self._advance(table, rec, cards.seq)
        elif kind == "reply":
            data = json.loads(payload)
            if data.get("command_id"):
                self.replies[data["command_id"]] = data
            else:
                self.replies.setdefault("<none>", data)
                self.replies["<none>"] = data
        elif kind == "status":
            self.statuses.setdefault(table, []).append(json.loads(payload)["status"])
        elif kind == "state":
            self.states[table] = payload

    async def _take_event(self, table: str, payload: bytes) -> None:
        message = parse_message(EventMessage, payload)
        rec = self.tables.setdefault(table, TableRecord())
        self.arrival.setdefault((table, message.seq), time.perf_counter())
        seq = message.seq
        if seq in rec.events:
            rec.duplicates += 1
            if rec.events[seq] != payload:
                rec.conflicts.append(seq)
        else:
            rec.events[seq] = payload
            rec.keys.add((message.boot, seq))
        await self._advance(table, rec, seq)

    def _complete(self, rec: TableRecord, seq: int) -> bool:
        """The host holds all of event ``seq``: for hole and burn cards, the secure part too."""
        payload = rec.events.get(seq)
        if payload is None:
            return False
        secret = b'"kind":"hole_dealt"' in payload or b'"kind":"burn"' in payload
        return not secret or seq in rec.secure

    async def _advance(self, table: str, rec: TableRecord, seq: int) -> None:
        while self._complete(rec, rec.contiguous + 1):  # apply in order, each exactly once
            rec.contiguous += 1
            rec.applied.append(rec.contiguous)
            event = parse_message(EventMessage, rec.events[rec.contiguous]).event
            rec.state = fold(rec.state, event)
        if not self._ack or self._client is None:
            return
        topic = Topics(self.site, table).ack
        backlog = len(self._client.messages)
        if backlog == 0 or rec.contiguous % 200 == 0 or seq > rec.contiguous + 1:
            # one ack per burst, as a bridge would; always at a gap
            ack = AckMessage(**self._envelope(table), acked=rec.contiguous).to_wire()
            await self._client.publish(topic, ack, qos=1)
            roll = self._chaos.random() if self._chaos is not None else 1.0
            if roll < 0.1:  # the chaos the other way: the same ack twice ...
                self.ack_chaos += 1
                await self._client.publish(topic, ack, qos=1)
            elif roll < 0.2 and self._chaos is not None and rec.contiguous > 1:
                self.ack_chaos += 1  # ... or an older ack overtaken by the newer one
                await self._client.publish(topic, AckMessage(
                    **self._envelope(table),
                    acked=self._chaos.randrange(rec.contiguous)).to_wire(), qos=1)
        gap = rec.contiguous + 1
        if seq > gap and self.received - rec.asked.get(gap, -10**9) > 50:
            rec.asked[gap] = self.received
            await self._client.publish(topic, ResendRequest(
                **self._envelope(table), from_seq=rec.contiguous + 1,
                to_seq=seq - 1).to_wire(), qos=1)
