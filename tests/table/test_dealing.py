"""Dealing from reads: hole cards in order, burns, the board, and every misdeal cause."""

from __future__ import annotations

from controller.devices.interfaces import Colour, LightState
from controller.events import (
    BoardDealt,
    BurnedCard,
    DeckReport,
    HandStarted,
    HoleCardsDealt,
    Irregularity,
    MisdealDeclared,
    Rejected,
    is_secret,
)
from controller.rules.cards import parse_cards
from controller.table.table import Stage

from .conftest import Rig

HANDS = {1: "AsKs", 3: "QdQc", 5: "7h2c"}


def test_card_8_hole_cards_in_dealing_order_start_the_betting(rig3: Rig) -> None:
    rig3.start()
    started = rig3.last(HandStarted)
    assert isinstance(started, HandStarted)
    assert started.seats == (1, 3, 5) and started.button == 5
    assert started.config is not None  # the whole game and its rules: a host replays it
    assert started.config.profile() == rig3.table.profile and started.level == 1
    hand = rig3.table.hand
    assert hand is not None and started.config.config(started.stacks) == hand.config
    rig3.dealer.deal(HANDS)
    dealt = rig3.of(HoleCardsDealt)
    assert [(started.seats[e.player], e.cards) for e in dealt] == [
        (s, tuple(str(card) for card in parse_cards(c))) for s, c in HANDS.items()]
    assert all(is_secret(e) for e in dealt)
    assert rig3.table.stage is Stage.PLAYING
    assert rig3.seat_to_act() == 5  # first left of the big blind (DEAL-2)
    rig3.hw.assert_light(5, LightState.on(Colour.WHITE))
    rig3.hw.assert_light(1, LightState.off())


def test_card_8_burn_then_flop_turn_river_from_the_board_reader(rig3: Rig) -> None:
    rig3.start()
    rig3.dealer.deal(HANDS)
    t = rig3.table
    t.call(), t.call(), t.check()
    rig3.dealer.street("2d", "3d4d5d")
    burns = rig3.of(BurnedCard)
    assert [e.card for e in burns] == ["2d"] and all(is_secret(e) for e in burns)
    flop = rig3.last(BoardDealt)
    assert isinstance(flop, BoardDealt)
    assert flop.street == "flop" and flop.cards == ("3d", "4d", "5d")
    assert t.hand is not None and t.hand.board == list(parse_cards("3d4d5d"))
    assert not rig3.of(Irregularity)


def test_card_8_board_card_without_a_burn_is_flagged(rig3: Rig) -> None:
    rig3.start()
    rig3.dealer.deal(HANDS)
    t = rig3.table
    t.call(), t.call(), t.check()
    rig3.dealer.place("board1", "3d")
    flagged = rig3.last(Irregularity)
    assert isinstance(flagged, Irregularity)
    assert (flagged.what, flagged.rule) == ("no_burn", "CARD-8")


def test_card_8_dealing_out_of_order_is_shown_with_the_rule(rig3: Rig) -> None:
    rig3.start()
    rig3.dealer.place("seat3", "Qd")  # seat 1 is first left of the button
    flagged = rig3.last(Irregularity)
    assert isinstance(flagged, Irregularity)
    assert flagged.what == "out_of_order" and flagged.rule == "CARD-8"
    assert set(flagged.choices) == {"continue", "misdeal"}


def test_card_at_an_empty_seat_is_flagged_and_not_dealt(rig3: Rig) -> None:
    rig3.start()
    rig3.dealer.place("seat2", "9h")
    flagged = rig3.last(Irregularity)
    assert isinstance(flagged, Irregularity)
    assert flagged.what == "empty_seat" and flagged.seat == 2
    assert rig3.table.reads is not None and rig3.table.reads.hole_count == 0
    rig3.hw.assert_light(2, LightState.blink(Colour.RED))


def test_live_17_a_third_card_at_a_holdem_seat_offers_dead_hand_or_misdeal(rig3: Rig) -> None:
    rig3.start()
    rig3.dealer.place("seat1", "As")
    rig3.dealer.place("seat3", "Qd")
    rig3.dealer.place("seat5", "7h")
    rig3.dealer.place("seat1", "Ks")
    rig3.dealer.place("seat1", "9c")
    flagged = rig3.last(Irregularity)
    assert isinstance(flagged, Irregularity)
    assert flagged.what == "too_many" and flagged.rule == "LIVE-17"
    assert set(flagged.choices) == {"continue", "kill_hand", "misdeal"}


