"""Chip sets and the colour-up plan (RULES.md §18: CHIPRACE-1, -2, -4, -6).

Amounts are chip values (``T`` amounts, as the engine keeps stacks): a T25 chip is 25.
The *unit* (RULES.md §0) is the lowest chip in play; after a colour-up it is the lowest
denomination still in play, and every amount the plan produces is a whole number of it.

Decisions where the rulebook is silent or marked [conv]/[interp] (CHIPRACE-6, Appendix B.13):

- Full-value groups (CHIPRACE-6.1): a seat's leaving chips are handed in largest first
  for the largest multiple of the new unit they reach; they are changed for chips still in
  play largest first. What is left over are that seat's *odd chips*; they go to the race.
- Several denominations may leave at once if each is a multiple of the new unit or divides
  it, and those that divide it divide one another; otherwise no set of whole chips is sure
  to make the exchange, and the plan refuses (colour up one denomination at a time).
- Chips raced (CHIPRACE-6.4, "as many new chips as the total leftover value rounds to"):
  the table's total odd value divided by the new unit, rounded half up by default
  (``rounding="half_up"``; ``"down"`` and ``"up"`` are the house alternatives). It never
  exceeds the number of seats racing, since each seat's odd value is below one unit.
- Where the race starts (CHIPRACE-2): ``start="seat_1"`` (the default, the rulebook's
  reading: the first player left of the croupier, i.e. seat 1 or the first occupied seat
  after it). ``start="left_of_dealer"`` is a house option: the first player left of the
  *button* seat ``dealer_seat``. With a full deck there are no ties, so the start fixes
  only the dealing order, never the outcome.
- Suit order (CHIPRACE-6.3, RANK-5 says it must be configured): four suit letters lowest
  first, default ``"cdhs"`` (clubs, diamonds, hearts, spades: the usual bridge order) [conv].
- A decided race (no chip to race, or one for every seat racing) deals no cards unless
  ``deal_when_decided``: the cards could not change who wins.
- One deck (CARD-1): a race that needs more than 52 cards is refused; colour up one
  denomination at a time instead.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Final, Literal

from controller.rules.cards import SUITS
from controller.rules.errors import ConfigError, IllegalActionError

Start = Literal["seat_1", "left_of_dealer"]
Rounding = Literal["half_up", "down", "up"]
STARTS: Final = ("seat_1", "left_of_dealer")
ROUNDINGS: Final = ("half_up", "down", "up")
DEFAULT_SUIT_ORDER: Final = "cdhs"  # lowest first [conv]; RANK-5: the seeds define none
DECK_SIZE: Final = 52  # CARD-1

Chips = tuple[tuple[int, int], ...]  # (denomination value, how many), largest first


@dataclass(frozen=True, slots=True)
class Denomination:
    """One chip denomination: its value, its colour, and an optional name (``T25``)."""

    value: int
    colour: str
    name: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.value, int) or isinstance(self.value, bool) or self.value <= 0:
            raise ConfigError(f"a chip is worth a positive whole amount, not {self.value!r}")
        if not self.colour.strip():
            raise ConfigError(f"the T{self.value} chip needs a colour")

    @property
    def label(self) -> str:
        """The name the dealer sees, e.g. ``T25``."""
        return self.name or f"T{self.value}"

    def describe(self) -> str:
        """``T25 (green)``."""
        return f"{self.label} ({self.colour})"


@dataclass(frozen=True, slots=True)
class ChipSet:
    """The denominations in play, lowest first; the lowest is the unit (RULES.md §0)."""

    denominations: tuple[Denomination, ...]

    def __post_init__(self) -> None:
        ordered = tuple(sorted(self.denominations, key=lambda d: d.value))
        object.__setattr__(self, "denominations", ordered)
        if not ordered:
            raise ConfigError("a chip set needs at least one denomination")
        values = [d.value for d in ordered]
        if len(set(values)) != len(values):
            raise ConfigError(f"a denomination appears twice in {values}")
        colours = [d.colour.strip().casefold() for d in ordered]
        if len(set(colours)) != len(colours):
            raise ConfigError(f"two denominations share a colour in {colours}")
        unit = ordered[0]
        for d in ordered[1:]:
            if d.value % unit.value:
                raise ConfigError(f"{d.label} is not a whole number of {unit.label}, the lowest "
                                  "chip in play (the unit, RULES.md §0)")

    @classmethod
    def of(cls, colours: Mapping[int, str]) -> ChipSet:
        """``ChipSet.of({25: "green", 100: "black", 500: "purple"})``."""
        return cls(tuple(Denomination(v, c) for v, c in colours.items()))

    @property
    def lowest(self) -> Denomination:
        """The lowest chip in play."""
        return self.denominations[0]

    @property
    def unit(self) -> int:
        """The value of the lowest chip in play (RULES.md §0)."""
        return self.denominations[0].value

    @property
    def values(self) -> tuple[int, ...]:
        """The denominations' values, lowest first."""
        return tuple(d.value for d in self.denominations)

    def __contains__(self, value: object) -> bool:
        return value in self.values

    def denomination(self, value: int) -> Denomination:
        """The denomination worth ``value``; raises if the set has none."""
        for d in self.denominations:
            if d.value == value:
                return d
        raise ConfigError(f"no T{value} chip in this set ({self.describe()})", "CHIPRACE-1")

    def label(self, value: int) -> str:
        """A value's chip name if the set has it, else ``T{value}``."""
        return self.denomination(value).label if value in self else f"T{value}"

    def without(self, values: Iterable[int]) -> ChipSet:
        """The set once these denominations leave play (CHIPRACE-1)."""
        gone = set(values)
        for value in gone:
            self.denomination(value)
        kept = tuple(d for d in self.denominations if d.value not in gone)
        if not kept:
            raise ConfigError("a colour-up cannot remove every denomination", "CHIPRACE-1")
        return ChipSet(kept)

    def describe(self) -> str:
        """``T25 (green), T100 (black)``."""
        return ", ".join(d.describe() for d in self.denominations)


