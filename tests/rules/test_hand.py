"""The hand state machine, rule by rule (RULES.md DEAL, BLIND, ANTE, STRADDLE, BET, PL, FL,
POT, SHOW). Players are position indices: 0 is first left of the button, the last is the
button; heads-up 0 is the big blind."""

from __future__ import annotations

import pytest

from controller.rules.cards import parse_cards
from controller.rules.config import LIVE_CASH, LIVE_TOURNAMENT, ONLINE, Variant
from controller.rules.errors import ConfigError, IllegalActionError
from controller.rules.game import GameConfig, Straddle
from controller.rules.hand import Hand, Phase
from controller.rules.pots import build_pots, split_pot

NT, PO, FT = Variant.NT, Variant.PO, Variant.FT
# A fixed deal: hole cards from the front, the board from index 40 on.
CARDS = parse_cards("AsKsQsJsTs9s8s7s6s5s4s3s2sAhKhQhJhTh9h8h7h6h5h4h3h2h"
                    "AdKdQdJdTd9d8d7d6d5d4d3d2dAcKcQcJcTc9c8c7c6c5c4c3c2c")


def dealt(stacks: list[int], sb: int = 1, bb: int = 2, variant: Variant = NT,
          profile=LIVE_CASH, **kw: object) -> Hand:
    """A hand with hole cards dealt (known, distinct) and betting started."""
    hand = Hand(GameConfig(variant, tuple(stacks), sb, bb, **kw), profile)  # type: ignore[arg-type]
    per = 4 if variant is PO else 2
    for p in range(len(stacks)):
        hand.deal_hole(p, CARDS[p * per:(p + 1) * per])
    return hand


def board(hand: Hand, count: int) -> None:
    start = 40 + len(hand.board)
    hand.deal_board(CARDS[start:start + count])


# ---------------------------------------------------------------- blinds and order
def test_blind_1_first_two_left_of_button_post_the_blinds() -> None:
    hand = dealt([100] * 4, 5, 10)
    assert hand.bets == [5, 10, 0, 0]
    assert hand.actor == 2  # DEAL-2: first clockwise from the big blind


def test_btn_3_heads_up_button_posts_small_blind_and_acts_first_preflop_last_after() -> None:
    hand = dealt([100, 100], 1, 2)
    assert hand.bets == [2, 1]  # index 1 is the button
    assert hand.actor == 1
    hand.call()
    hand.check()
    board(hand, 3)
    assert hand.actor == 0  # the big blind acts first after the flop


def test_blind_2_big_blind_has_the_option_after_limps() -> None:
    hand = dealt([100] * 3)
    hand.call()  # button
    hand.call()  # small blind completes
    assert hand.actor == 1 and hand.can_check() and hand.min_raise_to == 4
    hand.bet_or_raise_to(6)
    assert hand.actor == 2  # the raise reopens the action for the limpers


def test_btn_5_example_2_no_small_blind_big_blind_posts_and_next_acts_first() -> None:
    # BTN 2, no SB, BB 4: dealt left of the button are seats 4, 5, 1, 2.
    hand = dealt([100] * 4, 5, 10, no_small_blind=True)
    assert hand.bets == [10, 0, 0, 0] and hand.actor == 1
    for _ in range(3):
        hand.call()
    assert hand.actor == 0 and hand.can_check()  # the big blind's option (BLIND-2)


def test_blind_3_short_stack_posts_all_and_is_all_in() -> None:
    hand = dealt([100, 1, 100], 2, 4)
    assert hand.stacks[1] == 0 and hand.bets[1] == 1


def test_blind_3_a_short_big_blind_still_leaves_the_full_blind_to_call() -> None:
    hand = dealt([100, 1, 100], 2, 4)
    assert hand.call_amount == 4 and hand.min_raise_to == 8  # the button: call 4, raise to 8
    hand.call()
    hand.call()  # the small blind completes to 4
    assert hand.pots()[0].amount == 3 and hand.pots()[1].amount == 6  # 1 x 3, then 3 x 2


def test_deal_2_later_rounds_start_left_of_the_button() -> None:
    hand = dealt([100] * 4)
    for _ in range(3):
        hand.call()
    hand.check()
    board(hand, 3)
    assert hand.actor == 0


