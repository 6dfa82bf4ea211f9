"""Rebuys and add-ons reach the tables (TOURN-9..12, issue 9): through the bridge's REST
API, with contract tables behind it in-process (:class:`~tests.director.floortables.
LocalFloor`, which add chips and report ``stack_adjusted`` as the controller does). The
table's seat stack and the director's model agree, the prize pool grows by the price, a
refused purchase changes nothing, and a bridge restart replays the purchases."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from host_bridge.app import create_app
from host_bridge.settings import Role
from tests.bridge.conftest import auth, make_settings
from tests.director.floortables import LocalFloor
from tests.director.test_director_api import make_app, url

URL = "/api/v1/director/tournaments"
TABLES = {"T1": 9, "T2": 9}
START, BUY_IN = 5_000, 10_000


@pytest.fixture
def floor_app(tmp_path: Path) -> Iterator[tuple[TestClient, LocalFloor]]:
    app, floor = make_app(tmp_path, TABLES, seed=3)
    with TestClient(app) as client:
        yield client, floor


def start(client: TestClient, **kw: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"name": "Rebuy night", "tables": TABLES,
                            "players": [f"p{i:02d}" for i in range(12)],
                            "starting_stack": START, "buy_in": BUY_IN, "seed": 6,
                            "rebuy_levels": 2, "rebuy_fee": 1_000}
    body.update(kw)
    r = client.post(URL, json=body, headers=auth(Role.DIRECTOR))
    assert r.status_code == 201, r.text
    r = client.post(f"{url(client)}/start", headers=auth(Role.DIRECTOR))
    assert r.status_code == 200, r.text
    status: dict[str, Any] = r.json()
    return status


def seat_of(status: dict[str, Any], player: str) -> tuple[str, int, int]:
    """(table, seat, stack) of ``player`` as the director shows it."""
    for t in status["tables"]:
        for p in t["players"]:
            if p["player"] == player:
                return t["table"], p["seat"], p["stack"]
    raise AssertionError(f"{player} is not seated")


def heard(client: TestClient, floor: LocalFloor) -> dict[str, Any]:
    """The director's status once it has heard every hand the tables played."""
    deadline = time.monotonic() + 10.0
    while True:
        status: dict[str, Any] = client.get(url(client), headers=auth(Role.VIEWER)).json()
        hands = {t["table"]: t["hands"] for t in status["tables"]}
        if all(hands[w] == t.hands for w, t in floor.tables.items()) \
                or time.monotonic() > deadline:
            return status
        time.sleep(0.02)


def test_tourn_10_a_player_at_the_starting_stack_rebuys_at_the_table(
        floor_app: tuple[TestClient, LocalFloor]) -> None:
    client, floor = floor_app
    before = start(client)
    wire, seat, stack = seat_of(before, "p03")
    assert stack == START == floor.tables[wire].seats[seat][1]
    r = client.post(f"{url(client)}/players/p03/rebuy", headers=auth(Role.DIRECTOR))
    assert r.status_code == 200, r.text
    after = r.json()
    assert floor.tables[wire].seats[seat] == ("p03", 2 * START)  # the table has the chips
    assert seat_of(after, "p03")[2] == 2 * START  # ... and the model agrees
    assert after["prize_pool"] == before["prize_pool"] + BUY_IN  # the fee stays out
    assert after["chips_in_play"] == before["chips_in_play"] + START
    assert floor.tables[wire].commands.count("add_chips") == 1
    assert not floor.tables[wire].paused  # held for the purchase, then released
    assert after["anomalies"] == []
    bridge = client.get(f"/api/v1/tables/{wire}", headers=auth(Role.VIEWER)).json()
    assert {s["seat"]: s["stack"] for s in bridge["seats"]}[seat] == 2 * START  # stored


def test_tourn_10_a_stack_above_the_start_is_refused_and_changes_nothing(
        floor_app: tuple[TestClient, LocalFloor]) -> None:
    client, floor = floor_app
    start(client)
    assert client.post(f"{url(client)}/players/p03/rebuy", headers=auth(Role.DIRECTOR)
                       ).status_code == 200  # before the first hand: always (TOURN-10)
    status = client.get(url(client), headers=auth(Role.VIEWER)).json()
    wire, seat, _ = seat_of(status, "p03")
    other = next(w for w in floor.tables if w != wire)
    assert client.portal.call(floor.tables[other].play_now)  # type: ignore[union-attr]
    before = heard(client, floor)
    r = client.post(f"{url(client)}/players/p03/rebuy", headers=auth(Role.DIRECTOR))
    assert r.status_code == 409 and "TOURN-10" in r.json()["detail"], r.text
    assert "more than the starting stack" in r.json()["detail"]
    after = client.get(url(client), headers=auth(Role.VIEWER)).json()
    assert floor.tables[wire].seats[seat] == ("p03", 2 * START)
    assert after["prize_pool"] == before["prize_pool"]
    assert after["chips_in_play"] == before["chips_in_play"]
    assert floor.tables[wire].commands.count("add_chips") == 1  # nothing more was sent
    assert after["anomalies"] == []


