"""The bridge's receive path: an ``aiomqtt.Client`` that takes in a floor's table events at
a few tens of microseconds of CPU each (issue 20: 200 tables, >= 5,000 events/s, <= 100 µs
per event with the store included).

Plain aiomqtt 2.5 on paho-mqtt 2.x spent ~145 µs of CPU per QoS 1 message received: paho
reads a packet's fixed header a byte at a time (~4.7 ``recv`` calls a message) and one
packet per readable callback; it builds an ``MQTTMessage`` (with a ``threading.Condition``)
and, on MQTT 5, a ``Properties`` object for every message; it logs each one twice; each
PUBACK is its own ``send``, with a byte to paho's thread-wakeup socket pair and an
``add_writer``/``remove_writer`` round through the loop's self-pipe; and aiomqtt's message
iterator makes a task and an ``asyncio.wait`` for every message.

:class:`FastClient` keeps aiomqtt and paho for everything else (CONNECT with the login,
TLS and the Will, SUBSCRIBE, PUBLISH and its acks, keep-alive, DISCONNECT, errors) and
replaces only the read side of paho's client (:class:`_FastPaho`, swapped in as the class
of aiomqtt's paho instance):

- ``loop_read`` (what aiomqtt's reader callback calls) makes one ``recv`` of up to
  :data:`RECV_BYTES` and handles every complete packet in it; a packet cut at the end of a
  read waits, buffered, for the next.
- A PUBLISH at QoS 0 or 1 is decoded here into an ``aiomqtt.Message`` (its ``Topic``
  cached per topic; ``properties`` is ``None`` for an MQTT 5 PUBLISH without properties)
  and handed to the application's inbox; its PUBACK is written after every message of
  that read was handed over, all of the read's PUBACKs in one ``send`` (through paho's
  out-queue, so they keep their order with paho's own packets; if the socket would block,
  paho's writer takes over).
- Every other packet (CONNACK, SUBACK, PUBACK, PINGRESP, DISCONNECT, a QoS 2 PUBLISH...)
  goes to paho's own handler, after the PUBACKs waiting were queued.
- ``client.messages`` reads the inbox without a task per message.
- After a read that brought a few messages, the socket rests :data:`RX_LINGER_S` before
  the next read (aiomqtt's reader callback is replaced by :meth:`FastClient._readable`):
  at a floor's pace each wake-up would otherwise serve one message, and a wake-up, a
  ``recv`` and a ``send`` cost more than the rest of a message's handling together.

What it relies on of paho's and aiomqtt's internals is checked when the module is imported
(:func:`check_internals`): a paho or aiomqtt release without them stops the bridge at
start-up with :class:`IncompatibleMqttLibrary`, never a silent misbehaviour.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import struct
import time
from typing import Any

import aiomqtt
import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion, MQTTErrorCode, MQTTProtocolVersion
from paho.mqtt.exception import MalformedPacket
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

log = logging.getLogger(__name__)

RECV_BYTES = 64 * 1024  # one read serves hundreds of events
# After a read that brought fewer than RX_BATCH messages, the socket rests this long before
# the next read, so that one wake-up, one recv and one PUBACK write serve several messages
# (at a floor's pace, 5,000 events/s from 200 tables, each read would otherwise bring one).
# A read that brings RX_BATCH or more is followed at once: a burst, or a broker whose
# in-flight window (Mosquitto's default: 20) waits for our PUBACKs, is never slowed down.
RX_LINGER_S = 0.001
RX_BATCH = 16
TOPIC_CACHE_MAX = 4096  # distinct topics whose ``Topic`` is kept (a floor has ~6 a table)
PUBLISH, PUBACK = 0x30, 0x40
_SUCCESS = MQTTErrorCode.MQTT_ERR_SUCCESS
_CONN_LOST = MQTTErrorCode.MQTT_ERR_CONN_LOST
_PROTOCOL = MQTTErrorCode.MQTT_ERR_PROTOCOL
_PUBACK_HEAD = struct.Struct("!BBH")


class IncompatibleMqttLibrary(RuntimeError):
    """The installed paho-mqtt or aiomqtt lacks what the bridge's receive path relies on."""


