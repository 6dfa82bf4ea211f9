"""The link on a broker that refuses MQTT 5: amqtt 0.12 (the demo's embedded broker) speaks
3.1.1 only. The table falls back once, says so once at WARNING, and everything else works as
on Mosquitto: the Will, the retained online status and state, the QoS 1 outbox with acks and
resends, host/status rewinds, commands, and reconnects after the broker restarts."""

from __future__ import annotations

import asyncio
import json
import logging
import random
import signal
from pathlib import Path

import pytest

from controller.sync.messages import ResendRequest
from controller.sync.topics import Topics
from tests.sync.conftest import Amqtt, Mosquitto, start_node
from tests.sync.floor import FloorRecorder
from tests.sync.harness import GUARD, assert_host_matches_table, drained, running_table

FALLBACK = "refused MQTT 5"


def test_link_falls_back_to_mqtt_3_1_1_and_loses_nothing_through_restarts(
        amqtt_broker: Amqtt, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="controller.sync.link")

    async def scenario() -> None:
        host = FloorRecorder(amqtt_broker.port, chaos=random.Random(11), mqtt5=False)
        async with host, running_table(tmp_path / "t1.db", amqtt_broker.port) as stack:
            assert stack.link.mqtt_version == "3.1.1"
            await stack.play(6, seed=4)
            await drained(host, stack)  # acks, resend requests and rewinds over 3.1.1
            rec = host.tables["t1"]
            assert rec.duplicates > 0 and rec.asked  # the chaos did happen
            assert_host_matches_table(host, stack.journal)

            ok = await host.command("t1", "c-1", {"name": "pause"})
            again = await host.command("t1", "c-1", {"name": "pause"})
            refused = await host.command("t1", "c-2", {"name": "pause"})
            assert ok["status"] == "ok" and again == ok and stack.desk.performed == 1
            assert "already paused" in refused["error"]
            assert (await host.command("t1", "c-3", {"name": "resume"}))["status"] == "ok"
        tables = host.tables

        async with running_table(tmp_path / "t1.db", amqtt_broker.port) as stack:
            for _ in range(2):  # the broker restarts mid-stream (amqtt keeps nothing)
                async with asyncio.timeout(GUARD):
                    await stack.link.connected.wait()
                player = asyncio.create_task(stack.play(2, pace=0.002), name="virtual-table")
                await asyncio.sleep(0.05)
                await asyncio.to_thread(amqtt_broker.restart)
                await player
            async with FloorRecorder(amqtt_broker.port, tables=tables, mqtt5=False) as host:
                await drained(host, stack)
                assert stack.link.connects >= 3 and stack.link.mqtt_version == "3.1.1"
                assert_host_matches_table(host, stack.journal)
                # a resend request for a range is answered over 3.1.1 too
                before = tables["t1"].duplicates
                await host.publish(Topics("test", "t1").ack, ResendRequest(
                    table="t1", boot="host-1", seq=1, ts=0.0, from_seq=2, to_seq=6).to_wire())
                async with asyncio.timeout(GUARD):
                    await host.until(lambda: tables["t1"].duplicates >= before + 5)
                assert tables["t1"].conflicts == []
            async with FloorRecorder(amqtt_broker.port, mqtt5=False) as late:
                async with asyncio.timeout(GUARD):  # retained online and state after restarts
                    await late.until(lambda: "t1" in late.statuses and "t1" in late.states)
                assert late.statuses["t1"] == ["online"]
                assert json.loads(late.states["t1"])["seq"] == stack.outbox.last_seq

    asyncio.run(scenario())
    fallbacks = [r for r in caplog.records if FALLBACK in r.getMessage()]
    # once per link (two links ran), at WARNING, however many reconnects followed
    assert [r.levelno for r in fallbacks] == [logging.WARNING, logging.WARNING]


def test_will_sets_offline_over_mqtt_3_1_1_when_the_table_is_killed(amqtt_broker: Amqtt,
                                                                    tmp_path: Path) -> None:
    async def scenario() -> None:
        node = start_node(tmp_path / "t1.db", amqtt_broker.port, "--pace", "0.01")
        try:
            async with FloorRecorder(amqtt_broker.port, mqtt5=False) as host:
                async with asyncio.timeout(GUARD):
                    await host.until(lambda: host.statuses.get("t1", [])[-1:] == ["online"]
                                     and "t1" in host.states and "t1" in host.tables)
                node.send_signal(signal.SIGKILL)
                async with asyncio.timeout(GUARD):
                    await host.until(lambda: host.statuses["t1"][-1] == "offline")
            async with FloorRecorder(amqtt_broker.port, mqtt5=False) as late:
                async with asyncio.timeout(GUARD):  # the Will was retained
                    await late.until(lambda: "t1" in late.statuses)
                assert late.statuses["t1"] == ["offline"]
        finally:
            node.kill()
            _, err = node.communicate()
        assert err.count(FALLBACK) == 1, err[-2000:]

    asyncio.run(scenario())


def test_link_keeps_mqtt_5_where_the_broker_offers_it(broker: Mosquitto, tmp_path: Path,
                                                      caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="controller.sync.link")

    async def scenario() -> None:
        async with FloorRecorder(broker.port) as host, \
                running_table(tmp_path / "t1.db", broker.port) as stack:
            assert stack.link.mqtt_version == "5"
            await stack.play(1)
            await drained(host, stack)
            assert_host_matches_table(host, stack.journal)

    asyncio.run(scenario())
    assert not [r for r in caplog.records if FALLBACK in r.getMessage()]
