"""The cash room over REST (issue 19, item 4): a game from a shipped house, the waiting
list (join, call, seat: ``seat_player`` sent to the table), buy-ins refused before
anything is sent (409 naming CASH-2/3/8/13/14), the sit-out removals (CASH-4/5/9), the
auto top-up (CASH-6), a new table for a long list, and the room back after a restart.
The tables are the fake broker's (every command answered ``ok``); their reports go in
through the bridge, as a table's would."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from controller.events import CameBack, HandEnded, HandStarted, PlayerRemoved, SatOut
from controller.sync.messages import CommandMessage, ReplyMessage
from host_bridge.app import create_app
from host_bridge.bridge import Bridge
from host_bridge.settings import DEFAULT_HOUSES_DIR, BridgeSettings, Role
from tests.bridge.conftest import ManualClock, auth, make_settings
from tests.bridge.tablesim import FakeBroker, WireTable

API = "/api/v1/cash"
FLOOR = auth(Role.FLOOR)
CASINO = "casino-nlhe"  # 20/40 kr, buy-in 2,000 to 10,000 kr (CASH-8), 10 seats
MIN = 60.0


def banzai_text() -> str:
    """The online NL10 house as Banzai: 5 seats, exactly 10 BB, two tables a stake."""
    text = (DEFAULT_HOUSES_DIR / "online-nlhe.toml").read_text(encoding="utf-8")
    return (text.replace('name = "Online NL10"', 'name = "Banzai NL10"')
            .replace("seats = 6", "seats = 5")
            .replace("min_bb = 50                # CASH-2: 50 to 100 big blinds\nmax_bb = 100",
                     'rule = "CASH-7"\nmin_bb = 10\nmax_bb = 10')
            .replace("[options]                  # live table keys the online rules leave open",
                     '[options]\n"banzai.max_tables_per_stake" = 2'))


@pytest.fixture
def settings(tmp_path: Path) -> BridgeSettings:
    """The casino's house and a Banzai one in the houses directory."""
    houses = tmp_path / "houses"
    houses.mkdir()
    shutil.copy(DEFAULT_HOUSES_DIR / f"{CASINO}.toml", houses)
    (houses / "banzai.toml").write_text(banzai_text(), encoding="utf-8")
    return make_settings(tmp_path, houses_dir=houses)


@pytest.fixture
def wires(bridge: Bridge) -> dict[str, WireTable]:
    """Tables t1..t4, online and empty."""
    out = {name: WireTable(table=name) for name in ("t1", "t2", "t3", "t4")}
    for wire in out.values():
        bridge.ingest.take(*wire.status(True))
    return out


def report(client: TestClient, bridge: Bridge, wire: WireTable, *events: Any) -> None:
    """A table's events, in through the bridge (stored, then its observers)."""
    for event in events:
        client.portal.call(bridge.receive, *wire.event(event))  # type: ignore[union-attr]


def game(client: TestClient, house: str = CASINO, tables: tuple[str, ...] = ("t1", "t2"),
         **extra: object) -> dict[str, Any]:
    r = client.post(f"{API}/games", headers=FLOOR,
                    json={"house": house, "tables": list(tables), **extra})
    assert r.status_code == 201, r.text
    body: dict[str, Any] = r.json()
    return body


def read(client: TestClient, game_id: str = CASINO) -> dict[str, Any]:
    body: dict[str, Any] = client.get(f"{API}/games/{game_id}",
                                      headers=auth(Role.VIEWER)).json()
    return body


def seat(client: TestClient, player: str, stack: int, game_id: str = CASINO,
         **extra: object) -> Any:
    """Join, call and seat ``player``: the seat route's answer."""
    assert client.post(f"{API}/games/{game_id}/waiting", headers=FLOOR,
                       json={"player": player}).status_code == 200
    assert client.post(f"{API}/games/{game_id}/call", headers=FLOOR).status_code == 200
    return client.post(f"{API}/games/{game_id}/seat", headers=FLOOR,
                       json={"player": player, "stack": stack, **extra})


def sent(broker: FakeBroker, name: str) -> list[tuple[str, dict[str, Any]]]:
    return [(c["table"], c["command"]) for c in broker.commands()
            if c["command"]["name"] == name]


def players(body: dict[str, Any]) -> dict[str, list[tuple[int, str]]]:
    return {t["table_id"]: [(p["seat"], p["player"]) for p in t["players"]]
            for t in body["tables"]}


