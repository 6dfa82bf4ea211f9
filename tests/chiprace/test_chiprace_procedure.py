"""Colour-up and chip race (RULES.md section 18), the procedure at the table: count, deal,
award, confirm, refusals, undo and prompts; and properties over random colour-ups and a
state machine of a race (the rules by id: test_chiprace.py)."""

from __future__ import annotations

import json
from collections.abc import Mapping

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from controller.chiprace import (
    ChipRace,
    ChipSet,
    ColourUpPlan,
    ColourUpResult,
    Denomination,
    Phase,
    RaceCard,
    card_strength,
    plan_colour_up,
    rank_race,
    round_chips,
    settle_race,
)
from controller.chiprace.race import TITLE_WIDTH
from controller.rules.cards import DECK, Card
from controller.rules.errors import ConfigError, IllegalActionError, RulesError
from tests.chiprace.helpers import CHIPS, c, counted_race, deal_all, plan, snapshot

# ------------------------------------------------------------------ the procedure


def test_procedure_count_deal_award_confirm() -> None:
    race = ChipRace(CHIPS, [25], stacks={1: 1175, 2: 25, 3: 1025}, dealer_seat=3)
    steps = [race.next_prompt().step]
    for seat, n in ((1, 7), (2, 1), (3, 1)):
        race.count(seat, {25: n})
        steps.append(race.next_prompt().step)
    race.deal(1, c("2c"), keyed=True)  # the reader failed: keyed in
    for seat, card in ((2, "As"), (3, "3c"), (1, "2d"), (1, "2h")):
        race.deal(seat, c(card))
        steps.append(race.next_prompt().step)
    assert not race.can_confirm()
    result = race.award()
    steps.append(race.next_prompt().step)
    assert race.confirm() is result and race.phase is Phase.DONE
    steps.append(race.next_prompt().step)
    assert steps == [Phase.COUNT] * 3 + [Phase.DEAL] * 4 + [Phase.AWARD, Phase.CONFIRM,
                                                           Phase.DONE]
    assert result.cards[0] == RaceCard(1, c("2c"), keyed=True)
    assert result.stacks == {1: 1100, 2: 100, 3: 1000}
    assert not race.can_award() and not race.can_deal(1, c("Kd")) and not race.can_misdeal()


def test_procedure_pending_outcome_is_known_only_at_the_award() -> None:
    assert ChipRace(CHIPS, [25, 100], stacks={1: 1000}).leaving == (100, 25)
    race = counted_race({1: 1075, 2: 1050, 3: 1025}, {1: 3, 2: 2, 3: 1})  # 150: 2 chips
    assert race.phase is Phase.DEAL and race.pending is None
    deal_all(race, {1: "As Ah Ad", 2: "2c 2d", 3: "Ks"})
    pending = race.pending
    assert pending is not None and [a.seat for a in pending.awards] == [1, 3]
    assert race.award() is pending and race.pending is None


def test_procedure_steps_out_of_turn_are_refused() -> None:
    race = ChipRace(CHIPS, [25], stacks={1: 1075, 2: 1050})
    for step in (race.award, race.confirm, race.misdeal, race.ranking,
                 lambda: race.deal(1, c("As"))):
        with pytest.raises(IllegalActionError):
            step()
    race.count(1, {25: 3})
    race.count(2, {25: 2})
    with pytest.raises(IllegalActionError, match="counted already"):
        race.count(1, {25: 3})
    with pytest.raises(IllegalActionError, match="cannot be awarded"):
        race.award()


def test_procedure_misdeal_takes_the_cards_back() -> None:
    race = counted_race({1: 1075, 2: 1050}, {1: 3, 2: 2})
    deal_all(race, {1: "As Ks Qs", 2: "Js"})
    race.misdeal("a card flipped off the table")
    assert race.cards == [] and race.expect().phase is Phase.DEAL
    deal_all(race, {1: "2c 3c 4c", 2: "As Ts"})
    assert race.expect().phase is Phase.AWARD
    race.misdeal()  # still possible before the chips are handed out
    deal_all(race, {1: "2c 3c 4c", 2: "As Ts"})
    assert [a.seat for a in race.award().awards] == [2]


