"""The director's floor duties with contract tables in-process (no broker): the host's
level clock (LEVEL-1), colour-ups scheduled from the structure, hand-for-hand in lockstep
(TOURN-22), the last hands of the day (TOURN-27). The tables deal on their own loop."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from controller.events import HandReleased
from controller.sync.messages import EventMessage
from host_bridge.app import create_app
from host_bridge.director.errors import DirectorError
from host_bridge.director.options import TournamentOptions
from host_bridge.director.service import TournamentDirector
from tests.bridge.conftest import make_settings
from tests.director.floortables import LocalFloor

Floor = tuple[TournamentDirector, LocalFloor, list[asyncio.Task[None]], Any]


async def floor_with(tmp: Path, tables: int, players: int, **kw: Any) -> Floor:
    wires = {f"T{i}": 9 for i in range(1, tables + 1)}
    floor = LocalFloor(list(wires), seed=kw.pop("seed", 1), all_in=kw.pop("all_in", 0.35))
    app = create_app(make_settings(tmp, command_timeout_s=5.0), publisher=floor)
    bridge = app.state.bridge
    floor.connect(bridge.receive)
    for message in floor.status_messages():
        await bridge.receive(*message)
    options = TournamentOptions(name="t", tables=wires,
                                players=tuple(f"p{i:02d}" for i in range(players)), **kw)
    director = TournamentDirector.create(options, bridge.desk)
    bridge.observers.append(director.observe)
    for t in floor.tables.values():
        t.pace_s = 0.002
    dealers = [asyncio.create_task(t._deal()) for t in floor.tables.values()]
    return director, floor, dealers, bridge


async def finish(director: TournamentDirector, dealers: list[asyncio.Task[None]]) -> None:
    await director.run_until_winner(60)
    await director.stop()
    await asyncio.wait_for(asyncio.gather(*dealers), 10)


def test_level_1_the_host_clock_moves_every_table_and_schedules_colour_ups(
        tmp_path: Path) -> None:
    async def run() -> tuple[TournamentDirector, LocalFloor]:
        director, floor, dealers, _ = await floor_with(
            tmp_path, 2, 12, level_seconds=1.0, sync_every_s=0.5,
            breaks=((2, 1.0, (25,)),), seed=3, all_in=0.05)
        for t in floor.tables.values():
            t.pace_s = 0.01
        await director.start()
        await finish(director, dealers)
        return director, floor

    director, floor = asyncio.run(run())
    assert director.anomalies == []
    assert director.model.level >= 2
    for table in floor.tables.values():
        assert table.commands.count("sync_clock") >= 2  # at the start and every 0.5 s
        assert "colour_up" in table.commands  # ScheduleColourUp(3) from the break after 2
        assert table.level > 1  # the table follows the host's level


def test_tourn_22_hand_for_hand_deals_every_table_together(tmp_path: Path) -> None:
    async def run() -> tuple[TournamentDirector, LocalFloor, list[tuple[str, int]]]:
        director, floor, dealers, bridge = await floor_with(
            tmp_path, 3, 27, payouts=(3000, 2000, 1500, 1200, 900, 600, 500, 300),
            hand_for_hand_margin=3, seed=5, all_in=0.2)
        released: list[tuple[str, int]] = []  # (table, h4h hand) as each NextHand arrives

        def watch(stored: Sequence[EventMessage]) -> None:
            for message in stored:
                if isinstance(message.event, HandReleased) and director.h4h is not None:
                    released.append((message.table, director.h4h.hand))

        bridge.observers.append(watch)
        await director.start()
        await finish(director, dealers)
        return director, floor, released

    director, _, released = asyncio.run(run())
    assert director.anomalies == []  # no table dealt out of turn
    assert director.figures["h4h_hands"] >= 2 and released
    by_hand: dict[int, set[str]] = {}
    for table, hand in released:
        by_hand.setdefault(hand, set()).add(table)
    # every h4h hand was released to every table still playing, each table once per hand
    assert len(released) == sum(len(t) for t in by_hand.values())
    assert all(len(tables) >= 1 for tables in by_hand.values())
    assert sorted(by_hand) == list(range(min(by_hand), max(by_hand) + 1))


def test_tourn_27_last_hands_each_table_plays_the_card_then_waits(tmp_path: Path) -> None:
    async def run() -> tuple[TournamentDirector, LocalFloor, dict[str, int], int]:
        director, floor, dealers, _ = await floor_with(
            tmp_path, 3, 27, level_seconds=600.0, seed=2, all_in=0.0)
        with pytest.raises(DirectorError, match=r"registering"):
            await director.draw_last_hands(5)  # not before the start
        await director.start()
        await asyncio.sleep(0.05)
        before = {w: t.hands for w, t in floor.tables.items()}
        card = await director.draw_last_hands()
        assert 3 <= card <= 7
        while not (director.last_hands is not None and director.last_hands.done
                   and all(t.h4h and not t.released for t in floor.tables.values())):
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.1)  # held: nothing more is dealt
        after = {w: t.hands for w, t in floor.tables.items()}
        await director.stop()
        for t in floor.tables.values():
            t.closed = True
        await asyncio.wait_for(asyncio.gather(*dealers), 10)
        return director, floor, {w: after[w] - before[w] for w in after}, card

    director, _, played, card = asyncio.run(run())
    assert director.anomalies == []
    assert director.level_clock.paused  # the clock stopped (TOURN-27)
    assert director.last_hands is not None
    assert set(director.last_hands.dealt.values()) == {card}  # counted from the draw
    # each table dealt the card's hands after the draw (plus the one it may have been
    # playing when the card was drawn, which does not count)
    assert all(card <= n <= card + 1 for n in played.values()), played
