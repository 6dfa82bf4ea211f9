"""The floor's alerts (issue 20) through REST: each kind raised by its condition and
cleared when the condition goes, the acknowledgement (floor journaled, viewer refused),
the feed's items, and a restart. Tables are simulated on the wire (:class:`WireTable`);
the tournament alerts come from the director over contract tables (:class:`LocalFloor`).
Time is the app's hand clock: nothing here sleeps to make a condition true."""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from controller.events import (
    ActionAccepted,
    BreakEnded,
    BreakStarted,
    ClockCalled,
    ColourUpStarted,
    DeckReport,
    HandEnded,
    HandStarted,
    Irregularity,
    Paused,
    PlayerSeated,
    Resumed,
    SeatAdjustment,
    SeatNodeBack,
    ShotClockReport,
    StackAdjusted,
    TableClosed,
)
from controller.sync.messages import EventMessage
from host_bridge.app import create_app
from host_bridge.bridge import Bridge
from host_bridge.models import AlertAck
from host_bridge.settings import Role
from tests.bridge.conftest import ManualClock, auth, make_settings
from tests.bridge.tablesim import FakeBroker, WireTable
from tests.director.floortables import LocalFloor

URL = "/api/v1/alerts"
DIRECTOR = "/api/v1/director/tournaments"
Alerts = dict[str, dict[str, Any]]


@dataclass
class Floor:
    """One bridge for the module's wire tests (an app is slow to build): each test plays
    its own table, so its alerts are its own."""

    client: TestClient
    bridge: Bridge
    clock: ManualClock
    broker: FakeBroker
    sessions: Any
    tables: Iterator[int]

    def table(self, players: int = 2) -> WireTable:
        """A new table, online, with ``players`` seated (seats 1..n)."""
        wire = WireTable(table=f"a{next(self.tables)}")
        self.send(wire.status(True),
                  *(wire.seat(s, f"p{s}", 1000) for s in range(1, players + 1)))
        return wire

    def send(self, *messages: tuple[str, bytes]) -> None:
        """Messages from the tables, stored as a batch on the app's loop."""
        self.client.portal.call(self.bridge.receive_many,  # type: ignore[union-attr]
                                list(messages))

    def alerts(self, table: str | None, role: Role = Role.VIEWER) -> Alerts:
        """The alerts of ``table`` (None: the floor-wide ones) by id, in the list's order."""
        r = self.client.get(URL, headers=auth(role))
        assert r.status_code == 200, r.text
        return {a["id"]: a for a in r.json()["data"] if a["table"] == table}


@pytest.fixture(scope="module")
def floor(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Floor]:
    """The app on a hand clock and a fake broker; an unanswered command is one that has
    no reply within half a second."""
    broker, clock = FakeBroker(), ManualClock()
    app = create_app(make_settings(tmp_path_factory.mktemp("alerts"),
                                   command_timeout_s=0.5), publisher=broker, clock=clock)
    broker.deliver = app.state.bridge.receive
    with TestClient(app) as client:
        yield Floor(client, app.state.bridge, clock, broker, app.state.sessions,
                    itertools.count(1))


def test_table_offline_until_it_is_back_and_a_closed_table_is_no_alert(floor: Floor) -> None:
    wire = floor.table()
    assert floor.alerts(wire.table) == {}
    floor.send(wire.status(False))
    offline = floor.alerts(wire.table)[f"offline:{wire.table}"]
    assert (offline["kind"], offline["severity"]) == ("table_offline", "high")
    assert offline["action"] == "Check the table's power and network; it reconnects by itself"
    floor.send(wire.status(True))
    assert floor.alerts(wire.table) == {}
    floor.send(wire.event(TableClosed()), wire.status(False))
    assert floor.alerts(wire.table) == {}  # closed, then gone: nobody is needed