# ---------------------------------------------------------------- bet sizes
def test_bet_3_minimum_bet_is_the_big_blind() -> None:
    hand = dealt([100] * 3, 5, 10)
    hand.call(); hand.call(); hand.check()  # noqa: E702
    board(hand, 3)
    assert hand.min_raise_to == 10
    with pytest.raises(IllegalActionError, match="BET-4"):
        hand.bet_or_raise_to(9)


def test_bet_4_example_1_raise_must_match_the_largest_increment() -> None:
    hand = dealt([100] * 3, 1, 2)
    hand.call(); hand.call(); hand.check()  # noqa: E702
    board(hand, 3)
    hand.bet_or_raise_to(5)
    hand.bet_or_raise_to(15)  # increment 10
    assert hand.min_raise_to == 25


def test_bet_5_no_limit_has_no_cap_on_raises() -> None:
    hand = dealt([10_000] * 2, 1, 2)
    total = 2
    for _ in range(10):
        total = hand.min_raise_to or 0
        hand.bet_or_raise_to(total)
    assert hand.current_bet == total and hand.can_bet_or_raise_to(hand.min_raise_to or 0)


def test_bet_6_call_for_less_goes_all_in() -> None:
    hand = dealt([100, 30, 100], 1, 2)
    hand.bet_or_raise_to(50)  # button
    hand.fold()
    action = hand.call()  # big blind has 28 behind
    assert action.amount == 28 and hand.stacks[1] == 0


def test_bet_7_full_all_in_raise_reopens_the_betting() -> None:
    hand = dealt([200, 200, 30, 200], 1, 2)
    hand.call(); hand.call(); hand.call(); hand.check()  # noqa: E702
    board(hand, 3)
    hand.bet_or_raise_to(10)  # player 0
    hand.call()  # player 1
    hand.bet_or_raise_to(28)  # player 2 all-in, increment 18 >= 10
    hand.call()  # player 3
    assert hand.actor == 0 and hand.can_bet_or_raise_to(46)


def test_bet_8_example_1_short_all_in_does_not_reopen() -> None:
    hand = dealt([200, 200, 200, 17], 1, 2)
    for _ in range(3):
        hand.call()
    hand.check()
    board(hand, 3)
    hand.check()  # A
    hand.bet_or_raise_to(10)  # B
    hand.call()  # C
    hand.bet_or_raise_to(15)  # D all-in: increment 5 < 10, short
    assert hand.actor == 0 and hand.can_bet_or_raise_to(25)  # A faces B's full bet
    hand.call()
    assert hand.actor == 1 and hand.min_raise_to is None  # B may only call or fold
    with pytest.raises(IllegalActionError, match="BET-8"):
        hand.bet_or_raise_to(25)
    hand.call()
    assert hand.actor == 2 and not hand.can_bet_or_raise_to(25)


def _bet_9_setup(profile=LIVE_CASH) -> Hand:
    # A bets 10, B calls, C all-in to 18, ...; stacks after the preflop limp of 2.
    hand = dealt([200, 200, 20, 27, 200], 1, 2, profile=profile)
    for _ in range(4):
        hand.call()
    hand.check()
    board(hand, 3)
    hand.bet_or_raise_to(10)  # A = 0
    hand.call()  # B = 1
    hand.bet_or_raise_to(18)  # C = 2 all-in, increment 8 < 10
    return hand


def test_bet_9_example_1_successive_short_all_ins_reopen() -> None:
    hand = _bet_9_setup()
    hand.bet_or_raise_to(25)  # D = 3 all-in: 8 + 7 = 15 >= 10, no call between
    hand.call()  # E = 4
    assert hand.actor == 0 and hand.can_bet_or_raise_to(35)


def test_bet_9_example_3_min_reraise_after_reopening_is_total_plus_full_increment() -> None:
    hand = _bet_9_setup()
    hand.bet_or_raise_to(25)
    hand.call()
    assert hand.min_raise_to == 35


def test_bet_9_example_2_a_call_between_breaks_the_run() -> None:
    hand = dealt([200, 200, 20, 200, 27], 1, 2)
    for _ in range(4):
        hand.call()
    hand.check()
    board(hand, 3)
    hand.bet_or_raise_to(10)  # A = 0
    hand.call()  # B = 1
    hand.bet_or_raise_to(18)  # C = 2 all-in (short)
    hand.call()  # E = 3 calls 18
    hand.bet_or_raise_to(25)  # D = 4 all-in: 7 < 10 after the call
    assert hand.actor == 0 and hand.min_raise_to is None
    hand.call()
    assert hand.actor == 1 and not hand.can_bet_or_raise_to(35)


