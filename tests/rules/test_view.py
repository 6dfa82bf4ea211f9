"""The public view of a hand (controller/rules/view.py), rule by rule: who acts, what they
must call, the raise bounds and the legal actions, the pots, with antes, straddles, posts,
heads-up, short blinds and side pots; then over random hands against the engine itself
and against PokerKit (the test oracle). Players are position indices: 0 is first left of
the button, the last is the button; heads-up 0 is the big blind."""

from __future__ import annotations

import dataclasses
import enum
import importlib.util
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.rules.cards import parse_cards
from controller.rules.config import LIVE_CASH, LIVE_TOURNAMENT, RulesProfile, Variant
from controller.rules.errors import IllegalActionError
from controller.rules.game import GameConfig, Post, Straddle
from controller.rules.hand import Hand, Phase
from controller.rules.pots import Pot
from controller.rules.showdown import Award
from controller.rules.view import HandView, Street, view_of
from tests.needs import need_module
from tests.rules.randplay import apply_step, choose_step, deal_hole_cards, shuffled_deck
from tests.rules.test_hand_properties import configs as any_configs
from tests.rules.test_hand_properties import profiles

if importlib.util.find_spec("pokerkit") is not None:  # the oracle; else its tests skip
    from tests.rules.test_differential_pokerkit import configs as oracle_configs
    from tests.rules.test_differential_pokerkit import play_both

NT, PO, FT = Variant.NT, Variant.PO, Variant.FT
# A fixed deal: hole cards from the front, the board from index 40 on.
CARDS = parse_cards("AsKsQsJsTs9s8s7s6s5s4s3s2sAhKhQhJhTh9h8h7h6h5h4h3h2h"
                    "AdKdQdJdTd9d8d7d6d5d4d3d2dAcKcQcJcTc9c8c7c6c5c4c3c2c")


def hand_of(stacks: list[int], sb: int = 1, bb: int = 2, variant: Variant = NT,
            profile: RulesProfile = LIVE_CASH, **kw: Any) -> Hand:
    """A hand with the forced bets posted and no cards dealt yet."""
    return Hand(GameConfig(variant, tuple(stacks), sb, bb, **kw), profile)


def dealt(stacks: list[int], sb: int = 1, bb: int = 2, variant: Variant = NT,
          profile: RulesProfile = LIVE_CASH, **kw: Any) -> Hand:
    """A hand with hole cards dealt (known, distinct) and betting started."""
    hand = hand_of(stacks, sb, bb, variant, profile, **kw)
    per = 4 if variant is PO else 2
    for p in range(len(stacks)):
        hand.deal_hole(p, CARDS[p * per:(p + 1) * per])
    return hand


def board(hand: Hand, count: int) -> None:
    start = 40 + len(hand.board)
    hand.deal_board(CARDS[start:start + count])


def decision(view: HandView) -> tuple[object, ...]:
    """Who acts and what they may do, in one tuple."""
    return (view.to_act, view.to_call, view.min_raise_to, view.max_raise_to,
            view.can_check, view.can_call, view.can_bet_or_raise, view.can_fold)


def pots(view: HandView) -> list[tuple[int, tuple[int, ...]]]:
    return [(p.amount, p.eligible) for p in view.pots]


# ---------------------------------------------------------------- the value itself
def test_the_view_is_frozen_plain_data_without_hole_cards() -> None:
    hand = dealt([100] * 3)
    view = view_of(hand)
    with pytest.raises(dataclasses.FrozenInstanceError):
        view.to_act = 1  # type: ignore[misc]
    assert "hole" not in {f.name for f in dataclasses.fields(HandView)}

    def plain(value: object) -> bool:  # what a pydantic model copies field by field
        if isinstance(value, tuple):
            return all(plain(v) for v in value)
        if isinstance(value, (Pot, Award)):
            return all(plain(getattr(value, f.name)) for f in dataclasses.fields(value))
        return value is None or isinstance(value, (int, bool, enum.StrEnum))

    assert all(plain(getattr(view, f.name)) for f in dataclasses.fields(HandView))
    hole = {c for cards in hand.hole if cards for c in cards}
    assert not hole & set(view.board)