# ---------------------------------------------------------------------------- the list
def test_cash_1_join_call_and_seat_sends_seat_player_to_the_table(
        client: TestClient, broker: FakeBroker, wires: dict[str, WireTable]) -> None:
    body = game(client)
    assert body["label"] == "NLHE 20/40 kr, casino rake 20-200 kr by pot, straddle mississippi"
    assert (body["buy_in_min"], body["buy_in_max"], body["buy_in_rule"]) == (
        2_000, 10_000, "CASH-8")
    for p in ("ana", "ben"):
        r = client.post(f"{API}/games/{CASINO}/waiting", headers=FLOOR, json={"player": p})
        assert r.status_code == 200, r.text
    again = client.post(f"{API}/games/{CASINO}/waiting", headers=FLOOR, json={"player": "ana"})
    assert again.status_code == 409 and "(CASH-1)" in again.json()["detail"]
    r = client.post(f"{API}/games/{CASINO}/call", headers=FLOOR)
    assert r.json()["called"] == [{"player": "ana", "table_id": "t1", "seat": 1}]
    r = client.post(f"{API}/games/{CASINO}/seat", headers=FLOOR,
                    json={"player": "ana", "stack": 5_000})
    assert r.status_code == 200, r.text
    assert (r.json()["table_id"], r.json()["seat"]) == ("t1", 1)
    assert sent(broker, "seat_player") == [
        ("t1", {"name": "seat_player", "seat": 1, "player": "ana", "stack": 5_000})]
    body = read(client)
    assert players(body) == {"t1": [(1, "ana")], "t2": []}
    assert body["waiting"] == ["ben"] and body["called"] == []
    r = client.delete(f"{API}/games/{CASINO}/waiting/ben", headers=FLOOR)
    assert r.status_code == 200 and r.json()["waiting"] == []
    audit = client.get("/api/v1/audit", headers=auth(Role.ADMIN)).json()["data"]
    assert [(a["command"], a["actor"]) for a in audit] == [("seat_player", "floor-1")]


def test_cash_1_a_player_not_called_is_not_seated(client: TestClient, broker: FakeBroker,
                                                  wires: dict[str, WireTable]) -> None:
    game(client)
    r = client.post(f"{API}/games/{CASINO}/seat", headers=FLOOR,
                    json={"player": "ana", "stack": 5_000})
    assert r.status_code == 409 and r.headers["x-rule"] == "CASH-1"
    assert "call the next player first" in r.json()["detail"]
    assert broker.commands() == []


def test_cash_8_a_buy_in_outside_the_house_limits_is_refused_before_anything_is_sent(
        client: TestClient, broker: FakeBroker, wires: dict[str, WireTable]) -> None:
    game(client)
    r = seat(client, "ana", 1_999)
    assert r.status_code == 409, r.text
    assert r.headers["x-rule"] == "CASH-8"
    assert r.json()["detail"] == ("ana may buy in for 2000 to 10000 at table t1 now, not 1999 "
                                  "(CASH-8); nothing was sent")
    assert broker.commands() == []
    assert read(client)["called"] == [{"player": "ana", "table_id": "t1", "seat": 1}]


def test_cash_2_ratholing_returning_within_30_minutes_to_the_same_table(
        client: TestClient, broker: FakeBroker, bridge: Bridge, clock: ManualClock,
        wires: dict[str, WireTable]) -> None:
    game(client)
    assert seat(client, "ana", 5_000).status_code == 200
    report(client, bridge, wires["t1"], PlayerRemoved(seat=1, player="ana", stack=7_000))
    assert players(read(client))["t1"] == []
    clock.now += 10 * MIN
    r = seat(client, "ana", 5_000)  # called back to t1: a table she played (CASH-1)
    assert r.status_code == 409 and r.headers["x-rule"] == "CASH-2"
    assert "7000 to 10000 at table t1" in r.json()["detail"]
    assert len(sent(broker, "seat_player")) == 1
    clock.now += 21 * MIN  # 31 minutes after she left: the normal limits
    r = client.post(f"{API}/games/{CASINO}/seat", headers=FLOOR,
                    json={"player": "ana", "stack": 5_000})
    assert r.status_code == 200, r.text
    assert len(sent(broker, "seat_player")) == 2


