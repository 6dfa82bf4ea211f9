"""The chip race at the table (CHIPRACE-1, -3, -5, -6) as a state machine the table drives.

:func:`settle_race` is the pure outcome: given a plan and the race cards, who wins a chip
and every seat's new stack. :class:`ChipRace` walks the dealer through the procedure::

    COUNT    the dealer counts each seat's leaving chips   count(seat, {25: 7})
    DEAL     one race card face up per odd chip             deal(seat, card, keyed=False)
    AWARD    the table ranks the cards; chips handed out    award()
    CONFIRM  the dealer checks the new stacks               confirm() -> the journal event
    DONE

Every step comes three ways, after the engine: ``verify_x`` raises
:class:`IllegalActionError` naming the rule and the reason, ``can_x`` answers yes or no,
``x`` performs it. A rejected step changes nothing. The machine's truth is its log
(:attr:`ChipRace.log`); :meth:`ChipRace.undo` replays it without the last step.

Decisions (RULES.md is silent; CHIPRACE-6 says the procedure must be configurable):

- Cards are ranked by rank, then suit in the plan's suit order (CHIPRACE-6.3). A seat's
  best card is its race card: chips go to the seats with the highest best cards, one chip
  per seat at most (CHIPRACE-1). With one deck no two cards tie.
- Dealing goes round by round, clockwise from the start seat, like hole cards (CARD-8): one
  card to every seat still due one, then again. Cards read in another order are accepted
  (readers report cards as they land) unless ``strict_order``; the order never changes
  the outcome.
- A misdeal of the race (a card exposed or dealt wrongly) takes every race card back and
  the race is dealt again (same checks as a hand: CARD-1 one deck, no card twice).
- CHIPRACE-3: a seat left with no chip in play after the race (it won nothing and its
  whole stack was odd chips) gets one chip of the lowest denomination still in play. That
  chip is extra: it is not one of the chips raced.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from controller.chiprace.chips import (
    DEFAULT_SUIT_ORDER,
    Chips,
    ChipSet,
    ColourUpPlan,
    Rounding,
    SeatExchange,
    Start,
    check_colour_up,
    plan_colour_up,
    seat_exchange,
)
from controller.rules.cards import DECK, SUITS, Card
from controller.rules.errors import IllegalActionError, RulesError

TITLE_WIDTH: Final = 21  # one line of the button-and-blinds display


class Phase(StrEnum):
    """Where the colour-up is."""

    COUNT = "count"
    DEAL = "deal"
    AWARD = "award"
    CONFIRM = "confirm"
    DONE = "done"


@dataclass(frozen=True, slots=True)
class CountChips:
    """The dealer's count of one seat's leaving chips."""

    seat: int
    chips: Chips


@dataclass(frozen=True, slots=True)
class RaceCard:
    """A race card dealt face up to a seat; ``keyed`` when the dealer keyed it in."""

    seat: int
    card: Card
    keyed: bool = False


@dataclass(frozen=True, slots=True)
class RaceMisdeal:
    """The race cards are taken back to be dealt again."""

    reason: str = ""


@dataclass(frozen=True, slots=True)
class AwardChips:
    """The dealer handed out the raced chips."""


@dataclass(frozen=True, slots=True)
class ConfirmStacks:
    """The dealer confirmed the new stacks."""


RaceAction = CountChips | RaceCard | RaceMisdeal | AwardChips | ConfirmStacks


@dataclass(frozen=True, slots=True)
class RaceEntry:
    """A seat's race cards and its best one (None before its first card)."""

    seat: int
    cards: tuple[Card, ...]
    best: Card | None


@dataclass(frozen=True, slots=True)
class ChipAward:
    """One raced chip: place 1 went to the highest card (CHIPRACE-6.3)."""

    place: int
    seat: int
    card: Card | None  # None when the race was decided without cards
    value: int


@dataclass(frozen=True, slots=True)
class SeatResult:
    """One seat after the colour-up and the race."""

    seat: int
    stack_before: int
    stack_after: int
    exchanged_value: int
    odd_value: int
    won: bool
    rescued: bool  # CHIPRACE-3: given a chip so as not to be raced out
    best: Card | None


