"""The colour-up and chip race at the live table (issue 6; RULES.md §18, CHIPRACE-*):
started by the dealer's key, by the floor's ScheduleColourUp and by the level clock's
break; counts keyed in, race cards read at the seat readers (or keyed in), the race's
misdeal checks, every step journaled and the outcome as one ``stack_adjusted``, and the
prompt screens."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image, ImageChops

from controller import events as ev
from controller.app import TableCommands, TableJournal, restore
from controller.chiprace import ChipSet
from controller.clocks.structure import Break, Structure
from controller.clocks.structure import Level as ClockLevel
from controller.devices.events import KeyPressed
from controller.devices.interfaces import Colour, LightMode
from controller.events import (
    BreakStarted,
    ChipsCounted,
    ColourUpCancelled,
    ColourUpScheduled,
    ColourUpStarted,
    ColourUpStepUndone,
    DeckReport,
    HandStarted,
    Irregularity,
    RaceCardDealt,
    RaceChipsAwarded,
    RaceDealtAgain,
    Rejected,
    ScheduleColourUp,
    StackAdjusted,
)
from controller.sync.errors import CommandRefused
from controller.sync.journal import Journal
from controller.sync.messages import EventMessage, parse_message
from controller.sync.outbox import Outbox
from controller.table import intents as i
from controller.table.base import Stage
from controller.table.colour_up import ColourUpSettings
from controller.table.colour_up_screen import Screen, render_screen
from controller.table.lights import Level
from controller.table.virtual import VirtualTable
from tests.table.conftest import Rig

FRAMES = Path(__file__).resolve().parents[2] / "docs" / "frames"
LEVELS = (Level(100, 200), Level(200, 400), Level(300, 600))
CHIPS = ChipSet.of({25: "green", 100: "black", 500: "purple", 1000: "yellow"})


def make_rig(seats: dict[int, int], **settings: object) -> Rig:
    return Rig(seats=seats, button=5, levels=LEVELS, tournament=True,
               colour_up=ColourUpSettings(chip_set=CHIPS, **settings))  # type: ignore[arg-type]


@pytest.fixture
def rig() -> Iterator[Rig]:
    """Seats 1, 3, 5 with 7, 3 and 2 T25 chips: odd chips worth 75 + 75 + 50 = 200, so
    two T100 are raced among three seats (CHIPRACE-6.4) with 3 + 3 + 2 race cards."""
    r = make_rig({1: 1175, 3: 1075, 5: 1050})
    yield r
    r.hw.close()


def counted(rig: Rig, counts: dict[int, int]) -> None:
    rig.table.handle(KeyPressed("colour_up"))
    for seat, n in counts.items():
        assert rig.table.submit(i.CountColourUp(seat, n))


def deal(rig: Rig, cards: list[tuple[int, str]]) -> None:
    for seat, card in cards:
        rig.dealer.place(f"seat{seat}", card)


RACE = [(1, "As"), (3, "2c"), (5, "Kc"), (1, "Ah"), (3, "3c"), (5, "2d"), (1, "Ad"), (3, "4c")]


def coloured_up(rig: Rig) -> StackAdjusted:
    """The colour-up's outcome: its one ``stack_adjusted``."""
    done = rig.last(StackAdjusted)
    assert isinstance(done, StackAdjusted) and done.reason == "colour_up"
    return done


def adjusted(done: StackAdjusted) -> tuple[tuple[int, int, int], ...]:
    """(seat, before, after) of each seat the colour-up adjusted."""
    return tuple((a.seat, a.before, a.after) for a in done.seats)


def light(rig: Rig, seat: int) -> tuple[LightMode, Colour]:
    state = rig.table.lights.shown[seat]
    return state.mode, state.colour


