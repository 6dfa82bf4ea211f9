"""Rule ids of TOURN, PEN, CANCEL and SNG proven by tests named after them (issue 19).

Online-only rules are proven by what the floor does that corresponds (TOURN-3/18, SNG-5:
an absent player is dealt in and has blinds and antes posted at the table, BLIND-7); the
rest through the director's model, the hand-for-hand coordinator, the rules engine and
the HexaPro data.
"""

from __future__ import annotations

import itertools
import random
from fractions import Fraction

import pytest
from fastapi.testclient import TestClient

from controller.clocks.structure import preset
from controller.events import ActionAccepted, HandStarted, PlayerBusted
from controller.rules.actions import Fold, Kill
from controller.rules.button import Positions, SeatStatus, next_hand
from controller.rules.cards import parse_cards
from controller.rules.config import LIVE_TOURNAMENT, ONLINE, Variant
from controller.rules.hand import Hand
from controller.table.lights import Level
from controller.table.virtual import VirtualTable
from host_bridge.director import (
    DirectorError,
    HandForHand,
    HandResult,
    PayoutError,
    PayoutStructure,
    Stage,
    Status,
    Tournament,
)
from host_bridge.director.cancel import (
    NonCashPrize,
    prizes_in_money,
)
from host_bridge.director.registration import cancel_below_minimum, unregister
from host_bridge.director.setup import jackpot_setup_for
from host_bridge.director.sng import (
    HEXAPRO,
    HEXAPRO_EXTREME,
    _rows,
    expected_multiplier,
    jackpot_structure,
)

from .floortables import LocalFloor
from .helpers import hand, same_table, setup, started
from .test_floor_discipline import floor_app, floor_of, penalise, seat_of
from .test_floor_discipline import start as start_floor

__all__ = ["floor_app"]  # the fixture, shared with the floor's discipline tests

THREE_PAID = PayoutStructure(((10, (5000, 3000, 2000)),))


# ---------------------------------------------------------------- the table: absent players
def host_seated(stacks: dict[int, int], **kw: object) -> VirtualTable:
    """A tournament table seated the way the host seats it."""
    vt = VirtualTable(0, seed=3, tournament=True, **kw)  # type: ignore[arg-type]
    for seat, stack in stacks.items():
        assert vt.table.take_seat(seat, f"p{seat}", stack)
    return vt


def hands_of(vt: VirtualTable) -> list[HandStarted]:
    return [e for e in vt.events if isinstance(e, HandStarted)]


def moves_of(vt: VirtualTable, started_: HandStarted, seat: int) -> list[object]:
    """The actions taken at ``seat`` in that hand."""
    return [e.rules_action() for e in vt.events if isinstance(e, ActionAccepted)
            and e.hand_no == started_.hand_no and started_.seats[e.player] == seat]


def test_tourn_3_an_absent_player_is_dealt_in_and_blinded_until_their_chips_run_out() -> None:
    vt = host_seated({1: 20_000, 2: 150, 3: 20_000}, levels=(Level(50, 100),))
    assert vt.table.sit_out(2)
    for _ in range(30):
        if any(isinstance(e, PlayerBusted) for e in vt.events):
            break
        assert vt.play_hand()
    busted = [e for e in vt.events if isinstance(e, PlayerBusted)]
    assert [(e.seat, e.player) for e in busted] == [(2, "p2")]  # blinded off, then out
    before = [h for h in hands_of(vt) if busted[0].hand_no is None
              or h.hand_no <= busted[0].hand_no]
    assert before and all(2 in h.seats for h in before)  # seated and dealt every hand
    assert all(isinstance(m, Fold | Kill) for h in before for m in moves_of(vt, h, 2))
    vt.check_chips()


def test_tourn_18_a_sitting_out_player_posts_blinds_is_folded_in_turn_and_may_return() -> None:
    vt = host_seated({1: 20_000, 2: 20_000, 3: 20_000}, levels=(Level(50, 100),))
    assert vt.table.sit_out(2)
    for _ in range(3):  # one orbit: seat 2 is the SB once and the BB once
        assert vt.play_hand()
    orbit = hands_of(vt)
    assert all(2 in h.seats for h in orbit)
    assert {h.small_blind_seat for h in orbit} >= {2} and {h.big_blind_seat for h in orbit} >= {2}
    assert all(isinstance(m, Fold | Kill) for h in orbit for m in moves_of(vt, h, 2))
    assert vt.table.roster[2].stack <= 20_000 - 150  # the SB and the BB were posted
    assert vt.table.come_back(2)  # they return: dealt in and no longer folded for them
    assert vt.play_hand()
    assert 2 in hands_of(vt)[-1].seats
    vt.check_chips()


