"""The button and the blinds across hands (RULES.md BTN, BLIND-4..7, DEAL-3, CASH-4,
TOURN-4), and the engine's extra posts (GameConfig.posts)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.rules.button import (
    BlindPost,
    Missed,
    Positions,
    SeatStatus,
    after_hand,
    button_passed,
    can_start,
    first_hand,
    initial_button,
    next_hand,
    verify_can_start,
)
from controller.rules.config import LIVE_CASH, LIVE_TOURNAMENT, ONLINE, Variant
from controller.rules.errors import ConfigError, IllegalActionError, RulesError
from controller.rules.game import GameConfig, Post
from controller.rules.hand import Hand

STUCK = LIVE_TOURNAMENT.with_overrides({"tourn.button_mode": "stuck_button"})
WAIT = LIVE_CASH.with_overrides({"cash.new_player_entry": "wait_for_bb"})
WAIT_OR_POST = LIVE_CASH.with_overrides({"cash.new_player_entry": "wait_or_post_bb"})


def seats(*numbers: int, stack: int = 1000, **flags: tuple[int, ...]) -> list[SeatStatus]:
    """Seats with chips; ``new=(4,)`` and the like set a flag on some of them."""
    out = []
    for n in numbers:
        kw = {k: True for k, which in flags.items() if n in which}
        out.append(SeatStatus(n, stack, **kw))  # type: ignore[arg-type]
    return out


def pos(button: int, sb: int | None, bb: int, dealt: tuple[int, ...], **kw: object) -> Positions:
    return Positions(button, sb, bb, dealt, **kw)  # type: ignore[arg-type]


BTN1 = pos(1, 2, 3, (2, 3, 4, 5, 6, 1))  # six players, button on seat 1


def layout(p: Positions) -> tuple[int, int | None, int]:
    return p.button, p.small_blind, p.big_blind


# ---------------------------------------------------------------- cash (BTN-2)
def test_btn_2_example_1_everyone_moves_one_seat() -> None:
    p = next_hand(BTN1, seats(1, 2, 3, 4, 5, 6), tournament=False, profile=LIVE_CASH)
    assert layout(p) == (2, 3, 4)
    assert p.dealt == (3, 4, 5, 6, 1, 2)


def test_btn_2_example_2_previous_sb_leaves_button_does_not_move() -> None:
    p = next_hand(BTN1, seats(1, 3, 4, 5, 6), tournament=False, profile=LIVE_CASH)
    assert layout(p) == (1, 3, 4)


def test_btn_2_4_previous_bb_gone_means_no_small_blind() -> None:
    p = next_hand(BTN1, seats(1, 2, 4, 5, 6), tournament=False, profile=LIVE_CASH)
    assert layout(p) == (2, None, 4)
    assert p.dealt == (4, 5, 6, 1, 2)
    cfg = p.game_config(Variant.NT, {s: 1000 for s in p.dealt}, 5, 10)
    assert cfg.no_small_blind and cfg.big_blind_index == 0


def test_btn_2_bb_skips_sitting_out_player_and_records_the_miss() -> None:
    table = seats(1, 2, 3, 4, 5, 6, sitting_out=(4,))
    p = next_hand(BTN1, table, tournament=False, profile=LIVE_CASH)
    assert layout(p) == (2, 3, 5) and 4 not in p.dealt  # CASH-4
    assert dict(p.missed) == {4: Missed.BIG}  # BLIND-5
    assert next(s for s in after_hand(p, table) if s.seat == 4).missed_blinds == Missed.BIG


def test_btn_2_previous_bb_sitting_out_misses_the_small_blind() -> None:
    table = seats(1, 2, 3, 4, 5, 6, sitting_out=(3,))
    p = next_hand(BTN1, table, tournament=False, profile=LIVE_CASH)
    assert layout(p) == (2, None, 4)
    assert dict(p.missed) == {3: Missed.SMALL}


def test_btn_1_cash_first_button_must_be_a_player() -> None:
    with pytest.raises(RulesError, match="BTN-1"):
        first_hand(seats(2, 3, 4), button=1, tournament=False, profile=LIVE_CASH)
    p = first_hand(seats(2, 3, 4), button=4, tournament=False, profile=LIVE_CASH)
    assert layout(p) == (4, 2, 3) and p.dealt == (2, 3, 4)


def test_btn_3_heads_up_button_posts_small_blind_in_the_engine() -> None:
    p = first_hand(seats(3, 7), button=7, tournament=False, profile=LIVE_CASH)
    assert layout(p) == (7, 7, 3) and p.dealt == (3, 7)
    hand = Hand(p.game_config(Variant.NT, {3: 100, 7: 100}, 1, 2))
    assert hand.bets == [2, 1]  # index 0 (seat 3) is the BB, the button the SB


def test_btn_3_cash_heads_up_alternates_the_big_blind() -> None:
    p = first_hand(seats(3, 7), button=7, tournament=False, profile=LIVE_CASH)
    bbs = []
    for _ in range(4):
        p = next_hand(p, seats(3, 7), tournament=False, profile=LIVE_CASH)
        bbs.append(p.big_blind)
        assert p.small_blind == p.button != p.big_blind
    assert bbs == [7, 3, 7, 3]


def test_btn_2_three_handed_to_heads_up_nobody_posts_the_bb_twice() -> None:
    for leaves in (1, 2, 3):
        left = [s for s in (1, 2, 3) if s != leaves]
        p = next_hand(pos(1, 2, 3, (2, 3, 1)), seats(*left), tournament=False,
                      profile=LIVE_CASH)
        assert p.heads_up and p.big_blind != 3 and p.button == p.small_blind


# ---------------------------------------------------------------- new cash players (BLIND-4)
def test_blind_4_post_bb_new_player_posts_a_live_bb_out_of_position() -> None:
    table = seats(1, 2, 3, 4, 5, 6, new=(6,))
    p = next_hand(BTN1, table, tournament=False, profile=LIVE_CASH)
    assert 6 in p.dealt and p.posts == (BlindPost(6),)
    cfg = p.game_config(Variant.NT, {s: 1000 for s in p.dealt}, 5, 10)
    assert cfg.posts == (Post(p.index_of(6), 10, 0),)
    hand = Hand(cfg)
    assert hand.bets[p.index_of(6)] == 10 and hand.pot_total == 25


def test_blind_4_wait_for_bb_new_player_waits_until_the_bb_reaches_them() -> None:
    table = seats(1, 2, 3, 4, 5, 6, new=(6,))
    p = next_hand(BTN1, table, tournament=False, profile=WAIT)
    assert 6 in p.waiting and 6 not in p.dealt and not p.posts
    table = list(after_hand(p, table))
    p = next_hand(p, table, tournament=False, profile=WAIT)  # BB on 5
    assert 6 not in p.dealt
    p = next_hand(p, list(after_hand(p, table)), tournament=False, profile=WAIT)
    assert p.big_blind == 6 and 6 in p.dealt and not p.posts


def test_blind_4_wait_or_post_bb_follows_the_players_choice() -> None:
    wants = seats(1, 2, 3, 4, 5, 6, new=(6,), wants_to_post=(6,))
    waits = seats(1, 2, 3, 4, 5, 6, new=(6,))
    assert next_hand(BTN1, wants, tournament=False, profile=WAIT_OR_POST).posts == (
        BlindPost(6),)
    assert 6 in next_hand(BTN1, waits, tournament=False, profile=WAIT_OR_POST).waiting


def test_blind_4_new_player_between_button_and_small_blind_waits_a_hand() -> None:
    # seat 2 (last hand's SB) leaves and a new player takes it: the button stays on 1 and
    # seat 2 now sits between the button and the SB (seat 3)
    table = seats(1, 2, 3, 4, 5, 6, new=(2,))
    p = next_hand(BTN1, table, tournament=False, profile=LIVE_CASH)
    assert layout(p) == (1, 3, 4) and 2 in p.waiting and not p.posts
    p = next_hand(p, list(after_hand(p, table)), tournament=False, profile=LIVE_CASH)
    assert 2 in p.dealt  # now behind the button


def test_blind_6_player_from_a_closed_table_joins_without_posting() -> None:
    table = seats(1, 2, 3, 4, 5, 6, new=(6,), transferred=(6,))
    p = next_hand(BTN1, table, tournament=False, profile=WAIT)
    assert 6 in p.dealt and not p.posts


def test_blind_5_online_returning_player_waits_for_the_bb() -> None:
    table = [replace(s, missed_blinds=Missed.BIG) if s.seat == 6 else s
             for s in seats(1, 2, 3, 4, 5, 6)]
    p = next_hand(BTN1, table, tournament=False, profile=ONLINE)
    assert 6 in p.waiting and not p.posts
    table = list(after_hand(p, table))
    p = next_hand(p, table, tournament=False, profile=ONLINE)
    assert p.big_blind == 5 and 6 in p.waiting
    p = next_hand(p, list(after_hand(p, table)), tournament=False, profile=ONLINE)
    assert p.big_blind == 6 and not p.posts


def test_blind_5_live_returning_player_posts_bb_live_and_sb_dead() -> None:
    table = [replace(s, missed_blinds=Missed.BIG | Missed.SMALL) if s.seat == 6 else s
             for s in seats(1, 2, 3, 4, 5, 6)]
    p = next_hand(BTN1, table, tournament=False, profile=LIVE_CASH)
    assert p.posts == (BlindPost(6, live_big=True, dead_small=True),)
    hand = Hand(p.game_config(Variant.NT, {s: 1000 for s in p.dealt}, 5, 10))
    i = p.index_of(6)
    # the live BB is the player's stake, the dead SB the table's (BLIND-5, ANTE-4)
    assert hand.bets[i] == 10 and hand.contrib[i] == 10 and hand.dead_money == 5
    assert hand.pot_total == 30
    assert after_hand(p, table)[5].missed_blinds == Missed.NONE


def test_blind_5_missed_small_blind_only_is_posted_dead() -> None:
    table = [replace(s, missed_blinds=Missed.SMALL) if s.seat == 6 else s
             for s in seats(1, 2, 3, 4, 5, 6)]
    p = next_hand(BTN1, table, tournament=False, profile=LIVE_CASH)
    assert p.posts == (BlindPost(6, live_big=False, dead_small=True),)


def test_cash_fresh_start_when_two_players_and_one_waits() -> None:
    # heads-up, the BB leaves, a new player sits down who would wait for the BB
    prev = pos(1, 1, 5, (5, 1))
    p = next_hand(prev, seats(1, 3, new=(3,)), tournament=False, profile=WAIT)
    assert sorted(p.dealt) == [1, 3] and p.heads_up


def test_cash_9_button_passes_of_an_absent_player_are_counted() -> None:
    table = seats(1, 2, 3, 4, 5, 6, sitting_out=(4,))
    passes = 0
    p = BTN1
    for _ in range(12):
        q = next_hand(p, table, tournament=False, profile=LIVE_CASH)
        passes += button_passed(p, q, 4)
        p = q
    assert passes == 2  # five players, 12 hands: the button goes from 3 to 5 twice
    assert not button_passed(BTN1, replace(BTN1), 4)
    assert button_passed(BTN1, pos(4, 5, 6, (5, 6, 1, 2, 3, 4)), 4)
    assert not button_passed(BTN1, pos(3, 5, 6, (5, 6, 1, 2, 3)), 4)


# ---------------------------------------------------------------- DEAL-3, can_start
def test_deal_3_online_needs_three_players_unless_the_last_hand_had_three() -> None:
    two = seats(1, 2)
    with pytest.raises(IllegalActionError, match="DEAL-3"):
        verify_can_start(two, tournament=False, profile=ONLINE)
    assert can_start(two, tournament=False, profile=ONLINE, previous=pos(1, 2, 3, (2, 3, 1)))
    assert not can_start(two, tournament=False, profile=ONLINE, previous=pos(1, 1, 2, (2, 1)))
    assert can_start(two, tournament=False, profile=LIVE_CASH)  # DEAL-3 is online-only


def test_cash_4_sitting_out_players_do_not_count() -> None:
    with pytest.raises(IllegalActionError, match="CASH-4"):
        verify_can_start(seats(1, 2, sitting_out=(2,)), tournament=False, profile=LIVE_CASH)
    assert can_start(seats(1, 2, sitting_out=(2,)), tournament=True, profile=LIVE_TOURNAMENT)


def test_seats_are_checked() -> None:
    with pytest.raises(RulesError):
        SeatStatus(11, 100)
    with pytest.raises(RulesError):
        verify_can_start(seats(1, 1, 2), tournament=True, profile=LIVE_TOURNAMENT)
    with pytest.raises(RulesError, match="position order"):
        pos(1, 3, 2, (3, 2, 1))


# ---------------------------------------------------------------- tournaments (BTN-4..7)
def test_btn_4_initial_button_last_occupied_seat_or_draw() -> None:
    assert initial_button(seats(2, 5, 8), profile=ONLINE) == 8
    assert initial_button(seats(2, 5, 8), profile=LIVE_TOURNAMENT, drawn=4) == 4
    with pytest.raises(RulesError, match="BTN-4"):
        initial_button(seats(2, 5, 8), profile=LIVE_TOURNAMENT)
    p = first_hand(seats(2, 5, 8), button=4, tournament=True, profile=LIVE_TOURNAMENT)
    assert layout(p) == (4, 5, 8) and p.dealt == (5, 8, 2)  # drawn on an empty seat


def test_btn_5_example_1_sb_eliminated_dead_button_on_the_empty_seat() -> None:
    p = next_hand(BTN1, seats(1, 3, 4, 5, 6), tournament=True, profile=LIVE_TOURNAMENT)
    assert layout(p) == (2, 3, 4) and p.dealt == (3, 4, 5, 6, 1)


def test_btn_5_example_2_bb_eliminated_no_small_blind() -> None:
    p = next_hand(BTN1, seats(1, 2, 4, 5, 6), tournament=True, profile=LIVE_TOURNAMENT)
    assert layout(p) == (2, None, 4) and p.dealt == (4, 5, 6, 1, 2)
    q = next_hand(p, seats(1, 2, 4, 5, 6), tournament=True, profile=LIVE_TOURNAMENT)
    assert layout(q) == (3, 4, 5)  # the button moves onto seat 3, now empty: dead


def test_btn_5_stuck_button_stays_on_a_player() -> None:
    p = next_hand(BTN1, seats(1, 3, 4, 5, 6), tournament=True, profile=STUCK)
    assert layout(p) == (1, 3, 4)
    p = next_hand(BTN1, seats(1, 2, 4, 5, 6), tournament=True, profile=STUCK)
    assert layout(p) == (2, None, 4)
    q = next_hand(p, seats(1, 2, 4, 5, 6), tournament=True, profile=STUCK)
    assert layout(q) == (2, 4, 5)  # stuck on seat 2 for a second hand


def test_btn_6_example_1_heads_up_nobody_posts_the_bb_twice() -> None:
    p = next_hand(pos(1, 2, 3, (2, 3, 1)), seats(2, 3), tournament=True,
                  profile=LIVE_TOURNAMENT)
    assert layout(p) == (3, 3, 2) and p.dealt == (2, 3)


@pytest.mark.parametrize("out", [2, 3])
def test_btn_6_heads_up_after_a_blind_is_eliminated(out: int) -> None:
    left = [s for s in (1, 2, 3) if s != out]
    p = next_hand(pos(1, 2, 3, (2, 3, 1)), seats(*left), tournament=True,
                  profile=LIVE_TOURNAMENT)
    assert p.heads_up and p.big_blind == 1 and p.button == p.small_blind


def test_btn_7_new_player_is_not_dealt_between_the_sb_and_the_button() -> None:
    # last hand: button 9, SB 1, BB 3; a late entry sits down in the empty seat 2
    prev = pos(9, 1, 3, (1, 3, 5, 9))
    p = next_hand(prev, seats(1, 2, 3, 5, 9, new=(2,)), tournament=True,
                  profile=LIVE_TOURNAMENT)
    # the button moves to seat 1, the SB to 3, the BB to 5: seat 2 lies between
    assert layout(p) == (1, 3, 5) and 2 in p.waiting and 2 not in p.dealt


def test_btn_7_new_player_takes_over_the_bb_of_their_seat() -> None:
    p = next_hand(BTN1, seats(1, 2, 3, 4, 5, 6, new=(4,)), tournament=True,
                  profile=LIVE_TOURNAMENT)
    assert p.big_blind == 4 and 4 in p.dealt


def test_blind_7_sitting_out_tournament_player_is_dealt_posts_and_is_folded() -> None:
    p = next_hand(BTN1, seats(1, 2, 3, 4, 5, 6, sitting_out=(4,)), tournament=True,
                  profile=LIVE_TOURNAMENT)
    assert p.big_blind == 4 and p.auto_fold == (4,)


# ---------------------------------------------------------------- GameConfig.posts
def test_blind_4_live_post_counts_toward_the_call_and_keeps_the_option() -> None:
    hand = Hand(GameConfig(Variant.NT, (100,) * 4, 1, 2, posts=(Post(3, 2),)))
    hand.deal_hole(0, (0, 1))
    hand.deal_hole(1, (2, 3))
    hand.deal_hole(2, (4, 5))
    hand.deal_hole(3, (6, 7))
    assert hand.actor == 2
    hand.call()
    assert hand.actor == 3 and hand.can_check()  # the poster has the option like a BB
    hand.check()
    hand.call()
    hand.check()
    assert hand.pot_total == 8


def test_blind_5_dead_post_is_in_the_pot_but_not_a_bet() -> None:
    hand = Hand(GameConfig(Variant.NT, (100,) * 4, 1, 2, posts=(Post(2, 2, 1),)))
    assert hand.bets == [1, 2, 2, 0] and hand.contrib[2] == 2 and hand.pot_total == 6
    assert hand.dead_money == 1  # nobody's stake: it goes to the main pot (POT-7)
    short = Hand(GameConfig(Variant.NT, (100, 100, 2, 100), 1, 2, posts=(Post(2, 2, 1),)))
    assert short.bets[2] == 2 and short.stacks[2] == 0  # BLIND-3: the live part first


@pytest.mark.parametrize("posts", [(Post(1, 2),), (Post(2, 2), Post(2, 1)), (Post(4, 2),),
                                   (Post(2, 3),)])
def test_blind_4_posts_are_validated(posts: tuple[Post, ...]) -> None:
    with pytest.raises(ConfigError):
        GameConfig(Variant.NT, (100,) * 4, 1, 2, posts=posts)
    with pytest.raises(ConfigError):
        Post(0, 0, 0)


# ---------------------------------------------------------------- properties
def _check_hand(p: Positions, table: list[SeatStatus]) -> None:
    """The layout is one the engine accepts, with blinds where the layout says."""
    stacks = {s.seat: s.stack for s in table}
    hand = Hand(p.game_config(Variant.NT, stacks, 1, 2))
    assert hand.bets[p.index_of(p.big_blind)] == 2
    if p.small_blind is not None:
        assert hand.bets[p.index_of(p.small_blind)] == 1
    assert not any(_strictly_between(p.button, p.sb_position, s) for s in p.dealt)


def _strictly_between(a: int, b: int, x: int) -> bool:
    return 0 < (x - a) % 10 < (b - a) % 10


@st.composite
def _events(draw: st.DrawFn, hands: int) -> list[tuple[str, int]]:
    return draw(st.lists(st.tuples(st.sampled_from(["out", "join", "sit", "stay", "stay"]),
                                   st.integers(1, 10)), min_size=hands, max_size=hands))


@settings(max_examples=150, deadline=None)
@given(st.sets(st.integers(1, 10), min_size=2, max_size=10), st.integers(1, 10),
       _events(60), st.booleans())
def test_btn_5_btn_6_tournament_bb_once_per_orbit_never_twice_in_a_row(
        start: set[int], button: int, events: list[tuple[str, int]], stuck: bool) -> None:
    profile = STUCK if stuck else LIVE_TOURNAMENT
    table = {s: SeatStatus(s, 100) for s in start}
    who = {s: s for s in start}  # the player in each seat; a newcomer gets a new id
    p = first_hand(list(table.values()), button=button, tournament=True, profile=profile)
    history = [(who[p.big_blind], set(who.values()))]
    for k, (what, seat) in enumerate(events):
        table = {s: replace(v, new=False) for s, v in table.items()}
        if what == "out" and seat in table and len(table) > 2:
            del table[seat], who[seat]
        elif what == "join" and seat not in table:
            table[seat] = SeatStatus(seat, 100, new=True)
            who[seat] = 100 + k
        elif what == "sit" and seat in table:
            table[seat] = replace(table[seat], sitting_out=not table[seat].sitting_out)
        q = next_hand(p, list(table.values()), tournament=True, profile=profile)
        _check_hand(q, list(table.values()))
        assert q.big_blind != p.big_blind  # BTN-6: never twice in a row
        assert set(q.dealt) | set(q.waiting) == set(table)
        assert set(q.auto_fold) == {s for s in q.dealt if table[s].sitting_out}  # BLIND-7
        history.append((who[q.big_blind], set(who.values())))
        p = q
    # BTN-5: between two BBs of one player, everyone seated all along had it exactly once
    for i, (bb, _) in enumerate(history):
        j = next((k for k in range(i + 1, len(history)) if history[k][0] == bb), None)
        if j is None:
            continue
        stayed = set.intersection(*(present for _, present in history[i:j + 1])) - {bb}
        between = [b for b, _ in history[i + 1:j]]
        for s in stayed:
            assert between.count(s) == 1, (bb, s, history[i:j + 1])


@settings(max_examples=150, deadline=None)
@given(st.sets(st.integers(1, 10), min_size=3, max_size=10), _events(40),
       st.sampled_from([LIVE_CASH, WAIT, WAIT_OR_POST, ONLINE]))
def test_btn_2_cash_bb_moves_one_player_at_a_time(
        start: set[int], events: list[tuple[str, int]], profile: object) -> None:
    assert isinstance(profile, type(LIVE_CASH))
    table = {s: SeatStatus(s, 100) for s in start}
    p = first_hand(list(table.values()), button=min(start), tournament=False, profile=profile)
    for what, seat in events:
        if what == "out" and seat in table and len(table) > 3:
            del table[seat]
        elif what == "join" and seat not in table:
            table[seat] = SeatStatus(seat, 100, new=True, wants_to_post=seat % 2 == 0)
        elif what == "sit" and seat in table:
            table[seat] = replace(table[seat], sitting_out=not table[seat].sitting_out)
        seated = list(table.values())
        if not can_start(seated, tournament=False, profile=profile, previous=p):
            continue
        q = next_hand(p, seated, tournament=False, profile=profile)
        _check_hand(q, seated)
        playing = sorted(s for s, v in table.items() if not v.sitting_out)
        expected = min(playing, key=lambda s: (s - p.big_blind - 1) % 10)
        assert q.big_blind == expected != p.big_blind  # BTN-2.1
        assert not set(q.dealt) & {s for s, v in table.items() if v.sitting_out}  # CASH-4
        assert sorted(q.dealt + q.waiting) == playing  # everyone else waits
        assert {b.seat for b in q.posts} <= {s for s, v in table.items()
                                            if v.new or v.missed_blinds}  # BLIND-4/5
        table = {v.seat: v for v in after_hand(q, seated)}
        p = q