def test_procedure_undo_replays_the_log() -> None:
    race = counted_race({1: 1075, 2: 1050}, {1: 3, 2: 2})
    race.deal(1, c("As"))
    after_one = snapshot(race)
    race.deal(2, c("Ks"))
    assert race.undo() == RaceCard(2, c("Ks"))
    assert snapshot(race) == after_one
    while race.log:
        race.undo()
    assert race.phase is Phase.COUNT and race.counted == {}
    with pytest.raises(IllegalActionError):
        race.undo()


def test_procedure_from_plan_undo_stops_at_the_plan() -> None:
    p = plan({1: {25: 3}, 2: {25: 2}}, {1: 1075, 2: 1050})
    race = ChipRace.from_plan(p)
    race.deal(1, c("As"))
    race.undo()
    assert race.phase is Phase.DEAL and race.plan is p and race.log == []


def test_procedure_ranking_so_far() -> None:
    race = counted_race({1: 1075, 2: 1050, 3: 1025}, {1: 3, 2: 2, 3: 1})
    race.deal(2, c("Td"))
    race.deal(1, c("9s"))
    assert [(e.seat, e.best) for e in race.ranking()] == [(2, c("Td")), (1, c("9s")), (3, None)]


def test_procedure_prompts_fit_the_display() -> None:
    stacks = {s: 1075 for s in range(1, 11)}
    race = ChipRace(ChipSet((Denomination(25, "green", "T25"), Denomination(100, "black"))),
                    [25], stacks=stacks)
    seen = list(race.prompts())
    for seat in stacks:
        race.count(seat, {25: 3})
        seen += race.prompts()
    deck = iter(DECK)
    while race.phase is Phase.DEAL:
        race.deal(race.expect().seat or 0, next(deck))
        seen += race.prompts()
    race.award()
    seen += race.prompts()
    assert {p.step for p in seen} == set(Phase)
    for p in seen:
        assert len(p.title) <= TITLE_WIDTH and p.title.isascii() and p.text
    assert seen[0].title == "S1 COUNT T25"
    assert race.next_prompt().title == "CONFIRM NEW STACKS"
    assert race.next_prompt().seats == tuple(range(1, 11))


def test_procedure_the_result_is_one_journal_event() -> None:
    race = counted_race({1: 1175, 2: 25, 3: 1025}, {1: 7, 2: 1, 3: 1})
    race.deal(1, c("2c"), keyed=True)
    deal_all(race, {1: "2d 2h", 2: "As", 3: "3c"})
    event = json.loads(json.dumps(race.award().as_event()))
    assert event["chips_raced"] == 1 and event["unit"] == 100 and event["leaving"] == [25]
    assert event["awards"] == [{"place": 1, "seat": 2, "card": "As"}]
    assert event["cards"][0] == {"seat": 1, "card": "2c", "keyed": True}
    assert [(e["seat"], e["after"], e["rescued"]) for e in event["seats"]] == [
        (1, 1100, False), (2, 100, False), (3, 1000, False)]


def test_procedure_rejects_bad_seats() -> None:
    with pytest.raises(ConfigError, match="no chips"):
        ChipRace(CHIPS, [25], stacks={1: 0})
    with pytest.raises(ConfigError, match="twice"):
        ChipRace(CHIPS, [25], stacks={1: 100}, seats_in_order=[1, 1])
    with pytest.raises(IllegalActionError, match="not in play"):
        plan({4: {25: 1}}, {1: 1000})


# ------------------------------------------------------------------ properties

LAYOUTS = [  # (chip set, leaving, the most leaving chips a seat may hold)
    (CHIPS, (25,), 60),
    (CHIPS, (25, 100), 25),
    (ChipSet.of({5: "red", 25: "green", 100: "black"}), (5,), 30),
    (ChipSet.of({100: "black", 500: "purple", 1000: "yellow", 5000: "orange"}), (100, 500), 8),
]