@dataclass(frozen=True, slots=True)
class ColourUpResult:
    """The outcome to journal and send to the host as one event."""

    plan: ColourUpPlan
    cards: tuple[RaceCard, ...]
    awards: tuple[ChipAward, ...]
    seats: tuple[SeatResult, ...]

    @property
    def stacks(self) -> dict[int, int]:
        """Every seat's new stack, in chip value."""
        return {s.seat: s.stack_after for s in self.seats}

    @property
    def value_after(self) -> int:
        return sum(s.stack_after for s in self.seats)

    @property
    def raced_in(self) -> int:
        """The value of the chips won in the race."""
        return sum(a.value for a in self.awards)

    @property
    def rescued_value(self) -> int:
        """The value of the CHIPRACE-3 chips."""
        return sum(1 for s in self.seats if s.rescued) * self.plan.race_chip.value

    def as_event(self) -> dict[str, object]:
        """Plain JSON-ready data for the journal and the host (one event for the colour-up)."""
        plan = self.plan
        return {
            "leaving": sorted(plan.leaving),
            "unit": plan.race_chip.value,
            "start": plan.start,
            "rounding": plan.rounding,
            "suit_order": plan.suit_order,
            "odd_value": plan.odd_value,
            "chips_raced": plan.chips_raced,
            "cards": [{"seat": rc.seat, "card": str(rc.card), "keyed": rc.keyed}
                      for rc in self.cards],
            "awards": [{"place": a.place, "seat": a.seat,
                        "card": None if a.card is None else str(a.card)} for a in self.awards],
            "seats": [{"seat": s.seat, "before": s.stack_before, "after": s.stack_after,
                       "exchanged": s.exchanged_value, "odd": s.odd_value, "won": s.won,
                       "rescued": s.rescued} for s in self.seats],
        }


def card_strength(card: int, suit_order: str = DEFAULT_SUIT_ORDER) -> int:
    """0 (lowest) to 51: rank, then suit in ``suit_order`` (CHIPRACE-6.3)."""
    return (card >> 2) * 4 + suit_order.index(SUITS[card & 3])


def rank_race(plan: ColourUpPlan, cards: Iterable[RaceCard]) -> tuple[RaceEntry, ...]:
    """The racing seats, best card first; seats without a card follow in race order."""
    by_seat: dict[int, list[Card]] = {s.seat: [] for s in plan.racers}
    for rc in cards:
        if rc.seat not in by_seat:
            raise IllegalActionError(f"seat {rc.seat} is not in the race", "CHIPRACE-6")
        by_seat[rc.seat].append(DECK[rc.card])
    order = {seat: i for i, seat in enumerate(by_seat)}
    entries = [RaceEntry(seat, tuple(cs), max(cs, key=lambda c: card_strength(c, plan.suit_order))
                         if cs else None) for seat, cs in by_seat.items()]
    entries.sort(key=lambda e: (e.best is None,
                                -card_strength(e.best, plan.suit_order) if e.best is not None
                                else 0, order[e.seat]))
    return tuple(entries)


def _verify_card(plan: ColourUpPlan, dealt: Sequence[RaceCard], seat: int, card: object) -> None:
    if not isinstance(card, int) or isinstance(card, bool) or not 0 <= card < 52:
        raise IllegalActionError(f"{card!r} is not a card of the deck", "CARD-1")
    racer = next((s for s in plan.racers if s.seat == seat), None)
    if racer is None:
        raise IllegalActionError(f"seat {seat} has no odd chips and gets no race card; "
                                 f"racing: {_seats(s.seat for s in plan.racers) or 'nobody'}",
                                 "CHIPRACE-6")
    if not plan.needs_cards:
        raise IllegalActionError("this race is decided without cards", "CHIPRACE-6")
    have = sum(1 for rc in dealt if rc.seat == seat)
    if have >= racer.race_cards:
        raise IllegalActionError(f"seat {seat} already has its {racer.race_cards} race "
                                 f"card{_s(racer.race_cards)}, one per odd chip", "CHIPRACE-6")
    for rc in dealt:
        if rc.card == card:
            raise IllegalActionError(f"{DECK[card]} was already dealt to seat {rc.seat}; the "
                                     "race uses one deck", "CARD-1")


