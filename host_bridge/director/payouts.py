"""Prize pools, payout tables, shared places and the ICM chop (TOURN-8/9/24/25, CANCEL-8).

Money is in cents, chips are whole numbers. Splits never lose or invent a cent: the
remainder of a proportional split goes by largest remainder (ties to the earlier place or
the earlier player), so every list of shares sums exactly to what was shared.

* The seeds publish no MTT payout percentages (TOURN-1: they depend on the entrants and
  are final when registration closes), so a :class:`PayoutStructure` is house data: rows of
  (up to N entries -> percentages in basis points per place).
* TOURN-9 guaranteed pool: the pool is the larger of what the buy-ins paid in and the
  guarantee; the difference is the house's overlay.
* TOURN-24 ``shared_place`` [interp, as RULES.md]: the prizes of the places involved are
  pooled and divided equally (:func:`shared_prizes`).
* CANCEL-8 ICM is Malmuth-Harville, computed exactly with fractions by dynamic
  programming over the sets of players already placed. Only sets of at most
  ``len(prizes)`` players are visited, so cost grows with C(players, paid places);
  :data:`ICM_MAX_STATES` bounds it (a final table of 10 paying 10 is 1,024 states) and a
  larger field is refused with a reason rather than approximated.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Final

from .errors import PayoutError

BASIS: Final = 10_000  # basis points in 100 %
ICM_MAX_STATES: Final = 2_000_000


def split_cents(total: int, weights: Sequence[int | Fraction]) -> list[int]:
    """``total`` cents shared in proportion to ``weights``; sums exactly to ``total``.

    Largest remainder; ties go to the earlier weight. All-zero weights share equally.
    """
    if total < 0:
        raise PayoutError(f"cannot share a negative amount ({total} cents)", "POT-5")
    if not weights:
        raise PayoutError("nobody to share among", "POT-5")
    if any(w < 0 for w in weights):
        raise PayoutError("shares cannot be negative", "POT-5")
    ws = [Fraction(w) for w in weights]
    whole = sum(ws)
    if whole == 0:
        ws, whole = [Fraction(1)] * len(ws), Fraction(len(ws))
    exact = [total * w / whole for w in ws]
    shares = [int(e) for e in exact]  # floor: all non-negative
    left = total - sum(shares)
    order = sorted(range(len(ws)), key=lambda i: (-(exact[i] - shares[i]), i))
    for i in order[:left]:
        shares[i] += 1
    return shares


@dataclass(frozen=True, slots=True)
class PrizePool:
    """The pool to pay: what entries paid in, the guarantee and the house's overlay."""

    collected: int  # cents from buy-ins, rebuys and add-ons (fees excluded, RAKE-9)
    guarantee: int = 0  # TOURN-9 guaranteed minimum
    added: int = 0  # money the house adds (freerolls: CANCEL-2)

    def __post_init__(self) -> None:
        if min(self.collected, self.guarantee, self.added) < 0:
            raise PayoutError("pool amounts cannot be negative", "TOURN-9")

    @property
    def total(self) -> int:
        return max(self.collected + self.added, self.guarantee)

    @property
    def overlay(self) -> int:
        """What the house pays beyond the money in: the guarantee shortfall (TOURN-9)."""
        return self.total - self.collected - self.added


@dataclass(frozen=True, slots=True)
class PayoutStructure:
    """House payout percentages: ``rows[i] = (max_entries, basis points per place)``.

    The first row whose ``max_entries`` is at least the number of entries applies.
    """

    rows: tuple[tuple[int, tuple[int, ...]], ...]

    def __post_init__(self) -> None:
        if not self.rows:
            raise PayoutError("a payout structure needs at least one row", "TOURN-1")
        last = 0
        for max_entries, bps in self.rows:
            if max_entries <= last:
                raise PayoutError("payout rows go by increasing numbers of entries", "TOURN-1")
            last = max_entries
            if not bps or sum(bps) != BASIS or any(b < 0 for b in bps):
                raise PayoutError(f"the row for up to {max_entries} entries pays "
                                  f"{sum(bps) / 100:g} %, not 100 %", "TOURN-1")
            if list(bps) != sorted(bps, reverse=True):
                raise PayoutError("a higher place never pays less than a lower one", "TOURN-1")
            if len(bps) > max_entries:
                raise PayoutError(f"{len(bps)} places paid but at most {max_entries} entries",
                                  "TOURN-1")

    def percentages(self, entries: int) -> tuple[int, ...]:
        for max_entries, bps in self.rows:
            if entries <= max_entries:
                return bps
        return self.rows[-1][1]

    def places_paid(self, entries: int) -> int:
        return sum(1 for b in self.percentages(entries) if b > 0)


