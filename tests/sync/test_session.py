"""The one MQTT session loop (``controller.sync.session.BrokerSession``) that the table link
and the host bridge share, on real brokers: it reconnects after Mosquitto restarts with a
back-off that doubles up to its cap and starts again from the first step; an outage is
logged once at WARNING, the retries between at DEBUG; a broker without MQTT 5 (amqtt) gets
3.1.1 after one probe, said once; a persistent session keeps what arrived while away and a
clean one does not; the retained presence says online on connect and offline on a clean
stop; a refused login says what to check and the loop keeps trying; a failed ``serve``
ends only its connection."""

from __future__ import annotations

import asyncio
import logging
import os
import re
import shutil
import subprocess
import time
from collections.abc import Callable
from typing import Any

import aiomqtt
import pytest

from controller.sync.errors import LinkDown
from controller.sync.session import BrokerSession, Presence, SessionSettings
from controller.sync.tasks import OutageReport
from tests.needs import missing
from tests.sync.conftest import Amqtt, Mosquitto, free_port

GUARD = 60.0  # seconds before a stuck test fails instead of hanging (not a budget)
LOG = logging.getLogger("tests.sync.session")
STATUS = "test/session/status"
INBOX = "test/session/inbox"
RETRY = re.compile(r"(?:reconnecting in|retrying every) ([0-9.]+) s")


def make_settings(port: int, **overrides: Any) -> SessionSettings:
    """A session on the loopback broker at ``port``, with a quick back-off."""
    values: dict[str, Any] = {"host": "127.0.0.1", "port": port,
                              "client_id": "pitboss-test-session", "timeout": 5.0,
                              "backoff_first": 0.05, "backoff_cap": 0.4}
    values.update(overrides)
    return SessionSettings(**values)


class Listener:
    """A ``serve`` that keeps every message of the connection until it fails."""

    def __init__(self) -> None:
        self.received: list[bytes] = []
        self.births = 0  # presence payloads asked for "online"

    def presence(self) -> Presence:
        """The retained status, counting the online payloads it was asked for."""
        def payload(online: bool) -> bytes:
            self.births += online
            return b"online" if online else b"offline"
        return Presence(STATUS, payload)

    async def __call__(self, client: aiomqtt.Client) -> None:
        async for message in client.messages:
            assert isinstance(message.payload, bytes)
            self.received.append(message.payload)


def session_on(settings: SessionSettings, listener: Listener, **kwargs: Any) -> BrokerSession:
    """A session that subscribes to :data:`INBOX` and hands its client to ``listener``."""
    return BrokerSession(settings, listener, presence=listener.presence(),
                         subscriptions=lambda: [(INBOX, 1)], logger=LOG, **kwargs)


async def until(what: str, predicate: Callable[[], bool]) -> None:
    """Poll until ``predicate()`` holds; fail naming ``what`` after :data:`GUARD`."""
    deadline = time.monotonic() + GUARD
    while not predicate():
        if time.monotonic() > deadline:
            pytest.fail(f"gave up waiting for {what}")
        await asyncio.sleep(0.01)


async def retained(port: int, topic: str, *, mqtt5: bool = True) -> bytes:
    """The retained message on ``topic`` as a newcomer sees it."""
    protocol = aiomqtt.ProtocolVersion.V5 if mqtt5 else aiomqtt.ProtocolVersion.V311
    async with aiomqtt.Client("127.0.0.1", port, identifier="pitboss-test-peek",
                              protocol=protocol) as peek:
        await peek.subscribe(topic, qos=1)
        async with asyncio.timeout(GUARD):
            async for message in peek.messages:
                assert isinstance(message.payload, bytes)
                return message.payload
    raise AssertionError(f"nothing retained on {topic}")


async def publish(port: int, topic: str, payload: bytes, *, mqtt5: bool = True) -> None:
    """One QoS 1 publish from a client of its own."""
    protocol = aiomqtt.ProtocolVersion.V5 if mqtt5 else aiomqtt.ProtocolVersion.V311
    async with aiomqtt.Client("127.0.0.1", port, identifier="pitboss-test-sender",
                              protocol=protocol) as sender:
        await sender.publish(topic, payload, qos=1)


