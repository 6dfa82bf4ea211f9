"""The director's REST API over the bridge, with contract tables behind it in-process
(:class:`~tests.director.floortables.LocalFloor`: they seat and move players as commanded
and deal only when the test says so): roles, 422 naming the field, 409 naming the rule,
the seat draw, balancing suggested and confirmed, places, and a bridge restart."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from host_bridge.app import create_app
from host_bridge.settings import Role
from tests.bridge.conftest import auth, make_settings
from tests.director.floortables import LocalFloor

URL = "/api/v1/director/tournaments"
TABLES = {"T1": 9, "T2": 9, "T3": 9, "T4": 9}


def make_app(tmp_path: Path, tables: dict[str, int] = TABLES,
             seed: int = 2) -> tuple[FastAPI, LocalFloor]:
    """A bridge whose publisher is a floor of contract tables, every table online."""
    floor = LocalFloor(list(tables), seed=seed)
    app = create_app(make_settings(tmp_path, command_timeout_s=5.0), publisher=floor)
    floor.connect(app.state.bridge.receive)
    for message in floor.status_messages():
        app.state.bridge.ingest.take(*message)
    return app, floor


@pytest.fixture
def floor_app(tmp_path: Path) -> Iterator[tuple[TestClient, LocalFloor]]:
    app, floor = make_app(tmp_path)
    with TestClient(app) as client:
        yield client, floor


def body(players: int = 30, **kw: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"name": "Sunday", "tables": TABLES,
                           "players": [f"p{i:02d}" for i in range(players)],
                           "starting_stack": 5000, "buy_in": 10_000, "seed": 4}
    out.update(kw)
    return out


def url(client: TestClient) -> str:
    """The URL of the tournament created last (most tests here run one)."""
    listed = client.get(URL, headers=auth(Role.VIEWER)).json()
    return f"{URL}/{listed[-1]['id']}"


def started(client: TestClient, players: int = 30) -> dict[str, Any]:
    r = client.post(URL, json=body(players), headers=auth(Role.DIRECTOR))
    assert r.status_code == 201, r.text
    r = client.post(f"{URL}/{r.json()['id']}/start", headers=auth(Role.DIRECTOR))
    assert r.status_code == 200, r.text
    status: dict[str, Any] = r.json()
    return status


def settled(client: TestClient, floor: LocalFloor) -> dict[str, Any]:
    """The director's status once it has heard every hand the tables played (their
    events reach it through the bridge a moment after ``play_now`` returns)."""
    seated = sum(len(t.seats) for t in floor.tables.values())
    deadline = time.monotonic() + 10.0
    while True:
        status: dict[str, Any] = client.get(url(client), headers=auth(Role.VIEWER)).json()
        if status["players_left"] == seated or time.monotonic() > deadline:
            return status
        time.sleep(0.02)


def counts(status: dict[str, Any]) -> dict[str, int]:
    return {t["table"]: len(t["players"]) for t in status["tables"] if not t["closed"]}


def test_tourn_2_the_seat_draw_seats_every_player_at_the_tables(
        floor_app: tuple[TestClient, LocalFloor]) -> None:
    client, floor = floor_app
    status = started(client)
    assert status["stage"] == "running" and status["players_left"] == 30
    assert sorted(counts(status).values()) == [7, 7, 8, 8]  # dealt round the tables
    seated = sorted(p for t in floor.tables.values() for p, _ in t.seats.values())
    assert seated == [f"p{i:02d}" for i in range(30)]  # the tables themselves hold them
    assert all(stack == 5000 for t in floor.tables.values() for _, stack in t.seats.values())
    assert not any(t["players"][0]["arriving"] for t in status["tables"])
    viewer = client.get(url(client), headers=auth(Role.VIEWER))
    assert viewer.status_code == 200 and viewer.json()["entries"] == 30


def test_roles_viewer_reads_and_only_the_director_acts(
        floor_app: tuple[TestClient, LocalFloor]) -> None:
    client, _ = floor_app
    assert client.get(URL, headers=auth(Role.VIEWER)).json() == []  # none yet
    r = client.get(f"{URL}/nosuch", headers=auth(Role.VIEWER))
    assert r.status_code == 404 and "no tournament 'nosuch'" in r.json()["detail"]
    for role in (Role.VIEWER, Role.FLOOR, Role.BROADCAST):
        r = client.post(URL, json=body(), headers=auth(role))
        assert r.status_code == 403 and "director" in r.json()["detail"]
    assert client.post(URL, json=body()).status_code == 401


@pytest.mark.parametrize(("change", "field"), [
    ({"tables": {"T1": 11}}, "tables"), ({"tables": {}}, "tables"),
    ({"tables": {"bad id!": 9}}, "tables"), ({"players": ["a", "a"]}, "players"),
    ({"structure": "slow"}, "structure"), ({"starting_stack": 0}, "starting_stack"),
    ({"breaks": [{"after_level": 40, "minutes": 10}]}, "breaks"),
    ({"name": ""}, "name"), ({"buy_in": -1}, "buy_in"), ({"surprise": 1}, "surprise"),
])
def test_bad_input_is_a_422_naming_the_field(floor_app: tuple[TestClient, LocalFloor],
                                             change: dict[str, Any], field: str) -> None:
    client, _ = floor_app
    r = client.post(URL, json=body() | change, headers=auth(Role.DIRECTOR))
    assert r.status_code == 422, r.text
    assert field in r.json()["message"]


def test_refusals_are_409s_naming_the_rule(floor_app: tuple[TestClient, LocalFloor]) -> None:
    client, _ = floor_app
    d = auth(Role.DIRECTOR)
    r = client.post(URL, json=body(players=1), headers=d)
    assert r.status_code == 201
    one = f"{URL}/{r.json()['id']}"
    r = client.post(f"{one}/start", headers=d)
    assert r.status_code == 409 and "TOURN-8" in r.json()["detail"]  # too few entrants
    r = client.post(f"{one}/players", json={"player": "p00"}, headers=d)
    assert r.status_code == 409 and "TOURN-6" in r.json()["detail"]  # registered already
    assert client.post(f"{one}/players", json={"player": "zoe"}, headers=d).status_code == 201
    assert client.post(f"{one}/start", headers=d).status_code == 200
    r = client.post(f"{one}/start", headers=d)
    assert r.status_code == 409 and "TOURN-1" in r.json()["detail"]
    r = client.post(URL, json=body(), headers=d)  # over the running one's tables
    assert r.status_code == 409 and "one tournament at a time" in r.json()["detail"]
    assert "TOURN-1" in r.json()["detail"] and r.headers["X-Rule"] == "TOURN-1"
    r = client.post(f"{one}/players", json={"player": "late"}, headers=d)
    assert r.status_code == 409 and "TOURN-5" in r.json()["detail"]  # no late registration
    r = client.post(f"{one}/balancing", json={}, headers=d)  # two tables of one player
    assert r.status_code == 200  # TOURN-28: both redrawn at one table, the other closed
    assert sorted(counts(r.json()).values()) == [2]
    r = client.post(f"{one}/balancing", json={}, headers=d)
    assert r.status_code == 409 and "TOURN-19" in r.json()["detail"]  # nothing to move
    r = client.post(f"{one}/last-hands", json={"card": 5}, headers=d)
    assert r.status_code == 409 and "TOURN-27" in r.json()["detail"]  # 20 min left, not 5-15


def test_tourn_19_balancing_is_suggested_then_confirmed(
        floor_app: tuple[TestClient, LocalFloor]) -> None:
    client, floor = floor_app
    status = started(client)
    one = f"{URL}/{status['id']}"
    short = min(counts(status), key=lambda w: (counts(status)[w], w))
    table = floor.tables[short]
    while len(table.seats) > 5:  # all-in hands at one table: players bust there
        assert client.portal.call(table.play_now)  # type: ignore[union-attr]
    status = settled(client, floor)
    assert status["players_left"] < 30 and status["places"][-1]["place"] == 30
    r = client.get(f"{one}/balancing", headers=auth(Role.VIEWER))
    suggestion = r.json()
    assert suggestion["suggestions"][0]["op"] == "balance"
    moves = suggestion["suggestions"][0]["moves"]
    assert all(m["to_table"] == short and m["rule"] == "TOURN-19" for m in moves)
    stale = client.post(f"{one}/balancing", json={"version": suggestion["version"] - 1},
                        headers=auth(Role.DIRECTOR))
    assert stale.status_code == 409 and "look at them again" in stale.json()["detail"]
    done = client.post(f"{one}/balancing", json={"version": suggestion["version"]},
                       headers=auth(Role.DIRECTOR))
    assert done.status_code == 200, done.text
    after = counts(done.json())
    assert max(after.values()) - min(after.values()) <= 1
    for m in moves:  # the tables carried the moves out, stacks and all
        seat = floor.tables[m["to_table"]].seats[m["to_seat"]]
        assert seat[0] == m["player"]
    assert not any(t.paused for t in floor.tables.values())  # held, then released
    assert done.json()["anomalies"] == []


def test_the_tournament_survives_a_bridge_restart(tmp_path: Path) -> None:
    app, floor = make_app(tmp_path)
    with TestClient(app) as client:
        one = f"{URL}/{started(client)['id']}"
        table = floor.tables["T1"]
        for _ in range(3):
            assert client.portal.call(table.play_now)  # type: ignore[union-attr]
        before = client.get(one, headers=auth(Role.VIEWER)).json()
    app.state.engine.dispose()
    again = create_app(make_settings(tmp_path, command_timeout_s=5.0), publisher=floor)
    floor.connect(again.state.bridge.receive)
    with TestClient(again) as client:
        after = client.get(one, headers=auth(Role.VIEWER)).json()
        places = client.get(f"{one}/places", headers=auth(Role.VIEWER)).json()
    assert after["id"] == before["id"]
    assert after["tables"] == before["tables"]
    assert after["places"] == before["places"] == places["places"]
    assert after["chips_in_play"] == 30 * 5000 and after["anomalies"] == []
