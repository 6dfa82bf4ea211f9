"""The house a table plays, over REST (issue 18): the shipped houses listed (a broken file
with its error), a house checked with the table's own reader before it is sent (422
naming the field, line and rule; nothing sent), sent as ``set_house`` on the command path
(audit row, reply), a table's refusal during a hand a 409 naming LEVEL-1, and the
journal's ``house_set`` on the table's record."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from controller.clocks.house import load_house
from controller.events import HouseSet, HouseView
from controller.sync.messages import CommandMessage, ReplyMessage
from host_bridge.app import create_app
from host_bridge.bridge import Bridge
from host_bridge.settings import DEFAULT_HOUSES_DIR, Role
from tests.bridge.conftest import auth, make_settings
from tests.bridge.tablesim import FakeBroker, WireTable
from tests.bridge.test_commands import audit, online

__all__ = ["online"]  # the fixture, shared with test_commands.py

URL = "/api/v1/tables/t1/house"
SHIPPED = ("casino-nlhe", "casino-plo", "hexapro-sng", "limit-holdem", "live-tournament",
           "online-nlhe", "online-plo")




def casino_text() -> str:
    return (DEFAULT_HOUSES_DIR / "casino-nlhe.toml").read_text(encoding="utf-8")


# ---------------------------------------------------------------------------- the list
def test_every_shipped_house_is_listed_with_its_label(client: TestClient) -> None:
    r = client.get("/api/v1/houses", headers=auth(Role.VIEWER))
    assert r.status_code == 200, r.text
    body = r.json()
    assert [h["file"] for h in body["data"]] == list(SHIPPED)
    assert body["count"] == len(SHIPPED) and body["problem"] is None
    plo = next(h for h in body["data"] if h["file"] == "casino-plo")
    house = load_house(DEFAULT_HOUSES_DIR / "casino-plo.toml")
    assert (plo["name"], plo["kind"], plo["unit"], plo["label"], plo["error"]) == (
        house.name, "cash", "kr", house.label, None)
    assert plo["label"].startswith("PLO 20/40 kr")
    sng = next(h for h in body["data"] if h["file"] == "hexapro-sng")
    assert sng["kind"] == "tournament"


def test_a_shipped_file_that_fails_is_listed_with_its_error(tmp_path: Path) -> None:
    houses = tmp_path / "houses"
    houses.mkdir()
    shutil.copy(DEFAULT_HOUSES_DIR / "casino-nlhe.toml", houses / "good.toml")
    (houses / "broken.toml").write_text(casino_text().replace("big_blind = 40",
                                                              "big_blind = -40"))
    app = create_app(make_settings(tmp_path, houses_dir=houses))
    with TestClient(app) as client:
        body = client.get("/api/v1/houses", headers=auth(Role.FLOOR)).json()
    assert [h["file"] for h in body["data"]] == ["broken", "good"]
    broken = body["data"][0]
    assert broken["name"] is None and broken["label"] is None
    assert broken["error"].startswith("broken.toml line 11: stakes.big_blind:")
    assert broken["error"].endswith("(BLIND-1)")
    assert body["data"][1]["error"] is None


def test_a_missing_houses_directory_says_which_setting_to_fix(tmp_path: Path) -> None:
    app = create_app(make_settings(tmp_path, houses_dir=tmp_path / "nowhere"))
    with TestClient(app) as client:
        body = client.get("/api/v1/houses", headers=auth(Role.VIEWER)).json()
    assert body["data"] == [] and "set houses_dir" in body["problem"]


# ---------------------------------------------------------------------------- the change
@pytest.mark.parametrize("role", [Role.FLOOR, Role.DIRECTOR, Role.ADMIN])
def test_a_shipped_house_is_sent_as_set_house_with_its_text(
        client: TestClient, broker: FakeBroker, online: WireTable, role: Role) -> None:
    r = client.post(URL, headers=auth(role), json={"house": "casino-plo"})
    assert r.status_code == 200, r.text
    [sent] = broker.commands()
    text = (DEFAULT_HOUSES_DIR / "casino-plo.toml").read_text(encoding="utf-8")
    assert sent["command"] == {"name": "set_house", "text": text}
    body = r.json()
    assert body["command_id"] == sent["command_id"] and body["status"] == "ok"
    house = load_house(DEFAULT_HOUSES_DIR / "casino-plo.toml")
    assert body["house"] == {"name": house.name, "game": "PO", "kind": "cash", "unit": "kr",
                             "label": house.label, "multiplier": None}
    [row] = audit(client)
    assert (row["actor"], row["command"], row["outcome"]) == (f"{role.value}-1", "set_house",
                                                              "ok")


def test_a_house_text_is_sent_whole(client: TestClient, broker: FakeBroker,
                                    online: WireTable) -> None:
    text = casino_text().replace('name = "', 'name = "Friday ')
    r = client.post(URL, headers=auth(Role.FLOOR), json={"text": text})
    assert r.status_code == 200, r.text
    assert r.json()["house"]["name"].startswith("Friday ")
    [sent] = broker.commands()
    assert sent["command"]["text"] == text


@pytest.mark.parametrize("role", [Role.VIEWER, Role.BROADCAST])
def test_a_role_that_may_not_change_the_house_gets_403_and_nothing_is_sent(
        client: TestClient, broker: FakeBroker, online: WireTable, role: Role) -> None:
    r = client.post(URL, headers=auth(role), json={"house": "casino-plo"})
    assert r.status_code == 403
    assert f"role {role.value!r} may not send commands" in r.json()["detail"]
    assert broker.commands() == [] and audit(client) == []


def test_a_bad_house_text_is_422_naming_field_line_and_rule_and_nothing_is_sent(
        client: TestClient, broker: FakeBroker, online: WireTable) -> None:
    text = casino_text().replace("big_blind = 40", "big_blind = -40")
    r = client.post(URL, headers=auth(Role.FLOOR), json={"text": text})
    assert r.status_code == 422, r.text
    body = r.json()
    assert (body["field"], body["line"], body["rule"]) == ("stakes.big_blind", 11, "BLIND-1")
    assert body["detail"].startswith("the house text line 11: stakes.big_blind: must be a "
                                     "positive whole number")
    assert body["detail"].endswith("nothing was sent: correct the house and send it again")
    assert broker.commands() == [] and audit(client) == []


def test_a_set_house_through_the_commands_route_is_checked_the_same_way(
        client: TestClient, broker: FakeBroker, online: WireTable) -> None:
    bad = casino_text().replace('game = "NT"', 'game = "XX"')
    r = client.post("/api/v1/tables/t1/commands", headers=auth(Role.FLOOR),
                    json={"command": {"name": "set_house", "text": bad}})
    assert r.status_code == 422 and r.json()["field"] == "game"
    assert broker.commands() == []
    r = client.post("/api/v1/tables/t1/commands", headers=auth(Role.FLOOR),
                    json={"command": {"name": "set_house", "text": casino_text()}})
    assert r.status_code == 200 and r.json()["status"] == "ok"
    assert [c["command"]["name"] for c in broker.commands()] == ["set_house"]


def test_an_unknown_shipped_house_is_404_with_the_list(client: TestClient, broker: FakeBroker,
                                                        online: WireTable) -> None:
    r = client.post(URL, headers=auth(Role.FLOOR), json={"house": "casino-omaha"})
    assert r.status_code == 404
    body = r.json()
    assert body["houses"] == list(SHIPPED)
    assert body["detail"].startswith("no shipped house 'casino-omaha'; the shipped houses "
                                     "are: casino-nlhe, casino-plo,")
    assert broker.commands() == []


def test_a_house_and_a_text_together_are_refused(client: TestClient, broker: FakeBroker,
                                                 online: WireTable) -> None:
    r = client.post(URL, headers=auth(Role.FLOOR),
                    json={"house": "casino-plo", "text": casino_text()})
    assert r.status_code == 422 and "not both" in r.json()["message"]
    r = client.post(URL, headers=auth(Role.FLOOR), json={"house": "../bridge"})
    assert r.status_code == 422  # a file stem, never a path
    assert broker.commands() == []


def test_level_1_a_change_the_table_refuses_during_a_hand_is_409_naming_the_rule(
        client: TestClient, broker: FakeBroker, online: WireTable) -> None:
    def refuse(command: CommandMessage) -> ReplyMessage:
        return ReplyMessage(table="t1", boot="b", seq=0, ts=0.0, command_id=command.command_id,
                            status="error", error="hand 4 is in play: a house changes only "
                            "between hands (LEVEL-1)")

    broker.answer = refuse
    r = client.post(URL, headers=auth(Role.FLOOR), json={"house": "casino-plo"})
    assert r.status_code == 409
    body = r.json()
    assert body["rule"] == "LEVEL-1"
    assert body["detail"] == ("table 't1' refused the house 'Casino PLO 20/40': hand 4 is in "
                              "play: a house changes only between hands (LEVEL-1)")
    [sent] = broker.commands()
    assert body["command_id"] == sent["command_id"]
    assert audit(client)[0]["outcome"] == "error"


def test_an_offline_table_gets_no_house(client: TestClient, broker: FakeBroker,
                                        bridge: Bridge) -> None:
    bridge.ingest.take(*WireTable().status(False))
    r = client.post(URL, headers=auth(Role.FLOOR), json={"house": "casino-plo"})
    assert r.status_code == 409
    assert r.json()["detail"].startswith("table 't1' is offline, so set_house was not sent")
    assert broker.commands() == []
    r = client.post("/api/v1/tables/t9/house", headers=auth(Role.FLOOR),
                    json={"house": "casino-plo"})
    assert r.status_code == 404 and "no table 't9'" in r.json()["detail"]


# ---------------------------------------------------------------------------- the journal
def test_the_journals_house_set_is_on_the_table_record(client: TestClient, bridge: Bridge,
                                                       online: WireTable) -> None:
    assert client.get("/api/v1/tables/t1", headers=auth(Role.VIEWER)).json()["house"] is None
    house = load_house(DEFAULT_HOUSES_DIR / "online-plo.toml")
    view = HouseView(name=house.name, game="PO", kind="cash", unit="cent", label=house.label)
    bridge.ingest.take(*online.event(HouseSet(hand_no=0, house=view, text=house.text)))
    record = client.get("/api/v1/tables/t1", headers=auth(Role.VIEWER)).json()
    assert record["house"] == view.model_dump(mode="json")
    listed = client.get("/api/v1/tables", headers=auth(Role.VIEWER)).json()["data"]
    assert listed[0]["house"]["label"] == house.label
