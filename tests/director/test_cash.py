"""Cash games on the floor (CASH-1, -2, -4, -8, -10; the rake ledger)."""

from __future__ import annotations

import itertools

import pytest

from host_bridge.director import CashFloor, DirectorError, Stake
from host_bridge.director.cash import LIVE_STAKES, Due

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
    assert f.due_for_removal(T0 + 601) == [Due("a", 1, 1, "CASH-4")]
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
    assert due == [[], [], [], [], []] and f.passes[("p4", 1)] == 1  # passed seat 4 once
    assert f.button_moved(1, hands[-1], hands[0]) == []  # second pass, but no waiting list
    assert f.passes[("p4", 1)] == 2 and f.due_for_removal(T0) == []
    f.join_list("w", "NL10")
    assert f.button_moved(1, hands[2], hands[3]) == ["p4"]
    assert f.due_for_removal(T0) == [Due("p4", 1, 4, "CASH-9")]


def test_cash_11_closed_table_players_draw_for_seats_and_bring_their_stake() -> None:
    import random

    f = floor()
    for s in (1, 2, 3):
        f.sit_down(f"p{s}", 1, s, 1_000, T0)
    order = f.close_table(1, random.Random(4))
    assert sorted(order) == ["p1", "p2", "p3"] and 1 not in f.tables and not f.where
    assert f.stack_on_moving(2_500, 2) == 1_000  # capped at the maximum (CASH-10)
    assert f.stack_on_moving(700, 2) == 700


def test_cash_8_live_limits_refused_name_cash_8() -> None:
    f = CashFloor(LIVE_STAKES)
    f.add_table(7, "NLHE 10/20")
    with pytest.raises(DirectorError, match=r"100000 to 500000.*\(CASH-8\)"):
        f.sit_down("a", 7, 1, 99_999, T0)


def test_cash_10_one_table_at_a_time_live_but_several_online() -> None:
    f = floor()
    f.sit_down("a", 1, 1, 1_000, T0)
    with pytest.raises(DirectorError, match="CASH-10"):
        f.sit_down("a", 2, 1, 1_000, T0)
    online = CashFloor((Stake("NL10", 5, 10, online=True),))
    online.add_table(1, "NL10", 6)
    online.add_table(2, "NL10", 6)
    online.sit_down("a", 1, 1, 1_000, T0)
    online.sit_down("a", 2, 1, 1_000, T0)
    assert online.where["a"] == {1: 1, 2: 1}
    with pytest.raises(DirectorError, match="CASH-1"):
        online.leave("a", 900, T0)  # which table?
    online.leave("a", 900, T0, table=2)
    assert online.where["a"] == {1: 1}


def test_cash_1_call_next_holds_the_seat_and_skips_the_called() -> None:
    f = floor()
    with pytest.raises(DirectorError, match=r"nobody is waiting.*CASH-1"):
        f.call_next("NL10")
    for p in ("a", "b"):
        f.join_list(p, "NL10")
    assert f.call_next("NL10") == ("a", 1, 1)
    assert f.call_next("NL10") == ("b", 2, 1)
    with pytest.raises(DirectorError, match="held for a player called"):
        f.sit_down("b", 1, 1, 1_000, T0)
    f.sit_down("a", 1, 1, 1_000, T0)
    assert f.called == {"b": (2, 1)} and f.lists["NL10"] == ["b"]
    f.leave_list("b", "NL10")
    assert f.called == {}


def test_cash_3_no_ratholing_in_deepstack() -> None:
    deep = Stake("Deepstack NL10", 5, 10, 1_000, 2_500, no_rathole=True)
    f = CashFloor((deep,))
    f.add_table(1, deep.name, 6)
    f.sit_down("a", 1, 1, 2_000, T0)
    f.leave("a", 3_000, T0)
    assert f.counter("a", T0) == 0
    assert f.limits("a", 1, T0 + MIN).rule == "CASH-3"
    assert f.buy_in_limits("a", 1, T0 + MIN) == (3_000, 3_000)  # never less, counter 0
    with pytest.raises(DirectorError, match="CASH-3"):
        f.sit_down("a", 1, 1, 2_500, T0 + MIN)
    f.sit_down("a", 1, 1, 3_000, T0 + MIN)
    f.leave("a", 1_800, T0 + 2 * MIN)
    assert f.buy_in_limits("a", 1, T0 + 3 * MIN) == (1_800, 2_500)
    assert f.buy_in_limits("a", 1, T0 + 40 * MIN) == (1_000, 2_500)  # 30 min passed


