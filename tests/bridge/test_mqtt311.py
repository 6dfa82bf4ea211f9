"""The bridge on a broker without MQTT 5: a real amqtt broker (3.1.1 only, as the demo
embeds it) started in the test on a free port. The bridge falls back to 3.1.1 with plain
subscriptions, says so once at WARNING, and stores and acknowledges as on Mosquitto."""

from __future__ import annotations

import asyncio
import logging
import socket
from pathlib import Path
from typing import Any

import aiomqtt
import pytest

from controller.sync.messages import parse_host_ack
from host_bridge.bridge import Bridge
from host_bridge.db import make_engine, migrate, session_factory
from host_bridge.mqtt import MqttLink
from tests.bridge.conftest import make_settings
from tests.bridge.tablesim import SITE, WireTable
from tests.needs import need_module
from tests.sync.conftest import Mosquitto

amqtt_broker = need_module("amqtt.broker", "amqtt is not installed")
WAIT_S = 30.0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _config(port: int) -> dict[str, Any]:
    return {"listeners": {"default": {"type": "tcp", "bind": f"127.0.0.1:{port}"}},
            "plugins": {"amqtt.plugins.authentication.AnonymousAuthPlugin":
                        {"allow_anonymous": True}}}


def test_on_a_3_1_1_broker_the_bridge_falls_back_with_plain_subscriptions(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="host_bridge")
    port = _free_port()
    settings = make_settings(tmp_path, mqtt_port=port)
    engine = make_engine(settings.database_url)
    migrate(engine)
    wire = WireTable()
    messages = [wire.seat(seat, name, 1000) for seat, name in ((1, "a"), (2, "b"), (3, "c"))]

    async def scenario() -> tuple[MqttLink, Bridge, int]:
        broker = amqtt_broker.Broker(_config(port))
        await broker.start()
        try:
            bridge = Bridge(settings, session_factory(engine))
            async with MqttLink(bridge) as link:
                await asyncio.wait_for(link.connected.wait(), WAIT_S)
                async with aiomqtt.Client("127.0.0.1", port, identifier="table-t1",
                                          protocol=aiomqtt.ProtocolVersion.V311) as table:
                    await table.subscribe(f"pitboss/v1/{SITE}/host/ack/t1", qos=1)
                    for topic, payload in messages:
                        await table.publish(topic, payload, qos=1)
                    acked = 0
                    async with asyncio.timeout(WAIT_S):
                        async for message in table.messages:
                            assert isinstance(message.payload, bytes)
                            ack = parse_host_ack(message.payload)
                            if ack.kind == "ack":
                                acked = max(acked, ack.acked)
                            if acked == len(messages):
                                break
                return link, bridge, acked
        finally:
            await broker.shutdown()

    try:
        link, bridge, acked = asyncio.run(scenario())
    finally:
        engine.dispose()
    assert acked == 3
    assert link.mqtt_version == "3.1.1"
    assert link.connects == 1
    assert not [f for f, _ in link.subscriptions() if f.startswith("$share/")]
    assert bridge.feed.fed_seq("t1") == 3
    fallbacks = [r for r in caplog.records if "does not offer MQTT 5" in r.getMessage()]
    assert len(fallbacks) == 1 and fallbacks[0].levelno == logging.WARNING


def test_on_mosquitto_the_bridge_speaks_mqtt5_with_shared_subscriptions(
        tmp_path: Path, mosquitto: Mosquitto) -> None:
    settings = make_settings(tmp_path, mqtt_port=mosquitto.port)
    engine = make_engine(settings.database_url)
    migrate(engine)

    async def scenario() -> MqttLink:
        async with MqttLink(Bridge(settings, session_factory(engine))) as link:
            await asyncio.wait_for(link.connected.wait(), WAIT_S)
            return link

    try:
        link = asyncio.run(scenario())
    finally:
        engine.dispose()
    assert link.mqtt_version == "5"
    shared = [f for f, _ in link.subscriptions() if f.startswith("$share/bridge/")]
    assert len(shared) == 2  # events and hole cards
