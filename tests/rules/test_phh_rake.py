"""A raked hand's PHH (RAKE-1..8): the policy and the rake taken are user fields
(``_rake``, ``_rake_taken``), so an exported hand replays to the same finishing stacks and
the same rake, through the engine and through ``pitboss replay``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from controller.replay_command import main as replay_main
from controller.rules.cards import parse_cards
from controller.rules.config import Variant
from controller.rules.errors import HandHistoryError
from controller.rules.game import GameConfig
from controller.rules.hand import Hand, Phase
from controller.rules.phh import HandHistory, dumps, loads
from controller.rules.rake import RakePolicy, rake_policy
from controller.rules.replay import (
    config_from_history,
    history_from_hand,
    rake_from_history,
    replay_history,
)

PERCENT = RakePolicy.percentage("7/2", 100, halved_cap=50)  # 3.5 %, cap 100, halved 50
CASINO = rake_policy("casino")  # RAKE-8 brackets in kr
CASINO_ALWAYS = rake_policy("casino", no_flop_no_drop=False)
HOLES = ("AsAh", "KsKh", "QsQh", "JsJh")
BOARD = ("2c7d9h", "3s", "4d")


def betting(hand: Hand) -> bool:
    """A betting round is open (a function, so the type checker does not narrow)."""
    return hand.phase is Phase.BETTING


def played(policy: RakePolicy | None, *, players: int, stack: int, raise_to: int | None,
           flop: bool = True) -> Hand:
    """A scripted hand: ``raise_to`` preflop (None: everyone calls), then everyone calls;
    with ``flop`` the board runs out and it is checked down, else all fold to the raise."""
    config = GameConfig(Variant.NT, (stack,) * players, 10, 20, rake=policy)
    hand = Hand(config)
    for player in range(players):
        hand.deal_hole(player, parse_cards(HOLES[player]))
    if raise_to is not None:
        hand.bet_or_raise_to(raise_to)
    while betting(hand):
        if flop:
            hand.check_or_call()
        else:
            hand.fold()
    for cards in BOARD if flop else ():
        hand.deal_board(parse_cards(cards))
        while betting(hand):
            hand.check_or_call()
    while hand.phase is Phase.SHOWDOWN:
        hand.show()
    assert hand.is_complete
    return hand


def exported(hand: Hand) -> HandHistory:
    """The hand written as PHH text and read back."""
    (history,) = loads(dumps(history_from_hand(hand)))
    return history


def assert_replays(hand: Hand) -> HandHistory:
    history = exported(hand)
    assert history == history_from_hand(hand)  # the inline tables read back equal
    replayed = replay_history(history)
    assert replayed.stacks == hand.stacks == list(history.finishing_stacks or ())
    assert replayed.rake == hand.rake == history.extra["_rake_taken"]
    assert config_from_history(history).rake == hand.config.rake
    return history


def test_rake_5_percentage_with_cap_replays_to_the_same_stacks() -> None:
    hand = played(PERCENT, players=4, stack=5000, raise_to=1000)  # pot 4000: 140 -> cap
    assert hand.rake == 100
    history = assert_replays(hand)
    assert history.extra["_rake"] == {
        "kind": "percentage", "percent": "7/2", "cap": 100, "halved_cap": 50,
        "rounding": "nearest", "minimum": 1, "no_flop_no_drop": True, "unit": "cent"}


def test_rake_5_halved_cap_for_three_players_round_trips() -> None:
    hand = played(PERCENT, players=3, stack=5000, raise_to=1000)
    assert hand.rake == 50
    assert_replays(hand)


def test_rake_4_percentage_below_the_cap_is_rounded_the_same() -> None:
    hand = played(RakePolicy.percentage("7/2", 100, rounding="up"), players=4, stack=5000,
                  raise_to=None)  # pot 80: 2.8 -> 3 rounded up
    assert hand.rake == 3
    assert exported(hand).extra["_rake"]["rounding"] == "up"  # type: ignore[index]
    assert_replays(hand)


def test_rake_8_casino_brackets_replay_to_the_same_stacks() -> None:
    hand = played(CASINO, players=4, stack=5000, raise_to=600)  # pot 2400 kr: 50
    assert hand.rake == 50
    text = dumps(history_from_hand(hand))
    assert '_rake = {kind = "brackets", brackets = [{pot_to = 1000, rake = 20}' in text
    assert "{rake = 200}]" in text and "_rake_taken = 50" in text
    assert_replays(hand)


def test_rake_2_no_flop_no_drop_takes_nothing_and_says_so() -> None:
    hand = played(CASINO, players=3, stack=5000, raise_to=200, flop=False)
    assert hand.rake == 0
    history = assert_replays(hand)
    assert history.extra["_rake"]["no_flop_no_drop"] is True  # type: ignore[index]


def test_rake_2_switched_off_rakes_a_hand_without_a_flop_on_replay_too() -> None:
    hand = played(CASINO_ALWAYS, players=3, stack=5000, raise_to=200, flop=False)
    assert hand.rake == 20  # pot 230 kr: the first bracket
    assert_replays(hand)


def test_rake_1_without_the_policy_the_stacks_would_differ() -> None:
    hand = played(PERCENT, players=4, stack=5000, raise_to=1000)
    history = exported(hand)
    bare = HandHistory(**{**{f: getattr(history, f) for f in history.__dataclass_fields__},
                          "extra": {}})
    assert sum(replay_history(bare).stacks) == sum(hand.stacks) + hand.rake
    assert rake_from_history(bare) is None


def test_an_unraked_hand_has_no_rake_fields() -> None:
    hand = played(None, players=3, stack=1000, raise_to=None)
    assert "_rake" not in dumps(history_from_hand(hand))


@pytest.mark.parametrize(("field", "problem"), [
    ('{kind = "flat"}', "_rake.kind"),
    ('{kind = "percentage", percent = "seven"}', "_rake.percent"),
    ('{kind = "percentage", percent = "7/2", cap = 100}', "halved_cap"),
    ('{kind = "percentage", percent = "7/2", colour = "red"}', "unknown key(s) colour"),
    ('{kind = "brackets", brackets = [{pot_to = 1000, rake = 20}]}', "open bracket"),
    ('{kind = "percentage", percent = "7/2", minimum = 0.5}', "_rake.minimum"),
    ('"3.5%"', "inline table"),
])
def test_rake_1_a_bad_rake_field_is_refused_by_name(field: str, problem: str) -> None:
    text = dumps(history_from_hand(played(PERCENT, players=3, stack=5000, raise_to=None)))
    start = text.index("_rake = ")
    text = text[:start] + f"_rake = {field}" + text[text.index("\n", start):]
    (history,) = loads(text)
    with pytest.raises(HandHistoryError, match=problem.replace("(", r"\(").replace(")", r"\)")):
        config_from_history(history)


def test_rake_1_pitboss_replay_compares_the_rake_taken(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hand = played(CASINO, players=4, stack=5000, raise_to=600)
    good, bad = tmp_path / "good.phh", tmp_path / "bad.phh"
    text = dumps(history_from_hand(hand))
    good.write_text(text)
    bad.write_text(text.replace("_rake_taken = 50", "_rake_taken = 70"))
    assert replay_main(["--json", str(good)]) == 0
    assert json.loads(capsys.readouterr().out)["finishing_stacks"] == hand.stacks
    assert replay_main(["--json", str(bad)]) == 1
    error = json.loads(capsys.readouterr().out)["error"]
    assert "the file took 70 (_rake_taken), the replay takes 50" in error