# What the fast path uses of paho's client (paho-mqtt 2.1 and 2.2 have all of it).
_PAHO_METHODS = ("loop_read", "loop_write", "_sock_recv", "_packet_handle", "_loop_rc_handle",
                 "_easy_log", "_handle_on_message")
_PAHO_ATTRIBUTES = ("_sock", "_in_packet", "_out_packet", "_msgtime_mutex", "_protocol",
                    "_manual_ack", "_userdata")
_IN_PACKET_KEYS = {"command", "have_remaining", "remaining_count", "remaining_mult",
                   "remaining_length", "packet", "to_process", "pos"}
# What it uses of aiomqtt's client.
_AIOMQTT_ATTRIBUTES = ("_client", "_loop", "_disconnected", "_queue", "_logger", "_misc_task",
                       "_misc_loop", "_on_socket_open", "_on_socket_close")


def _missing(what: str) -> IncompatibleMqttLibrary:
    return IncompatibleMqttLibrary(
        f"the bridge's MQTT receive path (host_bridge.mqtt_fast) needs {what}, which the "
        f"installed aiomqtt / paho-mqtt lack; install the versions pyproject.toml pins "
        f"(aiomqtt>=2.5,<3, paho-mqtt>=2.1,<3)")


def _received_attribute(client: mqtt.Client) -> str:
    # when bytes last came in, for paho's keep-alive: renamed between paho 2.1 and 2.2
    for name in ("_last_bytes_received", "_last_msg_in"):
        if hasattr(client, name):
            return name
    raise _missing("paho's Client._last_bytes_received (or _last_msg_in)")


def check_internals() -> None:
    """Raise :class:`IncompatibleMqttLibrary` unless paho's and aiomqtt's internals that
    :class:`FastClient` patches are all there, as in the pinned releases."""
    for name in _PAHO_METHODS:
        if not callable(getattr(mqtt.Client, name, None)):
            raise _missing(f"paho's Client.{name}()")
    probe = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
    for name in _PAHO_ATTRIBUTES:
        if not hasattr(probe, name):
            raise _missing(f"paho's Client.{name}")
    if not isinstance(probe._in_packet, dict) or set(probe._in_packet) != _IN_PACKET_KEYS:
        raise _missing(f"paho's Client._in_packet with the keys {sorted(_IN_PACKET_KEYS)}")
    if not isinstance(probe._out_packet, collections.deque):
        raise _missing("paho's Client._out_packet as a deque")
    _received_attribute(probe)
    probe._reset_sockets()


_CUT, _TOO_LONG = -1, -2


def _remaining_length(buf: bytes, at: int, end: int) -> tuple[int, int]:
    """MQTT's variable-length remaining length at ``buf[at]``: (length, where the packet's
    body starts), or (:data:`_CUT`, 0) when it runs past ``end``, (:data:`_TOO_LONG`, 0)
    past 4 bytes."""
    length = shift = 0
    for i in range(at, min(end, at + 4)):
        byte = buf[i]
        length |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return length, i + 1
        shift += 7
    return (_TOO_LONG, 0) if end >= at + 4 else (_CUT, 0)


