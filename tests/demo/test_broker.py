"""The demo's broker choice and its embedded amqtt broker: an MQTT 5 client is told
"unacceptable protocol" at once (so the tables and the bridge fall back to 3.1.1 without
waiting for a timeout), and 3.1.1 clients with a Will and a persistent session connect
and get retained messages at QoS 1."""

from __future__ import annotations

import asyncio
import re
import socket
import time

import aiomqtt
import pytest

from host_bridge.demo.broker import BrokerUnavailable, DemoBroker, listening, parse_address
from tests.sync.conftest import free_port


def test_a_broker_address_is_host_and_port() -> None:
    assert parse_address("10.0.0.5:1884") == ("10.0.0.5", 1884)
    assert parse_address(":1999") == ("127.0.0.1", 1999)
    assert parse_address("floor.local") == ("floor.local", 1883)
    with pytest.raises(ValueError, match="the port must be a number"):
        parse_address("floor.local:mqtt")
    with pytest.raises(ValueError, match=re.escape("1..65535")):
        parse_address("floor.local:70000")


def test_a_named_broker_that_does_not_answer_is_refused_with_what_to_do() -> None:
    port = free_port()

    async def enter() -> None:
        async with DemoBroker(f"127.0.0.1:{port}"):
            pass

    with pytest.raises(BrokerUnavailable, match=f"no broker answers at 127.0.0.1:{port}"):
        asyncio.run(enter())


def test_a_broker_already_listening_is_used_rather_than_a_new_one() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        local = ("127.0.0.1", s.getsockname()[1])

        async def enter() -> tuple[str, int, str]:
            async with DemoBroker(local=local) as address:
                return address.host, address.port, address.kind

        assert asyncio.run(enter()) == (*local, "local")


def test_the_embedded_broker_refuses_mqtt5_at_once_and_serves_mqtt311() -> None:
    async def run() -> int:
        async with DemoBroker("embedded") as address:
            assert address.kind == "embedded" and listening(address.host, address.port)
            will = aiomqtt.Will("demo/t/status", b"offline", qos=1, retain=True)
            started = time.monotonic()
            with pytest.raises(aiomqtt.MqttCodeError) as refused:
                async with aiomqtt.Client(address.host, address.port, identifier="v5",
                                          protocol=aiomqtt.ProtocolVersion.V5, will=will,
                                          timeout=10):
                    pass
            assert refused.value.rc in (1, 132)  # unacceptable protocol version
            assert time.monotonic() - started < 3  # an answer, not a timeout
            async with aiomqtt.Client(address.host, address.port, identifier="table",
                                      protocol=aiomqtt.ProtocolVersion.V311, will=will,
                                      clean_session=False) as table:
                await table.publish("demo/t/state", b"seated", qos=1, retain=True)
            async with aiomqtt.Client(address.host, address.port, identifier="host",
                                      protocol=aiomqtt.ProtocolVersion.V311) as host:
                await host.subscribe("demo/t/#", qos=1)
                seen = {}
                async with asyncio.timeout(5):
                    async for message in host.messages:
                        seen[message.topic.value] = bytes(message.payload)  # type: ignore[arg-type]
                        if len(seen) == 1:
                            break
                assert seen == {"demo/t/state": b"seated"}  # retained, for a newcomer
            return address.port

    port = asyncio.run(run())
    assert not listening("127.0.0.1", port)  # stopped with the demo: its port is free
