"""Replaying hand histories: the shared PHH files, the PHH mapping, export, and the CLI."""

from __future__ import annotations

import json
import random
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.phh_files import iter_paths, load
from controller.replay_command import main as replay_main
from controller.rules.cards import parse_cards
from controller.rules.config import LIVE_CASH, LIVE_TOURNAMENT, Variant
from controller.rules.errors import HandHistoryError
from controller.rules.game import GameConfig, Post, Straddle
from controller.rules.hand import Hand
from controller.rules.phh import HandHistory, dumps, loads
from controller.rules.replay import (
    config_from_history,
    expected_stacks,
    history_from_hand,
    replay_history,
)
from tests.rules.randplay import play_random_hand

NT_HEADER = """variant = "NT"
antes = [0, 0, 0]
blinds_or_straddles = [1, 2, 0]
min_bet = 2
starting_stacks = [100, 100, 100]
"""


def test_every_shared_hand_history_replays_to_its_finishing_stacks(shared_dir: Path) -> None:
    checked = 0
    for path in iter_paths([shared_dir / "phh"]):
        for history in load(path):
            hand = replay_history(history)
            expected = expected_stacks(history)
            assert hand.is_complete, path
            if expected is not None:
                assert hand.stacks == expected, path
                checked += 1
    assert checked >= 2500  # 25 WSOP + 2,502 Pluribus hands carry finishing stacks


def test_pot_5_half_chips_in_a_file_are_given_by_the_odd_unit_rule() -> None:
    history = HandHistory(variant="NT", antes=(0, 0, 0), starting_stacks=(100, 100, 100),
                          blinds_or_straddles=(1, 2, 0), min_bet=2,
                          finishing_stacks=(Fraction(201, 2), Fraction(201, 2), 99))
    assert expected_stacks(history) == [101, 100, 99]
    # EXAMPLE POT-5/1's numbers: 11 units split three ways from nothing.
    three = HandHistory(variant="NT", antes=(0, 0, 0), starting_stacks=(5, 5, 5),
                        blinds_or_straddles=(1, 2, 0), min_bet=2,
                        finishing_stacks=(Fraction(11, 3),) * 3)
    assert expected_stacks(three) == [5, 3, 3]
    assert expected_stacks(three, each=True) == [4, 4, 3]


def test_btn_3_heads_up_antes_are_written_like_blinds() -> None:
    # PHH (after PokerKit) writes heads-up antes small-blind poster first; p1 is the BB.
    (history,) = loads("""variant = "NT"
antes = [0, 5]
blinds_or_straddles = [5, 10]
min_bet = 10
starting_stacks = [100, 200]
actions = []
""")
    config = config_from_history(history)
    assert config.big_blind_ante == 5 and config.big_blind_index == 0


def test_straddle_and_missing_small_blind_are_read_from_blinds_or_straddles() -> None:
    (utg,) = loads(NT_HEADER.replace("[1, 2, 0]", "[1, 2, 4]") + "actions = []\n")
    assert config_from_history(utg).straddle_index == 2  # three-handed UTG is the button
    four = NT_HEADER.replace("[0, 0, 0]", "[0, 0, 0, 0]").replace(
        "[1, 2, 0]", "[1, 2, 4, 0]").replace("[100, 100, 100]", "[100, 100, 100, 100]")
    assert config_from_history(loads(four + "actions = []\n")[0]).straddle is Straddle.UTG
    no_sb = NT_HEADER.replace("[1, 2, 0]", "[2, 0, 0]")
    config = config_from_history(loads(no_sb + "actions = []\n")[0])
    assert config.no_small_blind and config.big_blind == 2 and config.big_blind_index == 0


def test_blind_4_posts_export_to_phh_and_replay_to_the_same_stacks() -> None:
    # A new player posts a live big blind, a returning one a live BB and a dead SB.
    config = GameConfig(Variant.NT, (100,) * 5, 1, 2,
                        posts=(Post(2, live=2), Post(3, live=2, dead=1)))
    hand, _, _ = play_random_hand(config, random.Random(7), profile=LIVE_CASH)
    assert hand.config.posts
    (again,) = loads(dumps(history_from_hand(hand)))
    assert again.blinds_or_straddles == (1, 2, 2, 2, 0) and again.antes == (0, 0, 0, 1, 0)
    # PHH antes (ante_trimming_status false) are dead money: the extra ante is the dead post
    assert not again.ante_trimming_status
    assert config_from_history(again) == config
    assert replay_history(again, LIVE_CASH).stacks == hand.stacks


@pytest.mark.parametrize("config", [
    GameConfig(Variant.NT, (40, 9, 60, 30), 1, 2, antes=(1,) * 4, big_blind_ante=2),
    GameConfig(Variant.NT, (8, 50, 50, 50), 1, 2, no_small_blind=True, big_blind_ante=2),
], ids=["beside_antes", "without_small_blind"])
def test_ante_2_big_blind_ante_reads_back_from_phh_as_the_tables_dead_money(
        config: GameConfig) -> None:
    # PHH antes are dead money (ante_trimming_status false): the big blind's extra ante is
    # the big blind ante wherever the big blind sits (BTN-5: index 0 without a small
    # blind), beside an ante everyone pays too, never the big blind's own stake.
    for seed in range(20):
        hand, _, _ = play_random_hand(config, random.Random(seed), profile=LIVE_TOURNAMENT)
        (again,) = loads(dumps(history_from_hand(hand)))
        read = config_from_history(again)
        assert (read.antes, read.big_blind_ante, read.big_blind_index) == (
            config.antes, config.big_blind_ante, config.big_blind_index)
        assert replay_history(again, LIVE_TOURNAMENT).stacks == hand.stacks


