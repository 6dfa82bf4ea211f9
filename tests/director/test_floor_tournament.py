"""A simulated tournament through the bridge and a real Mosquitto, from the seat draw to
the winner (issue 9).

The bridge runs in-process with its own MQTT link (``host_bridge.mqtt.MqttLink``) to a
real Mosquitto. The tables are either the table controllers themselves in tournament mode
(``controller.table_runner.run_table``, virtual dealer and bots, as asyncio tasks: 60
players on 7 tables), or, for the bigger and the restart runs,
:class:`~tests.director.floortables.ContractTable` s (the same wire contract with
chip-transfer hands, fast enough for 200 players), one MQTT client each. The
:class:`~host_bridge.director.service.TournamentDirector` sends its commands through the
bridge's command desk and hears the tables only through the events the bridge stored.

After every hand, at the bridge: the director's model checks its invariants (every player
seated once, no table over its seats, chips conserved, places unique and complete; any
failure is an anomaly), and this test checks the tables' own reported seats (each player
in one seat at most, no table over its seats). At the end: one winner with every chip,
places 1..N each once (shared places spanning theirs), the prizes add up to the pool, and
(contract tables) the tables' own chips and hand counts agree with the director.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from controller.events import HandEnded
from controller.rules import phh
from controller.rules.config import LIVE_TOURNAMENT
from controller.rules.replay import replay_history
from controller.sync.messages import EventMessage
from host_bridge.app import create_app
from host_bridge.db import writer_sessions
from host_bridge.director.journal import DirectorJournal
from host_bridge.director.options import STANDARD, TournamentOptions
from host_bridge.director.service import TournamentDirector
from host_bridge.models import Hand as StoredHand
from host_bridge.mqtt import MqttLink
from tests.bridge.conftest import make_settings
from tests.bridge.tablesim import SITE
from tests.director.floortables import ContractTable
from tests.sync.conftest import Mosquitto


@dataclass
class SeatAudit:
    """The tables' reported seats, checked after every hand the bridge stored."""

    director: TournamentDirector
    seats: int
    hands: int = 0
    problems: list[str] = field(default_factory=list)

    def __call__(self, stored: Sequence[EventMessage]) -> None:
        if not any(isinstance(m.event, HandEnded) for m in stored):
            return
        self.hands += 1
        seen: dict[str, str] = {}
        for wire, view in self.director.views.items():
            if len(view.seats) > self.seats:
                self.problems.append(f"{wire} reports {len(view.seats)} players")
            for player in view.seats.values():
                if player in seen:
                    self.problems.append(f"{player} at {seen[player]} and {wire}")
                seen[player] = wire


async def start_controllers(tmp: Path, port: int, options: TournamentOptions,
                            seed: int) -> list[asyncio.Task[int]]:
    """One real table controller per table (``controller.table_runner.run_table``, virtual
    profile, tournament mode), each ready (linked) before the draw."""
    from controller.table_runner import RunOptions, run_table

    ready: dict[str, asyncio.Event] = {w: asyncio.Event() for w in options.tables}
    runs = []
    for wire in options.tables:
        run = RunOptions(autoplay=0, tournament=True, seed=str(seed), speed=1.0, pace=0.005,
                         structure=options.level_structure(),
                         ready=lambda _j, _o, w=wire: ready[w].set())  # type: ignore[misc]
        runs.append(asyncio.create_task(run_table(
            "virtual", site=SITE, table_id=wire, broker=f"127.0.0.1:{port}",
            db_path=tmp / f"{wire}.db", options=run), name=wire))
    for event in ready.values():
        await asyncio.wait_for(event.wait(), 20)
    await asyncio.sleep(0.3)  # their retained "online" reaches the bridge
    return runs


