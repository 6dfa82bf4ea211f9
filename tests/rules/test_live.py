"""Live table actions: chips pushed and words said (RULES.md LIVE-1..15, PL-4)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.rules.actions import BetRaise, Call, Check, Fold
from controller.rules.cards import DECK
from controller.rules.config import LIVE_CASH, LIVE_TOURNAMENT, Variant
from controller.rules.errors import RulesError
from controller.rules.game import GameConfig
from controller.rules.hand import Hand, Phase
from controller.rules.live import (
    Declaration,
    Facing,
    OutOfTurn,
    Ruling,
    Substantial,
    Word,
    facing,
    hidden_chips,
    interpret_amount,
    interpret_chips,
    is_substantial,
    misplaced_button_is_misdeal,
    readings,
    substantial_definition,
)
from tests.rules.randplay import apply_step, choose_step, deal_hole_cards, shuffled_deck

T = LIVE_TOURNAMENT  # halfraise.fold_allowed false, undercall tda, oot action_change
C = LIVE_CASH  # halfraise.fold_allowed true, undercall call_or_forfeit, oot substantial


def hand(players: int = 3, stack: int = 100_000, variant: Variant = Variant.NT) -> Hand:
    """Blinds 200/400, hole cards dealt, preflop betting started."""
    h = Hand(GameConfig(variant, (stack,) * players, 200, 400), T)
    deck = list(DECK)
    deal_hole_cards(h, deck)
    return h


def flop(h: Hand) -> Hand:
    h.deal_board([DECK[0], DECK[1], DECK[2]])
    return h


def postflop_bet(amount: int = 1000, players: int = 3) -> Hand:
    """Everyone limps, the flop comes, the first player bets ``amount``."""
    h = hand(players)
    while h.phase is Phase.BETTING:
        h.check_or_call()
    flop(h).bet_or_raise_to(amount)
    return h


def rule(f: Facing, chips: list[int], declared: Declaration | None = None, profile=T,
         **kw: object) -> Ruling:
    return interpret_chips(f, chips, declared=declared, profile=profile, **kw)  # type: ignore[arg-type]


# ---------------------------------------------------------------- LIVE-7
def test_live_7_example_1_exactly_half_is_a_full_raise() -> None:
    f = facing(postflop_bet(1000))
    r = rule(f, [500, 500, 500])
    assert r.rule == "LIVE-7" and r.action == BetRaise(f.player, 2000) and r.owed == 500


def test_live_7_example_1_cash_may_fold_and_lose_the_chips_instead() -> None:
    f = facing(postflop_bet(1000))
    r = rule(f, [500, 500, 500], profile=C)
    assert r.action is None and r.choice is not None
    raise_, fold = r.choice.options
    assert raise_.action == BetRaise(f.player, 2000)
    assert fold.action == Fold(f.player) and fold.forfeited == 1500


def test_live_7_example_2_less_than_half_is_a_call_and_the_rest_goes_back() -> None:
    f = facing(postflop_bet(1000))
    r = rule(f, [100] * 14)
    assert r.rule == "LIVE-7" and r.action == Call(f.player, 1000) and r.returned == 400


def test_live_7_all_in_short_of_a_full_raise_stands() -> None:
    h = hand(3, stack=1700)
    h.check_or_call()
    h.check_or_call()
    h.check()
    flop(h).bet_or_raise_to(1000)
    f = facing(h)
    r = rule(f, [100] * 13)  # 1,300: everything behind
    assert r.action == BetRaise(f.player, 1300) and r.rule == "BET-6"


def test_live_7_by_total_amount_when_the_chips_are_not_known() -> None:
    f = facing(postflop_bet(1000))
    assert interpret_amount(f, 1500, declared=None, profile=T).action == BetRaise(
        f.player, 2000)
    r = interpret_amount(f, 1400, declared=None, profile=T)
    assert r.action == Call(f.player, 1000) and r.returned == 400 and r.rule == "LIVE-7"
    r = interpret_amount(f, 2000, declared=None, profile=T)  # no LIVE-9 call without chips
    assert r.action == BetRaise(f.player, 2000)
    r = interpret_amount(f, 500, declared=Declaration(Word.CALL), profile=T)
    assert r.action == Call(f.player, 1000) and r.owed == 500


# ---------------------------------------------------------------- LIVE-8
def _a_bets_1000() -> Facing:
    h = hand(4)
    h.bet_or_raise_to(1000)  # A (UTG) makes it 1,000; B (the button) has nothing in
    return facing(h)


def test_live_8_example_1_silent_oversized_chip_calls() -> None:
    f = _a_bets_1000()
    r = rule(f, [5000])
    assert r.rule == "LIVE-8" and r.action == Call(f.player, 1000) and r.returned == 4000


def test_live_8_example_1_with_raise_declared_raises_to_the_chip() -> None:
    f = _a_bets_1000()
    r = rule(f, [5000], Declaration(Word.RAISE))
    assert r.rule == "LIVE-8" and r.action == BetRaise(f.player, 5000) and r.returned == 0
    small = rule(f, [1000, 500], Declaration(Word.RAISE))  # short of a full raise
    assert small.action == BetRaise(f.player, 1600) and small.owed == 100


def test_live_8_example_2_first_to_act_after_the_flop_bets_the_chip() -> None:
    h = hand(3)
    while h.phase is Phase.BETTING:
        h.check_or_call()
    f = facing(flop(h))
    r = rule(f, [1000])
    assert r.rule == "LIVE-8" and r.action == BetRaise(f.player, 1000)


# ---------------------------------------------------------------- LIVE-9
def _raised_to_1200() -> Facing:
    h = hand(4)
    h.bet_or_raise_to(1200)  # increment 800
    return facing(h)


def test_live_9_example_1_two_big_chips_are_a_call() -> None:
    f = _raised_to_1200()
    r = rule(f, [1000, 1000])
    assert r.rule == "LIVE-9" and r.action == Call(f.player, 1200) and r.returned == 800


def test_live_9_example_2_four_chips_raise_by_the_full_amount() -> None:
    f = _raised_to_1200()
    r = rule(f, [500] * 4)
    assert r.action == BetRaise(f.player, 2000) and r.returned == 0 and r.owed == 0


# ---------------------------------------------------------------- LIVE-10, LIVE-13
def test_live_10_tda_undercall_of_the_opening_bet_multiway_is_a_full_call() -> None:
    f = facing(postflop_bet(1000))
    assert f.opening_bet and not f.heads_up
    r = rule(f, [500])
    assert r.rule == "LIVE-10" and r.action == Call(f.player, 1000) and r.owed == 500


def test_live_10_tda_undercall_heads_up_is_a_full_call() -> None:
    h = postflop_bet(1000, players=2)
    h.bet_or_raise_to(3000)
    f = facing(h)
    assert f.heads_up and not f.opening_bet
    assert rule(f, [500]).action == Call(f.player, 2000)


def test_live_10_tda_undercall_of_a_raise_multiway_goes_to_the_floor() -> None:
    h = postflop_bet(1000)
    h.bet_or_raise_to(3000)
    f = facing(h)
    r = rule(f, [1000])
    assert r.floor and r.action is None and r.rule == "LIVE-10"


def test_live_10_preflop_the_big_blind_is_the_opening_bet() -> None:
    f = facing(hand(4))
    assert f.opening_bet
    assert rule(f, [100]).action == Call(f.player, 400)


def test_live_10_call_or_forfeit_offers_both() -> None:
    f = facing(postflop_bet(1000))
    r = rule(f, [500], profile=C)
    assert r.choice is not None
    call, fold = r.choice.options
    assert call.action == Call(f.player, 1000) and call.owed == 500
    assert fold.action == Fold(f.player) and fold.forfeited == 500


def test_live_13_caller_given_a_wrong_count_accepted_the_whole_action() -> None:
    h = postflop_bet(1000)
    h.bet_or_raise_to(3000)
    f = facing(h)
    r = rule(f, [1000], after_count=True)
    assert r.rule == "LIVE-13" and r.action == Call(f.player, 3000) and r.owed == 2000
    short = hand(3, stack=2000)
    short.bet_or_raise_to(2000)  # all-in
    g = facing(short)
    assert rule(g, [1000], after_count=True).action == Call(g.player, 1800)  # all-in


# ---------------------------------------------------------------- LIVE-2..5
def test_live_3_check_fold_and_stated_amounts_are_binding() -> None:
    h = hand(3)
    while h.phase is Phase.BETTING:
        h.check_or_call()
    f = facing(flop(h))
    assert rule(f, [], Declaration(Word.CHECK)).action == Check(f.player)
    assert rule(f, [], Declaration(Word.FOLD)).action == Fold(f.player)
    r = rule(f, [1000], Declaration(Word.BET, 2500))
    assert r.action == BetRaise(f.player, 2500) and r.owed == 1500
    under = rule(f, [100], Declaration(Word.BET, 100))
    assert under.action == BetRaise(f.player, 400) and "minimum" in under.reason


def test_live_3_check_facing_a_bet_calls_or_folds() -> None:
    f = facing(postflop_bet(1000))
    r = rule(f, [], Declaration(Word.CHECK))
    assert r.choice is not None
    assert [o.action for o in r.choice.options] == [Call(f.player, 1000), Fold(f.player)]


def test_live_2_fold_with_chips_pushed_leaves_them_in_the_pot() -> None:
    f = facing(postflop_bet(1000))
    r = rule(f, [500], Declaration(Word.FOLD))
    assert r.action == Fold(f.player) and r.forfeited == 500


def test_live_2_verbal_call_binds_the_full_amount() -> None:
    f = facing(postflop_bet(1000))
    r = rule(f, [500], Declaration(Word.CALL))
    assert r.action == Call(f.player, 1000) and r.owed == 500
    r = rule(f, [5000], Declaration(Word.CALL))
    assert r.action == Call(f.player, 1000) and r.returned == 4000


def test_live_4_raise_declared_then_one_more_trip_counts() -> None:
    f = facing(postflop_bet(1000))
    r = rule(f, [1000], Declaration(Word.RAISE), later_motions=[[1000, 1000]])
    assert r.rule == "LIVE-4" and r.action == BetRaise(f.player, 3000)
    r = rule(f, [1000], Declaration(Word.RAISE), later_motions=[[1000, 1000], [500]])
    assert r.rule == "LIVE-5" and r.action == BetRaise(f.player, 3000) and r.returned == 500


def test_live_12_raise_announced_without_chips_is_pending() -> None:
    f = facing(postflop_bet(1000))
    r = rule(f, [], Declaration(Word.RAISE))
    assert r.pending and r.action is None


def test_live_5_string_raise_counts_only_the_first_motion() -> None:
    f = facing(postflop_bet(1000))
    r = rule(f, [1000], later_motions=[[1000, 1000]])
    assert r.rule == "LIVE-5" and r.action == Call(f.player, 1000) and r.returned == 2000
    h = hand(3)
    while h.phase is Phase.BETTING:
        h.check_or_call()
    g = facing(flop(h))
    r = rule(g, [500, 500], later_motions=[[1000]])
    assert r.action == BetRaise(g.player, 1000) and r.returned == 1000


def test_bet_8_a_player_who_may_not_raise_calls() -> None:
    h = hand(3, stack=10_000)
    h.check_or_call()  # button calls 400
    h.check_or_call()  # SB completes
    h.check()
    flop(h).bet_or_raise_to(1000)  # SB bets
    h.call()  # BB calls
    h.call()  # button calls
    h.deal_board([DECK[3]])
    h.bet_or_raise_to(6000)  # SB bets
    h.call()
    short = Hand(GameConfig(Variant.NT, (10_000, 10_000, 1500), 200, 400), T)
    deal_hole_cards(short, list(DECK))
    short.check_or_call()  # button (1,500) calls
    short.bet_or_raise_to(1200)  # SB raises to 1,200
    short.call()  # BB calls
    short.bet_or_raise_to(1500)  # button all-in: a short raise of 300
    short.call()  # SB calls
    f = facing(short)  # BB already acted: may only call or fold (BET-8)
    assert f.min_raise_to is None
    r = rule(f, [1000, 1000], Declaration(Word.RAISE))
    assert r.action == Call(f.player, 300) and r.rule == "BET-8" and r.returned == 1700


# ---------------------------------------------------------------- LIVE-14, PL-4
def test_live_14_example_1_small_pot_means_the_smaller_reading() -> None:
    f = facing(flop(_limped(3)))
    assert f.pot == 1200
    r = rule(f, [], Declaration(Word.BET, readings=readings(5, f.stack)))
    assert r.rule == "LIVE-14" and r.action == BetRaise(f.player, 500)


def test_live_14_example_2_big_pot_means_the_larger_reading() -> None:
    h = hand(3)
    h.bet_or_raise_to(2000)
    h.call()
    h.call()
    f = facing(flop(h))
    assert f.pot >= 5000
    r = rule(f, [], Declaration(Word.BET, readings=readings(5, f.stack)))
    assert r.action == BetRaise(f.player, 5000) and r.owed == 5000


def test_live_14_no_reading_within_the_pot_goes_to_the_floor() -> None:
    f = facing(flop(_limped(3)))
    r = rule(f, [], Declaration(Word.BET, readings=(5000, 50_000)))
    assert r.floor and r.rule == "LIVE-14"


def test_pl_4_pot_raises_the_pot_limit_maximum_and_is_not_official_in_no_limit() -> None:
    h = hand(3, variant=Variant.PO)
    f = facing(h)
    r = rule(f, [], Declaration(Word.POT))
    assert r.rule == "PL-4" and r.action == BetRaise(f.player, 1400)  # PL-3: 400 + 1,000
    assert rule(facing(hand(3)), [], Declaration(Word.POT)).floor


def test_pl_3_silent_overbet_is_cut_to_the_maximum() -> None:
    f = facing(hand(3, variant=Variant.PO))
    r = rule(f, [1000] * 5)
    assert r.action == BetRaise(f.player, 1400) and r.returned == 3600 and r.rule == "LIVE-9"


def _limped(players: int) -> Hand:
    h = hand(players)
    while h.phase is Phase.BETTING:
        h.check_or_call()
    return h


# ---------------------------------------------------------------- LIVE-11, LIVE-12
def test_live_11_substantial_action_both_definitions() -> None:
    assert not is_substantial([Check(0), Check(1)])
    assert is_substantial([Check(0), Check(1), Fold(2)])
    assert is_substantial([Check(0), BetRaise(1, 400)])
    assert not is_substantial([BetRaise(1, 400)])
    assert is_substantial([BetRaise(1, 400)], Substantial.CASINO)
    assert not is_substantial([Check(0), Check(1), Fold(2)], Substantial.CASINO)
    assert substantial_definition(C) is Substantial.CASINO
    assert substantial_definition(T) is Substantial.TDA


def test_btn_8_misplaced_button_is_a_misdeal_only_before_substantial_action() -> None:
    assert misplaced_button_is_misdeal([Check(0), Check(1)], T)
    assert not misplaced_button_is_misdeal([Check(0), Call(1, 400)], T)
    assert not misplaced_button_is_misdeal([Call(1, 400)], C)  # 002: one call is enough
    assert misplaced_button_is_misdeal([Check(0), Check(1), Fold(2)], C)


def test_live_12_oot_binding_unless_the_action_changes_action_change() -> None:
    f = facing(postflop_bet(1000, players=4))
    oot = OutOfTurn.taken(Call(3, 1000), T)
    assert oot.after(Call(f.player, 1000)).binding  # a call is no change under 004
    assert oot.after(Fold(f.player)).ruling(f).action == Call(f.player, 1000)
    released = oot.after(BetRaise(f.player, 3000))
    assert not released.binding
    r = released.ruling(f, pushed=1000)
    assert r.pending and r.returned == 1000 and r.action is None


def test_live_12_oot_substantial_any_call_releases() -> None:
    oot = OutOfTurn.taken(Call(3, 1000), C)
    assert not oot.after(Call(1, 1000)).binding
    assert oot.after(Check(1)).binding and oot.after(Fold(1)).binding


def test_live_12_folding_out_of_turn_is_always_binding() -> None:
    f = facing(postflop_bet(1000, players=4))
    oot = OutOfTurn.taken(Fold(3), C).after(BetRaise(1, 5000))
    assert oot.binding and oot.ruling(f).action == Fold(f.player)


# ---------------------------------------------------------------- LIVE-15
def test_live_15_example_1_hidden_chips_cannot_win() -> None:
    s = hidden_chips(visible=21_000, real_stack=23_000, caller_stack=100_000)
    assert s.if_all_in_wins == 21_000
    assert s.if_caller_wins == 23_000 and s.all_in_keeps_if_losing == 0


def test_live_15_example_2_caller_covered_by_hidden_chips() -> None:
    s = hidden_chips(visible=50_000, real_stack=60_000, caller_stack=55_000)
    assert s.if_all_in_wins == 50_000
    assert s.if_caller_wins == 55_000 and s.all_in_keeps_if_losing == 5_000
    with pytest.raises(RulesError):
        hidden_chips(visible=70_000, real_stack=60_000, caller_stack=1)


def test_live_inputs_are_checked() -> None:
    f = facing(postflop_bet(1000))
    with pytest.raises(RulesError):
        rule(f, [f.stack + 1])
    with pytest.raises(RulesError):
        rule(f, [])
    with pytest.raises(RulesError):
        Declaration(Word.RAISE_TO)
    assert readings(5, 6000) == (5, 50, 500, 5000)


# ---------------------------------------------------------------- property
DENOMS = (25, 100, 500, 1000, 5000)
WORDS = [None, Word.CALL, Word.RAISE, Word.RAISE_TO, Word.BET, Word.ALL_IN, Word.POT,
         Word.CHECK, Word.FOLD]


def _put(h: Hand, action: object) -> int:
    p = h.actor
    assert p is not None
    if isinstance(action, Call):
        return action.amount
    if isinstance(action, BetRaise):
        return action.to - h.bets[p]
    return 0


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32), steps=st.integers(0, 12),
       variant=st.sampled_from([Variant.NT, Variant.PO, Variant.FT]),
       players=st.integers(2, 6),
       chips=st.lists(st.sampled_from(DENOMS), max_size=8),
       later=st.lists(st.lists(st.sampled_from(DENOMS), min_size=1, max_size=3), max_size=2),
       word=st.sampled_from(WORDS), amount=st.integers(1, 30_000),
       cash=st.booleans(), counted=st.booleans(), by_amount=st.booleans())
def test_live_interpretation_is_always_accepted_by_the_engine(
        seed: int, steps: int, variant: Variant, players: int, chips: list[int],
        later: list[list[int]], word: Word | None, amount: int, cash: bool,
        counted: bool, by_amount: bool) -> None:
    rng = random.Random(seed)
    stacks = tuple(rng.choice([3000, 10_000, 40_000]) for _ in range(players))
    limits = {"small_bet": 400, "big_bet": 800} if variant is Variant.FT else {}
    h = Hand(GameConfig(variant, stacks, 200, 400, **limits), C if cash else T)
    deck = shuffled_deck(rng)
    deal_hole_cards(h, deck)
    for _ in range(steps):
        if h.phase is Phase.DEAL_BOARD:
            h.deal_board([deck.pop() for _ in range(3 if not h.board else 1)])
        if h.phase is not Phase.BETTING:
            break
        apply_step(h, choose_step(h, rng))
    if h.phase is not Phase.BETTING:
        return
    f = facing(h)
    budget = f.stack
    pushed_chips = []
    for c in chips:
        if c <= budget:
            pushed_chips.append(c)
            budget -= c
    motions = []
    for m in later:
        kept = []
        for c in m:
            if c <= budget:
                kept.append(c)
                budget -= c
        if kept:
            motions.append(kept)
    if word is None and not pushed_chips:
        return
    declared = None
    if word is not None:
        amt = amount if word in (Word.RAISE_TO, Word.BET) else None
        declared = Declaration(word, amt)
    pushed = sum(pushed_chips) + sum(map(sum, motions))
    profile = C if cash else T
    if by_amount:
        pushed = sum(pushed_chips)
        r = interpret_amount(f, pushed, declared=declared, profile=profile,
                             after_count=counted)
    else:
        r = interpret_chips(f, pushed_chips, declared=declared, profile=profile,
                            later_motions=motions, after_count=counted)
    options = r.choice.options if r.choice is not None else (r,)
    for o in options:
        if o.action is None:
            assert o.floor or o.pending
            continue
        put = _put(h, o.action)
        if isinstance(o.action, Fold):
            assert o.returned + o.forfeited == pushed
        else:
            assert pushed - o.returned + o.owed == put  # chips are accounted for
            assert not (o.returned and o.owed)
        trial = Hand.replay(h.config, h.log, h.profile)
        trial.apply(o.action)  # the engine accepts it
