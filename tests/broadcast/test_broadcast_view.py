"""The broadcast view (issue 21 item 4): ``GET /api/v1/broadcast/tables/{id}`` and its
WebSocket, for the ``broadcast`` role only, the whole hand ``hole_card_delay_s`` (30 s in
these tests) behind the table.

A table plays ``showdown_hand`` (ana AsKs folds to a raise, ben 7c2d calls cleo QhQd and
they check it down on 2h 5c 9s Td 3h); its messages reach the bridge at times the tests
set on the bridge's clock, and the view is read at times around the delay.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from host_bridge.bridge import Bridge
from host_bridge.broadcast.equity import equities
from host_bridge.settings import Role
from tests.bridge.conftest import TOKENS, ManualClock, auth
from tests.bridge.tablesim import WireTable, showdown_hand

URL = "/api/v1/broadcast/tables/t1"
DELAY = 30.0
HOLES = {"ana": ["As", "Ks"], "ben": ["7c", "2d"], "cleo": ["Qh", "Qd"]}
# the hand's messages (wire.hand): 0 hand_started, 1-6 the hole cards (event, secure),
# 7 raise, 8 fold, 9 call, 10 flop, 11-12 checks, 13 turn, 14-15 checks, 16 river...
PREFLOP, FLOP, TURN = 10, 13, 16  # play_to(X): through X's betting, before the next street


class Table:
    """The table's messages, delivered to the bridge at set times."""

    def __init__(self, client: TestClient, bridge: Bridge, clock: ManualClock) -> None:
        self.client, self.bridge, self.clock = client, bridge, clock
        wire = WireTable()
        self.seated = [wire.seat(s, n, 1000) for s, n in ((1, "ana"), (2, "ben"), (3, "cleo"))]
        self.hand = wire.hand(1, (1, 2, 3), showdown_hand(), with_config=True)
        self.sent = 0
        self.deliver(self.seated)

    def deliver(self, messages: Sequence[tuple[str, bytes]]) -> None:
        for topic, payload in messages:
            self.client.portal.call(self.bridge.receive, topic,  # type: ignore[union-attr]
                                    payload)

    def play_to(self, upto: int | None, at: float) -> None:
        """The hand's messages up to index ``upto`` (None: all), arriving at ``at``."""
        self.clock.now = at
        end = len(self.hand) if upto is None else upto
        self.deliver(self.hand[self.sent:end])
        self.sent = end

    def view(self, at: float, role: Role = Role.BROADCAST) -> dict[str, Any]:
        self.clock.now = at
        response = self.client.get(URL, headers=auth(role))
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        return body


@pytest.fixture
def table(client: TestClient, bridge: Bridge, clock: ManualClock) -> Table:
    return Table(client, bridge, clock)