def test_deal_1_while_hole_cards_are_dealt_nobody_acts_and_the_blinds_are_bets() -> None:
    view = view_of(hand_of([100] * 3))
    assert (view.phase, view.street) == (Phase.DEAL_HOLE, Street.PREFLOP)
    assert view.to_act is None and view.to_call == 0 and not view.can_fold
    assert view.min_raise_to is None and not view.can_bet_or_raise
    assert view.bets == (1, 2, 0) and view.stacks == (99, 98, 100)
    assert view.current_bet == 2 and view.pots == () and view.pot_total == 3


# ---------------------------------------------------------------- who acts
def test_deal_2_first_left_of_the_big_blind_preflop_then_left_of_the_button() -> None:
    hand = dealt([100] * 4)
    view = view_of(hand)
    assert (view.phase, view.to_act, view.to_call) == (Phase.BETTING, 2, 2)
    for _ in range(3):
        hand.call()
    hand.check()
    view = view_of(hand)
    assert (view.phase, view.street, view.to_act) == (Phase.DEAL_BOARD, Street.PREFLOP, None)
    assert view.bets == (0, 0, 0, 0) and view.current_bet == 0
    assert pots(view) == [(8, (0, 1, 2, 3))]
    board(hand, 3)
    view = view_of(hand)
    assert (view.street, view.to_act, view.board) == (Street.FLOP, 0, tuple(CARDS[40:43]))


def test_btn_3_heads_up_button_posts_small_blind_and_acts_first_preflop_last_after() -> None:
    hand = dealt([100, 100])
    view = view_of(hand)
    assert view.bets == (2, 1)  # index 1 is the button
    assert decision(view) == (1, 1, 4, 100, False, True, True, True)
    hand.call()
    view = view_of(hand)
    assert decision(view) == (0, 0, 4, 100, True, False, True, True)  # BLIND-2: the option
    hand.check()
    board(hand, 3)
    assert view_of(hand).to_act == 0  # the big blind acts first after the flop
    hand.check()
    assert view_of(hand).to_act == 1


def test_blind_2_the_big_blind_has_the_option_after_everyone_calls() -> None:
    hand = dealt([100] * 4)
    for _ in range(3):
        hand.call()
    assert decision(view_of(hand)) == (1, 0, 4, 100, True, False, True, True)


def test_blind_2_bet_1_the_option_stands_after_calls_and_all_ins_for_at_most_the_blind(
) -> None:
    # The small blind is all-in for less than the blind, the next player all-in for
    # exactly the blind; the button calls: the big blind still checks or raises.
    hand = dealt([1, 100, 2, 100])
    hand.call()  # player 2: all-in for the blind
    hand.call()  # the button
    view = view_of(hand)
    assert view.all_in == (True, False, True, False)
    assert decision(view) == (1, 0, 4, 100, True, False, True, True)
    hand.bet_or_raise_to(10)
    assert view_of(hand).to_act == 3  # the raise reopens the action for the caller


def test_bet_1_blind_2_a_big_blind_facing_only_all_ins_for_no_more_than_the_blind_acts(
) -> None:
    # Nobody can answer a raise, but the big blind still has its option (BET-1, BLIND-2):
    # the view shows it to act, to check or fold; dealing on without the check is legal
    # too (RULES.md Appendix C).
    hand = dealt([1, 100, 2])
    hand.call()  # the button, all-in for the blind
    view = view_of(hand)
    assert (view.phase, view.to_act, view.all_in) == (Phase.BETTING, 1, (True, False, True))
    assert decision(view) == (1, 0, None, None, True, False, False, True)
    assert view.bets == (1, 2, 2) and pots(view) == []  # the bets are still in front
    hand.check()
    view = view_of(hand)
    assert (view.phase, view.to_act) == (Phase.DEAL_BOARD, None)
    assert pots(view) == [(3, (0, 1, 2)), (2, (1, 2))]


def test_bet_1_nobody_acts_during_an_all_in_runout() -> None:
    hand = dealt([50, 50, 50])
    hand.bet_or_raise_to(50)
    hand.call()
    hand.call()
    for count in (3, 1):
        view = view_of(hand)
        assert view.phase is Phase.DEAL_BOARD and view.to_act is None
        assert view.all_in == (True, True, True) and view.pot_total == 150
        board(hand, count)


