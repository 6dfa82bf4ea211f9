"""Seats across the table's life, player-card check-in, deck enrolment and the deck count."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from controller.devices.interfaces import BEEP_ERROR
from controller.events import (
    CameBack,
    DeckReport,
    HandStarted,
    PlayerCheckedIn,
    PlayerRemoved,
    PlayerSeated,
    Rejected,
    SatOut,
    SeatPresence,
)
from controller.rules.cards import DECK, Card
from controller.table.deck import DeckLibrary, DeckMap, DeckMapError

from .conftest import UIDS, Rig, uid


def test_take_leave_sit_out_and_come_back_are_events() -> None:
    rig = Rig(seats={1: 500, 2: 500, 4: 500}, button=1)
    t = rig.table
    assert [e.seat for e in rig.of(PlayerSeated)] == [1, 2, 4]
    assert t.sit_out(2)
    rig.start()
    started = rig.last(HandStarted)
    assert isinstance(started, HandStarted) and 2 not in started.seats  # CASH-4
    assert not t.leave_seat(4)  # not during a hand
    assert not t.take_seat(6, "late", 100)
    assert t.come_back(2)  # takes effect at the next hand
    assert isinstance(rig.last(SatOut), SatOut) and isinstance(rig.last(CameBack), CameBack)
    t.misdeal("floor", None)
    assert t.leave_seat(4)
    left = rig.last(PlayerRemoved)
    assert isinstance(left, PlayerRemoved) and (left.seat, left.stack) == (4, 500)
    assert not t.take_seat(1, "someone", 100)  # taken
    assert not t.take_seat(11, "nowhere", 100)  # no such seat
    assert all(r.reason for r in rig.of(Rejected))


def test_player_card_at_the_assigned_seat_checks_in(rig3: Rig) -> None:
    rig3.table.assign(b"player-card-a", "Alice", 3)
    rig3.dealer.place("player3", b"player-card-a")
    checked = rig3.last(PlayerCheckedIn)
    assert isinstance(checked, PlayerCheckedIn)
    assert (checked.seat, checked.player, checked.assigned) == (3, "Alice", 3)
    present = rig3.last(SeatPresence)
    assert isinstance(present, SeatPresence) and (present.seat, present.present) == (3, True)
    assert rig3.table.roster[3].checked_in


def test_player_card_at_the_wrong_seat_is_shown_and_reported(rig3: Rig) -> None:
    rig3.table.assign(b"player-card-a", "Alice", 3)
    rig3.dealer.place("player5", b"player-card-a")
    wrong = rig3.last(PlayerCheckedIn)
    assert isinstance(wrong, PlayerCheckedIn)
    assert (wrong.seat, wrong.player, wrong.assigned) == (5, "Alice", 3)  # assigned elsewhere
    assert BEEP_ERROR in rig3.hw.buzzer.played  # type: ignore[attr-defined]
    assert not rig3.table.roster[5].checked_in
    assert not rig3.of(SeatPresence)


def test_a_player_card_nobody_assigned_is_refused(rig3: Rig) -> None:
    rig3.dealer.place("player5", b"player-card-z")
    refused = rig3.last(Rejected)
    assert isinstance(refused, Rejected) and "not assigned" in refused.reason
    assert refused.source == "player_card"
    assert BEEP_ERROR in rig3.hw.buzzer.played  # type: ignore[attr-defined]
    assert not rig3.of(PlayerCheckedIn) and not rig3.table.roster[5].checked_in


def test_card_1_enrolment_maps_the_deck_in_order_and_stores_it(tmp_path: Path) -> None:
    rig = Rig(seats={1: 100, 2: 100}, button=1, deck=None, decks=DeckLibrary(tmp_path))
    assert not rig.table.start_hand()  # no deck yet
    assert rig.table.begin_enrolment()
    for tag in UIDS:
        rig.dealer.place("deck", tag)
    assert rig.table.finish_enrolment()
    enrolled = rig.last(DeckReport)
    assert isinstance(enrolled, DeckReport)
    assert (enrolled.what, enrolled.version, enrolled.name) == ("enrolled", 1, "deck-1")
    stored = DeckMap.load(tmp_path / "deck-1.json")
    assert stored.card(UIDS[0]) == Card.parse("2c") and stored.card(UIDS[51]) == Card.parse("As")
    assert stored.digest == enrolled.digest
    assert not list(tmp_path.glob("*.tmp"))  # written atomically, nothing left behind


def test_card_1_enrolment_refuses_a_tag_read_twice() -> None:
    rig = Rig(seats={1: 100, 2: 100}, button=1, deck=None)
    rig.table.begin_enrolment()
    rig.dealer.place("deck", UIDS[0])
    rig.dealer.lift("deck", "2c")
    rig.dealer.place("deck", UIDS[0])
    assert rig.of(Rejected) and "already read as 2c" in rig.of(Rejected)[-1].reason
    assert not rig.table.finish_enrolment()  # only one card


def test_deck_map_file_is_versioned_and_its_hash_checked(tmp_path: Path) -> None:
    path = tmp_path / "deck.json"
    DeckMap.from_order(UIDS, version=3).save(path)
    assert DeckMap.load(path).version == 3
    data = json.loads(path.read_text())
    a, b = list(data["cards"])[:2]  # swap two cards: still a deck, not the one stored
    data["cards"][a], data["cards"][b] = data["cards"][b], data["cards"][a]
    path.write_text(json.dumps(data))
    with pytest.raises(DeckMapError, match="hash"):
        DeckMap.load(path)


def test_card_1_deck_count_at_the_shuffle_names_missing_and_doubled_cards(rig3: Rig) -> None:
    d = rig3.dealer
    for tag in UIDS[:-2]:  # As and Ah... the last two cards (Ah, As) are not there
        rig3.hw.drive_card_placed("deck", tag)
    d.step()
    rig3.hw.drive_card_lifted("deck", uid("2c"))
    d.step(0.51)
    d.place("deck", "2c")  # seen twice
    d.place("deck", b"\x04\x99\x99\x99\x99\x99\x99")  # a card from another deck
    rig3.start()
    report = rig3.last(DeckReport)  # the journal: counts only
    assert isinstance(report, DeckReport) and report.what == "checked"
    assert (report.complete, report.missing, report.duplicated, report.unknown) == (
        False, 2, 1, 1)
    checked = rig3.table.deck_check  # the dealer's screen: the cards by name
    assert checked is not None and not checked.complete
    assert checked.missing == (DECK[50], DECK[51])
    assert checked.duplicated == (Card.parse("2c"),)
    assert len(checked.unknown) == 1
    assert "A♥ A♠" in checked.text and "2♣" in checked.text


def test_card_1_a_complete_deck_count(rig3: Rig) -> None:
    for tag in UIDS:
        rig3.hw.drive_card_placed("deck", tag)
    rig3.dealer.step()
    rig3.start()
    report = rig3.last(DeckReport)
    assert isinstance(report, DeckReport) and (report.what, report.complete) == ("checked", True)
    assert (report.missing, report.duplicated, report.unknown) == (0, 0, 0)
    checked = rig3.table.deck_check
    assert checked is not None and checked.complete
    assert checked.text == "deck complete: 52 cards"


def test_card_1_enrolment_in_an_order_the_dealer_states() -> None:
    rig = Rig(seats={1: 100, 2: 100}, button=1, deck=None)
    order = list(reversed(range(52)))  # As first, as a new deck may come out of the box
    assert rig.table.begin_enrolment(order)
    for tag in UIDS:
        rig.dealer.place("deck", tag)
    assert rig.table.finish_enrolment()
    deck = rig.table.deck
    assert deck is not None and deck.card(UIDS[0]) == Card.parse("As")
    assert not rig.table.begin_enrolment([0] * 52)  # not a deck


def test_btn_4_a_tournament_waits_for_the_button_draw() -> None:
    from controller.rules.config import LIVE_TOURNAMENT
    from controller.table.lights import Level

    rig = Rig(seats={1: 100, 2: 100, 3: 100}, button=1, profile=LIVE_TOURNAMENT,
              tournament=True, levels=(Level(5, 10),))
    rig.table.new_game()  # forget the button placed by the rig
    rig.start()
    rejected = rig.last(Rejected)
    assert isinstance(rejected, Rejected) and rejected.rule == "BTN-4"
    assert rig.table.set_button(2)
    rig.start()
    started = rig.last(HandStarted)
    assert isinstance(started, HandStarted) and started.button == 2


def test_cash_4_a_hand_needs_two_players_not_sitting_out() -> None:
    rig = Rig(seats={1: 100, 2: 100}, button=1)
    rig.table.sit_out(2)
    rig.start()
    rejected = rig.last(Rejected)
    assert isinstance(rejected, Rejected) and rejected.rule == "CASH-4"
    assert not rig.of(HandStarted)


def test_a_name_that_is_no_player_id_is_refused_before_anything_changes(rig3: Rig) -> None:
    assert not rig3.table.take_seat(2, "Ann Smith", 500)  # the journal names players by id
    refused = rig3.last(Rejected)
    assert isinstance(refused, Rejected) and "not a player id" in refused.reason
    assert 2 not in rig3.table.roster.stacks()
    assert not rig3.table.assign(b"player-card-b", "Ann Smith", 2)
    assert b"player-card-b" not in rig3.table.roster.assignments
