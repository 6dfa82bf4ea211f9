"""Colour-up and chip race (RULES.md section 18), the rules: tests named by rule and
example id (CHIPRACE-1..6), and the edge cases. The procedure at the table and the
properties are in test_chiprace_procedure.py."""

from __future__ import annotations

from itertools import permutations

import pytest

from controller.chiprace import (
    ChipRace,
    ChipSet,
    Denomination,
    Phase,
    card_strength,
    make_change,
    race_order,
    round_chips,
    settle_stray_chips,
)
from controller.rules.cards import DECK
from controller.rules.errors import ConfigError, IllegalActionError
from tests.chiprace.helpers import CHIPS, c, counted_race, deal_all, plan, snapshot

# ------------------------------------------------------------------ chip sets (§0 unit)


def test_chip_set_lowest_chip_is_the_unit() -> None:
    chips = ChipSet((Denomination(500, "purple"), Denomination(25, "green", "T25")))
    assert chips.values == (25, 500)
    assert chips.unit == 25 and chips.lowest.label == "T25"
    assert chips.without([25]).unit == 500


@pytest.mark.parametrize("spec", [{}, {25: "green", 60: "red"}, {25: "green", 100: "Green"}])
def test_chip_set_rejects_a_set_without_a_unit(spec: dict[int, str]) -> None:
    with pytest.raises(ConfigError):
        ChipSet.of(spec)


def test_chip_set_rejects_bad_denominations() -> None:
    for value in (0, -25, True):
        with pytest.raises(ConfigError):
            Denomination(value, "green")
    with pytest.raises(ConfigError):
        Denomination(25, " ")
    with pytest.raises(ConfigError):
        ChipSet((Denomination(25, "green"), Denomination(25, "red")))


# ------------------------------------------------------------------ CHIPRACE-1


def test_chiprace_1_chips_that_cannot_be_exchanged_are_raced() -> None:
    p = plan({1: {25: 7}, 2: {25: 8}}, {1: 1175, 2: 1200})
    one, two = p.exchange(1), p.exchange(2)
    assert one.handed_in == ((25, 4),) and one.new_chips == ((100, 1),)
    assert one.odd_chips == ((25, 3),) and one.odd_value == 75
    assert two.odd_chips == () and two.exchanged_value == 200
    assert [s.seat for s in p.racers] == [1]


def test_chiprace_1_each_player_wins_at_most_one_chip() -> None:
    # Seat 1 holds the four best cards, but wins one chip; the other chips go down the list.
    race = counted_race({1: 1075, 2: 1075, 3: 1075}, {1: 3, 2: 3, 3: 3})
    assert race.plan is not None and race.plan.chips_raced == 2  # 225 -> 2.25 -> 2
    deal_all(race, {1: "As Ah Ad", 2: "2c 3c 4c", 3: "Kc 2d 3d"})
    result = race.award()
    assert [(a.place, a.seat, a.card) for a in result.awards] == [(1, 1, c("As")), (2, 3, c("Kc"))]
    assert result.stacks == {1: 1100, 2: 1000, 3: 1100}


def test_chiprace_1_only_the_leaving_denomination_is_counted() -> None:
    race = ChipRace(CHIPS, [25], stacks={1: 1175})
    with pytest.raises(IllegalActionError, match="not a denomination leaving") as info:
        race.count(1, {100: 11})
    assert info.value.rule == "CHIPRACE-1"
    with pytest.raises(ConfigError):
        ChipRace(CHIPS, [5], stacks={1: 1175})
    with pytest.raises(ConfigError, match="every denomination"):
        ChipRace(CHIPS, [25, 100, 500, 1000], stacks={1: 1175})
    with pytest.raises(ConfigError):
        ChipRace(CHIPS, [], stacks={1: 1175})


def test_chiprace_1_a_miscount_is_caught_against_the_stack() -> None:
    race = ChipRace(CHIPS, [25], stacks={1: 1175, 2: 500})
    before = snapshot(race)
    for chips in ({25: 6}, {25: 48}, {25: -1}, {25: True}):
        assert not race.can_count(1, chips)
        with pytest.raises(IllegalActionError, match="seat 1"):
            race.count(1, chips)
    with pytest.raises(IllegalActionError, match="not in play"):
        race.count(7, {25: 1})
    assert snapshot(race) == before
    race.count(1, {25: 3})  # a wrong count that fits the stack, then a recount replaces it
    race.count(1, {25: 7})
    assert race.counted[1].odd_chips == ((25, 3),) and race.phase is Phase.COUNT


# ------------------------------------------------------------------ CHIPRACE-2


