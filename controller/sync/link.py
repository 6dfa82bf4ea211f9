"""The table's MQTT link to the host (DESIGN.md, Wire format), on aiomqtt.

One named task keeps a connection up: MQTT 5 where the broker offers it (3.1.1 otherwise,
decided once per link by a bare probe CONNECT and said once at WARNING),
a persistent session (``clean_start`` false with a session expiry, or ``clean_session``
false on 3.1.1), and a Will that sets ``status`` to ``offline``. On every connect it
publishes ``online`` and the public ``state`` (both retained), subscribes to its ``cmd``,
its ``host/ack`` and ``host/status``, and sends everything the host has not acknowledged.
Any error ends the session; the link reconnects after a backoff that doubles up to a cap.
aiomqtt's errors stop here: callers see :class:`~controller.sync.errors.LinkDown` only in
the log and in :attr:`TableLink.last_error`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Self

import aiomqtt
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from controller.sync.brokers import NO_DELAY, REFUSED_LOGIN, UNSUPPORTED_PROTOCOL, offers_mqtt5
from controller.sync.commands import CommandDesk
from controller.sync.errors import LinkDown, MessageRejected
from controller.sync.journal import Parcel
from controller.sync.messages import (
    AckMessage,
    HostStatusMessage,
    StateMessage,
    StatusMessage,
    parse_host_ack,
    parse_message,
)
from controller.sync.outbox import Outbox
from controller.sync.tasks import OutageReport, stop
from controller.sync.topics import Topics

log = logging.getLogger(__name__)



@dataclass(frozen=True, slots=True)
class LinkSettings:
    """Where the broker is and how the link behaves."""

    site: str
    host: str = "127.0.0.1"
    port: int = 1883
    keepalive: int = 15
    session_expiry: int = 24 * 3600  # seconds the broker keeps our session while we are away
    backoff_first: float = 0.05
    backoff_cap: float = 2.0
    window: int = 64  # QoS 1 publishes in flight at once
    timeout: float = 10.0
    username: str | None = None  # the table id on a floor broker with an ACL (deploy/)
    password: str | None = None
    tls_ca: str | None = None  # a CA file: connect with TLS, verifying the broker against it
    tls_cert: str | None = None  # a client certificate and key, where the broker asks
    tls_key: str | None = None

    def credentials(self) -> dict[str, Any]:
        """The user name, password and TLS parameters for ``aiomqtt.Client``."""
        out: dict[str, Any] = {"username": self.username, "password": self.password}
        if self.tls_ca is not None:
            out["tls_params"] = aiomqtt.TLSParameters(ca_certs=self.tls_ca,
                                                      certfile=self.tls_cert,
                                                      keyfile=self.tls_key)
        return out


def _as_bytes(payload: object) -> bytes:
    if isinstance(payload, bytes | bytearray):
        return bytes(payload)
    if isinstance(payload, str):
        return payload.encode()
    return b""


class TableLink:
    """Keeps the table connected to the host; an async context manager."""

    def __init__(self, settings: LinkSettings, outbox: Outbox, desk: CommandDesk, *,
                 connect: Callable[[], aiomqtt.Client] | None = None) -> None:
        self.settings = settings
        self._connect = connect  # makes the client (tests inject a fake broker); default aiomqtt
        self.topics = Topics(settings.site, outbox.table)
        self._outbox = outbox
        self._desk = desk
        self._v5 = True
        self._runner: asyncio.Task[None] | None = None
        self.connected = asyncio.Event()
        self.connects = 0
        self.rejected = 0  # inbound payloads that were not valid messages
        self.last_error: LinkDown | None = None
        self._outage = OutageReport(log)

    async def __aenter__(self) -> Self:
        self._runner = asyncio.create_task(self._keep_connected(),
                                           name=f"table-link:{self._outbox.table}")
        return self

    async def __aexit__(self, et: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await stop(self._runner)

    @property
    def mqtt_version(self) -> str:
        """The protocol the link speaks: ``"5"``, or ``"3.1.1"`` once a broker refused 5."""
        return "5" if self._v5 else "3.1.1"

    # ------------------------------------------------------------------ connection
    def _status(self, status: str) -> bytes:
        o = self._outbox
        return StatusMessage(table=o.table, boot=o.boot, seq=o.last_seq, ts=time.time(),
                             status="online" if status == "online" else "offline").to_wire()

    def _client(self) -> aiomqtt.Client:
        s = self.settings
        will = aiomqtt.Will(self.topics.status, self._status("offline"), qos=1, retain=True)
        ident = f"pitboss-{s.site}-{self._outbox.table}"
        if self._v5:
            props = Properties(PacketTypes.CONNECT)  # type: ignore[no-untyped-call]
            props.SessionExpiryInterval = s.session_expiry
            return aiomqtt.Client(s.host, s.port, identifier=ident, will=will,
                                  protocol=aiomqtt.ProtocolVersion.V5, clean_start=False,
                                  properties=props, keepalive=s.keepalive, timeout=s.timeout,
                                  socket_options=NO_DELAY, **s.credentials())
        return aiomqtt.Client(s.host, s.port, identifier=ident, will=will,
                              protocol=aiomqtt.ProtocolVersion.V311, clean_session=False,
                              keepalive=s.keepalive, timeout=s.timeout, socket_options=NO_DELAY,
                              **s.credentials())

    async def _offers_mqtt5(self) -> bool:
        s = self.settings
        return await offers_mqtt5(s.host, s.port, f"pitboss-{s.site}-{self._outbox.table}",
                                  timeout=s.timeout, keepalive=s.keepalive, **s.credentials())

    def _fall_back(self, why: object) -> None:
        # once per link: from now on 3.1.1, clean_session false, no session expiry
        log.warning("the broker at %s:%d refused MQTT 5 (%s): using MQTT 3.1.1 with a "
                    "persistent session", self.settings.host, self.settings.port, why)
        self._v5 = False

    async def _keep_connected(self) -> None:
        delay = self.settings.backoff_first
        probed = self._connect is not None  # an injected client decides for itself
        while True:
            try:
                if not probed:  # once per link, before its first session
                    if not await self._offers_mqtt5():
                        self._fall_back("unacceptable protocol version")
                    probed = True
                async with (self._connect or self._client)() as client:
                    self.connects += 1
                    client.pending_calls_threshold = 4 * self.settings.window + 16
                    delay = self.settings.backoff_first
                    self._outage.up()
                    log.info("link up to %s:%d (MQTT %s), session %d", self.settings.host,
                             self.settings.port, self.mqtt_version, self.connects)
                    await self._session(client)
            except aiomqtt.MqttCodeError as exc:
                if self._v5 and exc.rc in UNSUPPORTED_PROTOCOL:
                    self._fall_back(exc)
                    continue
                hint = (": check the table's MQTT user name and password (--mqtt-user, "
                        "--mqtt-password-file) and the broker's ACL" if exc.rc in REFUSED_LOGIN
                        else "")
                self.last_error = LinkDown(f"broker refused or dropped us: {exc}{hint}")
            except aiomqtt.MqttError as exc:
                self.last_error = LinkDown(f"broker unreachable or lost: {exc}")
            except OSError as exc:
                self.last_error = LinkDown(f"network error: {exc}")
            except Exception as exc:  # any other failure: log it, start a fresh session
                log.exception("link session failed")
                self.last_error = LinkDown(f"session failed: {exc!r}")
            finally:
                self.connected.clear()
            self._outage.down(self.last_error, delay)
            await asyncio.sleep(delay)
            delay = min(delay * 2, self.settings.backoff_cap)

    async def _session(self, client: aiomqtt.Client) -> None:
        t = self.topics
        await client.subscribe([(t.cmd, 1), (t.ack, 1), (t.host_status, 1)])
        await client.publish(t.status, self._status("online"), qos=1, retain=True)
        self.connected.set()
        try:
            async with asyncio.TaskGroup() as tg:
                tg.create_task(self._inbound(client), name=f"link-inbound:{t.table}")
                tg.create_task(self._outbound(client, tg), name=f"link-outbound:{t.table}")
        except BaseExceptionGroup as group:
            raise _first_leaf(group) from None
        except asyncio.CancelledError:  # a clean stop: say so before the Will would
            with contextlib.suppress(aiomqtt.MqttError, TimeoutError):
                await client.publish(t.status, self._status("offline"), qos=1, retain=True,
                                     timeout=1.0)
            raise

    # ------------------------------------------------------------------ inbound
    async def _inbound(self, client: aiomqtt.Client) -> None:
        t = self.topics
        async for message in client.messages:
            payload = _as_bytes(message.payload)
            topic = message.topic.value
            if topic == t.cmd:
                reply = await self._desk.handle(payload)
                await client.publish(t.reply, reply, qos=1)
                continue
            try:
                if topic == t.ack:
                    self._on_host_ack(payload)
                elif topic == t.host_status:
                    host = parse_message(HostStatusMessage, payload)
                    # resend from the last ack when the host comes online (Sparkplug-style
                    # rebirth); the retained copy at subscribe time adds nothing, since a
                    # new session resends everything unacknowledged anyway
                    if host.online and not message.retain:
                        self._outbox.rewind()
            except MessageRejected as exc:
                self.rejected += 1
                log.warning("ignored a payload on %s: %s", topic, exc.reason)

    def _on_host_ack(self, payload: bytes) -> None:
        ack = parse_host_ack(payload)
        if ack.table != self._outbox.table:
            raise MessageRejected(f"ack for table {ack.table}")
        if isinstance(ack, AckMessage):
            if not self._outbox.acknowledge(ack.acked):
                raise MessageRejected(f"ack of seq {ack.acked}, beyond the last event "
                                      f"{self._outbox.last_seq}")
        elif not self._outbox.request_resend(ack.from_seq, ack.to_seq):
            raise MessageRejected(f"resend of {ack.from_seq}..{ack.to_seq}: no such events")

    # ------------------------------------------------------------------ outbound
    async def _outbound(self, client: aiomqtt.Client, tg: asyncio.TaskGroup) -> None:
        t, outbox = self.topics, self._outbox
        inflight: deque[asyncio.Task[None]] = deque()
        window = self.settings.window

        async def send(parcels: list[Parcel]) -> None:
            for parcel in parcels:
                while inflight and inflight[0].done():
                    inflight.popleft().result()
                if len(inflight) >= window:
                    await inflight.popleft()
                if parcel.secure is not None:  # first, so the public event implies it
                    inflight.append(tg.create_task(
                        client.publish(t.secure_cards, parcel.secure, qos=1),
                        name=f"publish-secure:{parcel.seq}"))
                inflight.append(tg.create_task(client.publish(t.event, parcel.public, qos=1),
                                               name=f"publish:{parcel.seq}"))

        outbox.take_rewind()
        cursor = outbox.acked  # a new session resends everything unacknowledged
        state_sent = -1
        while True:
            if outbox.take_rewind():
                cursor = min(cursor, outbox.acked)
            resend = outbox.take_resend()
            if resend is not None:
                log.info("resending %d..%d at the host's request", *resend)
                await send(await outbox.range(*resend))
            elif outbox.last_seq > cursor:
                batch = await outbox.next_batch(cursor)
                await send(batch)
                cursor = batch[-1].seq
            elif state_sent != outbox.state_version:
                state_sent = outbox.state_version
                o = outbox
                await client.publish(t.state, StateMessage(
                    table=o.table, boot=o.boot, seq=o.last_seq, ts=time.time(),
                    state=o.state).to_wire(), qos=1, retain=True)
            else:
                await outbox.wait_for_news()


def _first_leaf(group: BaseExceptionGroup[BaseException]) -> BaseException:
    """The error that ended a session: the broker's if there was one (the rest, such as a
    task refused by a group already shutting down, only followed from it)."""
    broker = group.subgroup(aiomqtt.MqttError)
    if broker is not None:
        group = broker
    first = group.exceptions[0]
    return _first_leaf(first) if isinstance(first, BaseExceptionGroup) else first
