"""Whole hands on the dealer's tablet in Chromium: No-Limit Hold'em, Pot-Limit Omaha and
Fixed-Limit Hold'em from the button draw or the deal to the pot pushed, a tournament
colour-up with its counts, and a time-bank extension chip. Every action is a tap on the
page or a card placed at a mock reader (tablet_station.py); the test reads the journal
only to check what the page did.

Fails without ``/usr/bin/chromium`` or the ``playwright`` package, saying so (tests/needs.py).
"""

from __future__ import annotations

from pathlib import Path

from controller.chiprace import ChipSet
from controller.clocks.timebank import ExtensionChips
from controller.events import (
    ActionAccepted,
    ChipsCounted,
    HandEnded,
    HandStarted,
    RaceCardDealt,
    ShotClockReport,
    StackAdjusted,
)
from controller.rules.config import Variant
from controller.table.colour_up import ColourUpSettings
from controller.table.lights import Level

from .tablet_station import TabletPage, on_tablet

SEATS = {1: 10_000, 2: 10_000, 3: 10_000}
LEVELS = (Level(50, 100),)


def moves(page: TabletPage) -> list[tuple[int, str, int | None]]:
    """The hand's actions as the journal has them: (seat, action, amount)."""
    started = page.station.last(HandStarted)
    return [(started.seats[a.player], a.action, a.amount)
            for a in page.station.of(ActionAccepted)]


def test_tablet_nlhe_full_hand_from_the_button_draw_to_the_pot_pushed(tmp_path: Path) -> None:
    async def hand(t: TabletPage) -> None:
        assert "button" in await t.buttons() and "deal" in await t.buttons()
        await t.seat(3)
        await t.tap("button")  # BTN-1: the button starts at seat 3
        await t.said("Seat 3: button")
        await t.tap("deal")
        await t.expect(t.seat_box(3).locator(".dealer-button")).to_be_visible()
        await t.stack_is(1, "9,950")
        await t.bet_is(2, "100")
        await t.deal({1: "AsKs", 2: "QdQc", 3: "7h2c"})
        # the button acts first three-handed: facing the big blind, no check offered
        await t.shows("#turn-who", "Seat 3 · p3 to act")
        await t.shows("#to-call", "100")
        await t.shows("#min-raise", "200")
        await t.shows("#max-raise", "10,000")
        offered = await t.buttons()
        assert {"fold", "call", "bet", "all_in"} <= set(offered) and "check" not in offered
        await t.shows("#entry", "200")  # the minimum, prefilled
        await t.bet("300")
        await t.bet_is(3, "300")
        await t.shows('[data-verb="call"]', "Call 250")
        await t.tap("call")
        await t.tap("fold")
        await t.expect(t.seat_box(2)).to_have_attribute("data-state", "folded in-hand")
        await t.street("9c", "Ts8d5c")
        await t.shows("#street", "Flop")
        await t.tap("check")
        await t.page.locator("#bb-toggle").click()  # amounts in big blinds
        await t.key("clear")
        await t.key("4")
        await t.shows('[data-verb="bet"]', "Bet 4 BB")
        await t.tap("bet")
        await t.bet_is(3, "400")
        await t.tap("call")
        await t.street("9d", "Jh")
        await t.tap("check")
        await t.tap("check")
        await t.street("9h", "3s")
        await t.tap("check")
        await t.tap("check")
        await t.shows('[data-verb="show"]', "Show seat 1")
        await t.tap("show")
        await t.expect(t.seat_box(1).locator(".card")).to_have_count(2)
        await t.tap("show")
        await t.shows('[data-verb="deal"]', "Push pot")
        await t.tap("deal")
        await t.stack_is(1, "10,800")  # 700 in, a pot of 1,500 back: ace-king high wins
        await t.stack_is(2, "9,900")
        await t.stack_is(3, "9,300")
        await t.shows("#street", "Between hands")
        assert moves(t) == [(3, "bet_raise", 300), (1, "call", 250), (2, "fold", None),
                            (1, "check", None), (3, "bet_raise", 400), (1, "call", 400),
                            (1, "check", None), (3, "check", None), (1, "check", None),
                            (3, "check", None), (1, "show", None), (3, "show", None)]
        ended = t.station.last(HandEnded)
        assert ended.stacks == (10_800, 9_900, 9_300)

    on_tablet(tmp_path, SEATS, hand, levels=LEVELS)


def test_tablet_plo_full_hand_with_pot_sized_raises_from_max(tmp_path: Path) -> None:
    async def hand(t: TabletPage) -> None:
        await t.shows("#game", "Pot-Limit Omaha")
        await t.tap("deal")
        await t.deal({1: "AsKsQsJs", 2: "2c3c4c5c", 3: "7h7d8h8d"})
        await t.shows("#max-raise", "350")  # the pot: 50 + 100 + the call of 100, + 100
        await t.page.locator("#fill-max").click()
        await t.shows('[data-verb="bet"]', "Raise to 350")
        await t.tap("bet")
        await t.tap("call")
        await t.tap("fold")
        await t.street("9c", "2h9sTd")
        await t.shows("#max-raise", "800")
        await t.page.locator("#fill-max").click()
        await t.tap("bet")
        await t.bet_is(1, "800")
        await t.tap("call")
        await t.street("6c", "3h")
        await t.tap("check")
        await t.tap("check")
        await t.street("6d", "4d")
        await t.tap("check")
        await t.tap("check")
        await t.tap("show")
        await t.tap("show")
        await t.expect(t.seat_box(3).locator(".card")).to_have_count(4)
        await t.tap("deal")
        await t.stack_is(3, "11,250")  # eights beat ace-king high: a pot of 2,400
        await t.stack_is(1, "8,850")
        assert t.station.last(HandEnded).stacks == (8_850, 9_900, 11_250)
        assert moves(t)[:5] == [(3, "bet_raise", 350), (1, "call", 300), (2, "fold", None),
                                (1, "bet_raise", 800), (3, "call", 800)]

    on_tablet(tmp_path, SEATS, hand, button=3, levels=LEVELS, variant=Variant.PO)


