"""The director's discipline from the floor (issue 19): penalties and disqualification
(PEN-*), cancellation with compensation (CANCEL-*, CRASH-4), move slips and the HexaPro
sit & go (SNG-*), through the bridge's REST API with contract tables behind it
(:class:`~tests.director.floortables.LocalFloor`). Every action journaled with who took it,
403 for non-directors with nothing changed, 409 naming the rule."""

from __future__ import annotations

import time
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from controller.clocks.house import parse_house
from controller.events import SetHouse
from controller.sync.messages import CommandMessage, ReplyMessage
from host_bridge.app import create_app
from host_bridge.director.sng import HEXAPRO
from host_bridge.settings import Role
from tests.bridge.conftest import auth, make_settings
from tests.director.floortables import ContractTable, LocalFloor
from tests.director.test_director_api import make_app, url

URL = "/api/v1/director/tournaments"
TABLES = {"T1": 9, "T2": 9}
START, BUY_IN, FEE = 5_000, 10_000, 1_000


@pytest.fixture
def floor_app(tmp_path: Path) -> Iterator[tuple[TestClient, LocalFloor]]:
    app, floor = make_app(tmp_path, TABLES, seed=3)
    with TestClient(app) as client:
        yield client, floor


def create(client: TestClient, players: int = 12, **kw: Any) -> str:
    body: dict[str, Any] = {"name": "Discipline", "tables": TABLES,
                            "players": [f"p{i:02d}" for i in range(players)],
                            "starting_stack": START, "buy_in": BUY_IN, "fee": FEE, "seed": 6}
    body.update(kw)
    r = client.post(URL, json=body, headers=auth(Role.DIRECTOR))
    assert r.status_code == 201, r.text
    return url(client)


def start(client: TestClient, **kw: Any) -> str:
    where = create(client, **kw)
    r = client.post(f"{where}/start", headers=auth(Role.DIRECTOR))
    assert r.status_code == 200, r.text
    return where


def seat_of(client: TestClient, where: str, player: str) -> tuple[str, int, int]:
    status = client.get(where, headers=auth(Role.VIEWER)).json()
    for t in status["tables"]:
        for p in t["players"]:
            if p["player"] == player:
                return t["table"], p["seat"], p["stack"]
    raise AssertionError(f"{player} is not seated")


def penalise(client: TestClient, where: str, role: Role = Role.DIRECTOR,
             **body: Any) -> Any:
    return client.post(f"{where}/penalties", json=body, headers=auth(role))


def floor_of(client: TestClient, where: str) -> dict[str, Any]:
    out: dict[str, Any] = client.get(f"{where}/floor", headers=auth(Role.VIEWER)).json()
    return out


# -- penalties (PEN-*) ------------------------------------------------------------------------
def test_pen_2_a_round_penalty_reaches_the_table_as_hands_to_serve(
        floor_app: tuple[TestClient, LocalFloor]) -> None:
    client, floor = floor_app
    where = start(client)
    wire, seat, stack = seat_of(client, where, "p03")
    at_table = len(floor.tables[wire].seats)
    r = penalise(client, where, player="p03", penalty="rounds", count=1, reason="abuse")
    assert r.status_code == 200, r.text
    shown = {p["player"]: p for p in r.json()["penalties"]}
    assert shown["p03"]["hands_left"] == at_table  # PEN-2: a hand per player at the table
    table = floor.tables[wire]
    assert table.commands[-3:] == ["remove_player", "seat_player", "resume"]  # held, again
    assert table.seats[seat] == ("p03", stack)  # ... in the same seat, same stack
    decision = r.json()["decisions"][-1]
    assert decision["penalty"] == "rounds" and decision["by"] and decision["role"] == "director"


def test_pen_3_a_timed_removal_is_refused_without_warning_first_rules(
        floor_app: tuple[TestClient, LocalFloor]) -> None:
    client, _ = floor_app
    where = start(client)
    r = penalise(client, where, player="p03", penalty="removal")
    assert r.status_code == 409 and r.headers["X-Rule"] == "PEN-3", r.text
    assert floor_of(client, where)["decisions"] == []  # nothing journaled


