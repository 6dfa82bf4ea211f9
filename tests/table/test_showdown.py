"""Showdown from reads, pots pushed on the dealer's word, undo and the floor's corrections."""

from __future__ import annotations

from pathlib import Path

from controller.devices.interfaces import Colour, LightState
from controller.events import (
    ActionCorrected,
    ActionsUndone,
    HandEnded,
    HandShown,
    JournalEvent,
    PlayerSeated,
    PotAwarded,
    Rejected,
)
from controller.rules.actions import BetRaise, Call, Check, Fold
from controller.sync.journal import Journal
from controller.table.table import Stage

from .conftest import Rig

HANDS = {1: "AsKs", 3: "QdQc", 5: "7h2c"}


def to_river(rig: Rig, board: str = "3d4dTd6s9c") -> Rig:
    t = rig.table
    rig.start()
    rig.dealer.deal(HANDS)
    t.call(), t.call(), t.check()  # preflop: button, SB call; BB checks
    rig.dealer.street("2d", board[:6])
    t.check(), t.check(), t.check()
    rig.dealer.street("8h", board[6:8])
    t.check(), t.check(), t.check()
    rig.dealer.street("Jc", board[8:10])
    return rig


def test_show_2_river_bettor_shows_first_and_pots_wait_for_the_dealer(rig3: Rig) -> None:
    t = to_river(rig3).table
    t.check()  # seat 1
    t.raise_to(50)  # seat 3 bets
    t.call()  # seat 5 calls; seat 1 to act
    t.fold()
    assert t.stage is Stage.SHOWDOWN
    hand = t.hand
    assert hand is not None and [t.seat_of(p) for p in hand.show_order] == [3, 5]
    rig3.hw.assert_light(3, LightState.blink(Colour.WHITE))
    rig3.dealer.press("deal")  # seat 3 tables queens
    rig3.dealer.press("deal")  # seat 5 tables seven high
    shown = rig3.of(HandShown)
    assert [rig3.seat_of(s.player) for s in shown] == [3, 5]
    assert shown[0].cards == ("Qd", "Qc")  # tabled: public
    assert "queen" in shown[0].description.lower()
    assert str(t.stage) == "awarding" and not rig3.of(PotAwarded)  # (mypy narrowed stage)
    rig3.hw.assert_light(3, LightState.blink(Colour.GREEN))
    rig3.dealer.press("deal")  # the dealer pushes the pot
    award = rig3.last(PotAwarded)
    assert isinstance(award, PotAwarded) and award.shares == ((1, 130),)  # position 1
    assert rig3.seat_of(1) == 3
    ended = rig3.last(HandEnded)
    assert isinstance(ended, HandEnded)
    assert ended.stacks == (990, 1070, 940)  # seats 1, 3, 5 in position order
    assert rig3.events.index(award) < rig3.events.index(ended)


def test_show_10_cards_pushed_to_the_muck_at_the_showdown_give_up_the_claim(
        rig3: Rig) -> None:
    t = to_river(rig3).table
    t.check(), t.raise_to(50), t.call(), t.fold()
    rig3.dealer.press("deal")  # seat 3 shows
    rig3.dealer.muck_hand(5)
    assert t.stage is Stage.AWARDING
    hand = t.hand
    assert hand is not None and hand.mucked[2]


def test_pot_5_a_board_that_plays_splits_the_pot_evenly(rig3: Rig) -> None:
    t = to_river(rig3, board="AhKhQhJhTh").table  # a royal flush on board: a three-way tie
    t.check(), t.check(), t.check()
    while t.stage is Stage.SHOWDOWN:
        rig3.dealer.press("deal")
    assert t.stage is Stage.AWARDING
    rig3.dealer.press("deal")
    award = rig3.last(PotAwarded)
    assert isinstance(award, PotAwarded) and sorted(c for _, c in award.shares) == [10, 10, 10]


def test_pot_5_odd_unit_all_to_first_left_of_the_button_live(rig3: Rig) -> None:
    t = rig3.table
    rig3.start()
    rig3.dealer.deal(HANDS)
    t.call()  # button calls 10
    t.fold()  # SB folds its 5: the pot is 25
    t.check()
    for burn, cards in (("2d", "AhKhQh"), ("8h", "Jh"), ("Jc", "Th")):
        rig3.dealer.street(burn, cards)
        t.check(), t.check()
    while t.stage is Stage.SHOWDOWN:
        rig3.dealer.press("deal")
    rig3.dealer.press("deal")
    award = rig3.last(PotAwarded)
    assert isinstance(award, PotAwarded)
    shares = {rig3.seat_of(p): chips for p, chips in award.shares}
    assert shares == {3: 13, 5: 12}  # seat 3 is first left of the button


