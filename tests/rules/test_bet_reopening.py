"""Who may raise again after short all-ins (RULES.md BET-7, BET-8, BET-9).

A reopening by a run of short all-ins (BET-9) is a full raise for everyone who acted before
it: a further short all-in after it does not take their options away (BET-8: a player who
also faces an earlier full bet or raise they have not answered keeps every option). The
differential test against PokerKit found this hand: PokerKit refuses those raises
(tests/rules/test_differential_pokerkit.py, short_allin_reopening_pokerkit_forgets).
Players are position indices: 0 is first left of the button, the last is the button.
"""

from __future__ import annotations

import pytest

from controller.rules.cards import parse_cards
from controller.rules.config import LIVE_CASH, LIVE_TOURNAMENT, RulesProfile, Variant
from controller.rules.errors import IllegalActionError
from controller.rules.game import GameConfig, Straddle
from controller.rules.hand import Hand

CARDS = parse_cards("AsKsQsJsTs9s8s7s6s5s4s3s2sAhKhQhJhTh9h8h7h6h5h4h3h2h"
                    "AdKdQdJdTd9d8d7d6d5d4d3d2dAcKcQcJcTc9c8c7c6c5c4c3c2c")
PER_PLAYER = LIVE_CASH.with_overrides({"bet.short_allin_aggregation": "per_player_cumulative"})


def dealt(config: GameConfig, profile: RulesProfile = LIVE_CASH) -> Hand:
    hand = Hand(config, profile)
    for p in range(config.players):
        hand.deal_hole(p, CARDS[2 * p:2 * p + 2])
    return hand


def reopened_then_short(profile: RulesProfile = LIVE_CASH) -> Hand:
    """BET-9/1 and one more short all-in: on the flop A = 0 bets 10, B = 1 calls, C = 2
    all-in to 18 (short), D = 3 all-in to 25 (8 + 7 = 15: reopened), E = 4 calls 25,
    F = 5 all-in to 28 (increment 3: short). A is next."""
    hand = dealt(GameConfig(Variant.NT, (200, 200, 20, 27, 200, 30), 1, 2), profile)
    for _ in range(5):
        hand.call()  # C, D, E, F limp, A completes
    hand.check()  # B
    hand.deal_board(CARDS[40:43])
    hand.bet_or_raise_to(10)  # A
    hand.call()  # B
    hand.bet_or_raise_to(18)  # C all-in: short
    hand.bet_or_raise_to(25)  # D all-in: the run adds up to a full raise (BET-9)
    hand.call()  # E answers the reopened bet
    hand.bet_or_raise_to(28)  # F all-in: short again
    return hand


@pytest.mark.parametrize("profile", [LIVE_CASH, PER_PLAYER],
                         ids=["successive_no_calls", "per_player_cumulative"])
def test_bet_8_bet_9_a_reopening_by_short_all_ins_survives_a_further_short_all_in(
        profile: RulesProfile) -> None:
    hand = reopened_then_short(profile)
    # A and B acted before the run: they face its full raise, not only F's short all-in
    assert hand.actor == 0 and hand.call_amount == 18
    assert (hand.min_raise_to, hand.max_raise_to) == (38, 198)  # BET-9/3: 28 + 10
    hand.call()
    assert hand.actor == 1 and hand.can_bet_or_raise_to(38)
    hand.call()
    # E answered the reopening at 25: its only new challenge is F's short all-in (BET-8)
    assert hand.actor == 4 and hand.call_amount == 3 and hand.min_raise_to is None
    with pytest.raises(IllegalActionError, match=r"\(BET-8\)"):
        hand.bet_or_raise_to(38)
    hand.call()
    assert hand.actor is None  # everyone matched 28 or is all-in (BET-1)


def test_bet_9_a_raise_after_the_reopening_is_a_full_raise_again() -> None:
    # A raises to 38 over the reopening: B and E face a full raise and may raise again
    hand = reopened_then_short()
    hand.bet_or_raise_to(38)
    assert hand.actor == 1 and hand.min_raise_to == 48
    hand.call()
    assert hand.actor == 4 and hand.min_raise_to == 48


def test_bet_8_bet_9_the_differential_hand_the_caller_of_the_raise_may_raise_again() -> None:
    # Found by tests/rules/test_differential_pokerkit.py (no limit, --hypothesis-seed=2):
    # blinds 1-2, UTG straddle 4, antes 1. Preflop: 4 and 5 call 4; 6 raises to 8; 7 calls
    # 8; 8 all-in to 9 (increment 1, short); 0 all-in to 12 (3 more, 1 + 3 = 4 = a full
    # raise: BET-9 reopens at 12); 1 all-in calls 3; 2 calls 12; 4 all-in calls 9; 5 calls
    # 12; 6 all-in to 13 (short). Player 7 acted at 8 and has not answered the reopening at
    # 12: every option stands (BET-8), PokerKit refuses the raise ("already acted").
    config = GameConfig(Variant.NT, (13, 4, 22, 1, 10, 14, 14, 27, 10), 1, 2,
                        antes=(1,) * 9, straddle=Straddle.UTG)
    hand = dealt(config, LIVE_TOURNAMENT)
    assert hand.actor == 4 and hand.current_bet == 4
    for step in ("cc", "cc", 8, "cc", 9, 12, "cc", "cc", "cc", "cc", 13):
        if step == "cc":
            hand.check_or_call()
        else:
            hand.bet_or_raise_to(int(step))
    assert hand.actor == 7 and hand.call_amount == 5
    assert (hand.min_raise_to, hand.max_raise_to) == (17, 26)  # 13 + the largest full 4
    hand.bet_or_raise_to(17)
    assert hand.actor == 2 and hand.min_raise_to == 21  # a full raise reopens (BET-7)
