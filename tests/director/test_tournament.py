"""Entries, rebuys, add-ons, re-entry, surrender, bounties, eliminations and prizes
(TOURN-4..17, -24, -25, -32, PEN-6/7, CANCEL via the tournament)."""

from __future__ import annotations

import random

import pytest

from controller.rules.config import ONLINE
from host_bridge.director import (
    DirectorError,
    HandResult,
    PayoutStructure,
    Stage,
    Status,
    Tournament,
)
from host_bridge.director.setup import TournamentSetup

from .helpers import hand, same_table, setup, started


def test_tourn_8_minimum_entrants_and_cancel_1_refund() -> None:
    t = Tournament(setup(min_entrants=5), ONLINE, {1: 9})
    for p in ("a", "b"):
        t.register(p, random.Random(0))
    with pytest.raises(DirectorError, match="TOURN-8"):
        t.start(random.Random(0))
    assert t.stage is Stage.REGISTERING
    refunds = t.cancel()
    assert {p: c.total for p, c in refunds.items()} == {"a": 11_000, "b": 11_000}


def test_tourn_6_one_entry_unless_re_entry() -> None:
    t = started(6, rebuy_levels=0, re_entry=True, max_entries=2, late_registration_levels=2)
    with pytest.raises(DirectorError, match="TOURN-6"):
        t.register("p0", random.Random(0))
    tid, (a, b) = same_table(t, 2)
    with pytest.raises(DirectorError, match="still in play"):
        t.re_enter(a, random.Random(0))
    hand(t, tid, {a: -10_000, b: 10_000})
    assert t.entry(a).status is Status.OUT
    move = t.re_enter(a, random.Random(0))
    assert move.rule == "TOURN-4" and t.entry(a).key == f"{a}#2"
    assert t.entry(a).paid_fees == 1_000 and t.entry(a).stack == 10_000  # TOURN-4, TOURN-13
    t.check()
    tid = t.floor.where[a][0]
    other = next(p for p in t.floor.tables[tid].players.values() if p != a)
    hand(t, tid, {a: -10_000, other: 10_000})
    with pytest.raises(DirectorError, match="TOURN-6"):
        t.re_enter(a, random.Random(0))  # both entries used
    assert sorted(k for k in t.entries if k.startswith(a)) == [a, f"{a}#2"]


def test_tourn_10_1_rebuys_while_at_or_below_the_starting_stack() -> None:
    t = started(4, rebuy_levels=2, rebuy_price=10_000, rebuy_fee=500)
    tid, (a, b) = same_table(t, 2)
    hand(t, tid, {a: -10_000, b: 10_000})
    assert t.entry(a).status is Status.PENDING and a in t.floor.where
    t.rebuy(a)
    assert t.entry(a).stack == 10_000
    t.rebuy(a)
    assert t.entry(a).stack == 20_000
    with pytest.raises(DirectorError, match="TOURN-10"):
        t.rebuy(a)
    assert t.entry(a).paid_fees == 1_000 + 2 * 500 and t.entry(a).rebuys == 2
    t.check()


def test_tourn_10_2_stack_of_4000() -> None:
    t = started(4, rebuy_levels=2)
    tid, (a, b) = same_table(t, 2)
    hand(t, tid, {a: -6_000, b: 6_000})
    t.rebuy(a)
    assert t.entry(a).stack == 14_000
    with pytest.raises(DirectorError, match="TOURN-10"):
        t.rebuy(a)


def test_tourn_10_may_always_rebuy_before_the_first_hand_and_not_after_the_period() -> None:
    t = started(4, rebuy_levels=2)
    t.rebuy("p0")
    t.rebuy("p0")  # before the first hand: always
    assert t.entry("p0").stack == 30_000
    t.set_level(3, random.Random(0))
    with pytest.raises(DirectorError, match="TOURN-10"):
        t.rebuy("p1")