# ---------------------------------------------------------------- short blinds, posts
def test_blind_3_a_short_all_in_big_blind_still_leaves_the_full_blind_to_call() -> None:
    hand = dealt([100, 1, 100], 2, 4)
    view = view_of(hand)
    assert view.bets == (2, 1, 0) and view.all_in == (False, True, False)
    assert view.current_bet == 4
    assert decision(view) == (2, 4, 8, 100, False, True, True, True)


def test_blind_3_a_short_all_in_small_blind_posts_what_it_has() -> None:
    hand = dealt([1, 100, 100], 2, 4)
    view = view_of(hand)
    assert view.bets == (1, 4, 0) and view.all_in == (True, False, False)
    assert decision(view) == (2, 4, 8, 100, False, True, True, True)


def test_blind_4_a_live_post_is_a_bet_and_keeps_the_option() -> None:
    hand = dealt([100] * 4, posts=(Post(3, 2),))
    view = view_of(hand)
    assert view.bets == (1, 2, 0, 2) and view.to_act == 2
    hand.call()
    assert decision(view_of(hand)) == (3, 0, 4, 100, True, False, True, True)


def test_blind_5_a_dead_post_is_in_the_pot_not_a_bet() -> None:
    view = view_of(dealt([100] * 4, posts=(Post(2, 2, 1),)))
    assert view.bets == (1, 2, 2, 0) and pots(view) == [(1, (0, 1, 2, 3))]
    assert view.pot_total == 6  # the poster is first to act with the blind matched:
    assert decision(view) == (2, 0, 4, 99, True, False, True, True)


# ---------------------------------------------------------------- antes, straddles
def test_ante_4_antes_are_in_the_pot_and_not_in_the_bets_or_the_call() -> None:
    view = view_of(dealt([100] * 4, antes=(1, 1, 1, 1)))
    assert pots(view) == [(4, (0, 1, 2, 3))] and view.bets == (1, 2, 0, 0)
    assert view.pot_total == 7 and view.stacks == (98, 97, 99, 99)
    assert decision(view) == (2, 2, 4, 99, False, True, True, True)


def test_ante_2_big_blind_ante_is_dead_money_in_the_main_pot() -> None:
    view = view_of(dealt([100] * 4, 1, 2, big_blind_ante=2))
    assert pots(view) == [(2, (0, 1, 2, 3))] and view.bets == (1, 2, 0, 0)
    assert view.stacks == (99, 96, 100, 100)
    assert decision(view) == (2, 2, 4, 100, False, True, True, True)


def test_ante_5_a_short_big_blind_pays_the_blind_first_then_the_ante() -> None:
    view = view_of(dealt([100, 150, 100], 50, 100, big_blind_ante=100))
    assert view.bets == (50, 100, 0) and view.stacks[1] == 0 and view.all_in[1]
    assert pots(view) == [(50, (0, 1, 2))] and view.to_call == 100


def test_straddle_2_utg_straddle_acts_last_and_has_the_option() -> None:
    hand = dealt([100] * 5, straddle=Straddle.UTG)
    view = view_of(hand)
    assert view.bets == (1, 2, 4, 0, 0)
    assert decision(view) == (3, 4, 8, 100, False, True, True, True)  # STRADDLE-5
    for _ in range(4):
        hand.call()
    assert decision(view_of(hand)) == (2, 0, 8, 100, True, False, True, True)


def test_straddle_3_mississippi_small_blind_acts_first_and_the_button_last() -> None:
    hand = dealt([100] * 4, straddle=Straddle.BUTTON)
    assert view_of(hand).to_act == 0 and view_of(hand).to_call == 3
    for _ in range(3):
        hand.call()
    assert decision(view_of(hand)) == (3, 0, 8, 100, True, False, True, True)


# ---------------------------------------------------------------- bet sizes: NT, PO, FT
def test_bet_4_example_1_the_minimum_raise_follows_the_largest_increment() -> None:
    hand = dealt([100] * 3)
    hand.call(); hand.call(); hand.check()  # noqa: E702
    board(hand, 3)
    assert decision(view_of(hand)) == (0, 0, 2, 98, True, False, True, True)  # BET-3
    hand.bet_or_raise_to(5)
    hand.bet_or_raise_to(15)
    assert decision(view_of(hand)) == (2, 15, 25, 98, False, True, True, True)


