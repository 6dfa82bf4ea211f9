"""The bridge's receive path (:mod:`host_bridge.mqtt_fast`, issue 20): a broker on a raw
socket sends PUBLISHes several to a TCP segment, one cut across two reads (in its body and
in its remaining length), one bigger than a read, and counts the PUBACKs that come back;
on a real Mosquitto a persistent session's QoS 1 messages, once received, are not sent
again after a reconnect; a disconnection ends the message iterator; and an aiomqtt or
paho-mqtt without the internals the path relies on stops it at start-up."""

from __future__ import annotations

import asyncio
import struct
from collections.abc import Callable, Coroutine

import aiomqtt
import paho.mqtt.client as paho
import pytest
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from controller.sync.session import BrokerSession, Presence, SessionSettings
from host_bridge import mqtt_fast
from host_bridge.bridge import Bridge
from host_bridge.mqtt import MqttLink
from host_bridge.mqtt_fast import FastClient, IncompatibleMqttLibrary
from tests.sync.conftest import Mosquitto

WAIT_S = 10.0  # an upper bound for slow machines, not a budget
TOPIC = "pitboss/v1/test/table/t{:03d}/event"


def _length(n: int) -> bytes:
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def publish(topic: str, payload: bytes, *, qos: int, mid: int, v5: bool,
            properties: bytes = b"") -> bytes:
    """A PUBLISH packet as a broker sends it."""
    t = topic.encode()
    body = struct.pack("!H", len(t)) + t + (struct.pack("!H", mid) if qos else b"")
    if v5:
        body += _length(len(properties)) + properties
    body += payload
    return bytes([0x30 | qos << 1]) + _length(len(body)) + body


class RawBroker:
    """Just enough of a broker, on a raw socket: CONNACK, SUBACK, then whatever the test
    writes, in the writes the test chooses; PUBACKs received are counted by mid."""

    def __init__(self) -> None:
        self.pubacks: list[int] = []
        self.connected = asyncio.Event()
        self.writer: asyncio.StreamWriter | None = None
        self.port = 0
        self._server: asyncio.Server | None = None

    async def __aenter__(self) -> RawBroker:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        if self.writer is not None:
            self.writer.close()
        self._server.close()

    async def _packet(self, reader: asyncio.StreamReader) -> tuple[int, bytes]:
        header = (await reader.readexactly(1))[0]
        length, shift = 0, 0
        while True:
            byte = (await reader.readexactly(1))[0]
            length |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                break
        return header, await reader.readexactly(length)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.writer = writer
        try:
            while True:
                header, body = await self._packet(reader)
                kind = header & 0xF0
                if kind == 0x10:  # CONNECT: the protocol level follows "MQTT"
                    self.v5 = body[6] == 5
                    writer.write(b"\x20\x03\x00\x00\x00" if self.v5 else b"\x20\x02\x00\x00")
                    self.connected.set()
                elif kind == 0x80:  # SUBSCRIBE: grant QoS 1
                    mid = body[:2]
                    writer.write(b"\x90\x04" + mid + b"\x00\x01" if self.v5
                                 else b"\x90\x03" + mid + b"\x01")
                elif kind == 0x40:  # PUBACK
                    self.pubacks.append(struct.unpack("!H", body[:2])[0])
                elif kind == 0xE0:  # DISCONNECT
                    return
        except (asyncio.IncompleteReadError, ConnectionError):
            return

    async def send(self, data: bytes) -> None:
        assert self.writer is not None
        self.writer.write(data)
        await self.writer.drain()


async def eventually(what: str, check: Callable[[], bool]) -> None:
    async def poll() -> None:
        while not check():
            await asyncio.sleep(0.01)
    try:
        await asyncio.wait_for(poll(), WAIT_S)
    except TimeoutError:
        pytest.fail(f"gave up waiting for {what}")


async def take(client: aiomqtt.Client, n: int) -> list[aiomqtt.Message]:
    out: list[aiomqtt.Message] = []

    async def read() -> None:
        async for message in client.messages:
            out.append(message)
            if len(out) == n:
                return
    await asyncio.wait_for(read(), WAIT_S)
    return out


def run(test: Callable[[], Coroutine[object, object, None]]) -> None:
    asyncio.run(test())


