"""The director's money through the REST API, with contract tables behind it in-process
(issue 19): re-entry (TOURN-4/6), surrender (TOURN-15), progressive knockouts (TOURN-17),
deals shown then confirmed (TOURN-29) and who was paid what. 403 for the floor and
viewers (nothing changes); a refusal is a 409 naming the rule; a restart replays all."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from host_bridge.app import create_app
from host_bridge.director.payouts import icm_chop
from host_bridge.settings import Role
from tests.bridge.conftest import auth, make_settings
from tests.director.floortables import LocalFloor
from tests.director.test_director_api import make_app, url

URL = "/api/v1/director/tournaments"
TABLES = {"T1": 9, "T2": 9}
START, BUY_IN = 5_000, 10_000
D = auth(Role.DIRECTOR)
V = auth(Role.VIEWER)


@pytest.fixture
def floor_app(tmp_path: Path) -> Iterator[tuple[TestClient, LocalFloor]]:
    app, floor = make_app(tmp_path, TABLES, seed=3)
    with TestClient(app) as client:
        yield client, floor


def start(client: TestClient, players: int = 12, **kw: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"name": "Money night", "tables": TABLES,
                            "players": [f"p{i:02d}" for i in range(players)],
                            "starting_stack": START, "buy_in": BUY_IN, "seed": 6}
    body.update(kw)
    r = client.post(URL, json=body, headers=D)
    assert r.status_code == 201, r.text
    r = client.post(f"{url(client)}/start", headers=D)
    assert r.status_code == 200, r.text
    status: dict[str, Any] = r.json()
    return status


def heard(client: TestClient, floor: LocalFloor) -> dict[str, Any]:
    """The director's status once it has heard every hand the tables played."""
    deadline = time.monotonic() + 10.0
    while True:
        status: dict[str, Any] = client.get(url(client), headers=V).json()
        hands = {t["table"]: t["hands"] for t in status["tables"]}
        if all(hands[w] == t.hands for w, t in floor.tables.items()) \
                or time.monotonic() > deadline:
            return status
        time.sleep(0.02)


def bust_one(client: TestClient, floor: LocalFloor, wire: str = "T1") -> str:
    """Play all-in hands at ``wire`` until someone busts; that player."""
    table = floor.tables[wire]
    seated = {p for p, _ in table.seats.values()}
    while {p for p, _ in table.seats.values()} == seated:
        assert client.portal.call(table.play_now)  # type: ignore[union-attr]
    heard(client, floor)
    return sorted(seated - {p for p, _ in table.seats.values()})[0]


def seat_of(status: dict[str, Any], player: str) -> tuple[str, int, int]:
    for t in status["tables"]:
        for p in t["players"]:
            if p["player"] == player:
                return t["table"], p["seat"], p["stack"]
    raise AssertionError(f"{player} is not seated")


def stacks(status: dict[str, Any]) -> dict[str, int]:
    return {p["player"]: p["stack"] for t in status["tables"] for p in t["players"]}


# -- TOURN-29 deals and chops ------------------------------------------------------------------
def test_tourn_29_icm_and_chip_chop_are_shown_then_confirmed_and_the_prizes_follow(
        floor_app: tuple[TestClient, LocalFloor]) -> None:
    client, floor = floor_app
    start(client, players=16)  # 16 entries: two places paid
    bust_one(client, floor)
    status = heard(client, floor)
    left = stacks(status)
    prizes = status["prizes"]
    assert len(prizes) == 2 and len(set(left.values())) > 1
    icm = client.get(f"{url(client)}/deal", params={"method": "icm"}, headers=D)
    chop = client.get(f"{url(client)}/deal", params={"method": "chip_chop"}, headers=D)
    assert icm.status_code == chop.status_code == 200, icm.text
    by_icm = {p["player"]: p["amount"] for p in icm.json()["players"]}
    by_chips = {p["player"]: p["amount"] for p in chop.json()["players"]}
    assert set(by_icm) == set(by_chips) == set(left)
    assert sum(by_icm.values()) == sum(by_chips.values()) == sum(prizes) == icm.json()["pool"]
    total = sum(left.values())
    for player, chips in left.items():  # chip-chop: in proportion to chips, to the cent
        assert abs(by_chips[player] - sum(prizes) * chips / total) < 1
    names = sorted(left)
    assert [by_icm[n] for n in names] == icm_chop([left[n] for n in names], prizes)
    short = min(left, key=lambda p: left[p])  # ICM pays the short stack more than chips do
    assert by_icm[short] > by_chips[short]
    assert client.get(url(client), headers=V).json()["stage"] == "running"  # only shown

    r = client.post(f"{url(client)}/deal", json={"method": "icm", "amounts": by_icm},
                    headers=D)
    assert r.status_code == 200, r.text
    after = r.json()
    assert after["stage"] == "finished"
    placed = {p["player"]: p for p in after["places"]}
    for player, amount in by_icm.items():
        assert placed[player]["prize"] == amount
        assert (placed[player]["place"], placed[player]["place_to"]) == (1, len(by_icm))
    pay = client.get(f"{url(client)}/payouts", headers=V).json()
    assert pay["deal"] == {"method": "icm", "by": "director-1", "role": "director",
                           "amounts": by_icm}
    paid = {p["player"]: p["total"] for p in pay["paid"]}
    assert {p: paid[p] for p in by_icm} == by_icm
    assert sum(paid.values()) == pay["prize_pool"]  # nobody else is paid


