"""The live rules, the clocks, a colour-up, a misdeal, an undo and a correction, each
driven only through the dealer's keypad (a fake evdev device read by the real reader)
and card placements at the mock readers: LIVE-7 (the 50 % rule), LIVE-8 (an oversized
chip), a time-bank chip, CHIPRACE-1/6 counts, LIVE-25, DEAL-6."""

from __future__ import annotations

import asyncio
from pathlib import Path

from controller.chiprace import ChipSet
from controller.clocks.timebank import ExtensionChips
from controller.events import (
    ActionAccepted,
    ActionCorrected,
    ActionsUndone,
    ChipsCounted,
    ColourUpStarted,
    HandStarted,
    Irregularity,
    MisdealDeclared,
    RaceCardDealt,
    ShotClockReport,
    StackAdjusted,
)
from controller.table.colour_up import ColourUpSettings
from controller.table.lights import Level

from .rig import keypad_table

SEATS = {1: 10_000, 2: 10_000, 3: 10_000}
HANDS = {2: "AhKh", 3: "2c3d", 1: "9s9d"}
BLINDS = (Level(50, 100),)


def test_live_7_half_a_raise_in_chips_offers_the_choice_keyed_with_option(
        tmp_path: Path) -> None:
    async def scenario() -> None:
        async with keypad_table(tmp_path, SEATS, levels=BLINDS) as rig:
            await rig.keys("1 button deal")
            await rig.deal(HANDS)
            await rig.keys("140 chips")  # the button: call 100, 40 over < half of 100
            call = rig.last(ActionAccepted)
            assert (call.action, call.returned, call.rule) == ("call", 40, "LIVE-7")
            await rig.keys("100 chips")  # the small blind: call 50, 50 over = half: 002
            prompt = rig.last(Irregularity)
            assert prompt.rule == "LIVE-7" and set(prompt.choices) == {"raise_to_200", "fold"}
            assert rig.shown[0] == "! LIVE-7 choice"
            assert rig.shown[1] == "1 raise to 200 2 fold"  # what OPTION chooses between
            await rig.keys("1 option")
            raised = rig.last(ActionAccepted)
            assert (raised.action, raised.amount) == ("bet_raise", 200)
            assert rig.shown[0].startswith("S3 call 100")  # the big blind faces 200

    asyncio.run(scenario())


def test_live_8_an_oversized_chip_is_a_call_and_first_in_it_bets_its_value(
        tmp_path: Path) -> None:
    async def scenario() -> None:
        async with keypad_table(tmp_path, SEATS, levels=BLINDS) as rig:
            await rig.keys("1 button deal")
            await rig.deal(HANDS)
            await rig.keys("5000 + chips")  # one 5,000 chip facing 100, nothing said
            call = rig.last(ActionAccepted)
            assert (call.action, call.returned, call.rule) == ("call", 4_900, "LIVE-8")
            await rig.keys("call check")
            await rig.street("2d", "3h4h5s")
            await rig.keys("1000 + chips")  # first to act on the flop: one 1,000 chip
            bet = rig.last(ActionAccepted)
            assert (bet.action, bet.amount, bet.rule) == ("bet_raise", 1_000, "LIVE-8")
            await rig.keys("500 + 500 + chips")  # two 500s facing 1,000: a call (LIVE-9)
            assert rig.last(ActionAccepted).action == "call"

    asyncio.run(scenario())


def test_a_time_bank_chip_keyed_at_the_keypad_extends_the_shot_clock(tmp_path: Path) -> None:
    async def scenario() -> None:
        chips = ExtensionChips(30, {"day1": 1})
        chips.enter_stage("day1", ["player1", "player2", "player3"])
        async with keypad_table(tmp_path, SEATS, levels=BLINDS, extensions=chips) as rig:
            await rig.keys("1 button deal")
            await rig.deal(HANDS)
            rig.dealer.step(25.0)  # seat 1 thinks; 5 s left on the shot clock
            await rig.keys("time_bank")  # the player on the clock: seat 1
            taken = rig.last(ShotClockReport)
            assert (taken.seat, taken.what, taken.seconds, taken.chips_left) == (
                1, "extension", 30, 0)
            rig.hw.assert_shot_clock("35")
            await rig.drawn()
            assert rig.shown[2] == "L1 50/100 35"
            before = rig.desk.state()
            await rig.keys("time_bank")  # no chip left: refused, the clock runs on
            assert rig.desk.reply is not None and not rig.desk.reply.accepted
            assert rig.desk.state() == before and len(rig.of(ShotClockReport)) == 1
            await rig.keys("2 time_bank")  # seat 2 is not on the clock
            assert len(rig.of(ShotClockReport)) == 1

    asyncio.run(scenario())