def test_live_17_dead_hands_and_forfeits_export_as_commented_folds_and_replay() -> None:
    config = GameConfig(Variant.NT, (100,) * 4, 1, 2)
    hand = Hand(config, LIVE_CASH)
    for player, cards in enumerate(("AsKs", "QhQd", "7c2d", "9h9s")):
        hand.deal_hole(player, parse_cards(cards))
    hand.bet_or_raise_to(10)
    hand.fold(forfeit=5)  # player 3 leaves 5 in
    hand.kill(0, "DEAL-5")
    text = dumps(history_from_hand(hand))
    assert "# forfeits 5 (LIVE-2)" in text and "# dead hand (DEAL-5)" in text
    (again,) = loads(text)
    assert replay_history(again, LIVE_CASH).snapshot() == hand.snapshot()


def test_unsupported_variant_is_refused_with_the_list_of_variants() -> None:
    (history,) = loads("""variant = "F7S"
antes = [1, 1]
bring_in = 2
small_bet = 5
big_bet = 10
starting_stacks = [100, 100]
actions = []
""")
    with pytest.raises(HandHistoryError, match="FT, NT, PO"):
        config_from_history(history)


@settings(max_examples=60, deadline=None)
@given(variant=st.sampled_from(list(Variant)), n=st.integers(2, 9), seed=st.integers(0, 2**32))
def test_a_played_hand_exports_to_phh_and_replays_identically(variant: Variant, n: int,
                                                             seed: int) -> None:
    rng = random.Random(seed)
    stacks = tuple(rng.randint(3, 300) for _ in range(n))
    config = GameConfig(variant, stacks, 1, 2, small_bet=2, big_bet=4)
    hand, _, _ = play_random_hand(config, rng, profile=LIVE_TOURNAMENT)
    text = dumps(history_from_hand(hand))
    (again,) = loads(text)
    replayed = replay_history(again, LIVE_TOURNAMENT)
    assert replayed.stacks == hand.stacks
    assert replayed.snapshot() == hand.snapshot()


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_replay_json_reports_each_hand_and_fails_on_any_bad_one(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = NT_HEADER + """actions = ["d dh p1 AsKs", "d dh p2 2c2d", "d dh p3 7h8h", "p3 f", "p1 f"]
finishing_stacks = [99, 101, 100]
"""
    _write(tmp_path, "a_good.phh", good)
    _write(tmp_path, "b_illegal.phh", NT_HEADER + 'actions = ["d dh p1 AsKs", '
           '"d dh p2 2c2d", "d dh p3 7h8h", "p3 cbr 3"]\n')
    _write(tmp_path, "c_broken.phh", "variant = \n")
    _write(tmp_path, "d_wrong.phh", good.replace("[99, 101, 100]", "[100, 100, 100]"))
    _write(tmp_path, "e_many.phhs", "[1]\n" + good + "\n[2]\n" + good)
    assert replay_main(["--json", str(tmp_path)]) == 1
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    by_source = {Path(line["source"]).name: line for line in lines}
    assert set(by_source) == {"a_good.phh", "b_illegal.phh", "c_broken.phh", "d_wrong.phh",
                              "e_many.phhs#1", "e_many.phhs#2"}
    assert by_source["a_good.phh"] == {"source": str(tmp_path / "a_good.phh"),
                                       "variant": "NT", "ok": True,
                                       "finishing_stacks": [99, 101, 100], "error": None}
    assert by_source["e_many.phhs#2"]["ok"] is True
    illegal = by_source["b_illegal.phh"]
    assert illegal["ok"] is False and illegal["finishing_stacks"] is None
    assert "BET-4" in illegal["error"] and "p3 cbr 3" in illegal["error"]
    assert by_source["c_broken.phh"]["ok"] is False and "TOML" in by_source["c_broken.phh"]["error"]
    assert "finishing stacks differ" in by_source["d_wrong.phh"]["error"]


def test_replay_exit_status_is_zero_when_every_hand_is_ok(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _write(tmp_path, "one.phh", NT_HEADER + 'actions = ["d dh p1 AsKs", "d dh p2 2c2d", '
           '"d dh p3 7h8h", "p3 f", "p1 f"]\n')
    assert replay_main([str(tmp_path)]) == 0
    assert "1 ok" in capsys.readouterr().out
    assert replay_main(["--json", str(tmp_path / "missing")]) == 1


def test_replay_profile_option_takes_a_house_file(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    house = _write(tmp_path, "house.toml", 'base = "live"\n"pot.odd_unit" = '
                   '"one_each_clockwise_from_button"\n')
    _write(tmp_path, "one.phh", NT_HEADER + 'actions = ["d dh p1 AsKs", "d dh p2 2c2d", '
           '"d dh p3 7h8h", "p3 f", "p1 f"]\n')
    assert replay_main(["--profile", str(house), str(tmp_path / "one.phh")]) == 0
    assert "live+house.toml" in capsys.readouterr().out
    assert replay_main(["--profile", "nonsense", str(tmp_path / "one.phh")]) == 2
    assert LIVE_CASH.name == "live"
