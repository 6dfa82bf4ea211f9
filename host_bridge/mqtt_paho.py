"""The paho-mqtt side of the bridge's MQTT client (:mod:`host_bridge.mqtt_fast`):
:class:`_FastPaho`, swapped in as the class of aiomqtt's paho client. It reads 64 KiB at a
time and handles every complete packet of a read (QoS 0/1 PUBLISHes decoded here, a read's
PUBACKs written together), and writes what is queued in one send; everything else stays
paho's. Split from ``mqtt_fast`` so each stays a module a person can hold in mind."""

from __future__ import annotations

import logging
import struct
import time
from typing import Any

import aiomqtt
import paho.mqtt.client as mqtt
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

from host_bridge.mqtt_internals import received_attribute

log = logging.getLogger(__name__)

RECV_BYTES = 64 * 1024  # one read serves hundreds of events
TOPIC_CACHE_MAX = 4096  # distinct topics whose ``Topic`` is kept (a floor has ~6 a table)
PUBLISH, PUBACK, DISCONNECT = 0x30, 0x40, 0xE0
SEND_BYTES = 256 * 1024  # at most this much is joined for one send
_SUCCESS = MQTTErrorCode.MQTT_ERR_SUCCESS
_CONN_LOST = MQTTErrorCode.MQTT_ERR_CONN_LOST
_PROTOCOL = MQTTErrorCode.MQTT_ERR_PROTOCOL
_PUBACK_HEAD = struct.Struct("!BBH")
_AGAIN = MQTTErrorCode.MQTT_ERR_AGAIN
_time_func = getattr(mqtt, "time_func", time.monotonic)  # paho's clock for _last_msg_out


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
        self._touched = received_attribute(self)
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
