"""The bridge's receive path (:mod:`host_bridge.mqtt_fast`, issue 20): a broker on a raw
socket sends PUBLISHes several to a TCP segment, one cut across two reads (in its body and
in its remaining length), one bigger than a read, and counts the PUBACKs that come back;
on a real Mosquitto a persistent session's QoS 1 messages, once received, are not sent
again after a reconnect; a disconnection ends the message iterator; and an aiomqtt or
paho-mqtt without the internals the path relies on stops it at start-up.

The send side: publishes queued together go out in one write, in order, without a writer
registration or a wake-up of the loop through its self-pipe; each QoS 1 ``publish()`` returns
on its own PUBACK (handled in the read path); writes the socket takes only in part, or
refuses, lose and reorder nothing."""

from __future__ import annotations

import asyncio
import random
import socket
import struct
from collections.abc import Callable, Coroutine
from typing import Any

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


def _read_length(body: bytes, at: int) -> tuple[int, int]:
    length = shift = 0
    while True:
        byte = body[at]
        at += 1
        length |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return length, at


class RawBroker:
    """Just enough of a broker, on a raw socket: CONNACK, SUBACK, then whatever the test
    writes, in the writes the test chooses; PUBACKs received are counted by mid; PUBLISHes
    received are kept (topic, payload, qos, mid), and a QoS 1 one is acked at once unless
    ``hold_acks`` (then the test acks it, :meth:`ack`)."""

    def __init__(self, hold_acks: bool = False) -> None:
        self.pubacks: list[int] = []
        self.published: list[tuple[str, bytes, int, int]] = []
        self.hold_acks = hold_acks
        self.v5 = False
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
                elif kind == 0x30:  # PUBLISH
                    qos = (header >> 1) & 0x03
                    at = 2 + struct.unpack("!H", body[:2])[0]
                    topic, packet_id = body[2:at].decode(), 0
                    if qos:
                        packet_id = struct.unpack("!H", body[at:at + 2])[0]
                        at += 2
                    if self.v5:
                        length, at = _read_length(body, at)
                        at += length
                    self.published.append((topic, body[at:], qos, packet_id))
                    if qos == 1 and not self.hold_acks:
                        writer.write(b"\x40\x02" + struct.pack("!H", packet_id))
                elif kind == 0xE0:  # DISCONNECT
                    return
        except (asyncio.IncompleteReadError, ConnectionError):
            return

    async def send(self, data: bytes) -> None:
        assert self.writer is not None
        self.writer.write(data)
        await self.writer.drain()

    async def ack(self, mid: int, tail: bytes = b"") -> None:
        """A PUBACK for ``mid``; ``tail``: MQTT 5's reason code and properties."""
        await self.send(bytes([0x40, 2 + len(tail)]) + struct.pack("!H", mid) + tail)


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


# ---------------------------------------------------------------------- the send side
class Counted:
    """Wraps a callable (an instance attribute) and counts its calls."""

    def __init__(self, target: Any) -> None:
        self.target = target
        self.calls = 0

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        return self.target(*args, **kwargs)


