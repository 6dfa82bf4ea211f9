"""Bets from the console, folds from the muck, action out of turn (LIVE-7..16)."""

from __future__ import annotations

from controller.events import ActionAccepted, ActionHeld, Irregularity, Rejected
from controller.rules.actions import BetRaise, Call, Fold, Kill
from controller.rules.config import LIVE_TOURNAMENT

from .conftest import Rig

HANDS = {1: "AsKs", 3: "QdQc", 5: "7h2c"}


def dealt(rig: Rig) -> Rig:
    rig.start()
    rig.dealer.deal(HANDS)
    return rig


def test_live_9_chips_pushed_silently_for_a_full_raise_raise(rig3: Rig) -> None:
    t = dealt(rig3).table
    assert t.chips(30)  # button faces 10: 30 is a raise to 30
    accepted = rig3.last(ActionAccepted)
    assert isinstance(accepted, ActionAccepted)
    assert rig3.seat_of(accepted.player) == 5 and accepted.rules_action() == BetRaise(2, 30)
    assert accepted.source == "chips" and accepted.rule is not None


def test_live_7_less_than_half_a_raise_extra_is_a_call_and_goes_back(rig3: Rig) -> None:
    t = dealt(rig3).table
    assert t.chips(14)  # call 10, extra 4 < half of 10
    accepted = rig3.last(ActionAccepted)
    assert isinstance(accepted, ActionAccepted)
    assert isinstance(accepted.rules_action(), Call) and accepted.returned == 4
    assert accepted.rule == "LIVE-7"


def test_live_7_half_raise_in_cash_offers_raise_or_fold(rig3: Rig) -> None:
    t = dealt(rig3).table
    assert t.chips(15)  # extra 5 = half of 10: a full raise, or fold (002)
    prompt = rig3.last(Irregularity)
    assert isinstance(prompt, Irregularity)
    assert prompt.what == "choice" and prompt.rule == "LIVE-7"
    assert set(prompt.choices) == {"raise_to_20", "fold"}
    assert {c.key for c in t.prompts[-1].choices} == {"raise_to_20", "fold"}
    assert not t.call()  # the player must choose first
    assert t.resolve("fold")
    accepted = rig3.last(ActionAccepted)
    assert isinstance(accepted, ActionAccepted) and isinstance(accepted.rules_action(), Fold)
    assert accepted.forfeited == 15


def test_live_10_forfeited_chips_reach_the_winner_and_chips_are_conserved(rig3: Rig) -> None:
    t = dealt(rig3).table
    t.chips(15)
    t.resolve("fold")  # seat 5 leaves 15 in the pot
    t.fold()  # seat 1 (SB) folds: seat 3 wins 5 + 10 + 15
    t.confirm()
    assert t.roster[3].stack == 1020 and t.roster[5].stack == 985
    assert t.roster.total_chips() == 3000


def test_live_12_out_of_turn_call_binds_when_nothing_changes(rig3: Rig) -> None:
    t = dealt(rig3).table
    assert t.call(seat=1)  # seat 1 calls before the button acted
    held = rig3.last(ActionHeld)
    assert isinstance(held, ActionHeld) and held.seat == 1 and not held.released
    t.call()  # the button calls: in cash (002) a call releases ("substantial")
    released = rig3.last(ActionHeld)
    assert isinstance(released, ActionHeld) and released.released and released.seat == 1
    assert rig3.seat_to_act() == 1


def test_live_12_tournament_out_of_turn_call_binds_after_a_call() -> None:
    rig = Rig(seats={1: 1000, 3: 1000, 5: 1000}, button=5, profile=LIVE_TOURNAMENT,
              tournament=True)
    t = dealt(rig).table
    t.call(seat=1)
    t.call()  # a call is no change under action_change (004)
    accepted = rig.of(ActionAccepted)
    assert [(rig.seat_of(a.player), type(a.rules_action())) for a in accepted] == [
        (5, Call), (1, Call)]
    assert accepted[-1].source == "held"
    assert rig.seat_to_act() == 3