def test_pen_1_a_non_director_is_refused_and_nothing_changes(
        floor_app: tuple[TestClient, LocalFloor]) -> None:
    client, floor = floor_app
    where = start(client)
    before = {w: list(t.commands) for w, t in floor.tables.items()}
    for role in (Role.FLOOR, Role.VIEWER):
        r = penalise(client, where, role, player="p03", penalty="hands", count=3)
        assert r.status_code == 403, r.text
        assert client.post(f"{where}/cancellation", json={},
                           headers=auth(role)).status_code == 403
    assert floor_of(client, where)["penalties"] == []
    assert {w: list(t.commands) for w, t in floor.tables.items()} == before
    assert client.get(where, headers=auth(Role.VIEWER)).json()["stage"] == "running"


def test_pen_7_a_disqualified_player_s_chips_leave_play_without_a_prize(
        floor_app: tuple[TestClient, LocalFloor]) -> None:
    client, floor = floor_app
    where = start(client)
    wire, seat, stack = seat_of(client, where, "p05")
    before = client.get(where, headers=auth(Role.VIEWER)).json()
    r = penalise(client, where, player="p05", penalty="disqualify", reason="chip dumping")
    assert r.status_code == 200, r.text
    assert seat not in floor.tables[wire].seats  # RemovePlayer: off the table
    after = client.get(where, headers=auth(Role.VIEWER)).json()
    assert after["chips_in_play"] == before["chips_in_play"] - stack
    assert after["prize_pool"] == before["prize_pool"]  # the buy-in stays in the pool
    places = client.get(f"{where}/places", headers=auth(Role.VIEWER)).json()["places"]
    placed = [p for p in places if p.get("player") == "p05" or p.get("entry") == "p05"]
    assert placed and all(p.get("prize", 0) == 0 for p in placed)
    again = penalise(client, where, player="p05", penalty="hands", count=1)
    assert again.status_code == 409 and again.headers["X-Rule"] == "PEN-6"


# -- cancellation (CANCEL-*, CRASH-4) -------------------------------------------------------------
def test_cancel_1_before_the_start_every_buy_in_and_fee_is_refunded(
        floor_app: tuple[TestClient, LocalFloor]) -> None:
    client, _ = floor_app
    where = create(client, players=4)
    r = client.get(f"{where}/cancellation", headers=auth(Role.VIEWER))
    assert r.status_code == 200, r.text
    preview = r.json()
    assert preview["rule"] == "CANCEL-1"
    assert [c["refund"] for c in preview["compensation"]] == [BUY_IN + FEE] * 4
    assert client.get(where, headers=auth(Role.VIEWER)).json()["stage"] == "registering"


def test_cancel_2_preview_then_confirm_ends_it_and_frees_the_tables(
        floor_app: tuple[TestClient, LocalFloor]) -> None:
    client, floor = floor_app
    where = start(client)
    preview = client.get(f"{where}/cancellation", headers=auth(Role.VIEWER)).json()
    assert preview["rule"] == "CANCEL-2"
    assert sum(c["prize"] for c in preview["compensation"]) == 12 * BUY_IN  # the pool
    assert {c["fees"] for c in preview["compensation"]} == {FEE}
    r = client.post(f"{where}/cancellation", json={"reason": "power cut"},
                    headers=auth(Role.DIRECTOR))
    assert r.status_code == 200, r.text
    assert r.json()["compensation"] == preview["compensation"]
    assert client.get(where, headers=auth(Role.VIEWER)).json()["stage"] == "cancelled"
    assert all(t.closed for t in floor.tables.values())
    again = client.post(f"{where}/cancellation", json={}, headers=auth(Role.DIRECTOR))
    assert again.status_code == 409 and again.headers["X-Rule"] == "CANCEL-9"
    r = client.post(URL, json={"name": "Next", "tables": TABLES, "players": ["a", "b"]},
                    headers=auth(Role.DIRECTOR))
    assert r.status_code == 201, r.text  # the tables belong to no live tournament now


