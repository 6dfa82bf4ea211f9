"""The hand evaluator (RANK-1..RANK-5, CARD-2, CARD-3).

Oracles: treys (lower is better) for Hold'em order, PokerKit for Omaha. Both are test-only.
The 7-card exhaustive count is in ``test_evaluator_exhaustive.py`` (marked slow).
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import pokerkit
import pytest
import treys  # type: ignore[import-untyped]
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.rules.cards import DECK, format_cards, parse_cards
from controller.rules.errors import CardError
from controller.rules.evaluator import (
    HandCategory,
    best_five,
    best_five_omaha,
    category,
    describe,
    evaluate,
    evaluate_omaha,
)
from tests.benchmarks.bench_evaluators import run


def strength(text: str) -> int:
    return evaluate(parse_cards(text))


def omaha(hole: str, board: str) -> int:
    return evaluate_omaha(parse_cards(hole), parse_cards(board))


def sign(x: int) -> int:
    return (x > 0) - (x < 0)


# --- RANK-1: ranks, the ace low only in the wheel --------------------------------------


def test_rank_1_example_1_six_high_straight_beats_wheel() -> None:
    assert strength("2h 3c 4d 5s 6h") > strength("Ah 2c 3d 4s 5h")


def test_rank_1_wheel_is_lowest_straight() -> None:
    wheel = strength("Ah 2c 3d 4s 5h")
    assert category(wheel) is HandCategory.STRAIGHT
    assert describe(wheel) == "straight, five high"
    runs = ("23456", "34567", "45678", "56789", "6789T", "789TJ", "89TJQ", "9TJQK", "TJQKA")
    straights = [strength(" ".join(r + s for r, s in zip(run, "hcdsh", strict=True)))
                 for run in runs]
    assert all(wheel < other for other in straights)
    assert straights == sorted(straights)
    assert len(set(straights)) == len(runs)
    assert wheel > strength("Ah Ac Ad Ks Qh")  # a straight still beats any three of a kind


def test_rank_1_ten_to_ace_is_highest_straight_and_no_wraparound() -> None:
    broadway = strength("Th Jc Qd Ks Ah")
    assert broadway > strength("9h Tc Jd Qs Kh")
    assert describe(broadway) == "straight, ace high"
    assert category(strength("Qh Kc Ad 2s 3h")) is HandCategory.HIGH_CARD
    assert category(strength("Kh Ac 2d 3s 4h")) is HandCategory.HIGH_CARD


def test_rank_1_wheel_straight_flush_is_lowest_straight_flush() -> None:
    steel_wheel = strength("Ah 2h 3h 4h 5h")
    assert category(steel_wheel) is HandCategory.STRAIGHT_FLUSH
    assert describe(steel_wheel) == "straight flush, five high"
    assert steel_wheel < strength("2s 3s 4s 5s 6s")
    assert steel_wheel > strength("Ah Ac Ad As Kh")


def test_rank_1_ace_is_high_outside_the_wheel() -> None:
    assert strength("Ah 7c 5d 4s 3h") > strength("Kh Qc Jd 9s 8h")
    assert strength("Ah Ac 3d 4s 6h") > strength("Kh Kc Qd Js 9h")
    assert strength("Ah 7h 5h 4h 3h") > strength("Kh Qh Jh 9h 8h")


def test_rank_1_wheel_in_seven_cards_loses_to_a_higher_straight() -> None:
    # A-2-3-4-5-6: the best five is 2-6, not the wheel.
    assert describe(strength("Ah 2c 3d 4s 5h 6c 9d")) == "straight, six high"
    assert describe(strength("Ah 2h 3h 4h 5h 6h Kd")) == "straight flush, six high"


# --- RANK-2 and RANK-3: categories -----------------------------------------------------

#: (worst, best) hand of each category, worst category first.
CATEGORY_LADDER = [
    (HandCategory.HIGH_CARD, "7s 5h 4d 3c 2s", "As Kh Qd Jc 9s"),
    (HandCategory.PAIR, "2s 2h 3d 4c 5s", "As Ah Kd Qc Js"),
    (HandCategory.TWO_PAIR, "3s 3h 2d 2c 4s", "As Ah Kd Kc Qs"),
    (HandCategory.THREE_OF_A_KIND, "2s 2h 2d 3c 4s", "As Ah Ad Kc Qs"),
    (HandCategory.STRAIGHT, "Ah 2c 3d 4s 5h", "Th Jc Qd Ks Ah"),
    (HandCategory.FLUSH, "2h 3h 4h 5h 7h", "Ah Kh Qh Jh 9h"),
    (HandCategory.FULL_HOUSE, "2h 2c 2d 3s 3h", "Ah Ac Ad Ks Kh"),
    (HandCategory.FOUR_OF_A_KIND, "2h 2c 2d 2s 3h", "Ah Ac Ad As Kh"),
    (HandCategory.STRAIGHT_FLUSH, "Ah 2h 3h 4h 5h", "Th Jh Qh Kh Ah"),
]


def test_rank_2_categories_from_worst_to_best() -> None:
    assert list(HandCategory) == [kind for kind, _, _ in CATEGORY_LADDER]
    previous_best = -1
    for kind, worst_text, best_text in CATEGORY_LADDER:
        worst, best = strength(worst_text), strength(best_text)
        assert category(worst) is kind
        assert category(best) is kind
        assert previous_best < worst < best, kind.name
        previous_best = best


def test_rank_2_ace_high_straight_flush_is_the_royal_flush() -> None:
    assert describe(strength("Th Jh Qh Kh Ah")) == "royal flush"
    assert describe(strength("9s Ts Js Qs Ks")) == "straight flush, king high"


def test_rank_3_example_1_straight_flush_not_flush_or_straight() -> None:
    value = strength("2♥3♥4♥5♥6♥")
    assert category(value) is HandCategory.STRAIGHT_FLUSH
    assert value > strength("Ah Kh Qh Jh 9h")  # above every flush
    assert value > strength("Ac Ad Ah As Kh")  # and every four of a kind


def test_rank_3_best_category_in_seven_cards() -> None:
    # Two sets of three make a full house; the higher set is the three.
    assert describe(strength("9h 9c 9d 4s 4h 4c Kd")) == "full house, nines over fours"
    # Four of a kind with three more of a kind: the kicker is the best other card.
    assert describe(strength("9h 9c 9d 9s 4h 4c 4d")) == "four of a kind, nines"
    assert strength("9h 9c 9d 9s 4h 4c 4d") == strength("9h 9c 9d 9s 4h 2c 3d")
    # A flush and a straight together, not a straight flush: the flush.
    assert category(strength("5h 6h 7c 8h 9d Kh 2h")) is HandCategory.FLUSH
    # Off-suit cards do not join a flush's straight: 2c-6h and 3h-7d are only straights.
    assert describe(strength("3h 4h 5h 6h 9h 2c 7d")) == "flush, nine high"
    # Suited straight 5-9 plus a ten off suit: the straight flush beats the ten-high straight.
    assert describe(strength("5h 6h 7h 8h 9h Tc 2d")) == "straight flush, nine high"


# --- RANK-4: ties inside a category ----------------------------------------------------

#: (better, worse) pairs, each differing only in the tie-break the rule names.
RANK_4_ORDER = [
    ("straight_flush_high_card", "5d 6d 7d 8d 9d", "4s 5s 6s 7s 8s"),
    ("straight_flush_wheel_is_five_high", "2c 3c 4c 5c 6c", "Ac 2c 3c 4c 5c"),
    ("four_of_a_kind_rank_of_four", "3h 3c 3d 3s 2h", "2h 2c 2d 2s Ah"),
    ("four_of_a_kind_kicker", "9h 9c 9d 9s Kh", "9h 9c 9d 9s Qh"),
    ("full_house_rank_of_three", "3h 3c 3d 2s 2h", "2h 2c 2d As Ah"),
    ("full_house_rank_of_pair", "9h 9c 9d Ks Kh", "9h 9c 9d Qs Qh"),
    ("flush_first_card", "Ah 6h 4h 3h 2h", "Kh Qh Jh 9h 8h"),
    ("flush_second_card", "Ah Qh 4h 3h 2h", "Ah Jh Th 9h 8h"),
    ("flush_third_card", "Ah Kh Jh 3h 2h", "Ah Kh Th 9h 8h"),
    ("flush_fourth_card", "Ah Kh Qh 9h 2h", "Ah Kh Qh 8h 7h"),
    ("flush_fifth_card", "Ah Kh Qh Jh 3h", "Ah Kh Qh Jh 2h"),
    ("straight_high_card", "7c 8d 9h Ts Jc", "6c 7d 8h 9s Tc"),
    ("three_of_a_kind_rank_of_three", "3h 3c 3d 4s 2h", "2h 2c 2d As Kh"),
    ("three_of_a_kind_higher_kicker", "7h 7c 7d Ks 2h", "7h 7c 7d Qs Jh"),
    ("three_of_a_kind_lower_kicker", "7h 7c 7d Ks 3h", "7h 7c 7d Ks 2h"),
    ("two_pair_higher_pair", "Kh Kc 3d 3s 2h", "Qh Qc Jd Js Ah"),
    ("two_pair_lower_pair", "Kh Kc 6d 6s 2h", "Kh Kc 5d 5s Ah"),
    ("two_pair_kicker", "Kh Kc 6d 6s Ah", "Kh Kc 6d 6s Qh"),
    ("pair_rank_of_pair", "3h 3c 4d 5s 7h", "2h 2c Ad Ks Qh"),
    ("pair_first_kicker", "8h 8c Ad 3s 2h", "8h 8c Kd Qs Jh"),
    ("pair_second_kicker", "8h 8c Ad Qs 2h", "8h 8c Ad Js Th"),
    ("pair_third_kicker", "8h 8c Ad Qs 3h", "8h 8c Ad Qs 2h"),
    ("high_card_first_card", "Ah 6c 4d 3s 2h", "Kh Qc Jd 9s 8h"),
    ("high_card_second_card", "Ah Qc 4d 3s 2h", "Ah Jc Td 9s 8h"),
    ("high_card_third_card", "Ah Kc Jd 3s 2h", "Ah Kc Td 9s 8h"),
    ("high_card_fourth_card", "Ah Kc Qd 9s 2h", "Ah Kc Qd 8s 7h"),
    ("high_card_fifth_card", "Ah Kc Qd Js 3h", "Ah Kc Qd Js 2h"),
]


@pytest.mark.parametrize(
    ("better", "worse"),
    [pytest.param(b, w, id=name) for name, b, w in RANK_4_ORDER],
)
def test_rank_4_tie_breaks(better: str, worse: str) -> None:
    high, low = strength(better), strength(worse)
    assert category(high) is category(low)
    assert high > low


#: Hands that tie: the same ranks in the same category, or a difference that cannot play.
RANK_4_TIES = [
    ("straight_ignores_order", "2c 3d 4h 5s 6c", "6d 5h 4s 3c 2d"),
    ("four_of_a_kind_sixth_card_does_not_play", "9h 9c 9d 9s Kh Qh 2c", "9h 9c 9d 9s Kd 3c 2h"),
    ("two_pair_third_pair_only_kicks", "Kh Kc 6d 6s 4h 4c 2d", "Kd Ks 6h 6c 4d 3c 2h"),
    ("pair_sixth_card_does_not_play", "8h 8c Ad Qs 3h 2c", "8d 8s Ah Qc 3d"),
    ("high_card_two_lowest_do_not_play", "Ah Kc Qd Js 9h 3c 2d", "Ad Kh Qc Jd 9s 4h 3h"),
]


@pytest.mark.parametrize(
    ("first", "second"),
    [pytest.param(a, b, id=name) for name, a, b in RANK_4_TIES],
)
def test_rank_4_ties(first: str, second: str) -> None:
    assert strength(first) == strength(second)


def test_rank_5_suits_never_decide() -> None:
    assert strength("As Kh Qd Jc 9s") == strength("Ah Kd Qc Js 9h")
    assert strength("Ah Kh Qh Jh 9h") == strength("As Ks Qs Js 9s")
    assert strength("Th Jh Qh Kh Ah") == strength("Tc Jc Qc Kc Ac")
    assert strength("8h 8c Ad Qs 3h") == strength("8s 8d Ac Qh 3s")


# --- CARD-2: Hold'em, the best five of seven -------------------------------------------


def test_card_2_holdem_zero_hole_cards_board_plays() -> None:
    board = "Ts Jh Qd Kc Ad"
    first, second = strength("2c 3d " + board), strength("4h 4s " + board)
    assert first == second == strength(board)
    assert describe(first) == "straight, ace high"


def test_card_2_holdem_one_hole_card() -> None:
    board = "Kh Kd 7s 4c 2h"
    ace, queen = strength("Ac 3d " + board), strength("Qc 3s " + board)
    assert ace > queen
    assert describe(ace) == "pair of kings"
    assert best_five(parse_cards("Ac 3d " + board)) == parse_cards("Kh Kd Ac 7s 4c")


def test_card_2_holdem_two_hole_cards() -> None:
    board = "9h 6d 2c Kc 3s"
    value = strength("9c 6s " + board)
    assert describe(value) == "two pair, nines and sixes, king kicker"
    assert value > strength("Kh Qd " + board)
    assert best_five(parse_cards("9c 6s " + board)) == parse_cards("9c 9h 6s 6d Kc")


def test_card_2_six_card_hands() -> None:
    assert describe(strength("Ah Kh Qh Jh 2c 9h")) == "flush, ace high"
    assert strength("Ah Kh Qh Jh 2c 9h") == strength("Ah Kh Qh Jh 9h")


def test_card_2_wrong_number_of_cards_is_rejected() -> None:
    for count in (0, 1, 4, 8, 9):
        with pytest.raises(CardError):
            evaluate(DECK[:count])
    for count in range(5):
        with pytest.raises(CardError):
            evaluate(parse_cards("3c Kd Ah 7s")[:count])
    with pytest.raises(CardError):  # eight cards with a flush take the flush path
        evaluate(parse_cards("2h 4h 6h 8h Th Qh 2c 3d"))
    with pytest.raises(CardError):
        best_five(parse_cards("2h 4h 6h 8h"))


def test_card_2_best_five_ignores_suited_cards_that_do_not_play() -> None:
    hand = parse_cards("Ah 2h 9h Jh Kh 4h 3c")
    assert best_five(hand) == parse_cards("Ah Kh Jh 9h 4h")
    assert describe(evaluate(hand)) == "flush, ace high"


def test_card_2_best_five_rejects_duplicates() -> None:
    with pytest.raises(CardError):
        best_five(parse_cards("Ah Ah Kd Qc Js"))


def test_rank_1_best_five_shows_the_wheel_ace_last() -> None:
    assert best_five(parse_cards("3d Ah 5h 2c 4s Kd")) == parse_cards("5h 4s 3d 2c Ah")


# --- CARD-3: Omaha, exactly two hole cards and three board -----------------------------


def test_card_3_example_1_omaha_not_a_flush() -> None:
    hole, board = parse_cards("A♣ K♦ T♦ 8♥"), parse_cards("K♣ 9♣ 6♣ 6♥ Q♣")
    value = evaluate_omaha(hole, board)
    assert category(value) is HandCategory.TWO_PAIR
    assert describe(value) == "two pair, kings and sixes, ace kicker"
    assert best_five_omaha(hole, board) == parse_cards("K♦ K♣ 6♣ 6♥ A♣")
    # Under the Hold'em rule (CARD-2) the A♣ and four board clubs would be a flush.
    assert category(evaluate([*hole[:1], *board])) is HandCategory.FLUSH


def test_card_3_example_2_omaha_best_hand() -> None:
    hole, board = parse_cards("A♠ K♦ T♦ 8♥"), parse_cards("K♠ 9♣ 6♣ 6♥ Q♣")
    assert best_five_omaha(hole, board) == parse_cards("K♦ K♠ 6♣ 6♥ A♠")
    assert describe(evaluate_omaha(hole, board)) == "two pair, kings and sixes, ace kicker"
    assert evaluate_omaha(hole, board) == omaha("A♣ K♦ T♦ 8♥", "K♣ 9♣ 6♣ 6♥ Q♣")  # RANK-5


def test_card_3_example_3_omaha_not_a_full_house() -> None:
    hole, board = parse_cards("T♥ 9♥ 7♣ 6♣"), parse_cards("K♠ K♣ T♣ T♦ 5♦")
    value = evaluate_omaha(hole, board)
    assert category(value) is HandCategory.THREE_OF_A_KIND
    assert describe(value) == "three of a kind, tens"
    assert best_five_omaha(hole, board) == parse_cards("T♥ T♣ T♦ K♠ 9♥")


def test_card_3_two_suited_hole_cards_and_three_suited_board_is_a_flush() -> None:
    assert describe(omaha("Ah 2h Kc Kd", "9h 6h 3h Ks 2c")) == "flush, ace high"
    # Three hole cards of the suit and two on the board: not a flush (only two may play).
    assert category(omaha("Ah 2h 5h Kd", "9h 6h 3c Ks 2c")) is not HandCategory.FLUSH


def test_card_3_board_four_of_a_kind_does_not_play() -> None:
    hole, board = parse_cards("Ah Kd 3c 2s"), parse_cards("9h 9c 9d 9s 4h")
    assert describe(evaluate_omaha(hole, board)) == "three of a kind, nines"
    assert best_five_omaha(hole, board) == parse_cards("9h 9c 9d Ah Kd")
    # With a pair in the hand, three of the board's nines make a full house, never quads.
    assert describe(omaha("Ah Ad 3c 2s", "9h 9c 9d 9s 4h")) == "full house, nines over aces"


def test_card_3_flop_and_turn_boards() -> None:
    assert describe(omaha("Ah Ad 7c 2s", "As Kh Kd")) == "full house, aces over kings"
    assert describe(omaha("8h 9h 2c 2s", "Th Jh Qh 3c")) == "straight flush, queen high"


def test_card_3_wrong_counts_are_rejected() -> None:
    with pytest.raises(CardError):
        omaha("Ah", "9h 6h 3h Ks 2c")
    with pytest.raises(CardError):
        omaha("Ah Kd Qc Js", "9h 6h")
    with pytest.raises(CardError):
        best_five_omaha(parse_cards("Ah Ah Qc Js"), parse_cards("9h 6h 3h"))


# --- describe ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hand", "words"),
    [
        ("Kh Kc 6d 6s Ah 2c 3d", "two pair, kings and sixes, ace kicker"),
        ("Ah 2c 3d 4s 5h Kc Kd", "straight, five high"),
        ("Th Jh Qh Kh Ah 2c 2d", "royal flush"),
        ("Th Tc Td 4s 4h 4c 2d", "full house, tens over fours"),
        ("Qh Qc Qd Qs 4h", "four of a kind, queens"),
        ("Ah 9h 6h 4h 2h Kc", "flush, ace high"),
        ("7h 7c 7d As 4h", "three of a kind, sevens"),
        ("8h 8c Ad 4s 2h 9c Jd", "pair of eights"),
        ("Kh 9c 7d 4s 2h", "high card, king"),
        ("5s 6s 7s 8s 9s", "straight flush, nine high"),
        ("6h 6c 6d 2s 2h", "full house, sixes over twos"),
    ],
)
def test_describe(hand: str, words: str) -> None:
    assert describe(strength(hand)) == words


def test_category_rejects_a_strength_that_is_not_one() -> None:
    with pytest.raises(ValueError):
        category(9 << 20)


# --- against an oracle ------------------------------------------------------------------

_TREYS_EVALUATOR = treys.Evaluator()
_TREYS_CARD = [treys.Card.new(str(card)) for card in DECK]


def treys_rank(cards: list[int]) -> int:
    """treys' rank of a hand: 1 is the royal flush, lower is better."""
    converted = [_TREYS_CARD[c] for c in cards]
    return int(_TREYS_EVALUATOR.evaluate(converted[:2], converted[2:]))