def test_cash_3_no_ratholing_game_refuses_a_smaller_return(
        client: TestClient, broker: FakeBroker, bridge: Bridge,
        wires: dict[str, WireTable]) -> None:
    game(client, no_ratholing=True)
    assert seat(client, "ana", 10_000).status_code == 200
    report(client, bridge, wires["t1"], PlayerRemoved(seat=1, player="ana", stack=12_000))
    r = seat(client, "ana", 10_000)  # CASH-2 would allow 10,000 to 12,000 (counter 0)
    assert r.status_code == 409 and r.headers["x-rule"] == "CASH-3"
    assert "exactly 12000" in r.json()["detail"]
    assert len(sent(broker, "seat_player")) == 1


def test_a_table_that_refuses_the_seat_changes_nothing(
        client: TestClient, broker: FakeBroker, wires: dict[str, WireTable]) -> None:
    def refuse(command: CommandMessage) -> ReplyMessage:
        return ReplyMessage(table=command.table, boot="boot-1", seq=0, ts=0.0,
                            command_id=command.command_id, status="error",
                            error="seat 1 is taken (SEAT-1)")

    game(client)
    broker.answer = refuse
    r = seat(client, "ana", 5_000)
    assert r.status_code == 409 and r.headers["x-rule"] == "SEAT-1"
    assert "table 't1' refused to seat ana: seat 1 is taken" in r.json()["detail"]
    body = read(client)
    assert players(body)["t1"] == [] and body["called"][0]["player"] == "ana"


# ---------------------------------------------------------------------------- roles
ACTS = [("POST", f"{API}/games", {"house": CASINO, "tables": ["t3"], "id": "other"}),
        ("POST", f"{API}/games/{CASINO}/waiting", {"player": "cleo"}),
        ("DELETE", f"{API}/games/{CASINO}/waiting/ben", None),
        ("POST", f"{API}/games/{CASINO}/call", None),
        ("POST", f"{API}/games/{CASINO}/seat", {"player": "ben", "stack": 5_000}),
        ("POST", f"{API}/games/{CASINO}/removals", {"player": "ana", "table_id": "t1"}),
        ("POST", f"{API}/games/{CASINO}/tables", {"table_id": "t3"}),
        ("PUT", f"{API}/players/ana/options", {"auto_top_up": True})]


@pytest.mark.parametrize("role", [Role.VIEWER, Role.BROADCAST])
def test_viewer_and_broadcast_may_read_but_not_act(
        client: TestClient, broker: FakeBroker, wires: dict[str, WireTable],
        role: Role) -> None:
    game(client, new_table_after=0)
    client.post(f"{API}/games/{CASINO}/waiting", headers=FLOOR, json={"player": "ben"})
    client.post(f"{API}/games/{CASINO}/call", headers=FLOOR)
    before = read(client)
    for method, url, body in ACTS:
        r = client.request(method, url, json=body, headers=auth(role))
        assert r.status_code == 403, (url, r.text)
        assert r.json()["detail"].startswith(f"role {role.value!r} may not run the cash room")
    assert client.get(f"{API}/games", headers=auth(role)).json()["count"] == 1
    assert read(client) == before and broker.commands() == []


# ---------------------------------------------------------------------------- sitting out
def test_cash_4_ten_minutes_sitting_out_then_removed_with_one_click(
        client: TestClient, broker: FakeBroker, bridge: Bridge, clock: ManualClock,
        wires: dict[str, WireTable]) -> None:
    game(client)
    assert seat(client, "ana", 5_000).status_code == 200
    report(client, bridge, wires["t1"], SatOut(seat=1))
    assert players(read(client))["t1"] == [(1, "ana")]
    assert read(client)["tables"][0]["players"][0]["sitting_out"] == "CASH-4"
    clock.now += 300
    report(client, bridge, wires["t1"], CameBack(seat=1), SatOut(seat=1))  # the clock restarts
    clock.now += 600
    assert read(client)["due"] == []
    early = client.post(f"{API}/games/{CASINO}/removals", headers=FLOOR,
                        json={"player": "ana", "table_id": "t1"})
    assert early.status_code == 409 and early.headers["x-rule"] == "CASH-4"
    clock.now += 1
    assert read(client)["due"] == [{"player": "ana", "table_id": "t1", "seat": 1,
                                    "rule": "CASH-4"}]
    r = client.post(f"{API}/games/{CASINO}/removals", headers=FLOOR,
                    json={"player": "ana", "table_id": "t1"})
    assert r.status_code == 200, r.text
    assert sent(broker, "remove_player") == [("t1", {"name": "remove_player", "seat": 1})]
    assert players(r.json())["t1"] == [] and r.json()["due"] == []