@pytest.mark.parametrize("v5", [True, False], ids=["mqtt5", "mqtt311"])
def test_packets_in_one_segment_and_cut_across_reads_are_received_and_acked(
        v5: bool) -> None:
    protocol = aiomqtt.ProtocolVersion.V5 if v5 else aiomqtt.ProtocolVersion.V311
    payload = b'{"schema":"event","seq":%d}'
    big = b"x" * (3 * mqtt_fast.RECV_BYTES + 123)  # more than a read: gathered, joined once
    expiry = b"\x02\x00\x00\x00\x3c"  # MQTT 5 Message Expiry Interval: 60 s

    async def test() -> None:
        async with (RawBroker() as broker,
                    FastClient("127.0.0.1", broker.port, protocol=protocol,
                               identifier="fast-test") as client):
            await client.subscribe(TOPIC.format(0).replace("t000", "+"), qos=1)
            assert client.paho.fast_packets == 0
            # eight QoS 1 events in one segment, the ninth cut inside its body
            first = b"".join(publish(TOPIC.format(i), payload % i, qos=1, mid=i + 1, v5=v5)
                             for i in range(9))
            await broker.send(first[:-20])
            got = await take(client, 8)
            await asyncio.sleep(0.05)  # the cut one waits for the rest
            assert len(client.messages) == 0
            await broker.send(first[-20:])
            got += await take(client, 1)
            # cut inside the remaining length (2 bytes: a 200-byte body), then QoS 0,
            # a message with MQTT 5 properties, and one bigger than a read
            tail = publish(TOPIC.format(9), b"y" * 200, qos=1, mid=10, v5=v5)
            rest = (publish(TOPIC.format(10), payload % 10, qos=0, mid=0, v5=v5)
                    + publish(TOPIC.format(11), payload % 11, qos=1, mid=12, v5=v5,
                              properties=expiry if v5 else b"")
                    + publish(TOPIC.format(12), big, qos=1, mid=13, v5=v5))
            await broker.send(tail[:2])
            await asyncio.sleep(0.05)
            await broker.send(tail[2:] + rest[:1000])
            for at in range(1000, len(rest), 50_000):
                await asyncio.sleep(0.01)
                await broker.send(rest[at:at + 50_000])
            got += await take(client, 4)
            await eventually("every PUBACK", lambda: len(broker.pubacks) == 12)

            assert [m.topic.value for m in got] == [TOPIC.format(i) for i in range(13)]
            assert [m.payload for m in got[:9]] == [payload % i for i in range(9)]
            assert got[9].payload == b"y" * 200 and got[12].payload == big
            assert [m.qos for m in got] == [1] * 10 + [0, 1, 1]
            assert [m.mid for m in got if m.qos] == [*range(1, 11), 12, 13]
            if v5:
                assert got[11].properties is not None
                assert got[11].properties.MessageExpiryInterval == 60  # type: ignore[attr-defined]
            # a PUBACK for each QoS 1 message, in order, none for QoS 0
            assert broker.pubacks == [*range(1, 11), 12, 13]
            assert client.paho.fast_packets == 13  # all of them took the fast path

    run(test)


def test_a_disconnection_ends_the_message_iteration() -> None:
    async def test() -> None:
        async with RawBroker() as broker:
            client = FastClient("127.0.0.1", broker.port, identifier="fast-test")
            async with client:
                await broker.send(publish(TOPIC.format(1), b"last", qos=1, mid=1, v5=False))
                assert writer_of(broker) is not None
                received = []
                with pytest.raises(aiomqtt.MqttError):
                    async with asyncio.timeout(WAIT_S):
                        async for message in client.messages:
                            received.append(message.payload)
                            writer_of(broker).close()  # the broker goes away
                assert received == [b"last"]  # what arrived first is handed out

    run(test)


def writer_of(broker: RawBroker) -> asyncio.StreamWriter:
    assert broker.writer is not None
    return broker.writer


def test_received_messages_are_acked_so_a_persistent_session_does_not_resend_them(
        mosquitto: Mosquitto) -> None:
    """QoS 1 end to end: what the fast path received was acknowledged to Mosquitto, so a
    persistent session gets none of it again after a reconnect (only what is new)."""
    n = 500

    async def test() -> None:
        def listener() -> FastClient:
            return FastClient("127.0.0.1", mosquitto.port, identifier="fast-persistent",
                              protocol=aiomqtt.ProtocolVersion.V5, clean_start=False,
                              properties=session_expiry())

        async with listener() as client:
            await client.subscribe("$share/bridge/pitboss/v1/test/table/+/event", qos=1)
            async with aiomqtt.Client("127.0.0.1", mosquitto.port,
                                      protocol=aiomqtt.ProtocolVersion.V5) as table:
                sent = [table.publish(TOPIC.format(i % 7), b"%d" % i, qos=1)
                        for i in range(n)]
                receiving = asyncio.create_task(take(client, n))
                await asyncio.gather(*sent)
                got = await receiving
            assert sorted(int(m.payload) for m in got) == list(range(n))
            assert client.paho.fast_packets == n
        async with listener() as client:
            async with aiomqtt.Client("127.0.0.1", mosquitto.port,
                                      protocol=aiomqtt.ProtocolVersion.V5) as table:
                await table.publish(TOPIC.format(0), b"new", qos=1)
            (first,) = await take(client, 1)
            assert first.payload == b"new"  # nothing of the 500 came again

    run(test)


def session_expiry() -> Properties:
    props = Properties(PacketTypes.CONNECT)  # type: ignore[no-untyped-call]
    props.SessionExpiryInterval = 3600
    return props


def test_the_bridge_connects_with_the_fast_path(bridge: Bridge) -> None:
    assert MqttLink(bridge).session._client_class is FastClient
    made: list[aiomqtt.Client] = []

    async def test() -> None:
        session = BrokerSession(
            SessionSettings(host="127.0.0.1", port=1, client_id="fast"), lambda c: asyncio.sleep(0),
            presence=Presence("x/status", lambda online: b""), subscriptions=list,
            client_class=FastClient)
        session.mqtt5 = False
        made.append(session._client())
        session.mqtt5 = True
        made.append(session._client())

    run(test)
    assert all(type(c) is FastClient for c in made)


@pytest.mark.parametrize("missing", ["_packet_handle", "_loop_rc_handle", "_sock_recv"])
def test_a_paho_without_the_internals_relied_on_stops_the_bridge_at_start_up(
        missing: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(paho.Client, missing)
    with pytest.raises(IncompatibleMqttLibrary, match=missing):
        mqtt_fast.check_internals()


def test_a_paho_with_another_packet_layout_stops_the_bridge_at_start_up(
        monkeypatch: pytest.MonkeyPatch) -> None:
    original = paho.Client.__init__

    def changed(self: paho.Client, *args: object, **kwargs: object) -> None:
        original(self, *args, **kwargs)  # type: ignore[arg-type]
        self._in_packet = {"command": 0}  # type: ignore[typeddict-item]

    monkeypatch.setattr(paho.Client, "__init__", changed)
    with pytest.raises(IncompatibleMqttLibrary, match="_in_packet"):
        mqtt_fast.check_internals()