def test_chiprace_2_the_race_starts_at_seat_1_not_left_of_the_button() -> None:
    stacks = {2: 1025, 4: 1025, 7: 1025, 9: 1025}
    p = plan({s: {25: 1} for s in stacks}, stacks, dealer_seat=4)
    assert [s.seat for s in p.seats] == [2, 4, 7, 9]  # seat 1 is empty: seat 2 is first
    race = ChipRace.from_plan(p)
    assert race.expect().seat == 2


def test_chiprace_2_house_option_left_of_the_button() -> None:
    stacks = {2: 1000, 4: 1000, 7: 1000, 9: 1000}
    p = plan({}, stacks, start="left_of_dealer", dealer_seat=4)
    assert [s.seat for s in p.seats] == [7, 9, 2, 4]
    # a dead button on an empty seat: the table's seat list places it
    order = race_order(stacks, seats_in_order=range(1, 11), dealer_seat=5,
                       start="left_of_dealer")
    assert order == (7, 9, 2, 4)
    with pytest.raises(ConfigError, match="button seat") as info:
        plan({}, stacks, start="left_of_dealer")
    assert info.value.rule == "CHIPRACE-2"
    with pytest.raises(ConfigError):
        plan({}, stacks, start="button")
    with pytest.raises(ConfigError, match="not in the seat order"):
        plan({}, stacks, seats_in_order=[1, 2, 3, 4])


def test_chiprace_2_cards_are_dealt_round_by_round_from_the_start() -> None:
    race = counted_race({1: 1075, 2: 1025, 3: 1050}, {1: 3, 2: 1, 3: 2})
    assert [p.seats for p in race.prompts() if p.step is Phase.DEAL] == [
        (1,), (2,), (3,), (1,), (3,), (1,)]
    assert race.expect().due == ((1, 3), (2, 1), (3, 2))


def test_chiprace_2_strict_order_rejects_a_card_out_of_turn() -> None:
    race = counted_race({1: 1075, 2: 1025}, {1: 3, 2: 1}, strict_order=True)
    with pytest.raises(IllegalActionError, match="deal to seat 1 first") as info:
        race.deal(2, c("As"))
    assert info.value.rule == "CHIPRACE-2"
    race.deal(1, c("2c"))
    race.deal(2, c("As"))
    assert race.expect().seat == 1


def test_chiprace_2_the_order_of_reads_never_changes_the_outcome() -> None:
    cards = [(1, "2c"), (2, "As"), (1, "Kd"), (1, "3h")]
    results = []
    for order in permutations(cards):
        race = counted_race({1: 1075, 2: 1025, 3: 1000}, {1: 3, 2: 1})
        for seat, text in order:
            race.deal(seat, c(text))
        results.append(race.award())
    assert all(r.awards == results[0].awards and r.stacks == results[0].stacks
               for r in results)


# ------------------------------------------------------------------ CHIPRACE-3


def test_chiprace_3_a_single_chip_stack_that_loses_gets_the_lowest_chip() -> None:
    race = counted_race({1: 25, 2: 1050, 3: 1050}, {1: 1, 2: 2, 3: 2})
    assert race.plan is not None and race.plan.chips_raced == 1  # 125 -> 1.25 -> 1
    deal_all(race, {1: "2c", 2: "Ah 3c", 3: "Kd 4c"})
    result = race.award()
    assert result.stacks == {1: 100, 2: 1100, 3: 1000}
    assert [s.rescued for s in result.seats] == [True, False, False]
    assert "Seat 1 gets one T100" in race.prompts()[0].text or race.phase is Phase.CONFIRM


def test_chiprace_3_a_stack_of_only_odd_chips_is_never_raced_out() -> None:
    race = counted_race({1: 75, 2: 50, 3: 1025, 4: 1025}, {1: 3, 2: 2, 3: 1, 4: 1})
    assert race.plan is not None and race.plan.chips_raced == 2  # 175 -> 1.75 -> 2
    deal_all(race, {1: "2c 2d 2h", 2: "3c 3d", 3: "Ac", 4: "Ad"})
    assert race.phase is Phase.AWARD
    prompt = race.next_prompt()
    assert prompt.step is Phase.AWARD and prompt.seats == (4, 3, 1, 2)
    assert "nobody is raced out (CHIPRACE-3)" in prompt.text
    result = race.award()
    assert result.stacks == {1: 100, 2: 100, 3: 1100, 4: 1100}
    assert result.rescued_value == 200 and result.raced_in == 200


