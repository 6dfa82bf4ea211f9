"""A table's retained public state at the bridge: the hand in play as the table's rules
engine sees it (``PublicState.hand``) and the stakes in force reach the table's API
response and, each time they change, the live feed."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi.testclient import TestClient

from controller.events import (
    ActionAccepted,
    GameSetup,
    HandStarted,
    HoleDealt,
    PlayerSeated,
    PublicEvent,
    PublicState,
)
from controller.rules.config import Variant
from controller.rules.game import GameConfig, Straddle
from controller.sync.ledger import fold
from host_bridge.bridge import Bridge
from host_bridge.settings import Role
from tests.bridge.conftest import auth
from tests.bridge.tablesim import WireTable

CONFIG = GameConfig(Variant.NT, (2_000, 2_000, 2_000, 2_000), 25, 50,
                    straddle=Straddle.UTG, straddle_amount=100)


def folded(*events: PublicEvent) -> PublicState:
    """The state a table's journal folds from ``events``."""
    state = PublicState()
    for event in events:
        state = fold(state, event)
    return state


def straddled_hand() -> list[PublicEvent]:
    """Four players at 25/50 with a straddle of 100 under the gun (seat 7), cards dealt,
    the first player after the straddler folds."""
    seats = (3, 5, 7, 9)
    return [*(PlayerSeated(seat=s, player=f"p{s}", stack=2_000) for s in seats),
            HandStarted(hand_no=1, seats=seats, stacks=CONFIG.stacks, small_blind=25,
                        big_blind=50, config=GameSetup.of(CONFIG)),
            *(HoleDealt(hand_no=1, player=p, count=2) for p in range(4)),
            ActionAccepted(hand_no=1, player=3, action="fold")]


def take(bridge: Bridge, *messages: tuple[str, bytes]) -> list[dict[str, Any]]:
    """Deliver messages; the feed items they led to."""
    result = asyncio.run(bridge.store_many(list(messages)))
    return result.feed


def test_the_table_api_shows_the_engines_hand_in_play_and_the_stakes(
        client: TestClient, bridge: Bridge) -> None:
    wire = WireTable()
    take(bridge, wire.status(True), wire.state(folded(*straddled_hand())))
    body = client.get("/api/v1/tables/t1", headers=auth(Role.VIEWER)).json()
    hand = body["hand"]
    # the small blind (seat 3) is next after the button folded: 75 to call the straddle
    assert (hand["to_act"], hand["to_call"], hand["min_raise_to"], hand["max_raise_to"]) == (
        3, 75, 200, 2_000)
    assert hand["legal"] == ["fold", "call", "bet_raise"]
    assert [(p["seat"], p["bet"], p["folded"]) for p in hand["players"]] == [
        (3, 25, False), (5, 50, False), (7, 100, False), (9, 0, True)]
    assert body["stakes"] == {"level": None, "variant": "NT", "small_blind": 25,
                              "big_blind": 50, "ante": 0, "big_blind_ante": 0,
                              "straddle": 100}
    assert body["reported"]["hand"] == hand


def test_a_new_state_goes_to_the_feed_once(bridge: Bridge) -> None:
    wire = WireTable()
    events = straddled_hand()
    state = folded(*events)
    first = take(bridge, wire.state(state))
    assert [(i["type"], i["state"]["hand"]["to_act"]) for i in first] == [("state", 3)]
    assert set(first[0]["state"]) == {"hand_no", "hand_in_progress", "level", "paused",
                                      "clock_on_seat", "stakes", "hand", "seat_nodes_offline"}
    assert take(bridge, wire.state(state)) == []  # the retained copy again: nothing new
    called = fold(state, ActionAccepted(hand_no=1, player=0, action="call", amount=75))
    again = take(bridge, wire.state(called))
    assert [(i["state"]["hand"]["to_act"], i["state"]["hand"]["to_call"]) for i in again] \
        == [(5, 50)]