def test_tablet_fixed_limit_full_hand_with_the_limit_prefilled(tmp_path: Path) -> None:
    levels = (Level(50, 100, small_bet=100, big_bet=200),)  # FL-2: the level sets the bets

    async def hand(t: TabletPage) -> None:
        await t.shows("#game", "Fixed-Limit Hold'em")
        await t.tap("deal")
        await t.deal({1: "AsKs", 2: "QdQc", 3: "7h2c"})
        await t.shows("#min-raise", "200")
        await t.shows("#max-raise", "200")
        await t.shows('[data-verb="bet"]', "Raise to 200")  # the one size, keyed for them
        await t.tap("bet")
        await t.tap("call")
        await t.tap("call")
        await t.street("9c", "Ts8d5c")
        await t.tap("check")
        await t.shows('[data-verb="bet"]', "Bet 100")  # the small bet on the flop
        await t.tap("bet")
        await t.shows('[data-verb="bet"]', "Raise to 200")
        await t.tap("bet")
        await t.tap("fold")
        await t.tap("call")
        await t.street("9d", "Jh")
        await t.tap("check")
        await t.shows('[data-verb="bet"]', "Bet 200")  # the big bet on the turn
        await t.tap("bet")
        await t.tap("call")
        await t.street("9h", "3s")
        await t.tap("check")
        await t.tap("check")
        await t.tap("show")
        await t.tap("show")
        await t.tap("deal")
        await t.stack_is(2, "10,800")  # queens: 600 in, a pot of 1,400 back
        await t.stack_is(3, "9,400")
        assert t.station.last(HandEnded).stacks == (9_800, 10_800, 9_400)
        assert [m for m in moves(t) if m[1] == "bet_raise"] == [
            (3, "bet_raise", 200), (2, "bet_raise", 100), (3, "bet_raise", 200),
            (3, "bet_raise", 200)]

    on_tablet(tmp_path, SEATS, hand, button=3, levels=levels, variant=Variant.FT)


CHIPS = ChipSet.of({25: "green", 100: "black", 500: "purple", 1000: "yellow"})
RACE = [(1, "As"), (3, "2c"), (5, "Kc"), (1, "Ah"), (3, "3c"), (5, "2d"), (1, "Ad"), (3, "4c")]


def test_chiprace_1_tournament_colour_up_counted_and_raced_on_the_tablet(
        tmp_path: Path) -> None:
    async def colour_up(t: TabletPage) -> None:
        await t.expect(t.locator('.chip[data-chip="25"]')).to_be_visible()
        await t.tap("colour_up")
        await t.shows("#street", "Colour-up")
        for seat, count in ((1, "7"), (3, "3"), (5, "2")):
            await t.seat(seat)
            await t.key(count)
            await t.shows('[data-verb="count"]', "Count chips")
            await t.tap("count")
            await t.said(f"Seat {seat}: count {count}")
        assert [(e.seat, e.chips) for e in t.station.of(ChipsCounted)] == [
            (1, ((25, 7),)), (3, ((25, 3),)), (5, ((25, 2),))]
        for seat, card in RACE:
            await t.placed(f"seat{seat}", card)
        assert len(t.station.of(RaceCardDealt)) == len(RACE)
        await t.tap("deal")  # the race chips handed out
        await t.tap("deal")  # the new stacks confirmed
        await t.stack_is(1, "1,200")
        await t.stack_is(3, "1,000")
        await t.stack_is(5, "1,100")
        await t.expect(t.locator('.chip[data-chip="25"]')).to_have_count(0)  # gone
        done = t.station.last(StackAdjusted)
        assert done.reason == "colour_up"
        assert [(a.seat, a.before, a.after) for a in done.seats] == [
            (1, 1175, 1200), (3, 1075, 1000), (5, 1050, 1100)]

    on_tablet(tmp_path, {1: 1175, 3: 1075, 5: 1050}, colour_up, button=5, tournament=True,
              levels=(Level(100, 200), Level(200, 400)),
              colour_up=ColourUpSettings(chip_set=CHIPS))


def test_tablet_time_bank_extension_chip_adds_its_seconds_once(tmp_path: Path) -> None:
    chips = ExtensionChips(30, {"day1": 1})
    chips.enter_stage("day1", ["p1", "p2", "p3"])

    async def clock(t: TabletPage) -> None:
        await t.tap("deal")
        await t.deal({1: "AsKs", 2: "QdQc", 3: "7h2c"})
        await t.shows("#shot-clock", "30")
        t.station.dealer.step(25.0)  # the player thinks: virtual time at the mock table
        await t.shows("#shot-clock", "5")  # the next beat of the stream
        await t.expect(t.locator("#shot")).to_have_attribute("data-level", "amber")
        await t.tap("time_bank")
        await t.said("Time bank")
        await t.shows("#shot-clock", "35")
        taken = t.station.last(ShotClockReport)
        assert (taken.seat, taken.what, taken.seconds, taken.chips_left) == (
            3, "extension", 30, 0)
        await t.tap("time_bank")
        await t.said("has no extension chips left")
        await t.shows("#shot-clock", "35")
        assert len([r for r in t.station.of(ShotClockReport) if r.what == "extension"]) == 1

    on_tablet(tmp_path, SEATS, clock, button=3, levels=LEVELS, extensions=chips)