async def play_floor(tmp: Path, port: int, *, players: int, tables: int, seats: int,
                     seed: int, level_s: float, timeout_s: float, pace_s: float = 0.03,
                     restart_after: int | None = None, real: bool = False) -> dict[str, Any]:
    app = create_app(make_settings(tmp, mqtt_port=port, command_timeout_s=15.0))
    bridge = app.state.bridge
    journal = DirectorJournal(writer_sessions(app.state.sessions))
    wires = {f"T{i}": seats for i in range(1, tables + 1)}
    floor = [] if real else [ContractTable(w, SITE, port, STANDARD, seed=seed, pace_s=pace_s)
                             for w in wires]
    for t in floor:
        t.ready = asyncio.Event()
    options = TournamentOptions(
        name="floor", tables=wires, players=tuple(f"p{i:03d}" for i in range(players)),
        level_seconds=level_s, seed=seed, hand_for_hand_margin=2, sync_every_s=1.0,
        breaks=((3, 0.5, ()),))
    began = time.perf_counter()
    async with MqttLink(bridge) as link:
        await asyncio.wait_for(link.connected.wait(), 10)
        runs = [asyncio.create_task(t.run(), name=t.table) for t in floor]
        for t in floor:
            assert t.ready is not None
            await asyncio.wait_for(t.ready.wait(), 10)
        if real:  # the controllers themselves, in tournament mode, as tasks on this loop
            runs = await start_controllers(tmp, port, options, seed)
        director = TournamentDirector.create(options, bridge.desk, journal=journal)
        audit = SeatAudit(director, seats)
        bridge.observers += [director.observe, audit]
        await director.start()
        restored = None
        if restart_after is not None:  # the director goes down and comes back from its journal
            placed = asyncio.Event()
            bridge.observers.append(lambda _items: placed.set() if len(
                director.model.places()) >= restart_after else None)
            await asyncio.wait_for(placed.wait(), timeout_s)
            await director.stop()
            assert director.model.stage.value == "running"
            held = any(t.paused for t in floor)
            bridge.observers.remove(director.observe)
            before = director.status()
            await asyncio.sleep(0.2)  # the tables play on meanwhile; the bridge stores it
            restored = TournamentDirector.restore(journal, bridge.desk)
            assert restored is not None
            bridge.observers.append(restored.observe)
            audit.director = restored
            caught = restored.catch_up(app.state.sessions)
            after = restored.status()
            assert caught > 0 or held  # the hands played meanwhile (none if held)
            placed_before = {p["entry"]: p["place"] for p in before["places"]}
            assert placed_before.items() <= {p["entry"]: p["place"]
                                             for p in after["places"]}.items()
            await restored.resume()
            director = restored
        try:
            await director.run_until_winner(timeout_s)
        except TimeoutError:
            s = director.status()
            shown = [(t["table"], len(t["players"]), t["paused"], t["hand_for_hand"],
                      t["in_hand"], t["h4h_state"]) for t in s["tables"] if not t["closed"]]
            raise AssertionError(
                f"no winner in {timeout_s} s: {s['players_left']} left, hand-for-hand "
                f"{s['hand_for_hand']}, figures {s['figures']}, anomalies {s['anomalies']}, "
                f"tables {shown}, busy {director.busy}") from None
        elapsed = time.perf_counter() - began
        await asyncio.wait_for(asyncio.gather(*runs), 15)  # every table closed
    with app.state.sessions() as session:  # what the bridge stored of every hand
        hands = [(h.table_id, h.hand_no, h.status, h.phh, h.phh_error, h.end_stacks)
                 for h in session.scalars(select(StoredHand))]
    app.state.engine.dispose()
    return {"director": director, "audit": audit, "tables": floor, "elapsed": elapsed,
            "restored": restored, "hands": hands}


def check_every_hand_exports(out: dict[str, Any]) -> int:
    """Every hand the tables ended was exported as PHH by the bridge, and each PHH replays
    in the engine, under the tournament's rules (SHOW-3: all hands turned up at once when a
    player is all-in), to the finishing stacks the table reported. Returns the count."""
    ended = [h for h in out["hands"] if h[2] == "ended"]
    assert ended, "no hand was stored"
    missing = [(t, n, why) for t, n, _, text, why, _ in ended if text is None]
    assert missing == [], f"hands with no PHH: {missing[:5]} ({len(missing)} of {len(ended)})"
    for table, number, _, text, _, end_stacks in ended:
        (history,) = phh.loads(text, f"{table} hand {number}")
        replayed = replay_history(history, LIVE_TOURNAMENT)
        assert replayed.is_complete, f"{table} hand {number} does not finish"
        assert list(replayed.stacks) == list(end_stacks), f"{table} hand {number}"
    return len(ended)