def test_crash_4_a_crash_cancels_under_cancel_and_survives_a_restart(
        tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, TABLES, seed=3)
    with TestClient(app) as client:
        where = start(client)
        r = client.post(f"{where}/cancellation", json={"cause": "crash"},
                        headers=auth(Role.DIRECTOR))
        assert r.status_code == 200, r.text
        paid = r.json()
        assert paid["cause_rule"] == "CRASH-4" and paid["rule"] == "CANCEL-2"
    again = create_app(make_settings(tmp_path, command_timeout_s=5.0),
                       publisher=LocalFloor(list(TABLES)))
    with TestClient(again) as client:
        restored = client.get(f"{where}/cancellation", headers=auth(Role.VIEWER)).json()
        assert restored == paid
        cancelled = floor_of(client, where)["cancelled"]
        assert cancelled["rule"] == "CRASH-4" and cancelled["by"]


# -- move slips (TOURN-19) -----------------------------------------------------------------------
def test_tourn_19_move_slips_for_suggested_and_confirmed_moves(
        floor_app: tuple[TestClient, LocalFloor]) -> None:
    client, _ = floor_app
    where = start(client, auto_balance=False)
    status = client.get(where, headers=auth(Role.VIEWER)).json()
    t1 = next(t for t in status["tables"] if t["table"] == "T1")
    for p in t1["players"][:3]:  # three disqualified at T1: it is short by three
        assert penalise(client, where, player=p["player"],
                        penalty="disqualify").status_code == 200
    balancing = client.get(f"{where}/balancing", headers=auth(Role.VIEWER)).json()
    moves = [m for op in balancing["suggestions"] for m in op["moves"]]
    assert moves
    slips = client.get(f"{where}/move-slips", headers=auth(Role.VIEWER))
    assert slips.status_code == 200 and slips.headers["content-type"].startswith("text/html")
    m = moves[0]
    assert m["player"] in slips.text and "suggested" in slips.text
    assert f"table {m['to_table']}, seat {m['to_seat']}" in slips.text
    r = client.post(f"{where}/balancing", json={"version": balancing["version"]},
                    headers=auth(Role.DIRECTOR))
    assert r.status_code == 200, r.text
    slips = client.get(f"{where}/move-slips", headers=auth(Role.VIEWER)).text
    assert "confirmed #1" in slips and f"Stack: {START}" in slips
    assert floor_of(client, where)["moves"][0]["player"] == m["player"]