def test_bet_9_per_player_cumulative_reopens_for_whoever_faces_a_full_raise() -> None:
    profile = LIVE_CASH.with_overrides({"bet.short_allin_aggregation": "per_player_cumulative"})
    hand = dealt([200, 200, 20, 200, 27], 1, 2, profile=profile)
    for _ in range(4):
        hand.call()
    hand.check()
    board(hand, 3)
    hand.bet_or_raise_to(10)
    hand.call()
    hand.bet_or_raise_to(18)
    hand.call()  # player 3 calls 18
    hand.bet_or_raise_to(25)  # player 4 all-in
    assert hand.actor == 0 and hand.can_bet_or_raise_to(35)  # A faces 15 more than 10
    hand.call()
    hand.call()  # B likewise could raise; calls
    assert hand.actor == 3 and hand.min_raise_to is None  # acted at 18: faces 7 only


# ---------------------------------------------------------------- pot limit, fixed limit
def test_pl_3_example_1_first_preflop_raise_is_at_most_to_seven() -> None:
    hand = dealt([100] * 3, 1, 2, PO)
    assert hand.max_raise_to == 7
    with pytest.raises(IllegalActionError, match="PL-3"):
        hand.bet_or_raise_to(8)


def test_pl_3_example_2_raise_after_a_flop_bet() -> None:
    hand = dealt([500, 500], 25, 50, PO)  # pot 100 after the preflop call
    hand.call()
    hand.check()
    board(hand, 3)
    assert hand.pot_total == 100
    hand.bet_or_raise_to(50)
    assert hand.max_raise_to == 250


def test_fl_1_one_bet_and_three_raises_then_capped() -> None:
    hand = dealt([1000] * 3, 5, 10, FT, small_bet=10, big_bet=20)
    hand.bet_or_raise_to(20)
    hand.bet_or_raise_to(30)
    hand.bet_or_raise_to(40)  # the big blind was the bet: this is the third raise
    assert hand.actor == 2
    with pytest.raises(IllegalActionError, match="FL-1"):
        hand.bet_or_raise_to(50)
    assert hand.can_call()


def test_fl_1_bets_are_the_fixed_sizes_and_double_on_the_turn() -> None:
    hand = dealt([1000] * 3, 5, 10, FT, small_bet=10, big_bet=20)
    assert (hand.min_raise_to, hand.max_raise_to) == (20, 20)
    hand.call(); hand.call(); hand.check()  # noqa: E702
    board(hand, 3)
    assert hand.min_raise_to == 10
    hand.check(); hand.check(); hand.check()  # noqa: E702
    board(hand, 1)
    assert (hand.min_raise_to, hand.max_raise_to) == (20, 20)


def test_fl_1_no_cap_heads_up() -> None:
    hand = dealt([1000] * 2, 5, 10, FT, small_bet=10, big_bet=20)
    for total in (20, 30, 40, 50, 60):
        hand.bet_or_raise_to(total)
    assert hand.current_bet == 60


# ---------------------------------------------------------------- antes and straddles
def test_ante_2_and_ante_5_big_blind_pays_the_blind_first_then_the_ante() -> None:
    hand = dealt([100, 150, 100], 50, 100, big_blind_ante=100)
    assert hand.bets[1] == 100 and hand.dead_money == 50 and hand.stacks[1] == 0


def test_ante_2_big_blind_ante_is_dead_money_in_the_main_pot() -> None:
    # The big blind is all-in for less than the caller: the ante it paid for the table
    # is not its own stake, so it does not come back to it as a side pot.
    hand = Hand(GameConfig(NT, (500, 1000), 50, 100, big_blind_ante=100), LIVE_TOURNAMENT)
    hand.deal_hole(0, parse_cards("AhAd"))  # heads-up: index 0 is the big blind
    hand.deal_hole(1, parse_cards("2c7d"))
    hand.call()  # the button (small blind) completes
    hand.bet_or_raise_to(400)  # the big blind is all-in: 100 blind + 300, ante 100 paid
    hand.call()
    for cards in ("AsKs3c", "8h", "9h"):
        hand.deal_board(parse_cards(cards))
    assert hand.is_complete and hand.payouts == [900, 0]
    assert hand.pots()[0].amount == 900