def players(view: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {p["player"]: p for p in view["hand"]["players"]}


@pytest.mark.parametrize("role", [Role.VIEWER, Role.FLOOR, Role.DIRECTOR, Role.ADMIN])
def test_other_roles_get_403_and_not_one_card(table: Table, client: TestClient,
                                              role: Role) -> None:
    table.play_to(None, 6000)
    table.clock.now = 9000  # long after the delay and the hand
    response = client.get(URL, headers=auth(role))
    assert response.status_code == 403
    assert "broadcast" in response.json()["detail"]
    assert not any(card in response.text for cards in HOLES.values() for card in cards)
    assert client.get(URL).status_code == 401


def test_nothing_of_a_hand_younger_than_the_delay_leaks(table: Table) -> None:
    table.play_to(TURN, 6000)  # cards, actions and two streets, all at 6000
    before = table.view(6000 + DELAY - 0.5)
    assert before["hand"] is None and before["withheld"] == 0
    text = json.dumps(before)
    assert not any(card in text for cards in HOLES.values() for card in cards)
    assert "2h" not in text  # nor the flop
    after = table.view(6000 + DELAY)
    assert after["hand"]["hand_no"] == 1
    assert {n: p["cards"] for n, p in players(after).items()} == HOLES


def test_the_view_is_the_table_delay_behind(table: Table) -> None:
    table.play_to(PREFLOP, 6000)
    table.play_to(FLOP, 6010)  # the flop and its checks come ten seconds later
    table.play_to(TURN, 6020)
    preflop = table.view(6000 + DELAY + 5)["hand"]
    assert preflop["board"] == [] and preflop["street"] == "preflop"  # dealt, not seen yet
    flop = table.view(6010 + DELAY)["hand"]
    assert flop["board"] == ["2h", "5c", "9s"]
    turn = table.view(6020 + DELAY)["hand"]
    assert turn["board"] == ["2h", "5c", "9s", "Td"]


def test_stacks_bets_folds_and_equities_with_the_folded_cards_dead(table: Table) -> None:
    table.play_to(PREFLOP - 1, 6000)  # cleo raised, ana folded, ben (big blind) to act
    hand = table.view(6000 + DELAY)["hand"]
    seen = players({"hand": hand})
    assert seen["ana"]["folded"] and seen["ana"]["equity"] is None
    assert seen["ana"]["cards"] == HOLES["ana"]  # shown greyed on the overlay
    assert (seen["cleo"]["bet"], seen["cleo"]["stack"]) == (30, 970)
    assert (seen["ben"]["bet"], seen["ben"]["stack"]) == (10, 990)
    assert hand["pot_total"] == 5 + 10 + 30 and hand["to_act"] == 2
    exact = equities([None, ("7c", "2d"), ("Qh", "Qd")], [], dead=["As", "Ks"])
    for name, share in (("ben", exact[1]), ("cleo", exact[2])):
        assert share is not None
        assert seen[name]["equity"] == {"win": share.win, "tie": share.tie, "outs": [],
                                        "exact": True}
    # preflop's equities were taken as the betting began, all three in
    assert [s["street"] for s in hand["streets"]] == ["preflop"]
    assert None not in hand["streets"][0]["equity"]


def test_turn_outs_of_the_player_behind(table: Table) -> None:
    table.play_to(TURN, 6000)  # through the turn's two checks
    seen = players(table.view(6000 + DELAY))
    assert sorted(seen["ben"]["equity"]["outs"]) == ["2c", "2s", "7d", "7h", "7s"]
    assert seen["cleo"]["equity"]["outs"] == []


def test_the_end_of_the_hand_shows_the_winner_and_the_stacks(table: Table) -> None:
    table.play_to(None, 6000)
    hand = table.view(6000 + DELAY)["hand"]
    assert hand["result"] == "ended" and hand["board"] == ["2h", "5c", "9s", "Td", "3h"]
    seen = players({"hand": hand})
    assert seen["cleo"]["won"] == 65 and seen["cleo"]["stack"] == 1035
    assert seen["cleo"]["equity"]["win"] == 1.0 and seen["ben"]["equity"]["win"] == 0.0
    assert [s["street"] for s in hand["streets"]] == ["preflop", "flop", "turn", "river"]


def test_hole_cards_that_arrive_late_wait_for_their_own_delay(table: Table) -> None:
    """A hole_dealt in the view does not bring its cards before their own delay (the
    rule of the feed's release): cleo's reach the bridge five seconds after the rest."""
    hand = table.hand
    cleo_cards = hand[6]
    table.clock.now = 6000
    table.deliver([*hand[:6]])
    table.clock.now = 6005
    table.deliver([cleo_cards])
    view = table.view(6005 + DELAY - 1)
    assert players(view)["cleo"]["cards"] is None and view["withheld"] == 1
    assert all(p["equity"] is None for p in view["hand"]["players"])  # not every hand known
    later = table.view(6005 + DELAY)
    assert players(later)["cleo"]["cards"] == HOLES["cleo"] and later["withheld"] == 0


def test_an_unknown_table_is_404(client: TestClient) -> None:
    response = client.get("/api/v1/broadcast/tables/nope", headers=auth(Role.BROADCAST))
    assert response.status_code == 404 and "nope" in response.json()["detail"]


def _frames_until(ws: Any, done: Any) -> list[dict[str, Any]]:
    frames: list[dict[str, Any]] = []
    while not frames or not done(frames[-1]):
        frames.append(json.loads(ws.receive_text()))
    return frames


def test_the_stream_shows_the_hand_after_the_delay_with_the_released_cards(
        table: Table, client: TestClient) -> None:
    with client.websocket_connect(f"{URL}/feed") as ws:
        ws.send_text(json.dumps({"token": TOKENS[Role.BROADCAST]}))
        assert ws.receive_json() == {"type": "hello", "role": "broadcast", "table": "t1"}
        assert ws.receive_json()["hand"] is None
        table.play_to(FLOP, 6000)
        table.clock.now = 6000 + DELAY  # the stream looks again on its own
        frames = _frames_until(ws, lambda f: f["hand"] is not None
                               and all(p["cards"] for p in f["hand"]["players"]))
    assert all(f["as_of"] >= 6000 for f in frames if f["hand"] is not None)
    last = players(frames[-1])
    assert {n: p["cards"] for n, p in last.items()} == HOLES  # the feed released them
    assert last["cleo"]["equity"]["win"] > 0.5


@pytest.mark.parametrize(("role", "code"), [(Role.VIEWER, 4403), (Role.ADMIN, 4403)])
def test_the_stream_refuses_other_roles(table: Table, client: TestClient, role: Role,
                                        code: int) -> None:
    table.play_to(None, 6000)
    table.clock.now = 9000
    with client.websocket_connect(f"{URL}/feed", headers=auth(role)) as ws, \
            pytest.raises(WebSocketDisconnect) as closed:
        ws.receive_text()
    assert closed.value.code == code and "broadcast" in closed.value.reason


def test_the_stream_of_an_unknown_table_is_closed_with_4404(client: TestClient) -> None:
    with client.websocket_connect("/api/v1/broadcast/tables/nope/feed",
                                  headers=auth(Role.BROADCAST)) as ws, \
            pytest.raises(WebSocketDisconnect) as closed:
        ws.receive_text()
    assert closed.value.code == 4404
