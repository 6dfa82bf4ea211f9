"""The one MQTT session loop (DESIGN.md, Brokers and stores): the table link
(:mod:`controller.sync.link`) and the host bridge (:mod:`host_bridge.mqtt`) both keep their
broker connection up with a :class:`BrokerSession`.

Before its first connection the loop asks the broker with a bare probe CONNECT whether it
offers MQTT 5 (:mod:`.brokers`); where it does not, or where it refuses 5 at the CONNECT
itself, the loop speaks 3.1.1 from then on and says so once at WARNING. A session is
persistent (``clean_start`` false with a session expiry, ``clean_session`` false on 3.1.1)
or clean, as :class:`SessionSettings` say; the socket sets TCP_NODELAY.

Every connection carries a retained :class:`Presence` (Sparkplug's birth and death): the
Will says offline; once connected the loop subscribes, then says online, then hands the
client to the owner's ``serve``, which runs until the connection fails. A clean stop runs
the owner's ``farewell`` and says offline itself before the Will would. When a connection
fails the loop reconnects after a back-off that doubles up to a cap (reset by a good
connection) and reports the outage once at WARNING, then once a minute
(:class:`.tasks.OutageReport`). aiomqtt's errors stop here: they become
:class:`~controller.sync.errors.LinkDown` in :attr:`BrokerSession.last_error` and the log.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Self

import aiomqtt
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from controller.sync.brokers import NO_DELAY, REFUSED_LOGIN, UNSUPPORTED_PROTOCOL, offers_mqtt5
from controller.sync.errors import LinkDown
from controller.sync.tasks import OutageReport, stop

log = logging.getLogger(__name__)

# MQTT 5 CONNACK: bad user name or password, not authorised (a 3.1.1-only broker answers
# an MQTT 5 CONNECT with "unacceptable protocol" before it looks at the login)
MQTT5_REFUSED_LOGIN = (134, 135)
GOODBYE_S = 1.0  # a clean stop's farewell, and then its offline status, wait at most this


@dataclass(frozen=True, slots=True)
class SessionSettings:
    """Where the broker is, who this client is, and how the loop keeps trying."""

    host: str
    port: int
    client_id: str
    persistent: bool = False  # the broker keeps the session (subscriptions, QoS 1 queue)
    session_expiry: int = 24 * 3600  # MQTT 5: seconds it keeps a persistent one while away
    keepalive: int = 60
    timeout: float = 10.0  # the CONNECT and each publish or subscribe
    probe_timeout: float | None = None  # the MQTT 5 probe (default: ``timeout``)
    backoff_first: float = 0.1
    backoff_cap: float = 5.0
    pending_calls: int = 64  # calls aiomqtt may have in flight before it warns
    username: str | None = None
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


@dataclass(frozen=True, slots=True)
class Presence:
    """A retained status topic: ``payload(True)`` once connected, ``payload(False)`` in the
    Will and on a clean stop. ``payload`` is called afresh each time."""

    topic: str
    payload: Callable[[bool], bytes]


Serve = Callable[[aiomqtt.Client], Awaitable[None]]


class BrokerSession:
    """Keeps one client connected to the broker; an async context manager that runs the
    loop as a named task (or call :meth:`run`).

    ``serve(client)`` runs on each connection until it fails (its errors, and those of an
    exception group it raises, end that connection only); if it returns, the session ends
    cleanly. ``subscriptions()`` is asked on each connect (after the protocol is known).
    ``client`` makes the client instead (tests inject a fake broker; no probe then);
    ``client_class`` is the ``aiomqtt.Client`` (sub)class the loop connects with (the host
    bridge's receive path, :mod:`host_bridge.mqtt_fast`).
    """

    def __init__(self, settings: SessionSettings, serve: Serve, *, presence: Presence,
                 subscriptions: Callable[[], list[tuple[str, int]]],
                 logger: logging.Logger = log, name: str = "mqtt-session",
                 fallback_note: str = "using MQTT 3.1.1", login_hint: str = "",
                 farewell: Callable[[], Awaitable[None]] | None = None,
                 client: Callable[[], aiomqtt.Client] | None = None,
                 client_class: type[aiomqtt.Client] = aiomqtt.Client) -> None:
        self.settings = settings
        self.presence = presence
        self._serve = serve
        self._subscriptions = subscriptions
        self._log = logger
        self._name = name
        self._fallback_note = fallback_note  # what 3.1.1 means for this client
        self._login_hint = login_hint  # what to check when the broker refuses the login
        self._farewell = farewell
        self._make = client
        self._client_class = client_class
        self._task: asyncio.Task[None] | None = None
        self._outage = OutageReport(logger)
        self.mqtt5 = True  # until the broker refuses it
        self.connected = asyncio.Event()
        self.client: aiomqtt.Client | None = None  # while connected
        self.connects = 0
        self.last_error: LinkDown | None = None

    @property
    def mqtt_version(self) -> str:
        """``"5"``, or ``"3.1.1"`` once the broker refused MQTT 5."""
        return "5" if self.mqtt5 else "3.1.1"

    async def __aenter__(self) -> Self:
        self._task = asyncio.create_task(self.run(), name=self._name)
        return self

    async def __aexit__(self, et: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        # the grace covers a clean stop's farewell and offline status
        await stop(self._task, grace=2 * GOODBYE_S + 0.5)

    # ------------------------------------------------------------------ the loop
    async def run(self) -> None:
        """Connect, serve, and reconnect with back-off until cancelled (or ``serve``
        returns)."""
        s = self.settings
        delay = s.backoff_first
        probed = self._make is not None  # an injected client decides for itself
        while True:
            connecting = True
            try:
                if not probed:  # once per session loop, before its first connection
                    if not await self._offers_mqtt5():
                        self._fall_back("unacceptable protocol version")
                    probed = True
                async with (self._make or self._client)() as client:
                    connecting = False
                    self.connects += 1
                    client.pending_calls_threshold = s.pending_calls
                    delay = s.backoff_first
                    self._outage.up()
                    await self._session(client)
                return  # serve returned: the session ended cleanly
            except aiomqtt.MqttCodeError as exc:
                if connecting and self.mqtt5 and exc.rc in UNSUPPORTED_PROTOCOL:
                    self._fall_back(exc)
                    continue
                hint = self._login_hint if connecting and exc.rc in REFUSED_LOGIN else ""
                self.last_error = LinkDown(f"broker refused or dropped us: {exc}{hint}")
            except aiomqtt.MqttError as exc:
                self.last_error = LinkDown(f"broker unreachable or lost: {exc}")
            except OSError as exc:
                self.last_error = LinkDown(f"network error: {exc}")
            except Exception as exc:  # any other failure: log it, start a fresh connection
                self._log.exception("%s: the session failed", s.client_id)
                self.last_error = LinkDown(f"session failed: {exc!r}")
            finally:
                self.connected.clear()
                self.client = None
            self._outage.down(self.last_error, delay)
            await asyncio.sleep(delay)
            delay = min(delay * 2, s.backoff_cap)

    async def _session(self, client: aiomqtt.Client) -> None:
        s, presence = self.settings, self.presence
        subscriptions = self._subscriptions()
        if subscriptions:
            await client.subscribe(subscriptions)
        await client.publish(presence.topic, presence.payload(True), qos=1, retain=True)
        self.client = client
        self.connected.set()
        self._log.info("%s connected to %s:%d (MQTT %s), connection %d", s.client_id,
                       s.host, s.port, self.mqtt_version, self.connects)
        try:
            await self._serve(client)
        except BaseExceptionGroup as group:
            raise _first_leaf(group) from None
        except asyncio.CancelledError:  # a clean stop: say so before the Will would
            await self._goodbye(client)
            raise
        await self._goodbye(client)

    async def _goodbye(self, client: aiomqtt.Client) -> None:
        if self._farewell is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._farewell(), GOODBYE_S)
        self.connected.clear()
        with contextlib.suppress(aiomqtt.MqttError, TimeoutError):
            await client.publish(self.presence.topic, self.presence.payload(False), qos=1,
                                 retain=True, timeout=GOODBYE_S)

    # ------------------------------------------------------------------ the client
    def _client(self) -> aiomqtt.Client:
        s = self.settings
        will = aiomqtt.Will(self.presence.topic, self.presence.payload(False), qos=1,
                            retain=True)
        common: dict[str, Any] = {"identifier": s.client_id, "will": will,
                                  "keepalive": s.keepalive, "timeout": s.timeout,
                                  "socket_options": NO_DELAY, **s.credentials()}
        if not self.mqtt5:
            return self._client_class(s.host, s.port,
                                      protocol=aiomqtt.ProtocolVersion.V311,
                                      clean_session=not s.persistent, **common)
        props = None
        if s.persistent:
            props = Properties(PacketTypes.CONNECT)  # type: ignore[no-untyped-call]
            props.SessionExpiryInterval = s.session_expiry
        return self._client_class(s.host, s.port, protocol=aiomqtt.ProtocolVersion.V5,
                                  clean_start=not s.persistent, properties=props, **common)

    async def _offers_mqtt5(self) -> bool:
        """The probe. Without the login where there is one: a broker that makes the login
        the client id (``use_username_as_clientid``, the shipped floor broker) would hand a
        probe with it this client's own session, and the probe's clean start would wipe it
        (a table's queued commands and acks). A broker that answers the anonymous probe in
        MQTT 5, if only to refuse it, speaks 5; the real CONNECT then says if the login is
        wrong."""
        s = self.settings
        timeout = s.timeout if s.probe_timeout is None else s.probe_timeout
        credentials = s.credentials()
        if s.username is None:
            return await offers_mqtt5(s.host, s.port, s.client_id, timeout=timeout,
                                      keepalive=s.keepalive, **credentials)
        credentials.update(username=None, password=None)
        try:
            return await offers_mqtt5(s.host, s.port, s.client_id, timeout=timeout,
                                      keepalive=s.keepalive, **credentials)
        except aiomqtt.MqttCodeError as exc:
            if exc.rc in MQTT5_REFUSED_LOGIN:  # refused in MQTT 5's own words
                return True
            raise

    def _fall_back(self, why: object) -> None:
        if not self.mqtt5:
            return
        self.mqtt5 = False  # once per session loop: said once
        self._log.warning("the broker at %s:%d refused MQTT 5 (%s): %s", self.settings.host,
                          self.settings.port, why, self._fallback_note)


def _first_leaf(group: BaseExceptionGroup[BaseException]) -> BaseException:
    """The error that ended a connection: the broker's if there was one (the rest, such as
    a task refused by a group already shutting down, only followed from it)."""
    broker = group.subgroup(aiomqtt.MqttError)
    if broker is not None:
        group = broker
    first = group.exceptions[0]
    return _first_leaf(first) if isinstance(first, BaseExceptionGroup) else first