def test_ante_4_antes_are_dead_and_do_not_count_toward_calls() -> None:
    hand = dealt([100] * 3, 1, 2, antes=(1, 1, 1))
    assert hand.call_amount == 2 and hand.pot_total == 6


def test_straddle_2_utg_straddle_acts_last_preflop_and_has_the_option() -> None:
    hand = dealt([100] * 5, 1, 2, straddle=Straddle.UTG)
    assert hand.bets == [1, 2, 4, 0, 0] and hand.actor == 3
    hand.call(); hand.call(); hand.call(); hand.call()  # noqa: E702
    assert hand.actor == 2 and hand.can_check() and hand.can_bet_or_raise_to(8)


def test_straddle_3_mississippi_small_blind_acts_first_button_last() -> None:
    hand = dealt([100] * 4, 1, 2, straddle=Straddle.BUTTON)
    assert hand.bets == [1, 2, 0, 4] and hand.actor == 0


def test_straddle_5_min_raise_after_a_straddle_is_twice_the_straddle() -> None:
    hand = dealt([100] * 4, 1, 2, straddle=Straddle.UTG)
    assert hand.min_raise_to == 8


def test_straddle_6_no_straddle_heads_up_or_in_fixed_limit() -> None:
    with pytest.raises(ConfigError, match="STRADDLE"):
        GameConfig(NT, (100, 100), 1, 2, straddle=Straddle.UTG)
    with pytest.raises(ConfigError, match="STRADDLE-6"):
        GameConfig(FT, (100,) * 3, 1, 2, straddle=Straddle.UTG, small_bet=2, big_bet=4)


# ---------------------------------------------------------------- pots
def test_pot_1_example_1_main_and_side_pot() -> None:
    pots = build_pots([1000, 1000, 100], [True, True, True])
    assert [(p.amount, p.eligible) for p in pots] == [(300, (0, 1, 2)), (1800, (0, 1))]


def test_pot_3_uncalled_bet_is_returned() -> None:
    hand = dealt([100] * 3, 1, 2)
    hand.bet_or_raise_to(60)
    hand.fold()
    hand.fold()
    assert hand.is_complete and hand.stacks == [99, 98, 103]


def test_pot_4_last_player_holding_cards_wins_without_showing() -> None:
    hand = dealt([100] * 3)
    hand.fold()
    hand.fold()
    assert hand.is_complete and hand.payouts == [0, 2, 0] and hand.shown == [False] * 3
    assert hand.stacks == [99, 101, 100]  # POT-3: the unmatched half of the blind came back


def test_pot_5_example_1_odd_units_both_options() -> None:
    # €0.11 three ways, winners in seats 3, 5, 1 with the button on seat 2: in position
    # order (left of the button first) they are 0 (seat 3), 2 (seat 5), 4 (seat 1).
    assert split_pot(11, [0, 2, 4], 1, each=True) == {0: 4, 2: 4, 4: 3}
    assert split_pot(11, [0, 2, 4], 1, each=False) == {0: 5, 2: 3, 4: 3}


def test_pot_5_split_down_to_the_lowest_chip_in_play() -> None:
    assert split_pot(175, [0, 1], 25, each=False) == {0: 100, 1: 75}
    assert split_pot(175, [0, 1], 25, each=True) == {0: 100, 1: 75}


def test_pot_2_each_pot_goes_to_the_best_hand_among_its_players() -> None:
    # Player 2 is all-in for 20 with the best hand: wins the main pot only; the side pot
    # between players 0 and 1 goes to the better of them.
    hand = Hand(GameConfig(NT, (100, 100, 20), 1, 2), LIVE_TOURNAMENT)
    hand.deal_hole(0, parse_cards("KhKd"))
    hand.deal_hole(1, parse_cards("QhQd"))
    hand.deal_hole(2, parse_cards("AhAd"))
    hand.bet_or_raise_to(20)  # player 2 (button) all-in
    hand.call()
    hand.call()
    hand.deal_board(parse_cards("2c7s9d"))
    hand.bet_or_raise_to(30)  # player 0 bets into the side pot
    hand.call()
    for card in ("3c", "4h"):
        hand.deal_board(parse_cards(card))
        hand.check()
        hand.check()
    assert hand.is_complete  # SHOW-3: every hand tabled at once
    assert hand.payouts == [60, 0, 60]
    assert hand.stacks == [110, 50, 60]