def test_bet_6_a_call_for_less_than_the_bet_is_all_the_player_has() -> None:
    hand = dealt([100, 30, 100])
    hand.bet_or_raise_to(50)
    hand.fold()
    view = view_of(hand)
    assert view.folded == (True, False, False)
    assert decision(view) == (1, 28, None, None, False, True, False, True)


def test_bet_8_a_short_all_in_does_not_reopen_the_betting() -> None:
    hand = dealt([100, 100, 100, 13])
    hand.bet_or_raise_to(10)  # player 2: increment 8
    hand.bet_or_raise_to(13)  # the button: all-in, 3 more, short of a full raise
    view = view_of(hand)
    assert decision(view) == (0, 12, 21, 100, False, True, True, True)  # not acted yet
    hand.fold()
    hand.fold()
    assert decision(view_of(hand)) == (2, 3, None, None, False, True, False, True)


def test_bet_8_an_all_in_short_of_the_minimum_raise_is_its_only_size() -> None:
    hand = dealt([100, 100, 3])
    assert decision(view_of(hand)) == (2, 2, 3, 3, False, True, True, True)
    hand.bet_or_raise_to(3)  # the button: all-in for one more, short of a raise to 4
    view = view_of(hand)
    assert view.all_in == (False, False, True) and view.current_bet == 3
    assert decision(view) == (0, 2, 5, 100, False, True, True, True)


def test_pl_3_example_1_the_first_preflop_raise_is_at_most_to_seven() -> None:
    view = view_of(dealt([100] * 3, 1, 2, PO))
    assert decision(view) == (2, 2, 4, 7, False, True, True, True)


def test_pl_3_example_2_after_a_flop_bet_of_50_into_100_the_maximum_is_250() -> None:
    hand = dealt([500, 500], 25, 50, PO)
    hand.call()
    hand.check()
    board(hand, 3)
    hand.bet_or_raise_to(50)
    view = view_of(hand)
    assert pots(view) == [(100, (0, 1))] and view.bets == (50, 0) and view.pot_total == 150
    assert decision(view) == (1, 50, 100, 250, False, True, True, True)


def test_fl_1_the_bets_are_the_fixed_sizes_small_then_big() -> None:
    hand = dealt([1000] * 3, 5, 10, FT, small_bet=10, big_bet=20)
    assert decision(view_of(hand)) == (2, 10, 20, 20, False, True, True, True)
    hand.call(); hand.call(); hand.check()  # noqa: E702
    board(hand, 3)
    assert decision(view_of(hand)) == (0, 0, 10, 10, True, False, True, True)
    hand.check(); hand.check(); hand.check()  # noqa: E702
    board(hand, 1)
    assert decision(view_of(hand)) == (0, 0, 20, 20, True, False, True, True)


def test_fl_1_no_raise_once_the_cap_of_one_bet_and_three_raises_is_reached() -> None:
    hand = dealt([1000] * 3, 5, 10, FT, small_bet=10, big_bet=20)
    for total in (20, 30, 40):
        hand.bet_or_raise_to(total)
    assert decision(view_of(hand)) == (2, 20, None, None, False, True, False, True)


def test_fl_1_no_cap_heads_up() -> None:
    hand = dealt([1000] * 2, 5, 10, FT, small_bet=10, big_bet=20)
    for total in (20, 30, 40, 50):
        hand.bet_or_raise_to(total)
    assert decision(view_of(hand)) == (1, 10, 60, 60, False, True, True, True)


# ---------------------------------------------------------------- pots
def test_pot_1_example_1_a_main_pot_for_all_and_a_side_pot_for_those_who_matched() -> None:
    hand = dealt([1000, 1000, 100])
    hand.bet_or_raise_to(100)  # the button, all-in
    hand.bet_or_raise_to(1000)  # the small blind, all-in
    view = view_of(hand)  # the round is still on: the bets are in front of the players
    assert view.pots == () and view.bets == (1000, 2, 100) and view.pot_total == 1102
    assert view.to_act == 1 and view.to_call == 998
    hand.call()
    view = view_of(hand)
    assert pots(view) == [(300, (0, 1, 2)), (1800, (0, 1))]
    assert view.to_act is None and view.all_in == (True, True, True)