def test_chiprace_1_a_colour_up_counted_and_a_race_card_keyed_at_the_keypad(
        tmp_path: Path) -> None:
    async def scenario() -> None:
        chip_set = ChipSet.of({25: "green", 100: "black", 500: "purple", 1000: "yellow"})
        levels = (Level(100, 200), Level(200, 400))
        async with keypad_table(tmp_path, {1: 1175, 3: 1075, 5: 1050}, levels=levels,
                                tournament=True,
                                colour_up=ColourUpSettings(chip_set=chip_set)) as rig:
            await rig.keys("colour_up")
            assert rig.last(ColourUpStarted).leaving == (25,)
            assert rig.shown[1]  # the colour-up's next step, on the display
            await rig.keys("1 seat 7 count 3 seat 3 count")
            await rig.keys("5 seat 2 count")  # 75 + 75 + 50 odd: two T100 raced
            assert [(c.seat, c.chips) for c in rig.of(ChipsCounted)] == [
                (1, ((25, 7),)), (3, ((25, 3),)), (5, ((25, 2),))]
            await rig.keys("1 seat 14.4 race_card")  # seat 1's reader missed its As
            assert rig.last(RaceCardDealt) == RaceCardDealt(seat=1, card="As", keyed=True)
            for seat, card in ((3, "2c"), (5, "Kc"), (1, "Ah"), (3, "3c"), (5, "2d"),
                               (1, "Ad"), (3, "4c")):
                rig.dealer.place(f"seat{seat}", card)
            await rig.keys("deal")  # the chips handed out
            await rig.keys("deal")  # the new stacks confirmed
            done = rig.last(StackAdjusted)
            assert done.reason == "colour_up"
            assert [(a.seat, a.before, a.after) for a in done.seats] == [
                (1, 1175, 1200), (3, 1075, 1000), (5, 1050, 1100)]
            assert rig.stacks() == {1: 1200, 3: 1000, 5: 1100}

    asyncio.run(scenario())


def test_live_25_misdeal_from_the_key_and_from_a_prompt_option(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with keypad_table(tmp_path, SEATS, levels=BLINDS) as rig:
            await rig.keys("1 button deal")
            rig.dealer.place("seat2", "Ah")
            await rig.keys("misdeal")
            first = rig.last(MisdealDeclared)
            assert first.stacks == (10_000, 10_000, 10_000)  # the blinds go back
            rig.dealer.gather()
            await rig.keys("deal")
            rig.dealer.place("seat3", "2c")  # seat 2 is first left of the button
            await rig.drawn()
            flagged = rig.last(Irregularity)
            assert flagged.rule == "CARD-8" and set(flagged.choices) == {"continue", "misdeal"}
            choices = rig.shown[1].split()
            n = choices[choices.index("misdeal") - 1]  # the number the display gives it
            await rig.keys(f"{n} option")
            assert len(rig.of(MisdealDeclared)) == 2
            rig.dealer.gather()
            await rig.keys("deal")
            starts = rig.of(HandStarted)
            assert len({(s.button, s.seats) for s in starts}) == 1  # dealt again, same places

    asyncio.run(scenario())


def test_deal_6_undo_then_a_correction_and_a_late_misdeal_refused(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with keypad_table(tmp_path, SEATS, levels=BLINDS) as rig:
            await rig.keys("1 button deal")
            await rig.deal(HANDS)
            await rig.keys("call")
            await rig.keys("undo")  # seat 1 had not called after all
            assert rig.last(ActionsUndone).actions[0].action == "call"
            assert rig.shown[0].startswith("S1 call 100")
            await rig.keys("call call")  # seats 1 and 2 call; the big blind to act
            wrong = next(line for line in rig.desk.screen().log
                         if line.seat == 1 and line.action == "call")
            await rig.keys(f"{wrong.index} correct")
            assert rig.shown[3] == f"> fix#{wrong.index} (S1 call 100)"  # what it points at
            await rig.keys("fold")  # seat 1 had folded: the seat comes from the log
            fixed = rig.last(ActionCorrected)
            assert fixed.index == wrong.index and fixed.new.action == "fold"
            assert rig.shown[0].startswith("S3 ")  # the big blind still to act
            before = rig.desk.state()
            await rig.keys("misdeal")  # too late: the action has begun
            assert rig.said.startswith("LIVE-25: ") and rig.shown[4].startswith("LIVE-25:")
            assert rig.desk.state() == before

    asyncio.run(scenario())


def test_sit_out_and_back_and_an_enrolment_begun_from_the_keypad(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with keypad_table(tmp_path, SEATS, levels=BLINDS) as rig:
            def out() -> dict[int, bool]:
                return {s.seat: s.sitting_out for s in rig.desk.screen().seats}

            await rig.keys("2 sit_out")
            assert out() == {1: False, 2: True, 3: False}
            await rig.keys("2 seat sit_out")  # the same with SEAT: seat 2 comes back
            assert out() == {1: False, 2: False, 3: False}
            await rig.keys("1 deck")  # no deck saved yet: the display says so
            assert rig.said == "key the deck's number, then DECK (none saved)"
            await rig.keys("clear enrol")
            assert rig.desk.screen().stage == "enrolling"
            assert rig.shown[:2] == ("#0 enrolling", "deck 0/52, next 2c")

    asyncio.run(scenario())