@st.composite
def colour_ups(draw: st.DrawFn) -> tuple[ColourUpPlan, list[RaceCard]]:
    chip_set, leaving, most = draw(st.sampled_from(LAYOUTS))
    unit = chip_set.without(leaving).unit
    seats = draw(st.lists(st.integers(1, 10), min_size=1, max_size=10, unique=True))
    # small counts and bare stacks often, so that seats can be raced out (CHIPRACE-3)
    counts = {s: {d: draw(st.integers(0, 3) | st.integers(0, most)) for d in leaving}
              for s in seats}
    stacks = {}
    for s in seats:
        value = sum(d * n for d, n in counts[s].items())
        kept = draw(st.just(0) | st.integers(0, 40)) if value else draw(st.integers(1, 40))
        stacks[s] = value + unit * kept
    try:
        p = plan_colour_up(chip_set, leaving, counts, stacks=stacks,
                           start=draw(st.sampled_from(["seat_1", "left_of_dealer"])),
                           dealer_seat=draw(st.sampled_from(seats)),
                           rounding=draw(st.sampled_from(["half_up", "down", "up"])),
                           suit_order="".join(draw(st.permutations("cdhs"))),
                           deal_when_decided=draw(st.booleans()))
    except IllegalActionError as exc:
        assume(exc.rule != "CHIPRACE-6")  # more than one deck of race cards
        raise
    deck = draw(st.permutations(DECK))
    cards: list[RaceCard] = []
    if p.needs_cards:
        for racer in p.racers:
            cards += [RaceCard(racer.seat, deck.pop()) for _ in range(racer.race_cards)]
    return p, draw(st.permutations(cards))


@settings(max_examples=150, deadline=None)
@given(colour_ups())
def test_property_value_after_is_what_the_rules_say(
        case: tuple[ColourUpPlan, list[RaceCard]]) -> None:
    p, cards = case
    result = settle_race(p, cards)
    chip = p.race_chip.value
    # full-value exchange conserves value; the odd chips leave; the raced chips and the
    # CHIPRACE-3 chips come in; nothing else moves
    assert result.value_after == (p.value_before - p.odd_value + p.chips_raced * chip
                                  + result.rescued_value)
    assert p.chips_raced == round_chips(p.odd_value, chip, p.rounding)
    for s, ex in zip(result.seats, p.seats, strict=True):
        assert ex.exchanged_value == sum(d * n for d, n in ex.new_chips)
        assert ex.odd_value < chip and ex.kept_value % chip == 0
        assert s.stack_after == (s.stack_before - s.odd_value + chip * (s.won + s.rescued))
        assert s.stack_after % chip == 0


@settings(max_examples=150, deadline=None)
@given(colour_ups())
def test_property_one_chip_each_and_nobody_raced_out(
        case: tuple[ColourUpPlan, list[RaceCard]]) -> None:
    p, cards = case
    result = settle_race(p, cards)
    winners = [a.seat for a in result.awards]
    assert len(winners) == len(set(winners)) == p.chips_raced  # CHIPRACE-1
    assert set(winners) <= {s.seat for s in p.racers}
    assert all(s.stack_after > 0 for s in result.seats)  # CHIPRACE-3
    assert all(not (s.won and s.rescued) for s in result.seats)
    if p.needs_cards:  # every winner's best card beats every losing racer's best card
        best = {e.seat: card_strength(e.best or 0, p.suit_order) for e in rank_race(p, cards)}
        losing = [best[s.seat] for s in p.racers if s.seat not in winners]
        assert all(best[w] > max(losing, default=-1) for w in winners)


@settings(max_examples=100, deadline=None)
@given(colour_ups(), st.randoms(use_true_random=False))
def test_property_the_race_is_deterministic_given_the_cards(
        case: tuple[ColourUpPlan, list[RaceCard]], rnd: object) -> None:
    p, cards = case
    first = settle_race(p, cards)
    shuffled = list(cards)
    rnd.shuffle(shuffled)  # type: ignore[attr-defined]
    assert settle_race(p, shuffled).awards == first.awards
    race = ChipRace.from_plan(p)
    for rc in shuffled:
        race.deal(rc.seat, rc.card)
    machine: ColourUpResult = race.award()
    assert machine.stacks == first.stacks and machine.awards == first.awards


@settings(max_examples=100, deadline=None)
@given(colour_ups(), st.lists(st.tuples(st.integers(0, 11), st.integers(-1, 52)),
                              max_size=60))
def test_property_a_refused_card_changes_nothing(
        case: tuple[ColourUpPlan, list[RaceCard]], attempts: list[tuple[int, int]]) -> None:
    p, _ = case
    race = ChipRace.from_plan(p)
    for seat, card in attempts:
        before = snapshot(race)
        if race.can_deal(seat, card):
            race.deal(seat, card)
            assert race.cards[-1] == RaceCard(seat, DECK[card])
        else:
            with pytest.raises(RulesError):
                race.deal(seat, card)
            assert snapshot(race) == before
    dealt = [rc.card for rc in race.cards]
    assert len(dealt) == len(set(dealt)) <= p.cards_needed