def test_pot_1_a_folded_player_can_win_nothing_but_their_chips_stay() -> None:
    hand = dealt([100] * 3, antes=(1, 1, 1))
    hand.bet_or_raise_to(6)
    hand.fold()
    hand.call()
    view = view_of(hand)
    assert view.folded == (True, False, False) and pots(view) == [(16, (1, 2))]


def test_pot_3_the_uncalled_part_of_a_bet_never_shows_as_a_pot() -> None:
    hand = dealt([100, 100, 40])
    hand.bet_or_raise_to(40)  # the button, all-in
    hand.bet_or_raise_to(90)  # the small blind
    hand.fold()
    view = view_of(hand)
    assert pots(view) == [(82, (0, 2))] and view.bets == (0, 0, 0)
    assert view.stacks == (60, 98, 0)  # 50 of the 90 came back


def test_pot_2_after_the_hand_the_chips_are_in_the_stacks_and_the_awards_say_how() -> None:
    hand = dealt([100] * 3)
    hand.call(); hand.call(); hand.check()  # noqa: E702
    for count in (3, 1, 1):
        board(hand, count)
        hand.check(); hand.check(); hand.check()  # noqa: E702
    while not hand.is_complete:
        hand.show()
    view = view_of(hand)
    assert hand.is_complete and view.phase is Phase.COMPLETE and view.street is Street.RIVER
    assert view.pots == () and view.pot_total == 0 and view.to_act is None
    assert sum(view.stacks) + view.rake == 300 and view.awards == tuple(hand.awards)
    assert view.all_in == (False, False, False)


def test_show_2_at_the_showdown_nobody_acts_and_the_view_names_who_shows() -> None:
    hand = dealt([100] * 3, profile=LIVE_CASH)
    hand.call(); hand.call(); hand.check()  # noqa: E702
    for count in (3, 1, 1):
        board(hand, count)
        hand.check(); hand.check()  # noqa: E702
        if len(hand.board) < 5:
            hand.check()
    hand.bet_or_raise_to(10)  # the button bets the river: it shows first
    hand.call(); hand.call()  # noqa: E702
    view = view_of(hand)
    assert view.phase is Phase.SHOWDOWN and view.street is Street.RIVER
    assert view.to_act is None and not view.can_fold
    assert view.next_to_show == 2 and pots(view) == [(36, (0, 1, 2))]
    hand.show()
    assert view_of(hand).next_to_show == 0
    hand.muck()  # SHOW-10: player 0 gives up the claim
    view = view_of(hand)
    assert view.mucked == (True, False, False) and view.folded == (False, False, False)
    assert view.next_to_show == 1 and pots(view) == [(36, (1, 2))]


def test_live_17_a_killed_hand_shows_as_folded_and_leaves_its_chips() -> None:
    hand = dealt([100] * 4)
    hand.call()
    hand.kill(0)
    view = view_of(hand)
    assert view.folded == (True, False, False, False) and view.to_act == 3
    assert view.bets == (1, 2, 2, 0) and view.pot_total == 5


# ---------------------------------------------------------------- random hands
def check_against_the_engine(hand: Hand, view: HandView, total: int) -> None:
    """The view says what the engine enforces, and the chips add up."""
    assert view.to_act == hand.actor and view.phase is hand.phase
    assert view.can_check == hand.can_check() and view.can_call == hand.can_call()
    assert view.can_fold == hand.can_fold()
    if view.can_call:
        assert hand.verify_call() == view.to_call
    low, high = view.min_raise_to, view.max_raise_to
    assert view.can_bet_or_raise == (low is not None) == (high is not None)
    if low is not None and high is not None:
        assert low <= high
        assert hand.can_bet_or_raise_to(low) and hand.can_bet_or_raise_to(high)
        assert not hand.can_bet_or_raise_to(low - 1)
        assert not hand.can_bet_or_raise_to(high + 1)
    elif view.to_act is not None:
        p = view.to_act
        assert not hand.can_bet_or_raise_to(hand.stacks[p] + hand.bets[p])
        assert not hand.can_bet_or_raise_to(hand.current_bet + hand.min_increment)
    if view.to_act is None:
        assert view.to_call == 0 and not (view.can_check or view.can_call or view.can_fold)
    assert sum(view.stacks) + view.pot_total + view.rake == total
    assert sum(p.amount for p in view.pots) + sum(view.bets) == view.pot_total
    for pot in view.pots:
        assert pot.amount > 0 and pot.eligible
        assert not any(view.folded[i] or hand.mucked[i] for i in pot.eligible)
    assert all(not view.stacks[i] for i, a in enumerate(view.all_in) if a)
    if hand.phase is Phase.DEAL_BOARD or hand.phase is Phase.SHOWDOWN:
        # POT-1: between rounds, the pots the engine settles with (ANTE-2/4, BLIND-5: the
        # big blind ante and dead posts in the main pot in both)
        assert view.pots == tuple(hand.pots())
    assert view.next_to_show == hand.next_to_show
    assert view.board == tuple(hand.board)


