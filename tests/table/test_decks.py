"""Decks by name (CARD-1, CARD-6): enrolment at the deck reader with every tag checked, the
table's library of saved decks, a deck change between hands, foreign cards in play, and the
count after the hand with its missing-card alert. Cards are placed at the mock readers as a
dealer places them; the dealer's inputs go in as the terminal sends them (``submit``)."""

from __future__ import annotations

import logging
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.devices.interfaces import BEEP_ERROR
from controller.events import (
    DeckReport,
    HandStarted,
    HoleCardsDealt,
    Irregularity,
    JournalEvent,
    MisdealDeclared,
    Rejected,
)
from controller.rules.cards import Card
from controller.table import intents as i
from controller.table.base import Stage
from controller.table.deck import DeckLibrary, DeckMap

from .conftest import DECKMAP, UIDS, Rig, uid

BLUE = [bytes([0x04, 0xB1, n, 0x55, 0x66, 0x77, 0x88]) for n in range(52)]
GREEN = [bytes([0x04, 0x6E, n, 0x01, 0x02, 0x03, 0x04]) for n in range(52)]
HANDS = {1: "AsKs", 3: "QdQc", 5: "7h2c"}


def blue(card: str) -> bytes:
    return BLUE[Card.parse(card)]


def saved_decks(directory: Path) -> DeckLibrary:
    """A library with 'red-1' (the conftest's deck, in play) and 'blue-1'."""
    decks = DeckLibrary(directory)
    decks.save(DECKMAP.named("red-1"))
    decks.save(DeckMap.from_order(BLUE, version=2, name="blue-1"))
    decks.put_in_play("red-1")
    return decks


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    """Three players (seats 1, 3, 5; button 5), playing deck 'red-1' from the library."""
    r = Rig(seats={1: 1000, 3: 1000, 5: 1000}, button=5, deck=None,
            decks=saved_decks(tmp_path / "decks"))
    yield r
    r.hw.close()


def no_secrets(events: list[JournalEvent]) -> None:
    """The journal (it goes to the floor) never holds a tag's UID."""
    for e in events:
        text = e.model_dump_json()
        assert not any(u.hex() in text for u in (*UIDS, *BLUE, *GREEN)), text


def play_to_awarding(rig: Rig) -> None:
    """A hand dealt and folded to the big blind: the pot waits for the dealer."""
    rig.start()
    rig.dealer.deal(HANDS)
    assert rig.table.fold() and rig.table.fold()
    assert rig.table.stage is Stage.AWARDING


def count(rig: Rig, tags: list[bytes]) -> None:
    """The dealer passes ``tags`` over the deck reader, one at a time."""
    for tag in tags:
        rig.hw.drive_card_placed("deck", tag)
        rig.dealer.step()
        rig.hw.drive_card_lifted("deck", tag)
    rig.dealer.step(0.51)