def test_tourn_10_a_bust_who_does_not_rebuy_before_the_next_hand_is_out() -> None:
    t = started(4, rebuy_levels=2)
    tid, (a, b) = same_table(t, 2)
    hand(t, tid, {a: -10_000, b: 10_000})
    assert t.entry(a).status is Status.PENDING
    hand(t, tid, {})
    assert t.entry(a).status is Status.OUT and t.places()[a] == (4, 4)
    assert a not in t.floor.where
    with pytest.raises(DirectorError, match="out"):
        t.rebuy(a)
    t.check()


def test_tourn_11_no_rebuy_during_a_hand() -> None:
    t = started(4, rebuy_levels=2)
    tid = t.floor.where["p0"][0]
    t.hand_started(tid, random.Random(0))
    with pytest.raises(DirectorError, match="TOURN-11"):
        t.rebuy("p0")


def test_tourn_12_add_on_once_in_the_break_after_level_2() -> None:
    t = started(4, rebuy_levels=2, add_on=True, add_on_price=5_000, add_on_chips=15_000)
    with pytest.raises(DirectorError, match="TOURN-12"):
        t.add_on("p0")  # level 1, no break
    t.set_level(2, random.Random(0))
    t.start_break()
    t.add_on("p0")
    assert t.entry("p0").stack == 25_000 and t.entry("p0").paid_pool == 15_000
    with pytest.raises(DirectorError, match="TOURN-12"):
        t.add_on("p0")
    t.check()


def test_tourn_13_and_tourn_5_late_registration_by_levels() -> None:
    t = started(4, late_registration_levels=2)
    t.set_level(2, random.Random(0))
    move = t.register("late", random.Random(0))
    assert move is not None and move.rule == "TOURN-4"
    assert t.entry("late").paid_fees == 1_000 and t.entry("late").stack == 10_000
    t.set_level(3, random.Random(0))
    with pytest.raises(DirectorError, match="TOURN-5"):
        t.register("later", random.Random(0))
    assert "later" not in t.current
    t.check()


def test_tourn_14_re_register_without_fee_or_wait_for_a_seat() -> None:
    t = started(6, {1: 3, 2: 3}, re_register=True, late_registration_levels=2)
    tid, (a, b) = same_table(t, 2)
    hand(t, tid, {a: -10_000, b: 10_000})
    move = t.re_register(a, random.Random(0))
    assert move is not None and t.entry(a).paid_fees == 0 and t.entry(a).key == f"{a}#2"
    tid2 = t.floor.where[a][0]
    (c,) = [p for p in t.floor.tables[tid2].players.values() if p != a][:1]
    hand(t, tid2, {c: -10_000, a: 10_000})
    for tb in t.floor.tables.values():  # no seat left on the floor
        for s in tb.open_seats():
            tb.players[s] = f"filler{tb.table}{s}"
            t.floor.where[f"filler{tb.table}{s}"] = (tb.table, s)
    assert t.re_register(c, random.Random(0)) is None
    assert t.waiting == [c]


def test_tourn_15_surrender_then_rebuy() -> None:
    t = started(4, rebuy_levels=2, surrender=True)
    tid, (a, b) = same_table(t, 2)
    hand(t, tid, {a: 5_000, b: -5_000})
    with pytest.raises(DirectorError, match="TOURN-10"):
        t.rebuy(a)  # 15,000 > 10,000
    t.surrender(a, 5_000)
    assert t.entry(a).stack == 10_000 and t.removed == 5_000
    t.rebuy(a)
    assert t.entry(a).stack == 20_000
    t.check()  # surrendered chips left play: conservation still holds
    with pytest.raises(DirectorError, match="TOURN-15"):
        t.surrender(a, 30_000)


def test_tourn_17_regular_bounty_to_the_knockout() -> None:
    t = started(4, bounty=2_000)
    tid, (a, b) = same_table(t, 2)
    hand(t, tid, {a: -10_000, b: 10_000})
    assert t.entry(b).bounty_won == 2_000 and t.entry(a).bounty == 0
    assert t.pool.collected == 4 * 8_000  # the bounties are not in the prize pool


