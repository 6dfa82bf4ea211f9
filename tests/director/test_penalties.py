"""Penalties that follow the player (PEN-2..5, TOURN-32)."""

from __future__ import annotations

import pytest

from controller.rules.config import LIVE_TOURNAMENT
from host_bridge.director import DirectorError, Penalties


def test_pen_2_1_a_round_is_one_hand_per_player_at_the_table() -> None:
    book = Penalties(LIVE_TOURNAMENT)
    assert book.miss_rounds("a", 1, 6).hands == 6
    assert book.remaining("a") == 6 and book.serving("a")


def test_pen_5_1_remaining_hands_follow_the_player() -> None:
    book = Penalties(LIVE_TOURNAMENT)
    book.miss_rounds("a", 2, 8)
    for _ in range(5):
        book.hand_dealt(["a", "b"])  # day 1, table 3
    assert book.remaining("a") == 11
    for _ in range(11):
        book.hand_dealt(["a", "c"])  # day 2, another table
    assert book.remaining("a") == 0 and not book.serving("a")


def test_pen_3_warning_first_by_conf() -> None:
    strict = Penalties(LIVE_TOURNAMENT.with_overrides({"penalty.warning_first": "true"}))
    with pytest.raises(DirectorError, match="PEN-3"):
        strict.miss_hands("a", 3)
    assert strict.remaining("a") == 0
    strict.warn("a")
    removal = strict.remove_for("a", now=1000.0)
    assert removal.until == 1000.0 + 900
    assert strict.serving("a", now=1800.0) and not strict.serving("a", now=1901.0)
    lenient = Penalties(LIVE_TOURNAMENT)  # 004: no escalation needed
    lenient.miss_hands("a", 3)
    with pytest.raises(DirectorError, match="PEN-3"):
        lenient.remove_for("a", now=0.0)
