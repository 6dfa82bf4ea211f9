"""Dead posts (BLIND-4/5): a returning cash player's missed small blind, posted dead, is dead
money like an ante (ANTE-4, POT-7): it counts toward no call or raise and lies in the main
pot, which every player holding cards can win; it never forms a side pot of the poster's.
The live part of a post is a bet like a blind. The view shows the pots the hand is settled
with, and a PHH export replays to the same stacks through the engine's reader and, where
the order of play allows, through PokerKit (the test oracle).

Players are position indices: 0 is first left of the button (the small blind), the last
is the button. In these four-handed hands the button (3) is the returning player.
"""

from __future__ import annotations

import dataclasses
import random
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.rules.cards import parse_cards
from controller.rules.config import LIVE_CASH, LIVE_TOURNAMENT, ONLINE, RulesProfile, Variant
from controller.rules.game import GameConfig, Post
from controller.rules.hand import Hand, Phase
from controller.rules.phh import dumps, loads
from controller.rules.pots import Pot
from controller.rules.replay import config_from_history, history_from_hand, replay_history
from controller.rules.view import view_of
from tests.needs import need_module
from tests.rules.randplay import apply_step, chips_balance, choose_step, shuffled_deck

NT = Variant.NT
POSTER = 3
SB_DEAD_BB_LIVE = Post(POSTER, live=2, dead=1)  # BLIND-5: missed both blinds (blinds 1/2)
EVERYONE = (0, 1, 2, 3)
# Decision = what a player does when it is their turn: ("raise", total) once, else ("cc",)
# (check or call) or ("f",). A policy keyed by player plays the same hand in any order.
Policy = dict[int, tuple[str, int] | tuple[str]]


def config(stacks: tuple[int, ...] = (100,) * 4, post: Post = SB_DEAD_BB_LIVE) -> GameConfig:
    return GameConfig(NT, stacks, 1, 2, posts=(post,))


def deal(hand: Hand, holes: tuple[str, ...]) -> None:
    for player, cards in enumerate(holes):
        hand.deal_hole(player, parse_cards(cards))


def play(hand: Hand, policy: Policy, board: str) -> None:
    """Play the betting by ``policy`` (everyone else checks or calls), deal ``board`` (a
    flop, a turn and a river) and stop at the showdown, or wherever the hand ends."""
    raised: set[int] = set()
    streets = iter(board.split())
    while hand.phase is Phase.BETTING or hand.phase is Phase.DEAL_BOARD:
        if hand.phase is Phase.DEAL_BOARD:
            hand.deal_board(parse_cards(next(streets)))
            continue
        p = hand.actor
        assert p is not None
        decision = policy.get(p, ("cc",))
        if decision[0] == "raise" and p not in raised:
            raised.add(p)
            hand.bet_or_raise_to(decision[1])  # type: ignore[misc]
        elif decision[0] == "f":
            hand.fold()
        else:
            hand.check_or_call()


def show_down(hand: Hand) -> list[Pot]:
    """Table every hand still to show; return the pots the view showed just before."""
    view = view_of(hand)
    assert view.pots == tuple(hand.pots())  # POT-1: the view's pots are the engine's
    while hand.phase is Phase.SHOWDOWN:
        hand.show()
    assert hand.is_complete
    return list(view.pots)


def awarded(hand: Hand) -> list[Pot]:
    return [Pot(a.amount, a.eligible) for a in hand.awards]


# ---------------------------------------------------------------- the pots
CHECK_DOWN_HOLES = ("AsAd", "7c2d", "8h3s", "9d4c")  # the poster (3) has the worst hand
CHECK_DOWN_BOARD = "KhQh5s Jc 6d"


def test_blind_5_dead_post_is_dead_money_the_winner_takes_it_at_a_check_down() -> None:
    hand = Hand(config(), LIVE_CASH)
    deal(hand, CHECK_DOWN_HOLES)
    assert hand.bets == [1, 2, 0, 2] and hand.dead_money == 1 and hand.pot_total == 6
    play(hand, {}, CHECK_DOWN_BOARD)
    # One main pot: three bets of 2 called by the small blind, and the dead small blind.
    assert hand.pots() == [Pot(9, EVERYONE)]
    view_pots = show_down(hand)
    assert view_pots == awarded(hand) == [Pot(9, EVERYONE)]
    assert hand.awards[0].shares == ((0, 9),)
    # The poster loses all 3 posted: the dead chip does not come back as their side pot.
    assert hand.stacks == [107, 98, 98, 97] and sum(hand.stacks) == 400