def test_cash_9_second_button_pass_with_a_waiting_list(
        client: TestClient, broker: FakeBroker, bridge: Bridge,
        wires: dict[str, WireTable]) -> None:
    game(client)
    for p in ("ana", "ben", "cleo", "dev", "eli"):  # called to t1, t2, t1, t2, t1
        assert seat(client, p, 5_000).status_code == 200, p
    assert players(read(client))["t1"] == [(1, "ana"), (2, "cleo"), (3, "eli")]
    report(client, bridge, wires["t1"], SatOut(seat=3))  # eli
    client.post(f"{API}/games/{CASINO}/waiting", headers=FLOOR, json={"player": "gus"})
    # heads-up, the button between seats 1 and 2: it passes seat 3 going from 2 to 1
    for n, button in enumerate((1, 2, 1, 2), start=1):
        order = (2, 1) if button == 1 else (1, 2)
        report(client, bridge, wires["t1"], HandStarted(
            hand_no=n, seats=order, stacks=(5_000, 5_000), button=button,
            small_blind_seat=button, big_blind_seat=order[0]))
    assert read(client)["due"] == []  # one pass
    report(client, bridge, wires["t1"], HandStarted(
        hand_no=5, seats=(2, 1), stacks=(5_000, 5_000), button=1, small_blind_seat=1,
        big_blind_seat=2))
    assert read(client)["due"] == [{"player": "eli", "table_id": "t1", "seat": 3,
                                    "rule": "CASH-9"}]


def test_cash_5_global_sit_out_at_all_tables_and_500_seconds(
        client: TestClient, broker: FakeBroker, bridge: Bridge, clock: ManualClock,
        wires: dict[str, WireTable]) -> None:
    game(client, "banzai", ("t1", "t2"))
    r = client.put(f"{API}/players/ana/options", headers=FLOOR, json={"global_sit_out": True})
    assert r.json() == {"player": "ana", "auto_top_up": False, "global_sit_out": True}
    assert seat(client, "ana", 100, "banzai").status_code == 200
    assert seat(client, "ana", 100, "banzai").status_code == 200  # online: a second table
    report(client, bridge, wires["t2"], SatOut(seat=1))
    clock.now += 500
    assert read(client, "banzai")["due"] == []
    clock.now += 1
    assert read(client, "banzai")["due"] == [
        {"player": "ana", "table_id": t, "seat": 1, "rule": "CASH-5"} for t in ("t1", "t2")]


# ---------------------------------------------------------------------------- Banzai
def test_cash_13_banzai_at_most_two_tables_a_stake(
        client: TestClient, broker: FakeBroker, wires: dict[str, WireTable]) -> None:
    body = game(client, "banzai", ("t1", "t2", "t3"))
    assert (body["banzai"], body["max_tables"], body["buy_in_rule"]) == (True, 2, "CASH-7")
    assert seat(client, "ana", 100, "banzai").status_code == 200
    assert seat(client, "ana", 100, "banzai").status_code == 200
    r = seat(client, "ana", 100, "banzai")
    assert r.status_code == 409 and r.headers["x-rule"] == "CASH-13"
    assert len(sent(broker, "seat_player")) == 2


def test_cash_14_banzai_return_with_the_same_stack_or_a_reset(
        client: TestClient, broker: FakeBroker, bridge: Bridge,
        wires: dict[str, WireTable]) -> None:
    game(client, "banzai", ("t1", "t2"))
    assert seat(client, "ana", 100, "banzai").status_code == 200
    report(client, bridge, wires["t1"], PlayerRemoved(seat=1, player="ana", stack=300))
    r = seat(client, "ana", 100, "banzai")
    assert r.status_code == 409 and r.headers["x-rule"] == "CASH-14"
    assert "exactly 300" in r.json()["detail"]
    r = client.post(f"{API}/games/banzai/seat", headers=FLOOR,
                    json={"player": "ana", "stack": 100, "reset": True})
    assert r.status_code == 200, r.text
    assert len(sent(broker, "seat_player")) == 2