def test_tourn_29_no_deal_where_the_event_forbids_it(
        floor_app: tuple[TestClient, LocalFloor]) -> None:
    client, _ = floor_app
    start(client, players=16, deals=False)
    r = client.get(f"{url(client)}/deal", headers=D)
    assert r.status_code == 409 and "no deals" in r.json()["detail"]
    assert "(TOURN-29)" in r.json()["detail"]


def test_tourn_29_a_deal_that_is_not_what_the_stacks_give_is_refused(
        floor_app: tuple[TestClient, LocalFloor]) -> None:
    client, floor = floor_app
    start(client, players=16)
    shown = client.get(f"{url(client)}/deal", params={"method": "chip_chop"}, headers=D)
    amounts = {p["player"]: p["amount"] for p in shown.json()["players"]}
    bust_one(client, floor)  # a hand changes the stacks after the preview
    r = client.post(f"{url(client)}/deal", json={"method": "chip_chop", "amounts": amounts},
                    headers=D)
    assert r.status_code == 409 and "TOURN-29" in r.json()["detail"]
    assert "preview it again" in r.json()["detail"]
    for role in (Role.FLOOR, Role.VIEWER):
        assert client.get(f"{url(client)}/deal", headers=auth(role)).status_code == 403
        assert client.post(f"{url(client)}/deal", json={"method": "icm", "amounts": amounts},
                           headers=auth(role)).status_code == 403
    assert client.get(url(client), headers=V).json()["stage"] == "running"


# -- TOURN-17 bounties and progressive knockouts ---------------------------------------------------
def test_tourn_17_progressive_knockout_pays_half_and_grows_the_knockers_bounty(
        floor_app: tuple[TestClient, LocalFloor]) -> None:
    client, floor = floor_app
    before = start(client, bounty=2_000, progressive=[5_000, 5_000])
    assert before["prize_pool"] == 12 * (BUY_IN - 2_000)  # bounties are not in the pool
    table = floor.tables["T1"]
    old = dict(table.seats)
    bust = bust_one(client, floor)
    now = {p: s for p, s in table.seats.values()}
    knocker = next(p for _, (p, s) in old.items() if p in now and now[p] > s)
    b = client.get(f"{url(client)}/bounties", headers=V).json()
    rows = {r["player"]: r for r in b["players"]}
    assert b["bounty"] == 2_000 and b["progressive"] == [5_000, 5_000]
    assert rows[knocker]["won"] == 1_000 and rows[knocker]["bounty"] == 3_000  # 17/1
    assert rows[knocker]["knockouts"] == 1
    assert rows[bust]["bounty"] == 0 and rows[bust]["status"] == "out"
    assert sum(r["won"] + r["bounty"] for r in b["players"]) + b["residue"] == 12 * 2_000
    pay = client.get(f"{url(client)}/payouts", headers=V).json()
    assert any(p["player"] == bust for p in pay["paid"])  # placed, its prize shown


