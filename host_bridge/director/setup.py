"""A tournament's published set-up as validated frozen data (LEVEL-2, TOURN-8..15, -17,
RAKE-9/10, SNG-1..7).

One :class:`TournamentSetup` describes every format the floor runs: a freezeout is a set-up
without rebuys, add-on or re-entry; a Sit & Go (SNG-1) is a one-table freezeout that starts
when every seat is filled; a HexaPro game is a 3-handed Sit & Go whose pool, stacks, level
times and payouts come from the drawn multiplier (:func:`jackpot_setup`).

Decisions where RULES.md is silent or [interp] (read literally):

* TOURN-10 (live): rebuys during the first ``rebuy_levels`` levels (default 2), late
  registration while the level is at most ``late_registration_levels`` (TOURN-5's "closes
  when the last of those levels ends"; 002's "until level 3 starts" is 2 levels).
  Late registration also closes once the field is in the money (TOURN-5) [applied live too:
  the payout table is final when registration closes, TOURN-1].
* TOURN-12: the add-on is offered in a break whose structure marks ``add_on``; when the
  structure marks none, in the break after level 2, as 002 §37 says.
* RAKE-9: the entry fee is charged on every entry and late entry (TOURN-13) and on
  re-entries; ``rebuy_fee`` and ``add_on_fee`` are set per event (the fee "may apply").
  TOURN-14 re-registration pays the buy-in without the fee again.
* TOURN-17: ``bounty`` cents of each buy-in become the player's bounty (the rest goes to the
  pool). Progressive: ``progressive = (paid, added)`` in basis points of the eliminated
  player's bounty; both unstated by the seeds, so an event sets them.
* TOURN-33: a knockout shared by several winners of the pot splits the bounty equally
  (``shared_knockout = "split"``) or gives it all to the winner of the largest share of
  the pot (``"largest"``); the seeds leave it to configuration.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from controller.clocks.structure import Structure

from .errors import DirectorError
from .payouts import WINNER_TAKES_ALL, PayoutStructure
from .sng import Multiplier, draw_multiplier, jackpot_pool, jackpot_prizes, jackpot_structure


@dataclass(frozen=True, slots=True)
class TournamentSetup:
    """Everything published before a tournament starts; money in cents, chips in chips."""

    name: str
    structure: Structure
    buy_in: int  # cents to the prize pool and the bounty, per entry
    fee: int = 0  # cents to the house, per entry (RAKE-9)
    starting_stack: int = 0  # 0: the structure's starting stack
    seats_per_table: int = 9
    min_entrants: int = 2  # TOURN-8
    max_entrants: int = 0  # 0: unlimited; a Sit & Go: its seats (SNG-1)
    late_registration_levels: int = 0  # TOURN-5/10
    rebuy_levels: int = 0  # TOURN-10; 0: no rebuys (a freezeout)
    rebuy_price: int = 0
    rebuy_fee: int = 0
    rebuy_chips: int = 0  # 0: the starting stack (TOURN-10/1)
    add_on: bool = False  # TOURN-12
    add_on_price: int = 0
    add_on_fee: int = 0
    add_on_chips: int = 0  # 0: the starting stack
    re_entry: bool = False  # TOURN-4/6
    max_entries: int = 1  # entries per player including the first
    re_register: bool = False  # TOURN-14
    surrender: bool = False  # TOURN-15
    guarantee: int = 0  # TOURN-9
    added: int = 0  # money the house adds (freerolls)
    bounty: int = 0  # TOURN-17, cents of each buy-in
    progressive: tuple[int, int] | None = None  # TOURN-17 (paid, added) basis points
    shared_knockout: str = "split"  # TOURN-33
    payouts: PayoutStructure = field(default=WINNER_TAKES_ALL)
    sit_and_go: bool = False  # SNG-1
    prize_pool: int | None = None  # a fixed pool (jackpots: SNG-3/6)
    fixed_prizes: tuple[int, ...] = ()  # cents by place for a fixed pool

    def __post_init__(self) -> None:
        def bad(reason: str, rule: str) -> DirectorError:
            return DirectorError(f"{self.name}: {reason}", rule)

        money = (self.buy_in, self.fee, self.rebuy_price, self.rebuy_fee, self.add_on_price,
                 self.add_on_fee, self.guarantee, self.added, self.bounty)
        if any(m < 0 for m in money):
            raise bad("prices cannot be negative", "TOURN-8")
        if self.stack <= 0:
            raise bad("no starting stack (give one or use a structure that has one)",
                      "LEVEL-2")
        if not 2 <= self.seats_per_table <= 10:
            raise bad("tables seat 2 to 10 players", "TOURN-2")
        if self.min_entrants < 2:
            raise bad("a tournament needs at least two entrants", "TOURN-8")
        if self.max_entrants and self.max_entrants < self.min_entrants:
            raise bad("the maximum field is below the minimum", "TOURN-8")
        if self.bounty > self.buy_in:
            raise bad("the bounty is part of the buy-in, so it cannot exceed it", "TOURN-17")
        if self.progressive is not None:
            paid, grow = self.progressive
            if not self.bounty or paid < 0 or grow < 0 or paid + grow > 10_000:
                raise bad("a progressive bounty pays and adds shares of the bounty that "
                          "total at most 100 %", "TOURN-17")
        if self.shared_knockout not in ("split", "largest"):
            raise bad("shared_knockout is split or largest", "TOURN-33")
        if self.rebuy_levels < 0 or self.late_registration_levels < 0:
            raise bad("rebuy and late registration periods are counted in levels",
                      "LEVEL-7")
        if self.max_entries < 1 or (self.max_entries > 1 and not self.re_entry):
            raise bad("more than one entry per player needs re-entry", "TOURN-6")
        if self.surrender and not self.rebuy_levels:
            raise bad("surrender exists to make rebuys, so it needs a rebuy period",
                      "TOURN-15")
        if self.sit_and_go and self.max_entrants != self.seats_per_table:
            raise bad("a Sit & Go starts when every seat is filled: its field is one table",
                      "SNG-1")
        if self.fixed_prizes and self.prize_pool != sum(self.fixed_prizes):
            raise bad("fixed prizes must add up to the fixed pool", "SNG-3")

    @property
    def stack(self) -> int:
        return self.starting_stack or (self.structure.starting_stack or 0)

    @property
    def freezeout(self) -> bool:
        """TOURN-9: no way to buy more chips."""
        return not (self.rebuy_levels or self.add_on or self.re_entry or self.re_register)

    @property
    def add_on_break(self) -> int:
        """The level after which the add-on break is held (TOURN-12)."""
        for br in self.structure.breaks:
            if br.add_on:
                return br.after_level
        return 2


def jackpot_setup(fmt: str, buy_in: int, fee: int, rng: random.Random
                  ) -> tuple[TournamentSetup, Multiplier]:
    """A HexaPro / HexaPro Extreme game (SNG-3/6): multiplier drawn from ``rng``; stacks,
    level times and payouts by multiplier; 3 seats; the pool is fixed, not the buy-ins."""
    row = draw_multiplier(fmt, rng)
    return jackpot_setup_for(fmt, buy_in, fee, row), row


def jackpot_setup_for(fmt: str, buy_in: int, fee: int, row: Multiplier) -> TournamentSetup:
    prizes = jackpot_prizes(fmt, buy_in, row)
    return TournamentSetup(
        name=f"{fmt} {row.times}x", structure=jackpot_structure(fmt, row), buy_in=buy_in,
        fee=fee, starting_stack=row.starting_stack, seats_per_table=3, min_entrants=3,
        max_entrants=3, sit_and_go=True, prize_pool=jackpot_pool(buy_in, row),
        fixed_prizes=prizes)
