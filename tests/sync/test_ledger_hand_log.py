"""The ledger's hand log, stack adjustments and the new wire kinds, without a broker."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from controller.events import (
    ActionAccepted,
    ActionsUndone,
    BurnedCard,
    CameBack,
    GameSetup,
    HandStarted,
    HoleDealt,
    PlayerSeated,
    PublicState,
    SatOut,
    SeatAdjustment,
    SeatView,
    StackAdjusted,
)
from controller.rules.config import Variant
from controller.rules.game import GameConfig, Post, Straddle
from controller.rules.rake import RakePolicy
from controller.sync.errors import JournalError
from controller.sync.journal import Journal
from controller.sync.ledger import fold
from controller.sync.messages import EventMessage, SecureCards, parse_message

SEATED = PublicState(seats=(SeatView(seat=1, player="a", stack=100),
                            SeatView(seat=2, player="b", stack=100)))
START = HandStarted(hand_no=1, seats=(1, 2), stacks=(100, 100), small_blind=1, big_blind=2)


def call(player: int, amount: int) -> ActionAccepted:
    return ActionAccepted(hand_no=1, player=player, action="call", amount=amount)


def test_undo_drops_the_last_actions_of_the_log_newest_first() -> None:
    state = SEATED
    for event in (START, HoleDealt(hand_no=1, player=0, count=2),
                  HoleDealt(hand_no=1, player=1, count=2), call(1, 1),
                  ActionAccepted(hand_no=1, player=0, action="check")):
        state = fold(state, event)
    undone = ActionsUndone(hand_no=1, reason="wrong key", actions=(
        ActionAccepted(hand_no=1, player=0, action="check"), call(1, 1)))
    after = fold(state, undone)
    assert [e.kind for e in after.hand_log] == ["hole_dealt", "hole_dealt"]


def test_undo_of_actions_that_are_not_the_last_is_refused() -> None:
    state = fold(fold(fold(SEATED, START), HoleDealt(hand_no=1, player=0, count=2)),
                 call(1, 1))
    with pytest.raises(JournalError, match="not the last"):
        fold(state, ActionsUndone(hand_no=1, actions=(call(1, 5),)))


def test_stack_adjusted_between_hands_only_and_from_the_stack_held() -> None:
    rebuy = StackAdjusted(reason="rebuy", seats=(SeatAdjustment(seat=1, before=100,
                                                                after=300),))
    assert {s.seat: s.stack for s in fold(SEATED, rebuy).seats} == {1: 300, 2: 100}
    with pytest.raises(JournalError, match="not 50"):
        fold(SEATED, StackAdjusted(reason="colour_up", seats=(
            SeatAdjustment(seat=1, before=50, after=55),)))
    with pytest.raises(JournalError, match="during hand"):
        fold(fold(SEATED, START), rebuy)


def test_sitting_out_is_part_of_the_public_state() -> None:
    out = fold(SEATED, SatOut(seat=2))
    assert [s.sitting_out for s in out.seats] == [False, True]
    assert not fold(out, CameBack(seat=2)).seats[1].sitting_out


def test_a_hand_started_payload_without_config_still_parses() -> None:
    old = {"schema": 2, "table": "t1", "boot": "b", "seq": 3, "ts": 1.0,
           "event": {"kind": "hand_started", "hand_no": 1, "seats": [1, 2],
                     "stacks": [100, 100], "small_blind": 1, "big_blind": 2}}
    event = parse_message(EventMessage, json.dumps(old).encode()).event
    assert isinstance(event, HandStarted) and event.config is None


def test_game_setup_round_trips_every_game_config_field() -> None:
    config = GameConfig(Variant.NT, (100, 100, 100, 100), 1, 2, antes=(1, 1, 1, 1),
                        big_blind_ante=0, straddle=Straddle.UTG, straddle_amount=4,
                        posts=(Post(3, live=2),),
                        rake=RakePolicy.percentage("7/2", 300))
    setup = GameSetup.model_validate_json(GameSetup.of(config).model_dump_json())
    assert setup.config(config.stacks) == config


def test_card_8_a_burn_is_public_as_a_burn_and_its_card_only_secure(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "t.db", table="t1")
    try:
        journal.append([PlayerSeated(seat=1, player="a", stack=100),
                        PlayerSeated(seat=2, player="b", stack=100),
                        START])
        parcel = journal.append([BurnedCard(hand_no=1, card="As")])[0]
        assert b"As" not in parcel.public and b'"kind":"burn"' in parcel.public
        assert parcel.secure is not None
        secure = parse_message(SecureCards, parcel.secure)
        assert (secure.what, secure.cards, secure.seq) == ("burn", ("As",), parcel.seq)
    finally:
        journal.close()