@settings(max_examples=500, deadline=None)
@given(config=any_configs(), profile=profiles, seed=st.integers(0, 2**32))
def test_bet_1_the_view_says_what_the_engine_enforces_at_every_step(
        config: GameConfig, profile: RulesProfile, seed: int) -> None:
    rng = random.Random(seed)
    total = sum(config.stacks)
    deck = shuffled_deck(rng)
    hand = Hand(config, profile)
    check_against_the_engine(hand, view_of(hand), total)
    deal_hole_cards(hand, deck)
    while True:
        check_against_the_engine(hand, view_of(hand), total)
        if hand.is_complete:
            break
        if hand.phase is Phase.BETTING:
            apply_step(hand, choose_step(hand, rng))
        elif hand.phase is Phase.DEAL_BOARD:
            hand.deal_board([deck.pop() for _ in range(3 if not hand.board else 1)])
        elif hand.can_muck() and rng.random() < 0.3:
            hand.muck()
        else:
            hand.show()


# ---------------------------------------------------------------- PokerKit, the oracle
def check_against_pokerkit(hand: Hand, state: Any) -> None:
    """Who acts, what they must call and the raise bounds agree with PokerKit, except
    where RULES.md Appendix C says PokerKit departs from the rulebook."""
    view = view_of(hand)
    assert view.to_act == state.actor_index
    assert view.to_call == state.checking_or_calling_amount
    assert view.can_check == (state.checking_or_calling_amount == 0)
    theirs = state.can_complete_bet_or_raise_to()
    if view.can_bet_or_raise and theirs:
        assert view.max_raise_to == state.max_completion_betting_or_raising_to_amount
        if not (hand.street == 0 and hand.config.straddle is not Straddle.NONE):
            # STRADDLE-5: after a straddle PokerKit uses its min_bet, not twice the straddle
            assert view.min_raise_to == state.min_completion_betting_or_raising_to_amount
    elif theirs:
        # BET-8/BET-9: PokerKit lets a player raise against short all-ins only; FL-1: it
        # allows a fourth raise preflop. The engine says which rule it applied.
        with pytest.raises(IllegalActionError, match=r"\((BET-8|FL-1)\)"):
            hand.verify_bet_or_raise_to(state.min_completion_betting_or_raising_to_amount)
    elif view.can_bet_or_raise:
        # FL-1 with BET-8: PokerKit counts a short all-in raise toward the cap.
        assert hand.config.variant is FT
        since = len(hand.log) - next((k for k, a in enumerate(reversed(hand.log))
                                      if type(a).__name__ == "DealBoard"), len(hand.log))
        raises = sum(type(a).__name__ == "BetRaise" for a in hand.log[since:])
        assert raises + (hand.street == 0) > hand.bet_count  # a short raise was not counted


@pytest.mark.filterwarnings("ignore:A card being dealt:UserWarning")
@pytest.mark.parametrize("variant", [NT, PO, FT], ids=["nt_bet_4", "po_pl_3", "ft_fl_1"])
@settings(max_examples=150, deadline=None)
@given(data=st.data(), seed=st.integers(0, 2**32))
def test_bet_1_who_acts_and_the_raise_bounds_agree_with_pokerkit(
        variant: Variant, data: st.DataObject, seed: int) -> None:
    need_module("pokerkit", "pokerkit is the test oracle (test extra)")
    config = data.draw(oracle_configs(variant))
    play_both(config, seed, on_decision=check_against_pokerkit)
    assert LIVE_TOURNAMENT.allin_table_at_once  # play_both's profile: no show order
