"""The bridge's broker connection (aiomqtt): the :class:`Publisher` the bridge core sends
through, and the subscriber that feeds it.

The connection is the sync room's session loop
(:class:`~controller.sync.session.BrokerSession`), as the tables use it: MQTT 5 where the
broker offers it, found by a bare probe CONNECT before the first connection; a broker that
does not (the demo's embedded amqtt speaks 3.1.1 only) gets 3.1.1 with plain subscriptions
for everything (one bridge per floor then), said once at WARNING. The bridge's session is
clean; the loop reconnects with backoff and reports an outage once.

Under MQTT 5, events and hole cards come through shared subscriptions
(``$share/bridge/...``) so several bridges split a floor between them; status, state and
replies are plain subscriptions (a shared subscription gets no retained messages, and a
reply must reach the bridge that waits for it).

``host/status`` is retained: ``online`` on connect (after subscribing), ``offline`` on a
clean stop (after the acks waiting went out), and ``offline`` from the Will when the
bridge dies. aiomqtt's errors become :class:`~host_bridge.ingest.PublishFailed` here.

The connection is a :class:`~host_bridge.mqtt_fast.FastClient` (aiomqtt with a receive path
that reads and acknowledges a floor's events in batches, issue 20); the tables keep plain
aiomqtt.
"""

from __future__ import annotations

import asyncio
import gc
import logging
from types import TracebackType
from typing import TYPE_CHECKING, Self

import aiomqtt

from controller.sync.errors import LinkDown
from controller.sync.messages import HostStatusMessage, ReplyMessage
from controller.sync.session import BrokerSession, Presence, SessionSettings
from controller.sync.topics import PREFIX, site_wildcards
from host_bridge.bridge import Bridge
from host_bridge.ingest import IngestResult, Outbound, Parsed, PublishFailed
from host_bridge.mqtt_fast import FastClient

if TYPE_CHECKING:
    from host_bridge.settings import BridgeSettings

log = logging.getLogger(__name__)

SHARED = ("event", "secure/cards")
BACKOFF_FIRST, BACKOFF_CAP = 0.1, 5.0
PROBE_TIMEOUT_S = 5.0
BATCH_MAX = 2000  # messages per ingest transaction (a bigger batch: fewer acks per event)
# A batch's store has a fixed cost (~1.4 ms of CPU: its reads, its writes' statements, the
# commit's fsync), so batches are made as big as the floor can wait for. A message that
# comes after a quiet spell waits LINGER_S for company; while messages keep coming, a
# batch starts at most every COMMIT_EVERY_S (at 1,000 events/s: ~100 events a commit,
# against ~25 with 20 ms). A table's command reply never waits (the director's request
# waits for it): it is stored at once with what has come so far. The live feed has every
# event before the store (``Bridge.admit``), and acks go out every ACK_EVERY_S anyway.
LINGER_S = 0.02
COMMIT_EVERY_S = 0.1
# A table's acks go out at most this often (the newest one; resend requests at once): the
# table keeps every event until it is acked, so a later ack loses nothing, and at a live
# table's pace an ack per batch would be one more publish (and PUBACK) per event.
ACK_EVERY_S = 0.5
PENDING_CALLS = 4 * BATCH_MAX  # a batch's acks at once
FALLBACK_NOTE = ("it does not offer MQTT 5, so the bridge uses MQTT 3.1.1 with plain "
                 "subscriptions and must be the floor's only bridge")
LOGIN_HINT = ": check the bridge's mqtt_username and mqtt_password and the broker's ACL"

# The bridge's garbage collector: what exists once the bridge is up (modules, models, the
# ORM's mappers) is frozen out of the collections, and the young generation is collected
# less often. A batch makes many short-lived objects; with the defaults the full
# collections over the long-lived heap took ~15% of the bridge's CPU in the benchmark and
# stopped the event loop for up to 0.3 s at a time.
GC_THRESHOLDS = (10_000, 20, 100)
_gc_settled = False


