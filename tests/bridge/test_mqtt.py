"""The bridge on a real Mosquitto with a real table controller (``controller.sync.soak_node``
as a subprocess): every event stored and acked, each hand exported as PHH, commands
answered by the table, ``host/status`` retained, and a dead table marked offline by its
Will; after a broker restart the bridge's session loop reconnects, subscribes again and
says online again. Fails, saying so, where Mosquitto is not installed (Debian: apt-get install -y
mosquitto)."""

from __future__ import annotations

import asyncio
import logging
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import aiomqtt
import pytest
from fastapi.testclient import TestClient

from controller.sync.messages import HostStatusMessage, parse_host_ack, parse_message
from host_bridge.app import create_app
from host_bridge.bridge import Bridge
from host_bridge.db import make_engine, migrate, session_factory
from host_bridge.mqtt import MqttLink
from host_bridge.settings import Role
from tests.bridge.conftest import auth, make_settings
from tests.bridge.tablesim import SITE, WireTable
from tests.sync.conftest import Mosquitto, start_node

WAIT_S = 60.0  # an upper bound for slow CI machines, not a budget



def wait_for(what: str, predicate: Callable[[], bool]) -> None:
    """Poll until ``predicate()`` holds; fail naming ``what`` after :data:`WAIT_S`."""
    deadline = time.monotonic() + WAIT_S
    while not predicate():
        if time.monotonic() > deadline:
            pytest.fail(f"gave up waiting for {what}")
        time.sleep(0.02)


def stop(node: subprocess.Popen[str]) -> str:
    """Stop a node this test started (by its own handle) and return its stderr."""
    if node.poll() is None:
        node.terminate()
    _, err = node.communicate(timeout=WAIT_S)
    return err


async def retained_host_status(port: int) -> HostStatusMessage:
    """The retained ``host/status`` as a newcomer sees it."""
    async with aiomqtt.Client("127.0.0.1", port, identifier="pitboss-test-peek") as client:
        await client.subscribe(f"pitboss/v1/{SITE}/host/status", qos=1)
        async for message in client.messages:
            assert isinstance(message.payload, bytes)
            return parse_message(HostStatusMessage, message.payload)
    raise AssertionError("no host/status")


def test_a_real_table_drains_into_the_bridge_and_every_hand_has_its_phh(
        tmp_path: Path, mosquitto: Mosquitto) -> None:
    app = create_app(make_settings(tmp_path, mqtt_port=mosquitto.port), connect=True)
    with TestClient(app) as client:
        node = start_node(tmp_path / "table.db", mosquitto.port, "--site", SITE, "--hands", "4",
                          "--drain")
        try:
            node.wait(timeout=WAIT_S)
        finally:
            err = stop(node)
        assert node.returncode == 0, err
        hands = client.get("/api/v1/tables/t1/hands", headers=auth(Role.VIEWER)).json()
        assert hands["count"] == 4
        for hand in hands["data"]:
            assert hand["status"] == "ended" and hand["phh_error"] is None, hand
            phh = client.get(f"/api/v1/tables/t1/hands/{hand['hand_no']}/phh",
                             headers=auth(Role.BROADCAST))
            assert phh.status_code == 200 and "finishing_stacks" in phh.text
        table = client.get("/api/v1/tables/t1", headers=auth(Role.VIEWER)).json()
        assert sum(s["stack"] for s in table["seats"]) == 6 * 20_000  # no rake at the node
        assert asyncio.run(retained_host_status(mosquitto.port)).online
    assert not asyncio.run(retained_host_status(mosquitto.port)).online  # clean stop