def test_sng_5_hexapro_absent_player_is_dealt_in_and_posts_the_ante_and_blinds() -> None:
    vt = host_seated({1: 500, 2: 500, 3: 500}, structure=preset("hexapro", multiplier=1.5))
    assert vt.table.sit_out(2)
    vt.advance(61)  # 1.5x: one-minute levels; level 2 has antes (LEVEL-4)
    stacks = [vt.table.roster[2].stack]
    for _ in range(3):
        assert vt.play_hand()
        stacks.append(vt.table.roster[2].stack)
    played = hands_of(vt)
    assert all(h.level == 2 and h.ante == 4 and 2 in h.seats for h in played)
    assert all(isinstance(m, Fold | Kill) for h in played for m in moves_of(vt, h, 2))
    paid = [a - b for a, b in itertools.pairwise(stacks)]
    assert all(p >= 4 for p in paid)  # the ante every hand, a blind on top in turn
    assert sum(paid) == 4 * 3 + 15 + 30
    vt.check_chips()


# ---------------------------------------------------------------- registration
def test_tourn_5_1_late_registration_closes_when_its_last_level_ends() -> None:
    t = started(4, late_registration_levels=4)
    t.set_level(4, random.Random(0))
    assert t.register("late", random.Random(0)) is not None  # level 4: still open
    t.set_level(5, random.Random(0))
    with pytest.raises(DirectorError, match="TOURN-5"):
        t.register("later", random.Random(0))
    assert "later" not in t.current


def test_tourn_5_late_registration_closes_early_once_the_money_is_reached() -> None:
    t = started(5, {1: 9}, late_registration_levels=5, re_entry=True, max_entries=2,
                payouts=THREE_PAID)
    tid, (a, b, c) = same_table(t, 3)
    hand(t, tid, {a: -10_000, c: 10_000})
    assert t.late_registration_open() and not t.in_the_money  # 4 left, 3 paid
    hand(t, tid, {b: -10_000, c: 10_000})
    assert t.in_the_money and t.level == 1  # 3 left: the money, in the first level
    with pytest.raises(DirectorError, match="TOURN-5"):
        t.register("late", random.Random(0))
    with pytest.raises(DirectorError, match="TOURN-5"):
        t.re_enter(a, random.Random(0))
    assert "late" not in t.current and len(t.entries) == 5


def test_tourn_7_unregister_before_the_start_refunds_buy_in_and_fee_never_after() -> None:
    t = Tournament(setup(), ONLINE, {1: 9})
    for p in ("a", "b", "c"):
        t.register(p, random.Random(0))
    back = unregister(t, "b")
    assert (back.refund, back.total, back.rule) == (11_000, 11_000, "TOURN-7")
    assert sorted(t.current) == ["a", "c"] and "b" not in t.entries
    assert t.issued == 2 * 10_000 and t.pool.total == 20_000
    with pytest.raises(DirectorError, match="TOURN-6"):
        unregister(t, "b")  # no longer registered
    t.register("b", random.Random(0))  # may register again: a first entry, not a re-entry
    assert t.entry("b").key == "b"
    t.start(random.Random(0))
    with pytest.raises(DirectorError, match="TOURN-7"):
        unregister(t, "a")
    assert "a" in t.current and t.entry("a").status is Status.ACTIVE
    t.check()


# ---------------------------------------------------------------- heads-up
def test_tourn_16_heads_up_the_button_posts_the_sb_acts_first_and_the_fl_cap_is_gone() -> None:
    three = Positions(1, 2, 3, (2, 3, 1))  # button 1, SB 2, BB 3; seat 2 is eliminated
    two = next_hand(three, (SeatStatus(1, 1_000), SeatStatus(3, 1_000)), tournament=True,
                    profile=LIVE_TOURNAMENT)
    assert two.heads_up and two.small_blind == two.button  # BTN-3: the button posts the SB
    assert two.big_blind != two.button  # BTN-6: the other one posts the BB
    config = two.game_config(Variant.FT, {1: 1_000, 3: 1_000}, 5, 10, small_bet=10,
                             big_bet=20)
    h = Hand(config, LIVE_TOURNAMENT)
    cards = parse_cards("AsKsQsJs")
    h.deal_hole(0, cards[:2])
    h.deal_hole(1, cards[2:])
    button = two.index_of(two.button)
    assert h.bets[button] == 5 and h.bets[two.index_of(two.big_blind)] == 10
    assert h.actor == button  # the button acts first preflop
    for total in (20, 30, 40, 50, 60):  # five raises: no FL-1 cap heads-up
        h.bet_or_raise_to(total)
    assert h.current_bet == 60