WINNER_TAKES_ALL: Final = PayoutStructure(((1_000_000, (BASIS,)),))


def payout_table(pool: PrizePool | int, percentages: Sequence[int]) -> tuple[int, ...]:
    """Prizes in cents by place from basis points; the rounding remainder goes to the top."""
    total = pool.total if isinstance(pool, PrizePool) else pool
    if sum(percentages) != BASIS:
        raise PayoutError(f"payout percentages add to {sum(percentages) / 100:g} %, not 100 %",
                          "TOURN-1")
    prizes = [total * b // BASIS for b in percentages]
    prizes[0] += total - sum(prizes)
    return tuple(prizes)


def shared_prizes(prizes: Sequence[int], best: int, count: int) -> list[int]:
    """TOURN-24 ``shared_place``: places ``best..best+count-1`` pool their prizes and share
    them equally (odd cents to the first listed); places beyond the table pay 0."""
    if best < 1 or count < 1:
        raise PayoutError("places start at 1 and a shared place has at least one player",
                          "TOURN-24")
    pooled = sum(prizes[p - 1] for p in range(best, best + count) if p <= len(prizes))
    return split_cents(pooled, [1] * count)


def icm_equity(stacks: Sequence[int], prizes: Sequence[int]) -> list[Fraction]:
    """Malmuth-Harville expected prize of each stack (CANCEL-8), exact."""
    n = len(stacks)
    if n == 0:
        raise PayoutError("ICM needs at least one player", "CANCEL-8")
    if any(s < 0 for s in stacks) or sum(stacks) == 0:
        raise PayoutError("ICM needs stacks that are not negative and not all empty",
                          "CANCEL-8")
    paid = min(len(prizes), n)
    states = sum(_comb(n, k) for k in range(paid + 1))
    if states > ICM_MAX_STATES:
        raise PayoutError(f"an exact ICM chop of {n} players paying {paid} places needs "
                          f"{states:,} states; chop at the final table", "CANCEL-8")
    total = sum(stacks)
    equity = [Fraction(0)] * n
    # prob[S]: probability that the players in S (a bitmask) take the top |S| places.
    prob: dict[int, Fraction] = {0: Fraction(1)}
    for k in range(paid):
        nxt: dict[int, Fraction] = {}
        for placed, p in prob.items():
            if p == 0:
                continue
            rest = total - sum(stacks[i] for i in range(n) if placed >> i & 1)
            if rest == 0:  # only empty stacks left: they share the places equally
                left = [i for i in range(n) if not placed >> i & 1]
                chances = {i: Fraction(1, len(left)) for i in left}
            else:
                chances = {i: Fraction(stacks[i], rest) for i in range(n)
                           if not placed >> i & 1 and stacks[i] > 0}
            for i, c in chances.items():
                q = p * c
                equity[i] += q * prizes[k]
                key = placed | 1 << i
                nxt[key] = nxt.get(key, Fraction(0)) + q
        prob = nxt
    return equity


def _comb(n: int, k: int) -> int:
    out = 1
    for i in range(k):
        out = out * (n - i) // (i + 1)
    return out


def icm_chop(stacks: Sequence[int], prizes: Sequence[int]) -> list[int]:
    """CANCEL-4/8: the prizes still to pay shared by ICM, in cents summing to ``sum(prizes)``.

    ``prizes`` are the remaining places' prizes, best first; extra players get 0 places.
    """
    if list(prizes) != sorted(prizes, reverse=True) or any(p < 0 for p in prizes):
        raise PayoutError("prizes go best place first and are not negative", "CANCEL-8")
    return split_cents(sum(prizes[:len(stacks)]), icm_equity(stacks, prizes))


def places_for(entries: int, structure: PayoutStructure) -> int:
    """How many places a field of ``entries`` pays."""
    return structure.places_paid(entries)


def chips_by_player(stacks: Mapping[str, int]) -> tuple[list[str], list[int]]:
    """Players (sorted by name) and their stacks, for the list-based functions."""
    names = sorted(stacks)
    return names, [stacks[n] for n in names]


__all__ = [
    "BASIS",
    "ICM_MAX_STATES",
    "WINNER_TAKES_ALL",
    "PayoutStructure",
    "PrizePool",
    "chips_by_player",
    "icm_chop",
    "icm_equity",
    "payout_table",
    "places_for",
    "shared_prizes",
    "split_cents",
]