two_hands = st.lists(st.integers(0, 51), min_size=14, max_size=14, unique=True)


@settings(max_examples=400, deadline=None)
@given(two_hands)
def test_rank_4_order_and_ties_match_treys(cards: list[int]) -> None:
    first, second = cards[:7], cards[7:]
    ours = sign(evaluate(first) - evaluate(second))
    theirs = sign(treys_rank(second) - treys_rank(first))
    assert ours == theirs, (format_cards(first), format_cards(second))


@st.composite
def hands_with_a_flush(draw: st.DrawFn) -> list[int]:
    """Seven cards, five to seven of them of one suit."""
    suit = draw(st.integers(0, 3))
    suited = draw(st.lists(st.integers(0, 12), min_size=5, max_size=7, unique=True))
    cards = [rank * 4 + suit for rank in suited]
    others = [card for card in range(52) if card not in cards]
    extra = draw(st.lists(st.sampled_from(others), min_size=7 - len(cards),
                          max_size=7 - len(cards), unique=True))
    return draw(st.permutations(cards + extra))


@settings(max_examples=300, deadline=None)
@given(hands_with_a_flush(), hands_with_a_flush())
def test_rank_3_flush_hands_match_treys(first: list[int], second: list[int]) -> None:
    assert category(evaluate(first)) >= HandCategory.FLUSH
    ours = sign(evaluate(first) - evaluate(second))
    assert ours == sign(treys_rank(second) - treys_rank(first))
    assert evaluate(first) == max(evaluate(five) for five in combinations(first, 5))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 51), min_size=7, max_size=7, unique=True))