def test_the_bridge_losing_the_broker_is_one_alert(floor: Floor) -> None:
    wire = floor.table()
    floor.client.portal.call(floor.bridge.broker_down)  # type: ignore[union-attr]
    assert list(floor.alerts(None)) == ["offline:broker"]
    assert floor.alerts(wire.table) == {}  # no table's own: their states are unknown
    floor.client.portal.call(floor.bridge.broker_up)  # type: ignore[union-attr]
    assert floor.alerts(None) == {}


def test_one_player_seated_is_short_handed(floor: Floor) -> None:
    wire = floor.table(players=1)
    short = floor.alerts(wire.table)[f"single:{wire.table}"]
    assert (short["kind"], short["text"]) == ("short_handed",
                                              "one player seated: no hand can be dealt")
    floor.send(wire.seat(2, "p2", 1000))
    assert floor.alerts(wire.table) == {}


def test_seat_node_and_device_faults_are_raised_and_cleared(floor: Floor) -> None:
    wire = floor.table()
    t = wire.table
    floor.send(wire.event(Irregularity(hand_no=0, what="seat_node_offline", seat=3,
                                       reason="seat 3's node is not answering")),
               wire.event(DeckReport(what="checked", complete=False, missing=2,
                                     duplicated=1)))
    found = floor.alerts(t)
    assert found[f"nodes:{t}"]["kind"] == "seat_node_offline"
    assert found[f"nodes:{t}"]["text"].startswith("seat node 3 not answering")
    assert found[f"device:{t}"]["kind"] == "device_fault"
    assert "2 missing, 1 read twice (CARD-1)" in found[f"device:{t}"]["text"]
    floor.send(wire.event(SeatNodeBack(hand_no=0, seat=3)),
               wire.event(DeckReport(what="checked", complete=True)))
    assert floor.alerts(t) == {}
    floor.send(wire.event(HandStarted(hand_no=1, seats=(1, 2), stacks=(1000, 1000))),
               wire.event(DeckReport(what="unknown_card", reader="seat2")))
    assert "reader seat2 read a tag" in floor.alerts(t)[f"device:{t}"]["text"]
    floor.send(wire.event(HandEnded(hand_no=1, stacks=(1000, 1000))))
    assert floor.alerts(t) == {}  # a reader's fault lasts the hand


def test_prompts_the_clock_and_the_shot_clock_are_raised_and_cleared(floor: Floor) -> None:
    wire = floor.table(players=3)
    t = wire.table
    floor.send(wire.event(HandStarted(hand_no=1, seats=(1, 2, 3), stacks=(1000,) * 3)),
               wire.event(Irregularity(hand_no=1, what="wrong_place", seat=2, rule="LIVE-17",
                                       reason="the card reached seat 2 after the deal")),
               wire.event(ClockCalled(seat=2)))
    found = floor.alerts(t)
    assert found[f"prompt:{t}"]["severity"] == "high"
    assert found[f"prompt:{t}"]["text"] == ("wrong place: seat 2: the card reached seat 2 "
                                            "after the deal (LIVE-17)")
    assert found[f"clock:{t}"]["text"] == "the clock is called on seat 2 (CLOCK-1)"
    floor.send(wire.event(ActionAccepted(hand_no=1, player=1, action="fold")),
               wire.event(ClockCalled(seat=3)))  # seat 2 (player 1) acted: its clock is over
    assert floor.alerts(t)[f"clock:{t}"]["text"] == "the clock is called on seat 3 (CLOCK-1)"
    floor.send(wire.event(ShotClockReport(hand_no=1, seat=3, what="ruled", ruling="fold",
                                          rule="CLOCK-3")))
    found = floor.alerts(t)
    assert f"clock:{t}" not in found
    assert found[f"shot:{t}"]["kind"] == "shot_clock_expired"
    assert found[f"shot:{t}"]["text"] == "seat 3's time ran out: ruled fold (CLOCK-3)"
    floor.send(wire.event(HandEnded(hand_no=1, stacks=(1000,) * 3)))
    assert floor.alerts(t) == {}  # the table drops its prompts with the hand
    floor.send(wire.event(Irregularity(hand_no=1, what="too_few", reason="a seat lacks cards")))
    assert floor.alerts(t)[f"prompt:{t}"]["kind"] == "prompt_open"  # between hands
    floor.send(wire.event(HandStarted(hand_no=2, seats=(1, 2, 3), stacks=(1000,) * 3)))
    assert floor.alerts(t) == {}  # the next hand is dealt: it was resolved