def test_tourn_17_1_progressive_50_50() -> None:
    t = started(4, bounty=1_000, progressive=(5_000, 5_000))
    tid, (a, b) = same_table(t, 2)
    hand(t, tid, {a: -10_000, b: 10_000}, knockouts={a: (b,)})
    assert t.entry(b).bounty_won == 500 and t.entry(b).bounty == 1_500


def test_tourn_33_shared_knockout_split() -> None:
    t = started(3, {1: 9}, bounty=1_001)
    a, b, c = sorted(t.floor.where)
    hand(t, 1, {a: -10_000, b: 5_000, c: 5_000})
    assert (t.entry(b).bounty_won, t.entry(c).bounty_won) == (501, 500)


def test_tourn_24_1_same_table_busts_ordered_by_starting_stack() -> None:
    t = started(5, {1: 9})
    a, b, c, _d, _e = sorted(t.floor.where)
    hand(t, 1, {a: -5_000, b: 5_000})  # a 5,000
    hand(t, 1, {b: -8_000, c: 8_000})  # b 7,000
    out = hand(t, 1, {a: -5_000, b: -7_000, c: 12_000})
    assert sorted(out) == [a, b]
    assert t.places()[b] == (4, 4) and t.places()[a] == (5, 5)  # more chips finishes higher


def test_tourn_24_cross_table_shared_place_or_start_stacks_by_conf() -> None:
    for profile, shared in ((None, True), (ONLINE, False)):
        kw = {} if profile is None else {"profile": profile}
        t = started(6, {1: 3, 2: 3}, **kw)
        (a, b, _c), (d, e, _f) = (sorted(t.floor.tables[i].players.values()) for i in (1, 2))
        hand(t, 1, {a: -10_000, b: 10_000}, h4h=1)
        hand(t, 2, {d: -10_000, e: 10_000}, h4h=1)
        if shared:
            assert t.places()[a] == t.places()[d] == (5, 6)
            payouts = t.payouts()
            assert a not in payouts or payouts[a] == payouts[d]
        else:
            assert {t.places()[a], t.places()[d]} == {(5, 5), (6, 6)}
        t.check()


def test_tourn_25_and_payouts_complete_when_one_player_is_left() -> None:
    t = started(3, {1: 9}, guarantee=50_000)
    a, b, c = sorted(t.floor.where)
    assert t.pool.total == 50_000 and t.pool.overlay == 20_000  # TOURN-9
    hand(t, 1, {a: -10_000, b: 10_000})
    hand(t, 1, {c: -10_000, b: 10_000})
    assert t.stage is Stage.FINISHED
    assert t.places() == {a: (3, 3), c: (2, 2), b: (1, 1)}
    assert t.payouts() == {b: 35_000, c: 15_000, a: 0}
    t.check()


def test_tourn_25_may_end_when_all_remaining_prizes_are_equal() -> None:
    t = started(3, {1: 9}, payouts=PayoutStructure(((10, (5000, 5000)),)))
    a, b, c = sorted(t.floor.where)
    assert not t.can_end_equal()
    with pytest.raises(DirectorError, match="TOURN-25"):
        t.end_equal()
    hand(t, 1, {a: -10_000, b: 10_000})
    assert t.can_end_equal()
    t.end_equal()
    assert t.stage is Stage.FINISHED
    assert t.places() == {a: (3, 3), b: (1, 2), c: (1, 2)}
    assert t.payouts()[b] == t.payouts()[c] == 15_000
    t.check()


def test_refused_hand_report_changes_nothing() -> None:
    t = started(4)
    tid, (a, _b) = same_table(t, 2)
    t.hand_started(tid, random.Random(0))
    start = {p: t.entry(p).stack for p in t.floor.tables[tid].players.values()}
    bad = dict(start)
    bad[a] += 1  # a chip from nowhere
    with pytest.raises(DirectorError, match="conserve"):
        t.hand_ended(HandResult(tid, start, bad), random.Random(0))
    assert {p: t.entry(p).stack for p in start} == start and t.floor.tables[tid].in_hand