def test_commands_reach_a_real_table_and_its_death_marks_it_offline(
        tmp_path: Path, mosquitto: Mosquitto) -> None:
    app = create_app(make_settings(tmp_path, mqtt_port=mosquitto.port, command_timeout_s=20),
                     connect=True)
    with TestClient(app) as client:
        node = start_node(tmp_path / "table.db", mosquitto.port, "--site", SITE, "--hands", "1")
        try:
            def idle_online() -> bool:
                r = client.get("/api/v1/tables/t1", headers=auth(Role.VIEWER))
                return r.status_code == 200 and r.json()["online"] and \
                    r.json()["hand_no"] == 1 and not r.json()["hand_in_progress"]

            wait_for("the table to play its hand and sit idle", idle_online)
            r = client.post("/api/v1/tables/t1/commands", headers=auth(Role.DIRECTOR),
                            json={"command": {"name": "set_level", "level": 3}})
            assert r.status_code == 200, r.text
            assert r.json()["status"] == "ok", r.json()
            wait_for("the level change to come back as an event", lambda: client.get(
                "/api/v1/tables/t1", headers=auth(Role.VIEWER)).json()["level"] == 3)
            r = client.post("/api/v1/tables/t1/commands", headers=auth(Role.FLOOR),
                            json={"command": {"name": "remove_player", "seat": 10}})
            assert r.json()["status"] == "error" and r.json()["error"]  # nobody sits there
        finally:
            node.kill()  # no clean goodbye: the broker publishes the table's Will
            stop(node)
        wait_for("the Will to mark the table offline", lambda: not client.get(
            "/api/v1/tables/t1", headers=auth(Role.VIEWER)).json()["online"])
        audit = client.get("/api/v1/audit", headers=auth(Role.ADMIN)).json()["data"]
        assert [(a["command"], a["outcome"]) for a in audit] == [("remove_player", "error"),
                                                                 ("set_level", "ok")]


def test_after_a_broker_restart_the_bridge_subscribes_again_and_says_online_again(
        tmp_path: Path, mosquitto: Mosquitto, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="host_bridge.bridge")
    settings = make_settings(tmp_path, mqtt_port=mosquitto.port)
    engine = make_engine(settings.database_url)
    migrate(engine)
    wire = WireTable()
    seated = [wire.seat(seat, name, 1000) for seat, name in ((1, "a"), (2, "b"))]

    async def scenario() -> tuple[MqttLink, int, HostStatusMessage]:
        async with MqttLink(Bridge(settings, session_factory(engine))) as link:
            await asyncio.wait_for(link.connected.wait(), WAIT_S)
            before = await retained_host_status(mosquitto.port)
            await asyncio.to_thread(mosquitto.restart)
            async with asyncio.timeout(WAIT_S):
                while not (link.connects == 2 and link.connected.is_set()):
                    await asyncio.sleep(0.01)
            after = await retained_host_status(mosquitto.port)
            assert before.online and after.online and after.seq > before.seq
            # a clean session: the events arrive only if the bridge subscribed again
            async with aiomqtt.Client("127.0.0.1", mosquitto.port,
                                      identifier="pitboss-test-t1") as table:
                await table.subscribe(f"pitboss/v1/{SITE}/host/ack/t1", qos=1)
                for topic, payload in seated:
                    await table.publish(topic, payload, qos=1)
                acked = 0
                async with asyncio.timeout(WAIT_S):
                    async for message in table.messages:
                        assert isinstance(message.payload, bytes)
                        ack = parse_host_ack(message.payload)
                        acked = max(acked, ack.acked if ack.kind == "ack" else 0)
                        if acked == len(seated):
                            break
            return link, acked, after

    try:
        link, acked, online = asyncio.run(scenario())
    finally:
        engine.dispose()
    assert acked == 2 and link.connects == 2 and link.mqtt_version == "5"
    assert link.last_error is not None and "lost" in str(link.last_error)
    gone = asyncio.run(retained_host_status(mosquitto.port))
    assert not gone.online and gone.seq > online.seq  # a clean stop says offline itself
    # the restart was a loss, said once at WARNING; the clean stop is none
    said = [(r.levelno, r.getMessage()) for r in caplog.records
            if r.name == "host_bridge.bridge" and "the broker" in r.getMessage()]
    assert said == [(logging.WARNING, "the bridge has lost the broker: tables' states are "
                     "unknown until it is back"),
                    (logging.INFO, "the bridge has left the broker (stopping)")], said
