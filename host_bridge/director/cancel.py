"""Compensation when a tournament is cancelled for software problems (CANCEL-1..9).

Each function takes the facts at the moment of cancellation and returns, per player, a
:class:`Compensation` in cents. :func:`compensate` picks the rule by the stage the event
reached, from the records the :class:`~host_bridge.director.tournament.Tournament` passes
in (:meth:`Tournament.cancel`); the others are also usable on their own.

Decisions where RULES.md is [interp] or silent, taken literally:

* CANCEL-2: "the prize pool paid in by players" is the pool without any guarantee
  overlay; in a freeroll the house's added pool is shared the same way. Odd cents of the
  equal half go by largest remainder (earlier player by name first).
* CANCEL-3: "the lowest prize not yet paid" is the prize of the lowest place still to be
  decided, i.e. ``prizes[len(players) - 1]`` of the unpaid places best first.
* CANCEL-6 [interp as RULES.md]: 10 % of the pool to each remaining player, then the rest by
  ICM with the game's payout percentages for the places still open, scaled to the rest.
  The fee to return is an input (the seeds do not state it).
* CANCEL-7: each remaining player also receives the value of their own bounty.
* CANCEL-5: a non-cash prize (ticket, free spins, seat) is published with its money value
  (:class:`NonCashPrize`); :func:`prizes_in_money` turns a prize list into cents, and the
  compensation above is computed on those cents.
* CANCEL-9 / TOURN-8: :func:`~.registration.cancel_below_minimum` cancels only a field that has not
  reached its minimum before the start (the director may still cancel any event,
  :meth:`Tournament.cancel`), and refunds as CANCEL-1.
* TOURN-7: :func:`~.registration.unregister` takes a player out before the start with
  buy-in and fee back (the same money they paid); once play has started nothing is
  refundable. The seeds' deadline "a few minutes before the start" is the floor's to
  publish: the model has no start time, so the start itself is the deadline.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from .entries import Entry
from .errors import PayoutError
from .payouts import PrizePool, icm_chop, split_cents
from .setup import TournamentSetup


@dataclass(frozen=True, slots=True)
class Compensation:
    """What one player receives on cancellation, in cents, by reason."""

    refund: int = 0  # buy-ins and fees returned (CANCEL-1)
    fees: int = 0  # fees returned, rebuy and add-on fees included (CANCEL-2..4, 6)
    prize: int = 0  # share of the prize pool (CANCEL-2..4, 6)
    bounty: int = 0  # own bounty (CANCEL-7)
    rule: str = "CANCEL-1"

    @property
    def total(self) -> int:
        return self.refund + self.fees + self.prize + self.bounty


def _players(stacks: Mapping[str, int]) -> list[str]:
    if not stacks:
        raise PayoutError("no remaining players to compensate", "CANCEL-2")
    if any(v < 0 for v in stacks.values()):
        raise PayoutError("stacks cannot be negative", "CANCEL-2")
    return sorted(stacks)


def cancel_before_start(paid: Mapping[str, int]) -> dict[str, Compensation]:
    """CANCEL-1 (and TOURN-8/CANCEL-9, too few entrants): every buy-in and fee back, all
    entries included; ``paid`` is each player's total paid in cents."""
    return {p: Compensation(refund=v, rule="CANCEL-1") for p, v in sorted(paid.items())}


def _with(fees: Mapping[str, int], bounties: Mapping[str, int] | None, names: list[str],
          prizes: Sequence[int], rule: str) -> dict[str, Compensation]:
    b = bounties or {}
    return {n: Compensation(fees=fees.get(n, 0), prize=pr, bounty=b.get(n, 0), rule=rule)
            for n, pr in zip(names, prizes, strict=True)}


def cancel_before_money(stacks: Mapping[str, int], fees: Mapping[str, int], pool: int,
                        bounties: Mapping[str, int] | None = None) -> dict[str, Compensation]:
    """CANCEL-2: fees back; half the pool in equal shares, half in proportion to chips."""
    names = _players(stacks)
    equal_half = pool // 2
    equal = split_cents(equal_half, [1] * len(names))
    by_chips = split_cents(pool - equal_half, [stacks[n] for n in names])
    return _with(fees, bounties, names, [a + b for a, b in zip(equal, by_chips, strict=True)],
                 "CANCEL-2")