def test_pen_6_exclusion_placed_now_and_pen_7_disqualified_no_prize() -> None:
    t = started(4, {1: 9})
    a, b, c, d = sorted(t.floor.where)
    t.exclude(a)
    assert t.places()[a] == (4, 4) and a not in t.floor.where
    t.exclude(b, disqualify=True)
    assert t.entry(b).status is Status.DISQUALIFIED and t.places()[b] == (3, 3)
    hand(t, 1, {c: -10_000, d: 10_000})
    assert t.stage is Stage.FINISHED
    pay = t.payouts()
    assert pay[d] + pay[c] + pay[b] + pay[a] + sum(t.withheld().values()) == t.pool.total
    assert pay[b] == 0 and t.check() is None


def test_tourn_32_penalty_and_time_bank_chips_follow_the_player() -> None:
    t = started(4)
    t.penalties.miss_hands("p0", 3)
    t.time_bank.carry_in("p0", 2)
    tid = t.floor.where["p0"][0]
    hand(t, tid, {})
    assert t.carry("p0").penalty_hands == 2 and t.carry("p0").time_bank_chips == 2


def test_sng_1_starts_when_every_seat_is_filled() -> None:
    s = setup(seats_per_table=3, max_entrants=3, sit_and_go=True)
    t = Tournament(s, ONLINE, {1: 3})
    t.register("a", random.Random(0))
    t.register("b", random.Random(0))
    with pytest.raises(DirectorError, match="SNG-1"):
        t.start(random.Random(0))
    t.register("c", random.Random(0))
    with pytest.raises(DirectorError, match="SNG-1"):
        t.register("d", random.Random(0))
    t.start(random.Random(0))
    assert t.stage is Stage.RUNNING


def test_cancel_2_through_the_tournament_before_the_money() -> None:
    t = started(4, {1: 9})
    a, b, c, d = sorted(t.floor.where)
    hand(t, 1, {a: -10_000, b: 10_000})
    comp = t.cancel()
    assert set(comp) == {b, c, d} and t.stage is Stage.CANCELLED
    assert sum(x.prize for x in comp.values()) == t.pool.collected
    assert comp[b].prize > comp[c].prize and abs(comp[c].prize - comp[d].prize) <= 1
    assert comp[b].fees == 1_000


def test_setup_is_validated() -> None:
    with pytest.raises(DirectorError, match="TOURN-17"):
        setup(bounty=20_000)
    with pytest.raises(DirectorError, match="TOURN-6"):
        setup(max_entries=3)
    with pytest.raises(DirectorError, match="TOURN-15"):
        setup(surrender=True)
    assert setup().freezeout and not setup(rebuy_levels=2).freezeout
    assert isinstance(setup(), TournamentSetup)


def test_cancel_6_1_jackpot_through_the_tournament() -> None:
    from fractions import Fraction

    from host_bridge.director.setup import jackpot_setup_for
    from host_bridge.director.sng import HEXAPRO

    row = next(r for r in HEXAPRO if r.times == Fraction(3))
    t = Tournament(jackpot_setup_for("hexapro", 1_000, 70, row), ONLINE, {1: 3})
    for p in ("a", "b", "c"):
        t.register(p, random.Random(0))
    t.start(random.Random(0))
    hand(t, 1, {"a": 250, "c": -250})
    comp = t.cancel()
    assert [comp[p].prize for p in "abc"] == [1_350, 1_000, 650]
    assert all(c.fees == 70 and c.rule == "CANCEL-6" for c in comp.values())