def test_chiprace_3_an_all_odd_winner_gets_one_chip_only() -> None:
    race = counted_race({1: 75, 2: 1050}, {1: 3, 2: 2})
    deal_all(race, {1: "As 2c 2d", 2: "Kd Kh"})
    result = race.award()  # 125 -> 1 chip, to seat 1
    assert result.stacks == {1: 100, 2: 1000}
    assert not any(s.rescued for s in result.seats)


# ------------------------------------------------------------------ CHIPRACE-4


def test_chiprace_4_stray_chips_worth_less_than_a_chip_are_lost() -> None:
    after = CHIPS.without([25])
    s = settle_stray_chips(after, {25: 3})
    assert (s.value, s.lost, s.new_chips) == (75, 75, ())


def test_chiprace_4_stray_chips_worth_a_chip_are_exchanged_for_it() -> None:
    after = CHIPS.without([25])
    s = settle_stray_chips(after, {25: 4})
    assert (s.lost, s.new_chips, s.exchanged_value) == (0, ((100, 1),), 100)
    s = settle_stray_chips(after, {25: 6})  # [interp] full value as far as it goes
    assert (s.lost, s.new_chips) == (50, ((100, 1),))
    with pytest.raises(IllegalActionError, match="still in play") as info:
        settle_stray_chips(after, {100: 2})
    assert info.value.rule == "CHIPRACE-4"
    with pytest.raises(IllegalActionError):
        settle_stray_chips(after, {25: -1})


def test_chiprace_4_the_race_takes_every_leaving_chip_off_the_table() -> None:
    race = counted_race({1: 1025, 2: 1000}, {1: 1})
    assert race.plan is not None and race.plan.chips_raced == 0  # 25 -> 0.25 -> 0
    result = race.award()
    assert result.stacks == {1: 1000, 2: 1000}
    assert race.plan.remaining.values == (100, 500, 1000)
    assert all(v % 100 == 0 for v in result.stacks.values())


# ------------------------------------------------------------------ CHIPRACE-5


def test_chiprace_5_the_seat_being_worked_on_is_lit_so_players_can_watch() -> None:
    race = ChipRace(CHIPS, [25], stacks={3: 1075, 8: 1025})
    assert race.next_prompt().seats == (3,)
    assert "colour up every 4 × T25 for one T100 (black)" in race.next_prompt().text
    race.count(3, {25: 3})
    assert race.next_prompt().seats == (8,)
    race.count(8, {25: 1})
    prompt = race.next_prompt()  # 100 -> 1 chip, 2 racers: the cards decide
    assert prompt.step is Phase.DEAL and prompt.seats == (3,)
    assert prompt.text.startswith("Seat 3: deal race card 1 of 3 face up (3 × T25 odd")
    race.deal(3, c("2c"))
    assert race.next_prompt().seats == (8,)
    race = ChipRace(CHIPS, [25, 100], stacks={3: 1175})
    assert "colour them up at full value, from T500 (purple) up" in race.next_prompt().text


def test_chiprace_5_staff_may_colour_up_one_player_at_any_time() -> None:
    race = ChipRace(CHIPS, [25], stacks={6: 2000})
    exchange = race.count(6, {25: 12})
    assert exchange.new_chips == ((100, 3),) and exchange.odd_chips == ()
    assert race.award().stacks == {6: 2000}


# ------------------------------------------------------------------ CHIPRACE-6


def test_chiprace_6_example_1() -> None:
    # T25 leaves, T100 is the lowest left. Seat 1: 7 × T25 beside other chips; seat 2: a
    # single T25 is the whole stack; seat 3: 1 × T25 beside other chips.
    stacks = {1: 1175, 2: 25, 3: 1025}
    p = plan({1: {25: 7}, 2: {25: 1}, 3: {25: 1}}, stacks)
    assert p.exchange(1).handed_in == ((25, 4),) and p.exchange(1).odd_chips == ((25, 3),)
    assert p.chips_raced == 1  # 125 -> 1.25 -> 1
    for deal, expected in [
        ({1: "2c 2d 2h", 2: "As", 3: "3c"}, {1: 1100, 2: 100, 3: 1000}),  # seat 2 wins
        ({1: "2c 2d Ks", 2: "3d", 3: "3c"}, {1: 1200, 2: 100, 3: 1000}),  # seat 2 loses
    ]:
        race = ChipRace.from_plan(p)
        deal_all(race, deal)
        assert race.award().stacks == expected