# ---------------------------------------------------------------- showdown
def _to_river(hand: Hand, river_bettor: bool) -> None:
    while hand.phase is not Phase.SHOWDOWN:
        if hand.phase is Phase.DEAL_BOARD:
            board(hand, 3 if not hand.board else 1)
        elif hand.street == 3 and river_bettor and hand.current_bet == 0 and hand.actor == 1:
            hand.bet_or_raise_to(10)
        else:
            hand.check_or_call()


def test_show_2_last_river_bettor_shows_first() -> None:
    hand = dealt([100] * 3)
    _to_river(hand, river_bettor=True)
    assert hand.show_order == (1, 2, 0)


def test_show_2_without_a_river_bet_first_left_of_button_shows_first() -> None:
    hand = dealt([100] * 3)
    _to_river(hand, river_bettor=False)
    assert hand.show_order == (0, 1, 2)


def test_show_3_table_all_at_once_turns_every_hand_up() -> None:
    hand = dealt([100, 20, 100], profile=LIVE_TOURNAMENT)
    hand.bet_or_raise_to(100)
    hand.call()  # player 0 all-in too
    hand.call()
    for _ in range(3):
        board(hand, 3 if not hand.board else 1)
    assert hand.is_complete and hand.shown == [True, True, True]


def test_show_3_last_aggressor_first_in_cash() -> None:
    hand = dealt([100, 20, 100], profile=LIVE_CASH)
    hand.bet_or_raise_to(100)  # player 2 is the last aggressor
    hand.call()
    hand.call()
    for _ in range(3):
        board(hand, 3 if not hand.board else 1)
    assert hand.phase is Phase.SHOWDOWN and hand.next_to_show == 2


def test_show_4_side_pot_player_may_not_muck_against_an_all_in() -> None:
    hand = dealt([100, 20, 200], profile=LIVE_CASH)
    hand.bet_or_raise_to(100)
    hand.call()
    hand.call()
    for _ in range(3):
        board(hand, 3 if not hand.board else 1)
    with pytest.raises(IllegalActionError, match="SHOW-4"):
        hand.muck()


def test_show_10_a_mucked_hand_loses_its_claim() -> None:
    hand = Hand(GameConfig(NT, (100, 100), 1, 2), ONLINE)
    hand.deal_hole(0, parse_cards("AhAd"))
    hand.deal_hole(1, parse_cards("7c2d"))
    hand.call()
    hand.check()
    for cards in ("Ks9s4c", "3h", "8d"):
        hand.deal_board(parse_cards(cards))
        hand.check()
        hand.check()
    hand.muck(0)  # the aces give up; the last hand holding cards wins (POT-4)
    assert hand.is_complete and hand.payouts == [0, 4]


# ---------------------------------------------------------------- safety
def test_illegal_action_never_changes_the_state() -> None:
    hand = dealt([100] * 3)
    before = hand.snapshot()
    for attempt in (lambda: hand.check(), lambda: hand.fold(0),
                    lambda: hand.bet_or_raise_to(3), lambda: hand.bet_or_raise_to(1000),
                    lambda: hand.deal_board(CARDS[40:43]), lambda: hand.show()):
        with pytest.raises(IllegalActionError) as info:
            attempt()
        assert info.value.reason
        assert hand.snapshot() == before


def test_card_1_a_card_cannot_be_dealt_twice() -> None:
    hand = Hand(GameConfig(NT, (100, 100), 1, 2))
    hand.deal_hole(0, parse_cards("AsKs"))
    with pytest.raises(IllegalActionError, match="CARD-1"):
        hand.deal_hole(1, parse_cards("As2c"))


def test_card_7_no_cards_after_the_hand_ends() -> None:
    hand = dealt([100] * 2)
    hand.fold()
    with pytest.raises(IllegalActionError, match="CARD-7"):
        hand.deal_board(CARDS[40:43])