def settle_race(plan: ColourUpPlan, cards: Iterable[RaceCard]) -> ColourUpResult:
    """Who wins the raced chips, and every seat's new stack (CHIPRACE-1, -3, -6)."""
    dealt: list[RaceCard] = []
    for rc in cards:
        _verify_card(plan, dealt, rc.seat, rc.card)
        dealt.append(RaceCard(rc.seat, DECK[rc.card], rc.keyed))
    if len(dealt) != plan.cards_needed:
        raise IllegalActionError(f"the race needs {plan.cards_needed} cards, "
                                 f"{len(dealt)} were dealt", "CHIPRACE-6")
    chip = plan.race_chip.value
    ranking = rank_race(plan, dealt)
    awards = tuple(ChipAward(i + 1, e.seat, e.best, chip)
                   for i, e in enumerate(ranking[: plan.chips_raced]))  # CHIPRACE-1
    winners = {a.seat for a in awards}
    best = {e.seat: e.best for e in ranking}
    results = []
    for s in plan.seats:
        won = s.seat in winners
        after = s.kept_value + s.exchanged_value + (chip if won else 0)
        rescued = after == 0  # CHIPRACE-3
        results.append(SeatResult(s.seat, s.stack, after + (chip if rescued else 0),
                                  s.exchanged_value, s.odd_value, won, rescued,
                                  best.get(s.seat)))
    return ColourUpResult(plan, tuple(dealt), awards, tuple(results))


@dataclass(frozen=True, slots=True)
class Expect:
    """What the table waits for: the phase, the seat to work on, cards it still needs."""

    phase: Phase
    seat: int | None
    cards: int
    due: tuple[tuple[int, int], ...]  # COUNT: (seat, 0) still to count; DEAL: (seat, cards due)


@dataclass(frozen=True, slots=True)
class Prompt:
    """A dealer prompt: a display line, the full instruction, the seats to light."""

    step: Phase
    title: str  # ASCII, at most TITLE_WIDTH characters
    text: str
    seats: tuple[int, ...]