def test_live_17_too_few_cards_when_the_burn_comes_kills_the_short_hand(rig3: Rig) -> None:
    rig3.start()
    d = rig3.dealer
    for seat, card in ((1, "As"), (3, "Qd"), (5, "7h"), (1, "Ks"), (3, "Qc")):
        d.place(f"seat{seat}", card)
    d.place("muck", "2d")  # a burn while seat 5 has one card
    flagged = rig3.last(Irregularity)
    assert isinstance(flagged, Irregularity)
    assert flagged.what == "too_few" and flagged.seat == 5
    assert rig3.table.resolve("kill_hand")
    # the short hand is dead: it folds when its turn comes (seat 5 acts first preflop)
    hand = rig3.table.hand
    assert hand is not None and hand.folded[2]
    assert rig3.seat_to_act() == 1


def test_a_card_read_at_two_readers_is_flagged(rig3: Rig) -> None:
    rig3.start()
    rig3.dealer.place("seat1", "As")
    rig3.dealer.place("seat3", "As")  # still on seat 1's antenna
    flagged = rig3.last(Irregularity)
    assert isinstance(flagged, Irregularity)
    assert flagged.what == "two_readers"
    # the card may be a hole card: the dealer's screen names it, the journal never does
    prompt = rig3.table.prompts[-1]
    assert prompt.event == flagged and prompt.cards == parse_cards("As")
    assert prompt.text.startswith("A♠")
    text = flagged.model_dump_json()
    assert "A♠" not in text and "As" not in text and not is_secret(flagged)


def test_card_5_a_card_on_the_board_during_the_deal_is_exposed(rig3: Rig) -> None:
    rig3.start()
    rig3.dealer.deal({1: "As", 3: "Qd", 5: "7h"})
    rig3.dealer.place("seat1", "Ks")
    rig3.dealer.place("board1", "Qc")  # meant for seat 3, turned up on the board
    kinds = [e.what for e in rig3.of(Irregularity)]
    assert "too_few" in kinds


def test_deal_5_absent_player_has_a_dead_hand_that_folds_in_turn(rig3: Rig) -> None:
    t = rig3.table
    t.assign(b"card-of-5", "player5", 5)
    rig3.dealer.place("player5", b"card-of-5")  # checked in at seat 5
    rig3.hw.drive_card_lifted("player5", b"card-of-5")
    rig3.dealer.step(0.51)  # stepped away
    rig3.start()
    rig3.dealer.deal(HANDS)
    absent = rig3.last(Irregularity)
    assert isinstance(absent, Irregularity)
    assert (absent.what, absent.rule, absent.seat) == ("absent", "DEAL-5", 5)
    hand = t.hand
    assert hand is not None and hand.folded[2]  # seat 5, the button, acted first: folded
    assert rig3.seat_to_act() == 1


def test_live_25_misdeal_key_during_the_deal_redeals_the_same_positions(rig3: Rig) -> None:
    rig3.start()
    rig3.dealer.place("seat1", "As")
    rig3.dealer.press("misdeal")
    misdeal = rig3.last(MisdealDeclared)
    assert isinstance(misdeal, MisdealDeclared)
    assert misdeal.stacks == (1000, 1000, 1000)  # every stack back to its start
    assert rig3.table.stage is Stage.IDLE
    rig3.dealer.gather()
    rig3.start()
    first, second = rig3.of(HandStarted)
    assert (first.button, first.seats, first.stacks) == (second.button, second.seats,
                                                          second.stacks)


def test_misdeal_key_after_the_deal_is_refused_with_the_rule(rig3: Rig) -> None:
    rig3.start()
    rig3.dealer.deal(HANDS)
    rig3.table.call()
    rig3.dealer.press("misdeal")
    assert not rig3.of(MisdealDeclared)
    refused = rig3.events[-1]
    assert isinstance(refused, Rejected) and refused.rule == "LIVE-25"


def test_unknown_uid_is_reported_never_guessed(rig3: Rig) -> None:
    rig3.start()
    rig3.dealer.place("seat1", b"\x04\xff\xff\xff\xff\xff\xff")
    unknown = rig3.last(DeckReport)
    assert isinstance(unknown, DeckReport)
    assert (unknown.what, unknown.reader) == ("unknown_card", "seat1")
    assert rig3.table.reads is not None and rig3.table.reads.hole_count == 0
