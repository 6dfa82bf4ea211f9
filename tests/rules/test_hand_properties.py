"""Properties of the hand state machine over random hands (hypothesis).

Chips are conserved at every step; an illegal action changes nothing and says why;
undo returns the exact previous state; replaying the log rebuilds the hand.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from controller.rules.config import LIVE_CASH, LIVE_TOURNAMENT, ONLINE, Variant
from controller.rules.errors import IllegalActionError
from controller.rules.game import GameConfig, Post, Straddle
from controller.rules.hand import Hand, Phase
from controller.rules.rake import rake_policy
from tests.rules.randplay import (
    apply_step,
    chips_balance,
    choose_step,
    deal_hole_cards,
    play_random_hand,
    shuffled_deck,
)


@st.composite
def configs(draw: st.DrawFn) -> GameConfig:
    variant = draw(st.sampled_from(list(Variant)))
    n = draw(st.integers(2, 9))
    bb = draw(st.sampled_from([2, 10, 100]))
    sb = bb // 2
    stacks = tuple(draw(st.lists(st.integers(1, 60 * bb), min_size=n, max_size=n)))
    straddle = Straddle.NONE
    if variant is not Variant.FT and n >= 3:
        straddle = draw(st.sampled_from(list(Straddle)))
    antes: tuple[int, ...] = ()
    bb_ante = 0
    kind = draw(st.sampled_from(["none", "each", "bb"]))
    if kind == "each":
        antes = (bb // 10 or 1,) * n
    elif kind == "bb":
        bb_ante = bb
    posts: tuple[Post, ...] = ()
    straddler = {Straddle.UTG: 2, Straddle.BUTTON: n - 1}.get(straddle)
    seats = [i for i in range(2, n) if i != straddler]
    if draw(st.booleans()) and seats:  # BLIND-4: a new player's live BB; BLIND-5: a
        live, dead = draw(st.sampled_from([(bb, 0), (bb, sb), (0, sb)]))  # missed SB, dead
        posts = (Post(draw(st.sampled_from(seats)), live, dead),)
    rake = rake_policy("casino") if draw(st.booleans()) else None
    return GameConfig(variant, stacks, sb, bb, antes=antes, big_blind_ante=bb_ante,
                      straddle=straddle, small_bet=bb, big_bet=2 * bb, rake=rake,
                      posts=posts)


profiles = st.sampled_from([LIVE_CASH, LIVE_TOURNAMENT, ONLINE])


@settings(max_examples=400, deadline=None)
@given(config=configs(), profile=profiles, seed=st.integers(0, 2**32))
def test_chips_are_conserved_and_hands_always_finish(config: GameConfig, profile,
                                                     seed: int) -> None:
    rng = random.Random(seed)
    total = sum(config.stacks)
    deck = shuffled_deck(rng)
    hand = Hand(config, profile)
    assert chips_balance(hand) == total
    deal_hole_cards(hand, deck)
    while not hand.is_complete:
        live = [i for i in range(config.players) if hand.can_kill(i)]
        if live and rng.random() < 0.03:  # a dead hand at any moment (LIVE-17)
            hand.kill(rng.choice(live))
        elif hand.phase is Phase.BETTING and rng.random() < 0.05:  # LIVE-7/10 forfeit
            assert hand.actor is not None
            hand.fold(forfeit=rng.randint(0, hand.stacks[hand.actor]))
        elif hand.phase is Phase.BETTING:
            apply_step(hand, choose_step(hand, rng, fold_when_free=True))
        elif hand.phase is Phase.DEAL_BOARD:
            hand.deal_board([deck.pop() for _ in range(3 if not hand.board else 1)])
        else:
            if hand.can_muck() and rng.random() < 0.3:
                hand.muck()
            else:
                hand.show()
        assert chips_balance(hand) == total
        assert min(hand.stacks) >= 0
    assert sum(hand.stacks) + hand.rake == total
    assert hand.rake == 0 or len(hand.board) >= 3  # RAKE-2: no flop, no drop


@settings(max_examples=150, deadline=None)
@given(config=configs(), profile=profiles, seed=st.integers(0, 2**32))
def test_illegal_actions_change_nothing_and_give_a_reason(config: GameConfig, profile,
                                                          seed: int) -> None:
    rng = random.Random(seed)
    hand, _, _ = play_random_hand(config, rng, profile=profile)
    replayed = Hand(config, profile)
    for action in hand.log:
        before = replayed.snapshot()
        probes = [lambda: replayed.bet_or_raise_to(rng.randint(0, 10 * config.big_blind)),
                  lambda: replayed.check(), lambda: replayed.call(),
                  lambda: replayed.fold(rng.randint(0, config.players)),
                  lambda: replayed.muck()]
        for probe in probes:
            try:
                probe()
            except IllegalActionError as exc:
                assert exc.reason and replayed.snapshot() == before
            else:  # the probe was legal: take it back, the state must be as before
                replayed.undo()
                assert replayed.snapshot() == before
        replayed.apply(action)
    assert replayed.snapshot() == hand.snapshot()


@settings(max_examples=150, deadline=None)
@given(config=configs(), profile=profiles, seed=st.integers(0, 2**32))
def test_undo_walks_back_through_every_state(config: GameConfig, profile, seed: int) -> None:
    hand, _, _ = play_random_hand(config, random.Random(seed), profile=profile)
    states = []
    replayed = Hand(config, profile)
    states.append(replayed.snapshot())
    for action in hand.log:
        replayed.apply(action)
        states.append(replayed.snapshot())
    assert states[-1] == hand.snapshot()
    for expected in reversed(states[:-1]):
        hand.undo()
        assert hand.snapshot() == expected