@pytest.mark.parametrize("v5", [True, False], ids=["mqtt5", "mqtt311"])
def test_publishes_queued_together_go_out_in_order_in_one_write(v5: bool) -> None:
    """A gather of publishes (QoS 1 and 0, as Bridge.send makes them) is written in one
    send, with no add_writer and nothing through the loop's self-pipe; and 200 at once (a
    floor's acks, more than paho's in-flight window of 20) in far fewer sends than
    packets, in order."""
    protocol = aiomqtt.ProtocolVersion.V5 if v5 else aiomqtt.ProtocolVersion.V311

    async def test() -> None:
        async with (RawBroker(hold_acks=True) as broker,
                    FastClient("127.0.0.1", broker.port, protocol=protocol,
                               identifier="fast-test") as client):
            loop = asyncio.get_running_loop()
            sends = Counted(client.paho._sock_send)
            client.paho._sock_send = sends  # type: ignore[method-assign]
            wakeups = Counted(loop.call_soon_threadsafe)
            writers = Counted(loop.add_writer)
            loop.call_soon_threadsafe = wakeups  # type: ignore[method-assign,assignment]
            loop.add_writer = writers  # type: ignore[method-assign,assignment]
            try:
                wanted = [(TOPIC.format(i), b"ack %d" % i, i % 3 and 1) for i in range(15)]
                calls = [asyncio.ensure_future(client.publish(t, p, qos=q))
                         for t, p, q in wanted]
                await eventually("15 publishes", lambda: len(broker.published) == 15)
                assert [(t, p, q) for t, p, q, _ in broker.published] == wanted
                assert sends.calls == 1  # all fifteen in one write
                assert wakeups.calls == 0 and writers.calls == 0
                # the QoS 0 ones returned once written; the QoS 1 ones wait for PUBACKs
                await asyncio.sleep(0.05)
                assert [c.done() for c in calls] == [q == 0 for _, _, q in wanted]
                for _, _, q, mid in broker.published:
                    if q:
                        await broker.ack(mid)
                await asyncio.wait_for(asyncio.gather(*calls), WAIT_S)

                broker.hold_acks = False  # acked as they come: paho's window moves on
                broker.published.clear()
                sends.calls = 0
                many = [(f"pitboss/v1/test/host/ack/t{i:03d}", b"%d" % i) for i in range(200)]
                await asyncio.wait_for(asyncio.gather(
                    *(client.publish(t, p, qos=1) for t, p in many)), WAIT_S)
                assert [(t, p) for t, p, _, _ in broker.published] == many
                assert sends.calls < 50  # one per packet before (200)
                assert client.paho.fast_pubacks == 210
            finally:
                del loop.call_soon_threadsafe, loop.add_writer

    run(test)


def test_each_qos1_publish_returns_on_its_own_puback() -> None:
    """MQTT 5: a PUBACK with no reason code, with one (0x10: no matching subscribers), with
    an empty property length (the read path) or with properties (paho's handler) completes
    exactly its own publish() call."""
    reason_string = b"\x1f\x00\x02ok"  # property 0x1F, a UTF-8 string "ok"
    tails = [b"", b"\x10", b"\x00\x00", b"\x10" + bytes([len(reason_string)]) + reason_string,
             b""]

    async def test() -> None:
        async with (RawBroker(hold_acks=True) as broker,
                    FastClient("127.0.0.1", broker.port, protocol=aiomqtt.ProtocolVersion.V5,
                               identifier="fast-test") as client):
            calls = [asyncio.ensure_future(client.publish(TOPIC.format(i), b"x", qos=1))
                     for i in range(5)]
            await eventually("5 publishes", lambda: len(broker.published) == 5)
            mids = [mid for *_, mid in broker.published]
            await asyncio.sleep(0.05)
            assert not any(c.done() for c in calls)
            acked: set[int] = set()
            for i in (3, 0, 4, 1, 2):
                await broker.ack(mids[i], tails[i])
                acked.add(i)
                await asyncio.wait_for(asyncio.shield(calls[i]), WAIT_S)
                await asyncio.sleep(0.02)
                assert [c.done() for c in calls] == [j in acked for j in range(5)]
            assert client.paho.fast_pubacks == 4  # the one with properties went to paho
            assert not client.paho._out_messages and not client._pending_publishes

    run(test)


def test_a_publish_not_acked_in_time_raises_and_is_forgotten() -> None:
    async def test() -> None:
        async with (RawBroker(hold_acks=True) as broker,
                    FastClient("127.0.0.1", broker.port, identifier="fast-test") as client):
            with pytest.raises(aiomqtt.MqttError, match="timed out"):
                await client.publish(TOPIC.format(1), b"x", qos=1, timeout=0.1)
            assert not client._pending_publishes

    run(test)


