"""Sit & Gos: the RAKE-10 fee tables and the HexaPro / HexaPro Extreme jackpot formats
(SNG-1..7, LEVEL-4/5, RAKE-10/12).

The multiplier tables are data: weight per 100,000, payout percentages, level length and
starting stack per multiplier. :func:`draw_multiplier` draws one with the seeds'
probabilities from a ``random.Random`` it is given. The blind structures themselves are
the presets in ``controller.clocks.structures`` (reused, not repeated here).

Decisions: SNG-7 reads HexaPro Extreme's "1.x" row as 1x (RULES.md). The RAKE-10 5-handed
€50 and €100 rows exist only in seed 000 (Appendix A.19); they are kept and marked.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from fractions import Fraction
from typing import Final

from controller.clocks.structure import Structure, preset

from .errors import PayoutError
from .payouts import BASIS, payout_table


@dataclass(frozen=True, slots=True)
class Multiplier:
    """One row of a jackpot table (SNG-3, SNG-6)."""

    times: Fraction  # the prize pool is this many times one player's buy-in
    weight: int  # probability per 100,000
    payout: tuple[int, int, int]  # basis points for 1st/2nd/3rd
    level_minutes: int
    starting_stack: int

    def __post_init__(self) -> None:
        if sum(self.payout) != BASIS or self.weight <= 0:
            raise PayoutError(f"multiplier {self.times}x: payouts must add to 100 % and the "
                              "weight be positive", "SNG-3")


def _rows(*rows: tuple[str, int, tuple[int, int, int], int, int]) -> tuple[Multiplier, ...]:
    out = tuple(Multiplier(Fraction(t), w, p, m, s) for t, w, p, m, s in rows)
    if sum(r.weight for r in out) != 100_000:
        raise PayoutError("a multiplier table's probabilities add to 100,000", "SNG-4")
    return out


_TOP: Final = (8000, 1200, 800)
_ALL: Final = (BASIS, 0, 0)
# SNG-3 (HexaPro): every multiplier starts with 500 chips.
HEXAPRO: Final = _rows(
    ("1000", 1, _TOP, 4, 500), ("100", 5, _TOP, 4, 500), ("25", 100, _TOP, 4, 500),
    ("10", 4_600, _ALL, 3, 500), ("5", 14_000, _ALL, 3, 500), ("3", 25_000, _ALL, 2, 500),
    ("1.5", 56_294, _ALL, 1, 500),
)
# SNG-6 (HexaPro Extreme).
HEXAPRO_EXTREME: Final = _rows(
    ("1000", 1, _TOP, 3, 500), ("125", 202, (8000, 1600, 400), 3, 500),
    ("20", 100, _ALL, 2, 300), ("10", 3_550, _ALL, 2, 300), ("4", 12_000, _ALL, 1, 200),
    ("3", 41_772, _ALL, 1, 200), ("1", 42_375, _ALL, 1, 100),
)
JACKPOTS: Final = {"hexapro": HEXAPRO, "hexapro_extreme": HEXAPRO_EXTREME}
BUY_INS: Final = {  # cents; SNG-2, SNG-6
    "hexapro": (100, 200, 500, 1_000, 2_500, 5_000, 10_000),
    "hexapro_extreme": (20, 50, 100, 200, 500, 1_000, 2_000, 2_500, 5_000, 10_000),
}


def jackpot_table(fmt: str) -> tuple[Multiplier, ...]:
    try:
        return JACKPOTS[fmt]
    except KeyError:
        raise PayoutError(f"no jackpot format {fmt!r}; choose hexapro or hexapro_extreme",
                          "SNG-3") from None


def draw_multiplier(fmt: str, rng: random.Random) -> Multiplier:
    """SNG-3/SNG-6: one multiplier drawn with the table's probabilities (per 100,000)."""
    ticket = rng.randrange(100_000)
    for row in jackpot_table(fmt):
        if ticket < row.weight:
            return row
        ticket -= row.weight
    raise AssertionError("weights add to 100,000")  # pragma: no cover


def expected_multiplier(fmt: str) -> Fraction:
    """E[multiplier]; RAKE-12 gives 2.79441 for both tables (rake equivalent 6.853 %)."""
    return sum((r.times * r.weight for r in jackpot_table(fmt)), Fraction(0)) / 100_000


def jackpot_pool(buy_in: int, row: Multiplier) -> int:
    """The prize pool in cents: the multiplier times one player's buy-in (SNG-3, SNG-6)."""
    pool = row.times * buy_in
    if pool.denominator != 1:
        raise PayoutError(f"{row.times}x of {buy_in} cents is not a whole number of cents",
                          "SNG-3")
    return int(pool)


def jackpot_prizes(fmt: str, buy_in: int, row: Multiplier) -> tuple[int, ...]:
    """Prizes for 1st/2nd/3rd in cents (SNG-3, SNG-6); the buy-in must be one on offer."""
    jackpot_table(fmt)
    if buy_in not in BUY_INS[fmt]:
        raise PayoutError(f"{fmt} is not offered at {buy_in / 100:g} €; the buy-ins are "
                          + ", ".join(f"{b / 100:g} €" for b in BUY_INS[fmt]),
                          "SNG-2")
    return payout_table(jackpot_pool(buy_in, row), row.payout)


def jackpot_structure(fmt: str, row: Multiplier) -> Structure:
    """The game's blind structure (LEVEL-4/5): the preset at this multiplier."""
    jackpot_table(fmt)
    return preset(fmt, multiplier=float(row.times))


@dataclass(frozen=True, slots=True)
class SitAndGoFee:
    """RAKE-10: a Sit & Go's total price = prize-pool contribution + fee (cents)."""

    fmt: str  # "5-handed", "2-handed", "mtt"
    total: int
    prize: int
    fee: int
    only_in_000: bool = False

    def __post_init__(self) -> None:
        if self.prize + self.fee != self.total:
            raise PayoutError(f"{self.fmt} {self.total}: prize + fee != total", "RAKE-10")


def _fees(fmt: str, rows: tuple[tuple[int, int, int], ...], old: tuple[int, ...] = ()
          ) -> tuple[SitAndGoFee, ...]:
    return tuple(SitAndGoFee(fmt, t, p, f, t in old) for t, p, f in rows)


FEES: Final = (
    _fees("5-handed", ((100, 95, 5), (200, 190, 10), (400, 380, 20), (1_000, 950, 50),
                       (2_500, 2_375, 125), (5_000, 4_850, 150), (10_000, 9_700, 300)),
          old=(5_000, 10_000))
    + _fees("2-handed", ((100, 97, 3), (200, 194, 6), (400, 388, 12), (1_000, 970, 30),
                         (2_500, 2_425, 75), (5_000, 4_850, 150), (10_000, 9_700, 300),
                         (20_000, 19_400, 600)))
    + _fees("mtt", ((100, 90, 10), (400, 360, 40), (1_000, 900, 100), (2_500, 2_250, 250),
                    (5_000, 4_500, 500), (10_000, 9_000, 1_000)), old=(100, 400, 1_000, 2_500,
                                                                      5_000, 10_000))
)


def sit_and_go_fee(fmt: str, total: int) -> SitAndGoFee:
    """The RAKE-10 row for a format and total price in cents."""
    for row in FEES:
        if row.fmt == fmt and row.total == total:
            return row
    raise PayoutError(f"RAKE-10 lists no {fmt} Sit & Go at {total / 100:g} €", "RAKE-10")
