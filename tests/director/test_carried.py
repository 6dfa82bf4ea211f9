"""The director sends what follows a moved player (PEN-5, TOURN-32, issues 5 and 9): the
hands of a penalty still to serve and the time-bank chips, with ``SeatPlayer`` to the
destination table; its counts follow the hands the tables report (PEN-4) and the chips
they report spent. Contract tables in-process (no broker), dealt by the test."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from controller.events import SeatPlayer, ShotClockReport
from controller.rules.config import LIVE_TOURNAMENT
from controller.sync.messages import CommandMessage
from host_bridge.app import create_app
from host_bridge.director.options import TournamentOptions
from host_bridge.director.penalties import Penalties
from host_bridge.director.service import TournamentDirector
from tests.bridge.conftest import make_settings
from tests.director.floortables import LocalFloor


def test_pen_4_a_void_hand_gives_the_penalty_hand_back() -> None:
    book = Penalties(LIVE_TOURNAMENT)
    book.miss_hands("a", 2)
    book.miss_hands("b", 1)
    book.hand_dealt(["a", "b", "c"])
    assert (book.remaining("a"), book.remaining("b")) == (1, 0)
    book.hand_voided(["a", "b", "c"])  # a misdeal: dealt again, not served
    assert (book.remaining("a"), book.remaining("b"), book.remaining("c")) == (2, 1, 0)
    book.hand_dealt(["a", "b", "c"])
    book.hand_dealt(["a", "b", "c"])
    assert (book.remaining("a"), book.remaining("b")) == (0, 0)
    book.hand_voided(["a", "b", "c"])  # only the hand they were counted in comes back
    assert (book.remaining("a"), book.remaining("b")) == (1, 0)


async def _until(ready: Any, timeout_s: float = 5.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout_s
    while not ready():
        assert asyncio.get_running_loop().time() < deadline, "the floor did not settle"
        await asyncio.sleep(0.01)


def _carried_out(director: TournamentDirector, floor: LocalFloor) -> bool:
    """The director has finished its floor work, and every table seats exactly whom the
    model seats there."""
    if director.busy or director.floor_work_due():
        return False
    chart = director.model.floor.tables
    return all({p for p, _ in table.seats.values()}
               == set(chart[director.numbers[wire]].players.values())
               for wire, table in floor.tables.items())


def test_tourn_32_a_moved_player_arrives_with_the_penalty_left_and_the_chips(
        tmp_path: Path) -> None:
    async def run() -> tuple[TournamentDirector, dict[str, list[SeatPlayer]], str, int]:
        wires = {"T1": 9, "T2": 9}
        floor = LocalFloor(list(wires), seed=4, all_in=0.0)
        sent: dict[str, list[SeatPlayer]] = {w: [] for w in wires}
        deliver = floor.publish

        async def spy(topic: str, payload: bytes, qos: int, retain: bool) -> None:
            if topic.endswith("/cmd"):
                command = CommandMessage.model_validate_json(payload).command
                if isinstance(command, SeatPlayer):
                    sent[topic.split("/")[-2]].append(command)
            await deliver(topic, payload, qos, retain)

        floor.publish = spy  # type: ignore[method-assign]
        app = create_app(make_settings(tmp_path, command_timeout_s=5.0), publisher=floor)
        bridge = app.state.bridge
        floor.connect(bridge.receive)
        for message in floor.status_messages():
            await bridge.receive(*message)
        options = TournamentOptions(name="t", tables=wires, auto_balance=False, seed=2,
                                    players=tuple(f"p{i:02d}" for i in range(12)))
        director = TournamentDirector.create(options, bridge.desk)
        bridge.observers.append(director.observe)
        await director.start()
        model = director.model
        # the draw: nobody carries anything yet (the host has no counts for them)
        assert all(c.penalty_hands is None and c.extension_chips is None
                   for cs in sent.values() for c in cs)
        await _until(lambda: all(len(floor.tables[w].seats) == 6 for w in wires))
        # one table loses players (all-in hands) until the floor must balance (TOURN-19)
        short = "T1"
        floor.tables[short].all_in = 1.0
        while len(floor.tables[short].seats) > 4:
            await floor.tables[short].play_now()
            await _until(lambda: not model.floor.tables[director.numbers[short]].in_hand)
        await _until(lambda: len(director.views[short].seats) == 4)
        long = "T2"
        moves = director.suggestions()[0]["moves"]
        assert [m["to_table"] for m in moves] == [short]
        mover = moves[0]["player"]
        # the penalty is given at the long table (PEN-2: 1 round at 6 players = 6 hands),
        # and the player holds 2 time-bank chips; 2 hands are served there
        model.penalties.miss_rounds(mover, 1, len(floor.tables[long].seats))
        model.time_bank.carry_in(mover, 2)
        for _ in range(2):
            await floor.tables[long].play_now()
            await _until(lambda: director.views[long].hand is None)
        assert model.carry(mover).penalty_hands == 4
        assert director.suggestions()[0]["moves"][0]["player"] == mover  # still due
        sent[short].clear()
        moved = await director.carry_out_floor_work()
        await _until(lambda: mover in director.views[short].seats.values())
        floor.tables[short].all_in = 0.0
        await floor.tables[short].play_now()  # a hand at the new table counts (PEN-4)
        await _until(lambda: director.views[short].hand is None)
        assert model.carry(mover).penalty_hands == 3
        await director.stop()
        return director, sent, mover, moved

    director, sent, mover, moved = asyncio.run(run())
    assert moved == 1 and director.anomalies == []
    arrivals = [c for c in sent["T1"] if c.player == mover]
    assert len(arrivals) == 1
    assert (arrivals[0].penalty_hands, arrivals[0].extension_chips) == (4, 2)
    assert arrivals[0].stack == director.model.entry(mover).stack


def test_tourn_32_the_host_learns_the_chips_a_table_reports_spent(tmp_path: Path) -> None:
    async def run() -> TournamentDirector:
        wires = {"T1": 9}
        floor = LocalFloor(list(wires), seed=1, all_in=0.0)
        app = create_app(make_settings(tmp_path, command_timeout_s=5.0), publisher=floor)
        bridge = app.state.bridge
        floor.connect(bridge.receive)
        for message in floor.status_messages():
            await bridge.receive(*message)
        director = TournamentDirector.create(TournamentOptions(
            name="t", tables=wires, auto_balance=False, players=("a", "b", "c")), bridge.desk)
        bridge.observers.append(director.observe)
        await director.start()
        await _until(lambda: len(director.views["T1"].seats) == 3)
        director.model.time_bank.carry_in("b", 3)
        seat = next(s for s, p in director.views["T1"].seats.items() if p == "b")
        table = floor.tables["T1"]
        await table._event(ShotClockReport(hand_no=1, seat=seat, what="extension",
                                           seconds=30.0, chips_left=2))
        await _until(lambda: director.model.time_bank.chips("b") == 2)
        await director.stop()
        return director

    director = asyncio.run(run())
    assert director.model.carry("b").time_bank_chips == 2


def test_clock_the_time_bank_is_granted_at_the_start_and_again_to_every_final_table_player(
        tmp_path: Path) -> None:
    """Issue 5, TOURN-28: the draw seats everyone with ``time_bank_start`` chips; the
    final-table redraw resets everyone's count to ``time_bank_final_table``, and every
    player at the final table holds it *at the table*: those who keep their seat in the
    redraw too (they are seated again, as a redraw does), not only those who move."""
    Seats = dict[str, dict[int, str]]

    async def run() -> tuple[TournamentDirector, LocalFloor,
                             list[tuple[str | None, SeatPlayer]], Seats]:
        wires = {"T1": 6, "T2": 6}
        floor = LocalFloor(list(wires), seed=3, all_in=1.0)
        sent: list[tuple[str | None, SeatPlayer]] = []  # (the director's stage, command)
        before: Seats = {}  # every table's seats when the redraw's first command goes out
        deliver = floor.publish
        director: TournamentDirector | None = None

        async def spy(topic: str, payload: bytes, qos: int, retain: bool) -> None:
            if topic.endswith("/cmd") and director is not None:
                command = CommandMessage.model_validate_json(payload).command
                stage = director.model.time_bank.stage
                if stage == "final_table" and not before:
                    before.update({w: {s: p for s, (p, _) in t.seats.items()}
                                   for w, t in floor.tables.items()})
                if isinstance(command, SeatPlayer):
                    sent.append((stage, command))
            await deliver(topic, payload, qos, retain)

        floor.publish = spy  # type: ignore[method-assign]
        app = create_app(make_settings(tmp_path, command_timeout_s=5.0), publisher=floor)
        bridge = app.state.bridge
        floor.connect(bridge.receive)
        for message in floor.status_messages():
            await bridge.receive(*message)
        director = TournamentDirector.create(TournamentOptions(
            name="t", tables=wires, auto_balance=True, seed=1, time_bank_start=2,
            time_bank_final_table=3, players=tuple(f"p{i:02d}" for i in range(10))),
            bridge.desk)
        bridge.observers.append(director.observe)
        await director.start()
        await _until(lambda: sum(len(floor.tables[w].seats) for w in wires) == 10)
        # the draw: every table holds the start grant for each player it seats
        assert all(t.extensions[p] == 2 for t in floor.tables.values()
                   for p, _ in t.seats.values())
        # all-in hands until the field fits one table: the final table is drawn again
        # (a table the director holds for its floor work does not deal)
        for _ in range(40):
            if director.model.time_bank.stage == "final_table":
                break
            for wire in wires:
                await floor.tables[wire].play_now()
            await asyncio.sleep(0.2)
        # the model is redrawn at once; the tables are seated afterwards, one command
        # after the other: stop the director only once they have been
        await _until(lambda: _carried_out(director, floor))
        await director.stop()
        return director, floor, sent, before

    director, floor, sent, before = asyncio.run(run())
    assert director.anomalies == []
    drawn = [c for stage, c in sent if stage == "start"]
    final = [c for stage, c in sent if stage == "final_table"]
    assert len(drawn) >= 10 and {c.extension_chips for c in drawn[:10]} == {2}  # the draw
    assert final and {c.extension_chips for c in final} == {3}  # the redraw: reset to 3
    (wire,) = [w for w, t in floor.tables.items() if t.seats]  # the final table
    seated = {s: p for s, (p, _) in floor.tables[wire].seats.items()}
    kept = {p for s, p in seated.items() if before[wire].get(s) == p}
    assert kept and kept != set(seated.values())  # some keep their seat, some move
    # every final-table player, moved or not, was sent the grant and their table holds it
    assert {c.player for c in final} == set(seated.values())
    assert {p: floor.tables[wire].extensions[p] for p in seated.values()} \
        == dict.fromkeys(seated.values(), 3)
    assert all(director.model.time_bank.chips(p) == 3 for p in seated.values())