class ChipRace:
    """One colour-up at one table, from the count to the confirmed stacks."""

    def __init__(self, chip_set: ChipSet, leaving: Iterable[int], *, stacks: Mapping[int, int],
                 seats_in_order: Sequence[int] | None = None, dealer_seat: int | None = None,
                 start: Start = "seat_1", rounding: Rounding = "half_up",
                 suit_order: str = DEFAULT_SUIT_ORDER, deal_when_decided: bool = False,
                 strict_order: bool = False) -> None:
        self._chip_set = chip_set
        self._leaving = tuple(leaving)
        self._stacks = dict(stacks)
        self._options = (seats_in_order, dealer_seat, start, rounding, suit_order,
                         deal_when_decided)
        self._values, self._remaining, self._order = check_colour_up(
            chip_set, self._leaving, stacks=stacks, seats_in_order=seats_in_order,
            dealer_seat=dealer_seat, start=start, rounding=rounding, suit_order=suit_order)
        self._given: ColourUpPlan | None = None
        self.strict_order = strict_order
        self._reset()

    @classmethod
    def from_plan(cls, plan: ColourUpPlan, *, strict_order: bool = False) -> ChipRace:
        """A race for a plan made already (the counts are in it): starts at DEAL or AWARD."""
        race = cls(plan.chip_set, plan.leaving, stacks={s.seat: s.stack for s in plan.seats},
                   seats_in_order=[s.seat for s in plan.seats], rounding=plan.rounding,
                   suit_order=plan.suit_order, deal_when_decided=plan.deal_when_decided,
                   strict_order=strict_order)
        race._given = plan
        race._reset()
        return race

    def _plan(self, counts: Mapping[int, Mapping[int, int]]) -> ColourUpPlan:
        order, dealer, start, rounding, suits, decided = self._options
        return plan_colour_up(self._chip_set, self._leaving, counts, stacks=self._stacks,
                              seats_in_order=order, dealer_seat=dealer, start=start,
                              rounding=rounding, suit_order=suits, deal_when_decided=decided)

    def _reset(self) -> None:
        self.phase = Phase.COUNT
        self.plan: ColourUpPlan | None = None
        self.counted: dict[int, SeatExchange] = {}
        self.cards: list[RaceCard] = []
        self.result: ColourUpResult | None = None
        self._pending: ColourUpResult | None = None
        self.log: list[RaceAction] = []
        if self._given is not None:
            self.counted = {s.seat: s for s in self._given.seats}
            self._enter(self._given)

    def _enter(self, plan: ColourUpPlan) -> None:
        self.plan = plan
        self.phase = Phase.DEAL if plan.needs_cards else Phase.AWARD
        if self.phase is Phase.AWARD:
            self._pending = settle_race(plan, ())

    # ------------------------------------------------------------------ what next
    def _due(self) -> list[tuple[int, int]]:
        assert self.plan is not None
        return [(s.seat, s.race_cards - sum(1 for rc in self.cards if rc.seat == s.seat))
                for s in self.plan.racers]

    def _deal_sequence(self) -> list[int]:
        """The cards still to deal, seat by seat, round by round from the start (CARD-8)."""
        assert self.plan is not None
        racers = self.plan.racers
        dealt = {s.seat: s.race_cards - n for s, (_, n) in zip(racers, self._due(), strict=True)}
        rounds = max((s.race_cards for s in racers), default=0)
        return [s.seat for k in range(rounds) for s in racers
                if dealt[s.seat] <= k < s.race_cards]

    def expect(self) -> Expect:
        """What the table waits for now."""
        if self.phase is Phase.COUNT:
            todo = tuple((s, 0) for s in self._order if s not in self.counted)
            return Expect(self.phase, todo[0][0], 0, todo)
        if self.phase is Phase.DEAL:
            seq = self._deal_sequence()
            due = tuple((seat, n) for seat, n in self._due() if n)
            return Expect(self.phase, seq[0], dict(due)[seq[0]], due)
        return Expect(self.phase, None, 0, ())

    # ------------------------------------------------------------------ count
    def verify_count(self, seat: int, chips: Mapping[int, int]) -> SeatExchange:
        """Raise unless ``seat``'s count can be taken now; return its exchange."""
        if self.phase is not Phase.COUNT:
            raise IllegalActionError(f"the chips were counted already; the colour-up is at "
                                     f"{self.phase}", "CHIPRACE-1")
        if seat not in self._order:
            raise IllegalActionError(f"seat {seat} is not in play; seats: {_seats(self._order)}",
                                     "CHIPRACE-1")
        exchange = seat_exchange(seat, self._stacks[seat], chips, self._remaining,
                                 self._values)
        if set(self.counted) | {seat} == set(self._order):  # the last count makes the plan
            self._plan({**{s: dict(e.counted) for s, e in self.counted.items()}, seat: chips})
        return exchange

    def can_count(self, seat: int, chips: Mapping[int, int]) -> bool:
        return _can(lambda: self.verify_count(seat, chips))

    def count(self, seat: int, chips: Mapping[int, int]) -> SeatExchange:
        """Record a seat's count (a recount replaces it); the last count makes the plan."""
        exchange = self.verify_count(seat, chips)
        self.counted[seat] = exchange
        self.log.append(CountChips(seat, exchange.counted))
        if len(self.counted) == len(self._order):
            self._enter(self._plan({s: dict(e.counted) for s, e in self.counted.items()}))
        return exchange

    # ------------------------------------------------------------------ deal
    def verify_deal(self, seat: int, card: int) -> None:
        """Raise unless ``card`` may be dealt to ``seat`` now (CHIPRACE-6, CARD-1)."""
        if self.phase is not Phase.DEAL:
            raise IllegalActionError(f"no race card is due: the colour-up is at {self.phase}",
                                     "CHIPRACE-6")
        assert self.plan is not None
        _verify_card(self.plan, self.cards, seat, card)
        if self.strict_order and seat != self.expect().seat:
            raise IllegalActionError(f"deal to seat {self.expect().seat} first: the race is "
                                     "dealt clockwise from its start", "CHIPRACE-2")

    def can_deal(self, seat: int, card: int) -> bool:
        return _can(lambda: self.verify_deal(seat, card))

    def deal(self, seat: int, card: int, *, keyed: bool = False) -> RaceCard:
        """A race card read at ``seat`` (or keyed in by the dealer when a reader fails)."""
        self.verify_deal(seat, card)
        action = RaceCard(seat, DECK[card], keyed)
        self.cards.append(action)
        self.log.append(action)
        assert self.plan is not None
        if len(self.cards) == self.plan.cards_needed:
            self.phase = Phase.AWARD
            self._pending = settle_race(self.plan, self.cards)
        return action

    def verify_misdeal(self) -> None:
        """Raise unless the race can be dealt again (before the chips are handed out)."""
        if self.phase not in (Phase.DEAL, Phase.AWARD) or not self.cards:
            raise IllegalActionError(f"no race card to take back: the colour-up is at "
                                     f"{self.phase}", "CHIPRACE-6")

    def can_misdeal(self) -> bool:
        return _can(self.verify_misdeal)

    def misdeal(self, reason: str = "") -> RaceMisdeal:
        """Take every race card back; the race is dealt again."""
        self.verify_misdeal()
        self.cards.clear()
        self.phase, self._pending = Phase.DEAL, None
        action = RaceMisdeal(reason)
        self.log.append(action)
        return action

    def ranking(self) -> tuple[RaceEntry, ...]:
        """The racing seats by best card so far (CHIPRACE-6.3)."""
        if self.plan is None:
            raise IllegalActionError("count the chips first: nobody is racing yet", "CHIPRACE-6")
        return rank_race(self.plan, self.cards)

    # ------------------------------------------------------------------ award, confirm
    @property
    def leaving(self) -> tuple[int, ...]:
        """The denominations leaving play, largest first."""
        return self._values

    @property
    def pending(self) -> ColourUpResult | None:
        """At AWARD: what the award will hand out (the outcome of the cards dealt)."""
        return self._pending if self.phase is Phase.AWARD else None

    def verify_award(self) -> ColourUpResult:
        if self.phase is not Phase.AWARD or self._pending is None:
            raise IllegalActionError(f"the chips cannot be awarded: the colour-up is at "
                                     f"{self.phase}", "CHIPRACE-6")
        return self._pending

    def can_award(self) -> bool:
        return _can(self.verify_award)

    def award(self) -> ColourUpResult:
        """The dealer handed out the raced chips (CHIPRACE-1, -3)."""
        self.result = self.verify_award()
        self.phase = Phase.CONFIRM
        self.log.append(AwardChips())
        return self.result

    def verify_confirm(self) -> ColourUpResult:
        if self.phase is not Phase.CONFIRM or self.result is None:
            raise IllegalActionError(f"nothing to confirm: the colour-up is at {self.phase}",
                                     "CHIPRACE-6")
        return self.result

    def can_confirm(self) -> bool:
        return _can(self.verify_confirm)

    def confirm(self) -> ColourUpResult:
        """The new stacks are confirmed: journal them and send them as one event."""
        result = self.verify_confirm()
        self.phase = Phase.DONE
        self.log.append(ConfirmStacks())
        return result

    def undo(self) -> RaceAction:
        """Take back the last step by replaying the log without it."""
        if not self.log:
            raise IllegalActionError("nothing to undo", "CHIPRACE-6")
        log = list(self.log)
        self._reset()
        for action in log[:-1]:
            self.apply(action)
        return log[-1]

    def apply(self, action: RaceAction) -> None:
        """Perform a logged step again (replay)."""
        if isinstance(action, CountChips):
            self.count(action.seat, dict(action.chips))
        elif isinstance(action, RaceCard):
            self.deal(action.seat, action.card, keyed=action.keyed)
        elif isinstance(action, RaceMisdeal):
            self.misdeal(action.reason)
        elif isinstance(action, AwardChips):
            self.award()
        else:
            self.confirm()

    # ------------------------------------------------------------------ prompts
    def next_prompt(self) -> Prompt:
        """What the display and the seat lights tell the dealer now."""
        return self.prompts()[0]

    def prompts(self) -> tuple[Prompt, ...]:
        """The steps left, first the one to do now (later ones as far as they are known)."""
        out: list[Prompt] = []
        leaving = " + ".join(self._chip_set.label(v) for v in sorted(self._leaving))
        colours = ", ".join(self._chip_set.denomination(v).describe()
                            for v in sorted(self._leaving))
        if self.phase is Phase.COUNT:
            new = self._remaining.lowest
            small = [v for v in sorted(self._values) if v < new.value]
            swap = (f"colour up every {new.value // small[0]} × "
                    f"{self._chip_set.label(small[0])} for one {new.describe()}"
                    if len(small) == 1 == len(self._values)
                    else f"colour them up at full value, from {new.describe()} up")
            for seat in (s for s in self._order if s not in self.counted):
                out.append(_prompt(Phase.COUNT, f"S{seat} COUNT {leaving}",
                                   f"Seat {seat}: count the {colours} chips, key in how many, "
                                   f"and {swap}; keep the odd chips out for the race.",
                                   (seat,)))
            out.append(_prompt(Phase.DEAL, "DEAL RACE CARDS",
                               "Deal one race card face up per odd chip.", ()))
        elif self.phase is Phase.DEAL:
            assert self.plan is not None
            due = dict(self._due())
            for seat in self._deal_sequence():
                ex = self.plan.exchange(seat)
                k = ex.race_cards - due[seat] + 1
                out.append(_prompt(Phase.DEAL, f"S{seat} RACE CARD {k}/{ex.race_cards}",
                                   f"Seat {seat}: deal race card {k} of {ex.race_cards} "
                                   f"face up ({_chips(self.plan, ex.odd_chips)} odd: one card "
                                   "per odd chip).", (seat,)))
                due[seat] -= 1
        if self.phase in (Phase.COUNT, Phase.DEAL):
            out.append(_prompt(Phase.AWARD, "AWARD CHIPS",
                               "Give the raced chips to the highest cards.", ()))
        elif self.phase is Phase.AWARD:
            assert self._pending is not None
            out.append(self._award_prompt(self._pending, leaving))
        if self.phase is not Phase.DONE:
            result = self.result or self._pending
            text = ("New stacks: " + "; ".join(f"seat {s} {v:,}" for s, v in
                                              result.stacks.items()) + ". Confirm."
                    if result else "Check the new stacks and confirm.")
            out.append(_prompt(Phase.CONFIRM, "CONFIRM NEW STACKS", text,
                               tuple(result.stacks) if result else ()))
        out.append(_prompt(Phase.DONE, "COLOUR-UP DONE", "The colour-up is done.", ()))
        return tuple(out)

    def _award_prompt(self, result: ColourUpResult, leaving: str) -> Prompt:
        chip = result.plan.race_chip
        lines = [f"Take every {leaving} off the table."]
        for a in result.awards:
            card = f" ({a.card.symbol()})" if a.card is not None else ""
            lines.append(f"Give one {chip.describe()} to seat {a.seat}{card}.")
        for s in result.seats:
            if s.rescued:
                lines.append(f"Seat {s.seat} gets one {chip.label}: nobody is raced out "
                             "(CHIPRACE-3).")
        if not result.awards:
            lines.append("No chip is raced: the odd chips are worth too little (CHIPRACE-6).")
        seats = tuple(a.seat for a in result.awards) + tuple(s.seat for s in result.seats
                                                             if s.rescued)
        return _prompt(Phase.AWARD, f"AWARD {len(result.awards)} x {chip.label}",
                       " ".join(lines), seats)


def _prompt(step: Phase, title: str, text: str, seats: tuple[int, ...]) -> Prompt:
    title = title.encode("ascii", "replace").decode()[:TITLE_WIDTH]
    return Prompt(step, title, text, seats)


def _chips(plan: ColourUpPlan, chips: Chips) -> str:
    return " + ".join(f"{n} × {plan.chip_set.label(d)}" for d, n in chips) or "nothing"


def _seats(seats: Iterable[int]) -> str:
    return ", ".join(str(s) for s in seats)


def _s(n: int) -> str:
    return "" if n == 1 else "s"


def _can(check: Callable[[], object]) -> bool:
    try:
        check()
    except RulesError:
        return False
    return True