# ------------------------------------------------------------------ the flow from the dealer key
def test_chiprace_1_dealer_key_count_deal_award_confirm(rig: Rig) -> None:
    t = rig.table
    rig.table.handle(KeyPressed("colour_up"))
    assert t.stage is Stage.COLOUR_UP
    started = rig.last(ColourUpStarted)
    assert (started.leaving, started.trigger, started.seats) == ((25,), "dealer", (1, 3, 5))
    assert light(rig, 1) == (LightMode.ON, Colour.WHITE)  # the seat being counted
    for seat, n in {1: 7, 3: 3, 5: 2}.items():
        assert t.submit(i.CountColourUp(seat, n))
    assert [(e.seat, e.chips) for e in rig.of(ChipsCounted)] == [
        (1, ((25, 7),)), (3, ((25, 3),)), (5, ((25, 2),))]
    race = t.colour_up.race
    assert race is not None and race.plan is not None and race.plan.chips_raced == 2
    assert light(rig, 1) == (LightMode.ON, Colour.WHITE)  # first to deal
    assert light(rig, 3) == (LightMode.BLINK, Colour.WHITE)  # due a card
    deal(rig, RACE)
    assert [(e.seat, str(e.card), e.keyed) for e in rig.of(RaceCardDealt)] == [
        (s, c, False) for s, c in RACE]
    assert light(rig, 1) == light(rig, 5) == (LightMode.BLINK, Colour.GREEN)  # winners
    assert light(rig, 3) == (LightMode.OFF, Colour.OFF)
    rig.dealer.press("deal")  # the chips are handed out
    awarded = rig.last(RaceChipsAwarded)
    assert awarded.chip == 100 and awarded.rescued == ()
    assert awarded.winners == ((1, "As"), (5, "Kc"))
    assert light(rig, 3) == (LightMode.ON, Colour.GREEN)  # every new stack to confirm
    assert not rig.of(StackAdjusted)  # nothing final before the confirmation
    rig.dealer.press("deal")  # confirmed
    done = coloured_up(rig)
    assert adjusted(done) == ((1, 1175, 1200), (3, 1075, 1000), (5, 1050, 1100))
    assert dict(t.roster.stacks()) == {1: 1200, 3: 1000, 5: 1100}
    assert t.stage is Stage.IDLE and t.colour_up.chip_set.values == (100, 500, 1000)
    assert "seat 1 As" in done.note and "seat 5 Kc" in done.note
    rig.dealer.gather()
    rig.start()  # play goes on with the new stacks
    hand = rig.last(HandStarted)
    assert dict(zip(hand.seats, hand.stacks, strict=True)) == {1: 1200, 3: 1000, 5: 1100}


def test_chiprace_1_no_hand_and_no_seat_change_during_a_colour_up(rig: Rig) -> None:
    counted(rig, {1: 7})
    rig.dealer.press("deal")
    assert not rig.of(HandStarted)
    refused = rig.last(Rejected)
    assert refused.rule == "CHIPRACE-6" and "seat 3" in refused.reason.lower()
    assert rig.table.start_hand() is False and rig.last(Rejected).rule == "CHIPRACE-1"
    assert rig.table.take_seat(2, "late", 1000) is False
    assert not rig.of(HandStarted)


def test_chiprace_1_the_colour_up_waits_for_the_hand_in_play(rig: Rig) -> None:
    rig.start()
    rig.table.handle(KeyPressed("colour_up"))
    assert "between hands" in rig.last(Rejected).reason
    assert rig.table.stage is Stage.DEALING and not rig.of(ColourUpStarted)


def test_chiprace_1_a_miscount_is_refused_and_can_be_keyed_again(rig: Rig) -> None:
    counted(rig, {})
    t = rig.table
    # 200 of 1175 leaves 975: not whole T100s
    assert t.submit(i.CountColourUp(1, 8)).accepted is False
    assert "recount" in rig.last(Rejected).reason and not rig.of(ChipsCounted)
    assert t.submit(i.CountColourUp(1, 7))


def test_chiprace_2_race_cards_dealt_clockwise_from_seat_1_when_strict() -> None:
    rig = make_rig({1: 1175, 3: 1075, 5: 1050}, strict_order=True)
    counted(rig, {5: 2, 3: 3, 1: 7})
    rig.dealer.place("seat3", "2c")  # seat 1 is first (CHIPRACE-2)
    assert rig.last(Irregularity).what == "out_of_order" and not rig.of(RaceCardDealt)
    rig.hw.close()


# ------------------------------------------------------------------ readers, keyed cards, misdeals
def test_chiprace_6_unknown_uid_is_reported_and_a_card_can_be_keyed_in(rig: Rig) -> None:
    counted(rig, {1: 7, 3: 3, 5: 2})
    rig.dealer.place("seat1", bytes.fromhex("04ffffffffffff"))
    assert rig.last(DeckReport) == DeckReport(what="unknown_card", reader="seat1")
    assert not rig.of(RaceCardDealt)
    assert rig.table.submit(i.KeyRaceCard(1, "As"))  # the reader failed: the dealer keys it
    assert rig.last(RaceCardDealt) == RaceCardDealt(seat=1, card="As", keyed=True)
    # seat 2 is empty: no race card
    assert rig.table.submit(i.KeyRaceCard(2, "Ks")).accepted is False
    deal(rig, RACE[1:])
    rig.dealer.press("deal")
    rig.dealer.press("deal")
    assert "keyed in: seat 1 As" in coloured_up(rig).note