def test_live_12_fold_out_of_turn_is_binding(rig3: Rig) -> None:
    t = dealt(rig3).table
    t.fold(seat=1)
    t.raise_to(40)  # the button raises: a fold still binds
    accepted = rig3.of(ActionAccepted)
    assert [(rig3.seat_of(a.player), type(a.rules_action())) for a in accepted] == [
        (5, BetRaise), (1, Fold)]


def test_live_16_hand_at_the_muck_folds_the_player_to_act(rig3: Rig) -> None:
    dealt(rig3)
    rig3.dealer.muck_hand(5)
    accepted = rig3.last(ActionAccepted)
    assert isinstance(accepted, ActionAccepted)
    assert rig3.seat_of(accepted.player) == 5 and isinstance(accepted.rules_action(), Fold)
    assert accepted.source == "muck"
    assert len(rig3.of(ActionAccepted)) == 1  # the second card of the hand is no new fold


def test_live_16_hand_at_the_muck_out_of_turn_is_dead_at_once(rig3: Rig) -> None:
    t = dealt(rig3).table
    rig3.dealer.muck_hand(1)  # the small blind, before the button acted
    killed = rig3.last(ActionAccepted)
    assert isinstance(killed, ActionAccepted)
    assert rig3.seat_of(killed.player) == 1 and killed.rules_action() == Kill(0, "LIVE-16")
    assert killed.source == "muck"
    assert rig3.seat_to_act() == 5  # the button still acts first
    t.call()  # the button; the dead small blind is skipped: the big blind is next
    assert rig3.seat_to_act() == 3
    assert [rig3.seat_of(a.player) for a in rig3.of(ActionAccepted)] == [1, 5]


def test_live_3_a_declared_raise_below_the_minimum_is_brought_up_to_it(rig3: Rig) -> None:
    t = dealt(rig3).table
    before = len(t.hand.log) if t.hand else 0
    assert t.raise_to(15)  # "raise to 15" binds; BET-4's minimum is 20
    accepted = rig3.last(ActionAccepted)
    assert isinstance(accepted, ActionAccepted) and accepted.rules_action() == BetRaise(2, 20)
    assert accepted.owed == 20
    assert t.hand is not None and len(t.hand.log) == before + 1


def test_every_rejection_carries_a_reason(rig3: Rig) -> None:
    t = rig3.table
    t.call()  # no hand yet
    t.confirm()
    t.undo(1, "test")
    dealt(rig3)
    t.show()
    t.chips(5000)  # more than the stack
    rejected = rig3.of(Rejected)
    assert len(rejected) == 5
    assert all(r.reason for r in rejected)


def test_live_7_a_choice_left_open_does_not_act_for_the_next_player(rig3: Rig) -> None:
    t = dealt(rig3).table
    t.chips(15)  # the button must choose: raise to 20 or fold
    rig3.dealer.muck_hand(5)  # ...and throws the hand in: folded (LIVE-16)
    assert rig3.seat_to_act() == 1
    assert not t.resolve("raise_to_20")  # stale: seat 1 is not the one choosing
    assert rig3.seat_to_act() == 1
    assert isinstance(rig3.last(Rejected), Rejected)


def test_undo_while_a_live_7_choice_is_open_closes_the_choice(rig3: Rig) -> None:
    """DEAL-6: an undo takes back the last action; a LIVE-7 choice opened by the chips
    pushed after it no longer applies, so it is not left on the dealer's screen."""
    t = dealt(rig3).table
    assert t.call()  # seat 5 calls 10
    assert t.chips(10)  # the SB (5 in) pushes 10: call 5, extra 5 = half a raise
    assert t.prompts and t.prompts[-1].kind == "choice"
    assert t.undo(1, "the dealer keyed the wrong seat")
    assert not any(p.kind == "choice" for p in t.prompts)
    assert rig3.seat_to_act() == 5