def test_blind_5_dead_post_does_not_count_toward_the_posters_call() -> None:
    hand = Hand(config(), LIVE_CASH)
    deal(hand, CHECK_DOWN_HOLES)
    hand.bet_or_raise_to(10)  # player 2 raises
    assert hand.actor == POSTER
    # BLIND-4: the live big blind counts; ANTE-4: the dead small blind does not.
    assert hand.call_amount == 8 and view_of(hand).to_call == 8
    assert hand.min_raise_to == 18  # BET-4: 10 + the increment of 8, from the live bets
    hand.call()
    assert hand.bets[POSTER] == 10 and hand.stacks[POSTER] == 100 - 2 - 1 - 8
    assert hand.contrib[POSTER] == 10 and hand.dead_money == 1


def test_blind_5_a_dead_post_alone_leaves_the_whole_big_blind_to_call() -> None:
    hand = Hand(config(post=Post(POSTER, dead=1)), LIVE_CASH)
    deal(hand, CHECK_DOWN_HOLES)
    hand.call()  # player 2
    assert hand.actor == POSTER and hand.call_amount == 2 and not hand.can_check()
    assert hand.bets[POSTER] == 0 and hand.pot_total == 6


SIDE_POT_STACKS = (100, 100, 100, 10)  # the poster posts 2 live + 1 dead, 7 left behind
SIDE_POT_HOLES = ("8h3s", "KsKd", "7c2d", "AsAd")  # the poster (3) has the best hand
SIDE_POT_BOARD = "Qh9c5s 4d Jh"
SIDE_POT_POLICY: Policy = {0: ("f",), 2: ("raise", 20)}


def test_blind_5_dead_post_side_pot_when_the_poster_is_all_in_for_less() -> None:
    hand = Hand(config(SIDE_POT_STACKS), LIVE_CASH)
    deal(hand, SIDE_POT_HOLES)
    play(hand, SIDE_POT_POLICY, SIDE_POT_BOARD)
    assert hand.bets == [0] * 4 and hand.stacks[POSTER] == 0 and hand.contrib[POSTER] == 9
    # POT-1: the main pot is what the poster matched with live chips (9 from players 1, 2
    # and 3) plus the folded small blind and the dead small blind; the side pot is the rest
    # of players 1 and 2. The dead chip is in the main pot, not a layer of the poster's.
    main, side = Pot(9 * 3 + 1 + 1, (1, 2, 3)), Pot(11 * 2, (1, 2))
    assert hand.pots() == [main, side]
    assert show_down(hand) == awarded(hand) == [main, side]
    assert hand.stacks == [99, 100 - 20 + 22, 80, 29] and sum(hand.stacks) == 310


def test_blind_5_a_poster_all_in_on_the_dead_post_can_win_only_the_dead_money() -> None:
    hand = Hand(config((100, 100, 100, 1), Post(POSTER, dead=1)), LIVE_CASH)
    deal(hand, SIDE_POT_HOLES)  # the poster has the best hand
    assert hand.stacks[POSTER] == 0 and hand.contrib[POSTER] == 0 and hand.actor == 2
    play(hand, {}, SIDE_POT_BOARD)
    # The poster staked nothing, so no pot of stakes is theirs; the dead chip, in the pot
    # every player holding cards can win, is (ANTE-4, POT-1).
    dead, main = Pot(1, EVERYONE), Pot(6, (0, 1, 2))
    assert hand.pots() == [dead, main]
    assert show_down(hand) == awarded(hand) == [dead, main]
    assert hand.stacks == [98, 104, 98, 1]


def test_blind_5_the_dead_post_of_a_player_who_folds_stays_in_the_pot() -> None:
    hand = Hand(config(), LIVE_CASH)
    deal(hand, CHECK_DOWN_HOLES)
    hand.fold()  # player 2
    hand.fold()  # the poster: live and dead chips stay (POT-7)
    hand.fold()  # the small blind
    assert hand.is_complete and hand.awards[0].shares == ((1, 6),)
    assert hand.stacks == [99, 104, 100, 97]