def test_chiprace_6_a_card_at_a_seat_without_odd_chips_opens_a_prompt() -> None:
    rig = make_rig({1: 1175, 3: 1075, 5: 1000})
    counted(rig, {1: 7, 3: 3, 5: 0})  # 75 + 75 = 150: 2 chips, 2 racers: decided
    t = rig.table
    assert t.colour_up.race is not None and t.colour_up.race.phase.value == "award"
    rig.dealer.place("seat5", "As")
    problem = rig.last(Irregularity)
    assert problem.seat == 5 and problem.rule == "CHIPRACE-6"
    assert light(rig, 5) == (LightMode.BLINK, Colour.RED)
    assert t.resolve("continue")  # the card is taken back; nothing changed
    assert not t.prompts and not rig.of(RaceCardDealt)
    rig.dealer.press("deal")
    rig.dealer.press("deal")
    assert adjusted(coloured_up(rig)) == ((1, 1175, 1200), (3, 1075, 1100), (5, 1000, 1000))
    rig.hw.close()


def test_chiprace_6_a_card_seen_twice_then_the_race_is_dealt_again(rig: Rig) -> None:
    counted(rig, {1: 7, 3: 3, 5: 2})
    deal(rig, [(1, "As"), (3, "2c")])
    rig.dealer.place("seat5", "As")  # the same card at a second seat reader
    problem = rig.last(Irregularity)
    assert problem.what == "two_readers" and problem.rule == "CARD-1" and problem.seat == 5
    screen = rig.table.colour_up.screen()  # the display names the problem and the choices
    assert screen is not None and screen.title == "S5 TWO READERS"
    assert screen.lines == ("card As", "CONTINUE or MISDEAL")
    rig.dealer.press("misdeal")  # the prompt's choice: deal the race again
    assert rig.of(RaceDealtAgain) and not rig.table.prompts
    race = rig.table.colour_up.race
    assert race is not None and race.cards == [] and race.phase.value == "deal"
    rig.dealer.gather()
    deal(rig, RACE)
    assert race.phase.value == "award"


def test_chiprace_6_a_seat_given_too_many_race_cards(rig: Rig) -> None:
    counted(rig, {1: 7, 3: 3, 5: 2})
    deal(rig, [(5, "Kc"), (5, "2d"), (5, "3d")])  # seat 5 races 2 odd chips: 2 cards
    assert rig.last(Irregularity).what == "too_many"
    assert len(rig.of(RaceCardDealt)) == 2


def test_chiprace_6_misdeal_key_during_the_deal_takes_the_cards_back(rig: Rig) -> None:
    counted(rig, {1: 7, 3: 3, 5: 2})
    deal(rig, RACE[:3])
    rig.dealer.press("misdeal")
    assert rig.last(RaceDealtAgain).reason.startswith("the dealer declared")
    assert rig.table.colour_up.race is not None and rig.table.colour_up.race.cards == []


def test_undo_steps_back_and_undo_at_the_start_calls_the_colour_up_off(rig: Rig) -> None:
    counted(rig, {1: 7})
    rig.dealer.press("undo")
    assert rig.last(ColourUpStepUndone).what == "CountChips"
    race = rig.table.colour_up.race
    assert race is not None and race.counted == {}
    rig.dealer.press("undo")
    assert rig.of(ColourUpCancelled) and rig.table.stage is Stage.IDLE
    assert dict(rig.table.roster.stacks()) == {1: 1175, 3: 1075, 5: 1050}
    assert not rig.of(StackAdjusted)