def test_card_2_best_of_seven_is_best_of_its_fives(cards: list[int]) -> None:
    best = max(evaluate(five) for five in combinations(cards, 5))
    assert evaluate(cards) == best
    assert evaluate(best_five(cards)) == best
    assert evaluate(cards[:6]) == max(evaluate(five) for five in combinations(cards[:6], 5))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(0, 51), min_size=18, max_size=18, unique=True))
def test_card_3_omaha_order_matches_pokerkit(cards: list[int]) -> None:
    board = cards[:5]
    first, second = cards[5:9], cards[9:13]
    ours = sign(evaluate_omaha(first, board) - evaluate_omaha(second, board))
    a = pokerkit.OmahaHoldemHand.from_game(format_cards(first), format_cards(board))
    b = pokerkit.OmahaHoldemHand.from_game(format_cards(second), format_cards(board))
    theirs = (a > b) - (a < b)
    assert ours == theirs, (format_cards(first), format_cards(second), format_cards(board))
    best = best_five_omaha(first, board)
    assert evaluate(best) == evaluate_omaha(first, board)
    assert len(set(best) & set(first)) == 2


# --- exhaustive: every five-card hand ---------------------------------------------------

FIVE_CARD_TOTALS = {
    HandCategory.STRAIGHT_FLUSH: 40,
    HandCategory.FOUR_OF_A_KIND: 624,
    HandCategory.FULL_HOUSE: 3744,
    HandCategory.FLUSH: 5108,
    HandCategory.STRAIGHT: 10200,
    HandCategory.THREE_OF_A_KIND: 54912,
    HandCategory.TWO_PAIR: 123552,
    HandCategory.PAIR: 1098240,
    HandCategory.HIGH_CARD: 1302540,
}
#: Distinct hand values per category: 7,462 in all.
FIVE_CARD_CLASSES = {
    HandCategory.STRAIGHT_FLUSH: 10,
    HandCategory.FOUR_OF_A_KIND: 156,
    HandCategory.FULL_HOUSE: 156,
    HandCategory.FLUSH: 1277,
    HandCategory.STRAIGHT: 10,
    HandCategory.THREE_OF_A_KIND: 858,
    HandCategory.TWO_PAIR: 858,
    HandCategory.PAIR: 2860,
    HandCategory.HIGH_CARD: 1277,
}


