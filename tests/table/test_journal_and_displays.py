"""Journal before display, secrets kept out of INFO logs, and each screen state as PNG."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from controller.devices.interfaces import BlindsFrame, Colour, LightState
from controller.events import (
    ActionAccepted,
    HandStarted,
    HoleCardsDealt,
    Irregularity,
    JournalEvent,
    LevelSet,
    Rejected,
    is_secret,
)
from controller.rules.cards import Card
from controller.rules.config import LIVE_TOURNAMENT
from controller.table.lights import ALL_IN, Level
from controller.table.table import Stage

from .conftest import Rig

FRAMES = Path(__file__).resolve().parents[2] / "docs" / "frames"
HANDS = {1: "AsKs", 3: "QdQc", 5: "7h2c"}


def test_every_event_reaches_the_journal_before_the_displays_change() -> None:
    rig3 = Rig(seats={1: 1000, 3: 1000, 5: 1000}, button=5,
               levels=(Level(5, 10), Level(10, 20)))
    seen: list[tuple[str, LightState, LightState, BlindsFrame | None]] = []

    def journal(event: JournalEvent) -> None:
        rig3.events.append(event)
        seen.append((type(event).__name__, rig3.hw.light(5).state, rig3.hw.light(1).state,
                     rig3.hw.blinds.frame))

    rig3.table.sink = journal
    rig3.dealer.press("next_level")
    assert seen[-1][0] == "LevelSet" and seen[-1][3] is not None
    assert seen[-1][3].big_blind == 10  # the display still showed the old level
    rig3.hw.assert_blinds(BlindsFrame(2, 10, 20, 0, 5, None))
    rig3.start()
    rig3.dealer.deal(HANDS)
    rig3.table.call()  # seat 5 calls; seat 1 is next
    name, light5, light1, _ = seen[-1]
    assert name == "ActionAccepted"
    assert light5 == LightState.on(Colour.WHITE) and light1 == LightState.off()  # not yet
    rig3.hw.assert_light(5, LightState.off())
    rig3.hw.assert_light(1, LightState.on(Colour.WHITE))


def test_hole_cards_are_secret_and_stay_out_of_info_logs(
        rig3: Rig, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="pitboss.table")
    rig3.start()
    rig3.dealer.deal(HANDS)
    rig3.dealer.place("seat2", "9h")  # an irregularity about a card
    secret = [e for e in rig3.events if is_secret(e)]
    assert {type(e) for e in secret} >= {HoleCardsDealt}
    assert not is_secret(rig3.last(HandStarted))  # type: ignore[arg-type]
    public = " ".join(e.model_dump_json() for e in rig3.events if not is_secret(e))
    text = " ".join(r.getMessage() for r in caplog.records if r.levelno >= logging.INFO)
    for card in ("As", "Ks", "A♠", "K♠", "9h", "9♥", "Qd", "Q♦"):
        assert card not in text and card not in public
    flagged = rig3.last(Irregularity)  # the card is on the dealer's screen only
    assert rig3.table.prompts[-1].event == flagged
    assert rig3.table.prompts[-1].cards == (Card.parse("9h"),)


def test_all_in_seat_is_lit_amber_and_winner_blinks_green() -> None:
    rig = Rig(seats={1: 1000, 3: 40, 5: 1000}, button=5)
    t = rig.table
    rig.start()
    rig.dealer.deal(HANDS)
    t.raise_to(100)  # button
    t.fold()  # SB
    t.call()  # BB all-in for 40
    rig.hw.assert_light(3, ALL_IN)
    for burn, cards in (("2d", "3d4dTd"), ("8h", "6s"), ("Jc", "9c")):
        rig.dealer.street(burn, cards)
    while t.stage is Stage.SHOWDOWN:
        rig.dealer.press("deal")
    assert t.stage is Stage.AWARDING
    rig.hw.assert_light(3, LightState.blink(Colour.GREEN))  # queens win the main pot


def test_blinds_display_screens_render_to_png(tmp_path: Path) -> None:
    levels = (Level(100, 200, 200, 1200), Level(200, 400, 400, 1200))
    rig = Rig(seats={2: 20_000, 4: 20_000, 7: 20_000}, button=7, levels=levels,
              profile=LIVE_TOURNAMENT, tournament=True)
    hw, t = rig.hw, rig.table
    hw.assert_blinds(BlindsFrame(1, 100, 200, 200, 7, 1200))  # before the first hand
    out = tmp_path
    hw.save_frame("blinds", out / "table_blinds_before_first_hand.png")
    rig.start()
    rig.dealer.step(125.0)  # two minutes into the level
    hw.assert_blinds(BlindsFrame(1, 100, 200, 200, 7, 1075))
    hw.save_frame("blinds", out / "table_blinds_in_hand.png")
    rig.dealer.press("next_level")
    assert isinstance(rig.last(LevelSet), LevelSet)
    # the hand keeps its level (DEAL-4); the display follows once the hand is over
    assert hw.blinds.frame is not None and hw.blinds.frame.big_blind == 200
    t.misdeal("floor", None)
    hw.assert_blinds(BlindsFrame(2, 200, 400, 400, 7, 1200))
    hw.save_frame("blinds", out / "table_blinds_next_level.png")
    rig.dealer.step(1199.5)
    hw.save_frame("blinds", out / "table_blinds_last_second.png")
    for png in out.glob("*.png"):
        assert png.stat().st_size > 200
    FRAMES.mkdir(parents=True, exist_ok=True)
    for name in ("table_blinds_before_first_hand.png", "table_blinds_in_hand.png",
                 "table_blinds_next_level.png"):
        target = FRAMES / name
        if not target.exists():  # a reference frame for people; tests never overwrite it
            target.write_bytes((out / name).read_bytes())


def test_accepted_actions_name_the_position_that_hand_started_maps_to_a_seat(
        rig3: Rig) -> None:
    rig3.start()
    rig3.dealer.deal(HANDS)
    rig3.table.call()
    accepted = rig3.last(ActionAccepted)
    started = rig3.last(HandStarted)
    assert isinstance(accepted, ActionAccepted) and isinstance(started, HandStarted)
    assert accepted.player == 2 and accepted.rules_action().player == 2
    assert started.seats[accepted.player] == 5


def test_pump_polls_the_hardware_and_handles_what_came(rig3: Rig) -> None:
    rig3.hw.drive_key_press("deal")
    assert rig3.table.pump() == 1
    assert isinstance(rig3.last(HandStarted), HandStarted)
    rig3.hw.assert_light(5, LightState.off())


def test_run_handles_events_on_the_loop() -> None:
    import asyncio

    from controller.devices.mock import MockTable
    from controller.devices.profile import load_profile
    from controller.rules.cards import DECK
    from controller.table.table import Table

    from .conftest import DECKMAP, UIDS

    async def scenario() -> tuple[Table, list[JournalEvent]]:
        loop = asyncio.get_running_loop()
        hw = MockTable(load_profile("virtual"), clock=loop.time)
        events: list[JournalEvent] = []
        table = Table(hw, sink=events.append, levels=(Level(5, 10),), deck=DECKMAP)
        for seat in (1, 2):
            table.take_seat(seat, f"p{seat}", 100)
        table.set_button(2)
        tasks = [asyncio.create_task(hw.run()), asyncio.create_task(table.run())]
        await asyncio.sleep(0.01)
        hw.drive_key_press("deal")
        hw.drive_key_release("deal")
        await asyncio.sleep(0.01)
        hw.drive_card_placed("seat1", UIDS[0])
        await asyncio.sleep(0.1)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        hw.close()
        return table, events

    table, events = asyncio.run(scenario())
    # the deal key and the card read are journaled before they are applied (issue 21)
    assert [type(e).__name__ for e in events][-2:] == ["HandStarted", "CardSeen"]
    key = [e for e in events if type(e).__name__ == "InputTaken"]
    assert [(k.source, k.what) for k in key] == [("keypad", "key deal")]
    seen = events[-1]
    assert type(seen).__name__ == "CardSeen"
    assert (seen.reader, seen.seat, seen.card) == ("seat1", 1, str(DECK[0]))  # type: ignore[union-attr]
    assert table.reads is not None and table.reads.hole[1] == [DECK[0]]  # read on the loop


def test_a_light_handed_back_by_the_clock_panel_shows_the_table_again(rig3: Rig) -> None:
    rig3.start()
    rig3.dealer.deal(HANDS)
    rig3.hw.set_light(5, LightState.blink(Colour.RED))  # the shot clock's countdown
    rig3.table.tick()
    rig3.hw.assert_light(5, LightState.blink(Colour.RED))  # not the table's to take back
    rig3.table.release_light(5)
    rig3.table.tick()
    rig3.hw.assert_light(5, LightState.on(Colour.WHITE))


def test_a_public_reason_never_names_a_face_down_card(rig3: Rig) -> None:
    rig3.start()
    rig3.dealer.deal({1: "AsTh", 3: "QdQc", 5: "7h2c"})
    play = rig3.table.play
    assert play.unnamed("As is already in this hand (A♠)") == \
        "a card is already in this hand (a card)"
    assert play.unnamed("The hand goes on; Th and T♥") == "The hand goes on; a card and a card"
    assert play.unnamed("Kd is not in the hand") == "Kd is not in the hand"  # not dealt
    assert not play.reject("seat 1 holds As", None, "test")
    refused = rig3.events[-1]
    assert isinstance(refused, Rejected) and refused.reason == "seat 1 holds a card"