# ------------------------------------------------------------------ CHIPRACE-3, value
def test_chiprace_3_a_stack_of_only_odd_chips_is_not_raced_out() -> None:
    rig = make_rig({1: 1075, 3: 1050, 5: 50})  # seat 5: two T25 and nothing else
    counted(rig, {1: 3, 3: 2, 5: 2})  # 75 + 50 + 50 = 175: 2 chips, 3 racers
    deal(rig, [(1, "As"), (3, "Ks"), (5, "2c"), (1, "Ah"), (3, "Kh"), (5, "2d"),
               (1, "Ad")])
    rig.dealer.press("deal")
    assert rig.last(RaceChipsAwarded).rescued == (5,)
    rig.dealer.press("deal")
    assert adjusted(coloured_up(rig)) == ((1, 1075, 1100), (3, 1050, 1100), (5, 50, 100))
    rig.hw.close()


SMALL = ChipSet.of({5: "red", 25: "green", 100: "black"})


@pytest.mark.parametrize(("chips", "stacks", "counts"), [
    (CHIPS, {1: 1175, 3: 1075, 5: 1050}, {1: 7, 3: 3, 5: 2}),  # 200 odd: 2 chips
    (CHIPS, {1: 1025, 3: 1025, 5: 1025}, {1: 1, 3: 1, 5: 1}),  # 75 odd: 1 chip of 3
    (SMALL, {1: 1010, 3: 1005, 5: 5}, {1: 2, 3: 1, 5: 1}),  # T5 leaves; seat 5 all odd
])
def test_chiprace_6_value_after_is_before_less_odd_plus_raced_and_rescued(
        chips: ChipSet, stacks: dict[int, int], counts: dict[int, int]) -> None:
    rig = Rig(seats=stacks, button=5, levels=LEVELS,
              colour_up=ColourUpSettings(chip_set=chips))
    cu = rig.table.colour_up
    rig.table.handle(KeyPressed("colour_up"))  # the lowest chip in play leaves
    for seat, n in counts.items():
        assert cu.count(seat, n)
    race = cu.race
    assert race is not None and race.plan is not None
    cards = iter(["As", "Ks", "Qs", "Js", "Ts", "9s", "8s", "7s", "6s", "5s", "4s"])
    for seat, n in race.expect().due:
        for _ in range(n):
            rig.dealer.place(f"seat{seat}", next(cards))
    rig.dealer.press("deal")
    rig.dealer.press("deal")
    done = adjusted(coloured_up(rig))
    plan, unit = race.plan, race.plan.race_chip.value
    rescued = len(rig.last(RaceChipsAwarded).rescued)
    before = sum(b for _, b, _ in done)
    after = sum(a for _, _, a in done)
    assert before == sum(stacks.values())
    assert after == before - plan.odd_value + (plan.chips_raced + rescued) * unit
    assert all(a % unit == 0 and a > 0 for _, _, a in done)  # CHIPRACE-3, -4
    assert sum(rig.table.roster.stacks().values()) == after
    rig.hw.close()


# ------------------------------------------------------------------ the floor and the level clock
def test_chiprace_1_floor_schedules_the_colour_up_for_a_level(tmp_path: Path) -> None:
    async def scenario() -> None:
        journal = Journal(tmp_path / "t1.db", table="t1")
        try:
            async with Outbox(journal) as outbox:
                sink = TableJournal(outbox)
                rig = Rig(seats={}, button=5, levels=LEVELS, tournament=True,
                          colour_up=ColourUpSettings(chip_set=CHIPS))
                t = rig.table
                t.sink = sink  # journaled from here on
                for seat, stack in {1: 1175, 3: 1075, 5: 1050}.items():
                    assert t.take_seat(seat, f"p{seat}", stack)
                commands = TableCommands(t, sink)
                with pytest.raises(CommandRefused, match="level 1 has begun"):
                    commands.perform(ScheduleColourUp(at_level=1), "c0")
                reply, events = commands.perform(ScheduleColourUp(at_level=2), "c1")
                assert reply == {"change": "colour_up_scheduled"}
                assert events == [ev.ColourUpScheduled(level=2, command_id="c1")]
                outbox.record_now(events)  # the command desk journals them with the reply
                assert journal.state.colour_up_at_level == 2
                assert t.colour_up.allows_hand()  # level 1: hands go on
                t.next_level()
                seq = journal.last_seq
                rig.dealer.press("deal")  # level 2's first deal: the colour-up instead
                assert t.stage is Stage.COLOUR_UP and t.colour_up.trigger == "floor"
                for seat, n in {1: 7, 3: 3, 5: 2}.items():
                    assert t.submit(i.CountColourUp(seat, n))
                deal(rig, RACE)
                rig.dealer.press("deal")
                rig.dealer.press("deal")
                journaled = [parse_message(EventMessage, p.public).event
                             for p in journal.parcels(seq, limit=100)]
                keys = [e for e in journaled if isinstance(e, ev.InputTaken)]
                assert [k.what for k in keys] == ["key deal"] * 3  # the dealer's keys,
                assert journaled[0] == keys[0]  # each journaled before its outcome (issue 21)
                sent = [e for e in journaled if not isinstance(e, ev.InputTaken)]
                assert [e.kind for e in sent] == [  # every step, the outcome as ONE event
                    "colour_up_started", *["chips_counted"] * 3,
                    *["race_card_dealt"] * len(RACE), "race_chips_awarded",
                    "stack_adjusted"]
                adjusted = sent[-1]
                assert isinstance(adjusted, StackAdjusted) and adjusted.reason == "colour_up"
                assert [(a.seat, a.before, a.after) for a in adjusted.seats] == [
                    (1, 1175, 1200), (3, 1075, 1000), (5, 1050, 1100)]
                assert {v.seat: v.stack for v in journal.state.seats} == {
                    1: 1200, 3: 1000, 5: 1100}
                again = Rig(seats={}, button=5, levels=LEVELS, tournament=True)
                restore(again.table, journal.state, sink)  # a restart: the new stacks
                assert dict(again.table.roster.stacks()) == {1: 1200, 3: 1000, 5: 1100}
                rig.hw.close()
                again.hw.close()
        finally:
            journal.close()

    asyncio.run(scenario())


