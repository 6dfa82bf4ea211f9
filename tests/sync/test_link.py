"""The link on a real Mosquitto: delivery exactly once and in order through duplicates,
reordering, drops and broker restarts; status, Will and retained state; resend requests;
hole cards only on secure/cards."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
import signal
from pathlib import Path

import aiomqtt
import pytest

from controller.sync.commands import CommandDesk
from controller.sync.journal import Journal
from controller.sync.ledger import SeatingControls
from controller.sync.link import LinkSettings, TableLink, start_in
from controller.sync.messages import EventMessage, ResendRequest, parse_message
from controller.sync.outbox import Outbox
from controller.sync.soak_node import open_table
from controller.sync.topics import Topics
from tests.sync.conftest import Mosquitto, free_port, start_node
from tests.sync.floor import FloorRecorder
from tests.sync.harness import (
    GUARD,
    assert_host_matches_table,
    drained,
    outage_run,
    running_table,
)


def test_events_reach_host_exactly_once_in_order_through_chaos(
        broker: Mosquitto, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)

    async def scenario() -> None:
        async with FloorRecorder(broker.port, chaos=random.Random(7)) as host, \
                running_table(tmp_path / "t1.db", broker.port) as stack:
            acks: list[int] = []

            async def watch_acks() -> None:
                while True:
                    acks.append(stack.outbox.acked)
                    await asyncio.sleep(0.001)

            watcher = asyncio.create_task(watch_acks(), name="ack-watch")
            await stack.play(12, seed=3)
            await drained(host, stack)
            watcher.cancel()
            rec = host.tables["t1"]
            assert rec.duplicates > 0 and len(rec.asked) > 0  # the chaos did happen
            assert host.ack_chaos > 0  # both ways
            assert acks == sorted(acks)  # a stale or repeated ack never moves it back
            async with asyncio.timeout(GUARD):  # the journal records acks every 0.2 s
                while stack.journal.acked < stack.outbox.last_seq:
                    await asyncio.sleep(0.02)
            assert stack.journal.acked == stack.outbox.last_seq
            assert_host_matches_table(host, stack.journal)

    asyncio.run(scenario())
    journal = Journal(tmp_path / "t1.db", table="t1")
    secrets: set[str] = set()
    for parcel in journal.parcels(0, limit=10**9):
        if parcel.secure:
            secrets.update(f'"{c}"' for c in json.loads(parcel.secure)["cards"])
        event = json.loads(parcel.public)["event"]
        if event["kind"] == "hole_dealt":
            assert "cards" not in event
    journal.close()
    assert secrets
    for record in caplog.records:  # hole cards never at INFO or above
        if record.levelno >= logging.INFO:
            message = record.getMessage()
            assert not any(card in message for card in secrets), message


def test_broker_restarts_lose_nothing(broker: Mosquitto, tmp_path: Path) -> None:
    async def scenario() -> None:
        async with running_table(tmp_path / "t1.db", broker.port) as stack:
            async with FloorRecorder(broker.port):
                await stack.play(3)
            for _ in range(2):  # restart mid-stream; the host reconnects too
                player = asyncio.create_task(stack.play(3, pace=0.002), name="virtual-table")
                await asyncio.sleep(0.1)
                await asyncio.to_thread(broker.restart)
                await player
            async with FloorRecorder(broker.port) as host2:
                # the persistent session and the outbox carry over; a fresh host gets the
                # unacked tail by announcing itself and asks for the start of history
                await host2.publish(Topics("test", "t1").ack, ResendRequest(
                    table="t1", boot="host-2", seq=1, ts=0.0, from_seq=1,
                    to_seq=stack.outbox.last_seq).to_wire())
                await drained(host2, stack)
                assert stack.link.connects >= 3
                assert_host_matches_table(host2, stack.journal)

    asyncio.run(scenario())


def test_resend_request_is_answered_with_the_original_bytes(broker: Mosquitto,
                                                            tmp_path: Path) -> None:
    async def scenario() -> None:
        async with FloorRecorder(broker.port) as host, \
                running_table(tmp_path / "t1.db", broker.port) as stack:
            await stack.play(2)
            await drained(host, stack)
            rec = host.tables["t1"]
            before = rec.duplicates
            await host.publish(Topics("test", "t1").ack, ResendRequest(
                table="t1", boot="host-1", seq=99, ts=0.0, from_seq=3, to_seq=7).to_wire())
            await host.until(lambda: rec.duplicates >= before + 5)
            assert rec.conflicts == []
            assert_host_matches_table(host, stack.journal)

    asyncio.run(scenario())


def test_status_online_retained_and_will_sets_offline_on_sigkill(broker: Mosquitto,
                                                                tmp_path: Path) -> None:
    async def scenario() -> None:
        node = start_node(tmp_path / "t1.db", broker.port, "--hands", "0", "--pace", "0.01")
        try:
            async with FloorRecorder(broker.port) as host:
                async with asyncio.timeout(GUARD):
                    await host.until(lambda: host.statuses.get("t1", [])[-1:] == ["online"]
                                     and "t1" in host.states)
                node.send_signal(signal.SIGKILL)
                async with asyncio.timeout(GUARD):
                    await host.until(lambda: host.statuses["t1"][-1] == "offline")
            async with FloorRecorder(broker.port) as late:  # retained: a late host sees both
                async with asyncio.timeout(GUARD):
                    await late.until(lambda: "t1" in late.statuses and "t1" in late.states)
                assert late.statuses["t1"] == ["offline"]
                state = json.loads(late.states["t1"])
                assert "cards" not in json.dumps(state["state"])  # never hole cards
                assert len(state["state"]["seats"]) == 6
        finally:
            node.kill()
            node.wait()

    asyncio.run(scenario())


def test_state_snapshot_never_holds_hole_cards(broker: Mosquitto, tmp_path: Path) -> None:
    async def scenario() -> None:
        async with FloorRecorder(broker.port) as host, \
                running_table(tmp_path / "t1.db", broker.port) as stack:
            await stack.play(4)
            await drained(host, stack)
            rec = host.tables["t1"]
            hole = {c for p in rec.secure.values() for c in json.loads(p)["cards"]}
            assert len(hole) > 2
            for payload in rec.events.values():
                message = parse_message(EventMessage, payload)
                if message.event.kind == "hole_dealt":
                    assert "cards" not in json.loads(payload)["event"]
            async with asyncio.timeout(GUARD):
                await host.until(lambda: json.loads(host.states["t1"])["seq"]
                                 == stack.outbox.last_seq)
            state_text = host.states["t1"].decode()
            assert not any(f'"{card}"' in state_text for card in hole)

    asyncio.run(scenario())


def test_broker_down_while_the_table_plays_loses_nothing(broker: Mosquitto,
                                                         tmp_path: Path) -> None:
    figures = asyncio.run(outage_run(broker, tmp_path / "t1.db", seconds=2.0))
    assert figures.outbox_at_return > 0 and figures.connects >= 2


@pytest.mark.slow
def test_broker_down_for_a_minute_while_the_table_plays(broker: Mosquitto,
                                                        tmp_path: Path) -> None:
    figures = asyncio.run(outage_run(broker, tmp_path / "t1.db", seconds=60.0))
    print(f"\n60-second outage: {figures}")
    assert figures.outbox_at_return > 1000 and figures.connects >= 2


def test_a_long_outage_is_logged_once_not_at_every_retry(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    async def main() -> None:
        journal = open_table(tmp_path / "t.db", "t1")
        try:
            async with Outbox(journal) as outbox:
                desk = CommandDesk(outbox, SeatingControls(lambda: outbox.state))
                nobody = LinkSettings(site="test", port=free_port(), backoff_first=0.005,
                                      backoff_cap=0.01)
                async with TableLink(nobody, outbox, desk) as link:
                    while link.connects == 0 and len(caplog.records) < 400:
                        await asyncio.sleep(0.01)
                        if sum(r.levelno == logging.DEBUG for r in caplog.records) >= 20:
                            break
        finally:
            journal.close()

    with caplog.at_level(logging.DEBUG, logger="controller.sync.link"):
        asyncio.run(main())
    retries = [r for r in caplog.records if "reconnecting" in r.getMessage()]
    assert len(retries) >= 20  # the link kept trying ...
    assert sum(r.levelno >= logging.WARNING for r in retries) == 1  # ... and said so once


def test_a_publish_started_as_the_session_fails_is_closed_and_the_real_error_stands() -> None:
    """The outbound loop can run on after its session's task group began shutting down (its
    cancel went to the publish it awaited, which finished anyway). The next publish is then
    closed unstarted (never left un-awaited) and the loop ends as cancelled, so the group
    reports the lost connection alone: Python 3.11's create_task would have added a
    RuntimeError ("TaskGroup is shutting down") that the session took for the cause."""
    publish = asyncio.sleep(0)  # a publish coroutine, as client.publish() gives one

    async def scenario() -> None:
        async with asyncio.TaskGroup() as tg:
            async def lost() -> None:
                raise aiomqtt.MqttError("the broker went away")

            async def outbound() -> None:
                with contextlib.suppress(asyncio.CancelledError):  # the cancel was spent
                    await asyncio.sleep(10)  # elsewhere: the loop runs on
                start_in(tg, publish, "publish:1")

            tg.create_task(outbound())
            tg.create_task(lost())

    with pytest.raises(ExceptionGroup) as group:
        asyncio.run(scenario())
    assert [type(e) for e in group.value.exceptions] == [aiomqtt.MqttError]
    assert publish.cr_frame is None  # closed: no "coroutine was never awaited"