def retries(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    """The outage reports so far (one per failed attempt)."""
    return [r for r in caplog.records if r.name == LOG.name and RETRY.search(r.getMessage())]


def test_reconnects_after_the_broker_restarts_with_a_doubling_backoff_reported_once(
        mosquitto: Mosquitto, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger=LOG.name)
    listener = Listener()

    async def scenario() -> BrokerSession:
        async with session_on(make_settings(mosquitto.port), listener) as session:
            async with asyncio.timeout(GUARD):
                await session.connected.wait()
            assert session.connects == 1 and session.mqtt_version == "5"
            await asyncio.to_thread(mosquitto.stop)
            await until("six failed attempts", lambda: len(retries(caplog)) >= 6)
            assert not session.connected.is_set() and session.client is None
            assert isinstance(session.last_error, LinkDown)
            await asyncio.to_thread(mosquitto.start)
            await until("the reconnect", lambda: session.connected.is_set())
            assert session.connects == 2
            assert await retained(mosquitto.port, STATUS) == b"online"
            await publish(mosquitto.port, INBOX, b"after the restart")
            await until("a message on the new connection",
                        lambda: listener.received == [b"after the restart"])
            reported = len(retries(caplog))
            await asyncio.to_thread(mosquitto.restart)  # a second outage, a short one
            await until("the second reconnect", lambda: session.connects == 3
                        and session.connected.is_set())
            assert len(retries(caplog)) > reported
            return session

    session = asyncio.run(scenario())
    reports = retries(caplog)
    delays = [float(RETRY.search(r.getMessage()).group(1))  # type: ignore[union-attr]
              for r in reports]
    assert delays[:6] == [0.05, 0.1, 0.2, 0.4, 0.4, 0.4]  # doubles up to the cap
    second = next(i for i, r in enumerate(reports) if i and r.levelno == logging.WARNING)
    assert delays[second] == 0.05  # a good connection started the back-off afresh
    for earlier, later, delay in zip(reports[:second], reports[1:second], delays,
                                     strict=False):
        assert later.created - earlier.created >= delay - 0.01  # it did wait that long
    # each outage said once at WARNING; every retry between them at DEBUG
    assert [r.levelno for r in reports] == (
        [logging.WARNING] + [logging.DEBUG] * (second - 1)
        + [logging.WARNING] + [logging.DEBUG] * (len(reports) - second - 1))
    assert "broker unreachable or lost" in reports[0].getMessage()
    assert listener.births == 3  # online once per connection
    connected = [r for r in caplog.records if "connected to" in r.getMessage()]
    assert [r.levelno for r in connected] == [logging.INFO] * 3
    assert session.connects == 3


def test_an_outage_report_repeats_at_warning_only_once_per_period(
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger=LOG.name)
    report = OutageReport(LOG, every_s=0.2)
    deadline = time.monotonic() + 0.5
    while time.monotonic() < deadline:
        report.down("broker unreachable", 0.01)
        time.sleep(0.01)
    report.up()
    report.down("broker unreachable again", 0.01)
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(caplog.records) > 20
    assert len(warnings) == 4  # down, still down after 0.2 s and 0.4 s, down again
    assert "still down after" in warnings[1] and "still down after" in warnings[2]
    assert warnings[3].startswith("broker unreachable again; reconnecting in")


def test_falls_back_to_mqtt_3_1_1_once_on_a_broker_without_mqtt5(
        amqtt_broker: Amqtt, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger=LOG.name)
    listener = Listener()
    settings = make_settings(amqtt_broker.port, persistent=True)

    async def scenario() -> BrokerSession:
        session = session_on(settings, listener, fallback_note="the test says what it means")
        async with session:
            async with asyncio.timeout(GUARD):
                await session.connected.wait()
            assert session.mqtt_version == "3.1.1" and session.connects == 1
            assert await retained(amqtt_broker.port, STATUS, mqtt5=False) == b"online"
            await publish(amqtt_broker.port, INBOX, b"over 3.1.1", mqtt5=False)
            await until("a message over 3.1.1", lambda: listener.received == [b"over 3.1.1"])
            await asyncio.to_thread(amqtt_broker.restart)
            await until("the reconnect", lambda: session.connects == 2
                        and session.connected.is_set())
            assert session.mqtt_version == "3.1.1"
        assert await retained(amqtt_broker.port, STATUS, mqtt5=False) == b"offline"
        return session

    asyncio.run(scenario())
    fallbacks = [r for r in caplog.records if "refused MQTT 5" in r.getMessage()]
    assert [r.levelno for r in fallbacks] == [logging.WARNING]  # once, however many connects
    assert fallbacks[0].getMessage().endswith(": the test says what it means")
    assert f"127.0.0.1:{amqtt_broker.port}" in fallbacks[0].getMessage()


@pytest.mark.parametrize("persistent", [True, False], ids=["persistent", "clean"])
def test_a_persistent_session_keeps_what_arrived_while_away_and_a_clean_one_does_not(
        mosquitto: Mosquitto, persistent: bool) -> None:
    settings = make_settings(mosquitto.port, persistent=persistent)

    async def scenario() -> list[bytes]:
        first = Listener()
        async with session_on(settings, first) as session:
            async with asyncio.timeout(GUARD):
                await session.connected.wait()
        assert await retained(mosquitto.port, STATUS) == b"offline"  # a clean stop says so
        await publish(mosquitto.port, INBOX, b"while away")
        again = Listener()
        async with session_on(settings, again) as session:
            async with asyncio.timeout(GUARD):
                await session.connected.wait()
            assert session.mqtt_version == "5"
            await publish(mosquitto.port, INBOX, b"back")
            await until("the message sent after the return", lambda: b"back" in again.received)
        return again.received

    expected = [b"while away", b"back"] if persistent else [b"back"]
    assert asyncio.run(scenario()) == expected


def test_a_refused_login_says_what_to_check_and_the_loop_keeps_trying(
        mosquitto: Mosquitto, caplog: pytest.LogCaptureFixture) -> None:
    passwd_tool = shutil.which("mosquitto_passwd")
    if passwd_tool is None:
        missing("mosquitto_passwd is not installed (Debian: apt-get install -y mosquitto)")
    passwd = mosquitto.workdir / "passwd"
    subprocess.run([passwd_tool, "-c", "-b", str(passwd), "T1", "felt-one"], check=True,
                   capture_output=True)
    mosquitto.stop()
    conf = mosquitto.config.read_text().replace(
        "allow_anonymous true\n", f"allow_anonymous false\npassword_file {passwd}\n")
    if os.geteuid() == 0:  # as root Mosquitto drops to its own user, which cannot read it
        conf += "user root\n"
    mosquitto.config.write_text(conf)
    mosquitto.start()
    caplog.set_level(logging.DEBUG, logger=LOG.name)
    hint = ": check the test's user name"

    async def scenario() -> tuple[BrokerSession, BrokerSession]:
        wrong = session_on(make_settings(mosquitto.port, username="T1", password="guess",
                                         client_id="pitboss-test-wrong"),
                           Listener(), login_hint=hint)
        right = session_on(make_settings(mosquitto.port, username="T1", password="felt-one"),
                           Listener(), login_hint=hint)
        async with wrong, right:
            async with asyncio.timeout(GUARD):
                await right.connected.wait()
            await until("three refusals", lambda: len(retries(caplog)) >= 3)
        return wrong, right

    wrong, right = asyncio.run(scenario())
    assert wrong.connects == 0 and right.connects == 1
    assert isinstance(wrong.last_error, LinkDown)
    assert str(wrong.last_error).startswith("broker refused or dropped us")
    assert str(wrong.last_error).endswith(hint)
    assert sum(r.levelno == logging.WARNING for r in retries(caplog)) == 1


def test_a_failed_serve_ends_its_connection_only_and_a_returning_one_ends_the_session(
        mosquitto: Mosquitto, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger=LOG.name)
    calls: list[int] = []

    async def serve(client: aiomqtt.Client) -> None:
        calls.append(len(calls) + 1)
        if len(calls) == 1:
            async with asyncio.TaskGroup() as tg:  # a task's error ends the group
                tg.create_task(asyncio.sleep(60))
                tg.create_task(_fails())

    async def _fails() -> None:
        raise ValueError("the owner's bug")

    async def scenario() -> BrokerSession:
        session = BrokerSession(make_settings(mosquitto.port), serve,
                                presence=Presence(STATUS, lambda up: b"up" if up else b"down"),
                                subscriptions=list, logger=LOG)
        async with asyncio.timeout(GUARD):
            await session.run()  # returns once serve returns
        assert await retained(mosquitto.port, STATUS) == b"down"
        return session

    session = asyncio.run(scenario())
    assert calls == [1, 2] and session.connects == 2
    assert str(session.last_error) == "session failed: ValueError(\"the owner's bug\")"
    failed = [r for r in caplog.records if "the session failed" in r.getMessage()]
    assert len(failed) == 1 and failed[0].exc_info is not None


def test_nobody_listening_is_an_outage_not_a_crash(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger=LOG.name)

    async def scenario() -> BrokerSession:
        settings = make_settings(free_port(), backoff_first=0.005, backoff_cap=0.01)
        async with session_on(settings, Listener()) as session:
            await until("twenty failed attempts", lambda: len(retries(caplog)) >= 20)
        return session

    session = asyncio.run(scenario())
    assert session.connects == 0 and not session.connected.is_set()
    assert str(session.last_error).startswith(("network error", "broker unreachable"))
    assert sum(r.levelno == logging.WARNING for r in retries(caplog)) == 1
