"""Cash games on the floor (CASH-1, -2, -4, -8, -10; the rake ledger)."""

from __future__ import annotations

import itertools

import pytest

from host_bridge.director import CashFloor, DirectorError, Stake
from host_bridge.director.cash import LIVE_STAKES

NL10 = Stake("NL10", 5, 10)
T0 = 1_700_000_000.0  # some UTC moment
MIN = 60.0


def floor() -> CashFloor:
    f = CashFloor((NL10, *LIVE_STAKES))
    f.add_table(1, "NL10", 6)
    f.add_table(2, "NL10", 6)
    return f


def test_cash_2_normal_limits() -> None:
    assert floor().buy_in_limits("a", 1, T0) == (500, 1_000)


def test_cash_2_1_return_with_70_bb() -> None:
    f = floor()
    f.sit_down("a", 1, 1, 1_000, T0)
    f.leave("a", 700, T0)
    assert f.buy_in_limits("a", 1, T0 + 10 * MIN) == (700, 1_000)
    assert f.buy_in_limits("a", 2, T0 + 10 * MIN) == (500, 1_000)  # another table
    with pytest.raises(DirectorError, match="CASH-2"):
        f.sit_down("a", 1, 1, 600, T0 + 10 * MIN)
    assert "a" not in f.where


def test_cash_2_2_counter_and_thirty_minutes() -> None:
    f = floor()
    f.sit_down("a", 1, 1, 1_000, T0)
    f.leave("a", 1_500, T0)
    assert f.buy_in_limits("a", 1, T0 + MIN) == (1_000, 1_500)
    assert f.buy_in_limits("a", 1, T0 + 45 * MIN) == (500, 1_000)
    for i in range(5):  # five returns with >= 100 BB
        f.sit_down("a", 1, 1, 1_000, T0 + i * 2 * MIN + MIN)
        f.leave("a", 1_500, T0 + i * 2 * MIN + MIN)
    assert f.counter("a", T0 + 11 * MIN) == 5
    assert f.buy_in_limits("a", 1, T0 + 12 * MIN) == (1_500, 1_500)
    assert f.counter("a", T0 + 86_400) == 0  # resets at 00:00 UTC


def test_cash_2_counter_read_before_the_return_counts() -> None:
    f = floor()
    f.sit_down("a", 1, 1, 1_000, T0)
    for i in range(4):
        f.leave("a", 1_500, T0 + i * MIN)
        f.sit_down("a", 1, 1, 1_000, T0 + i * MIN + 1)
    f.leave("a", 1_500, T0 + 10 * MIN)
    assert f.counter("a", T0 + 10 * MIN) == 4
    assert f.buy_in_limits("a", 1, T0 + 11 * MIN) == (1_000, 1_500)  # counter 4: 0-4 row


def test_cash_8_live_stake_limits() -> None:
    f = CashFloor(LIVE_STAKES)
    f.add_table(7, "NLHE 10/20")
    assert f.buy_in_limits("a", 7, T0) == (100_000, 500_000)


def test_cash_1_waiting_list_and_assignment() -> None:
    f = floor()
    f.sit_down("x", 2, 1, 1_000, T0)
    assert f.join_list("a", "NL10") == 1 and f.join_list("b", "NL10") == 2
    with pytest.raises(DirectorError, match="CASH-1"):
        f.join_list("a", "NL10")
    assert f.suggest_seat("NL10") == ("a", 1, 1)  # the table with the fewest players
    f.leave_list("a", "NL10")
    f.history["b"] = {2}
    assert f.suggest_seat("NL10") == ("b", 2, 2)  # a table played before comes first
    f.sit_down("b", 2, 2, 800, T0)
    assert f.lists["NL10"] == []


def test_cash_4_sit_out_more_than_ten_minutes() -> None:
    f = floor()
    f.sit_down("a", 1, 1, 1_000, T0)
    f.sit_out("a", T0)
    assert f.due_for_removal(T0 + 600) == []
    assert f.due_for_removal(T0 + 601) == ["a"]
    f.sit_in("a")
    assert f.due_for_removal(T0 + 9999) == []


def test_cash_10_1_table_change_balance() -> None:
    f = floor()
    for i in range(6):
        f.sit_down(f"l{i}", 1, i + 1, 1_000, T0)
    for i in range(5):
        f.sit_down(f"r{i}", 2, i + 1, 1_000, T0)
    f.verify_change("l0", 2)  # 6 vs 5 -> allowed
    f.leave("l5", 1_000, T0)
    with pytest.raises(DirectorError, match="CASH-10"):
        f.verify_change("l0", 2)  # 5 vs 5 -> refused


def test_rake_ledger_per_table_idempotent() -> None:
    f = floor()
    assert f.record_rake(1, "h1", 40)
    assert not f.record_rake(1, "h1", 40)  # a repeated report
    with pytest.raises(DirectorError, match="RAKE-1"):
        f.record_rake(1, "h1", 41)
    f.record_rake(2, "h1", 10)
    f.record_rake(1, "h2", 5)
    assert f.rake_by_table() == {1: 45, 2: 10}


def test_cash_9_removed_at_the_second_button_pass_only_with_a_waiting_list() -> None:
    from controller.rules.button import Positions

    f = floor()
    for s in (1, 2, 3, 4):
        f.sit_down(f"p{s}", 1, s, 1_000, T0)
    f.sit_out("p4", T0)
    hands = [Positions(1, 2, 3, (2, 3, 1)), Positions(2, 3, 1, (3, 1, 2)),
             Positions(3, 1, 2, (1, 2, 3)), Positions(1, 2, 3, (2, 3, 1)),
             Positions(2, 3, 1, (3, 1, 2)), Positions(3, 1, 2, (1, 2, 3))]
    due = [f.button_moved(1, a, b) for a, b in itertools.pairwise(hands)]
    assert due == [[], [], [], [], []] and f.passes["p4"] == 1  # passed seat 4 once
    assert f.button_moved(1, hands[-1], hands[0]) == []  # second pass, but no waiting list
    assert f.passes["p4"] == 2
    f.join_list("w", "NL10")
    assert f.button_moved(1, hands[2], hands[3]) == ["p4"]


def test_cash_11_closed_table_players_draw_for_seats_and_bring_their_stake() -> None:
    import random

    f = floor()
    for s in (1, 2, 3):
        f.sit_down(f"p{s}", 1, s, 1_000, T0)
    order = f.close_table(1, random.Random(4))
    assert sorted(order) == ["p1", "p2", "p3"] and 1 not in f.tables and not f.where
    assert f.stack_on_moving(2_500, 2) == 1_000  # capped at the maximum (CASH-10)
    assert f.stack_on_moving(700, 2) == 700