@st.composite
def post_configs(draw: st.DrawFn) -> GameConfig:
    n = draw(st.integers(3, 9))
    bb = draw(st.sampled_from([2, 10, 100]))
    sb = bb // 2
    stacks = tuple(draw(st.lists(st.integers(1, 40 * bb), min_size=n, max_size=n)))
    seats = draw(st.lists(st.integers(2, n - 1), min_size=1, max_size=n - 2, unique=True))
    kinds = [(bb, sb), (0, sb), (bb, 0)]
    posts = tuple(Post(i, *draw(st.sampled_from(kinds))) for i in seats)
    bb_ante = draw(st.sampled_from([0, bb]))
    return GameConfig(NT, stacks, sb, bb, big_blind_ante=bb_ante, posts=posts)


@settings(max_examples=300, deadline=None)
@given(cfg=post_configs(), profile=st.sampled_from([LIVE_CASH, LIVE_TOURNAMENT, ONLINE]),
       seed=st.integers(0, 2**32))
def test_pot_7_dead_posts_conserve_chips_and_the_view_shows_the_settled_pots(
        cfg: GameConfig, profile: RulesProfile, seed: int) -> None:
    rng = random.Random(seed)
    deck = shuffled_deck(rng)
    total = sum(cfg.stacks)
    hand = Hand(cfg, profile)
    assert chips_balance(hand) == total
    for player in range(cfg.players):
        hand.deal_hole(player, [deck.pop(), deck.pop()])
    while not hand.is_complete:
        if hand.phase is Phase.BETTING:
            apply_step(hand, choose_step(hand, rng))
        elif hand.phase is Phase.DEAL_BOARD:
            assert view_of(hand).pots == tuple(hand.pots())
            hand.deal_board([deck.pop() for _ in range(3 if not hand.board else 1)])
        else:
            pots = show_down(hand)
            assert awarded(hand) == [p for p in pots if p.amount]  # no rake, no muck
        assert chips_balance(hand) == total  # stacks + contributions + dead money
    assert sum(hand.stacks) == total and min(hand.stacks) >= 0
    assert sum(hand.payouts or ()) == sum(a.amount for a in hand.awards)


# ---------------------------------------------------------------- PHH and PokerKit
def export(hand: Hand) -> str:
    return dumps(history_from_hand(hand))


def finished_hands() -> list[Hand]:
    """The hands above: a check-down the poster loses, a side pot the poster wins all-in
    for less, and a poster all-in on the dead post alone."""
    check_down = Hand(config(), LIVE_CASH)
    deal(check_down, CHECK_DOWN_HOLES)
    play(check_down, {}, CHECK_DOWN_BOARD)
    side = Hand(config(SIDE_POT_STACKS), LIVE_CASH)
    deal(side, SIDE_POT_HOLES)
    play(side, SIDE_POT_POLICY, SIDE_POT_BOARD)
    short = Hand(config((100, 100, 100, 1), Post(POSTER, dead=1)), LIVE_CASH)
    deal(short, SIDE_POT_HOLES)
    play(short, {}, SIDE_POT_BOARD)
    hands = [check_down, side, short]
    for hand in hands:
        while hand.phase is Phase.SHOWDOWN:
            hand.show()
    return hands


def test_blind_5_dead_post_is_written_as_a_dead_ante_and_replays_to_the_same_stacks() -> None:
    for hand in finished_hands():
        text = export(hand)
        (history,) = loads(text)
        # PHH has no post: the dead part is that player's ante, and PHH antes with
        # ante_trimming_status false are dead money (as PokerKit reads them).
        assert "ante_trimming_status = false" in text
        assert history.antes[POSTER] == hand.config.posts[0].dead
        assert history.finishing_stacks == tuple(hand.stacks)
        assert config_from_history(history) == hand.config  # read back as the dead post
        again = replay_history(history, LIVE_CASH)
        assert again.stacks == hand.stacks and again.awards == hand.awards


@settings(max_examples=100, deadline=None)
@given(cfg=post_configs(), seed=st.integers(0, 2**32))
def test_blind_5_random_hands_with_posts_replay_from_phh_identically(cfg: GameConfig,
                                                                    seed: int) -> None:
    rng = random.Random(seed)
    hand = Hand(cfg, LIVE_CASH)
    deck = shuffled_deck(rng)
    for player in range(cfg.players):
        hand.deal_hole(player, [deck.pop(), deck.pop()])
    while not hand.is_complete:
        if hand.phase is Phase.BETTING:
            apply_step(hand, choose_step(hand, rng))
        elif hand.phase is Phase.DEAL_BOARD:
            hand.deal_board([deck.pop() for _ in range(3 if not hand.board else 1)])
        else:
            hand.show()
    (history,) = loads(export(hand))
    in_order = tuple(sorted(cfg.posts, key=lambda post: post.player_index))
    assert config_from_history(history) == dataclasses.replace(cfg, posts=in_order)
    assert replay_history(history, LIVE_CASH).snapshot() == hand.snapshot()


