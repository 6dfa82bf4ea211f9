"""A house file played from the dealer's terminal: straddles keyed at the keypad and
tapped on the tablet (STRADDLE-1..3), pot-limit and fixed-limit bets keyed under a PLO and
a limit house (PL-3, FL-2), and the house shown: its label on the dealer's display and the
tablet's header, its game on the players' blinds display.

Tables are built with the shipped house files (``deploy/houses``); every action of a hand
goes through the fake evdev keypad (rig.py) or the tablet page in Chromium
(tablet_station.py), and cards are placed at the mock readers.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

from controller.clocks.house import House, load_house
from controller.devices.displays import render_blinds
from controller.events import ActionAccepted, HandStarted

from .rig import KeypadTable, keypad_table
from .tablet_station import TabletPage, on_tablet

HOUSES = Path(__file__).resolve().parents[2] / "deploy" / "houses"


def house(name: str) -> House:
    return load_house(HOUSES / f"{name}.toml")


def bets(rig: KeypadTable) -> dict[int, int]:
    """Each seat's chips in front of it this betting round, as the dealer's screen has them."""
    return {s.seat: s.bet for s in rig.desk.screen().seats if s.bet}


def raises(rig: KeypadTable) -> list[tuple[int, int | None]]:
    """(seat, total) of each bet or raise the table accepted this hand."""
    started = rig.last(HandStarted)
    return [(started.seats[a.player], a.amount) for a in rig.of(ActionAccepted)
            if a.action == "bet_raise"]


# ---------------------------------------------------------------- the keypad
def test_straddle_2_keyed_at_the_keypad_deals_the_hand_with_utg_s_straddle(
        tmp_path: Path) -> None:
    async def scenario() -> None:
        seats = {1: 4000, 2: 4000, 3: 4000, 4: 4000}
        async with keypad_table(tmp_path, seats, house=house("casino-nlhe")) as rig:
            await rig.keys("1 button")  # button 1, blinds 2 and 3: seat 4 is UTG
            assert "straddle" in rig.desk.screen().actions  # a Mississippi house
            await rig.keys("2 straddle")  # the small blind may not
            assert rig.said.startswith("STRADDLE-3: seat 2 may not straddle")
            assert rig.shown[4].startswith("STRADDLE-3:")  # on the dealer's display
            assert not rig.of(HandStarted)  # refused: no hand dealt
            await rig.keys("4 straddle")
            assert len(rig.of(HandStarted)) == 1
            assert bets(rig) == {2: 20, 3: 40, 4: 80}  # twice the big blind (STRADDLE-1)
            await rig.deal({2: "AhKh", 3: "2c3d", 4: "QsQd", 1: "9s9d"})
            assert rig.shown[0] == "S1 call 80 pot 140"  # after the straddler (STRADDLE-2)
            await rig.keys("call call call")
            screen = rig.desk.screen()
            assert screen.to_act == 4 and "check" in screen.actions  # the straddler's option
            await rig.keys("320 bet")
            assert raises(rig) == [(4, 320)]

    asyncio.run(scenario())


def test_straddle_1_refused_when_the_house_is_off(tmp_path: Path) -> None:
    async def scenario() -> None:
        seats = {1: 1000, 2: 1000, 3: 1000, 4: 1000}
        async with keypad_table(tmp_path, seats, house=house("online-nlhe")) as rig:
            await rig.keys("1 button")
            assert "straddle" not in rig.desk.screen().actions  # not offered
            before = rig.desk.state()
            await rig.keys("4 straddle")  # keyed anyway: the table refuses it
            assert rig.said.startswith("STRADDLE-1: ")
            assert rig.shown[4].startswith("STRADDLE-1:")
            assert rig.desk.state() == before and not rig.of(HandStarted)
            await rig.keys("straddle")  # and a straddle names its seat
            assert rig.said == "key the seat first: seat number, SEAT, then STRADDLE"

    asyncio.run(scenario())


def test_pl_3_keyed_bet_above_the_pot_is_refused(tmp_path: Path) -> None:
    async def scenario() -> None:
        seats = {1: 4000, 2: 4000, 3: 4000}
        async with keypad_table(tmp_path, seats, house=house("casino-plo")) as rig:
            await rig.keys("1 button deal")
            await rig.deal({2: "7c7d8c8d", 3: "2h3h4h5h", 1: "AsAdKsKd"})
            assert rig.shown[1] == "raise 80-140"  # pot 60 + the call 40, over the 40
            before = rig.desk.state()
            await rig.keys("141 bet")
            assert rig.said.startswith("PL-3: ") and rig.shown[4].startswith("PL-3:")
            assert rig.desk.state() == before  # refused: nothing changed
            await rig.keys("140 bet")
            assert raises(rig) == [(1, 140)]

    asyncio.run(scenario())


def test_fl_2_bet_key_bets_the_fixed_size(tmp_path: Path) -> None:
    async def scenario() -> None:
        seats = {1: 5000, 2: 5000, 3: 5000}
        async with keypad_table(tmp_path, seats, house=house("limit-holdem")) as rig:
            await rig.keys("1 button deal")
            await rig.deal({2: "AhKh", 3: "QcQd", 1: "9s9d"})
            before = rig.desk.state()
            await rig.keys("500 bet")  # not the limit
            reply = rig.desk.reply
            assert reply is not None and not reply.accepted
            assert reply.rule == "FL-1" and "only to 200" in reply.message  # the engine's
            assert rig.shown[4].startswith("FL-1:")
            assert rig.desk.state() == before
            await rig.keys("bet")  # BET alone: the small bet over the big blind, to 200
            await rig.keys("call call")
            await rig.street("2d", "7c8s2h")
            await rig.keys("bet")  # the flop's small bet, 100
            assert raises(rig) == [(1, 200), (2, 100)]

    asyncio.run(scenario())


# ---------------------------------------------------------------- the house shown
def test_the_house_label_on_the_dealer_s_idle_display(tmp_path: Path) -> None:
    async def scenario() -> None:
        nlhe = house("casino-nlhe")
        async with keypad_table(tmp_path, {1: 4000, 2: 4000}, house=nlhe) as rig:
            assert rig.desk.screen().house == nlhe.label
            assert rig.shown[0] == "#0 NLHE 20/40 kr"  # the parts that fit 21 characters

    asyncio.run(scenario())


def test_the_blinds_display_names_the_house_s_game(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with keypad_table(tmp_path, {1: 4000, 2: 4000},
                                house=house("casino-plo")) as rig:
            frame = rig.hw.blinds.frame
            assert frame is not None and frame.game == "PLO"
            assert (frame.small_blind, frame.big_blind) == (20, 40)
        async with keypad_table(tmp_path / "fl", {1: 5000, 2: 5000},
                                house=house("limit-holdem")) as rig:
            frame = rig.hw.blinds.frame
            assert frame is not None and frame.game == "FLHE 100/200"  # the bet sizes
            drawn = render_blinds(frame, (128, 64), "1")
            bare = render_blinds(replace(frame, game=""), (128, 64), "1")
            assert drawn.tobytes() != bare.tobytes()  # the renderer draws it

    (tmp_path / "fl").mkdir()
    asyncio.run(scenario())


# ---------------------------------------------------------------- the tablet
def test_straddle_3_the_button_straddles_from_the_tablet(tmp_path: Path) -> None:
    nlhe = house("casino-nlhe")

    async def hand(t: TabletPage) -> None:
        await t.shows("#house", nlhe.label)  # the house in the header
        await t.tap("straddle")  # between hands: the seat pick opens
        await t.page.locator('[data-straddle="1"]').click()  # the button (Mississippi)
        await t.settled()
        await t.bet_is(1, "80")
        assert t.station.last(HandStarted).button == 1
        await t.deal({2: "AhKh", 3: "2c3d", 4: "QsQd", 1: "9s9d"})
        await t.shows("#turn-who", "Seat 2 · p2 to act")  # the small blind first
        await t.shows('[data-verb="call"]', "Call 60")

    on_tablet(tmp_path, {1: 4000, 2: 4000, 3: 4000, 4: 4000}, hand, button=1, house=nlhe)


def test_fl_2_the_tablet_offers_only_the_fixed_size(tmp_path: Path) -> None:
    limit = house("limit-holdem")

    async def hand(t: TabletPage) -> None:
        await t.shows("#house", limit.label)
        assert "straddle" not in await t.buttons()  # the house plays none
        await t.tap("deal")
        await t.deal({2: "QdQc", 3: "7h2c", 1: "AsKs"})
        await t.shows('[data-verb="bet"]', "Raise to 200")
        await t.shows("#fill-min", "LIMIT")
        await t.expect(t.locator('[data-key="5"]')).to_be_disabled()  # nothing to key
        await t.expect(t.locator("#fill-max")).to_be_disabled()
        await t.tap("bet")  # the button, first to act three-handed
        await t.bet_is(1, "200")

    on_tablet(tmp_path, {1: 5000, 2: 5000, 3: 5000}, hand, button=1, house=limit)