def cancel_in_money(stacks: Mapping[str, int], fees: Mapping[str, int],
                    unpaid: Sequence[int], bounties: Mapping[str, int] | None = None
                    ) -> dict[str, Compensation]:
    """CANCEL-3: each gets the lowest unpaid prize; the rest of the unpaid pool by chips.

    ``unpaid`` is the prizes of the places still open, best first (one per remaining
    player, or fewer when some remaining players are out of the money).
    """
    names = _players(stacks)
    if len(unpaid) > len(names):
        raise PayoutError("more unpaid places than remaining players", "CANCEL-3")
    lowest = unpaid[len(names) - 1] if len(unpaid) == len(names) else 0
    rest = sum(unpaid) - lowest * len(names)
    by_chips = split_cents(rest, [stacks[n] for n in names])
    return _with(fees, bounties, names, [lowest + c for c in by_chips], "CANCEL-3")


def cancel_final_table(stacks: Mapping[str, int], fees: Mapping[str, int],
                       unpaid: Sequence[int], bounties: Mapping[str, int] | None = None
                       ) -> dict[str, Compensation]:
    """CANCEL-4: fees back and the unpaid prizes redistributed by ICM (CANCEL-8)."""
    names = _players(stacks)
    return _with(fees, bounties, names, icm_chop([stacks[n] for n in names], unpaid),
                 "CANCEL-4")


def cancel_jackpot(stacks: Mapping[str, int], fee: int, pool: int,
                   payout: Sequence[int], *, unpaid: int | None = None
                   ) -> dict[str, Compensation]:
    """CANCEL-6 (HexaPro): the fee back and 10 % of the pool to each remaining player; the
    rest of what is still unpaid (``unpaid``, the whole pool by default) by ICM over the
    payout percentages of the open places, scaled to the rest."""
    names = _players(stacks)
    each = pool // 10
    rest = (pool if unpaid is None else unpaid) - each * len(names)
    if rest < 0:
        raise PayoutError("10 % each exceeds the pool", "CANCEL-6")
    open_places = list(payout[:len(names)])
    vector = split_cents(rest, open_places)
    vector.sort(reverse=True)
    shares = icm_chop([stacks[n] for n in names], vector)
    return {n: Compensation(fees=fee, prize=each + s, rule="CANCEL-6")
            for n, s in zip(names, shares, strict=True)}


def compensate(entries: Iterable[Entry], setup: TournamentSetup, pool: PrizePool,
               prizes: Sequence[int], *, started: bool, in_the_money: bool,
               tables_in_play: int) -> dict[str, Compensation]:
    """Each player's compensation if the event is cancelled now, by the stage it reached
    (CANCEL-1..4, 6, 7): ``entries`` all of them, ``prizes`` best first, ``tables_in_play``
    the tables with players seated."""
    entries = list(entries)
    if not started:
        paid: dict[str, int] = {}
        for e in entries:
            paid[e.player] = paid.get(e.player, 0) + e.paid_pool + e.paid_fees
        return cancel_before_start(paid)
    alive = [e for e in entries if e.in_event]
    stacks = {e.player: e.stack for e in alive}
    fees = {e.player: e.paid_fees for e in alive}
    bounties = {e.player: e.bounty for e in alive if e.bounty}
    unpaid = list(prizes[:len(alive)])
    if setup.sit_and_go and setup.fixed_prizes:  # a jackpot game
        return cancel_jackpot(stacks, setup.fee, pool.total, unpaid, unpaid=sum(unpaid))
    if not in_the_money:
        return cancel_before_money(stacks, fees, pool.collected + pool.added, bounties)
    if tables_in_play > 1:
        return cancel_in_money(stacks, fees, unpaid, bounties)
    return cancel_final_table(stacks, fees, unpaid, bounties)


@dataclass(frozen=True, slots=True)
class NonCashPrize:
    """A prize that is not money (a ticket, free spins, a seat in another event, TOURN-9),
    published with its value in cents so that a cancellation can pay it (CANCEL-5)."""

    what: str
    value: int

    def __post_init__(self) -> None:
        if self.value <= 0:
            raise PayoutError(f"{self.what!r} needs its money value in cents, not "
                              f"{self.value}: a cancellation pays it in money", "CANCEL-5")


def prizes_in_money(prizes: Sequence[int | NonCashPrize]) -> tuple[int, ...]:
    """CANCEL-5: every prize in cents, non-cash prizes at their published value, best
    first as given; pass the result as a set-up's ``fixed_prizes``."""
    out = tuple(p.value if isinstance(p, NonCashPrize) else p for p in prizes)
    if any(v < 0 for v in out):
        raise PayoutError("a prize cannot be negative", "CANCEL-5")
    return out