def test_held_says_who_paused_and_clears_when_the_table_deals_again(floor: Floor) -> None:
    wire = floor.table()
    t = wire.table
    r = floor.client.post(f"/api/v1/tables/{t}/commands", json={"command": {"name": "pause"}},
                          headers=auth(Role.FLOOR))
    assert r.status_code == 200, r.text
    floor.send(wire.event(Paused(command_id=r.json()["command_id"])))
    held = floor.alerts(t)[f"held:{t}"]
    assert (held["kind"], held["severity"], held["text"]) == (
        "held", "medium", "paused by floor-1 (floor)")
    floor.send(wire.event(Resumed()))
    assert floor.alerts(t) == {}
    floor.send(wire.event(Paused()))
    assert floor.alerts(t)[f"held:{t}"]["text"] == "paused at the table"
    floor.send(wire.event(Resumed()), wire.event(ColourUpStarted(leaving=(25,),
                                                                 trigger="break")))
    assert floor.alerts(t)[f"held:{t}"]["text"].startswith("colour-up in progress")
    floor.send(wire.event(StackAdjusted(reason="colour_up", seats=(
        SeatAdjustment(seat=1, before=1000, after=1000),))))
    assert floor.alerts(t) == {}
    floor.send(wire.event(BreakStarted(level=3)))
    assert floor.alerts(t)[f"held:{t}"]["text"] == "on a break after level 3"
    floor.send(wire.event(BreakEnded(level=3)))
    assert floor.alerts(t) == {}


def test_hand_too_long_past_the_setting_or_three_times_the_tables_median(
        floor: Floor) -> None:
    wire = floor.table()
    t = wire.table
    start, end = (HandStarted(hand_no=1, seats=(1, 2), stacks=(1000, 1000)),
                  HandEnded(hand_no=1, stacks=(1000, 1000)))
    floor.send(wire.event(start))
    floor.clock.now += 599
    assert floor.alerts(t) == {}
    floor.clock.now += 2  # hand_too_long_s: 600 by default
    assert floor.alerts(t)[f"hand:{t}"]["text"] == ("hand 1 is taking unusually long (over "
                                                    "10 min)")
    floor.send(wire.event(end))
    assert floor.alerts(t) == {}
    for n in range(2, 6):  # five hands of a second each (the table's own clock)
        floor.send(wire.event(start.model_copy(update={"hand_no": n})),
                   wire.event(end.model_copy(update={"hand_no": n})))
    floor.send(wire.event(start.model_copy(update={"hand_no": 6})))
    floor.clock.now += 119
    assert floor.alerts(t) == {}  # 3 x 1 s, but never under two minutes
    floor.clock.now += 2
    assert floor.alerts(t)[f"hand:{t}"]["text"] == ("hand 6 is taking unusually long (over "
                                                    "2 min; its median hand is 1 s)")
    floor.send(wire.event(end.model_copy(update={"hand_no": 6})))


def test_a_command_unanswered_until_the_table_answers_again(floor: Floor) -> None:
    t = floor.table().table
    pause, url = {"command": {"name": "pause"}}, f"/api/v1/tables/{t}/commands"
    floor.broker.answer = None
    try:
        r = floor.client.post(url, json=pause, headers=auth(Role.FLOOR))
    finally:
        floor.broker.answer = FakeBroker.ok
    assert r.status_code == 504  # the desk's timeout (0.5 s here) passed
    unanswered = floor.alerts(t)[f"command:{t}"]
    assert (unanswered["kind"], unanswered["severity"], unanswered["text"]) == (
        "command_unanswered", "high", "pause from floor-1 (floor) got no reply in time")
    r = floor.client.post(url, json=pause, headers=auth(Role.FLOOR))
    assert r.status_code == 200
    assert floor.alerts(t) == {}