# ---------------------------------------------------------------- hand-for-hand
def test_tourn_23_a_table_that_finishes_its_hand_early_waits_for_the_others() -> None:
    h4h = HandForHand([1, 2, 3])
    assert h4h.may_deal() == {1, 2, 3}
    for t in (1, 2, 3):
        assert h4h.hand_started(t) == 1
    h4h.hand_ended(1)
    with pytest.raises(DirectorError, match="TOURN-22"):
        h4h.verify_deal(1)  # table 1 is done early: it waits
    h4h.hand_ended(2)
    assert h4h.may_deal() == set() and h4h.hand == 1
    h4h.hand_ended(3)  # the last table finishes: the next hand is dealt everywhere
    assert h4h.hand == 2 and h4h.may_deal() == {1, 2, 3}
    assert h4h.hand_started(1) == 2


# ---------------------------------------------------------------- prizes and the house
def test_tourn_26_an_eliminated_players_prize_is_due_at_once_the_winners_at_the_end() -> None:
    t = started(5, {1: 9}, payouts=THREE_PAID)
    tid, (a, b, c, d, e) = same_table(t, 5)
    prizes = t.prizes()
    assert prizes == (25_000, 15_000, 10_000)
    hand(t, tid, {a: -10_000, e: 10_000})
    hand(t, tid, {b: -10_000, e: 10_000})
    assert t.payouts() == {a: 0, b: 0}
    hand(t, tid, {c: -10_000, e: 10_000})  # 3rd, while the tournament runs
    assert t.stage is Stage.RUNNING and t.payouts()[c] == 10_000
    assert d not in t.payouts() and e not in t.payouts()  # nothing yet for those still in
    hand(t, tid, {d: -10_000, e: 10_000})
    assert t.stage.value == "finished"  # the winner's prize is due now
    assert (t.payouts()[d], t.payouts()[e]) == (15_000, 25_000)


def test_tourn_30_the_house_disqualifies_then_cancels_and_its_decision_is_final() -> None:
    t = started(6, {1: 9})
    tid, (a, b) = same_table(t, 2)
    t.exclude(a, disqualify=True)  # chips removed, no prize (PEN-7)
    assert t.entry(a).status is Status.DISQUALIFIED and a not in t.floor.where
    hand(t, tid, {b: 1_000, next(p for p in t.current if p not in (a, b)): -1_000})
    paid = t.cancel()  # the house cancels the event
    assert t.stage is Stage.CANCELLED and a not in paid and b in paid
    assert sum(c.prize for c in paid.values()) == t.pool.collected
    for refused in (t.cancel, lambda: cancel_below_minimum(t)):
        with pytest.raises(DirectorError, match="CANCEL-9"):
            refused()  # final: no second cancellation
    with pytest.raises(DirectorError, match="TOURN-1"):
        t.hand_started(tid, random.Random(0))
    with pytest.raises(DirectorError, match="TOURN-5"):
        t.register("late", random.Random(0))


# ---------------------------------------------------------------- penalties
def test_pen_9_a_penalty_given_during_a_hand_leaves_that_hand_live() -> None:
    t = started(4, {1: 9})
    tid, (a, b) = same_table(t, 2)
    rng = random.Random(0)
    t.hand_started(tid, rng)
    t.penalties.miss_hands(a, 2)  # a showed a card while others were still to act
    assert t.penalties.serving(a) and t.penalties.remaining(a) == 2
    start = {p: t.entry(p).stack for p in t.floor.tables[tid].players.values()}
    end = {**start, a: start[a] + 2_000, b: start[b] - 2_000}  # a wins the hand
    t.hand_ended(HandResult(tid, start, end), rng)
    assert t.entry(a).stack == 12_000  # the hand stayed live and was paid
    assert t.penalties.remaining(a) == 2  # the penalty starts with the next hand
    t.hand_started(tid, rng)
    assert t.penalties.remaining(a) == 1


def test_pen_8_an_offence_from_the_list_is_penalised_with_its_reason_journaled(
        floor_app: tuple[TestClient, LocalFloor]) -> None:
    client, floor = floor_app
    where = start_floor(client)
    wire, seat, stack = seat_of(client, where, "p04")
    offence = "exposed a card while other players still had to act (PEN-8)"
    r = penalise(client, where, player="p04", penalty="hands", count=2, reason=offence)
    assert r.status_code == 200, r.text  # a first offence needs no warning (004)
    decision = floor_of(client, where)["decisions"][-1]
    assert (decision["player"], decision["penalty"], decision["count"]) == ("p04", "hands", 2)
    assert decision["reason"] == offence and decision["role"] == "director"
    assert floor.tables[wire].seats[seat] == ("p04", stack)  # seated again to serve it
    shown = {p["player"]: p for p in floor_of(client, where)["penalties"]}
    assert shown["p04"]["hands_left"] == 2


