"""Dead hands and forfeited chips go through the engine (Hand.kill, fold(forfeit=...)):
LIVE-16/17, DEAL-5, LIVE-2/7/10."""

from __future__ import annotations

from controller.events import ActionAccepted, Irregularity, PotAwarded, Rejected
from controller.rules.actions import Fold, Kill
from controller.table.table import Stage

from .conftest import Rig

HANDS = {1: "AsKs", 3: "QdQc", 5: "7h2c"}


def dealt(rig: Rig) -> Rig:
    rig.start()
    rig.dealer.deal(HANDS)
    return rig


def test_live_17_an_all_in_hand_pushed_to_the_muck_can_no_longer_win() -> None:
    rig = Rig(seats={1: 1000, 3: 40, 5: 1000}, button=5)
    t = dealt(rig).table
    t.raise_to(100)  # the button
    t.call()  # the small blind
    t.call()  # the big blind, all-in for 40 with the best hand (queens)
    rig.dealer.street("2d", "3d4dTd")
    rig.dealer.muck_hand(3)  # the all-in player throws the queens away
    killed = rig.last(ActionAccepted)
    assert isinstance(killed, ActionAccepted)
    assert rig.seat_of(killed.player) == 3 and killed.rules_action() == Kill(1, "LIVE-16")
    hand = t.hand
    assert hand is not None and hand.folded[1]
    for _ in range(2):  # flop: check, check
        t.check()
    rig.dealer.street("8h", "6s")
    t.check()
    t.check()
    rig.dealer.street("Jc", "9c")
    t.check()
    t.check()
    while t.stage is Stage.SHOWDOWN:
        rig.dealer.press("deal")
    assert t.stage is Stage.AWARDING
    assert all(p != 1 for award in hand.awards for p, _ in award.shares)
    assert sum(a.amount for a in hand.awards) == 100 + 100 + 40
    while t.stage is Stage.AWARDING:
        rig.dealer.press("deal")
    assert t.roster[3].stack == 0  # its 40 stayed in the pot for the live hands
    assert t.roster[1].stack == 1140  # ace-king beats seven-high; the queens were dead
    assert t.roster.total_chips() == 2040


def test_live_10_forfeited_chips_are_in_the_engines_pot_and_awards(rig3: Rig) -> None:
    t = dealt(rig3).table
    t.chips(15)
    t.resolve("fold")  # the button leaves 15 in the pot (LIVE-7 fold option)
    hand = t.hand
    assert hand is not None and hand.log[-1] == Fold(2, 15)
    assert hand.pot_total == 5 + 10 + 15
    t.fold()  # the small blind: the big blind wins what is in
    # 5 (small blind) + 5 of the big blind's 10 (the rest is uncalled: POT-7) + 15 forfeited
    assert [(a.amount, a.shares) for a in hand.awards] == [(25, ((1, 25),))]
    t.confirm()
    pot = rig3.last(PotAwarded)
    assert isinstance(pot, PotAwarded) and pot.amount == 25 and pot.shares == ((1, 25),)
    assert rig3.seat_of(1) == 3
    assert t.roster[3].stack == 1020 and t.roster[5].stack == 985


def test_deal_5_the_absent_hand_is_killed_in_the_engine_and_the_floor_may_keep_it(
        rig3: Rig) -> None:
    t = rig3.table
    t.assign(b"card-of-1", "player1", 1)
    rig3.dealer.place("player1", b"card-of-1")
    rig3.hw.drive_card_lifted("player1", b"card-of-1")
    rig3.dealer.step(0.51)  # the small blind stepped away
    dealt(rig3)
    hand = t.hand
    assert hand is not None and Kill(0, "DEAL-5") in hand.log
    assert rig3.seat_to_act() == 5
    assert t.resolve("keep_hand")  # the player was within reach of the chair
    hand = t.hand
    assert hand is not None and not hand.folded[0]
    assert not any(isinstance(a, Kill) for a in hand.log)
    t.call()
    assert rig3.seat_to_act() == 1  # the small blind acts again


def test_live_17_a_dead_hand_is_not_revived_by_the_dealers_undo(rig3: Rig) -> None:
    t = dealt(rig3).table
    t.call()  # the button
    rig3.dealer.muck_hand(3)  # the big blind's hand, out of turn
    assert not t.undo(1)
    rejected = rig3.last(Rejected)
    assert isinstance(rejected, Rejected) and rejected.rule == "DEAL-6"
    hand = t.hand
    assert hand is not None and hand.folded[1]


def test_live_17_a_third_card_killed_by_the_dealer_is_dead_when_the_deal_ends(
        rig3: Rig) -> None:
    rig3.start()
    d = rig3.dealer
    d.place("seat1", "As")
    d.place("seat3", "Qd")
    d.place("seat5", "7h")
    d.place("seat1", "Ks")
    d.place("seat1", "9c")  # a third card at seat 1
    flagged = rig3.last(Irregularity)
    assert isinstance(flagged, Irregularity) and flagged.what == "too_many"
    assert rig3.table.resolve("kill_hand")
    d.place("seat3", "Qc")
    d.place("seat5", "2c")
    hand = rig3.table.hand
    assert hand is not None and Kill(0, "LIVE-17") in hand.log
    assert hand.folded[0]


def test_live_16_a_hand_thrown_in_out_of_the_showdown_order_is_dead() -> None:
    rig = Rig(seats={1: 1000, 3: 1000, 5: 1000}, button=5)
    t = dealt(rig).table
    t.call()
    t.call()
    t.check()
    for burn, cards in (("2d", "3d4dTd"), ("8h", "6s"), ("Jc", "9c")):
        rig.dealer.street(burn, cards)
        for _ in range(3):
            t.check()
    assert t.stage is Stage.SHOWDOWN
    hand = t.hand
    assert hand is not None and hand.next_to_show == 0  # seat 1 shows first
    rig.dealer.muck_hand(3)  # the queens go in before their turn
    killed = rig.last(ActionAccepted)
    assert isinstance(killed, ActionAccepted) and killed.rules_action() == Kill(1, "LIVE-16")
    while t.stage is Stage.SHOWDOWN:
        rig.dealer.press("deal")
    assert all(p != 1 for award in hand.awards for p, _ in award.shares)