def test_a_seq_conflict_is_an_alert_for_an_hour(floor: Floor) -> None:
    wire = floor.table()
    t = wire.table
    other = EventMessage(table=t, boot="boot-1", seq=1, ts=1.0,
                         event=PlayerSeated(seat=5, player="mallory", stack=9999))
    floor.send((wire.topics.event, other.to_wire()))
    conflict = floor.alerts(t)[f"conflict:{t}"]
    assert (conflict["kind"], conflict["severity"]) == ("seq_conflict", "high")
    assert "1 conflicting payload for stored seqs (latest 1)" in conflict["text"]
    assert f"/api/v1/tables/{t}/conflicts" in conflict["action"]
    floor.clock.now += 3601
    assert floor.alerts(t) == {}


def test_ack_by_floor_is_journaled_a_viewer_gets_403_and_nothing_changes(
        floor: Floor) -> None:
    wire = floor.table()
    alert_id, url = f"offline:{wire.table}", f"{URL}/offline:{wire.table}/ack"
    floor.send(wire.status(False))

    def journal() -> list[AlertAck]:
        with floor.sessions() as session:
            return list(session.scalars(select(AlertAck).where(AlertAck.alert_id == alert_id)))

    for role in (Role.VIEWER, Role.BROADCAST):
        r = floor.client.post(url, headers=auth(role))
        assert r.status_code == 403
        assert r.json()["detail"] == (f"role {role.value!r} may not acknowledge an alert; this "
                                      "needs one of: admin, director, floor")
    assert floor.alerts(wire.table)[alert_id]["acked_by"] is None
    assert journal() == []
    floor.clock.now += 30
    r = floor.client.post(url, headers=auth(Role.FLOOR))
    assert r.status_code == 200, r.text
    assert (r.json()["acked_by"], r.json()["acked_at"]) == ("floor-1", floor.clock.now)
    (row,) = journal()
    assert (row.actor, row.role, row.at, row.table_id, row.kind, row.cleared_at) == (
        "floor-1", "floor", floor.clock.now, wire.table, "table_offline", None)
    assert row.text == "offline: the table has lost its link to the bridge"
    r = floor.client.post(f"{URL}/nothing:here/ack", headers=auth(Role.FLOOR))
    assert r.status_code == 404
    floor.send(wire.status(True))
    assert floor.alerts(wire.table) == {}
    r = floor.client.post(url, headers=auth(Role.DIRECTOR))
    assert r.status_code == 404 and "may have cleared" in r.json()["detail"]
    assert [a.cleared_at for a in journal()] == [floor.clock.now]


def test_unacknowledged_first_then_by_severity_newest_first(floor: Floor) -> None:
    wire = floor.table()
    t = wire.table
    floor.send(wire.event(ClockCalled(seat=1)))  # low
    floor.clock.now += 1
    floor.send(wire.event(Paused()))  # medium
    floor.clock.now += 1
    floor.send(wire.event(Irregularity(hand_no=0, what="too_few", reason="x")))  # high
    assert list(floor.alerts(t)) == [f"prompt:{t}", f"held:{t}", f"clock:{t}"]
    floor.client.post(f"{URL}/prompt:{t}/ack", headers=auth(Role.FLOOR))
    assert list(floor.alerts(t)) == [f"held:{t}", f"clock:{t}", f"prompt:{t}"]  # dimmed