def test_chiprace_6_1_full_value_exchange_in_the_largest_chips() -> None:
    exchange = plan({1: {25: 41}}, {1: 1025}).exchange(1)
    assert exchange.new_chips == ((1000, 1),) and exchange.odd_chips == ((25, 1),)
    assert make_change(1600, (100, 500, 1000)) == ((1000, 1), (500, 1), (100, 1))
    with pytest.raises(ConfigError):
        make_change(150, (100, 500))


def test_chiprace_6_1_two_denominations_leave_together() -> None:
    p = plan({1: {100: 5, 25: 3}, 2: {25: 19}}, {1: 1575, 2: 1475}, leaving=(25, 100))
    assert p.remaining.unit == 500 and p.leaving == (100, 25)
    assert p.exchange(1).handed_in == ((100, 5),) and p.exchange(1).odd_chips == ((25, 3),)
    assert p.exchange(2).odd_chips == ((25, 19),) and p.exchange(2).race_cards == 19
    assert p.chips_raced == 1  # 550 / 500 -> 1.1 -> 1
    # leaving chips that are whole new units need not divide each other
    odd_set = ChipSet.of({10: "white", 20: "red", 50: "blue", 100: "black"})
    p = plan({1: {20: 3, 50: 2}}, {1: 170}, leaving=(20, 50), chip_set=odd_set)
    assert p.exchange(1).new_chips == ((100, 1), (10, 6)) and not p.racers
    # 6 and 4 both divide the new unit 12, but 1 × T6 + 2 × T4 cannot make 12
    with pytest.raises(ConfigError, match="cannot leave together"):
        plan({}, {1: 12}, leaving=(2, 4, 6),
             chip_set=ChipSet.of({2: "white", 4: "red", 6: "blue", 12: "black"}))
    # a T30 is neither a whole T20 nor a part of one
    with pytest.raises(ConfigError, match="neither divides"):
        plan({}, {1: 20}, leaving=(10, 30),
             chip_set=ChipSet.of({10: "white", 20: "red", 30: "blue"}))


def test_chiprace_6_2_one_card_per_odd_chip() -> None:
    race = counted_race({1: 1075, 2: 1050, 3: 1000}, {1: 3, 2: 2})
    assert race.expect().due == ((1, 3), (2, 2))
    assert race.plan is not None and race.plan.cards_needed == 5
    before = snapshot(race)
    attempts: list[tuple[int, int, str]] = [(3, c("As"), "no odd chips"), (1, 52, "not a card"),
                                            (1, -1, "not a card"), (1, True, "not a card")]
    for seat, card, why in attempts:
        assert not race.can_deal(seat, card)
        with pytest.raises(IllegalActionError, match=why):
            race.deal(seat, card)
    assert snapshot(race) == before
    race.deal(2, c("As"))
    race.deal(2, c("Ks"))
    before = snapshot(race)
    with pytest.raises(IllegalActionError, match="already has its 2 race cards") as info:
        race.deal(2, c("Qs"))
    assert info.value.rule == "CHIPRACE-6"
    with pytest.raises(IllegalActionError, match="already dealt to seat 2") as info:
        race.deal(1, c("As"))
    assert info.value.rule == "CARD-1"
    assert snapshot(race) == before


def test_chiprace_6_3_rank_then_suit() -> None:
    assert card_strength(c("Ks")) > card_strength(c("Qs")) > card_strength(c("Jc"))
    assert card_strength(c("As")) > card_strength(c("Ah")) > card_strength(c("Ad")) \
        > card_strength(c("Ac"))
    assert card_strength(c("Ac"), "shdc") > card_strength(c("As"), "shdc")
    assert card_strength(c("2c"), "shdc") < card_strength(c("3s"), "shdc")
    for order in ("cdh", "cdhh", "xdhs"):
        with pytest.raises(ConfigError):
            plan({}, {1: 1000}, suit_order=order)


def test_chiprace_6_3_the_suit_order_is_configurable() -> None:
    for suits, winner in (("cdhs", 2), ("shdc", 1)):
        race = counted_race({1: 1050, 2: 1050}, {1: 2, 2: 2}, suit_order=suits)
        deal_all(race, {1: "Ac 2c", 2: "As 2d"})
        assert [a.seat for a in race.award().awards] == [winner]


@pytest.mark.parametrize(("odd", "half_up", "down", "up"), [
    (0, 0, 0, 0), (25, 0, 0, 1), (49, 0, 0, 1), (50, 1, 0, 1), (75, 1, 0, 1),
    (125, 1, 1, 2), (150, 2, 1, 2), (175, 2, 1, 2), (200, 2, 2, 2)])
def test_chiprace_6_4_chips_raced_is_the_odd_value_rounded(odd: int, half_up: int, down: int,
                                                         up: int) -> None:
    assert (round_chips(odd, 100, "half_up"), round_chips(odd, 100, "down"),
            round_chips(odd, 100, "up")) == (half_up, down, up)


