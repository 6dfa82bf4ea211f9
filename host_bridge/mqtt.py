"""The bridge's broker connection (aiomqtt, MQTT 5): the :class:`Publisher` the bridge
core sends through, and the subscriber that feeds it.

Events and hole cards come through shared subscriptions (``$share/bridge/...``) so several
bridges split a floor between them; status, state and replies are plain subscriptions
(a shared subscription gets no retained messages, and a reply must reach the bridge that
waits for it). A broker that does not offer MQTT 5 (the demo's embedded amqtt speaks 3.1.1
only) is found by a bare MQTT 5 CONNECT before the first session, as the tables do
(:mod:`controller.sync.link`); the bridge then speaks 3.1.1 with plain subscriptions for
everything (one bridge per floor), and says so once at WARNING.

``host/status`` is retained: ``online`` on connect, ``offline`` on a clean
stop, and ``offline`` from the Will when the bridge dies. The link reconnects with backoff.
aiomqtt's errors become :class:`~host_bridge.ingest.PublishFailed` here.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self

import aiomqtt

from controller.sync.brokers import NO_DELAY, UNSUPPORTED_PROTOCOL, offers_mqtt5
from controller.sync.messages import HostStatusMessage
from controller.sync.tasks import OutageReport
from controller.sync.topics import PREFIX, site_wildcards
from host_bridge.bridge import Bridge
from host_bridge.ingest import IngestResult, Outbound, Parsed, PublishFailed

if TYPE_CHECKING:
    from host_bridge.settings import BridgeSettings

log = logging.getLogger(__name__)

SHARED = ("event", "secure/cards")
BACKOFF_FIRST, BACKOFF_CAP = 0.1, 5.0
PROBE_TIMEOUT_S = 5.0
BATCH_MAX = 2000  # messages per ingest transaction (a bigger batch: fewer acks per event)
LINGER_S = 0.02  # how long a batch may wait for more messages before it is stored
# A table's acks go out at most this often (the newest one; resend requests at once): the
# table keeps every event until it is acked, so a later ack loses nothing, and at a live
# table's pace an ack per batch would be one more publish (and PUBACK) per event.
ACK_EVERY_S = 0.5
PENDING_CALLS = 4 * BATCH_MAX

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
        self._acks_due: dict[str, Outbound] = {}  # ack topic -> the newest ack not yet sent
        self._v5 = True
        self.connects = 0
        self.last_error: str | None = None
        self._outage = OutageReport(log)

    @property
    def mqtt_version(self) -> str:
        """``"5"``, or ``"3.1.1"`` once the broker refused MQTT 5."""
        return "5" if self._v5 else "3.1.1"

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
            shared = self._v5 and name in SHARED
            out.append((f"$share/{self._group}/{topic}" if shared else topic, 1))
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
        settle_gc()
        self._bridge.attach(self)
        self._task = asyncio.create_task(self._keep_connected(), name="bridge-mqtt")
        return self

    async def __aexit__(self, et: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)

    def _client_for_session(self) -> aiomqtt.Client:
        s = self._settings
        will = aiomqtt.Will(self.host_status_topic, self._host_status(False), qos=1,
                            retain=True)
        if self._v5:
            return aiomqtt.Client(s.mqtt_host, s.mqtt_port, identifier=f"pitboss-{s.bridge_id}",
                                  protocol=aiomqtt.ProtocolVersion.V5, will=will,
                                  clean_start=True, socket_options=NO_DELAY,
                                  **_credentials(s))
        return aiomqtt.Client(s.mqtt_host, s.mqtt_port, identifier=f"pitboss-{s.bridge_id}",
                              protocol=aiomqtt.ProtocolVersion.V311, will=will,
                              clean_session=True, socket_options=NO_DELAY, **_credentials(s))

    async def _offers_mqtt5(self) -> bool:
        s = self._settings
        return await offers_mqtt5(s.mqtt_host, s.mqtt_port, f"pitboss-{s.bridge_id}",
                                  timeout=PROBE_TIMEOUT_S, **_credentials(s))

    def _fall_back(self, why: object) -> None:
        if not self._v5:
            return
        self._v5 = False  # once per link: logged once
        log.warning("the broker at %s:%d does not offer MQTT 5 (%s): the bridge uses MQTT "
                    "3.1.1 with plain subscriptions, so it must be the floor's only bridge",
                    self._settings.mqtt_host, self._settings.mqtt_port, why)

    async def _keep_connected(self) -> None:
        delay = BACKOFF_FIRST
        probed = False
        while True:
            try:
                if not probed:  # once per link, before its first session
                    if not await self._offers_mqtt5():
                        self._fall_back("unacceptable protocol version")
                    probed = True
                async with self._client_for_session() as client:
                    self.connects += 1
                    client.pending_calls_threshold = PENDING_CALLS  # a batch's acks at once
                    delay = BACKOFF_FIRST
                    self._outage.up()
                    await self._session(client)
            except aiomqtt.MqttCodeError as exc:
                if self._v5 and exc.rc in UNSUPPORTED_PROTOCOL:
                    self._fall_back(exc)
                    continue
                self.last_error = f"broker refused or dropped us: {exc}"
            except aiomqtt.MqttError as exc:
                self.last_error = f"broker unreachable or lost: {exc}"
            except OSError as exc:
                self.last_error = f"network error: {exc}"
            finally:
                self.connected.clear()
                self._client = None
            self._outage.down(self.last_error, delay)
            await asyncio.sleep(delay)
            delay = min(delay * 2, BACKOFF_CAP)

    async def _session(self, client: aiomqtt.Client) -> None:
        await client.subscribe(self.subscriptions())
        self._client = client
        self.connected.set()
        # online, retained: tables that see it resend what the bridge has not acked
        await client.publish(self.host_status_topic, self._host_status(True), qos=1,
                             retain=True)
        log.info("bridge %s connected to %s:%d (MQTT %s)", self._settings.bridge_id,
                 self._settings.mqtt_host, self._settings.mqtt_port, self.mqtt_version)
        inbound: asyncio.Queue[Parsed] = asyncio.Queue()
        try:
            async with asyncio.TaskGroup() as tg:
                tg.create_task(self._read(client, inbound), name="bridge-mqtt-read")
                tg.create_task(self._ingest(inbound), name="bridge-mqtt-ingest")
                tg.create_task(self._send_acks(), name="bridge-mqtt-acks")
        except BaseExceptionGroup as group:
            raise _first_leaf(group) from None
        except asyncio.CancelledError:  # a clean stop: say so rather than leave it to the Will
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.flush_acks(), 1.0)
            self.connected.clear()
            with contextlib.suppress(aiomqtt.MqttError, TimeoutError):
                await client.publish(self.host_status_topic, self._host_status(False), qos=1,
                                     retain=True, timeout=1.0)
            raise

    async def _read(self, client: aiomqtt.Client, inbound: asyncio.Queue[Parsed]) -> None:
        """Admit each message as it arrives (the live feed gets it now), then queue it
        for the store."""
        admit = self._bridge.admit
        async for message in client.messages:
            if isinstance(message.payload, bytes | bytearray):
                inbound.put_nowait(admit(message.topic.value, bytes(message.payload)))

    async def _ingest(self, inbound: asyncio.Queue[Parsed]) -> None:
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
                result = await self._bridge.store_admitted(batch)
                urgent = self.hold_acks(result)
                if sending is not None:
                    await sending
                sending = asyncio.create_task(self._bridge.send(urgent))
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


def _credentials(settings: BridgeSettings) -> dict[str, Any]:
    """The bridge's user name, password and TLS parameters on a floor broker (deploy/)."""
    password = settings.mqtt_password.get_secret_value() if settings.mqtt_password else None
    out: dict[str, Any] = {"username": settings.mqtt_username, "password": password}
    if settings.mqtt_tls_ca is not None:
        out["tls_params"] = aiomqtt.TLSParameters(ca_certs=str(settings.mqtt_tls_ca))
    return out


def _first_leaf(group: BaseExceptionGroup[BaseException]) -> BaseException:
    first = group.exceptions[0]
    return _first_leaf(first) if isinstance(first, BaseExceptionGroup) else first
