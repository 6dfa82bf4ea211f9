"""The demo's MQTT broker: the one named with ``--broker``, else a broker already listening
on localhost:1883 (a real Mosquitto), else an embedded amqtt broker on a free port.

amqtt (MQTT 3.1.1 only) runs in the demo's own event loop: nothing to install, and it
goes when the demo goes. The tables and the bridge fall back to 3.1.1 when they meet it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections.abc import Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any

log = logging.getLogger(__name__)

LOCAL_MOSQUITTO = ("127.0.0.1", 1883)
EMBEDDED = "embedded"  # --broker embedded: the embedded broker even if one listens on 1883


class BrokerUnavailable(Exception):
    """No broker could be used: the named one does not answer, or amqtt would not start."""


@dataclass(frozen=True, slots=True)
class BrokerAddress:
    """Where the tables and the bridge connect, and what the broker is."""

    host: str
    port: int
    kind: str  # "given", "local" (found on localhost:1883) or "embedded" (amqtt)

    def __str__(self) -> str:
        return f"{self.host}:{self.port}"


def parse_address(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (or ``:PORT``, or ``HOST``) as a host and a port number."""
    host, sep, port = text.rpartition(":")
    if not sep:
        host, port = text, "1883"
    try:
        number = int(port)
    except ValueError:
        raise ValueError(f"broker {text!r}: the port must be a number, as in "
                         "127.0.0.1:1883") from None
    if not 0 < number < 65536:
        raise ValueError(f"broker {text!r}: the port must be 1..65535")
    return host or "127.0.0.1", number


def listening(host: str, port: int, timeout: float = 0.3) -> bool:
    """Whether something accepts TCP connections at ``host:port``."""
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


_MQTT5 = 5
# CONNACK, MQTT 3.1.1: "unacceptable protocol version" (return code 1); the client then
# retries with 3.1.1 (controller.sync.link, host_bridge.mqtt)
_CONNACK_BAD_PROTOCOL = bytes((0x20, 0x02, 0x00, 0x01))


def _broker_class() -> Any:
    """amqtt's broker, answering an MQTT 5 CONNECT as MQTT 3.1.1 says a server must.

    amqtt 0.12 checks the protocol level only after it has parsed the CONNECT payload, and
    an MQTT 5 payload with a Will (every table and the bridge set one) fails that parse, so
    the client hears nothing until its timeout. Here the first bytes of the CONNECT are read
    first: protocol level 5 gets CONNACK 0x01 and the connection is closed at once; any
    other is replayed to amqtt untouched. (``_initialize_client_session`` is amqtt's own
    hook; pyproject pins amqtt below 0.13.)"""
    from amqtt.adapters import ReaderAdapter  # type: ignore[import-untyped]
    from amqtt.broker import Broker  # type: ignore[import-untyped]
    from amqtt.errors import MQTTError  # type: ignore[import-untyped]

    class _Replay(ReaderAdapter):  # type: ignore[misc]
        def __init__(self, inner: Any, head: bytes) -> None:
            self._inner, self._head = inner, head

        async def read(self, n: int = -1) -> bytes:
            if not self._head:
                return bytes(await self._inner.read(n))
            if n == -1:
                head, self._head = self._head, b""
                return head + bytes(await self._inner.read(-1))
            head, self._head = self._head[:n], self._head[n:]
            if len(head) < n:
                head += bytes(await self._inner.read(n - len(head)))
            return head

        def feed_eof(self) -> None:
            self._inner.feed_eof()

    class _Broker(Broker):  # type: ignore[misc]
        async def _initialize_client_session(self, reader: Any, writer: Any, *args: Any
                                             ) -> Any:
            head = b""
            try:
                head += bytes(await reader.read(1))  # packet type
                while True:  # remaining length: 1 to 4 bytes, high bit = more
                    byte = bytes(await reader.read(1))
                    head += byte
                    if not byte[0] & 0x80 or len(head) >= 5:
                        break
                name_length = bytes(await reader.read(2))
                head += name_length
                head += bytes(await reader.read(int.from_bytes(name_length, "big") + 1))
            except Exception:  # a short or odd first packet: amqtt's own checks report it
                return await super()._initialize_client_session(
                    _Replay(reader, head), writer, *args)
            if head[0] >> 4 == 1 and head[-1] == _MQTT5:
                writer.write(_CONNACK_BAD_PROTOCOL)
                try:
                    await writer.drain()
                finally:
                    await writer.close()
                raise MQTTError("an MQTT 5 client was told to use 3.1.1")
            return await super()._initialize_client_session(_Replay(reader, head), writer,
                                                            *args)

    return _Broker


