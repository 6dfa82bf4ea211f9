"""A finished hand's PHH at the bridge: replayed with the hand_started event's ``config``
(the whole game setup), with the dealer's undos (DEAL-6) and the floor's corrections folded
in; a misdeal (LIVE-25) or a void hand (CRASH-1) has no PHH and gives the stacks back."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import select

from controller.events import (
    ActionAccepted,
    ActionCorrected,
    ActionsUndone,
    HandVoided,
    MisdealDeclared,
)
from controller.rules import phh
from controller.rules.cards import parse_cards
from controller.rules.config import Variant
from controller.rules.game import GameConfig
from controller.rules.hand import Hand as EngineHand
from controller.rules.replay import history_from_hand
from controller.sync.messages import EventMessage
from controller.sync.topics import Topics
from host_bridge.bridge import Bridge
from host_bridge.ingest import Ingest
from host_bridge.models import Hand, PokerTable, Seat
from tests.bridge.tablesim import SITE, WireTable, showdown_hand

PLAYERS = ("alice", "bob", "carol")
TOPICS = Topics(SITE, "t1")


def seated(wire: WireTable) -> list[tuple[str, bytes]]:
    """Three players seated at seats 1..3 with 1000 each."""
    return [wire.seat(seat, name, 1000) for seat, name in zip((1, 2, 3), PLAYERS, strict=True)]


def splice(messages: list[tuple[str, bytes]], at: int,
           events: list[Any]) -> list[tuple[str, bytes]]:
    """``messages`` with public ``events`` inserted before index ``at``, every seq numbered
    again in order (a secure/cards message keeps the seq of its hole_dealt)."""
    inserted = [(TOPICS.event, {"event": e.model_dump(mode="json")}) for e in events]
    decoded = [(t, json.loads(p)) for t, p in messages]
    out: list[tuple[str, bytes]] = []
    seq = 0
    for topic, data in [*decoded[:at], *inserted, *decoded[at:]]:
        if topic == TOPICS.event:
            seq += 1
        body = {"schema": 2, "table": "t1", "boot": "boot-1", "ts": 2000.0 + seq, **data,
                "seq": seq}
        out.append((topic, json.dumps(body).encode()))
    return out


def stored_hand(bridge: Bridge, hand_no: int = 1) -> Hand:
    """The hand's row."""
    with bridge.ingest._sessions() as session:
        hand = session.scalar(select(Hand).where(Hand.hand_no == hand_no))
        assert hand is not None
        return hand


def take(bridge: Bridge, messages: list[tuple[str, bytes]]) -> None:
    """Every message, in order."""
    for topic, payload in messages:
        bridge.ingest.take(topic, payload)


def engine_phh(hand: EngineHand) -> str:
    """The PHH the rules engine itself exports for ``hand``."""
    return phh.dumps(history_from_hand(hand, players=list(PLAYERS)))


def index_of(messages: list[tuple[str, bytes]], kind: str, n: int = 1) -> int:
    """The index of the ``n``-th event of ``kind`` in ``messages``."""
    seen = 0
    for i, (topic, payload) in enumerate(messages):
        if topic == TOPICS.event and json.loads(payload)["event"]["kind"] == kind:
            seen += 1
            if seen == n:
                return i
    raise AssertionError(f"no {kind} number {n}")


def test_the_phh_uses_the_hand_started_config(bridge: Bridge) -> None:
    # a big-blind ante (ANTE-2): only the config says so
    played = EngineHand(GameConfig(variant=Variant.NT, stacks=(1000, 1000, 1000),
                                   small_blind=5, big_blind=10, big_blind_ante=10))
    for player, cards in enumerate(("AsKs", "7c2d", "QhQd")):
        played.deal_hole(player, parse_cards(cards))
    played.fold(2)
    played.fold(0)
    wire = WireTable()
    take(bridge, [*seated(wire), *wire.hand(1, (1, 2, 3), played, with_config=True)])
    hand = stored_hand(bridge)
    assert hand.phh_error is None
    assert hand.phh == engine_phh(played)
    history = phh.loads(hand.phh)[0]
    assert history.antes == (0, 10, 0)  # ANTE-2: the big blind pays the table's ante
    assert history.finishing_stacks == (995, 1005, 1000)


def test_a_hand_without_config_is_replayed_as_no_limit_with_its_blinds(bridge: Bridge) -> None:
    wire = WireTable()
    take(bridge, [*seated(wire), *wire.hand(1, (1, 2, 3), showdown_hand())])
    assert stored_hand(bridge).phh == engine_phh(showdown_hand())


