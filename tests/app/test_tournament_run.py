"""``pitboss table run --tournament`` as a subprocess on a real Mosquitto, driven by a
test host the way the bridge's director drives it: the table starts empty, is seated by
commands, plays, busts a player (``player_busted``, stack 0), moves one out with their
stack, plays two hand-for-hand hands on ``next_hand`` (TOURN-22) and is closed."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path
from typing import Any, TypeVar

import pytest

from controller.events import (
    HandEnded,
    HandReleased,
    HandStarted,
    PlayerBusted,
    PlayerMoved,
    PlayerSeated,
    PublicEvent,
)
from controller.sync.messages import EventMessage, parse_message
from controller.table_runner import load_structure_option, main
from tests.sync.conftest import ROOT, Mosquitto
from tests.sync.floor import FloorRecorder, TableRecord

GUARD = 60.0  # seconds before a stuck test fails instead of hanging (not a budget)
QUIET = 0.4  # seconds a held table is watched for a hand it must not deal


def start_table(db: Path, port: int, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "controller.table_runner", "table", "run", "--profile", "virtual",
         "--table", "t1", "--broker", f"127.0.0.1:{port}", "--db", str(db), "--site", "test",
         "--autoplay", "0", "--tournament", *extra],
        cwd=ROOT, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


E = TypeVar("E", bound=PublicEvent)


def where(rec: TableRecord | None) -> str:
    """The table's state as the floor folded it, and its last events (a failure's report)."""
    if rec is None:
        return "no event heard"
    last = [parse_message(EventMessage, rec.events[seq]).event for seq in sorted(rec.events)]
    return (f"hand {rec.state.hand_no}, in progress {rec.state.hand_in_progress}, "
            f"{len(rec.state.seats)} seated, {len(rec.events)} events (contiguous to "
            f"{rec.contiguous}); the last: "
            + ", ".join(f"{type(e).__name__}({getattr(e, 'hand_no', '')})" for e in last[-12:]))


def changes(rec: TableRecord, kind: type[E]) -> list[E]:
    found = []
    for seq in sorted(rec.events):
        event = parse_message(EventMessage, rec.events[seq]).event
        if isinstance(event, kind):
            found.append(event)
    return found


def test_tourn_22_host_run_table_seats_busts_moves_plays_hand_for_hand_and_closes(
        broker: Mosquitto, tmp_path: Path) -> None:
    async def scenario() -> None:
        node = start_table(tmp_path / "t1.db", broker.port, "--seed", "21", "--speed", "5",
                           "--structure", "hexapro", "--multiplier", "10")
        try:
            async with FloorRecorder(broker.port) as host:
                async with asyncio.timeout(GUARD):
                    await host.until(lambda: "online" in host.statuses.get("t1", []))

                async def send(cid: str, **command: Any) -> dict[str, Any]:
                    async with asyncio.timeout(GUARD):
                        return await host.command("t1", cid, command)

                async def settled(predicate: Any) -> TableRecord:
                    try:
                        async with asyncio.timeout(GUARD):
                            await host.until(lambda: "t1" in host.tables
                                             and predicate(host.tables["t1"]))
                    except TimeoutError:  # say where the table was (an intermittent hang)
                        raise AssertionError(f"the table did not settle in {GUARD:.0f} s: "
                                             f"{where(host.tables.get('t1'))}") from None
                    return host.tables["t1"]

                on = await send("h4h-on", name="hand_for_hand", on=True)
                assert on["status"] == "ok", on  # the floor holds the table from the start
                seats = ((1, "ann", 100), (3, "bob", 100), (5, "cy", 60_000),
                         (6, "dee", 60_000), (9, "eve", 60_000))
                for seat, player, stack in seats:
                    reply = await send(f"seat-{player}", name="seat_player", seat=seat,
                                       player=player, stack=stack)
                    assert reply["status"] == "ok", reply
                await asyncio.sleep(QUIET)
                assert host.tables["t1"].state.hand_no == 0  # seated, held: nothing dealt
                hand_no = 0
                while not changes(host.tables["t1"], PlayerBusted):
                    assert hand_no < 60, "nobody busted in 60 hands"
                    go = await send(f"next-{hand_no}", name="next_hand")
                    assert go["status"] == "ok", go
                    hand_no += 1
                    await settled(lambda r, n=hand_no: r.state.hand_no == n
                                  and not r.state.hand_in_progress)
                rec = host.tables["t1"]
                busted = changes(rec, PlayerBusted)[0]
                ended = next(e for e in changes(rec, HandEnded) if e.hand_no == busted.hand_no)
                started = next(e for e in changes(rec, HandStarted)
                               if e.hand_no == busted.hand_no)
                assert ended.stacks[started.seats.index(busted.seat)] == 0  # busted with none
                assert busted.seat not in {v.seat for v in rec.state.seats}
                late = iter(range(100))

                async def top_up() -> None:
                    """The director seats late entries: at least three players (the bots
                    play wild, and one hand can bust several)."""
                    state = host.tables["t1"].state
                    free = [n for n in range(1, 11) if n not in {v.seat for v in state.seats}]
                    for seat in free[:max(0, 3 - len(state.seats))]:
                        k = next(late)
                        took = await send(f"late-{k}", name="seat_player", seat=seat,
                                          player=f"late{k}", stack=60_000)
                        assert took["status"] == "ok", took
                    await settled(lambda r: len(r.state.seats) >= 3)

                await top_up()
                rec = host.tables["t1"]
                richest = max(rec.state.seats, key=lambda v: v.stack)
                moved = await send("move", name="move_player", seat=richest.seat,
                                   to_table="t2")
                assert moved["status"] == "ok", moved
                rec = await settled(lambda r: bool(changes(r, PlayerMoved)))
                out = changes(rec, PlayerMoved)[0]
                assert (out.player, out.stack, out.to_table) == (richest.player,
                                                                 richest.stack, "t2")
                held = rec.state.hand_no
                for n in (1, 2):  # TOURN-22: one release, exactly one hand
                    await top_up()
                    go = await send(f"next-last-{n}", name="next_hand")
                    assert go["status"] == "ok", go
                    await settled(lambda r, n=n: r.state.hand_no == held + n
                                  and not r.state.hand_in_progress)
                    await asyncio.sleep(QUIET)
                    assert host.tables["t1"].state.hand_no == held + n
                off = await send("h4h-off", name="hand_for_hand", on=False)
                assert off["status"] == "ok", off
                await settled(lambda r: r.state.hand_no >= held + 5
                              or len(r.state.seats) < 2)  # deals on its own again
                closed = await send("close", name="close_table")
                assert closed["status"] == "ok", closed
                async with asyncio.timeout(GUARD):
                    out_text, err = await asyncio.to_thread(node.communicate)
                assert node.returncode == 0, err[-2000:]
                assert "PLAYED" in out_text
                rec = await settled(lambda r: r.state.closed)
                assert len(changes(rec, HandReleased)) == hand_no + 2
                gone: set[int] = set()
                busts = 0
                for seq in sorted(rec.events):
                    event = parse_message(EventMessage, rec.events[seq]).event
                    if isinstance(event, HandStarted):
                        assert len(event.seats) >= 2  # never fewer than two players
                        assert not gone & set(event.seats)  # a busted player is not dealt
                    elif isinstance(event, PlayerBusted):
                        gone.add(event.seat)
                        busts += 1
                    elif isinstance(event, PlayerSeated):
                        gone.discard(event.seat)  # a late entry takes the seat
                assert busts == len(changes(rec, PlayerBusted)) >= 1
                first = next(parse_message(EventMessage, rec.events[s]).event
                             for s in sorted(rec.events) if b'"hand_started"' in rec.events[s])
                assert isinstance(first, HandStarted)
                assert (first.small_blind, first.big_blind) == (10, 20)  # HexaPro level 1
                seated = sum(e.stack for e in changes(rec, PlayerSeated))
                assert sum(v.stack for v in rec.state.seats) == seated - (out.stack or 0)
        except BaseException:
            if node.poll() is None:
                node.kill()
            _, err = node.communicate()
            print(f"the table's stderr:\n{err[-4000:]}")  # shown with the failure
            raise

    asyncio.run(scenario())


def test_level_2_a_structure_that_does_not_load_stops_the_command_with_the_reason(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["run", "--profile", "virtual", "--table", "t1", "--db", str(tmp_path / "j.db"),
              "--tournament", "--structure", "hexapro"])  # HexaPro needs its multiplier
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "--structure hexapro" in err and "multiplier" in err
    assert not (tmp_path / "j.db").exists()  # nothing ran
    structure = load_structure_option("hexapro", 10)
    assert structure.levels[0].big_blind == 20 and structure.levels[0].seconds == 180
