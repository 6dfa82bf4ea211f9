"""The vocabulary's models on the wire: each kind goes model -> JSON -> the union and comes
back equal, as the same class; the union refuses what is not one of its kinds; a schema 1
payload (``table_changed`` with a ``change`` string) is refused with the reason."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from controller.events import (
    EVENT_TYPES,
    KINDS,
    TABLE_EVENTS,
    ActionAccepted,
    ActionCorrected,
    ActionHeld,
    ActionsUndone,
    BoardDealt,
    BreakEnded,
    BreakStarted,
    BurnedCard,
    ButtonPlaced,
    CameBack,
    CardBurned,
    CardRead,
    CardSeen,
    Change,
    ChipsCounted,
    ClockCalled,
    ClockSnapshot,
    ClockSynced,
    ColourUpCancelled,
    ColourUpScheduled,
    ColourUpStarted,
    ColourUpStepUndone,
    DeckReport,
    GameSetup,
    HandEnded,
    HandForHandSet,
    HandReleased,
    HandShown,
    HandStarted,
    HandVoided,
    HoleCardsDealt,
    HoleDealt,
    HouseSet,
    HouseView,
    InputTaken,
    Irregularity,
    LevelSet,
    MisdealDeclared,
    Paused,
    PenaltyServed,
    PlayerBusted,
    PlayerCheckedIn,
    PlayerMoved,
    PlayerRemoved,
    PlayerSeated,
    PotAwarded,
    PublicEvent,
    RaceCardDealt,
    RaceChipsAwarded,
    RaceDealtAgain,
    RakeTaken,
    Rejected,
    Resumed,
    SatOut,
    SeatAdjustment,
    SeatNodeBack,
    SeatPresence,
    ShotClockReport,
    StackAdjusted,
    TableClosed,
    is_secret,
)
from controller.rules.actions import BetRaise, Call, Check, Fold, Kill, Muck, Show
from controller.rules.cards import parse_cards
from controller.rules.config import Variant
from controller.rules.game import GameConfig
from controller.sync.errors import MessageRejected
from controller.sync.messages import SCHEMA_VERSION, EventMessage, parse_message

CLOCK = ClockSnapshot(at=1_800_000_000.0, level=2, phase="level", seconds_left=431.5,
                      synchronised=True, host=True, stage="day1", chips=(("ann", 2),))
CALL = ActionAccepted(hand_no=7, player=1, action="call", amount=200, source="chips")

#: one event of every kind, with its own fields set
EXAMPLES: tuple[PublicEvent, ...] = (
    HandStarted(hand_no=7, seats=(1, 3, 5), stacks=(1_000, 900, 1_100), small_blind=100,
                big_blind=200, button=5, small_blind_seat=1, big_blind_seat=3, level=2,
                config=GameSetup.of(GameConfig(Variant.NT, (1_000, 900, 1_100), 100, 200))),
    HoleDealt(hand_no=7, player=0, count=2),
    CALL,
    BoardDealt(hand_no=7, cards=("2h", "5c", "9s"), street="flop"),
    CardBurned(hand_no=7),
    ActionsUndone(hand_no=7, actions=(CALL,), reason="not their turn"),
    ActionCorrected(hand_no=7, index=4, old=CALL,
                    new=ActionAccepted(hand_no=7, player=1, action="fold"), reason="folded"),
    ActionHeld(hand_no=7, seat=3, what="call", released=True),
    HandShown(hand_no=7, player=2, cards=("As", "Ks"), description="ace high"),
    PotAwarded(hand_no=7, amount=600, shares=((2, 600),), pot=1),
    HandEnded(hand_no=7, stacks=(800, 700, 1_500), rake=0),
    HandVoided(hand_no=7, stacks=(1_000, 900, 1_100), reason="restart (CRASH-1)"),
    MisdealDeclared(hand_no=7, stacks=(1_000, 900, 1_100), reason="exposed", rule="LIVE-25"),
    Irregularity(hand_no=7, what="too_few", reason="a card is missing", rule="CARD-5",
                 seat=3, choices=("misdeal", "continue")),
    PlayerSeated(seat=4, player="ann", stack=12_000, extension_chips=2, penalty_hands=3,
                 clock=CLOCK, command_id="c1"),
    PlayerRemoved(seat=4, player="ann", stack=11_000, command_id="c2"),
    PlayerMoved(seat=4, player="ann", stack=11_000, to_table="t9", command_id="c3"),
    PlayerBusted(seat=4, player="ann", hand_no=7),
    SatOut(seat=4),
    ButtonPlaced(seat=3),
    CameBack(seat=4),
    PenaltyServed(seat=4, player="ann", hands_left=2, hand_no=8),
    StackAdjusted(reason="rebuy", seats=(SeatAdjustment(seat=4, before=0, after=5_000),),
                  note="rebuy 1", command_id="c4"),
    SeatPresence(seat=4, present=True),
    PlayerCheckedIn(seat=4, player="ann", assigned=5),
    SeatNodeBack(hand_no=7, seat=4),
    Paused(clock=CLOCK, command_id="c5"),
    Resumed(clock=CLOCK, command_id="c6"),
    LevelSet(level=3, clock=CLOCK, small_blind=200, big_blind=400, ante=50, command_id="c7"),
    ClockCalled(seat=4, seconds=60.0, countdown_s=10, caller="floor", rule="CLOCK-1",
                command_id="c8"),
    ClockSynced(level=3, on_break=True, offset_s=-1.25, clock=CLOCK, command_id="c9"),
    BreakStarted(level=2, colour_up=(25,), clock=CLOCK, seconds=900.0),
    BreakEnded(level=2, clock=CLOCK),
    ShotClockReport(hand_no=7, seat=4, what="extension", seconds=30.0, chips_left=1),
    HandForHandSet(on=True, command_id="c10"),
    HandReleased(hand_no=8, command_id="c11"),
    ColourUpScheduled(level=3, command_id="c12"),
    TableClosed(command_id="c13"),
    DeckReport(what="checked", complete=False, missing=1, duplicated=0, unknown=1),
    HouseSet(hand_no=7, house=HouseView(name="Casino PLO 20/40", game="PO", kind="cash",
                                        unit="kr", label="PLO 20/40 kr, casino rake"),
             text='name = "Casino PLO 20/40"\n'),
    RakeTaken(hand_no=7, rake=30, pot=1_500, players_dealt=4, saw_flop=True),
    ColourUpStarted(leaving=(25,), trigger="break", seats=(1, 3, 5)),
    ChipsCounted(seat=3, chips=((25, 3),)),
    RaceCardDealt(seat=3, card="Kd", keyed=True),
    RaceDealtAgain(reason="a race card at two seats"),
    RaceChipsAwarded(chip=100, winners=((1, "As"), (5, None)), rescued=(3,)),
    ColourUpStepUndone(what="CountChips"),
    ColourUpCancelled(reason="the dealer's undo key before the first count"),
    Rejected(reason="seat 3 is not to act: seat 5 is", rule="CLOCK-1", source="call_clock"),
    InputTaken(hand_no=7, source="tablet", what="tap: bet seat=3 amount=150", at=81.25,
               intent="RaiseTo", fields={"to": 150, "seat": 3, "exact": True}, seat=3),
    CardRead(hand_no=7, reader="seat3", at=80.5, seat=3),
)


def test_every_kind_has_an_example() -> None:
    assert sorted(e.kind for e in EXAMPLES) == sorted(KINDS)
    assert len(KINDS) == len(EVENT_TYPES)  # one class per kind, one kind per class


@pytest.mark.parametrize("event", EXAMPLES, ids=lambda e: e.kind)
def test_each_kind_goes_model_to_json_to_the_union_and_back(event: PublicEvent) -> None:
    text = event.model_dump_json()
    back = TABLE_EVENTS.validate_json(text)
    assert type(back) is type(event) and back == event
    assert json.loads(text)["kind"] == event.kind
    message = EventMessage(table="t1", boot="b1", seq=9, ts=1.0, event=event)
    assert parse_message(EventMessage, message.to_wire()) == message


@pytest.mark.parametrize("model", EVENT_TYPES, ids=lambda t: t.__name__)
def test_each_kind_is_frozen_and_refuses_unknown_fields(model: type[BaseModel]) -> None:
    assert model.model_config.get("frozen") and model.model_config.get("extra") == "forbid"
    example = next(e for e in EXAMPLES if type(e) is model)
    with pytest.raises(ValidationError):
        example.kind = "other"  # type: ignore[misc]
    with pytest.raises(ValidationError, match="Extra inputs"):
        TABLE_EVENTS.validate_python({**example.model_dump(), "surprise": 1})


def test_no_kind_is_a_catch_all_change_with_a_string() -> None:
    assert "table_changed" not in KINDS
    for model in EVENT_TYPES:
        assert "change" not in model.model_fields, model.__name__
    changes = [t for t in EVENT_TYPES if issubclass(t, Change)]
    assert all("command_id" in t.model_fields for t in changes) and len(changes) >= 18


def test_only_hole_burn_and_read_cards_are_secret() -> None:
    assert not any(is_secret(e) for e in EXAMPLES)
    hole = HoleCardsDealt(hand_no=7, player=0, cards=("As", None))
    burn = BurnedCard(hand_no=7, card="2d")
    read = CardSeen(hand_no=7, reader="seat3", at=80.5, card="As", seat=3)
    assert is_secret(hole) and is_secret(burn) and is_secret(read)
    assert hole.public() == HoleDealt(hand_no=7, player=0, count=2)
    assert burn.public() == CardBurned(hand_no=7)
    assert read.public() == CardRead(hand_no=7, reader="seat3", at=80.5, seat=3)
    assert "As" not in read.public().model_dump_json()


def test_an_action_carries_its_rules_action_both_ways() -> None:
    for action in (Fold(1, 20), Check(0), Call(2, 150), BetRaise(1, 600),
                   Show(0, parse_cards("AsKs")), Muck(2), Kill(1, "LIVE-13")):
        event = ActionAccepted.of(7, action, source="console")
        assert event.rules_action() == action and event.hand_no == 7


def test_an_unknown_kind_is_refused_naming_the_kinds() -> None:
    with pytest.raises(ValidationError, match="player_seated"):
        TABLE_EVENTS.validate_python({"kind": "table_changed", "change": "paused"})


def v1_payload(**event: Any) -> bytes:
    return json.dumps({"schema": 1, "table": "t1", "boot": "b1", "seq": 3, "ts": 1.0,
                       "event": event}).encode()


def test_a_schema_1_payload_is_refused_with_the_reason() -> None:
    assert SCHEMA_VERSION == 2
    with pytest.raises(MessageRejected) as refused:
        parse_message(EventMessage, v1_payload(kind="table_changed", change="paused"))
    reason = refused.value.reason
    assert "schema version 1 is not supported" in reason and "speaks 2" in reason
    assert "table_changed" in reason and "upgrade" in reason
    # even an event whose kind exists in both versions: the envelope's version decides
    with pytest.raises(MessageRejected, match="schema version 1"):
        parse_message(EventMessage, v1_payload(kind="hole_dealt", hand_no=1, player=0,
                                               count=2))
