"""Sit & Go fees and the HexaPro / HexaPro Extreme jackpots (SNG-1..7, RAKE-10/12, LEVEL-4/5)."""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction

import pytest

from host_bridge.director.errors import DirectorError, PayoutError
from host_bridge.director.setup import jackpot_setup, jackpot_setup_for
from host_bridge.director.sng import (
    HEXAPRO,
    HEXAPRO_EXTREME,
    draw_multiplier,
    expected_multiplier,
    jackpot_pool,
    jackpot_prizes,
    jackpot_structure,
    sit_and_go_fee,
)


def _row(table: tuple, times: str):  # type: ignore[no-untyped-def]
    return next(r for r in table if r.times == Fraction(times))


class _Ticket(random.Random):
    """A Random whose randrange returns a fixed ticket."""

    def __init__(self, ticket: int) -> None:
        super().__init__(0)
        self.ticket = ticket

    def randrange(self, *args: object, **kw: object) -> int:  # type: ignore[override]
        return self.ticket


def test_sng_3_draw_uses_the_per_100000_table() -> None:
    assert draw_multiplier("hexapro", _Ticket(0)).times == 1000
    assert draw_multiplier("hexapro", _Ticket(1)).times == 100
    assert draw_multiplier("hexapro", _Ticket(5)).times == 100
    assert draw_multiplier("hexapro", _Ticket(6)).times == 25
    assert draw_multiplier("hexapro", _Ticket(105)).times == 25
    assert draw_multiplier("hexapro", _Ticket(106)).times == 10
    assert draw_multiplier("hexapro", _Ticket(99_999)).times == Fraction("1.5")
    assert draw_multiplier("hexapro_extreme", _Ticket(1)).times == 125
    assert draw_multiplier("hexapro_extreme", _Ticket(99_999)).times == 1


def test_sng_3_draw_frequencies_follow_the_probabilities() -> None:
    rng = random.Random(5)
    counts = Counter(draw_multiplier("hexapro", rng).times for _ in range(20_000))
    assert abs(counts[Fraction("1.5")] / 20_000 - 0.56294) < 0.02
    assert abs(counts[Fraction(3)] / 20_000 - 0.25) < 0.02


def test_rake_12_expected_multiplier_is_2_79441() -> None:
    assert expected_multiplier("hexapro") == Fraction(279_441, 100_000)
    assert expected_multiplier("hexapro_extreme") == Fraction(279_441, 100_000)
    assert 1 - expected_multiplier("hexapro") / 3 == Fraction(6853, 100_000)


def test_sng_3_1_prize_pools() -> None:
    assert jackpot_pool(100, _row(HEXAPRO, "1000")) == 100_000
    assert jackpot_pool(10_000, _row(HEXAPRO, "25")) == 250_000
    assert jackpot_pool(100, _row(HEXAPRO, "1.5")) == 150
    assert jackpot_pool(500, _row(HEXAPRO, "1.5")) == 750


def test_sng_3_2_payouts() -> None:
    assert jackpot_prizes("hexapro", 1_000, _row(HEXAPRO, "25")) == (20_000, 3_000, 2_000)
    assert jackpot_prizes("hexapro", 10_000, _row(HEXAPRO, "1000")) == (
        8_000_000, 1_200_000, 800_000)
    assert jackpot_prizes("hexapro", 500, _row(HEXAPRO, "10")) == (5_000, 0, 0)


def test_sng_6_examples() -> None:
    assert jackpot_pool(1_000, _row(HEXAPRO_EXTREME, "20")) == 20_000  # SNG-6/1
    assert jackpot_pool(20, _row(HEXAPRO_EXTREME, "125")) == 2_500  # SNG-6/2
    assert jackpot_pool(50, _row(HEXAPRO_EXTREME, "125")) == 6_250
    assert jackpot_pool(20, _row(HEXAPRO_EXTREME, "4")) == 80
    assert jackpot_prizes("hexapro_extreme", 100, _row(HEXAPRO_EXTREME, "125")) == (
        10_000, 2_000, 500)  # SNG-6/3


def test_sng_2_buy_ins_on_offer() -> None:
    with pytest.raises(PayoutError, match="SNG-2"):
        jackpot_prizes("hexapro", 20, _row(HEXAPRO, "3"))
    assert jackpot_prizes("hexapro_extreme", 20, _row(HEXAPRO_EXTREME, "3"))[0] == 60


def test_level_4_and_sng_3_structure_by_multiplier() -> None:
    s = jackpot_structure("hexapro", _row(HEXAPRO, "1000"))
    assert s.starting_stack == 500 and s.level(1).seconds == 240
    assert s.level(2).ante == 4 and s.level(28).big_blind == 4000
    assert jackpot_structure("hexapro", _row(HEXAPRO, "1.5")).level(1).seconds == 60


def test_level_5_and_sng_6_stacks_and_level_times() -> None:
    for times, stack, minutes in (("1000", 500, 3), ("125", 500, 3), ("20", 300, 2),
                                  ("10", 300, 2), ("4", 200, 1), ("3", 200, 1), ("1", 100, 1)):
        row = _row(HEXAPRO_EXTREME, times)
        setup = jackpot_setup_for("hexapro_extreme", 100, 0, row)
        assert setup.stack == stack
        assert setup.structure.level(1).seconds == 60 * minutes
        assert setup.structure.level(1).ante == 0


def test_sng_1_jackpot_setup_is_a_three_seat_sit_and_go() -> None:
    setup, row = jackpot_setup("hexapro", 1_000, 0, random.Random(2))
    assert setup.sit_and_go and setup.max_entrants == 3 and setup.seats_per_table == 3
    assert setup.prize_pool == jackpot_pool(1_000, row) == sum(setup.fixed_prizes)
    assert setup.freezeout


def test_rake_10_fee_table() -> None:
    assert sit_and_go_fee("5-handed", 2_500).fee == 125
    assert sit_and_go_fee("5-handed", 5_000).only_in_000
    assert sit_and_go_fee("2-handed", 20_000).prize == 19_400
    assert sit_and_go_fee("mtt", 10_000).fee == 1_000
    with pytest.raises(DirectorError, match="RAKE-10"):
        sit_and_go_fee("2-handed", 300)