def test_ante_3_antes_stop_in_the_money() -> None:
    from dataclasses import replace

    s = setup()
    s = replace(s, structure=replace(s.structure, antes_stop_in_the_money=True))
    t = Tournament(s, ONLINE, {1: 9})
    for p in ("a", "b", "c"):
        t.register(p, random.Random(0))
    t.start(random.Random(0))
    for lv in (2, 3):
        t.set_level(lv, random.Random(0))
    assert t.level_in_force().ante == 25
    hand(t, 1, {"a": -10_000, "b": 10_000})  # 2 left, 2 paid: in the money
    assert t.in_the_money and t.level_in_force().ante == 0


def test_chiprace_3_nobody_eliminated_and_chips_accounted() -> None:
    t = started(3, {1: 9})
    a, b, c = sorted(t.floor.where)
    with pytest.raises(DirectorError, match="CHIPRACE-3"):
        t.chip_race({a: 0})
    assert t.chip_race({a: 10_025, b: 9_975, c: 10_100}) == 100
    t.check()
    assert t.chip_race({a: 10_000}) == -25
    t.check()


def test_refused_deal_changes_nothing() -> None:
    t = started(4, rebuy_levels=2)
    tid, (a, b) = same_table(t, 2)
    other = next(x for x in t.floor.tables if x != tid)
    c = next(iter(t.floor.tables[other].players.values()))
    hand(t, tid, {a: -10_000, b: 10_000})
    assert t.entry(a).status is Status.PENDING
    t.floor.tables[tid].in_hand = True  # as if the table had dealt already
    with pytest.raises(DirectorError, match="DEAL-4"):
        t.hand_started(tid, random.Random(0))
    assert t.entry(a).status is Status.PENDING and a in t.floor.where  # nothing settled
    assert t.entry(c).status is Status.ACTIVE


def test_tourn_33_a_bust_who_rebuys_pays_no_bounty_one_who_does_not_pays_later() -> None:
    t = started(4, {1: 9}, rebuy_levels=2, bounty=1_000)
    a, b, c, _ = sorted(t.floor.where)
    hand(t, 1, {a: -10_000, b: 10_000})
    t.rebuy(a)
    assert t.entry(b).bounty_won == 0 and t.entry(a).bounty == 1_000
    hand(t, 1, {a: -10_000, c: 10_000})  # a busts again and does not rebuy
    assert t.entry(c).bounty_won == 0
    hand(t, 1, {})  # the next hand is dealt: a is out, c collects
    assert t.entry(a).status is Status.OUT and t.entry(c).bounty_won == 1_000


def test_invariants_catch_a_broken_floor() -> None:
    t = started(6, {1: 9})
    t.check()
    t.entries["p0"].stack += 1  # a chip from nowhere
    with pytest.raises(AssertionError, match="chips"):
        t.check()
    t.entries["p0"].stack -= 1
    t.floor.tables[1].players.pop(t.floor.where["p1"][1])  # p1 lost their seat
    with pytest.raises(AssertionError):
        t.check()
    u = started(4, {1: 9})
    a, b, _c, _d = sorted(u.floor.where)
    hand(u, 1, {a: -10_000, b: 10_000})
    u.busts[-1][0][0].entry = b  # the same entry placed twice, a place missing
    with pytest.raises(AssertionError):
        u.check()


def test_tourn_24_shared_place_tiers_when_one_table_loses_two() -> None:
    t = started(8, {1: 4, 2: 4})
    t1 = sorted(t.floor.tables[1].players.values())
    t2 = sorted(t.floor.tables[2].players.values())
    hand(t, 1, {t1[0]: -5_000, t1[2]: 5_000})  # t1[0] now 5,000; t1[1] 10,000
    hand(t, 1, {t1[0]: -5_000, t1[1]: -10_000, t1[2]: 15_000}, h4h=3)
    hand(t, 2, {t2[0]: -10_000, t2[1]: 10_000}, h4h=3)
    places = t.places()
    assert places[t1[1]] == places[t2[0]] == (6, 7)  # best bust of each table share
    assert places[t1[0]] == (8, 8)  # fewer chips at the same table: below
    t.check()
