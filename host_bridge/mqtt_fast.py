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
from typing import Any

import aiomqtt
import paho.mqtt.client as mqtt
from aiomqtt.types import PayloadType
from paho.mqtt.properties import Properties

from host_bridge.mqtt_internals import (
    AIOMQTT_ATTRIBUTES,
    IncompatibleMqttLibrary,
    check_internals,
    missing,
)
from host_bridge.mqtt_paho import (  # noqa: F401 - RECV_BYTES, SEND_BYTES: the sizes, for tests
    PUBACK,
    RECV_BYTES,
    SEND_BYTES,
    _FastPaho,
)

log = logging.getLogger(__name__)

__all__ = ["FastClient", "FastMessages", "IncompatibleMqttLibrary", "check_internals"]

# After a read that brought fewer than RX_BATCH messages, the socket rests this long before
# the next read, so that one wake-up, one recv and one PUBACK write serve several messages
# (at a floor's pace, 5,000 events/s from 200 tables, each read would otherwise bring one).
# A read that brings RX_BATCH or more is followed at once: a burst, or a broker whose
# in-flight window (Mosquitto's default: 20) waits for our PUBACKs, is never slowed down.
# pitboss bench bridge, quiet machine, CPU per event at 1,000 / 5,000 events/s: 441 / 163 us
# with 1 ms, 314 / 138 with 5 ms. With the store's pace (mqtt.py's COMMIT_EVERY_S): 274 /
# 130 with 5 ms, 229 / 115-151 with 10 ms, 208-242 / 112-155 with 20 ms, where the feed's
# p99 at 5,000 events/s rose to 53-87 ms (33-79 with 10 ms, 29 with 5). 10 ms it is.
RX_LINGER_S = 0.01
RX_BATCH = 16
# aiomqtt warns (at every call) above 10 pending calls; a floor's round of acks is ~200
PENDING_CALLS_WARN = 1000


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
        for name in AIOMQTT_ATTRIBUTES:
            if not hasattr(self, name):
                raise missing(f"aiomqtt's Client.{name}")
        if type(self._client) is not mqtt.Client:
            raise missing("aiomqtt's Client._client as a paho-mqtt Client")
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