def test_chiprace_1_scheduled_colour_up_survives_a_restart(tmp_path: Path) -> None:
    async def scenario() -> None:
        journal = Journal(tmp_path / "t1.db", table="t1")
        try:
            async with Outbox(journal) as outbox:
                sink = TableJournal(outbox)
                vt = VirtualTable(3, seed=1, sink=sink, levels=LEVELS)
                vt.table.submit(i.ScheduleColourUp(3))
                assert journal.state.colour_up_at_level == 3
                with sink.muted():
                    again = VirtualTable(3, seed=2, sink=sink, levels=LEVELS)
                restore(again.table, journal.state, sink)
                assert again.table.colour_up.scheduled == 3
        finally:
            journal.close()

    asyncio.run(scenario())


def test_chiprace_1_the_level_clock_break_starts_the_colour_up(rig: Rig) -> None:
    t = rig.table
    assert t.colour_up.on_break(1, ()) is False  # a break without a colour-up
    assert t.colour_up.on_break(1, (25,))
    started = rig.last(ColourUpStarted)
    assert started.trigger == "break" and started.leaving == (25,)
    assert t.stage is Stage.COLOUR_UP


BREAK_STRUCTURE = Structure("colour-up test", tuple(
    ClockLevel(n, 100 * n, 200 * n, 0, 0, 60.0) for n in (1, 2, 3)),
    breaks=(Break(1, 300.0, (25,)),))


def clocked_rig() -> Rig:
    return Rig(seats={1: 1175, 3: 1075, 5: 1050}, button=5, levels=(),
               structure=BREAK_STRUCTURE, tournament=True,
               colour_up=ColourUpSettings(chip_set=CHIPS))


def test_chiprace_1_the_level_clock_break_with_a_colour_up_starts_it() -> None:
    rig = clocked_rig()
    rig.dealer.step(61.0)  # level 1 is over: the break with its colour-up
    brk = rig.last(BreakStarted)
    assert brk.level == 1 and brk.colour_up == (25,)
    started = rig.last(ColourUpStarted)
    assert rig.events.index(started) > rig.events.index(brk)  # the break is journaled first
    assert (started.trigger, started.leaving) == ("break", (25,))
    screen = rig.table.colour_up.screen()
    assert screen is not None and screen.corner == "4:59"  # the break's time left
    rig.dealer.step(2.0)  # the level clock ticks the blinds display: the prompt stays
    screen = rig.table.colour_up.screen()
    assert screen is not None and screen.corner == "4:57"
    shown = rig.hw.frame("blinds")
    assert ImageChops.difference(shown, render_screen(screen, shown.size, shown.mode)) \
        .getbbox() is None
    rig.hw.close()


def test_chiprace_1_a_break_during_a_hand_colours_up_once_the_hand_is_over() -> None:
    rig = clocked_rig()
    rig.start()
    rig.dealer.step(61.0)
    assert rig.last(BreakStarted).colour_up == (25,) and not rig.of(ColourUpStarted)
    rig.table.misdeal("the hand ends")  # any end of the hand will do
    assert rig.last(ColourUpStarted).trigger == "break"
    assert rig.table.stage is Stage.COLOUR_UP
    rig.hw.close()