def _amqtt_config(host: str, port: int) -> dict[str, Any]:
    return {
        "listeners": {"default": {"type": "tcp", "bind": f"{host}:{port}"}},
        # anonymous on loopback only; no $SYS publisher and no packet logger (noise, CPU)
        "plugins": {"amqtt.plugins.authentication.AnonymousAuthPlugin":
                    {"allow_anonymous": True}},
    }


class DemoBroker:
    """The broker for one demo run; an async context manager that yields its address.

    ``given`` (``HOST:PORT`` from ``--broker``) must answer; without it, a broker on
    localhost:1883 is used when one listens; otherwise (or with ``given`` "embedded") amqtt
    starts on a free loopback port and stops (its port freed) when the context ends."""

    def __init__(self, given: str | None = None, *, local: tuple[str, int] = LOCAL_MOSQUITTO
                 ) -> None:
        self._given = given
        self._local = local
        self._broker: Any = None
        self.address: BrokerAddress | None = None

    async def __aenter__(self) -> BrokerAddress:
        if self._given == EMBEDDED:
            self.address = await self._embedded()
        elif self._given is not None:
            host, port = parse_address(self._given)
            if not await asyncio.to_thread(listening, host, port, 2.0):
                raise BrokerUnavailable(f"no broker answers at {host}:{port}; start it (e.g. "
                                        "systemctl start mosquitto) or leave out --broker to "
                                        "use the embedded one")
            self.address = BrokerAddress(host, port, "given")
        elif await asyncio.to_thread(listening, *self._local):
            self.address = BrokerAddress(*self._local, "local")
        else:
            self.address = await self._embedded()
        return self.address

    async def _embedded(self) -> BrokerAddress:
        try:
            from amqtt.errors import BrokerError

            broker_class = _broker_class()
        except ImportError:
            raise BrokerUnavailable("the embedded broker needs amqtt (pip install amqtt), or "
                                    "run Mosquitto and pass --broker HOST:PORT") from None
        for name in ("amqtt", "transitions"):  # amqtt logs every connection at INFO
            logging.getLogger(name).setLevel(logging.WARNING)
        last = ""
        for _ in range(5):  # a free port can be taken between the probe and the bind
            host, port = "127.0.0.1", free_port()
            broker = broker_class(_amqtt_config(host, port))
            try:
                await broker.start()
            except BrokerError as exc:
                last = str(exc)
                continue
            self._broker = broker
            return BrokerAddress(host, port, "embedded")
        raise BrokerUnavailable(f"the embedded amqtt broker did not start ({last}); run "
                                "Mosquitto and pass --broker HOST:PORT")

    async def __aexit__(self, et: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.close()

    async def close(self) -> None:
        """Stop the embedded broker (nothing to do for a broker the demo did not start)."""
        broker, self._broker = self._broker, None
        if broker is not None:
            with contextlib.suppress(Exception):  # stopping: report nothing but the port
                await asyncio.wait_for(broker.shutdown(), 10)


async def scrub(address: BrokerAddress, site: str, tables: Sequence[str]) -> None:
    """Leave a shared broker (Mosquitto) as the demo found it: clear every retained message
    under the demo's site (tables' status and state, the host's status), and end the
    persistent sessions of ``tables`` and of any other table found there (their client
    ids, MQTT 3.1.1 clean session), so a later run never meets this one's leftovers. Best
    effort: a broker that refuses is only logged."""
    import aiomqtt

    from controller.sync.topics import PREFIX, Topics

    root = f"{PREFIX}/{site}"
    found: set[str] = set()
    names = set(tables)
    try:
        async with aiomqtt.Client(address.host, address.port, identifier=f"pitboss-{site}-scrub",
                                  protocol=aiomqtt.ProtocolVersion.V311, clean_session=True,
                                  timeout=5) as client:
            await client.subscribe([(f"{root}/table/+/status", 0), (f"{root}/table/+/state", 0),
                                    (f"{root}/host/status", 0)])
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(0.5):  # retained messages come at once
                    async for message in client.messages:
                        if message.retain and message.payload:
                            found.add(message.topic.value)
            for topic in found:
                if topic.startswith(f"{root}/table/"):
                    names.add(topic.split("/")[-2])
            for table in names:
                found |= {Topics(site, table).status, Topics(site, table).state}
            for topic in sorted(found):
                await client.publish(topic, b"", qos=1, retain=True)
        for table in sorted(names):  # the id the table's link uses (controller.sync.link)
            async with aiomqtt.Client(address.host, address.port,
                                      identifier=f"pitboss-{site}-{table}",
                                      protocol=aiomqtt.ProtocolVersion.V311,
                                      clean_session=True, timeout=5):
                pass
    except (aiomqtt.MqttError, OSError) as exc:
        log.warning("could not clear the demo's retained messages on %s: %s", address, exc)