def check_finished(out: dict[str, Any], players: int, real: bool = False) -> dict[str, Any]:
    director: TournamentDirector = out["director"]
    status = director.status()
    assert director.anomalies == []
    assert out["audit"].problems == []
    assert status["stage"] == "finished" and status["winner"] is not None
    t = director.model
    (winner,) = t.alive()
    assert winner.stack == t.issued == players * t.setup.stack  # chips conserved
    assert len(status["places"]) == players  # every entry placed, once
    spans = {(p["place"], p["place_to"]) for p in status["places"]}  # TOURN-24 shares
    assert sorted(n for best, worst in spans for n in range(best, worst + 1)) == list(
        range(1, players + 1))
    assert sum(t.payouts().values()) == t.pool.total
    figures: dict[str, int] = status["figures"]
    assert figures["checks"] >= figures["hands"] > 0
    if real:
        return figures
    floor: list[ContractTable] = out["tables"]
    assert sum(table.chips() for table in floor) == t.issued  # the tables agree
    assert all(table.closed for table in floor)
    assert sum(table.hands for table in floor) == figures["hands"]
    return figures



@pytest.mark.slow  # the default run keeps 27 players (and the audited floor)
def test_tourn_19_21_22_28_sixty_players_through_the_bridge_to_a_winner(
        tmp_path: Path, mosquitto: Mosquitto) -> None:
    out = asyncio.run(play_floor(tmp_path, mosquitto.port, players=60, tables=7, seats=9,
                                 seed=3, level_s=2.0, timeout_s=60))
    figures = check_finished(out, 60)
    print(figures)
    assert figures["breaks"] >= 4 and figures["moves"] > 0  # TOURN-19/21 and TOURN-28
    assert out["director"].model.level > 1  # the host's clock moved the levels on
    print(f"\n60 players, 7 tables: {figures} in {out['elapsed']:.1f} s")


def test_the_director_survives_a_restart_mid_tournament(tmp_path: Path,
                                                        mosquitto: Mosquitto) -> None:
    out = asyncio.run(play_floor(tmp_path, mosquitto.port, players=27, tables=3, seats=9,
                                 seed=5, level_s=2.0, timeout_s=180, restart_after=8))
    assert out["restored"] is out["director"]
    check_finished(out, 27)


@pytest.mark.slow  # the default run keeps 27 players (and the audited floor)
def test_tourn_real_table_controllers_in_tournament_mode_to_a_winner(
        tmp_path: Path, mosquitto: Mosquitto) -> None:
    """The same through the controllers themselves (virtual dealer and bots, the rules
    engine, their journals and MQTT links): 60 players on 7 tables."""
    out = asyncio.run(play_floor(tmp_path, mosquitto.port, players=60, tables=7, seats=9,
                                 seed=2, level_s=2.0, timeout_s=240, real=True))
    figures = check_finished(out, 60, real=True)
    assert figures["moves"] > 0 and figures["breaks"] >= 1
    exported = check_every_hand_exports(out)  # SHOW-3 all-in showdowns included
    assert exported == figures["hands"]
    print(f"\n60 players on 7 real controllers: {figures} in {out['elapsed']:.1f} s")


@pytest.mark.slow
def test_tourn_two_hundred_players_on_twenty_tables(tmp_path: Path,
                                                   mosquitto: Mosquitto) -> None:
    out = asyncio.run(play_floor(tmp_path, mosquitto.port, players=200, tables=20, seats=10,
                                 seed=11, level_s=4.0, timeout_s=900))
    figures = check_finished(out, 200)
    assert figures["breaks"] >= 15
    print(f"\n200 players, 20 tables: {figures} in {out['elapsed']:.1f} s")


@pytest.mark.slow
def test_tourn_two_hundred_players_on_twenty_real_controllers(tmp_path: Path,
                                                              mosquitto: Mosquitto) -> None:
    out = asyncio.run(play_floor(tmp_path, mosquitto.port, players=200, tables=20, seats=10,
                                 seed=11, level_s=4.0, timeout_s=900, real=True))
    figures = check_finished(out, 200, real=True)
    assert figures["breaks"] >= 15
    print(f"\n200 players on 20 real controllers: {figures} in {out['elapsed']:.1f} s")