def settle_gc() -> None:
    """Tune the process's garbage collector for a long-running bridge (once)."""
    global _gc_settled
    if _gc_settled:
        return
    _gc_settled = True
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def session_settings(settings: BridgeSettings) -> SessionSettings:
    """The session loop's settings for a bridge: a clean session as ``pitboss-{bridge_id}``,
    with its user name, password and TLS on a floor broker (deploy/)."""
    password = settings.mqtt_password.get_secret_value() if settings.mqtt_password else None
    return SessionSettings(
        host=settings.mqtt_host, port=settings.mqtt_port,
        client_id=f"pitboss-{settings.bridge_id}", persistent=False,
        probe_timeout=PROBE_TIMEOUT_S, backoff_first=BACKOFF_FIRST, backoff_cap=BACKOFF_CAP,
        pending_calls=PENDING_CALLS, username=settings.mqtt_username, password=password,
        tls_ca=None if settings.mqtt_tls_ca is None else str(settings.mqtt_tls_ca))


class MqttLink:
    """One broker connection for one bridge; an async context manager."""

    def __init__(self, bridge: Bridge, *, share_group: str = "bridge") -> None:
        self._bridge = bridge
        self._settings = bridge.settings
        self._group = share_group
        self._host_seq = 0
        self._acks_due: dict[str, Outbound] = {}  # ack topic -> the newest ack not yet sent
        self._hurry: asyncio.Future[None] | None = None  # set: store the batch now
        self.session = BrokerSession(
            session_settings(self._settings), self._serve,
            presence=Presence(self.host_status_topic, self._host_status),
            subscriptions=self.subscriptions, logger=log, name="bridge-mqtt",
            fallback_note=FALLBACK_NOTE, login_hint=LOGIN_HINT, farewell=self.flush_acks,
            client_class=FastClient)

    @property
    def connected(self) -> asyncio.Event:
        """Set while the bridge is connected (subscribed, ``online`` published)."""
        return self.session.connected

    @property
    def connects(self) -> int:
        """Connections made so far."""
        return self.session.connects

    @property
    def last_error(self) -> LinkDown | None:
        """Why the last connection failed."""
        return self.session.last_error

    @property
    def mqtt_version(self) -> str:
        """``"5"``, or ``"3.1.1"`` once the broker refused MQTT 5."""
        return self.session.mqtt_version

    @property
    def _client(self) -> aiomqtt.Client | None:
        return self.session.client

    @property
    def host_status_topic(self) -> str:
        """``pitboss/v1/{site}/host/status``."""
        return f"{PREFIX}/{self._settings.site}/host/status"

    def _host_status(self, online: bool) -> bytes:
        self._host_seq += 1
        return HostStatusMessage(boot=self._bridge.host_boot, seq=self._host_seq,
                                 ts=self._bridge.clock(), online=online).to_wire()

    def subscriptions(self) -> list[tuple[str, int]]:
        """Topic filters and QoS: shared for events and hole cards, plain for the rest (all
        plain on MQTT 3.1.1)."""
        out = []
        for name, topic in site_wildcards(self._settings.site).items():
            shared = self.session.mqtt5 and name in SHARED
            out.append((f"$share/{self._group}/{topic}" if shared else topic, 1))
        return out

    async def publish(self, topic: str, payload: bytes, qos: int, retain: bool) -> None:
        """Publish through the current connection; :class:`PublishFailed` if there is none."""
        client = self.session.client
        if client is None or not self.connected.is_set():
            raise PublishFailed(f"not connected to the broker at {self._settings.mqtt_host}:"
                                f"{self._settings.mqtt_port} ({self.last_error or 'connecting'})")
        try:
            await client.publish(topic, payload, qos=qos, retain=retain)
        except aiomqtt.MqttError as exc:
            raise PublishFailed(f"the broker connection failed: {exc}") from None

    async def __aenter__(self) -> Self:
        settle_gc()
        self._bridge.attach(self)
        self._bridge.broker_down()  # not connected yet: tables unknown until heard
        await self.session.__aenter__()
        return self

    async def __aexit__(self, et: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.session.__aexit__(et, exc, tb)

    async def _serve(self, client: aiomqtt.Client) -> None:
        inbound: asyncio.Queue[Parsed] = asyncio.Queue()
        self._bridge.broker_up()
        stopping = False  # cancelled: the session's clean stop (a lost connection raises)
        try:
            async with asyncio.TaskGroup() as tg:
                tg.create_task(self._read(client, inbound), name="bridge-mqtt-read")
                tg.create_task(self._ingest(inbound), name="bridge-mqtt-ingest")
                tg.create_task(self._send_acks(), name="bridge-mqtt-acks")
        except asyncio.CancelledError:
            stopping = True
            raise
        finally:
            self._bridge.broker_down(stopping=stopping)

    async def _read(self, client: aiomqtt.Client, inbound: asyncio.Queue[Parsed]) -> None:
        """Admit each message as it arrives (the live feed gets it now), then queue it
        for the store."""
        admit = self._bridge.admit
        async for message in client.messages:
            if isinstance(message.payload, bytes | bytearray):
                parsed = admit(message.topic.value, bytes(message.payload))
                inbound.put_nowait(parsed)
                if isinstance(parsed.message, ReplyMessage) or inbound.qsize() >= BATCH_MAX:
                    self._store_now()

    def _store_now(self) -> None:
        if self._hurry is not None and not self._hurry.done():
            self._hurry.set_result(None)

    async def _ingest(self, inbound: asyncio.Queue[Parsed]) -> None:
        """Whatever has arrived goes in as one batch: one commit, one ack per table (its
        pace: see :data:`COMMIT_EVERY_S`). A batch's acks go out while the next batch is
        stored (in order: one send at a time). Stopped (a clean stop, or the connection
        lost), it stores what it has taken in first: the acks wait for the farewell or
        the next connection."""
        loop = asyncio.get_running_loop()
        sending: asyncio.Task[None] | None = None
        storing: asyncio.Future[IngestResult] | None = None
        started = -COMMIT_EVERY_S
        batch: list[Parsed] = []  # taken from the queue, not yet handed to the store
        try:
            while True:
                batch = [await inbound.get()]
                now = loop.time()
                wait = max(LINGER_S, started + COMMIT_EVERY_S - now)
                if inbound.qsize() < BATCH_MAX and not isinstance(batch[0].message,
                                                                  ReplyMessage):
                    self._hurry = loop.create_future()
                    timer = loop.call_later(wait, self._store_now)
                    try:
                        await self._hurry
                    finally:
                        timer.cancel()
                        self._hurry = None
                started = loop.time()
                while len(batch) < BATCH_MAX and not inbound.empty():
                    batch.append(inbound.get_nowait())
                storing = asyncio.ensure_future(self._bridge.store_admitted(batch))
                batch = []
                result = await asyncio.shield(storing)
                storing = None
                urgent = self.hold_acks(result)
                if sending is not None:
                    await sending
                sending = asyncio.create_task(self._bridge.send(urgent))
        except asyncio.CancelledError:
            if storing is not None:  # a batch under way finishes, with its acks
                self.hold_acks(await storing)
            while not inbound.empty():
                batch.append(inbound.get_nowait())
            if batch:
                self.hold_acks(await self._bridge.store_admitted(batch))
            raise
        finally:
            if sending is not None:
                sending.cancel()

    def hold_acks(self, result: IngestResult) -> IngestResult:
        """Keep a stored batch's acks for the next :meth:`flush_acks` (each table's newest
        replaces the one waiting); what must go now (resend requests) is returned."""
        urgent = []
        for out in result.outbound:
            if out.coalesce:
                self._acks_due[out.topic] = out  # newer than any ack waiting there
            else:
                urgent.append(out)
        return IngestResult(outbound=urgent)

    async def _send_acks(self) -> None:
        """Every :data:`ACK_EVERY_S`, each table's newest ack (one publish per table)."""
        while True:
            await asyncio.sleep(ACK_EVERY_S)
            await self.flush_acks()

    async def flush_acks(self) -> None:
        """Publish the acks waiting, one per table."""
        due, self._acks_due = self._acks_due, {}
        if due:
            await self._bridge.send(IngestResult(outbound=list(due.values())))