def test_chiprace_6_4_rounding_in_a_plan() -> None:
    counts = {1: {25: 3}, 2: {25: 2}, 3: {25: 1}}
    stacks = {1: 1075, 2: 1050, 3: 1025}
    assert [plan(counts, stacks, rounding=r).chips_raced for r in ("half_up", "down", "up")] \
        == [2, 1, 2]
    with pytest.raises(ConfigError):
        plan(counts, stacks, rounding="nearest")


def test_chiprace_6_a_race_needing_more_than_one_deck_is_refused() -> None:
    chips = ChipSet.of({25: "green", 500: "purple"})
    stacks = {1: 975, 2: 975, 3: 975, 4: 525}
    counts = {1: 19, 2: 19, 3: 19, 4: 1}  # 1450 -> 3 chips for 4 seats, 58 cards
    with pytest.raises(IllegalActionError, match="58 cards") as info:
        plan({s: {25: n} for s, n in counts.items()}, stacks, chip_set=chips)
    assert info.value.rule == "CHIPRACE-6"
    race = ChipRace(chips, [25], stacks=stacks)
    for seat in (1, 2, 3):
        race.count(seat, {25: 19})
    assert not race.can_count(4, {25: 1})  # the last count would need 58 cards
    with pytest.raises(IllegalActionError, match="58 cards"):
        race.count(4, {25: 1})
    assert race.phase is Phase.COUNT and len(race.counted) == 3 and race.plan is None


# ------------------------------------------------------------------ edge cases


def test_edge_one_player_in_the_race_wins_without_cards() -> None:
    race = counted_race({1: 1075, 2: 1000}, {1: 3})
    assert race.plan is not None and race.plan.decided and race.plan.cards_needed == 0
    assert race.phase is Phase.AWARD and not race.can_deal(1, c("As"))
    result = race.award()
    assert [(a.seat, a.card) for a in result.awards] == [(1, None)]
    assert result.stacks == {1: 1100, 2: 1000}


def test_edge_one_player_dealt_when_the_house_wants_cards_shown() -> None:
    race = counted_race({1: 1075, 2: 1000}, {1: 3}, deal_when_decided=True)
    assert race.phase is Phase.DEAL and race.expect().cards == 3
    deal_all(race, {1: "2c 7d 5h"})
    result = race.award()
    assert [(a.seat, a.card) for a in result.awards] == [(1, c("7d"))]


def test_edge_one_chip_left_on_the_table() -> None:
    # one T25 beside other chips: 25 rounds to no chip; it is lost (CHIPRACE-4)
    race = counted_race({1: 1025, 2: 2000}, {1: 1})
    assert race.phase is Phase.AWARD and race.award().stacks == {1: 1000, 2: 2000}
    # the same chip as a whole stack: the player keeps a T100 (CHIPRACE-3)
    race = counted_race({1: 25, 2: 2000}, {1: 1})
    assert race.award().stacks == {1: 100, 2: 2000}


def test_edge_every_player_has_odd_chips() -> None:
    stacks = {s: 1075 for s in range(1, 11)}
    race = counted_race(stacks, {s: 3 for s in stacks})
    assert race.plan is not None and race.plan.chips_raced == 8  # 750 -> 7.5 -> 8
    assert race.plan.cards_needed == 30
    deck = iter(DECK[::-1])  # As, Ah, ... dealt round by round
    while race.phase is Phase.DEAL:
        race.deal(race.expect().seat or 0, next(deck))
    result = race.award()
    assert len({a.seat for a in result.awards}) == 8
    assert sorted(result.stacks.values()) == [1000, 1000] + [1100] * 8
    losers = [s for s in result.seats if not s.won]
    assert [s.seat for s in losers] == [9, 10]  # their best cards came last


def test_edge_ties_are_impossible_with_one_deck() -> None:
    for order in permutations("cdhs"):
        strengths = {card_strength(card, "".join(order)) for card in DECK}
        assert strengths == set(range(52))


def test_edge_every_player_wins_when_chips_match_racers() -> None:
    race = counted_race({1: 1050, 2: 1050}, {1: 2, 2: 2})  # 100 -> 1 chip, 2 racers: a race
    assert race.phase is Phase.DEAL
    race = counted_race({1: 1075, 2: 1075}, {1: 3, 2: 3})  # 150 -> 2 chips, 2 racers
    assert race.phase is Phase.AWARD and {a.seat for a in race.award().awards} == {1, 2}
