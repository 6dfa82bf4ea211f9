"""Open Hand History (OHH 1.4.7): a hand written by the engine's replay
(:mod:`controller.rules.ohh_write`) validates against host_bridge/ohh_schema.json and reads
back (:mod:`controller.rules.ohh`) as the hand history the PHH reader gives, so it replays
to the same stacks; amounts are exact; bad files are refused naming the file and the field."""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from controller.replay_command import replay_one
from controller.rules import ohh
from controller.rules.cards import parse_cards
from controller.rules.config import Variant, profile_named
from controller.rules.errors import HandHistoryError
from controller.rules.game import GameConfig
from controller.rules.hand import Hand
from controller.rules.ohh_write import OhhTable, to_ohh
from controller.rules.phh import HandHistory
from controller.rules.rake import rake_policy
from controller.rules.replay import history_from_hand
from tests.bridge.tablesim import showdown_hand

SCHEMA = json.loads((Path(__file__).resolve().parents[2] / "host_bridge" / "ohh_schema.json")
                    .read_text(encoding="utf-8"))
VALIDATOR = Draft202012Validator(SCHEMA)
NAMES = ("ana", "ben", "cleo")


def table(n: int = 3, *, reveal: bool = True, per: int = 1, **kw: Any) -> OhhTable:
    """Where the hand was played: seats 1..n, the button last, every card or none shown."""
    return OhhTable(site_name="test", game_number="t1-1", table_name="t1",
                    start_date_utc="2025-03-14T20:00:00Z", seats=tuple(range(1, n + 1)),
                    dealer_seat=n, table_size=9, currency="EUR" if per == 100 else "DKK",
                    per_currency_unit=per, unit="cent" if per == 100 else "kr",
                    reveal=frozenset(range(n)) if reveal else frozenset(), **kw)


def written(hand: Hand, *, names: tuple[str, ...] = NAMES, **kw: Any
            ) -> tuple[HandHistory, dict[str, Any], HandHistory]:
    """The hand's PHH record, its OHH (checked against the schema), and the OHH read back
    from a file's text."""
    history = history_from_hand(hand, players=list(names[:hand.players]))
    doc = to_ohh(history, table(hand.players, **kw))
    VALIDATOR.validate({"ohh": doc})
    text = json.dumps({"ohh": doc})
    return history, doc, ohh.loads(text, "hand.ohh")[0]


def actions(doc: dict[str, Any], name: str) -> list[dict[str, Any]]:
    return [a for r in doc["rounds"] for a in r["actions"] if a["action"] == name]


def fold_hand() -> Hand:
    """Three players; the button raises to 30 and both blinds fold."""
    hand = Hand(GameConfig(variant=Variant.NT, stacks=(1000, 1000, 1000), small_blind=5,
                           big_blind=10))
    for player, cards in enumerate(("AsKs", "7c2d", "QhQd")):
        hand.deal_hole(player, parse_cards(cards))
    hand.bet_or_raise_to(30, 2)
    hand.fold(0)
    hand.fold(1)
    return hand


def all_in_hand(profile: str = "live") -> Hand:
    """Stacks 200, 500 and 1000: all in preflop, two pots and 500 uncalled (POT-1, POT-3)."""
    hand = Hand(GameConfig(variant=Variant.NT, stacks=(200, 500, 1000), small_blind=5,
                           big_blind=10), profile_named(profile))
    for player, cards in enumerate(("AsAd", "KsKd", "QsQd")):
        hand.deal_hole(player, parse_cards(cards))
    hand.bet_or_raise_to(1000, 2)
    hand.call(0)
    hand.call(1)
    for board in ("2h5c9s", "Td", "3h"):
        hand.deal_board(parse_cards(board))
    while not hand.is_complete:
        hand.show()
    return hand


def replays(history: HandHistory) -> list[int | float] | None:
    """``pitboss replay``'s verdict on a hand: its finishing stacks, or a failure."""
    outcome = replay_one(history, "hand.ohh#1", None)
    assert outcome.ok, outcome.error
    return outcome.finishing_stacks


def test_the_schema_is_a_valid_draft_2020_12_schema() -> None:
    Draft202012Validator.check_schema(SCHEMA)
    assert "1.4.7" in SCHEMA["$comment"] and "hh-specs.handhistory.org" in SCHEMA["$comment"]


def test_a_showdown_reads_back_as_the_phh_it_was_written_from() -> None:
    history, doc, back = written(showdown_hand())
    assert back.actions == history.actions
    assert (back.antes, back.blinds_or_straddles, back.starting_stacks, back.min_bet) == (
        history.antes, history.blinds_or_straddles, history.starting_stacks, history.min_bet)
    assert back.finishing_stacks == history.finishing_stacks == (995, 970, 1035)
    assert back.players == NAMES and back.seats == (1, 2, 3) and back.seat_count == 9
    raise_ = actions(doc, "Raise")[0]
    assert (raise_["player_id"], raise_["amount"]) == (2, 30)  # put in, not "to"
    assert actions(doc, "Call")[0]["amount"] == 20  # the big blind had 10 in already
    assert [r["street"] for r in doc["rounds"]] == ["Preflop", "Flop", "Turn", "River",
                                                    "Showdown"]
    assert doc["flags"] == ["Observed"] and "hero_player_id" not in doc
    assert replays(back) == [995, 970, 1035]