def test_tourn_10_a_bust_rebuys_before_the_next_hand_and_is_seated_again(
        floor_app: tuple[TestClient, LocalFloor]) -> None:
    client, floor = floor_app
    start(client)
    table = floor.tables["T1"]
    seated = {p for p, _ in table.seats.values()}
    while {p for p, _ in table.seats.values()} == seated:  # all-in hands: one busts
        assert client.portal.call(table.play_now)  # type: ignore[union-attr]
    status = heard(client, floor)
    bust = sorted(seated - {p for p, _ in table.seats.values()})[0]
    assert status["players_left"] == 12  # pending, not out: a rebuy is open (TOURN-10)
    pool = status["prize_pool"]
    r = client.post(f"{url(client)}/players/{bust}/rebuy", headers=auth(Role.DIRECTOR))
    assert r.status_code == 200, r.text
    assert (bust, START) in table.seats.values()  # back in their seat with the rebuy
    assert table.commands.count("seat_player") == len(seated) + 1  # seated again
    assert "add_chips" not in table.commands
    after = r.json()
    assert seat_of(after, bust)[2] == START and after["prize_pool"] == pool + BUY_IN
    assert client.portal.call(table.play_now)  # type: ignore[union-attr]
    after = heard(client, floor)
    assert after["anomalies"] == [] and not any(p["player"] == bust for p in after["places"])


def test_refusals_name_the_rule_and_unknown_players_are_404(
        floor_app: tuple[TestClient, LocalFloor]) -> None:
    client, floor = floor_app
    d = auth(Role.DIRECTOR)
    r = client.post(f"{URL}/nosuch/players/p01/rebuy", headers=d)
    assert r.status_code == 404 and "no tournament 'nosuch'" in r.json()["detail"]
    start(client, rebuy_levels=0)  # a freezeout
    r = client.post(f"{url(client)}/players/nobody/rebuy", headers=d)
    assert r.status_code == 404 and "not registered" in r.json()["detail"]
    r = client.post(f"{url(client)}/players/p01/rebuy", headers=d)
    assert r.status_code == 409 and "TOURN-9" in r.json()["detail"]
    r = client.post(f"{url(client)}/players/p01/add-on", headers=d)
    assert r.status_code == 409 and "TOURN-12" in r.json()["detail"]
    for role in (Role.VIEWER, Role.FLOOR):
        r = client.post(f"{url(client)}/players/p01/rebuy", headers=auth(role))
        assert r.status_code == 403
    assert not any("add_chips" in t.commands for t in floor.tables.values())


def test_tourn_12_the_add_on_in_the_break_after_level_2(
        floor_app: tuple[TestClient, LocalFloor]) -> None:
    client, floor = floor_app
    d = auth(Role.DIRECTOR)
    bad = client.post(URL, json={"name": "x", "tables": TABLES, "players": ["a", "b"],
                                 "add_on": True}, headers=d)
    assert bad.status_code == 422 and "TOURN-12" in bad.json()["message"]  # no such break
    status = start(client, add_on=True, level_minutes=1 / 60,
                   breaks=[{"after_level": 2, "minutes": 30}])
    r = client.post(f"{url(client)}/players/p05/add-on", headers=d)
    assert r.status_code == 409 and "TOURN-12" in r.json()["detail"]  # level 1: no add-on
    deadline = time.monotonic() + 10.0
    while not status["on_break"] and time.monotonic() < deadline:
        time.sleep(0.05)
        status = client.get(url(client), headers=auth(Role.VIEWER)).json()
    assert status["on_break"] and status["level"] == 2
    wire, seat, stack = seat_of(status, "p05")
    r = client.post(f"{url(client)}/players/p05/add-on", headers=d)
    assert r.status_code == 200, r.text
    assert floor.tables[wire].seats[seat] == ("p05", stack + START)
    assert seat_of(r.json(), "p05")[2] == stack + START
    assert r.json()["prize_pool"] == status["prize_pool"] + BUY_IN
    again = client.post(f"{url(client)}/players/p05/add-on", headers=d)
    assert again.status_code == 409 and "has taken the add-on" in again.json()["detail"]


def test_tourn_10_a_bridge_restart_replays_the_rebuy(tmp_path: Path) -> None:
    app, floor = make_app(tmp_path, TABLES, seed=3)
    with TestClient(app) as client:
        start(client)
        assert client.post(f"{url(client)}/players/p07/rebuy",
                           headers=auth(Role.DIRECTOR)).status_code == 200
        before = client.get(url(client), headers=auth(Role.VIEWER)).json()
    app.state.engine.dispose()
    again = create_app(make_settings(tmp_path, command_timeout_s=5.0), publisher=floor)
    floor.connect(again.state.bridge.receive)
    with TestClient(again) as client:
        after = client.get(url(client), headers=auth(Role.VIEWER)).json()
    assert after["id"] == before["id"]
    assert seat_of(after, "p07")[2] == 2 * START
    assert after["prize_pool"] == before["prize_pool"]
    assert after["chips_in_play"] == before["chips_in_play"] and after["anomalies"] == []