# -- TOURN-4/6 re-entry ---------------------------------------------------------------------------
def test_tourn_6_a_bust_re_enters_with_a_full_stack_once(
        floor_app: tuple[TestClient, LocalFloor]) -> None:
    client, floor = floor_app
    start(client, re_entry=True, max_entries=2, late_registration_levels=2, fee=1_000)
    r = client.post(f"{url(client)}/players/p01/re-entry", headers=D)
    assert r.status_code == 409 and "TOURN-6" in r.json()["detail"]  # still in play
    bust = bust_one(client, floor)
    before = heard(client, floor)
    for role in (Role.FLOOR, Role.VIEWER):
        assert client.post(f"{url(client)}/players/{bust}/re-entry",
                           headers=auth(role)).status_code == 403
    assert client.get(url(client), headers=V).json()["entries"] == before["entries"]
    r = client.post(f"{url(client)}/players/{bust}/re-entry", headers=D)
    assert r.status_code == 200, r.text
    after = r.json()
    wire, seat, stack = seat_of(after, bust)
    assert stack == START and floor.tables[wire].seats[seat] == (bust, START)
    assert after["entries"] == before["entries"] + 1
    assert after["prize_pool"] == before["prize_pool"] + BUY_IN  # the fee stays out
    while bust in {p for p, _ in floor.tables[wire].seats.values()}:
        assert client.portal.call(floor.tables[wire].play_now)  # type: ignore[union-attr]
    heard(client, floor)
    r = client.post(f"{url(client)}/players/{bust}/re-entry", headers=D)
    assert r.status_code == 409 and "used all 2 entries" in r.json()["detail"]


def test_tourn_6_a_freezeout_has_no_re_entry(
        floor_app: tuple[TestClient, LocalFloor]) -> None:
    client, floor = floor_app
    start(client, late_registration_levels=2)
    bust = bust_one(client, floor)
    r = client.post(f"{url(client)}/players/{bust}/re-entry", headers=D)
    assert r.status_code == 409 and "no re-entry (TOURN-6)" in r.json()["detail"]
    assert client.post(f"{url(client)}/players/nobody/re-entry", headers=D).status_code == 404


# -- TOURN-15 surrender ----------------------------------------------------------------------------
def test_tourn_15_surrendered_chips_leave_play_and_the_table_follows(
        floor_app: tuple[TestClient, LocalFloor]) -> None:
    client, floor = floor_app
    before = start(client, rebuy_levels=2, surrender=True)
    wire, seat, _ = seat_of(before, "p04")
    for role in (Role.FLOOR, Role.VIEWER):
        assert client.post(f"{url(client)}/players/p04/surrender", json={"chips": 2_000},
                           headers=auth(role)).status_code == 403
    r = client.post(f"{url(client)}/players/p04/surrender", json={"chips": 2_000}, headers=D)
    assert r.status_code == 200, r.text
    after = r.json()
    assert seat_of(after, "p04") == (wire, seat, 3_000)
    assert floor.tables[wire].seats[seat] == ("p04", 3_000)  # the table has the new stack
    assert after["chips_in_play"] == before["chips_in_play"] - 2_000
    r = client.post(f"{url(client)}/players/p04/surrender", json={"chips": 9_000}, headers=D)
    assert r.status_code == 409 and "TOURN-15" in r.json()["detail"]
    r = client.post(f"{url(client)}/players/p04/rebuy", headers=D)  # what it was for
    assert r.status_code == 200 and seat_of(r.json(), "p04")[2] == 3_000 + START
    assert r.json()["anomalies"] == []


def test_tourn_15_no_surrender_unless_the_event_offers_it(
        floor_app: tuple[TestClient, LocalFloor]) -> None:
    client, floor = floor_app
    start(client, rebuy_levels=2)
    r = client.post(f"{url(client)}/players/p04/surrender", json={"chips": 100}, headers=D)
    assert r.status_code == 409 and "no surrender (TOURN-15)" in r.json()["detail"]
    assert floor.tables[seat_of(client.get(url(client), headers=V).json(), "p04")[0]
                        ].commands.count("remove_player") == 0


def test_tourn_29_a_bridge_restart_replays_the_deal_and_the_re_entry(tmp_path: Path) -> None:
    app, floor = make_app(tmp_path, TABLES, seed=3)
    with TestClient(app) as client:
        start(client, players=16, re_entry=True, max_entries=2, late_registration_levels=2)
        bust = bust_one(client, floor)
        assert client.post(f"{url(client)}/players/{bust}/re-entry",
                           headers=D).status_code == 200
        shown = client.get(f"{url(client)}/deal", headers=D).json()
        amounts = {p["player"]: p["amount"] for p in shown["players"]}
        assert client.post(f"{url(client)}/deal", json={"method": "icm", "amounts": amounts},
                           headers=D).status_code == 200
        before = client.get(f"{url(client)}/payouts", headers=V).json()
    app.state.engine.dispose()
    again = create_app(make_settings(tmp_path, command_timeout_s=5.0), publisher=floor)
    floor.connect(again.state.bridge.receive)
    with TestClient(again) as client:
        after = client.get(f"{url(client)}/payouts", headers=V).json()
        assert client.get(url(client), headers=V).json()["stage"] == "finished"
    assert after == before and after["deal"]["amounts"] == amounts
