"""``dumps_pair`` writes a hand and its public copy (hole cards masked) once: both texts
are exactly what ``dumps`` writes of each (the bridge stores both at every hand's end)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from controller.phh_files import iter_paths
from controller.rules.errors import HandHistoryError
from controller.rules.phh import HandHistory, PhhAction, dumps, dumps_pair, loads


def masked(hand: HandHistory) -> tuple[PhhAction, ...]:
    return tuple(dataclasses.replace(a, cards=(None,) * len(a.cards))
                 if a.kind == "dh" and a.cards else a for a in hand.actions)


def test_every_shared_hand_and_its_masked_copy_are_written_as_dumps_writes_them(
        shared_dir: Path) -> None:
    hands = 0
    for path in iter_paths([shared_dir / "phh"]):
        if path.suffix not in (".phh", ".phhs"):
            continue
        for hand in loads(path.read_text(encoding="utf-8"), str(path)):
            other = masked(hand)
            assert dumps_pair(hand, other) == (
                dumps(hand), dumps(dataclasses.replace(hand, actions=other))), path
            hands += 1
    assert hands > 100  # the corpus was read, not skipped


def test_the_masked_copy_hides_every_dealt_card_and_nothing_else() -> None:
    hand = loads('variant = "NT"\nantes = [0, 0]\nblinds_or_straddles = [1, 2]\n'
                 'min_bet = 2\nstarting_stacks = [100, 100]\nactions = [\n'
                 '  "d dh p1 AsKd",\n  "d dh p2 7h7c",\n  "p2 f",\n]\n')[0]
    full, public = dumps_pair(hand, masked(hand))
    assert "AsKd" in full and "7h7c" in full
    assert "AsKd" not in public and "7h7c" not in public and '"d dh p1 ????"' in public
    assert full.replace("AsKd", "????").replace("7h7c", "????") == public


def test_a_different_number_of_actions_is_refused() -> None:
    hand = loads('variant = "NT"\nantes = [0, 0]\nblinds_or_straddles = [1, 2]\n'
                 'min_bet = 2\nstarting_stacks = [100, 100]\nactions = ["p2 f"]\n')[0]
    with pytest.raises(HandHistoryError, match="0 actions to put in place of 1"):
        dumps_pair(hand, ())