def test_pot_3_an_uncalled_raise_comes_back_as_a_pot_of_the_bettor() -> None:
    _, doc, back = written(fold_hand())
    assert [(p["amount"], p["player_wins"]) for p in doc["pots"]] == [
        (25, [{"player_id": 2, "win_amount": 25}]), (20, [{"player_id": 2, "win_amount": 20}])]
    assert back.finishing_stacks == (995, 990, 1015)
    assert replays(back) == [995, 990, 1015]


def test_pot_1_an_all_in_makes_side_pots_and_every_all_in_is_flagged() -> None:
    _, doc, back = written(all_in_hand())
    assert [(p["number"], p["amount"], [w["player_id"] for w in p["player_wins"]])
            for p in doc["pots"]] == [(0, 600, [0]), (1, 600, [1]), (2, 500, [2])]
    assert [(a["player_id"], a.get("is_allin", False)) for a in actions(doc, "Call")] == [
        (0, True), (1, True)]
    assert actions(doc, "Raise")[0]["is_allin"]  # a shove, though 500 of it came back
    assert replays(back) == [600, 600, 500]


def test_rake_8_a_raked_hand_replays_with_the_same_rake() -> None:
    history, doc, back = written(showdown_hand(rake_policy("casino")))
    assert doc["pots"][0]["amount"] == 65 and doc["pots"][0]["rake"] == 20
    assert doc["pots"][0]["player_wins"] == [{"player_id": 2, "win_amount": 45}]
    assert back.extra["_rake_taken"] == 20 and back.extra["_rake"] == history.extra["_rake"]
    assert replays(back) == [995, 970, 1015]


def test_cents_are_written_as_euros_exactly_and_read_back_to_the_cent() -> None:
    hand = Hand(GameConfig(variant=Variant.NT, stacks=(1001, 2003, 999), small_blind=5,
                           big_blind=10))
    for player, cards in enumerate(("AsKs", "7c2d", "QhQd")):
        hand.deal_hole(player, parse_cards(cards))
    hand.bet_or_raise_to(37, 2)
    hand.fold(0)
    hand.fold(1)
    _, doc, back = written(hand, per=100)
    text = json.dumps({"ohh": doc})
    assert '"starting_stack": 10.01' in text and '"starting_stack": 20.03' in text
    assert '"small_blind_amount": 0.05' in text and '"amount": 0.37' in text
    assert back.starting_stacks == (1001, 2003, 999) and back.unit_scale == 1  # cents
    foreign = copy.deepcopy(doc)
    del foreign[ohh.EXTENSION]  # another site's file: read by its decimals
    read = ohh.loads(json.dumps({"ohh": foreign}), "other.ohh")[0]
    assert read.unit_scale == 100 and read.starting_stacks == (1001, 2003, 999)
    assert replays(read) == [9.96, 19.93, 10.14]  # in the file's euros


def test_the_public_copy_has_no_dealt_card_and_still_replays() -> None:
    _, doc, back = written(showdown_hand(), reveal=False)
    text = json.dumps(doc)
    assert not actions(doc, "Dealt Cards") and '"As"' not in text and '"Ks"' not in text
    assert [a["cards"] for a in actions(doc, "Shows Cards")] == [["7c", "2d"], ["Qh", "Qd"]]
    assert all(None in a.cards for a in back.actions[:3] if a.cards)  # dealt unknown
    assert replays(back) == [995, 970, 1035]


def test_a_players_own_copy_names_them_the_hero_and_shows_only_their_cards() -> None:
    _, doc, _ = written(showdown_hand(), reveal=False)
    own = to_ohh(history_from_hand(showdown_hand(), players=list(NAMES)),
                 replace(table(), reveal=frozenset({0}), hero=0))
    VALIDATOR.validate({"ohh": own})
    assert own["hero_player_id"] == 0 and "flags" not in own
    assert [(a["player_id"], a["cards"]) for a in actions(own, "Dealt Cards")] == [
        (0, ["As", "Ks"])]
    assert doc["pots"] == own["pots"]


def test_show_4_hands_turned_up_at_once_are_written_as_shown() -> None:
    hand = all_in_hand("live-tournament")  # SHOW-3/4: every hand tabled at the all-in
    assert not [a for a in hand.log if type(a).__name__ == "Show"]
    _, doc, back = written(hand, reveal=False)
    assert sorted((a["player_id"], tuple(a["cards"])) for a in actions(doc, "Shows Cards")) == [
        (0, ("As", "Ad")), (1, ("Ks", "Kd")), (2, ("Qs", "Qd"))]
    assert replay_one(back, "t.ohh#1", profile_named("live-tournament")).finishing_stacks == [
        600, 600, 500]


