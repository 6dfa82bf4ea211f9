"""The table's MQTT link to the host (DESIGN.md, Wire format), on aiomqtt.

The connection is the sync room's one session loop
(:class:`~controller.sync.session.BrokerSession`): MQTT 5 where the broker offers it
(3.1.1 otherwise, decided once per link by a bare probe CONNECT and said once at WARNING),
a persistent session (``clean_start`` false with a session expiry, or ``clean_session``
false on 3.1.1), and a Will that sets ``status`` to ``offline``. On every connect the link
subscribes to its ``cmd``, its ``host/ack`` and ``host/status``, publishes ``online`` and
the public ``state`` (both retained), and sends everything the host has not acknowledged.
Any error ends the connection; the loop reconnects after a backoff that doubles up to a
cap. aiomqtt's errors stop there: callers see :class:`~controller.sync.errors.LinkDown`
only in the log and in :attr:`TableLink.last_error`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Self

import aiomqtt

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
from controller.sync.session import BrokerSession, Presence, SessionSettings
from controller.sync.topics import Topics

log = logging.getLogger(__name__)

FALLBACK_NOTE = "using MQTT 3.1.1 with a persistent session"
LOGIN_HINT = (": check the table's MQTT user name and password (--mqtt-user, "
              "--mqtt-password-file) and the broker's ACL")


def start_in(tg: asyncio.TaskGroup, coro: Coroutine[Any, Any, None],
             name: str) -> asyncio.Task[None]:
    """``coro`` as a task of the session's group; once the group is shutting down (the
    connection failed), the coroutine is closed unstarted and the caller ends as cancelled.

    The outbound loop can still be running then: its cancel went to the publish it was
    waiting for, and Python 3.11's ``asyncio.wait_for`` (under aiomqtt's publish) returns a
    PUBACK that came with the cancel instead of raising it. ``create_task`` refuses with a
    RuntimeError that would stand in the group's errors for the real one (the table
    reporting "session failed: TaskGroup is shutting down" instead of the lost broker), and
    leaves the coroutine never awaited. Nothing is lost: the outbox sends everything
    unacknowledged on the next connection."""
    try:
        return tg.create_task(coro, name=name)
    except RuntimeError:
        coro.close()
        raise asyncio.CancelledError from None


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

    def session(self, table: str) -> SessionSettings:
        """The session loop's settings for ``table``: a persistent session as
        ``pitboss-{site}-{table}``."""
        return SessionSettings(
            host=self.host, port=self.port, client_id=f"pitboss-{self.site}-{table}",
            persistent=True, session_expiry=self.session_expiry, keepalive=self.keepalive,
            timeout=self.timeout, backoff_first=self.backoff_first,
            backoff_cap=self.backoff_cap, pending_calls=4 * self.window + 16,
            username=self.username, password=self.password, tls_ca=self.tls_ca,
            tls_cert=self.tls_cert, tls_key=self.tls_key)


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
        self.topics = t = Topics(settings.site, outbox.table)
        self._outbox = outbox
        self._desk = desk
        self.rejected = 0  # inbound payloads that were not valid messages
        # ``connect`` makes the client (tests inject a fake broker); default aiomqtt
        self.session = BrokerSession(
            settings.session(outbox.table), self._serve,
            presence=Presence(t.status, self._status),
            subscriptions=lambda: [(t.cmd, 1), (t.ack, 1), (t.host_status, 1)],
            logger=log, name=f"table-link:{outbox.table}", fallback_note=FALLBACK_NOTE,
            login_hint=LOGIN_HINT, client=connect)

    async def __aenter__(self) -> Self:
        await self.session.__aenter__()
        return self

    async def __aexit__(self, et: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.session.__aexit__(et, exc, tb)

    @property
    def connected(self) -> asyncio.Event:
        """Set while the link is up (subscribed, ``online`` published)."""
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
        """The protocol the link speaks: ``"5"``, or ``"3.1.1"`` once a broker refused 5."""
        return self.session.mqtt_version

    def _status(self, online: bool) -> bytes:
        o = self._outbox
        return StatusMessage(table=o.table, boot=o.boot, seq=o.last_seq, ts=time.time(),
                             status="online" if online else "offline").to_wire()

    async def _serve(self, client: aiomqtt.Client) -> None:
        t = self.topics
        async with asyncio.TaskGroup() as tg:
            tg.create_task(self._inbound(client), name=f"link-inbound:{t.table}")
            tg.create_task(self._outbound(client, tg), name=f"link-outbound:{t.table}")

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
                    inflight.append(start_in(tg, client.publish(
                        t.secure_cards, parcel.secure, qos=1), f"publish-secure:{parcel.seq}"))
                inflight.append(start_in(tg, client.publish(t.event, parcel.public, qos=1),
                                         f"publish:{parcel.seq}"))

        outbox.take_rewind()
        cursor = outbox.acked  # a new session resends everything unacknowledged
        state_sent = -1
        while True:
            if outbox.take_rewind():
                cursor = min(cursor, outbox.acked)
            # the host's resend, a chunk at a time, taking turns with the live stream; the
            # part at or above the cursor goes out with the stream itself (no double send)
            resend = outbox.take_resend(cursor)
            if resend is not None:
                log.debug("resending %d..%d at the host's request", *resend)
                await send(await outbox.range(*resend))
            if outbox.last_seq > cursor:
                batch = await outbox.next_batch(cursor)
                await send(batch)
                cursor = batch[-1].seq
            elif resend is not None:
                continue
            elif state_sent != outbox.state_version:
                state_sent = outbox.state_version
                o = outbox
                await client.publish(t.state, StateMessage(
                    table=o.table, boot=o.boot, seq=o.last_seq, ts=time.time(),
                    state=o.state).to_wire(), qos=1, retain=True)
            else:
                await outbox.wait_for_news()
