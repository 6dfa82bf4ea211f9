"""The command path: audit row (who, what, when) -> publish on table/{id}/cmd with a
command_id -> the table's reply or a 504; every outcome lands in the audit log."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from controller.sync.messages import CommandMessage, ReplyMessage
from controller.sync.topics import Topics
from host_bridge.app import create_app
from host_bridge.bridge import Bridge
from host_bridge.settings import Role
from tests.bridge.conftest import ManualClock, auth, make_settings
from tests.bridge.tablesim import SITE, FakeBroker, WireTable

URL = "/api/v1/tables/t1/commands"


@pytest.fixture
def online(bridge: Bridge) -> WireTable:
    """Table t1, online."""
    wire = WireTable()
    bridge.ingest.take(*wire.status(True))
    return wire


def audit(client: TestClient) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = client.get("/api/v1/audit",
                                               headers=auth(Role.ADMIN)).json()["data"]
    return rows


def test_a_command_is_published_with_an_id_and_the_reply_comes_back(
        client: TestClient, broker: FakeBroker, online: WireTable) -> None:
    r = client.post(URL, headers=auth(Role.FLOOR),
                    json={"command": {"name": "call_clock", "seat": 4}})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["status"] == "ok" and body["data"] == {"change": "call_clock"}
    [sent] = broker.commands()
    assert sent["command_id"] == body["command_id"]
    assert sent["command"] == {"name": "call_clock", "seat": 4}
    assert sent["table"] == "t1"
    [(topic, _, qos, retain)] = [p for p in broker.published if p[0].endswith("/cmd")]
    assert (topic, qos, retain) == (Topics(SITE, "t1").cmd, 1, False)


def test_every_command_is_audited_with_who_sent_it_and_the_answer(
        client: TestClient, broker: FakeBroker, online: WireTable) -> None:
    client.post(URL, headers=auth(Role.FLOOR), json={"command": {"name": "pause"}})
    client.post(URL, headers=auth(Role.DIRECTOR),
                json={"command": {"name": "set_level", "level": 7}})
    rows = audit(client)
    assert [(r["actor"], r["role"], r["command"], r["outcome"]) for r in rows] == [
        ("director-1", "director", "set_level", "ok"),
        ("floor-1", "floor", "pause", "ok")]
    assert rows[0]["body"] == {"name": "set_level", "level": 7}
    assert rows[0]["reply"] == {"status": "ok", "data": {"change": "set_level"}, "error": None}
    assert rows[0]["at"] and rows[0]["answered_at"]
    only_t2 = client.get("/api/v1/audit?table_id=t2", headers=auth(Role.ADMIN)).json()
    assert only_t2 == {"data": [], "count": 0}


def test_a_refusal_by_the_table_is_returned_and_audited(client: TestClient, broker: FakeBroker,
                                                        online: WireTable) -> None:
    def refuse(command: CommandMessage) -> ReplyMessage:
        return ReplyMessage(table="t1", boot="b", seq=0, ts=0.0, command_id=command.command_id,
                            status="error", error="cannot close during hand 4; wait for it")

    broker.answer = refuse
    r = client.post(URL, headers=auth(Role.ADMIN), json={"command": {"name": "close_table"}})
    assert r.status_code == 200
    assert r.json()["status"] == "error"
    assert r.json()["error"] == "cannot close during hand 4; wait for it"
    assert audit(client)[0]["outcome"] == "error"


def test_no_reply_is_a_504_that_says_so_and_a_late_reply_is_still_audited(
        tmp_path: Path, clock: ManualClock) -> None:
    broker = FakeBroker()
    broker.answer = None
    app = create_app(make_settings(tmp_path, command_timeout_s=0.05), publisher=broker,
                     clock=clock)
    bridge: Bridge = app.state.bridge
    bridge.ingest.take(*WireTable().status(True))
    with TestClient(app) as client:
        r = client.post(URL, headers=auth(Role.FLOOR), json={"command": {"name": "resume"}})
        assert r.status_code == 504
        assert r.json()["detail"].startswith("table t1 did not reply to resume")
        assert "check the table's state before sending it again" in r.json()["detail"]
        [row] = audit(client)
        assert row["outcome"] == "timeout"
        [sent] = broker.commands()
        late = ReplyMessage(table="t1", boot="b", seq=0, ts=0.0,
                            command_id=sent["command_id"], status="ok")
        client.portal.call(bridge.receive, Topics(SITE, "t1").reply, late.to_wire())  # type: ignore[union-attr]
        [row] = audit(client)
        assert row["outcome"] == "late" and row["reply"]["status"] == "ok"  # type: ignore[index]


def test_an_offline_table_gets_nothing_and_the_client_is_told(client: TestClient,
                                                              broker: FakeBroker,
                                                              bridge: Bridge) -> None:
    bridge.ingest.take(*WireTable().status(False))
    r = client.post(URL, headers=auth(Role.FLOOR), json={"command": {"name": "pause"}})
    assert r.status_code == 409
    assert r.json()["detail"].startswith("table 't1' is offline, so pause was not sent")
    assert r.json()["detail"].endswith("(GET /api/v1/tables/t1)")
    assert broker.commands() == []
    [row] = audit(client)
    assert (row["actor"], row["command"], row["outcome"]) == ("floor-1", "pause", "refused")


def test_without_a_broker_a_command_is_503_and_audited_unsent(tmp_path: Path) -> None:
    app = create_app(make_settings(tmp_path))
    app.state.bridge.ingest.take(*WireTable().status(True))
    with TestClient(app) as client:
        r = client.post(URL, headers=auth(Role.FLOOR), json={"command": {"name": "pause"}})
        assert r.status_code == 503
        assert "has no broker connection" in r.json()["detail"]
        assert audit(client)[0]["outcome"] == "unsent"


def test_commands_to_an_unknown_table_are_404(client: TestClient, broker: FakeBroker) -> None:
    r = client.post("/api/v1/tables/t9/commands", headers=auth(Role.ADMIN),
                    json={"command": {"name": "pause"}})
    assert r.status_code == 404
    assert broker.commands() == []


@pytest.mark.parametrize("command", [
    {"name": "pause"}, {"name": "resume"}, {"name": "call_clock", "seat": 2},
    {"name": "set_level", "level": 3}, {"name": "hand_for_hand", "on": True},
    {"name": "colour_up", "at_level": 6},
    {"name": "seat_player", "seat": 5, "player": "dave", "stack": 20000},
    {"name": "move_player", "seat": 5, "to_table": "t2"}, {"name": "remove_player", "seat": 5},
    {"name": "close_table"},
])
def test_each_command_of_the_wire_format_goes_through(client: TestClient, broker: FakeBroker,
                                                      online: WireTable,
                                                      command: dict[str, object]) -> None:
    r = client.post(URL, headers=auth(Role.DIRECTOR), json={"command": command})
    assert r.status_code == 200, r.text
    assert broker.commands()[-1]["command"] == command
