"""Several tournaments on one bridge (issue 19): each over its own tables, every route under
the tournament's id, through the REST API with contract tables behind it in-process
(:class:`~tests.director.floortables.LocalFloor`, dealt by the test). Each tournament has
its own seating, clock and places and hears only its own tables; a restart restores them
all (a finished one too); a table a live tournament uses is refused (TOURN-1); an unknown
id is a 404; roles other than director/admin are refused and change nothing; a move that
waits for a hand to end is shown pending (TOURN-19), the status never fails."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from host_bridge.app import create_app
from host_bridge.director.journal import TableReport
from host_bridge.settings import Role
from tests.bridge.conftest import auth, make_settings
from tests.director.floortables import LocalFloor
from tests.director.test_director_api import URL, counts, make_app

TABLES = {"T1": 9, "T2": 9, "T3": 9, "T4": 9, "T5": 9}
D = auth(Role.DIRECTOR)
V = auth(Role.VIEWER)


@pytest.fixture
def floor_app(tmp_path: Path) -> Iterator[tuple[TestClient, LocalFloor]]:
    app, floor = make_app(tmp_path, TABLES)
    with TestClient(app) as client:
        yield client, floor


def create(client: TestClient, name: str, tables: list[str], players: int,
           **kw: Any) -> str:
    body = {"name": name, "tables": {w: 9 for w in tables}, "seed": 4,
            "players": [f"{name[:1].lower()}{i:02d}" for i in range(players)], **kw}
    r = client.post(URL, json=body, headers=D)
    assert r.status_code == 201, r.text
    tid: str = r.json()["id"]
    return tid


def start(client: TestClient, tid: str) -> dict[str, Any]:
    r = client.post(f"{URL}/{tid}/start", headers=D)
    assert r.status_code == 200, r.text
    status: dict[str, Any] = r.json()
    return status


def get(client: TestClient, tid: str, part: str = "") -> dict[str, Any]:
    r = client.get(f"{URL}/{tid}{part}", headers=V)
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


def until(client: TestClient, tid: str, ready: Callable[[dict[str, Any]], bool]
          ) -> dict[str, Any]:
    """The tournament's status once ``ready`` holds (the tables' events reach the
    director through the bridge a moment after a hand is played)."""
    deadline = time.monotonic() + 10.0
    while True:
        status = get(client, tid)
        if ready(status) or time.monotonic() > deadline:
            return status
        time.sleep(0.02)


def bust_one(client: TestClient, floor: LocalFloor, tid: str, wire: str) -> dict[str, Any]:
    """All-in hands at ``wire`` until a player is out; the status once heard."""
    table = floor.tables[wire]
    before = len(table.seats)
    while len(table.seats) == before:
        assert client.portal.call(table.play_now)  # type: ignore[union-attr]
    return until(client, tid, lambda s: s["players_left"] == sum(
        len(floor.tables[t["table"]].seats) for t in s["tables"]))


def seated_at(floor: LocalFloor, wires: list[str]) -> list[str]:
    return sorted(p for w in wires for p, _ in floor.tables[w].seats.values())


def test_tourn_1_two_tournaments_run_at_once_over_disjoint_tables(
        floor_app: tuple[TestClient, LocalFloor]) -> None:
    client, floor = floor_app
    a = create(client, "Alpha", ["T1", "T2"], 14, level_minutes=20)
    b = create(client, "Bravo", ["T3", "T4"], 10, level_minutes=30)
    sa, sb = start(client, a), start(client, b)
    assert {t["table"] for t in sa["tables"]} == {"T1", "T2"}
    assert {t["table"] for t in sb["tables"]} == {"T3", "T4"}
    assert seated_at(floor, ["T1", "T2"]) == [f"a{i:02d}" for i in range(14)]
    assert seated_at(floor, ["T3", "T4"]) == [f"b{i:02d}" for i in range(10)]
    assert not floor.tables["T5"].seats
    assert 1100 < sa["seconds_left"] <= 1200 and 1700 < sb["seconds_left"] <= 1800
    sa = bust_one(client, floor, a, "T1")
    assert sa["players_left"] < 14 and sa["places"][-1]["place"] == 14
    sb = get(client, b)
    assert sb["players_left"] == 10 and sb["places"] == [] and sb["anomalies"] == []
    assert all(t["hands"] == 0 for t in sb["tables"])
    listed = client.get(URL, headers=V).json()
    assert [(t["id"], t["name"], t["stage"], t["entries"], t["tables"]) for t in listed] == [
        (a, "Alpha", "running", 14, ["T1", "T2"]), (b, "Bravo", "running", 10, ["T3", "T4"])]
    assert listed[0]["players_left"] == sa["players_left"]
    room = client.app.state.director_room  # type: ignore[attr-defined]
    heard = {tid: {i.entry.table for i in room.journal.replay(tid)
                   if isinstance(i.entry, TableReport)} for tid in (a, b)}
    assert heard == {a: {"T1", "T2"}, b: {"T3", "T4"}}  # each only its own tables


def test_tourn_1_a_table_in_use_is_refused_and_free_again_once_finished(
        floor_app: tuple[TestClient, LocalFloor]) -> None:
    client, floor = floor_app
    a = create(client, "Alpha", ["T1", "T2"], 6)
    r = client.post(URL, json={"name": "Clash", "tables": {"T2": 9, "T3": 9},
                               "players": ["x", "y"]}, headers=D)
    assert r.status_code == 409 and r.headers["X-Rule"] == "TOURN-1"
    assert f"table T2 is in tournament {a}" in r.json()["detail"]
    assert len(client.get(URL, headers=V).json()) == 1  # nothing created
    duel = create(client, "Duel", ["T5"], 2)
    start(client, duel)
    bust_one(client, floor, duel, "T5")  # heads-up all-in: a winner
    done = until(client, duel, lambda s: s["stage"] == "finished")
    assert done["stage"] == "finished" and done["winner"] is not None
    again = create(client, "Rematch", ["T5"], 2)  # the finished one's table is free
    assert get(client, again)["stage"] == "registering"
    assert get(client, duel, "/places")["winner"] == done["winner"]  # still readable
    assert get(client, a)["stage"] == "registering"


def test_a_restart_restores_every_tournament_a_finished_one_too(tmp_path: Path) -> None:
    app, floor = make_app(tmp_path, TABLES)
    with TestClient(app) as client:
        a = create(client, "Alpha", ["T1", "T2"], 14)
        b = create(client, "Bravo", ["T3", "T4"], 10)
        start(client, a)
        start(client, b)
        bust_one(client, floor, a, "T1")
        bust_one(client, floor, b, "T4")
        duel = create(client, "Duel", ["T5"], 2)
        start(client, duel)
        bust_one(client, floor, duel, "T5")
        until(client, duel, lambda s: s["stage"] == "finished")
        before = {tid: get(client, tid) for tid in (a, b, duel)}
    app.state.engine.dispose()
    again = create_app(make_settings(tmp_path, command_timeout_s=5.0), publisher=floor)
    floor.connect(again.state.bridge.receive)
    with TestClient(again) as client:
        assert [t["id"] for t in client.get(URL, headers=V).json()] == [a, b, duel]
        after = {tid: get(client, tid) for tid in (a, b, duel)}
        podium = get(client, duel, "/places")
    for tid in (a, b, duel):
        for key in ("stage", "tables", "places", "players_left", "chips_in_play"):
            assert after[tid][key] == before[tid][key], (tid, key)
        assert after[tid]["anomalies"] == []
    assert podium["winner"] == before[duel]["winner"] and podium["places"][0]["place"] == 1


@pytest.mark.parametrize(("method", "part"), [
    ("GET", ""), ("GET", "/balancing"), ("GET", "/hand-for-hand"), ("GET", "/places"),
    ("POST", "/players"), ("POST", "/start"), ("POST", "/balancing"),
    ("POST", "/last-hands"), ("POST", "/players/ana/rebuy"), ("POST", "/players/ana/add-on")])
def test_an_unknown_tournament_is_a_404_naming_it(
        floor_app: tuple[TestClient, LocalFloor], method: str, part: str) -> None:
    client, _ = floor_app
    create(client, "Alpha", ["T1"], 3)
    body = {"player": "zed"} if part == "/players" else {}
    r = client.request(method, f"{URL}/nosuch{part}", json=body, headers=D)
    assert r.status_code == 404
    assert r.json()["detail"].startswith("no tournament 'nosuch' on this bridge")


def test_roles_other_than_director_are_refused_and_change_nothing(
        floor_app: tuple[TestClient, LocalFloor]) -> None:
    client, floor = floor_app
    a = create(client, "Alpha", ["T1", "T2"], 6)
    before = get(client, a)
    for role in (Role.VIEWER, Role.FLOOR, Role.BROADCAST):
        h = auth(role)
        assert client.post(URL, json={"name": "x", "tables": {"T3": 9}},
                           headers=h).status_code == 403
        for part, body in (("/players", {"player": "zed"}), ("/start", {}),
                           ("/balancing", {}), ("/last-hands", {}),
                           ("/players/a01/rebuy", {}), ("/players/a01/add-on", {})):
            r = client.post(f"{URL}/{a}{part}", json=body, headers=h)
            assert r.status_code == 403 and "director" in r.json()["detail"], part
    after = get(client, a)
    assert after["version"] == before["version"] and after["stage"] == "registering"
    assert after["registered"] == before["registered"]
    assert len(client.get(URL, headers=V).json()) == 1
    assert not any(t.commands for t in floor.tables.values())


def test_tourn_19_a_move_waiting_for_a_hand_is_shown_pending(
        floor_app: tuple[TestClient, LocalFloor]) -> None:
    client, floor = floor_app
    four = ["T1", "T2", "T3", "T4"]
    a = create(client, "Alpha", four, 30)
    start(client, a)
    short = min(four, key=lambda w: (len(floor.tables[w].seats), w))
    while len(floor.tables[short].seats) > 5:  # the short table: balancing is due
        assert client.portal.call(floor.tables[short].play_now)  # type: ignore[union-attr]
    until(client, a, lambda s: counts(s)[short] == len(floor.tables[short].seats))
    playing = [w for w in four if client.portal.call(floor.tables[w].start_hand)]  # type: ignore[union-attr]
    assert playing and short not in playing  # the short table is held (TOURN-19)
    status = until(client, a, lambda s: all(t["in_hand"] for t in s["tables"]
                                            if t["table"] in playing))
    moves = [m for op in status["suggestions"] for m in op["moves"]]
    assert moves and all(m["to_table"] == short for m in moves)
    assert all(m["pending"] for m in moves)  # each waits for its table's hand to end
    assert get(client, a, "/balancing")["suggestions"] == status["suggestions"]
    for w in playing:
        client.portal.call(floor.tables[w].finish_hand)  # type: ignore[union-attr]
    after = until(client, a, lambda s: not any(t["in_hand"] for t in s["tables"]))
    assert not any(m["pending"] for op in after["suggestions"] for m in op["moves"])
    assert after["anomalies"] == []