# -- the sit & go (SNG-*) -----------------------------------------------------------------------
@pytest.fixture
def houses_taken(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Contract tables that take ``set_house`` (as the controller does between hands)."""
    texts: list[str] = []
    perform = ContractTable._perform

    async def _perform(self: ContractTable, message: CommandMessage) -> None:
        if not isinstance(message.command, SetHouse):
            await perform(self, message)
            return
        texts.append(message.command.text)
        assert self.send is not None
        reply = ReplyMessage(table=self.table, boot=self.boot, seq=0, ts=time.time(),
                             command_id=message.command_id, status="ok")
        await self.send(self.topics.reply, reply.to_wire())

    monkeypatch.setattr(ContractTable, "_perform", _perform)
    return texts


def test_sng_3_the_multiplier_is_drawn_at_the_start_shown_and_sent_to_the_table(
        tmp_path: Path, houses_taken: list[str]) -> None:
    app, floor = make_app(tmp_path, {"S1": 3}, seed=3)
    with TestClient(app) as client:
        r = client.post("/api/v1/director/sit-and-go", json={
            "format": "hexapro", "buy_in": 1_000, "table": "S1", "players": ["a", "b", "c"],
            "seed": 11}, headers=auth(Role.DIRECTOR))
        assert r.status_code == 201, r.text
        where = f"{URL}/{r.json()['id']}"
        assert floor_of(client, where)["sit_and_go"]["multiplier"] is None  # not yet drawn
        r = client.post(f"{where}/start", headers=auth(Role.DIRECTOR))
        assert r.status_code == 200, r.text
        sng = floor_of(client, where)["sit_and_go"]
        times = Fraction(str(sng["multiplier"]))
        row = next(x for x in HEXAPRO if x.times == times)
        assert sng["prize_pool"] == int(times * 1_000)  # SNG-3: multiplier x one buy-in
        assert sum(sng["prizes"]) == sng["prize_pool"]
        assert sorted(s[1] for s in floor.tables["S1"].seats.values()) == [
            row.starting_stack] * 3
        assert len(houses_taken) == 1  # the table plays the HexaPro house at that multiplier
        assert parse_house(houses_taken[0], "sent").multiplier == float(times)
        drawn = [d for d in floor_of(client, where)["decisions"] if d["kind"] == "multiplier"]
        assert drawn and drawn[0]["times"] == str(times) and drawn[0]["by"]


def test_sng_2_a_buy_in_not_on_offer_is_refused_and_nothing_is_created(
        floor_app: tuple[TestClient, LocalFloor]) -> None:
    client, _ = floor_app
    r = client.post("/api/v1/director/sit-and-go", json={
        "format": "hexapro", "buy_in": 1_234, "table": "T1"}, headers=auth(Role.DIRECTOR))
    assert r.status_code == 422 and "SNG-2" in r.text
    assert client.get(URL, headers=auth(Role.VIEWER)).json() == []
    r = client.post("/api/v1/director/sit-and-go", json={
        "buy_in": 1_000, "table": "T1"}, headers=auth(Role.FLOOR))
    assert r.status_code == 403
    assert client.get(URL, headers=auth(Role.VIEWER)).json() == []


# -- the field before the start (TOURN-7, CANCEL-9) --------------------------------------------
def test_tourn_7_unregister_from_the_floor_refunds_and_is_refused_once_started(
        floor_app: tuple[TestClient, LocalFloor]) -> None:
    client, _ = floor_app
    where = create(client, players=4)
    assert client.delete(f"{where}/players/p01", headers=auth(Role.FLOOR)).status_code == 403
    r = client.delete(f"{where}/players/p01", headers=auth(Role.DIRECTOR))
    assert r.status_code == 200, r.text
    assert r.json() == {"player": "p01", "refund": BUY_IN + FEE, "rule": "TOURN-7",
                        "entries": 3}
    decision = floor_of(client, where)["decisions"][-1]
    assert (decision["kind"], decision["player"], decision["by"]) == \
        ("unregistered", "p01", "director-1")
    again = client.delete(f"{where}/players/p01", headers=auth(Role.DIRECTOR))
    assert again.status_code == 409 and again.headers["X-Rule"] == "TOURN-6"
    assert client.post(f"{where}/start", headers=auth(Role.DIRECTOR)).status_code == 200
    late = client.delete(f"{where}/players/p02", headers=auth(Role.DIRECTOR))
    assert late.status_code == 409 and late.headers["X-Rule"] == "TOURN-7"
    assert client.get(where, headers=auth(Role.VIEWER)).json()["stage"] == "running"


def test_cancel_9_a_sit_and_go_short_of_its_field_is_cancelled_and_refunded(
        tmp_path: Path) -> None:
    app, _ = make_app(tmp_path, {"S1": 3}, seed=3)
    with TestClient(app) as client:
        r = client.post("/api/v1/director/sit-and-go", json={
            "format": "hexapro", "buy_in": 1_000, "table": "S1", "players": ["a", "b"]},
            headers=auth(Role.DIRECTOR))
        assert r.status_code == 201, r.text
        where = f"{URL}/{r.json()['id']}"
        r = client.post(f"{where}/cancellation", json={"cause": "too_few"},
                        headers=auth(Role.DIRECTOR))
        assert r.status_code == 200, r.text
        paid = r.json()["compensation"]  # every buy-in back, as before any start
        assert [(c["player"], c["total"], c["rule"]) for c in paid] == \
            [("a", 1_000, "CANCEL-1"), ("b", 1_000, "CANCEL-1")]
        assert client.get(where, headers=auth(Role.VIEWER)).json()["stage"] == "cancelled"


def test_cancel_9_a_full_field_is_not_cancelled_as_too_few(
        floor_app: tuple[TestClient, LocalFloor]) -> None:
    client, _ = floor_app
    where = create(client, players=4)
    r = client.post(f"{where}/cancellation", json={"cause": "too_few"},
                    headers=auth(Role.DIRECTOR))
    assert r.status_code == 409 and r.headers["X-Rule"] == "CANCEL-9"
    assert client.get(where, headers=auth(Role.VIEWER)).json()["stage"] == "registering"