# ---------------------------------------------------------------- enrolment by name
def test_card_1_enrolment_by_name_is_saved_private_journaled_and_put_in_play(
        rig: Rig, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    t = rig.table
    assert t.submit(i.BeginEnrolment(name="green-1"))
    assert t.stage is Stage.ENROLLING
    assert not t.start_hand()  # no hand while a deck is enrolled
    for n, tag in enumerate(GREEN):
        if n == 10:
            assert t.dealer_view().enrolling == "10/52, next 4h"
        rig.dealer.place("deck", tag)
    assert t.submit(i.FinishEnrolment())
    enrolled = rig.last(DeckReport)
    assert isinstance(enrolled, DeckReport)
    assert (enrolled.what, enrolled.name, enrolled.version) == ("enrolled", "green-1", 3)
    path = tmp_path / "decks" / "green-1.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600  # a map reads face-down cards
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert DeckMap.load(path).digest == enrolled.digest
    view = t.dealer_view()
    assert (view.deck_name, view.deck_version) == ("green-1", 3)
    assert view.decks == ("blue-1", "green-1", "red-1")
    # in play: the new deck's tags are the cards now
    rig.start()
    rig.hw.drive_card_placed("seat1", GREEN[Card.parse("Ah")])
    rig.dealer.step()
    reads = t.reads
    assert reads is not None and reads.hole[1] == [Card.parse("Ah")]
    # a restarted table plays the deck last put in play
    again = Rig(seats={1: 100, 2: 100}, button=1, deck=None,
                decks=DeckLibrary(tmp_path / "decks"))
    assert again.table.dealer_view().deck_name == "green-1"
    again.hw.close()
    no_secrets(rig.events)
    assert not any(u.hex() in r.getMessage() for r in caplog.records for u in GREEN)


def test_card_1_an_enrolment_without_a_name_is_named_by_its_version(rig: Rig) -> None:
    t = rig.table
    assert t.begin_enrolment()
    for tag in GREEN:
        rig.dealer.place("deck", tag)
    assert t.finish_enrolment()
    enrolled = rig.last(DeckReport)
    assert isinstance(enrolled, DeckReport) and (enrolled.name, enrolled.version) == (
        "deck-3", 3)


def test_card_1_enrolment_refuses_duplicate_foreign_and_non_card_tags_and_goes_on(
        rig: Rig) -> None:
    t = rig.table
    t.assign(b"\x0a\x0b\x0c\x0d", "player3", 3)  # a player card (MIFARE Classic)
    assert t.submit(i.BeginEnrolment(name="green-1"))
    rig.dealer.place("deck", GREEN[0])  # 2c
    refusals = [
        (blue("7h"), "foreign: it is the 7h of deck 'blue-1'; take it out and place "
                     "this deck's 2d"),
        (uid("Kd"), "foreign: it is the Kd of deck 'red-1'"),  # the deck in play too
        (b"\x0a\x0b\x0c\x0d", "that is a player card, not a playing card"),
        (b"\x08\x01\x02\x03", "a 4-byte tag is no playing card's"),
        (GREEN[0], "this tag was already read as 2c: place the next card, 2d"),
    ]
    for tag, reason in refusals:
        rig.hw.drive_card_lifted("deck", GREEN[0])
        rig.hw.drive_card_placed("deck", tag)
        rig.dealer.step()
        refused = rig.last(Rejected)
        assert isinstance(refused, Rejected) and reason in refused.reason
        assert (refused.rule, refused.source) == ("CARD-1", "deck")
        rig.hw.drive_card_lifted("deck", tag)
        rig.dealer.step(0.51)
    assert t.dealer_view().enrolling == "1/52, next 2d"  # nothing taken, it goes on
    assert len(rig.of(Rejected)) == len(refusals)
    for tag in GREEN[1:]:
        rig.dealer.place("deck", tag)
    assert t.submit(i.FinishEnrolment())
    deck = t.deck
    assert deck is not None and deck.name == "green-1"
    assert deck.card(GREEN[0]) == Card.parse("2c") and deck.card(GREEN[51]) == Card.parse("As")
    assert deck.card(blue("7h")) is None
    no_secrets(rig.events)


def test_card_1_enrolling_a_saved_deck_again_replaces_its_map(rig: Rig, tmp_path: Path) -> None:
    """A damaged card replaced by a spare with a new tag: the deck is enrolled again under
    its name; its own tags are not foreign to it."""
    spare = bytes([0x04, 0x5A, 0x5A, 0x5A, 0x5A, 0x5A, 0x5A])
    tags = [*BLUE[:51], spare]  # the As had to be replaced
    assert rig.table.begin_enrolment(name="blue-1")
    for tag in tags:
        rig.dealer.place("deck", tag)
    assert rig.table.finish_enrolment() and not rig.of(Rejected)
    stored = DeckLibrary(tmp_path / "decks").load("blue-1")
    assert stored.card(spare) == Card.parse("As") and stored.card(BLUE[51]) is None
    assert stored.version == 3


def test_card_1_a_name_that_is_no_file_name_is_refused_before_reading(rig: Rig) -> None:
    assert not rig.table.begin_enrolment(name="../etc/passwd")
    refused = rig.last(Rejected)
    assert isinstance(refused, Rejected) and "is not a deck name" in refused.reason
    assert rig.table.enrolment is None and rig.table.stage is Stage.IDLE


# ---------------------------------------------------------------- choosing a saved deck
def test_card_6_a_saved_deck_is_chosen_by_name_between_hands_only(
        rig: Rig, tmp_path: Path) -> None:
    t = rig.table
    outcome = t.submit(i.ChooseDeck("green-7"))
    refusal = outcome.refusal
    assert refusal is not None and refusal.rule == "CARD-6"
    assert refusal.reason == "there is no saved deck 'green-7'; saved decks: blue-1, red-1"
    play_to_awarding(rig)
    refusal = t.submit(i.ChooseDeck("blue-1")).refusal
    assert refusal is not None and "waits until the hand is over" in refusal.reason
    assert t.dealer_view().deck_name == "red-1"  # nothing changed
    rig.dealer.press("deal")  # the pot is pushed: between hands
    rig.dealer.gather()
    assert t.choose_deck("blue-1")
    chosen = rig.last(DeckReport)
    assert isinstance(chosen, DeckReport)
    assert (chosen.what, chosen.name, chosen.version) == ("chosen", "blue-1", 2)
    assert chosen.digest == DeckMap.from_order(BLUE).digest
    assert DeckLibrary(tmp_path / "decks").in_play() is not None
    assert DeckLibrary(tmp_path / "decks").in_play().name == "blue-1"  # type: ignore[union-attr]
    refusal = t.submit(i.ChooseDeck("blue-1")).refusal
    assert refusal is not None and refusal.reason == "deck 'blue-1' is already in play"
    rig.start()
    rig.hw.drive_card_placed("seat1", blue("Ah"))  # the blue tags are the cards now
    rig.dealer.step()
    reads = t.reads
    assert reads is not None and reads.hole[1] == [Card.parse("Ah")]
    no_secrets(rig.events)


# ---------------------------------------------------------------- a foreign card in play
def test_card_1_a_card_of_another_saved_deck_in_play_is_foreign_with_a_misdeal(
        rig: Rig) -> None:
    t = rig.table
    rig.start()
    rig.dealer.place("seat1", "As")
    rig.dealer.place("seat3", blue("7h"))  # a blue card among the red ones
    report = rig.last(DeckReport)
    assert isinstance(report, DeckReport)
    assert (report.what, report.reader, report.name) == ("foreign_card", "seat3", "blue-1")
    alert = rig.last(Irregularity)
    assert isinstance(alert, Irregularity)
    assert (alert.what, alert.rule, alert.seat) == ("foreign_card", "CARD-1", 3)
    assert alert.choices == ("continue", "misdeal")
    assert "7h" not in alert.reason and "7♥" not in alert.reason  # journaled: no card
    prompt = t.dealer_view().prompt
    assert prompt is not None and prompt.text.startswith("7♥: a card of deck 'blue-1'")
    assert BEEP_ERROR in rig.hw.buzzer.played  # type: ignore[attr-defined]
    reads = t.reads
    assert reads is not None and reads.hole[3] == []  # never dealt as a card of this deck
    assert t.resolve("misdeal")
    assert isinstance(rig.last(MisdealDeclared), MisdealDeclared)
    rig.dealer.place("seat1", b"\x04\xee\xee\xee\xee\xee\xee")  # no saved deck's: unknown
    unknown = rig.last(DeckReport)
    assert isinstance(unknown, DeckReport) and unknown.what == "unknown_card"
    no_secrets(rig.events)


# ---------------------------------------------------------------- the count after the hand
def test_card_1_the_count_after_the_hand_says_when_every_card_is_back(rig: Rig) -> None:
    t = rig.table
    play_to_awarding(rig)
    rig.dealer.gather()
    count(rig, UIDS[:51])  # the dealer gathers while the pot waits
    assert t.dealer_view().deck_count == "counted 51/52"
    assert not rig.of(DeckReport)
    count(rig, UIDS[51:])
    done = rig.last(DeckReport)  # said at once, before the next deal
    assert isinstance(done, DeckReport)
    assert (done.what, done.complete, done.name, done.version) == ("checked", True, "red-1", 1)
    assert t.dealer_view().deck_count == "deck complete: 52 cards"
    rig.dealer.press("deal")  # the pot
    rig.start()
    assert len(rig.of(HandStarted)) == 2
    assert len(rig.of(DeckReport)) == 1  # not journaled twice


def test_card_1_a_short_count_stops_the_deal_with_the_missing_card_alert(
        rig: Rig, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    t = rig.table
    count(rig, [u for u in UIDS if u not in (uid("Ah"), uid("7c"))])
    count(rig, [uid("2c"), blue("9d")])  # the 2c again, and a card of the blue deck
    assert t.dealer_view().deck_count == "counted 50/52; twice 2♣; foreign 9♦ of 'blue-1'"
    rig.hw.buzzer.played.clear()  # type: ignore[attr-defined]
    outcome = t.submit(i.Key("deal"))
    assert not outcome.accepted and not rig.of(HandStarted)
    refusal = outcome.refusal
    assert refusal is not None and (refusal.rule, refusal.source) == ("CARD-1", "deal")
    report = rig.last(DeckReport)  # the floor sees the count
    assert isinstance(report, DeckReport)
    assert (report.what, report.complete, report.missing, report.duplicated,
            report.foreign, report.unknown) == ("checked", False, 2, 1, 1, 0)
    alert = rig.last(Irregularity)
    assert isinstance(alert, Irregularity) and (alert.what, alert.rule) == ("deck_count",
                                                                            "CARD-1")
    assert alert.choices == ("deal_anyway", "stop")
    assert BEEP_ERROR in rig.hw.buzzer.played  # type: ignore[attr-defined]
    prompt = t.dealer_view().prompt  # the dealer's screen names the missing cards
    assert prompt is not None and prompt.text.startswith("7♣ A♥: the deck count is short")
    for e in rig.events:  # never journaled, never logged
        assert not any(name in e.model_dump_json() for name in ("7c", "Ah", "7♣", "A♥"))
    assert not any(name in r.getMessage() for r in caplog.records
                   for name in ("7c", "Ah", "7♣", "A♥"))
    assert t.resolve("stop")
    assert t.dealer_view().deck_count == ("count the deck again: missing 7♣ A♥; twice 2♣; "
                                          "foreign 9♦ of 'blue-1'")
    assert not t.start_hand()  # still short: no deal without a full count
    assert len(rig.of(Irregularity)) == 2 and len(t.prompts) == 1  # the alert, once
    assert len(rig.of(DeckReport)) == 1
    count(rig, UIDS)  # the cards were found: the whole deck counted again
    assert rig.last(DeckReport) == DeckReport(what="checked", complete=True, name="red-1",
                                              version=1)
    assert t.start_hand() and not t.prompts
    no_secrets(rig.events)


def test_card_1_the_floor_may_deal_anyway_after_a_short_count(rig: Rig) -> None:
    t = rig.table
    count(rig, UIDS[:-1])  # the As is missing
    assert not t.start_hand()
    assert t.resolve("deal_anyway")
    started = rig.last(HandStarted)
    assert isinstance(started, HandStarted) and t.stage is Stage.DEALING
    assert rig.events.index(rig.last(DeckReport)) < rig.events.index(started)
    rig.dealer.deal(HANDS)
    assert len(rig.of(HoleCardsDealt)) == 3


def test_card_6_a_deck_change_ends_the_alert_of_the_old_deck(rig: Rig) -> None:
    t = rig.table
    count(rig, UIDS[:-1])
    assert not t.start_hand() and t.prompts
    assert t.choose_deck("blue-1")  # the house brings a fresh deck
    assert not t.prompts and t.dealer_view().deck_count is None
    assert t.start_hand()


def test_a_deal_with_no_count_taken_is_not_checked(rig: Rig) -> None:
    assert rig.table.start_hand()
    assert not rig.of(DeckReport) and not rig.of(Irregularity)


# ---------------------------------------------------------------- the library's files
def test_card_1_a_damaged_saved_deck_is_named_and_the_rest_still_load(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    decks = saved_decks(tmp_path)
    (tmp_path / "blue-1.json").write_text("{\"format\": \"pitboss-deck/1\"}")
    again = DeckLibrary(tmp_path)
    assert again.names() == ("red-1",)
    assert "saved deck 'blue-1' cannot be read" in caplog.text
    assert again.owner(blue("2c")) is None and again.owner(uid("2c")) == ("red-1",
                                                                         Card.parse("2c"))
    rig = Rig(seats={1: 100, 2: 100}, button=1, deck=None, decks=again)
    refusal = rig.table.submit(i.ChooseDeck("blue-1")).refusal
    assert refusal is not None and "saved deck 'blue-1' cannot be read" in refusal.reason
    rig.hw.close()
    assert decks.names() == ("blue-1", "red-1")  # the first library's index is its own