def test_undo_returns_the_exact_previous_state() -> None:
    hand = dealt([100] * 4)
    snapshots = [hand.snapshot()]
    for step in (hand.call, hand.fold, lambda: hand.bet_or_raise_to(10), hand.call):
        step()
        snapshots.append(hand.snapshot())
    for expected in reversed(snapshots[:-1]):
        hand.undo()
        assert hand.snapshot() == expected


def test_replay_rebuilds_the_hand_from_its_log() -> None:
    hand = dealt([100] * 3)
    hand.bet_or_raise_to(7)
    hand.call()
    hand.fold()
    board(hand, 3)
    again = Hand.replay(hand.config, hand.log)
    assert again.snapshot() == hand.snapshot()


# ---------------------------------------------------------------- dead hands and forfeits
def test_live_17_a_hand_killed_out_of_turn_can_win_nothing_its_chips_stay() -> None:
    hand = dealt([100] * 4)  # player 2 to act preflop
    hand.bet_or_raise_to(10)
    hand.call()  # player 3
    hand.kill(0, "LIVE-17")  # the small blind's cards touched the muck out of turn
    assert hand.folded[0] and hand.actor == 1
    hand.call()
    assert hand.phase is Phase.DEAL_BOARD and hand.pot_total == 31
    while not hand.is_complete:
        if hand.phase is Phase.DEAL_BOARD:
            board(hand, 3 if not hand.board else 1)
        elif hand.phase is Phase.SHOWDOWN:
            hand.show()
        else:
            hand.check()
    assert hand.payouts is not None and hand.payouts[0] == 0
    assert sum(hand.stacks) == 400


def test_live_17_killing_the_player_to_act_moves_the_action_on() -> None:
    hand = dealt([100] * 4)
    hand.kill(2, "DEAL-5")  # away from the seat when the last card reached the button
    assert hand.actor == 3 and hand.log[-1].rule == "DEAL-5"  # type: ignore[union-attr]


def test_live_17_a_kill_that_leaves_one_hand_ends_it() -> None:
    hand = dealt([100] * 2)
    hand.call()
    hand.check()
    hand.kill(1)  # between rounds: the other player wins what is in the pot (POT-4)
    assert hand.is_complete and hand.payouts == [4, 0]


def test_live_17_a_hand_killed_at_the_showdown_leaves_the_queue() -> None:
    hand = dealt([100] * 3)
    _to_river(hand, river_bettor=False)
    assert hand.show_order == (0, 1, 2)
    hand.kill(1, "SHOW-8")
    assert hand.show_order == (0, 2)
    hand.show()
    hand.show()
    assert hand.is_complete and hand.payouts is not None and hand.payouts[1] == 0


def test_live_17_kill_is_refused_for_a_hand_already_out() -> None:
    hand = dealt([100] * 3)
    hand.fold()
    before = hand.snapshot()
    with pytest.raises(IllegalActionError, match="no live hand"):
        hand.kill(2)
    assert hand.snapshot() == before


def test_live_7_example_1_folding_instead_of_completing_leaves_the_chips_in() -> None:
    # Blinds 200/400; A bets 1,000 on the flop; B silently put in 1,500 (the 50% rule
    # makes it a raise to 2,000) and, with halfraise.fold_allowed, folds: the 1,500 stay.
    hand = dealt([5000, 5000], 200, 400)
    hand.call()
    hand.check()
    board(hand, 3)
    hand.bet_or_raise_to(1000)  # A, the big blind, acts first after the flop
    hand.fold(forfeit=1500)  # B
    assert hand.is_complete
    assert hand.stacks == [5000 + 400 + 1500, 5000 - 400 - 1500]  # A's bet came back


def test_live_2_a_forfeit_cannot_exceed_what_the_player_has() -> None:
    hand = dealt([100] * 3)
    with pytest.raises(IllegalActionError, match="LIVE-2"):
        hand.fold(forfeit=101)
    assert hand.can_fold(forfeit=100)


def test_kill_and_forfeit_survive_undo_and_replay() -> None:
    hand = dealt([100] * 4)
    hand.bet_or_raise_to(10)
    hand.fold(forfeit=5)
    hand.kill(1)
    again = Hand.replay(hand.config, hand.log)
    assert again.snapshot() == hand.snapshot()
    hand.undo()
    assert not hand.folded[1] and hand.contrib[3] == 5