def test_deal_6_undone_actions_are_not_in_the_phh(bridge: Bridge) -> None:
    wire = WireTable()
    messages = [*seated(wire), *wire.hand(1, (1, 2, 3), showdown_hand(), with_config=True)]
    fold = index_of(messages, "action", 2)  # player 0 folds after the raise
    mistaken = ActionAccepted(hand_no=1, player=0, action="call", amount=30)
    messages = splice(messages, fold, [mistaken, ActionsUndone(
        hand_no=1, actions=(mistaken,), reason="the dealer pushed the wrong chips")])
    take(bridge, messages)
    hand = stored_hand(bridge)
    assert hand.phh_error is None and hand.status == "ended"
    assert hand.phh == engine_phh(showdown_hand())


def test_an_undo_that_does_not_match_the_log_gives_no_phh_and_says_why(bridge: Bridge) -> None:
    wire = WireTable()
    messages = [*seated(wire), *wire.hand(1, (1, 2, 3), showdown_hand(), with_config=True)]
    never = ActionAccepted(hand_no=1, player=1, action="fold")
    messages = splice(messages, index_of(messages, "action", 2),
                      [ActionsUndone(hand_no=1, actions=(never,))])
    take(bridge, messages)
    hand = stored_hand(bridge)
    assert hand.phh is None
    assert hand.phh_error is not None and "not the last 1 of its log" in hand.phh_error


def test_a_corrected_action_is_in_the_phh_as_corrected(bridge: Bridge) -> None:
    wire = WireTable()
    messages = [*seated(wire), *wire.hand(1, (1, 2, 3), showdown_hand(), with_config=True)]
    raise_at = index_of(messages, "action", 1)
    decoded = json.loads(messages[raise_at][1])
    right = ActionAccepted.model_validate(decoded["event"])
    assert (right.action, right.amount) == ("bet_raise", 30)
    wrong = right.model_copy(update={"amount": 40})
    # the table logged a raise to 40, the floor corrected entry 3 (three deals before it)
    messages[raise_at] = (messages[raise_at][0], EventMessage.model_validate(
        {**decoded, "event": wrong.model_dump()}).to_wire())
    messages = splice(messages, raise_at + 1, [ActionCorrected(
        hand_no=1, index=3, old=wrong, new=right, reason="misread the chips")])
    take(bridge, messages)
    hand = stored_hand(bridge)
    assert hand.phh_error is None
    assert hand.phh == engine_phh(showdown_hand())
    assert "cbr 30" in hand.phh and "cbr 40" not in hand.phh


def _void_hand(bridge: Bridge, void: Any) -> Hand:
    wire = WireTable()
    hand_messages = wire.hand(1, (1, 2, 3), showdown_hand(), with_config=True)
    flop = index_of(hand_messages, "board")
    messages = splice([*seated(wire), *hand_messages[:flop]], 3 + flop, [void])
    take(bridge, messages)
    with bridge.ingest._sessions() as session:
        table = session.get(PokerTable, "t1")
        assert table is not None and not table.hand_in_progress
        assert [s.stack for s in session.scalars(select(Seat).order_by(Seat.seat))] == [
            1000, 1000, 1000]
    return stored_hand(bridge)


def test_live_25_a_misdeal_voids_the_hand_without_a_phh(bridge: Bridge) -> None:
    hand = _void_hand(bridge, MisdealDeclared(hand_no=1, stacks=(1000, 1000, 1000),
                                              reason="two cards exposed", rule="LIVE-25"))
    assert hand.status == "voided" and hand.phh is None and hand.phh_public is None
    assert hand.phh_error is not None and "misdeal" in hand.phh_error


def test_crash_1_a_voided_hand_has_no_phh_and_the_stacks_go_back(bridge: Bridge) -> None:
    hand = _void_hand(bridge, HandVoided(hand_no=1, stacks=(1000, 1000, 1000),
                                         reason="the table restarted mid-hand"))
    assert hand.status == "voided" and hand.phh is None
    assert hand.phh_error is not None and "void" in hand.phh_error
    assert hand.end_stacks == [1000, 1000, 1000]


def test_a_hand_split_by_a_bridge_restart_is_exported_from_the_store(bridge: Bridge) -> None:
    # the ingest keeps the hand in progress in memory for the export; after a restart it
    # has only the second half, so the export reads the hand back from the store
    wire = WireTable()
    messages = [*seated(wire), *wire.hand(1, (1, 2, 3), showdown_hand(), with_config=True)]
    flop = index_of(messages, "board")
    take(bridge, messages[:flop])
    old = bridge.ingest
    bridge.ingest = Ingest(old._sessions, old.site, host_boot="restarted", resend_after=50)
    take(bridge, messages[flop:])
    hand = stored_hand(bridge)
    assert hand.phh_error is None
    assert hand.phh == engine_phh(showdown_hand())
