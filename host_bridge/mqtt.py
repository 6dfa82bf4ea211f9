"""The bridge's broker connection (aiomqtt, MQTT 5): the :class:`Publisher` the bridge
core sends through, and the subscriber that feeds it.

Events and hole cards come through shared subscriptions (``$share/bridge/...``) so several
bridges split a floor between them; status, state and replies are plain subscriptions
(a shared subscription gets no retained messages, and a reply must reach the bridge that
waits for it). ``host/status`` is retained: ``online`` on connect, ``offline`` on a clean
stop, and ``offline`` from the Will when the bridge dies. The link reconnects with backoff.
aiomqtt's errors become :class:`~host_bridge.ingest.PublishFailed` here.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from types import TracebackType
from typing import Self

import aiomqtt

from controller.sync.messages import HostStatusMessage
from controller.sync.topics import PREFIX, site_wildcards
from host_bridge.bridge import Bridge
from host_bridge.ingest import PublishFailed

log = logging.getLogger(__name__)

SHARED = ("event", "secure/cards")
BACKOFF_FIRST, BACKOFF_CAP = 0.1, 5.0
BATCH_MAX = 500  # messages per ingest transaction
LINGER_S = 0.005  # how long a batch may wait for more messages before it is stored
PENDING_CALLS = 4 * BATCH_MAX  # aiomqtt warns above this many publishes in flight
# Small packets go out at once: without it, Nagle's algorithm and the broker's delayed
# ACKs hold an ack back by up to 40 ms (as in controller.sync.link).
_NO_DELAY = ((socket.IPPROTO_TCP, socket.TCP_NODELAY, 1),)


class MqttLink:
    """One broker connection for one bridge; an async context manager."""

    def __init__(self, bridge: Bridge, *, share_group: str = "bridge") -> None:
        self._bridge = bridge
        self._settings = bridge.settings
        self._group = share_group
        self._client: aiomqtt.Client | None = None
        self._task: asyncio.Task[None] | None = None
        self._host_seq = 0
        self.connected = asyncio.Event()
        self.connects = 0
        self.last_error: str | None = None

    @property
    def host_status_topic(self) -> str:
        """``pitboss/v1/{site}/host/status``."""
        return f"{PREFIX}/{self._settings.site}/host/status"

    def _host_status(self, online: bool) -> bytes:
        self._host_seq += 1
        return HostStatusMessage(boot=self._bridge.host_boot, seq=self._host_seq,
                                 ts=self._bridge.clock(), online=online).to_wire()

    def subscriptions(self) -> list[tuple[str, int]]:
        """Topic filters and QoS: shared for events and hole cards, plain for the rest."""
        out = []
        for name, topic in site_wildcards(self._settings.site).items():
            out.append((f"$share/{self._group}/{topic}" if name in SHARED else topic, 1))
        return out

    async def publish(self, topic: str, payload: bytes, qos: int, retain: bool) -> None:
        """Publish through the current connection; :class:`PublishFailed` if there is none."""
        client = self._client
        if client is None or not self.connected.is_set():
            raise PublishFailed(f"not connected to the broker at {self._settings.mqtt_host}:"
                                f"{self._settings.mqtt_port} ({self.last_error or 'connecting'})")
        try:
            await client.publish(topic, payload, qos=qos, retain=retain)
        except aiomqtt.MqttError as exc:
            raise PublishFailed(f"the broker connection failed: {exc}") from None

    async def __aenter__(self) -> Self:
        self._bridge.attach(self)
        self._task = asyncio.create_task(self._keep_connected(), name="bridge-mqtt")
        return self

    async def __aexit__(self, et: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)

    async def _keep_connected(self) -> None:
        delay = BACKOFF_FIRST
        s = self._settings
        while True:
            will = aiomqtt.Will(self.host_status_topic, self._host_status(False), qos=1,
                                retain=True)
            try:
                async with aiomqtt.Client(s.mqtt_host, s.mqtt_port,
                                          identifier=f"pitboss-{s.bridge_id}",
                                          protocol=aiomqtt.ProtocolVersion.V5, will=will,
                                          clean_start=True,
                                          socket_options=_NO_DELAY) as client:
                    self.connects += 1
                    client.pending_calls_threshold = PENDING_CALLS  # a batch's acks at once
                    delay = BACKOFF_FIRST
                    await self._session(client)
            except aiomqtt.MqttError as exc:
                self.last_error = f"broker unreachable or lost: {exc}"
            except OSError as exc:
                self.last_error = f"network error: {exc}"
            finally:
                self.connected.clear()
                self._client = None
            log.warning("%s; reconnecting in %.2f s", self.last_error, delay)
            await asyncio.sleep(delay)
            delay = min(delay * 2, BACKOFF_CAP)

    async def _session(self, client: aiomqtt.Client) -> None:
        await client.subscribe(self.subscriptions())
        self._client = client
        self.connected.set()
        # online, retained: tables that see it resend what the bridge has not acked
        await client.publish(self.host_status_topic, self._host_status(True), qos=1,
                             retain=True)
        log.info("bridge %s connected to %s:%d", self._settings.bridge_id,
                 self._settings.mqtt_host, self._settings.mqtt_port)
        inbound: asyncio.Queue[tuple[str, bytes]] = asyncio.Queue()
        try:
            async with asyncio.TaskGroup() as tg:
                tg.create_task(self._read(client, inbound), name="bridge-mqtt-read")
                tg.create_task(self._ingest(inbound), name="bridge-mqtt-ingest")
        except BaseExceptionGroup as group:
            raise _first_leaf(group) from None
        except asyncio.CancelledError:  # a clean stop: say so rather than leave it to the Will
            self.connected.clear()
            with contextlib.suppress(aiomqtt.MqttError, TimeoutError):
                await client.publish(self.host_status_topic, self._host_status(False), qos=1,
                                     retain=True, timeout=1.0)
            raise

    @staticmethod
    async def _read(client: aiomqtt.Client, inbound: asyncio.Queue[tuple[str, bytes]]) -> None:
        async for message in client.messages:
            if isinstance(message.payload, bytes | bytearray):
                inbound.put_nowait((message.topic.value, bytes(message.payload)))

    async def _ingest(self, inbound: asyncio.Queue[tuple[str, bytes]]) -> None:
        """Whatever has arrived goes in as one batch: one commit, one ack per table. A
        batch's acks go out while the next batch is stored (in order: one send at a time)."""
        sending: asyncio.Task[None] | None = None
        try:
            while True:
                batch = [await inbound.get()]
                if inbound.qsize() < BATCH_MAX:
                    await asyncio.sleep(LINGER_S)  # let a batch form: a commit is an fsync
                while len(batch) < BATCH_MAX and not inbound.empty():
                    batch.append(inbound.get_nowait())
                result = await self._bridge.store_many(batch)
                if sending is not None:
                    await sending
                sending = asyncio.create_task(self._bridge.send(result))
        finally:
            if sending is not None:
                sending.cancel()


def _first_leaf(group: BaseExceptionGroup[BaseException]) -> BaseException:
    first = group.exceptions[0]
    return _first_leaf(first) if isinstance(first, BaseExceptionGroup) else first