def test_cash_5_global_sit_out_everywhere_and_500_seconds() -> None:
    f = CashFloor((Stake("NL10", 5, 10, online=True),))
    for t in (1, 2, 3):
        f.add_table(t, "NL10", 6)
    f.sit_down("a", 1, 2, 1_000, T0)
    f.sit_down("a", 2, 3, 1_000, T0)
    f.sit_down("b", 3, 1, 1_000, T0)
    f.global_sit_out.add("a")
    assert f.sit_out("a", T0, table=2) == [1, 2]  # at all their cash tables
    assert f.due_for_removal(T0 + 500) == []
    assert f.due_for_removal(T0 + 501) == [Due("a", 1, 2, "CASH-5"), Due("a", 2, 3, "CASH-5")]
    f.sit_in("a", table=1)  # back at one table: back at all
    assert f.sitting_out == {}
    f.sit_out("b", T0)  # no option: this table only, ten minutes
    assert f.due_for_removal(T0 + 501) == []


def test_cash_6_auto_top_up_off_by_default_then_to_the_initial_buy_in() -> None:
    f = floor()
    f.sit_down("a", 1, 1, 800, T0)
    f.sit_down("b", 1, 2, 1_000, T0)
    stacks = {1: 650, 2: 400}
    assert f.top_ups(1, stacks) == {}  # off by default
    f.top_up.update({"a", "b"})
    assert f.top_ups(1, stacks) == {1: 150, 2: 600}
    assert f.top_ups(1, {1: 900, 2: 0}) == {}  # above the buy-in; busted


BANZAI = Stake("Banzai NL5", 25, 50, 500, 500, rule="CASH-7", online=True, banzai=True,
               max_tables=2)


def banzai() -> CashFloor:
    f = CashFloor((BANZAI,))
    for t in (1, 2, 3, 4):
        f.add_table(t, BANZAI.name, 5)
    return f


def test_cash_13_banzai_tables_per_stake() -> None:
    f = banzai()
    f.sit_down("a", 1, 1, 500, T0)
    f.sit_down("a", 2, 1, 500, T0)
    with pytest.raises(DirectorError, match="CASH-13"):
        f.sit_down("a", 3, 1, 500, T0)
    with pytest.raises(DirectorError, match="CASH-7"):
        f.sit_down("b", 3, 1, 450, T0)  # exactly 10 BB


def test_cash_14_banzai_return_with_the_same_stack_or_five_resets_a_day() -> None:
    f = banzai()
    f.sit_down("a", 1, 1, 500, T0)
    f.leave("a", 1_300, T0)
    with pytest.raises(DirectorError, match=r"exactly 1300.*CASH-14"):
        f.sit_down("a", 3, 1, 500, T0 + MIN)  # any table of the stake
    assert f.limits("a", 3, T0 + 31 * MIN).low == 500  # 30 minutes passed
    for i in range(5):
        f.sit_down("a", 3, 1, 500, T0 + MIN + i, reset=True)
        f.leave("a", 1_300, T0 + MIN + i, table=3)
    assert f.resets("a", T0 + MIN) == 5
    with pytest.raises(DirectorError, match=r"resets of today.*CASH-14"):
        f.sit_down("a", 3, 1, 500, T0 + 2 * MIN, reset=True)
    f.sit_down("a", 3, 1, 1_300, T0 + 2 * MIN)
    f.leave("a", 400, T0 + 3 * MIN, table=3)
    assert f.limits("a", 3, T0 + 4 * MIN) == f.limits("z", 3, T0)  # 8 BB: a fresh 10 BB


def test_the_floor_comes_back_whole_from_json() -> None:
    import json

    f = banzai()
    f.sit_down("a", 1, 1, 500, T0)
    f.leave("a", 1_300, T0)
    f.sit_down("b", 2, 2, 500, T0)
    f.global_sit_out.add("b")
    f.sit_out("b", T0)
    f.join_list("c", BANZAI.name)
    f.call_next(BANZAI.name)
    f.top_up.add("b")
    f.record_rake(2, "h1", 30)
    again = CashFloor.from_json(json.loads(json.dumps(f.to_json())))
    assert again.to_json() == f.to_json()
    assert again.limits("a", 3, T0 + MIN).rule == "CASH-14"
    assert again.due_for_removal(T0 + 501) == [Due("b", 2, 2, "CASH-5")]


def test_cash_1_a_new_table_takes_the_waiting_players_in_list_order() -> None:
    f = floor()
    f.add_table(3, "NL10", 2)
    for p in ("a", "b", "c"):
        f.join_list(p, "NL10")
    f.call_next("NL10")  # a is called to table 1 already
    assert f.call_to("NL10", 3) == [("b", 1), ("c", 2)]
    assert f.called == {"a": (1, 1), "b": (3, 1), "c": (3, 2)}