@pytest.mark.parametrize("v5", [True, False], ids=["mqtt5", "mqtt311"])
def test_writes_taken_in_part_or_refused_lose_and_reorder_nothing(v5: bool) -> None:
    """The socket takes a random part of each write (1 byte to 5 kB) and refuses every
    third one (would block): every packet still arrives whole and in order, QoS 0 calls
    return once written and QoS 1 ones on their PUBACK; one packet is bigger than a write
    joins (SEND_BYTES)."""
    protocol = aiomqtt.ProtocolVersion.V5 if v5 else aiomqtt.ProtocolVersion.V311
    rng = random.Random(20)

    async def test() -> None:
        # no in-flight window: paho would hold QoS 1 messages back and let QoS 0 ones pass
        async with (RawBroker() as broker,
                    FastClient("127.0.0.1", broker.port, protocol=protocol,
                               identifier="fast-test", max_inflight_messages=0) as client):
            paho = client.paho
            real = paho._sock_send
            offered: list[int] = []

            def stingy(buf: Any) -> int:
                offered.append(len(buf))
                if len(offered) % 3 == 0:
                    raise BlockingIOError
                return real(bytes(buf[:rng.randint(1, min(len(buf), 5000))]))

            paho._sock_send = stingy  # type: ignore[method-assign]
            wanted = [(TOPIC.format(i % 200), b"%d:" % i + b"p" * rng.randint(0, 3000),
                       0 if i % 4 == 0 else 1) for i in range(120)]
            wanted[60] = (TOPIC.format(60), b"B" * (mqtt_fast.SEND_BYTES + 1000), 1)
            await asyncio.wait_for(asyncio.gather(
                *(client.publish(t, p, qos=q) for t, p, q in wanted)), 3 * WAIT_S)
            assert [(t, p, q) for t, p, q, _ in broker.published] == wanted
            assert not paho._out_packet and not paho._out_messages
            assert max(offered) > 5000  # writes joined several packets
            assert paho.fast_sends > len(wanted)  # ... and were cut

    run(test)


def test_a_small_send_buffer_on_mosquitto_loses_and_reorders_nothing(
        mosquitto: Mosquitto) -> None:
    """End to end with a real broker: a 4 kB SO_SNDBUF, 100 publishes of 20 kB at once
    (QoS 1 and 0): a subscriber gets them all, in order."""
    small = [(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)]

    async def test() -> None:
        async with (aiomqtt.Client("127.0.0.1", mosquitto.port, identifier="sub",
                                   max_queued_incoming_messages=0) as sub,
                    FastClient("127.0.0.1", mosquitto.port, identifier="fast-pub",
                               socket_options=small, max_inflight_messages=0) as pub):
            await sub.subscribe("pitboss/v1/test/big/#", qos=1)
            real, cut = pub.paho._sock_send, []

            def send(buf: Any) -> int:
                taken: int = real(buf)
                cut.append(taken < len(buf))
                return taken

            pub.paho._sock_send = send  # type: ignore[method-assign]
            wanted = [(f"pitboss/v1/test/big/{i}", bytes([65 + i % 26]) * 20_000, i % 2)
                      for i in range(100)]
            receiving = asyncio.ensure_future(take(sub, 100))
            await asyncio.wait_for(asyncio.gather(
                *(pub.publish(t, p, qos=q) for t, p, q in wanted)), WAIT_S)
            got = await receiving
            assert [(m.topic.value, m.payload) for m in got] == [(t, p) for t, p, _ in wanted]
            assert any(cut)  # the socket did take only part of some writes

    run(test)


@pytest.mark.parametrize("missing", ["_packet_write", "_update_inflight",
                                     "_call_socket_register_write"])
def test_a_paho_without_the_send_side_internals_stops_the_bridge_at_start_up(
        missing: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(paho.Client, missing)
    with pytest.raises(IncompatibleMqttLibrary, match=missing):
        mqtt_fast.check_internals()


def test_a_paho_with_another_out_packet_layout_stops_the_bridge_at_start_up(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def queue(self: paho.Client, command: int, packet: bytes, mid: int, qos: int,
              info: object = None) -> None:
        self._out_packet.append({"command": command, "packet": packet})  # type: ignore[typeddict-item]

    monkeypatch.setattr(paho.Client, "_packet_queue", queue)
    with pytest.raises(IncompatibleMqttLibrary, match="_out_packet"):
        mqtt_fast.check_internals()


def test_an_aiomqtt_without_the_socket_callbacks_stops_the_bridge_at_start_up(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(aiomqtt.Client, "_on_socket_register_write")
    with pytest.raises(IncompatibleMqttLibrary, match="_on_socket_register_write"):
        mqtt_fast.check_internals()