def test_undo_takes_back_the_last_actions_with_the_reason(rig3: Rig) -> None:
    t = rig3.table
    rig3.start()
    rig3.dealer.deal(HANDS)
    assert t.hand is not None
    before = t.hand.snapshot()
    t.call(), t.call()
    assert t.undo(2, "seat 1 said it was not their turn")
    undone = rig3.last(ActionsUndone)
    assert isinstance(undone, ActionsUndone)
    assert undone.reason == "seat 1 said it was not their turn"
    assert [type(a.rules_action()) for a in undone.actions] == [Call, Call]
    assert t.hand.snapshot() == before
    t.call()
    rig3.dealer.press("undo")
    assert rig3.seat_to_act() == 5


def test_deal_6_no_undo_once_the_burn_card_is_out(rig3: Rig) -> None:
    t = rig3.table
    rig3.start()
    rig3.dealer.deal(HANDS)
    t.call(), t.call(), t.check()
    rig3.dealer.place("muck", "2d")  # the burn
    assert not t.undo(1, "too late")
    rejected = rig3.last(Rejected)
    assert isinstance(rejected, Rejected) and rejected.rule == "DEAL-6"


def test_undo_cannot_reach_before_the_last_card(rig3: Rig) -> None:
    t = rig3.table
    rig3.start()
    rig3.dealer.deal(HANDS)
    t.call()
    assert not t.undo(2, "two")
    assert t.undo(1, "one")


def test_floor_corrects_a_past_action_by_replaying_the_log(rig3: Rig) -> None:
    t = rig3.table
    rig3.start()
    rig3.dealer.deal(HANDS)
    t.call(), t.call()  # button calls, SB calls; BB to act
    hand = t.hand
    assert hand is not None
    index = len(hand.log) - 2  # the button's call
    assert t.correct(index, Fold(2), "the button had folded")
    fixed = rig3.last(ActionCorrected)
    assert isinstance(fixed, ActionCorrected) and fixed.old.rules_action() == Call(2, 10)
    assert fixed.new.rules_action() == Fold(2) and fixed.index == index
    assert t.hand is not None and t.hand.folded[2] and t.hand.log[index] == Fold(2)
    assert rig3.seat_to_act() == 3


def test_floor_correction_that_cannot_replay_is_rejected(rig3: Rig) -> None:
    t = rig3.table
    rig3.start()
    rig3.dealer.deal(HANDS)
    t.call(), t.call()
    hand = t.hand
    assert hand is not None
    log = list(hand.log)
    assert not t.correct(len(log) - 1, Check(0), "SB checked")  # SB owes 5: cannot check
    rejected = rig3.last(Rejected)
    assert isinstance(rejected, Rejected) and rejected.rule == "BET-2"
    assert t.hand is not None and t.hand.log == log


def test_correcting_a_bet_carries_the_replayed_calls_so_a_second_correction_holds(
        rig3: Rig, tmp_path: Path) -> None:
    """A corrected bet changes the calls after it (the replay puts the new amount in):
    the journal's log must follow, or a later correction of one of those calls finds a
    different entry there and the journal refuses it (and the table stops)."""
    journal = Journal(tmp_path / "t.db", table="T1")
    t = rig3.table
    inner = t.sink

    def both(event: JournalEvent) -> None:
        inner(event)
        journal.append([event])

    t.sink = both
    for s in t.roster.occupied():  # the journal knows the seats the rig sat down
        journal.append([PlayerSeated(seat=s.number, player=s.player, stack=s.stack)])
    rig3.start()
    rig3.dealer.deal(HANDS)
    t.call(), t.call()  # button and SB call; BB to act
    t.raise_to(40)  # BB raises to 40
    t.call(), t.call()  # both call the 40
    hand = t.hand
    assert hand is not None
    raise_at = len(hand.log) - 3
    raised = hand.log[raise_at]
    assert isinstance(raised, BetRaise) and raised.to == 40
    assert t.correct(raise_at, BetRaise(raised.player, 60), "the big blind raised to 60")
    fixed = rig3.last(ActionCorrected)
    assert isinstance(fixed, ActionCorrected)
    assert [r.step.amount for r in fixed.replayed] == [50, 50]  # the calls of 60
    assert journal.state.hand_log[raise_at + 1] == fixed.replayed[0].step
    # a second correction of one of those calls now finds it where the journal has it
    second = hand.log[raise_at + 2]
    assert isinstance(second, Call)
    assert t.correct(raise_at + 2, Fold(second.player), "the SB folded")
    assert journal.state.hand is not None and journal.state.hand.to_act is None
    journal.close()
