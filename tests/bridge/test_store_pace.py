"""The bridge's store pace (issue 20): a lone message is stored after a short linger; while
messages keep coming a batch starts at most every ``COMMIT_EVERY_S`` (fewer, bigger
commits); a table's command reply is never held back by that pace."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from controller.sync.messages import ReplyMessage
from host_bridge import mqtt
from host_bridge.bridge import Bridge
from host_bridge.ingest import IngestResult, Outbound, Parsed
from host_bridge.mqtt import MqttLink


class Recorder:
    """Stands in for the store: which topics each batch held, and when it started."""

    def __init__(self) -> None:
        self.batches: list[list[str]] = []
        self.stored = asyncio.Event()

    async def store_admitted(self, batch: Sequence[Parsed]) -> IngestResult:
        self.batches.append([p.topic for p in batch])
        self.stored.set()
        return IngestResult()

    async def wait(self, count: int) -> None:
        while len(self.batches) < count:
            self.stored.clear()
            await asyncio.wait_for(self.stored.wait(), 5)


def _link(bridge: Bridge, recorder: Recorder, monkeypatch: pytest.MonkeyPatch) -> MqttLink:
    monkeypatch.setattr(bridge, "store_admitted", recorder.store_admitted)
    return MqttLink(bridge)


def _event(n: int) -> Parsed:
    return Parsed(f"event/{n}", None, "a stand-in")


def test_while_messages_keep_coming_a_batch_starts_at_most_every_commit_interval(
        bridge: Bridge, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mqtt, "LINGER_S", 0.01)
    monkeypatch.setattr(mqtt, "COMMIT_EVERY_S", 0.6)
    asyncio.run(_paced(bridge, monkeypatch))


async def _paced(bridge: Bridge, monkeypatch: pytest.MonkeyPatch) -> None:
    recorder = Recorder()
    inbound: asyncio.Queue[Parsed] = asyncio.Queue()
    storing = asyncio.create_task(_link(bridge, recorder, monkeypatch)._ingest(inbound))
    try:
        loop = asyncio.get_running_loop()
        inbound.put_nowait(_event(1))  # after a quiet spell: stored after the linger
        t0 = loop.time()
        await recorder.wait(1)
        assert loop.time() - t0 < 0.5
        for n in (2, 3, 4):  # keep coming, 0.1 s apart: one batch, not three
            inbound.put_nowait(_event(n))
            await asyncio.sleep(0.1)
        await recorder.wait(2)
        assert loop.time() - t0 >= 0.6 - 0.05  # not before the interval was over
        assert recorder.batches == [["event/1"], ["event/2", "event/3", "event/4"]]
    finally:
        storing.cancel()


@dataclass
class _Topic:
    value: str


@dataclass
class _Message:
    topic: _Topic
    payload: bytes


class _Client:
    """What ``MqttLink._read`` reads: ``client.messages``, fed by the test."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[_Message] = asyncio.Queue()

    @property
    async def messages(self) -> AsyncIterator[_Message]:
        while True:
            yield await self.queue.get()


def test_a_command_reply_is_stored_at_once_whatever_the_pace(
        bridge: Bridge, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mqtt, "LINGER_S", 0.01)
    monkeypatch.setattr(mqtt, "COMMIT_EVERY_S", 30.0)  # were it waited for, the test fails
    asyncio.run(_reply(bridge, monkeypatch))


async def _reply(bridge: Bridge, monkeypatch: pytest.MonkeyPatch) -> None:

    def admit(topic: str, payload: bytes) -> Parsed:
        if topic.endswith("/reply"):
            return Parsed(topic, ReplyMessage.model_construct(command_id="c1", status="ok"))
        return Parsed(topic, None, "a stand-in")

    monkeypatch.setattr(bridge, "admit", admit)
    recorder = Recorder()
    link = _link(bridge, recorder, monkeypatch)
    client = _Client()
    inbound: asyncio.Queue[Parsed] = asyncio.Queue()
    tasks: list[asyncio.Task[Any]] = [
        asyncio.create_task(link._read(client, inbound)),  # type: ignore[arg-type]
        asyncio.create_task(link._ingest(inbound))]
    try:
        client.queue.put_nowait(_Message(_Topic("t/event"), b"1"))
        await recorder.wait(1)  # a batch was just stored: the next one would wait 30 s
        client.queue.put_nowait(_Message(_Topic("t/event"), b"2"))
        await asyncio.sleep(0.05)
        assert len(recorder.batches) == 1  # held back by the pace
        client.queue.put_nowait(_Message(_Topic("t/reply"), b"3"))
        await recorder.wait(2)  # within 5 s, not 30
        assert recorder.batches[1] == ["t/event", "t/reply"]
        client.queue.put_nowait(_Message(_Topic("t/reply"), b"4"))  # a reply that opens
        await recorder.wait(3)  # a batch is not held back either
        assert recorder.batches[2] == ["t/reply"]
    finally:
        for task in tasks:
            task.cancel()


def test_a_stopped_link_stores_what_it_has_taken_in_and_keeps_its_acks(
        bridge: Bridge, monkeypatch: pytest.MonkeyPatch) -> None:
    """A clean stop (the demo's end, Ctrl-C) while a batch waits for the pace: the batch
    is stored before the link goes, and its acks wait for the farewell."""
    monkeypatch.setattr(mqtt, "LINGER_S", 0.01)
    monkeypatch.setattr(mqtt, "COMMIT_EVERY_S", 30.0)
    asyncio.run(_stopped(bridge, monkeypatch))


async def _stopped(bridge: Bridge, monkeypatch: pytest.MonkeyPatch) -> None:
    recorder = Recorder()
    link = _link(bridge, recorder, monkeypatch)
    acks = {f"ack/{n}": Outbound(f"ack/{n}", b"acked", coalesce=True) for n in (1, 2, 3)}

    async def store_admitted(batch: Sequence[Parsed]) -> IngestResult:
        await recorder.store_admitted(batch)
        return IngestResult(outbound=[acks[f"ack/{p.topic.rsplit('/', 1)[1]}"]
                                      for p in batch])

    monkeypatch.setattr(bridge, "store_admitted", store_admitted)
    inbound: asyncio.Queue[Parsed] = asyncio.Queue()
    storing = asyncio.create_task(link._ingest(inbound))
    inbound.put_nowait(_event(1))
    await recorder.wait(1)
    inbound.put_nowait(_event(2))  # taken, waiting for the pace
    await asyncio.sleep(0.05)
    inbound.put_nowait(_event(3))  # still in the queue
    assert len(recorder.batches) == 1
    storing.cancel()
    with pytest.raises(asyncio.CancelledError):
        await storing
    assert recorder.batches == [["event/1"], ["event/2", "event/3"]]
    assert sorted(link._acks_due) == ["ack/1", "ack/2", "ack/3"]  # the farewell sends them