class _FastPaho(mqtt.Client):
    """paho's client with the read side of :mod:`host_bridge.mqtt_fast` (never made
    directly: :class:`FastClient` swaps it in as the class of aiomqtt's paho client)."""

    _deliver: Any  # the application's inbox: FastClient._deliver
    _rx: bytes  # the start of a packet cut at the end of the last read
    _rx_parts: list[bytes]  # a big packet's reads until it is complete
    _rx_need: int  # bytes that packet needs in all (0: not known yet)
    _rx_sock: Any  # the socket the buffered bytes came from
    _acks: bytearray  # the PUBACKs of this read, not yet queued
    _topics: dict[bytes, aiomqtt.Topic]
    _touched: str  # the attribute paho's keep-alive reads for "bytes came in"
    fast_packets: int  # PUBLISHes the fast path handled (tests and benchmarks)

    def _fast_setup(self, deliver: Any) -> None:
        self._deliver = deliver
        self._rx, self._rx_parts, self._rx_need, self._rx_sock = b"", [], 0, None
        self._acks = bytearray()
        self._topics = {}
        self._touched = _received_attribute(self)
        self.fast_packets = 0

    def loop_read(self, max_packets: int = 1) -> MQTTErrorCode:
        """One ``recv``; every complete packet in what has arrived is handled."""
        sock = self._sock
        if sock is None:
            return MQTTErrorCode.MQTT_ERR_NO_CONN
        try:
            data = self._sock_recv(RECV_BYTES)
        except BlockingIOError:  # nothing yet (or TLS wants more of a record)
            return _SUCCESS
        except OSError as err:  # TimeoutError and ConnectionError included
            self._easy_log(mqtt.MQTT_LOG_ERR, "failed to receive on socket: %s", err)
            return self._loop_rc_handle(_CONN_LOST)
        if not data:
            return self._loop_rc_handle(_CONN_LOST)
        if self._rx_sock is not sock:  # a new connection: nothing left from the old one
            self._rx, self._rx_parts, self._rx_need, self._rx_sock = b"", [], 0, sock
        if self._rx_need:  # the rest of a big packet: join the reads once it is all here
            self._rx_parts.append(data)
            if sum(map(len, self._rx_parts)) < self._rx_need:
                return _SUCCESS
            data, self._rx_parts, self._rx_need = b"".join(self._rx_parts), [], 0
        elif self._rx:
            data = self._rx + data
        rc = self._handle_packets(data, sock)
        setattr(self, self._touched, time.monotonic())
        if self._acks and self._sock is sock:
            self._queue_acks()  # this read's PUBACKs, after all its messages were handed on
        if rc and self._sock is sock:
            return self._loop_rc_handle(rc)
        return rc

    def _handle_packets(self, buf: bytes, sock: Any) -> MQTTErrorCode:
        """Every complete packet in ``buf``; the rest is kept for the next read."""
        pos, end = 0, len(buf)
        publish = self._publish
        while end - pos >= 2:
            header, length = buf[pos], buf[pos + 1]
            start = pos + 2
            if length & 0x80:  # a remaining length of 2 to 4 bytes
                if start < end and not buf[start] & 0x80:  # 2 (an event: ~170 bytes)
                    length = (length & 0x7F) | (buf[start] << 7)
                    start += 1
                else:
                    length, start = _remaining_length(buf, pos + 1, end)
                    if length < 0:
                        if length == _TOO_LONG:
                            return _PROTOCOL
                        break  # the length itself is cut
            stop = start + length
            if stop > end:
                if stop - pos > RECV_BYTES:  # a big packet: gather its reads, join once
                    self._rx, self._rx_parts, self._rx_need = b"", [buf[pos:]], stop - pos
                    return _SUCCESS
                break
            if header & 0xF0 == PUBLISH and header & 0x06 != 0x04:  # QoS 0 or 1
                rc = publish(header, buf, start, stop)
            else:
                rc = self._paho_handles(header, buf[start:stop])
            pos = stop
            if rc:
                return rc
            if self._sock is not sock:  # the packet closed the connection
                self._rx = b""
                return _SUCCESS
        self._rx = buf[pos:] if pos < end else b""
        return _SUCCESS

    def _publish(self, header: int, buf: bytes, start: int, stop: int) -> MQTTErrorCode:
        """A QoS 0 or 1 PUBLISH: to the inbox; its PUBACK waits for the end of the read."""
        qos = (header >> 1) & 0x03
        if stop - start < 2:
            return _PROTOCOL
        p = start + 2 + ((buf[start] << 8) | buf[start + 1])
        raw_topic = buf[start + 2:p]
        mid = 0
        if qos:
            if p + 2 > stop:
                return _PROTOCOL
            mid = (buf[p] << 8) | buf[p + 1]
            p += 2
        properties = None
        if self._protocol == MQTTProtocolVersion.MQTTv5:
            if p >= stop:
                return _PROTOCOL
            if buf[p] == 0:  # no properties: the usual case, and no object made for it
                p += 1
            else:
                properties = Properties(PacketTypes.PUBLISH)  # type: ignore[no-untyped-call]
                try:
                    _, used = properties.unpack(buf[p:stop])  # type: ignore[no-untyped-call]
                except Exception:  # paho raises several kinds
                    return _PROTOCOL
                p += used
        if p > stop:
            return _PROTOCOL
        topic = self._topics.get(raw_topic)
        if topic is None:
            try:
                topic = aiomqtt.Topic(raw_topic.decode())
            except (UnicodeDecodeError, ValueError):
                return _PROTOCOL  # empty, wildcards, not UTF-8: no topic a broker may send
            if len(self._topics) >= TOPIC_CACHE_MAX:
                self._topics.clear()
            self._topics[raw_topic] = topic
        self._deliver(aiomqtt.Message(topic, buf[p:stop], qos, bool(header & 0x01), mid,
                                      properties))
        self.fast_packets += 1
        if qos and not self._manual_ack:
            self._acks += _PUBACK_HEAD.pack(PUBACK, 2, mid)
        return _SUCCESS

    def _paho_handles(self, header: int, body: bytes) -> MQTTErrorCode:
        """paho's own handler for a packet the fast path leaves to it."""
        if self._acks:
            self._queue_acks()  # PUBACKs stay in the order their PUBLISHes came
            if self._sock is None:
                return _SUCCESS
        self._in_packet = {"command": header, "have_remaining": 1, "remaining_count": [],
                           "remaining_mult": 1, "remaining_length": len(body),
                           "packet": bytearray(body), "to_process": 0, "pos": 0}
        try:
            return self._packet_handle()
        except MalformedPacket as exc:
            self._easy_log(mqtt.MQTT_LOG_DEBUG, "Received malformed packet: %s", exc)
            return _PROTOCOL
        finally:
            self._in_packet = {"command": 0, "have_remaining": 0, "remaining_count": [],
                               "remaining_mult": 1, "remaining_length": 0,
                               "packet": bytearray(b""), "to_process": 0, "pos": 0}

    def _queue_acks(self) -> None:
        """This read's PUBACKs as one write, behind whatever paho has queued."""
        acks = bytes(self._acks)
        self._acks.clear()
        self._out_packet.append({"command": PUBACK, "mid": 0, "qos": 0, "pos": 0,
                                 "to_process": len(acks), "packet": acks, "info": None})
        self.loop_write()  # one send now; paho's writer callback if the socket is full