def test_live_2_a_forfeit_and_live_17_a_dead_hand_read_back_as_played() -> None:
    hand = Hand(GameConfig(variant=Variant.NT, stacks=(1000, 1000, 1000, 1000),
                           small_blind=5, big_blind=10))
    for player, cards in enumerate(("AsKs", "7c2d", "QhQd", "JhJd")):
        hand.deal_hole(player, parse_cards(cards))
    hand.kill(3, "LIVE-17")
    hand.bet_or_raise_to(40, 2)
    hand.fold(0, forfeit=15)  # LIVE-2: chips pushed stay in the pot
    hand.fold(1)
    history, doc, back = written(hand, names=("ana", "ben", "cleo", "dan"))
    assert [a["amount"] for a in actions(doc, "Add to Pot")] == [15]
    killed = next(a for a in actions(doc, "Fold") if a["player_id"] == 3)
    assert doc[ohh.EXTENSION]["dead_hands"] == {str(killed["action_number"]): "LIVE-17"}
    assert back.actions == history.actions
    assert replays(back) == list(hand.stacks)


def test_btn_3_heads_up_reads_back_with_the_big_blind_first() -> None:
    hand = Hand(GameConfig(variant=Variant.NT, stacks=(500, 700), small_blind=5, big_blind=10,
                           antes=(2, 2)))
    for player, cards in enumerate(("AsKs", "7c2d")):
        hand.deal_hole(player, parse_cards(cards))
    hand.bet_or_raise_to(30, 1)  # the button acts first preflop heads-up
    hand.call(0)
    for board in ("2h5c9s", "Td", "3h"):
        hand.deal_board(parse_cards(board))
        hand.check(0)
        hand.check(1)
    while not hand.is_complete:
        hand.show()
    history, doc, back = written(hand, names=("ana", "ben"))
    assert [(a["player_id"], a["action"]) for a in doc["rounds"][0]["actions"][:4]] == [
        (0, "Post Ante"), (1, "Post Ante"), (0, "Post BB"), (1, "Post SB")]
    assert (back.blinds_or_straddles, back.antes) == (history.blinds_or_straddles,
                                                      history.antes)
    assert back.actions == history.actions and replays(back) == list(hand.stacks)


def test_several_hands_in_one_file_separated_by_a_blank_line() -> None:
    docs = [to_ohh(history_from_hand(h, players=list(NAMES)), table())
            for h in (showdown_hand(), fold_hand())]
    text = "".join(json.dumps({"ohh": d}) + "\n\n" for d in docs)
    assert ohh.looks_like_ohh("\ufeff" + text) and not ohh.looks_like_ohh('variant = "NT"')
    hands = ohh.loads("\ufeff" + text, "day.ohh")
    assert [h.finishing_stacks for h in hands] == [(995, 970, 1035), (995, 990, 1015)]


def broken(change: str) -> str:
    """The showdown hand's file text with one thing wrong."""
    doc: dict[str, Any] = to_ohh(history_from_hand(showdown_hand(), players=list(NAMES)),
                                 table())
    if change == "no players":
        del doc["players"]
    elif change == "a word for an amount":
        doc["rounds"][0]["actions"][5]["amount"] = "thirty"
    elif change == "added chips":
        doc["rounds"][1]["actions"][0]["action"] = "Added Chips"
    elif change == "an unknown action":
        doc["rounds"][1]["actions"][0]["action"] = "Jump"
    elif change == "a four-card flop":
        doc["rounds"][1]["cards"].append("Ah")
    elif change == "stud":
        doc["game_type"] = "Stud"
    ok = json.dumps({"ohh": doc})
    return ok[:-5] if change == "cut short" else ok


@pytest.mark.parametrize(("change", "field", "says"), [
    ("no players", "ohh.players", "must be an array"),
    ("a word for an amount", "ohh.rounds[0].actions[5].amount", "must be a number"),
    ("added chips", "ohh.rounds[1].actions[0].action", "outside the pot"),
    ("an unknown action", "ohh.rounds[1].actions[0].action", "not an OHH action"),
    ("a four-card flop", "ohh.rounds[1].cards", "the Flop deals 3"),
    ("stud", "ohh.game_type", "not a game Pitboss plays"),
    ("cut short", "not valid JSON", "line 1"),
])
def test_a_bad_file_is_refused_naming_the_file_and_the_field(change: str, field: str,
                                                             says: str) -> None:
    with pytest.raises(HandHistoryError) as caught:
        ohh.loads(broken(change), "bad.ohh")
    message = str(caught.value)
    assert message.startswith("bad.ohh, hand 1: ") and field in message and says in message