def test_the_feed_carries_raised_acknowledged_and_cleared_alerts(floor: Floor) -> None:
    wire = floor.table()
    alert_id = f"offline:{wire.table}"

    def mine(item: dict[str, Any]) -> bool:
        return item.get("id") == alert_id or item.get("alert", {}).get("id") == alert_id

    with floor.client.websocket_connect("/api/v1/feed", headers=auth(Role.VIEWER)) as ws:
        assert ws.receive_json()["type"] == "hello"
        floor.send(wire.status(False))
        floor.alerts(wire.table)  # a read refreshes at once (else within a second)
        raised = next_item(ws, mine)
        assert raised["type"] == "alert" and raised["alert"]["acked_by"] is None
        floor.client.post(f"{URL}/{alert_id}/ack", headers=auth(Role.FLOOR))
        acked = next_item(ws, mine)
        assert acked["type"] == "alert" and acked["alert"]["acked_by"] == "floor-1"
        floor.send(wire.status(True))
        floor.alerts(wire.table)
        assert next_item(ws, mine) == {"type": "alert_cleared", "id": alert_id}


def next_item(ws: Any, wanted: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """The next feed item ``wanted`` (the tables' other items pass by)."""
    for _ in range(100):
        item: dict[str, Any] = ws.receive_json()
        if wanted(item):
            return item
    raise AssertionError("the feed never carried the item")


def test_a_restarted_bridge_keeps_an_acknowledgement_while_the_condition_lasts(
        tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    wire = WireTable()
    app = create_app(settings, publisher=FakeBroker(), clock=ManualClock())
    with TestClient(app) as client:
        client.portal.call(app.state.bridge.receive_many, [  # type: ignore[union-attr]
            wire.status(True), wire.seat(1, "a", 100), wire.seat(2, "b", 100),
            wire.status(False)])
        assert client.post(f"{URL}/offline:t1/ack", headers=auth(Role.FLOOR)).status_code == 200
    app.state.engine.dispose()
    again = create_app(settings, publisher=FakeBroker(), clock=ManualClock(9000.0))
    with TestClient(again) as client:
        (offline,) = client.get(URL, headers=auth(Role.VIEWER)).json()["data"]
        assert (offline["id"], offline["acked_by"], offline["acked_at"], offline["since"]) == (
            "offline:t1", "floor-1", 5000.0, 5000.0)
        client.portal.call(again.state.bridge.receive, *wire.status(True))  # type: ignore[union-attr]
        assert client.get(URL, headers=auth(Role.VIEWER)).json()["data"] == []
    with again.state.sessions() as session:
        assert session.scalars(select(AlertAck.cleared_at)).one() == 9000.0


# -- the tournament's alerts, from the director over contract tables ------------------------
@dataclass
class Room:
    """A bridge over nine contract tables that deal only when a test says so; each test
    runs its tournament over three of them."""

    client: TestClient
    floor: LocalFloor
    free: Iterator[list[str]]

    def tournament(self, players: int, **kw: Any) -> Tourney:
        """A tournament over three free tables, created and started."""
        wires = next(self.free)
        body = {"name": "Sunday", "tables": dict.fromkeys(wires, 9), "starting_stack": 5000,
                "players": [f"{wires[0]}p{i:02d}" for i in range(players)], "seed": 4} | kw
        r = self.client.post(DIRECTOR, json=body, headers=auth(Role.DIRECTOR))
        assert r.status_code == 201, r.text
        tid = r.json()["id"]
        r = self.client.post(f"{DIRECTOR}/{tid}/start", headers=auth(Role.DIRECTOR))
        assert r.status_code == 200, r.text
        return Tourney(self, tid, wires)


@dataclass
class Tourney:
    """One tournament of the room: its alerts are its tables' and its floor-wide ones."""

    room: Room
    tid: str
    wires: list[str]

    @property
    def url(self) -> str:
        return f"{DIRECTOR}/{self.tid}"

    def alerts(self) -> Alerts:
        r = self.room.client.get(URL, headers=auth(Role.VIEWER))
        assert r.status_code == 200, r.text
        return {a["id"]: a for a in r.json()["data"]
                if a["table"] in self.wires or a["id"].endswith(f":{self.tid}")}

    def until(self, what: Callable[[Alerts], bool]) -> Alerts:
        """The alerts once ``what`` holds (the director works on the app's loop)."""
        deadline = time.monotonic() + 10.0
        while True:
            found = self.alerts()
            if what(found) or time.monotonic() > deadline:
                return found
            time.sleep(0.02)

    def play_down_to(self, wire: str, players: int) -> None:
        """All-in hands at ``wire`` until ``players`` are left there."""
        table = self.room.floor.tables[wire]
        for _ in range(40):
            if len(table.seats) == players:
                return
            assert self.room.client.portal.call(table.play_now)  # type: ignore[union-attr]
        raise AssertionError(f"{wire} still has {len(table.seats)} players")


@pytest.fixture(scope="module")
def room(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Room]:
    wires = [f"T{i}" for i in range(1, 10)]
    tables = LocalFloor(wires, seed=3)
    app = create_app(make_settings(tmp_path_factory.mktemp("room")), publisher=tables)
    tables.connect(app.state.bridge.receive)
    for message in tables.status_messages():
        app.state.bridge.ingest.take(*message)
    with TestClient(app) as client:
        yield Room(client, tables, iter([wires[i:i + 3] for i in range(0, 9, 3)]))


def test_to_break_and_short_handed_follow_the_directors_plan(room: Room) -> None:
    t = room.tournament(18)  # 6, 6, 6: one table fewer seats them all (TOURN-21)
    (broken,) = [a for a in t.alerts().values() if a["kind"] == "to_break"]
    assert broken["severity"] == "medium" and "(TOURN-21)" in broken["text"]
    assert broken["action"] == "Confirm the moves on the director page (balancing)"
    r = room.client.post(f"{t.url}/balancing", json={}, headers=auth(Role.DIRECTOR))
    assert r.status_code == 200, r.text
    assert t.until(lambda f: f == {}) == {}  # broken and closed; the other two hold 9 each
    short = next(w for w in t.wires if len(room.floor.tables[w].seats) == 9)
    t.play_down_to(short, 7)
    found = t.until(lambda f: f"short:{short}" in f)
    assert found[f"short:{short}"]["text"] == ("7 players, the largest table has 9: balancing "
                                               "is due (TOURN-19)")
    assert found[f"short:{short}"]["severity"] == "medium"
    t.play_down_to(short, 6)
    found = t.until(lambda f: f.get(f"short:{short}", {}).get("severity") == "high")
    assert "stopped dealing" in found[f"short:{short}"]["text"]  # 3 short (TOURN-19)
    assert f"held:{short}" not in t.until(lambda f: f"held:{short}" in f)  # says why itself
    r = room.client.post(f"{t.url}/balancing", json={}, headers=auth(Role.DIRECTOR))
    assert r.status_code == 200, r.text
    assert t.until(lambda f: f == {}) == {}


def test_hand_for_hand_is_one_floor_wide_alert_until_it_ends(room: Room) -> None:
    t = room.tournament(12, hand_for_hand_margin=20)  # the bubble is near at once
    found = t.until(lambda f: f"h4h:{t.tid}" in f)
    h4h = found[f"h4h:{t.tid}"]
    assert (h4h["table"], h4h["kind"], h4h["severity"]) == (None, "held", "medium")
    assert h4h["text"] == ("Sunday: hand-for-hand (TOURN-22): each table waits for the "
                           "others after every hand")
    r = room.client.post(f"{t.url}/cancellation", json={}, headers=auth(Role.DIRECTOR))
    assert r.status_code == 200, r.text
    assert f"h4h:{t.tid}" not in t.until(lambda f: f"h4h:{t.tid}" not in f)


def test_a_tournament_break_is_one_floor_wide_alert_for_its_length(room: Room) -> None:
    t = room.tournament(18, level_minutes=0.02, breaks=[{"after_level": 1, "minutes": 0.04}])
    found = t.until(lambda f: f"break:{t.tid}" in f)  # level 1 lasts 1.2 s
    pause = found[f"break:{t.tid}"]
    assert (pause["table"], pause["kind"], pause["severity"]) == (None, "held", "low")
    assert pause["text"] == "Sunday: on the break after level 1"
    assert f"break:{t.tid}" not in t.until(lambda f: f"break:{t.tid}" not in f)  # 2.4 s on
