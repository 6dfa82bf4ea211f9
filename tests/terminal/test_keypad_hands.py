"""Whole hands of NLHE, PLO and fixed-limit hold'em driven only through the dealer's
keypad (a fake evdev device, read by the real reader) and cards placed at the mock
readers; bad input at the keypad is refused with the rule id and changes nothing."""

from __future__ import annotations

import asyncio
from pathlib import Path

from controller.events import ActionAccepted, HandEnded, HandShown, HandStarted, PotAwarded
from controller.rules.config import Variant
from controller.table.lights import Level

from .rig import KeypadTable, keypad_table

SEATS = {1: 10_000, 2: 10_000, 3: 10_000}


def actions(rig: KeypadTable) -> list[tuple[int, str, int | None]]:
    """(seat, action, amount) of each action the table accepted, in order."""
    started = rig.last(HandStarted)
    return [(started.seats[a.player], a.action, a.amount) for a in rig.of(ActionAccepted)]


def test_a_whole_nlhe_hand_from_the_keypad_and_the_readers(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with keypad_table(tmp_path, SEATS, levels=(Level(50, 100),)) as rig:
            await rig.keys("1 button")  # the button draw: seat 1 (BTN-1)
            await rig.keys("deal")
            await rig.deal({2: "AhKh", 3: "2c3d", 1: "9s9d"})
            assert rig.shown[0] == "S1 call 100 pot 150"  # the button acts first 3-handed
            await rig.keys("3 bb bet")  # seat 1 raises to 3 big blinds
            await rig.keys("call call")
            await rig.street("2d", "3h4h5s")
            await rig.keys("check check")
            await rig.keys("4 bb bet fold call")  # seat 1 bets 400, seat 2 folds, 3 calls
            await rig.street("8h", "Jc")
            await rig.keys("check 1 000 bet call")  # 1,000 keyed with the 000 key
            await rig.street("Jd", "Qd")
            await rig.keys("check check")
            assert rig.desk.screen().stage == "showdown"
            await rig.keys("show show")
            assert len(rig.of(HandShown)) == 2 and not rig.of(PotAwarded)
            await rig.keys("deal")  # the dealer pushes the pot
            assert actions(rig) == [
                (1, "bet_raise", 300), (2, "call", 250), (3, "call", 200),
                (2, "check", None), (3, "check", None), (1, "bet_raise", 400),
                (2, "fold", None), (3, "call", 400),
                (3, "check", None), (1, "bet_raise", 1000), (3, "call", 1000),
                (3, "check", None), (1, "check", None), (3, "show", None), (1, "show", None)]
            award = rig.last(PotAwarded)
            assert sum(chips for _, chips in award.shares) == 3700
            assert isinstance(rig.last(HandEnded), HandEnded)
            assert rig.stacks() == {1: 12_000, 2: 9_700, 3: 8_300}  # nines beat threes
            rig.dealer.gather()
            await rig.keys("deal")  # the next hand: the button moves to seat 2
            assert rig.last(HandStarted).hand_no == 2

    asyncio.run(scenario())


def test_a_whole_plo_hand_pot_limit_bets_keyed_pl_3(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with keypad_table(tmp_path, SEATS, levels=(Level(50, 100),),
                                variant=Variant.PO) as rig:
            await rig.keys("1 button deal")
            await rig.deal({2: "7c7d8c8d", 3: "2h3h4h5h", 1: "AsAdKsKd"})  # 4 each: CARD-3
            assert rig.shown[1] == "raise 200-350"  # the pot: 150 + the call, 100 (PL-3)
            before = rig.desk.state()
            await rig.keys("400 bet")  # over the pot
            assert rig.said.startswith("PL-3:") and rig.shown[4].startswith("PL-3:")
            assert rig.desk.state() == before  # refused: nothing changed
            await rig.keys("350 bet fold call")
            await rig.street("2d", "Ah9c6s")
            assert rig.shown[1] == "raise 100-750"
            await rig.keys("check 750 bet call")  # a pot-sized bet, called
            await rig.street("3d", "Tc")
            await rig.keys("check check")
            await rig.street("4d", "Jd")
            await rig.keys("check check show show deal")
            assert actions(rig)[:6] == [
                (1, "bet_raise", 350), (2, "fold", None), (3, "call", 250),
                (3, "check", None), (1, "bet_raise", 750), (3, "call", 750)]
            assert rig.last(HandShown).cards == ("As", "Ad", "Ks", "Kd")
            assert rig.stacks() == {1: 11_150, 2: 9_950, 3: 8_900}  # trip aces

    asyncio.run(scenario())


def test_a_whole_fixed_limit_hand_bet_alone_bets_the_limit(tmp_path: Path) -> None:
    async def scenario() -> None:
        levels = (Level(50, 100, small_bet=100, big_bet=200),)
        async with keypad_table(tmp_path, SEATS, levels=levels, variant=Variant.FT) as rig:
            await rig.keys("1 button deal")
            await rig.deal({2: "AhKh", 3: "QcQd", 1: "9s9d"})
            before = rig.desk.state()
            await rig.keys("500 bet")  # not the limit
            assert rig.desk.reply is not None and rig.desk.reply.rule is not None
            assert rig.shown[4].startswith(f"{rig.desk.reply.rule}:")
            assert rig.desk.state() == before
            await rig.keys("bet call bet call call")  # 200, call, 300, calls: one key each
            await rig.street("2d", "7c8s2h")
            await rig.keys("bet call fold")  # the small bet, 100
            await rig.street("3d", "Jh")
            await rig.keys("bet call")  # the big bet, 200
            await rig.street("4d", "6c")
            await rig.keys("check check show show deal")
            assert [(s, a, n) for s, a, n in actions(rig) if a == "bet_raise"] == [
                (1, "bet_raise", 200), (3, "bet_raise", 300), (2, "bet_raise", 100),
                (2, "bet_raise", 200)]
            assert rig.stacks() == {1: 9_700, 2: 9_400, 3: 10_900}  # queens win 1,500

    asyncio.run(scenario())


def test_bad_input_is_refused_with_the_rule_id_and_changes_nothing(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with keypad_table(tmp_path, SEATS, levels=(Level(50, 100),)) as rig:
            await rig.keys("1 button deal")
            await rig.deal({2: "AhKh", 3: "2c3d", 1: "9s9d"})
            before = rig.desk.state()
            for keys, rule in (("150 bet", "BET-4"),  # below the minimum raise
                               ("20000 bet", "BET-6"),  # over the stack
                               ("show", "SHOW-1")):  # a key out of turn: no showdown yet
                await rig.keys(keys)
                assert rig.said.startswith(f"{rule}: "), (keys, rig.said)
                assert rig.shown[4].startswith(f"{rule}:")  # on the dealer's display
                assert rig.shown[3] == "> "  # the entry is cleared for the next try
                assert rig.desk.state() == before, keys
            await rig.keys("500 deal")  # a slip of the finger: DEAL takes no amount
            assert rig.said == "DEAL takes nothing keyed before it: CLEAR, then DEAL"
            assert rig.shown[3] == "> 500"  # kept: BET now makes it the bet meant
            await rig.keys("bet")
            assert actions(rig) == [(1, "bet_raise", 500)]

    asyncio.run(scenario())