def make_change(value: int, denominations: Sequence[int]) -> Chips:
    """``value`` in chips of ``denominations``, largest first; raises if it cannot be made."""
    out: list[tuple[int, int]] = []
    rest = value
    for d in sorted(denominations, reverse=True):
        if rest >= d:
            out.append((d, rest // d))
            rest %= d
    if rest:
        raise ConfigError(f"{value} cannot be paid in chips of {sorted(denominations)}")
    return tuple(out)


@dataclass(frozen=True, slots=True)
class SeatExchange:
    """One seat's colour-up: what it counted, handed in, got back, and races (CHIPRACE-6.1)."""

    seat: int
    stack: int  # the whole stack before the colour-up, in chip value
    counted: Chips  # the leaving chips the dealer counted at this seat
    handed_in: Chips  # leaving chips coloured up at full value
    new_chips: Chips  # chips still in play given for them
    odd_chips: Chips  # leaving chips that go to the race

    @property
    def counted_value(self) -> int:
        return sum(d * n for d, n in self.counted)

    @property
    def exchanged_value(self) -> int:
        return sum(d * n for d, n in self.handed_in)

    @property
    def odd_value(self) -> int:
        return sum(d * n for d, n in self.odd_chips)

    @property
    def kept_value(self) -> int:
        """The chips already in play that the seat keeps untouched."""
        return self.stack - self.counted_value

    @property
    def race_cards(self) -> int:
        """One race card per odd chip (CHIPRACE-6.2)."""
        return sum(n for _, n in self.odd_chips)

    @property
    def all_odd(self) -> bool:
        """The whole stack is odd chips: losing the race would leave nothing (CHIPRACE-3)."""
        return self.kept_value + self.exchanged_value == 0


def seat_exchange(seat: int, stack: int, chips: Mapping[int, int], remaining: ChipSet,
                  leaving: Sequence[int]) -> SeatExchange:
    """One seat's exchange (CHIPRACE-6.1); raises :class:`IllegalActionError` on a bad count."""
    if not isinstance(stack, int) or isinstance(stack, bool) or stack <= 0:
        raise IllegalActionError(f"seat {seat} has no chips ({stack!r}); only seats in play "
                                 "take part in a colour-up", "CHIPRACE-3")
    unit = remaining.unit
    counted: list[tuple[int, int]] = []
    for d, n in chips.items():
        if d not in leaving:
            raise IllegalActionError(f"seat {seat}: T{d} is not a denomination leaving play "
                                     f"(leaving: {', '.join(f'T{v}' for v in leaving)})",
                                     "CHIPRACE-1")
        if not isinstance(n, int) or isinstance(n, bool) or n < 0:
            raise IllegalActionError(f"seat {seat}: a chip count is a whole number ≥ 0, "
                                     f"not {n!r}", "CHIPRACE-1")
        if n:
            counted.append((d, n))
    counted.sort(reverse=True)
    value = sum(d * n for d, n in counted)
    if value > stack:
        raise IllegalActionError(f"seat {seat}: the count is worth {value} but the stack is "
                                 f"{stack}; recount", "CHIPRACE-1")
    if (stack - value) % unit:
        raise IllegalActionError(f"seat {seat}: a stack of {stack} less {value} counted leaves "
                                 f"{stack - value}, not whole {remaining.lowest.label} chips; "
                                 "recount", "CHIPRACE-1")
    target = value - value % unit  # the full-value part (CHIPRACE-6.1)
    handed: list[tuple[int, int]] = []
    odd: list[tuple[int, int]] = []
    rest = target
    for d, n in counted:  # largest first: exact: see _check_leaving
        take = min(n, rest // d)
        rest -= take * d
        if take:
            handed.append((d, take))
        if n - take:
            odd.append((d, n - take))
    assert rest == 0, "validated by _check_leaving"
    return SeatExchange(seat, stack, tuple(counted), tuple(handed),
                        make_change(target, remaining.values), tuple(odd))


@dataclass(frozen=True, slots=True)
class ColourUpPlan:
    """The exchange at every seat and the race it leaves (CHIPRACE-1, -2, -6)."""

    chip_set: ChipSet  # before
    remaining: ChipSet  # after: ``remaining.lowest`` is the chip raced and the rescue chip
    leaving: tuple[int, ...]  # largest first
    seats: tuple[SeatExchange, ...]  # every seat in play, in race (dealing) order
    chips_raced: int
    start: Start
    rounding: Rounding
    suit_order: str
    deal_when_decided: bool

    @property
    def race_chip(self) -> Denomination:
        return self.remaining.lowest

    @property
    def racers(self) -> tuple[SeatExchange, ...]:
        """Seats with odd chips, in dealing order (CHIPRACE-2)."""
        return tuple(s for s in self.seats if s.odd_chips)

    @property
    def odd_value(self) -> int:
        return sum(s.odd_value for s in self.seats)

    @property
    def decided(self) -> bool:
        """The cards cannot change the outcome: no chip, or one for every seat racing."""
        return self.chips_raced in (0, len(self.racers))

    @property
    def needs_cards(self) -> bool:
        return bool(self.racers) and (self.deal_when_decided or not self.decided)

    @property
    def cards_needed(self) -> int:
        return sum(s.race_cards for s in self.racers) if self.needs_cards else 0

    @property
    def value_before(self) -> int:
        return sum(s.stack for s in self.seats)

    def exchange(self, seat: int) -> SeatExchange:
        for s in self.seats:
            if s.seat == seat:
                return s
        raise IllegalActionError(f"seat {seat} is not in this colour-up", "CHIPRACE-1")


def check_settings(start: str, rounding: str, suit_order: str) -> None:
    """Raise :class:`ConfigError` unless these race settings are valid (CHIPRACE-6)."""
    if start not in STARTS:
        raise ConfigError(f"the race starts at one of {STARTS}, not {start!r}", "CHIPRACE-2")
    if rounding not in ROUNDINGS:
        raise ConfigError(f"chips raced round by one of {ROUNDINGS}, not {rounding!r}",
                          "CHIPRACE-6")
    if sorted(suit_order) != sorted(SUITS):
        raise ConfigError(f"a suit order names c, d, h and s once each, lowest first, not "
                          f"{suit_order!r}", "CHIPRACE-6")


def _check_leaving(chip_set: ChipSet, leaving: Iterable[int]) -> tuple[tuple[int, ...], ChipSet]:
    values = tuple(sorted(set(leaving), reverse=True))
    if not values:
        raise ConfigError("name at least one denomination leaving play", "CHIPRACE-1")
    remaining = chip_set.without(values)
    unit = remaining.unit
    for value in values:  # each is a whole number of new units, or a part of one
        if unit % value and value % unit:
            raise ConfigError(f"T{value} chips cannot be exchanged for "
                              f"{remaining.lowest.label} at full value (neither divides the "
                              "other)", "CHIPRACE-6")
    for big, small in pairwise(v for v in values if v < unit):  # the parts divide each other
        if big % small:
            raise ConfigError(f"T{big} and T{small} cannot leave together: T{big} is not a "
                              f"whole number of T{small}; colour up one at a time", "CHIPRACE-6")
    return values, remaining


def race_order(seats: Iterable[int], *, seats_in_order: Sequence[int] | None = None,
               dealer_seat: int | None = None, start: Start = "seat_1") -> tuple[int, ...]:
    """The seats in play clockwise from where the race starts (CHIPRACE-2).

    ``seats_in_order`` lists the table's seats clockwise from seat 1, the first seat left of
    the croupier (default: the seats in play, sorted). It may include empty seats, so a
    button on an empty seat (dead button) can be placed.
    """
    in_play = set(seats)
    ring = tuple(seats_in_order) if seats_in_order is not None else tuple(sorted(in_play))
    if len(set(ring)) != len(ring):
        raise ConfigError(f"a seat appears twice in the seat order {ring}", "CHIPRACE-2")
    if in_play - set(ring):
        raise ConfigError(f"seats {sorted(in_play - set(ring))} are not in the seat order "
                          f"{ring}", "CHIPRACE-2")
    if start == "left_of_dealer":
        if dealer_seat not in ring:
            raise ConfigError(f"start left_of_dealer needs the button seat, one of {ring}, not "
                              f"{dealer_seat!r}", "CHIPRACE-2")
        i = ring.index(dealer_seat) + 1
        ring = ring[i:] + ring[:i]
    return tuple(s for s in ring if s in in_play)


def round_chips(odd_value: int, unit: int, rounding: Rounding) -> int:
    """How many ``unit`` chips an odd value races for (CHIPRACE-6.4)."""
    if rounding == "down":
        return odd_value // unit
    if rounding == "up":
        return -(-odd_value // unit)
    return (2 * odd_value + unit) // (2 * unit)  # half up


def check_colour_up(chip_set: ChipSet, leaving: Iterable[int], *, stacks: Mapping[int, int],
                    seats_in_order: Sequence[int] | None = None,
                    dealer_seat: int | None = None, start: Start = "seat_1",
                    rounding: Rounding = "half_up", suit_order: str = DEFAULT_SUIT_ORDER,
                    ) -> tuple[tuple[int, ...], ChipSet, tuple[int, ...]]:
    """Check a colour-up before the count: the leaving values (largest first), the chip set
    after it, and the seats in race order. Raises :class:`ConfigError` on bad settings."""
    check_settings(start, rounding, suit_order)
    values, remaining = _check_leaving(chip_set, leaving)
    for seat, stack in stacks.items():
        if not isinstance(stack, int) or isinstance(stack, bool) or stack <= 0:
            raise ConfigError(f"seat {seat} has no chips ({stack!r}); only seats in play "
                              "take part in a colour-up", "CHIPRACE-3")
    order = race_order(stacks, seats_in_order=seats_in_order, dealer_seat=dealer_seat,
                       start=start)
    return values, remaining, order


def plan_colour_up(chip_set: ChipSet, leaving: Iterable[int],
                   counts: Mapping[int, Mapping[int, int]], *, stacks: Mapping[int, int],
                   seats_in_order: Sequence[int] | None = None, dealer_seat: int | None = None,
                   start: Start = "seat_1", rounding: Rounding = "half_up",
                   suit_order: str = DEFAULT_SUIT_ORDER,
                   deal_when_decided: bool = False) -> ColourUpPlan:
    """Plan a colour-up: each seat's exchange, its odd chips, and the chips raced.

    ``counts[seat][value]`` is how many chips of a leaving denomination the seat holds (a seat
    left out holds none); ``stacks[seat]`` is each seat in play's whole stack, which lets the
    plan check the count and see who could be raced out (CHIPRACE-3).
    """
    values, remaining, order = check_colour_up(
        chip_set, leaving, stacks=stacks, seats_in_order=seats_in_order,
        dealer_seat=dealer_seat, start=start, rounding=rounding, suit_order=suit_order)
    if set(counts) - set(stacks):
        raise IllegalActionError(f"seats {sorted(set(counts) - set(stacks))} were counted but "
                                 "are not in play", "CHIPRACE-1")
    seats = tuple(seat_exchange(s, stacks[s], counts.get(s, {}), remaining, values)
                  for s in order)
    racing = sum(1 for s in seats if s.odd_chips)
    raced = round_chips(sum(s.odd_value for s in seats), remaining.unit, rounding)
    assert raced <= racing, "each seat's odd value is below one unit"
    plan = ColourUpPlan(chip_set, remaining, values, seats, raced, start, rounding, suit_order,
                        deal_when_decided)
    if plan.cards_needed > DECK_SIZE:
        raise IllegalActionError(f"this race needs {plan.cards_needed} cards and a deck has "
                                 f"{DECK_SIZE}; colour up one denomination at a time",
                                 "CHIPRACE-6")
    return plan


@dataclass(frozen=True, slots=True)
class StraySettlement:
    """Chips of a denomination no longer in play, found after the race (CHIPRACE-4)."""

    value: int
    new_chips: Chips  # what they are exchanged for
    lost: int  # the part worth less than a chip in play

    @property
    def exchanged_value(self) -> int:
        return self.value - self.lost


def settle_stray_chips(remaining: ChipSet, chips: Mapping[int, int]) -> StraySettlement:
    """CHIPRACE-4: stray chips are lost unless together they are worth a chip in play.

    [interp] "exchanged for it": when they are worth one chip in play or more, they are
    exchanged at full value, as far as whole chips of the lowest denomination go
    (CHIPRACE-6.1); only the part worth less than one chip is lost.
    """
    for d, n in chips.items():
        if d in remaining:
            raise IllegalActionError(f"T{d} is still in play; only chips that left play are "
                                     "settled", "CHIPRACE-4")
        if d <= 0 or not isinstance(n, int) or isinstance(n, bool) or n < 0:
            raise IllegalActionError(f"{n!r} × T{d} is not a chip count", "CHIPRACE-4")
    value = sum(d * n for d, n in chips.items())
    lost = value % remaining.unit
    return StraySettlement(value, make_change(value - lost, remaining.values), lost)