# ---------------------------------------------------------------------------- top-up
def test_cash_6_auto_top_up_after_the_hand_only_when_on(
        client: TestClient, broker: FakeBroker, bridge: Bridge,
        wires: dict[str, WireTable]) -> None:
    game(client, tables=("t1",))
    assert seat(client, "ana", 5_000).status_code == 200
    assert seat(client, "ben", 6_000).status_code == 200
    wire = wires["t1"]

    def hand(n: int, after: tuple[int, int]) -> None:
        report(client, bridge, wire, HandStarted(hand_no=n, seats=(2, 1), stacks=(6_000, 5_000),
                                                 button=1, small_blind_seat=1,
                                                 big_blind_seat=2),
               HandEnded(hand_no=n, stacks=after))

    hand(1, (7_000, 4_000))  # off by default: nothing added
    assert sent(broker, "add_chips") == []
    client.put(f"{API}/players/ana/options", headers=FLOOR, json={"auto_top_up": True})
    hand(2, (8_000, 3_000))
    client.portal.call(app_room(client).close)  # type: ignore[union-attr]
    assert sent(broker, "add_chips") == [("t1", {"name": "add_chips", "seat": 1,
                                                 "player": "ana", "chips": 2_000,
                                                 "reason": "rebuy"})]


def app_room(client: TestClient) -> Any:
    app: FastAPI = client.app  # type: ignore[assignment]
    return app.state.cash_room


# ---------------------------------------------------------------------------- new table
def test_a_long_list_suggests_a_free_table_opened_with_one_click(
        client: TestClient, broker: FakeBroker, wires: dict[str, WireTable]) -> None:
    game(client, tables=("t1",), new_table_after=1)
    for p in ("ana", "ben"):
        client.post(f"{API}/games/{CASINO}/waiting", headers=FLOOR, json={"player": p})
    assert read(client)["suggested_table"] == "t2"  # the first free table
    busy = client.post(f"{API}/games/{CASINO}/tables", headers=FLOOR, json={"table_id": "t1"})
    assert busy.status_code == 409 and busy.headers["x-rule"] == "CASH-1"
    r = client.post(f"{API}/games/{CASINO}/tables", headers=FLOOR, json={"table_id": "t2"})
    assert r.status_code == 200, r.text
    text = (DEFAULT_HOUSES_DIR / f"{CASINO}.toml").read_text(encoding="utf-8")
    assert sent(broker, "set_house") == [("t2", {"name": "set_house", "text": text})]
    body = r.json()
    assert [t["table_id"] for t in body["tables"]] == ["t1", "t2"]
    assert body["called"] == [{"player": "ana", "table_id": "t2", "seat": 1},
                              {"player": "ben", "table_id": "t2", "seat": 2}]
    assert body["suggested_table"] is None


# ---------------------------------------------------------------------------- restart
def test_a_restart_keeps_the_games_and_the_waiting_lists(
        tmp_path: Path, settings: BridgeSettings) -> None:
    broker = FakeBroker()
    app = create_app(settings, publisher=broker)
    broker.deliver = app.state.bridge.receive
    with TestClient(app) as client:
        for name in ("t1", "t2"):
            app.state.bridge.ingest.take(*WireTable(table=name).status(True))
        game(client)
        assert seat(client, "ana", 5_000).status_code == 200
        client.post(f"{API}/games/{CASINO}/waiting", headers=FLOOR, json={"player": "ben"})
        before = read(client)
    app.state.engine.dispose()
    with TestClient(create_app(settings)) as again:
        after = read(again)
    assert after == before
    assert after["waiting"] == ["ben"] and players(after)["t1"] == [(1, "ana")]


def test_a_game_needs_a_shipped_cash_house_and_known_tables(
        client: TestClient, wires: dict[str, WireTable]) -> None:
    r = client.post(f"{API}/games", headers=FLOOR, json={"house": "nope", "tables": ["t1"]})
    assert r.status_code == 404 and "the shipped houses are: banzai, casino-nlhe" in r.text
    r = client.post(f"{API}/games", headers=FLOOR, json={"house": CASINO, "tables": ["t9"]})
    assert r.status_code == 404 and "no table 't9'" in r.text
    game(client)
    r = client.post(f"{API}/games", headers=FLOOR,
                    json={"house": CASINO, "tables": ["t2"], "id": "second"})
    assert r.status_code == 409 and "already plays the game" in r.text
    assert client.get(f"{API}/games", headers=FLOOR).json()["count"] == 1