def pokerkit_stacks(text: str) -> list[int]:
    """The finishing stacks PokerKit's own PHH reader plays the file to."""
    pokerkit = need_module("pokerkit", "pokerkit is the test oracle (test extra)")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        *_, last = pokerkit.HandHistory.loads(text)
    return list(last.stacks)


def test_blind_5_pokerkit_reads_a_dead_post_as_a_dead_ante_and_agrees() -> None:
    # A missed small blind only (no live part): PokerKit plays our PHH as written.
    short = finished_hands()[2]
    assert pokerkit_stacks(export(short)) == short.stacks == [98, 104, 98, 1]
    hand = Hand(config(post=Post(POSTER, dead=1)), LIVE_CASH)
    deal(hand, CHECK_DOWN_HOLES)
    play(hand, {}, CHECK_DOWN_BOARD)
    while hand.phase is Phase.SHOWDOWN:
        hand.show()
    assert hand.stacks == [107, 98, 98, 97]  # the winner takes the dead chip
    assert pokerkit_stacks(export(hand)) == hand.stacks


def play_pokerkit(cfg: GameConfig, holes: tuple[str, ...], policy: Policy,
                  board: str) -> list[int]:
    """The same hand in PokerKit, each player deciding by ``policy`` on their turn."""
    need_module("pokerkit", "pokerkit is the test oracle (test extra)")
    from tests.rules.oracle import pokerkit_state

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        state = pokerkit_state(cfg)
        for cards in holes:
            state.deal_hole(cards)
        raised: set[int] = set()
        streets = iter(board.split())
        while state.status:
            p = state.actor_index
            if p is None:
                state.deal_board(next(streets))
                continue
            decision = policy.get(p, ("cc",))
            if decision[0] == "raise" and p not in raised:
                raised.add(p)
                state.complete_bet_or_raise_to(decision[1])  # type: ignore[misc]
            elif decision[0] == "f" and state.checking_or_calling_amount:
                state.fold()
            else:
                state.check_or_call()
    return list(state.stacks)


@pytest.mark.parametrize(("stacks", "holes", "policy", "board"), [
    ((100,) * 4, CHECK_DOWN_HOLES, {}, CHECK_DOWN_BOARD),
    (SIDE_POT_STACKS, SIDE_POT_HOLES, SIDE_POT_POLICY, SIDE_POT_BOARD),
], ids=["check_down", "side_pot"])
def test_blind_5_pokerkit_agrees_on_a_dead_small_blind_and_live_big_blind(
        stacks: tuple[int, ...], holes: tuple[str, ...], policy: Policy, board: str) -> None:
    hand = Hand(config(stacks), LIVE_CASH)
    deal(hand, holes)
    play(hand, policy, board)
    while hand.phase is Phase.SHOWDOWN:
        hand.show()
    # PokerKit calls another player first (below), so the same decisions, not the same
    # sequence: where the order does not change what anyone puts in, the results agree.
    assert play_pokerkit(hand.config, holes, policy, board) == hand.stacks


def test_blind_4_pokerkit_opens_after_a_live_post_so_it_cannot_replay_that_phh() -> None:
    # PHH has only blinds_or_straddles for the live part; PokerKit opens the betting after
    # the highest forced bet (the last on a tie), as after a straddle, while BET-1 starts
    # left of the big blind. Our own reader plays it by BET-1 (the tests above).
    need_module("pokerkit", "pokerkit is the test oracle (test extra)")
    from tests.rules.oracle import pokerkit_state

    cfg = config()
    hand = Hand(cfg, LIVE_CASH)
    deal(hand, CHECK_DOWN_HOLES)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        state = pokerkit_state(cfg)
        for cards in CHECK_DOWN_HOLES:
            state.deal_hole(cards)
    assert hand.actor == 2 and state.actor_index == 0
    with pytest.raises(ValueError, match="repair"):
        pokerkit_stacks(export(finished_hands()[0]))