class ColourUpMachine(RuleBasedStateMachine):
    """Random counts, cards, misdeals and undos: a refused step changes nothing, an undo
    goes back exactly one step, and the confirmed stacks are :func:`settle_race`'s."""

    STACKS: Mapping[int, int] = {1: 1075, 2: 75, 4: 1050, 5: 25, 7: 2000}

    def __init__(self) -> None:
        super().__init__()
        self.race = ChipRace(CHIPS, [25], stacks=self.STACKS)
        self.history: list[tuple[object, ...]] = []

    def _try(self, ok: bool, step: object) -> None:
        before = snapshot(self.race)
        if ok:
            assert callable(step)
            step()
            self.history.append(before)
        else:
            with pytest.raises(RulesError):
                assert callable(step)
                step()
            assert snapshot(self.race) == before

    @rule(seat=st.sampled_from([1, 2, 3, 4, 5, 7]), k=st.integers(0, 2),
          off=st.sampled_from([0, 0, 0, 1]))
    def count(self, seat: int, k: int, off: int) -> None:
        # mostly counts that fit the stack (the rest whole T100s); ``off`` miscounts by one
        chips = {25: self.STACKS.get(seat, 1000) // 25 % 4 + 4 * k + off}
        self._try(self.race.can_count(seat, chips), lambda: self.race.count(seat, chips))

    @precondition(lambda self: self.race.phase is Phase.COUNT)
    @rule(k=st.integers(0, 1))
    def count_next(self, k: int) -> None:
        seat = self.race.expect().seat or 0
        chips = {25: self.STACKS[seat] // 25 % 4 + (4 * k if self.STACKS[seat] > 100 else 0)}
        self._try(True, lambda: self.race.count(seat, chips))

    @precondition(lambda self: self.race.phase is Phase.DEAL)
    @rule(card=st.integers(0, 51))
    def deal_next(self, card: int) -> None:
        seat = self.race.expect().seat or 0
        self._try(self.race.can_deal(seat, card), lambda: self.race.deal(seat, card))

    @precondition(lambda self: self.race.phase in (Phase.COUNT, Phase.DEAL))
    @rule(deck=st.permutations(DECK))
    def finish_dealing(self, deck: list[Card]) -> None:
        """Count every seat left and deal every card left, one logged step at a time."""
        while self.race.phase is Phase.COUNT:
            self.count_next(0)
        for card in deck:
            if self.race.phase is not Phase.DEAL:
                break
            seat = self.race.expect().seat or 0
            if self.race.can_deal(seat, card):
                self._try(True, lambda: self.race.deal(seat, card))  # noqa: B023

    @rule(seat=st.sampled_from([1, 2, 4, 5, 7]), card=st.integers(0, 51))
    def deal(self, seat: int, card: int) -> None:
        self._try(self.race.can_deal(seat, card), lambda: self.race.deal(seat, card))

    @rule(roll=st.integers(0, 4))
    def misdeal(self, roll: int) -> None:
        if roll == 0:  # rarely, or the race would seldom reach the award
            self._try(self.race.can_misdeal(), self.race.misdeal)

    @rule()
    def award(self) -> None:
        self._try(self.race.can_award(), self.race.award)

    @rule()
    def confirm(self) -> None:
        self._try(self.race.can_confirm(), self.race.confirm)

    @precondition(lambda self: bool(self.history))
    @rule(roll=st.integers(0, 4))
    def undo(self, roll: int) -> None:
        if roll == 0:
            self.race.undo()
            assert snapshot(self.race) == self.history.pop()

    @invariant()
    def consistent(self) -> None:
        race = self.race
        dealt = [rc.card for rc in race.cards]
        assert len(dealt) == len(set(dealt))
        if race.plan is None:
            assert race.phase is Phase.COUNT
            return
        assert len(dealt) <= race.plan.cards_needed
        if race.result is not None:
            assert race.result == settle_race(race.plan, race.cards)
            assert all(v > 0 for v in race.result.stacks.values())


ColourUpMachine.TestCase.settings = settings(max_examples=60, stateful_step_count=50,
                                             deadline=None)
TestColourUpMachine = ColourUpMachine.TestCase
