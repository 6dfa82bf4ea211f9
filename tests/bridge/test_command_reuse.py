"""A command_id reused with another command is refused with a reason naming the id; the
same id with the same command is a retry, carried out once (issue 17, item 5). Through the
whole path: the floor's API, the bridge, a real Mosquitto and a real table controller
(``controller.sync.soak_node``). Fails, saying so, where Mosquitto is not installed."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import aiomqtt
from fastapi.testclient import TestClient

from controller.events.commands import SetLevel
from controller.sync.messages import CommandMessage, ReplyMessage, parse_message
from controller.sync.topics import Topics
from host_bridge.app import create_app
from host_bridge.settings import Role
from tests.bridge.conftest import auth, make_settings
from tests.bridge.tablesim import SITE
from tests.bridge.test_mqtt import WAIT_S, stop, wait_for
from tests.sync.conftest import Mosquitto, start_node

URL = "/api/v1/tables/t1/commands"


async def send_as_another_host(port: int, command_id: str, level: int) -> ReplyMessage:
    """``set_level`` published straight to the table, as a second host would, with its reply."""
    topics = Topics(SITE, "t1")
    message = CommandMessage(table="t1", boot="other-host", seq=1, ts=time.time(),
                             command_id=command_id,
                             command=SetLevel(level=level))
    async with aiomqtt.Client("127.0.0.1", port, identifier="pitboss-test-other-host") as c:
        await c.subscribe(topics.reply, qos=1)
        await c.publish(topics.cmd, message.to_wire(), qos=1)
        async with asyncio.timeout(WAIT_S):
            async for inbound in c.messages:
                assert isinstance(inbound.payload, bytes)
                reply = parse_message(ReplyMessage, inbound.payload)
                if reply.command_id == command_id:
                    return reply
    raise AssertionError("no reply")


def test_a_reused_command_id_with_another_command_is_refused_with_its_reason(
        tmp_path: Path, mosquitto: Mosquitto) -> None:
    app = create_app(make_settings(tmp_path, mqtt_port=mosquitto.port, command_timeout_s=20),
                     connect=True)
    with TestClient(app) as client:
        def table() -> dict[str, Any]:
            body: dict[str, Any] = client.get("/api/v1/tables/t1",
                                              headers=auth(Role.VIEWER)).json()
            return body

        def post(command: dict[str, Any], command_id: str) -> Any:
            return client.post(URL, headers=auth(Role.DIRECTOR),
                               json={"command": command, "command_id": command_id})

        node = start_node(tmp_path / "table.db", mosquitto.port, "--site", SITE, "--hands", "1")
        try:
            wait_for("the table to play its hand and sit idle", lambda: client.get(
                "/api/v1/tables/t1", headers=auth(Role.VIEWER)).status_code == 200
                and table()["online"] and table()["hand_no"] == 1
                and not table()["hand_in_progress"])
            first = post({"name": "pause"}, "floor-retry-1")
            assert first.status_code == 200 and first.json()["status"] == "ok", first.text
            # the retry: answered from the table's journal (a second pause would be refused
            # "already paused")
            again = post({"name": "pause"}, "floor-retry-1")
            assert again.json() == first.json()
            wait_for("the pause to come back as an event", lambda: table()["paused"])

            # the bridge knows the id: refused there, nothing sent
            reused = post({"name": "set_level", "level": 9}, "floor-retry-1")
            assert reused.status_code == 409
            assert reused.json()["detail"].startswith(
                "command_id floor-retry-1 was already used for pause to table t1; "
                "nothing was sent")

            # another host used an id the bridge has never seen: the table refuses it
            done = asyncio.run(send_as_another_host(mosquitto.port, "other-host-7", 3))
            assert done.status == "ok", done
            wait_for("the level change to come back as an event", lambda: table()["level"] == 3)
            refused = post({"name": "set_level", "level": 7}, "other-host-7")
            assert refused.status_code == 200, refused.text
            assert refused.json()["status"] == "error"
            assert refused.json()["error"] == (
                "command_id other-host-7 was already used for another command; nothing was "
                "done: send set_level with a new command_id")
            # the refusal did not replace the first answer, and the table is unchanged
            retried = asyncio.run(send_as_another_host(mosquitto.port, "other-host-7", 3))
            assert (retried.status, retried.seq) == ("ok", done.seq)
            assert post({"name": "pause"}, "floor-retry-1").json() == first.json()
            time.sleep(0.5)
            assert (table()["level"], table()["paused"]) == (3, True)
        finally:
            node.kill()
            stop(node)
        audit = client.get("/api/v1/audit", headers=auth(Role.ADMIN)).json()["data"]
        assert [(a["command_id"], a["command"], a["outcome"]) for a in audit] == [
            ("other-host-7", "set_level", "error"), ("floor-retry-1", "pause", "ok")]