def test_rank_2_all_2598960_five_card_hands_by_category() -> None:
    by_strength = Counter(map(evaluate, combinations(DECK, 5)))
    totals: Counter[HandCategory] = Counter()
    classes: Counter[HandCategory] = Counter()
    for value, count in by_strength.items():
        totals[category(value)] += count
        classes[category(value)] += 1
    assert sum(totals.values()) == 2_598_960
    assert dict(totals) == FIVE_CARD_TOTALS
    assert dict(classes) == FIVE_CARD_CLASSES
    assert len(by_strength) == 7462
    assert describe(max(by_strength)) == "royal flush"
    assert min(by_strength) == strength("7s 5h 4d 3c 2s")


def test_rank_4_every_five_card_class_is_in_order() -> None:
    """The 7,462 classes sorted by strength agree with treys' ranks 7462..1 one to one."""
    seen: dict[int, list[int]] = {}
    for five in combinations(range(52), 5):
        value = evaluate(five)
        if value not in seen:
            seen[value] = list(five)
    ordered = sorted(seen)
    assert [treys_rank(seen[value]) for value in ordered] == list(range(7462, 0, -1))


# --- the benchmark harness (its figures are reported by `pitboss bench engine`) ----------


def test_benchmark_run_times_every_evaluator_on_the_same_hands() -> None:
    rows = run(hands=300, seed=7, repeats=1)
    assert [row["evaluator"] for row in rows] == ["pitboss", "treys", "phevaluator", "eval7"]
    for row in rows:
        assert row["available"], row["evaluator"]
        assert row["hands"] == 300
        assert row["evals_per_s"] > 0
        assert row["agrees"], row["evaluator"]
    assert rows[0]["pitboss_ratio"] == 1.0
