"""Seat draw, late entries, balancing, breaking and the final table (TOURN-2/4/19/20/21/28)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.rules.button import Positions
from controller.rules.config import LIVE_TOURNAMENT, ONLINE
from host_bridge.director.errors import SeatingError
from host_bridge.director.seating import Floor, Move


def _seat(floor: Floor, table: int, seats: list[int], prefix: str) -> None:
    for s in seats:
        floor.apply(Move(f"{prefix}{s}", None, None, table, s, "TOURN-2"))


def _played(floor: Floor, table: int, pos: Positions) -> None:
    floor.hand_started(table)
    floor.hand_ended(table, pos)


def _two_tables(profile=LIVE_TOURNAMENT) -> Floor:  # type: ignore[no-untyped-def]
    """Table 1 full (9) after BTN 1/SB 2/BB 3; table 2 with 6 after BTN 1/SB 2/BB 5."""
    floor = Floor(profile, {1: 9, 2: 9})
    _seat(floor, 1, list(range(1, 10)), "a")
    _seat(floor, 2, [1, 2, 5, 6, 7, 8], "b")
    _played(floor, 1, Positions(1, 2, 3, (2, 3, 4, 5, 6, 7, 8, 9, 1)))
    _played(floor, 2, Positions(1, 2, 5, (2, 5, 6, 7, 8, 1)))
    return floor


def test_tourn_2_draw_is_random_and_even() -> None:
    players = [f"p{i}" for i in range(20)]
    a, b = Floor(LIVE_TOURNAMENT, {1: 9, 2: 9, 3: 9}), Floor(LIVE_TOURNAMENT, {1: 9, 2: 9, 3: 9})
    a.draw(players, random.Random(1))
    b.draw(players, random.Random(2))
    assert sorted(a.counts().values()) == [6, 7, 7]
    assert a.where != b.where
    a.check()
    with pytest.raises(SeatingError, match="TOURN-2"):
        a.draw(["x"], random.Random(1))


def test_btn_5_prediction_of_the_next_hand() -> None:
    floor = _two_tables()
    assert floor.next_big_blind(1) == "a4"
    assert floor.between_sb_and_button(2) == {3, 4}  # next button 2, next SB 5
    assert floor.worst_seats(2) == [9]


def test_tourn_19_bb_to_worst_moves_the_next_bb_to_the_worst_seat_never_the_sb() -> None:
    floor = _two_tables()
    assert floor.stopped_tables() == [2]  # 3 short of the largest table
    moves = floor.suggest_balance(random.Random(0))
    assert moves == [Move("a4", 1, 4, 2, 9, "TOURN-19")]
    assert floor.where["a4"] == (1, 4)  # a suggestion changes nothing
    floor.apply_all(moves)
    assert floor.counts() == {1: 8, 2: 7} and floor.stopped_tables() == []
    floor.check()


def test_tourn_19_never_the_small_blind_seat() -> None:
    floor = Floor(LIVE_TOURNAMENT, {1: 9, 2: 9})
    _seat(floor, 1, list(range(1, 10)), "a")
    _seat(floor, 2, [1, 2, 3, 4, 5, 6], "b")
    _played(floor, 1, Positions(1, 2, 3, (2, 3, 4, 5, 6, 7, 8, 9, 1)))
    _played(floor, 2, Positions(1, 2, 3, (2, 3, 4, 5, 6, 1)))
    del floor.tables[2].players[3]  # the BB busted: seat 3 is next hand's SB seat
    del floor.where["b3"]
    assert 3 not in floor.worst_seats(2)
    assert floor.worst_seats(2)[0] == 7


def test_tourn_20_online_random_player_far_from_the_bb() -> None:
    floor = Floor(ONLINE, {1: 9, 2: 9})
    _seat(floor, 1, [1, 2, 3, 4, 5, 6], "a")
    _seat(floor, 2, [1, 2, 5, 6], "b")
    _played(floor, 1, Positions(1, 2, 3, (2, 3, 4, 5, 6, 1)))
    _played(floor, 2, Positions(1, 2, 5, (2, 5, 6, 1)))
    movers = set()
    for seed in range(30):
        (move,) = floor.suggest_balance(random.Random(seed))
        assert (move.to_table, move.to_seat, move.rule) == (2, 9, "TOURN-20")
        movers.add(move.player)
    assert len(movers) > 2


def test_tourn_4_late_entry_never_between_the_sb_and_the_button() -> None:
    floor = Floor(LIVE_TOURNAMENT, {1: 9})
    _seat(floor, 1, [1, 2, 5, 6], "b")
    _played(floor, 1, Positions(1, 2, 5, (2, 5, 6, 1)))
    seats = {floor.suggest_late_entry("new", random.Random(s)).to_seat for s in range(60)}
    assert seats == {7, 8, 9}
    with pytest.raises(SeatingError, match="TOURN-4"):
        floor.apply(Move("new", None, None, 1, 3, "TOURN-4"))
    assert "new" not in floor.where


def test_tourn_4_no_allowed_seat_is_refused() -> None:
    floor = Floor(LIVE_TOURNAMENT, {1: 3})
    _seat(floor, 1, [1, 3], "b")
    _played(floor, 1, Positions(1, 1, 3, (3, 1)))  # heads-up: next button 1, next SB 3
    assert floor.allowed_seats(1) == []
    with pytest.raises(SeatingError, match="TOURN-4"):
        floor.suggest_late_entry("x", random.Random(0))


def test_invalid_move_changes_nothing() -> None:
    floor = _two_tables()
    before = dict(floor.where)
    with pytest.raises(SeatingError):
        floor.apply(Move("a4", 1, 4, 2, 5, "TOURN-19"))  # seat taken
    with pytest.raises(SeatingError):
        floor.apply_all([Move("a4", 1, 4, 2, 9, "TOURN-19"), Move("a5", 1, 5, 2, 9, "TOURN-19")])
    floor.hand_started(1)
    with pytest.raises(SeatingError, match="TOURN-19"):
        floor.apply(Move("a4", 1, 4, 2, 9, "TOURN-19"))  # moves wait for the hand to end
    assert floor.where == before


def test_tourn_21_break_in_the_announced_order_with_a_random_draw() -> None:
    floor = Floor(LIVE_TOURNAMENT, {1: 9, 2: 9, 3: 9})
    floor.draw([f"p{i}" for i in range(18)], random.Random(3))
    with pytest.raises(SeatingError, match="TOURN-21"):
        floor.announce_break_order([3, 1])
    floor.announce_break_order([2, 3, 1])
    assert floor.table_to_break() == 2
    moved = set(floor.tables[2].players.values())
    moves = floor.break_table(2, random.Random(4))
    assert {m.player for m in moves} == moved and all(m.rule == "TOURN-21" for m in moves)
    assert floor.counts() == {1: 9, 3: 9}
    assert floor.table_to_break() is None  # 18 players do not fit at one table
    with pytest.raises(SeatingError, match="TOURN-21"):
        floor.apply(Move("p0", *floor.where["p0"], 2, 1, "TOURN-19"))  # broken table
    floor.check()


def test_tourn_28_final_table_redraw_button_by_conf() -> None:
    for profile, expect in ((LIVE_TOURNAMENT, None),
                            (LIVE_TOURNAMENT.with_overrides(
                                {"tourn.final_table_button": "seat_10"}), 9)):
        floor = Floor(profile, {1: 9, 2: 9})
        floor.draw([f"p{i}" for i in range(8)], random.Random(5))
        moves, button = floor.final_table_redraw(2, random.Random(6))
        assert len(moves) == 8 and floor.counts() == {2: 8}
        assert floor.tables[2].last is None and floor.tables[2].button == button
        if expect is None:
            assert button in floor.tables[2].players  # drawn among the players
        else:
            assert button == expect  # seat_10: the highest-numbered seat [interp]
        floor.check()


@given(st.lists(st.integers(0, 9), min_size=2, max_size=8), st.integers(0, 10_000),
       st.sampled_from([LIVE_TOURNAMENT, ONLINE]))
def test_tourn_19_20_suggested_moves_balance_any_floor(sizes: list[int], seed: int,
                                                       profile) -> None:  # type: ignore[no-untyped-def]
    floor = Floor(profile, {i + 1: 9 for i in range(len(sizes))})
    rng = random.Random(seed)
    for i, n in enumerate(sizes):
        _seat(floor, i + 1, sorted(rng.sample(range(1, 10), n)), f"t{i + 1}s")
    before = dict(floor.where)
    moves = floor.suggest_balance(rng)
    assert floor.where == before
    floor.apply_all(moves)
    counts = [c for c in floor.counts().values() if c]
    assert not counts or max(counts) - min(counts) <= 1
    assert floor.stopped_tables() == []
    floor.check()


def test_btn_5_stuck_button_between_seats_run_from_the_button_player() -> None:
    floor = Floor(ONLINE, {1: 9})
    _seat(floor, 1, [1, 3, 5, 6], "b")
    _played(floor, 1, Positions(1, None, 3, (3, 5, 6, 1), small_blind_seat=2))
    assert floor.between_sb_and_button(1) == {2}  # the button stays on seat 1 (BTN-5)
    live = Floor(LIVE_TOURNAMENT, {1: 9})
    _seat(live, 1, [1, 3, 5, 6], "b")
    _played(live, 1, Positions(1, None, 3, (3, 5, 6, 1), small_blind_seat=2))
    assert live.between_sb_and_button(1) == set()  # dead button on empty seat 2


def test_tourn_4_seat_number_complete() -> None:
    floor = Floor(LIVE_TOURNAMENT, {1: 9, 2: 9})
    floor.apply(Move("a", None, None, 1, 8, "TOURN-2"))
    assert not floor.seat_number_complete(8)
    floor.apply(Move("b", None, None, 2, 8, "TOURN-2"))
    assert floor.seat_number_complete(8)
