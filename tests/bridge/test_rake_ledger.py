"""The rake ledger (issue 18): hands played with the rules engine under a raked house,
ingested through the bridge as a table sends them, summed per table and UTC day in the
unit of the house in force (``unit`` where the table named none); JSON and the cashier's
CSV; the floor's roles only."""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence
from datetime import UTC, datetime

import pytest
from fastapi.testclient import TestClient

from controller.clocks.house import load_house
from controller.events import HandEnded, HouseSet, HouseView, RakeTaken
from controller.rules.hand import Hand
from controller.rules.rake import rake_policy
from host_bridge.bridge import Bridge
from host_bridge.settings import DEFAULT_HOUSES_DIR, Role
from tests.bridge.conftest import ManualClock, auth
from tests.bridge.tablesim import WireTable, showdown_hand

DAY = datetime(2025, 3, 14, tzinfo=UTC)
BEFORE_MIDNIGHT = DAY.replace(hour=23, minute=50).timestamp()
AFTER_MIDNIGHT = DAY.replace(day=15, hour=0, minute=5).timestamp()
RAKE = "/api/v1/rake"


def raked_hand() -> Hand:
    """The showdown hand under the casino's rake (RAKE-8): a 65 kr pot that saw a flop
    pays 20 kr."""
    hand = showdown_hand(rake_policy("casino"))
    assert hand.rake == 20
    return hand


def casino_house(wire: WireTable) -> tuple[str, bytes]:
    """The table's house_set for the shipped casino NLHE house (kr)."""
    house = load_house(DEFAULT_HOUSES_DIR / "casino-nlhe.toml")
    view = HouseView(name=house.name, game="NT", kind="cash", unit="kr", label=house.label)
    return wire.event(HouseSet(hand_no=0, house=view, text=house.text))


def with_rake_taken(wire: WireTable, hand_no: int, seats: Sequence[int],
                    hand: Hand) -> list[tuple[str, bytes]]:
    """A raked hand as a table journals it with ``rake_taken`` just before a
    ``hand_ended`` that carries no rake of its own."""
    messages = wire.hand(hand_no, seats, hand)
    ended = messages.pop()
    wire.seq = itertools.count(json.loads(ended[1])["seq"])
    messages.append(wire.event(RakeTaken(hand_no=hand_no, rake=hand.rake, pot=65,
                                         players_dealt=3, saw_flop=True)))
    messages.append(wire.event(HandEnded(hand_no=hand_no, stacks=tuple(hand.stacks), rake=0)))
    return messages


def play(bridge: Bridge) -> None:
    """t1 (casino house, kr): two hands before midnight (one raked), one raked after;
    t2 (no house named): one raked hand, its rake in a rake_taken."""
    t1 = WireTable(table="t1", ts=BEFORE_MIDNIGHT)
    messages = [t1.status(True), casino_house(t1)]
    messages += [t1.seat(seat, name, 1000) for seat, name in ((1, "a"), (2, "b"), (3, "c"))]
    messages += t1.hand(1, (1, 2, 3), raked_hand())
    messages += t1.hand(2, (1, 2, 3), showdown_hand())  # no rake
    t1.ts = AFTER_MIDNIGHT
    messages += t1.hand(3, (1, 2, 3), raked_hand())
    t2 = WireTable(table="t2", ts=BEFORE_MIDNIGHT)
    messages += [t2.status(True)]
    messages += [t2.seat(seat, name, 1000) for seat, name in ((4, "d"), (5, "e"), (6, "f"))]
    messages += with_rake_taken(t2, 1, (4, 5, 6), raked_hand())
    for topic, payload in messages:
        bridge.ingest.take(topic, payload)


@pytest.fixture
def played(bridge: Bridge) -> Bridge:
    play(bridge)
    return bridge


def test_rake_8_the_ledger_sums_rake_per_table_and_day_in_the_houses_unit(
        client: TestClient, played: Bridge) -> None:
    r = client.get(RAKE, params={"day": "2025-03-14"}, headers=auth(Role.FLOOR))
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["day"] == "2025-03-14"
    assert [(row["table_id"], row["hands"], row["raked_hands"], row["rake"], row["unit"])
            for row in body["data"]] == [("t1", 2, 1, 20, "kr"), ("t2", 1, 1, 20, "unit")]
    assert body["totals"] == {"kr": 20, "unit": 20}
    after = client.get(RAKE, params={"day": "2025-03-15"}, headers=auth(Role.DIRECTOR)).json()
    assert [(row["table_id"], row["hands"], row["rake"]) for row in after["data"]] == [
        ("t1", 1, 1 * 20)]
    only = client.get(RAKE, params={"day": "2025-03-14", "table": "t2"},
                      headers=auth(Role.ADMIN)).json()
    assert [row["table_id"] for row in only["data"]] == ["t2"]


def test_the_ledger_defaults_to_the_bridges_utc_today(client: TestClient, played: Bridge,
                                                       clock: ManualClock) -> None:
    clock.now = AFTER_MIDNIGHT + 3600
    body = client.get(RAKE, headers=auth(Role.FLOOR)).json()
    assert body["day"] == "2025-03-15" and body["totals"] == {"kr": 20}
    clock.now = DAY.replace(year=2024).timestamp()
    assert client.get(RAKE, headers=auth(Role.FLOOR)).json()["data"] == []


def test_the_cashiers_csv(client: TestClient, played: Bridge) -> None:
    r = client.get(RAKE, params={"day": "2025-03-14", "format": "csv"},
                   headers=auth(Role.FLOOR))
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/csv")
    assert 'filename="rake-2025-03-14.csv"' in r.headers["content-disposition"]
    assert r.text == ("day,table,hands,raked_hands,rake,unit\n"
                      "2025-03-14,t1,2,1,20,kr\n"
                      "2025-03-14,t2,1,1,20,unit\n")


@pytest.mark.parametrize("role", [Role.VIEWER, Role.BROADCAST])
def test_a_role_that_may_not_read_the_ledger_gets_403(client: TestClient, played: Bridge,
                                                      role: Role) -> None:
    r = client.get(RAKE, params={"day": "2025-03-14"}, headers=auth(role))
    assert r.status_code == 403
    assert r.json()["detail"].startswith(f"role {role.value!r} may not read the rake ledger")


def test_a_day_that_is_not_a_date_is_422_naming_it(client: TestClient) -> None:
    r = client.get(RAKE, params={"day": "14/03/2025"}, headers=auth(Role.FLOOR))
    assert r.status_code == 422 and r.json()["message"].startswith("invalid input: query "
                                                                   "field day")