# ---------------------------------------------------------------- cancellation
def test_cancel_5_non_cash_prizes_are_paid_in_money_at_their_value() -> None:
    seats = prizes_in_money([NonCashPrize("Main Event seat", 30_000),
                             NonCashPrize("tournament ticket", 10_000)])
    assert seats == (30_000, 10_000)
    t = started(4, {1: 9}, fixed_prizes=seats, prize_pool=40_000)
    tid, (a, b, c, d) = same_table(t, 4)
    hand(t, tid, {a: -10_000, c: 10_000})
    hand(t, tid, {b: -10_000, c: 10_000})
    assert t.in_the_money
    paid = t.cancel()  # at the final table in the money: the seats' money by ICM
    assert {p: x.rule for p, x in paid.items()} == {c: "CANCEL-4", d: "CANCEL-4"}
    assert paid[c].prize + paid[d].prize == 40_000
    assert paid[c].prize == 25_000 and paid[d].prize == 15_000  # 3:1 chips, ICM
    with pytest.raises(PayoutError, match="CANCEL-5"):
        NonCashPrize("free spins", 0)  # a prize without a money value cannot be paid


def test_cancel_9_a_field_below_its_minimum_is_cancelled_and_refunded() -> None:
    t = Tournament(setup(min_entrants=4), ONLINE, {1: 9})
    for p in ("a", "b", "c"):
        t.register(p, random.Random(0))
    back = cancel_below_minimum(t)
    assert t.stage is Stage.CANCELLED
    assert {p: (c.refund, c.rule) for p, c in back.items()} == {
        p: (11_000, "CANCEL-1") for p in ("a", "b", "c")}
    full = Tournament(setup(min_entrants=3), ONLINE, {1: 9})
    for p in ("a", "b", "c"):
        full.register(p, random.Random(0))
    with pytest.raises(DirectorError, match="CANCEL-9"):
        cancel_below_minimum(full)  # the minimum is reached: not cancelled for too few
    assert full.stage is Stage.REGISTERING


# ---------------------------------------------------------------- HexaPro structures
LEVEL_4 = [(10, 20, 0), (15, 30, 4), (20, 40, 5), (25, 50, 6), (30, 60, 7), (40, 80, 10),
           (50, 100, 12), (60, 120, 15), (75, 150, 20), (100, 200, 25), (125, 250, 30),
           (150, 300, 40), (200, 400, 50), (250, 500, 60), (300, 600, 70), (350, 700, 85),
           (400, 800, 100), (500, 1000, 125), (600, 1200, 150), (700, 1400, 175),
           (800, 1600, 200), (900, 1800, 225), (1000, 2000, 250), (1200, 2400, 300),
           (1400, 2800, 350), (1600, 3200, 400), (1800, 3600, 450), (2000, 4000, 500)]
LEVEL_5 = [(10, 20), (15, 30), (20, 40), (30, 60), (40, 80), (50, 100), (60, 120),
           (75, 150), (100, 200), (125, 250), (150, 300), (200, 400), (250, 500),
           (300, 600), (350, 700), (400, 800), (500, 1000), (600, 1200), (700, 1400)]


def test_sng_4_hexapro_structure_probabilities_and_rake_equivalent() -> None:
    assert sum(r.weight for r in HEXAPRO) == 100_000
    assert 1 - expected_multiplier("hexapro") / 3 == Fraction(6_853, 100_000)  # RAKE-12
    for row in HEXAPRO:  # LEVEL-4: the same structure whatever the multiplier
        s = jackpot_structure("hexapro", row)
        assert [(lv.small_blind, lv.big_blind, lv.ante) for lv in s.levels] == LEVEL_4
        assert s.starting_stack == 500 and s.levels[0].minutes == row.level_minutes
    with pytest.raises(PayoutError, match="SNG-4"):
        _rows(("10", 50_000, (10_000, 0, 0), 3, 500), ("3", 49_999, (10_000, 0, 0), 2, 500))


def test_sng_7_hexapro_extreme_structure_and_the_1x_row() -> None:
    for row in HEXAPRO_EXTREME:  # LEVEL-5: no antes
        s = jackpot_structure("hexapro_extreme", row)
        assert [(lv.small_blind, lv.big_blind) for lv in s.levels] == LEVEL_5
        assert all(lv.ante == 0 and lv.big_blind_ante == 0 for lv in s.levels)
        assert s.levels[0].minutes == row.level_minutes
    one = next(r for r in HEXAPRO_EXTREME if r.times == 1)  # "1.x" read as 1x
    assert (one.weight, one.starting_stack, one.level_minutes) == (42_375, 100, 1)
    game = jackpot_setup_for("hexapro_extreme", 2_000, 0, one)
    assert game.prize_pool == 2_000 and game.fixed_prizes == (2_000, 0, 0)  # €20 at 1x
    assert game.stack == 100 and game.structure.levels[0].minutes == 1