class FastMessages(aiomqtt.client.MessagesIterator):
    """``client.messages`` of a :class:`FastClient`: the inbox, without a task per message;
    after a disconnection, what was received is still handed out, then ``MqttError``."""

    _client: FastClient

    async def __anext__(self) -> aiomqtt.Message:
        client = self._client
        inbox = client._inbox
        while not inbox:
            disconnected = client._disconnected
            if disconnected.done():
                raise aiomqtt.MqttError("Disconnected during message iteration") \
                    from disconnected.exception()
            waiter = client._loop.create_future()
            client._waiters.append(waiter)
            disconnected.add_done_callback(client._wake_all)
            try:
                await waiter
            finally:
                disconnected.remove_done_callback(client._wake_all)
                if not waiter.done():
                    client._waiters.remove(waiter)
        return inbox.popleft()

    def __len__(self) -> int:
        return len(self._client._inbox)


class FastClient(aiomqtt.Client):
    """``aiomqtt.Client`` with the bridge's receive path (see the module's docstring); the
    same arguments and API, and ``rx_linger`` (seconds; 0: read whenever readable)."""

    def __init__(self, *args: Any, rx_linger: float = RX_LINGER_S, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for name in _AIOMQTT_ATTRIBUTES:
            if not hasattr(self, name):
                raise _missing(f"aiomqtt's Client.{name}")
        if type(self._client) is not mqtt.Client:
            raise _missing("aiomqtt's Client._client as a paho-mqtt Client")
        self._inbox: collections.deque[aiomqtt.Message] = collections.deque()
        self._waiters: collections.deque[asyncio.Future[None]] = collections.deque()
        self._inbox_max = self._queue.maxsize  # max_queued_incoming_messages (0: no limit)
        self._rx_linger = rx_linger
        self._resting: asyncio.TimerHandle | None = None
        self._client.__class__ = _FastPaho
        paho = self.paho
        paho._fast_setup(self._deliver)
        paho.on_message = self._on_paho_message  # the packets paho still handles (QoS 2)

    @property
    def paho(self) -> _FastPaho:
        """The paho client underneath, with the fast read side."""
        assert isinstance(self._client, _FastPaho)
        return self._client

    @property
    def messages(self) -> FastMessages:
        """The messages received, in order (an async iterator)."""
        return FastMessages(self)

    # ------------------------------------------------------------------ the socket
    # aiomqtt's own socket callbacks, with the reader of this module: paho calls them from
    # the thread that connects (hence call_soon_threadsafe) and from the loop.
    def _on_socket_open(self, client: mqtt.Client, userdata: Any, sock: Any) -> None:
        def start() -> None:
            fd = sock.fileno()
            self._loop.add_reader(fd, self._readable, sock, fd)
            self._misc_task = self._loop.create_task(self._misc_loop())

        self._loop.call_soon_threadsafe(start)

    def _on_socket_close(self, client: mqtt.Client, userdata: Any, sock: Any) -> None:
        if self._resting is not None:
            self._resting.cancel()
            self._resting = None
        super()._on_socket_close(client, userdata, sock)

    def _readable(self, sock: Any, fd: int) -> None:
        paho = self.paho
        before = paho.fast_packets
        try:
            while True:
                paho.loop_read()
                # TLS: what was decrypted beyond this read is not seen by the selector
                pending = getattr(paho._sock, "pending", None)
                if pending is None or pending() <= 0:
                    break
        except Exception as exc:  # a broken connection: end it (as aiomqtt does)
            if not self._disconnected.done():
                self._disconnected.set_exception(exc)
            return
        if (self._rx_linger > 0 and paho._sock is sock
                and 0 < paho.fast_packets - before < RX_BATCH):
            self._loop.remove_reader(fd)
            self._resting = self._loop.call_later(self._rx_linger, self._read_again, sock, fd)

    def _read_again(self, sock: Any, fd: int) -> None:
        self._resting = None
        if self.paho._sock is sock:  # still this connection's socket
            self._loop.add_reader(fd, self._readable, sock, fd)

    # ------------------------------------------------------------------ the inbox
    def _deliver(self, message: aiomqtt.Message) -> None:
        if self._inbox_max > 0 and len(self._inbox) >= self._inbox_max:
            self._logger.warning("Message queue is full. Discarding message.")
            return
        self._inbox.append(message)
        waiters = self._waiters
        while waiters:
            waiter = waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)
                return

    def _wake_all(self, _: object = None) -> None:
        waiters, self._waiters = self._waiters, collections.deque()
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)

    def _on_paho_message(self, client: mqtt.Client, userdata: Any,
                         message: mqtt.MQTTMessage) -> None:
        self._deliver(aiomqtt.Message._from_paho_message(message))


check_internals()  # at import: a paho or aiomqtt without these stops the bridge at start-up
