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

The send side (issue 20's acks: every ``ACK_EVERY_S`` the bridge publishes each table's newest
ack, ~200 QoS 1 publishes at once through ``asyncio.gather``) is cheap too: ~100 µs of CPU
per QoS 1 message published with plain aiomqtt (~135 with its warnings logged), ~31-39 µs
here (rounds of 200 to a local Mosquitto). Plain aiomqtt made a task for
``asyncio.wait_for``, scanned every pending call twice (``_pending_calls``: quadratic in a
round of 200) and logged "There are N pending publish calls" for every call above 10; paho
wrote each packet with its own ``send`` after an ``add_writer`` through the loop's self-pipe,
and built a ``ReasonCode`` and a ``Properties`` for every PUBACK received. Here:

- A publish or any packet queued on the loop's thread is not written at once: one
  :meth:`FastClient._flush`, scheduled with ``call_soon`` (no self-pipe, no ``add_writer``),
  writes everything queued meanwhile (a ``gather``'s publishes, or those a read's PUBACKs let
  into paho's in-flight window) in one ``send``; the writer is registered only when the
  socket would not take it all. Packets queued from another thread (the CONNECT, from
  aiomqtt's connecting executor) take aiomqtt's way (``call_soon_threadsafe(add_writer)``).
- paho's ``_packet_write`` is replaced (:meth:`_FastPaho._packet_write`): the queued packets
  are joined and sent at once; what the socket did not take stays queued, in order, the
  packet it cut with its position; each packet written completely gets paho's bookkeeping
  (a QoS 0 PUBLISH: ``on_publish`` and its ``info`` marked published). A DISCONNECT is left
  to paho's own writer.
- paho's thread-wakeup socket pair is left alone: paho 2.1 and 2.2 make it only in
  ``loop()``/``loop_start()``, which aiomqtt never calls, so it costs aiomqtt nothing.
- A PUBACK without properties (every success, and MQTT 5's "no matching subscribers") is
  handled in the read path: the message leaves paho's out-store (its ``info`` marked
  published, the in-flight window moved on as paho does) and its ``publish()`` call returns,
  without paho's decoder, ``ReasonCode`` or ``Properties``; any other PUBACK goes to paho.
- ``publish()`` (:meth:`FastClient.publish`, same signature and errors as aiomqtt's) waits on
  one future with a timer, and its pending-call bookkeeping is O(1); it warns once when the
  pending calls go above ``pending_calls_threshold`` (:data:`PENDING_CALLS_WARN` by default:
  a floor's round of acks is ~200 by design), not at every call.

What it relies on of paho's and aiomqtt's internals is checked when the module is imported
(:func:`check_internals`): a paho or aiomqtt release without them stops the bridge at
start-up with :class:`IncompatibleMqttLibrary`, never a silent misbehaviour.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import math
import struct
import time
from typing import Any

import aiomqtt
import paho.mqtt.client as mqtt
from aiomqtt.types import PayloadType
from paho.mqtt.enums import CallbackAPIVersion, MQTTErrorCode, MQTTProtocolVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties
from paho.mqtt.reasoncodes import ReasonCode

try:  # paho-mqtt 2.2
    from paho.mqtt.exception import MalformedPacket
except ImportError:  # paho-mqtt 2.1: defined in properties (2.2 imports it there)
    from paho.mqtt.properties import (  # type: ignore[attr-defined,no-redef,unused-ignore]
        MalformedPacket,
    )

log = logging.getLogger(__name__)

RECV_BYTES = 64 * 1024  # one read serves hundreds of events
# After a read that brought fewer than RX_BATCH messages, the socket rests this long before
# the next read, so that one wake-up, one recv and one PUBACK write serve several messages
# (at a floor's pace, 5,000 events/s from 200 tables, each read would otherwise bring one).
# A read that brings RX_BATCH or more is followed at once: a burst, or a broker whose
# in-flight window (Mosquitto's default: 20) waits for our PUBACKs, is never slowed down.
# 5 ms (pitboss bench bridge, quiet machine): CPU per event 314 us at 1,000 events/s and
# 138 at 5,000, against 441 and 163 with 1 ms; the feed's p99 stayed 13 and 72 ms.
RX_LINGER_S = 0.005
RX_BATCH = 16
TOPIC_CACHE_MAX = 4096  # distinct topics whose ``Topic`` is kept (a floor has ~6 a table)
PUBLISH, PUBACK, DISCONNECT = 0x30, 0x40, 0xE0
SEND_BYTES = 256 * 1024  # at most this much is joined for one send
# aiomqtt warns (at every call) above 10 pending calls; a floor's round of acks is ~200
PENDING_CALLS_WARN = 1000
_SUCCESS = MQTTErrorCode.MQTT_ERR_SUCCESS
_CONN_LOST = MQTTErrorCode.MQTT_ERR_CONN_LOST
_PROTOCOL = MQTTErrorCode.MQTT_ERR_PROTOCOL
_PUBACK_HEAD = struct.Struct("!BBH")
_AGAIN = MQTTErrorCode.MQTT_ERR_AGAIN
_time_func = getattr(mqtt, "time_func", time.monotonic)  # paho's clock for _last_msg_out


class IncompatibleMqttLibrary(RuntimeError):
    """The installed paho-mqtt or aiomqtt lacks what the bridge's receive path relies on."""


# What the fast path uses of paho's client (paho-mqtt 2.1 and 2.2 have all of it).
_PAHO_METHODS = ("loop_read", "loop_write", "want_write", "_sock_recv", "_sock_send",
                 "_packet_handle", "_packet_write", "_packet_queue", "_loop_rc_handle",
                 "_easy_log", "_handle_on_message", "_call_socket_register_write",
                 "_call_socket_unregister_write", "_update_inflight")
_PAHO_ATTRIBUTES = ("_sock", "_in_packet", "_out_packet", "_msgtime_mutex", "_protocol",
                    "_manual_ack", "_userdata", "_out_messages", "_out_message_mutex",
                    "_inflight_messages", "_max_inflight_messages", "_registered_write",
                    "_callback_mutex", "_in_callback_mutex", "_on_publish",
                    "_callback_api_version", "suppress_exceptions", "_last_msg_out")
_IN_PACKET_KEYS = {"command", "have_remaining", "remaining_count", "remaining_mult",
                   "remaining_length", "packet", "to_process", "pos"}
_OUT_PACKET_KEYS = {"command", "mid", "qos", "pos", "to_process", "packet", "info"}
# What it uses of aiomqtt's client: methods (checked at import) and attributes (when a
# FastClient is made).
_AIOMQTT_METHODS = ("_misc_loop", "_on_socket_open", "_on_socket_close",
                    "_on_socket_register_write", "_on_socket_unregister_write", "_on_publish")
_AIOMQTT_ATTRIBUTES = ("_client", "_loop", "_disconnected", "_queue", "_logger", "_misc_task",
                       "_pending_publishes", "_pending_subscribes", "_pending_unsubscribes",
                       "_outgoing_calls_sem", "pending_calls_threshold", "timeout")


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
    for name in _AIOMQTT_METHODS:
        if not callable(getattr(aiomqtt.Client, name, None)):
            raise _missing(f"aiomqtt's Client.{name}()")
    probe = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
    for name in _PAHO_ATTRIBUTES:
        if not hasattr(probe, name):
            raise _missing(f"paho's Client.{name}")
    if not isinstance(probe._in_packet, dict) or set(probe._in_packet) != _IN_PACKET_KEYS:
        raise _missing(f"paho's Client._in_packet with the keys {sorted(_IN_PACKET_KEYS)}")
    if not isinstance(probe._out_packet, collections.deque):
        raise _missing("paho's Client._out_packet as a deque")
    if not isinstance(probe._out_messages, dict):
        raise _missing("paho's Client._out_messages as a dict")
    _received_attribute(probe)
    # a queued packet (no socket: paho only queues it) and a message's info, as written here
    probe._packet_queue(PUBLISH, b"\x30\x00", 0, 0, mqtt.MQTTMessageInfo(0))
    if len(probe._out_packet) != 1 or set(probe._out_packet[0]) != _OUT_PACKET_KEYS:
        raise _missing(f"paho's Client._out_packet entries with the keys "
                       f"{sorted(_OUT_PACKET_KEYS)}")
    for name in ("_set_as_published", "is_published"):
        if not callable(getattr(probe._out_packet[0]["info"], name, None)):
            raise _missing(f"paho's MQTTMessageInfo.{name}()")
    probe._out_packet.clear()
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
    _published: Any  # FastClient._published: a publish() call's message went out / was acked
    _own_on_publish: Any  # aiomqtt's on_publish as FastClient set it (the fast PUBACK's guard)
    fast_packets: int  # PUBLISHes the fast path handled (tests and benchmarks)
    fast_pubacks: int  # PUBACKs the fast path handled
    fast_sends: int  # sends of the packet writer

    def _fast_setup(self, deliver: Any, published: Any) -> None:
        self._deliver = deliver
        self._published = published
        self._own_on_publish = self._on_publish
        self._rx, self._rx_parts, self._rx_need, self._rx_sock = b"", [], 0, None
        self._acks = bytearray()
        self._topics = {}
        self._touched = _received_attribute(self)
        self.fast_packets = self.fast_pubacks = self.fast_sends = 0

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
            elif (header == PUBACK and self._on_publish is self._own_on_publish
                  and (length == 2 or (self._protocol == MQTTProtocolVersion.MQTTv5
                                       and (length == 3 or (length == 4 and not buf[start + 3]))))):
                # no properties (a reason code at most, which aiomqtt's publish() ignores)
                rc = self._puback((buf[start] << 8) | buf[start + 1])
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

    def _puback(self, mid: int) -> MQTTErrorCode:
        """A PUBACK: what paho's ``_handle_pubackcomp`` and ``_do_on_publish`` do, with
        FastClient's own completion of the ``publish()`` call in place of ``on_publish``."""
        with self._out_message_mutex:
            message = self._out_messages.pop(mid, None)
            if message is None:  # not ours, or acked already: paho ignores it too
                return _SUCCESS
            self.fast_pubacks += 1
            self._published(mid)
            message.info._set_as_published()
            if message.qos > 0:
                self._inflight_messages -= 1
                if self._max_inflight_messages > 0:
                    return self._update_inflight()  # paho's window: the next ones queued
        return _SUCCESS

    def _packet_write(self) -> MQTTErrorCode:
        """paho's writer, with every packet queued in one ``send`` (up to
        :data:`SEND_BYTES`): what the socket did not take stays queued, in order, the packet
        it cut with its position; each packet written completely gets paho's bookkeeping.
        A DISCONNECT is written by paho's own writer (it closes the connection after)."""
        out = self._out_packet
        while out:
            first = out[0]
            if first["command"] & 0xF0 == DISCONNECT:
                return super()._packet_write()
            data: Any
            if len(out) == 1 or first["to_process"] >= SEND_BYTES:
                data = memoryview(first["packet"])[first["pos"]:] if first["pos"] \
                    else first["packet"]
            else:
                parts: list[Any] = []
                size = 0
                for packet in out:
                    if packet["command"] & 0xF0 == DISCONNECT:
                        break
                    pos = packet["pos"]
                    parts.append(memoryview(packet["packet"])[pos:] if pos else packet["packet"])
                    size += packet["to_process"]
                    if size >= SEND_BYTES:
                        break
                data = b"".join(parts)
            try:
                sent = self._sock_send(data)
            except (AttributeError, ValueError):  # as paho: no socket (any more)
                return _SUCCESS
            except BlockingIOError:
                return _AGAIN
            except OSError as err:
                self._easy_log(mqtt.MQTT_LOG_ERR, "failed to receive on socket: %s", err)
                return _CONN_LOST
            self.fast_sends += 1
            if sent <= 0:
                with self._msgtime_mutex:
                    self._last_msg_out = _time_func()
                return _SUCCESS
            self._written(sent)
        return _SUCCESS

    def _written(self, sent: int) -> None:
        """``sent`` bytes from the front of the out-queue went out."""
        out = self._out_packet
        done = []
        while sent:
            packet = out[0]
            left = packet["to_process"]
            if sent < left:  # cut: the rest goes first next time
                packet["pos"] += sent
                packet["to_process"] = left - sent
                break
            packet["pos"] += left
            packet["to_process"] = 0
            sent -= left
            out.popleft()
            if packet["command"] & 0xF0 == PUBLISH and packet["qos"] == 0:
                done.append(packet)
        for packet in done:  # after the queue is right: a callback may queue more
            self._qos0_written(packet["mid"], packet["info"])

    def _qos0_written(self, mid: int, info: mqtt.MQTTMessageInfo | None) -> None:
        """A QoS 0 PUBLISH went out: paho's ``on_publish`` and ``info`` (as its writer)."""
        with self._callback_mutex:
            on_publish = self._on_publish
        if on_publish is self._own_on_publish:
            self._published(mid)
        elif on_publish is not None:
            with self._in_callback_mutex:
                call: Any = on_publish  # VERSION1 or VERSION2's signature
                try:
                    if self._callback_api_version == CallbackAPIVersion.VERSION1:
                        call(self, self._userdata, mid)
                    else:
                        call(self, self._userdata, mid, ReasonCode(PacketTypes.PUBACK),
                             Properties(PacketTypes.PUBACK))  # type: ignore[no-untyped-call]
                except Exception as err:
                    self._easy_log(mqtt.MQTT_LOG_ERR, "Caught exception in on_publish: %s", err)
                    if not self.suppress_exceptions:
                        raise
        if info is not None:
            info._set_as_published()

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
        self.pending_calls_threshold = PENDING_CALLS_WARN
        self._client.__class__ = _FastPaho
        paho = self.paho
        paho._fast_setup(self._deliver, self._published)
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

    # ------------------------------------------------------------------ writing
    def _on_socket_register_write(self, client: mqtt.Client, userdata: Any, sock: Any) -> None:
        # paho: something was queued (or the socket is full). On the loop's thread, one
        # flush at the end of this round of callbacks writes all that is queued meanwhile;
        # from another thread (the CONNECT, queued in aiomqtt's connecting executor),
        # aiomqtt's way: add_writer through call_soon_threadsafe.
        if asyncio._get_running_loop() is self._loop:
            self._loop.call_soon(self._flush, sock)
        else:
            super()._on_socket_register_write(client, userdata, sock)

    def _flush(self, sock: Any) -> None:
        paho = self.paho
        if paho._sock is not sock:
            return
        try:
            paho.loop_write()  # all queued, in one send; unregisters when nothing is left
        except Exception as exc:  # a broken connection: end it (as aiomqtt's writer does)
            if not self._disconnected.done():
                self._disconnected.set_exception(exc)
            return
        if paho._registered_write and paho._sock is sock:  # the socket did not take it all
            self._loop.add_writer(sock.fileno(), self._writable)

    def _writable(self) -> None:
        try:
            self.paho.loop_write()  # unregisters (remove_writer) once all is written
        except Exception as exc:
            if not self._disconnected.done():
                self._disconnected.set_exception(exc)

    # ------------------------------------------------------------------ publishing
    async def publish(
        self,
        /,
        topic: str,
        payload: PayloadType = None,
        qos: int = 0,
        retain: bool = False,
        properties: Properties | None = None,
        *args: Any,
        timeout: float | None = None,
        **kwargs: Any,
    ) -> None:
        """aiomqtt's ``publish()``: returns once the message was written (QoS 0) or its
        PUBACK came (QoS 1; QoS 2: its PUBCOMP); ``MqttCodeError`` if paho refuses it,
        ``MqttError`` after ``timeout`` (default: the client's)."""
        sem = self._outgoing_calls_sem
        if sem is None:
            return await self._publish(topic, payload, qos, retain, properties, args, timeout,
                                       kwargs)
        async with sem:
            return await self._publish(topic, payload, qos, retain, properties, args, timeout,
                                       kwargs)

    async def _publish(self, topic: str, payload: PayloadType, qos: int, retain: bool,
                       properties: Properties | None, args: tuple[Any, ...],
                       timeout: float | None, kwargs: dict[str, Any]) -> None:
        info = self._client.publish(topic, payload, qos, retain, properties, *args, **kwargs)
        if info.rc != mqtt.MQTT_ERR_SUCCESS:
            if self._disconnected.done() and self._disconnected.exception():
                raise aiomqtt.MqttCodeError(info.rc, "Could not publish message") \
                    from self._disconnected.exception()
            raise aiomqtt.MqttCodeError(info.rc, "Could not publish message")
        if info.is_published():
            return
        mid = info.mid
        pending: dict[int, Any] = self._pending_publishes
        if mid in pending or mid in self._pending_subscribes or mid in self._pending_unsubscribes:
            raise RuntimeError(f'There already exists a pending call for message ID "{mid}"')
        done: asyncio.Future[None] = self._loop.create_future()
        pending[mid] = done
        try:
            count = (len(pending) + len(self._pending_subscribes)
                     + len(self._pending_unsubscribes))
            if count == self.pending_calls_threshold + 1:  # as it goes above, not every call
                self._logger.warning("There are %d pending publish calls.", count)
            if timeout is None:
                timeout = self.timeout
            if timeout == math.inf:
                await done
            else:
                timer = self._loop.call_later(timeout, _time_out, done)
                try:
                    await done
                finally:
                    timer.cancel()
        finally:
            if pending.get(mid) is done:
                del pending[mid]

    def _on_publish(self, client: mqtt.Client, userdata: Any, mid: int, reason_code: Any,
                    properties: Any) -> None:
        self._published(mid)

    def _published(self, mid: int) -> None:
        """A message went out (QoS 0) or was acknowledged: its ``publish()`` call returns."""
        pending: dict[int, Any] = self._pending_publishes  # futures (see _publish)
        done = pending.pop(mid, None)
        if done is not None and not done.done():
            done.set_result(None)

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


def _time_out(done: asyncio.Future[None]) -> None:
    if not done.done():
        done.set_exception(aiomqtt.MqttError("Operation timed out"))


check_internals()  # at import: a paho or aiomqtt without these stops the bridge at start-up