def test_chiprace_1_floor_colour_up_at_the_break_before_its_level(rig: Rig) -> None:
    t = rig.table
    assert t.submit(i.ScheduleColourUp(3)) and rig.last(ColourUpScheduled).level == 3
    assert t.colour_up.on_break(1, ()) is False  # the break before level 2: not yet
    assert t.colour_up.on_break(2, ())
    assert rig.last(ColourUpStarted).trigger == "floor" and t.colour_up.scheduled is None


# ------------------------------------------------------------------ the prompt screens
def test_chiprace_5_prompt_screens_are_drawn_on_the_blinds_display(rig: Rig,
                                                                    tmp_path: Path) -> None:
    hw, t = rig.hw, rig.table
    blinds = hw.frame("blinds").copy()
    rig.table.handle(KeyPressed("colour_up"))
    count = hw.frame("blinds").copy()
    screen = t.colour_up.screen()
    assert screen is not None and screen.title == "S1 COUNT T25"
    assert screen.lines[1] == "4 x T25 = 1 x T100"
    assert ImageChops.difference(count.convert("RGB"), blinds.convert("RGB")).getbbox()
    expected = render_screen(screen, count.size, count.mode)
    assert ImageChops.difference(count, expected).getbbox() is None  # exactly that screen
    out = {"colour_up_count.png": hw.save_frame("blinds", tmp_path / "a.png")}
    for seat, n in {1: 7, 3: 3, 5: 2}.items():
        t.submit(i.CountColourUp(seat, n))
    deal(rig, RACE[:4])
    screen = t.colour_up.screen()
    assert screen is not None and screen.title == "S3 RACE CARD 2/3"
    assert "dealt 4/8 cards" in screen.lines
    out["colour_up_deal.png"] = hw.save_frame("blinds", tmp_path / "b.png")
    deal(rig, RACE[4:])
    screen = t.colour_up.screen()
    assert screen is not None and screen.title == "AWARD 2 x T100"
    assert screen.lines[0] == "S1 As S5 Kc"
    out["colour_up_award.png"] = hw.save_frame("blinds", tmp_path / "c.png")
    rig.dealer.press("deal")
    rig.dealer.press("deal")
    after = hw.frame("blinds")  # the blinds frame is back
    assert ImageChops.difference(after.convert("RGB"), blinds.convert("RGB")).getbbox() is None
    images = [Image.open(p).convert("RGB") for p in out.values()]
    assert all(ImageChops.difference(a, b).getbbox() for a, b in itertools.pairwise(images))
    FRAMES.mkdir(parents=True, exist_ok=True)
    for name, png in out.items():
        target = FRAMES / name
        if not target.exists():  # a reference frame for people; tests never overwrite it
            target.write_bytes(png.read_bytes())


def test_screen_lines_fit_the_display() -> None:
    img = render_screen(Screen("COLOUR-UP T25+T5", "9:59", "S10 RACE CARD 10/10",
                               ("x" * 21, "y" * 21, "z" * 21)), (128, 64), "1")
    assert img.size == (128, 64) and img.getbbox() is not None


def test_chiprace_6_the_virtual_dealer_runs_a_scheduled_colour_up_and_chips_add_up() -> None:
    vt = VirtualTable(4, seed=5, levels=LEVELS, tournament=True)
    vt.play_hands(3)
    assert vt.table.submit(i.ScheduleColourUp(2))
    vt.table.next_level()
    summary = vt.play_hands(4)  # each hand checks the chips, the race's change included
    assert summary is not None
    done = [e for e in vt.events if isinstance(e, StackAdjusted) and e.reason == "colour_up"]
    started = [e for e in vt.events if isinstance(e, ColourUpStarted)]
    assert len(done) == 1 and started[0].leaving == (1,)  # T1 leaves
    assert vt.table.colour_up.chip_set.lowest.value == 5  # T5 is the unit now
    assert all(a.after % 5 == 0 for a in done[0].seats)
    assert started[0].trigger == "floor"
    hands = [e for e in vt.events if isinstance(e, HandStarted)]
    assert len(hands) == 7 and vt.events.index(done[0]) < vt.events.index(hands[3])
