"""A tournament table run by the host, in process: the virtual table (real ``Table``, bots
and dealer) starts empty, the host's commands go through :class:`CommandDesk` and
:class:`TableCommands` into the real journal, and the dealer loop of
``controller.table_runner`` deals whenever a hand may be dealt (TOURN-22 hand-for-hand)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import pytest

from controller.app import TableCommands, TableJournal, restore
from controller.events import (
    CardRead,
    HandEnded,
    HandForHandSet,
    HandReleased,
    HandStarted,
    InputTaken,
    NextHand,
    Paused,
    PlayerBusted,
    PlayerMoved,
    PlayerSeated,
    PublicEvent,
    Resumed,
)
from controller.sync.commands import CommandDesk
from controller.sync.errors import CommandRefused
from controller.sync.journal import Journal
from controller.sync.messages import EventMessage, parse_message
from controller.sync.outbox import Outbox
from controller.table.lights import Level
from controller.table.virtual import VirtualTable
from controller.table_runner import RunOptions, WakingCommands, _tournament_autoplay

E = TypeVar("E", bound=PublicEvent)
GUARD = 30.0  # seconds before a stuck test fails instead of hanging (not a budget)


@dataclass
class HostRun:
    """One tournament table as ``controller.table_runner`` wires it, without the link."""

    vt: VirtualTable
    journal: Journal
    outbox: Outbox
    commands: WakingCommands
    desk: CommandDesk
    ids: int = 0

    async def send(self, name: str, **args: Any) -> dict[str, Any]:
        self.ids += 1
        body = {"schema": 2, "table": "t1", "boot": "host-1", "seq": self.ids,
                "ts": time.time(), "command_id": f"c{self.ids}-{self.journal.boot}",
                "command": {"name": name, **args}}
        reply: dict[str, Any] = json.loads(await self.desk.handle(json.dumps(body).encode()))
        return reply

    def events(self) -> list[PublicEvent]:
        return [parse_message(EventMessage, p.public).event
                for p in self.journal.parcels(0, limit=10**9)]

    def of(self, kind: type[E]) -> list[E]:
        return [e for e in self.events() if isinstance(e, kind)]


@asynccontextmanager
async def host_run(db: Path, seed: int = 4) -> AsyncIterator[HostRun]:
    journal = Journal(db, table="t1")
    try:
        async with Outbox(journal) as outbox:
            sink = TableJournal(outbox)
            with sink.muted():
                vt = VirtualTable(0, seed=seed, sink=sink, tournament=True,
                                  levels=(Level(50, 100),))
            restore(vt.table, journal.state, sink)
            commands = WakingCommands(TableCommands(vt.table, sink))
            yield HostRun(vt, journal, outbox, commands, CommandDesk(outbox, commands))
    finally:
        journal.close()


def test_tourn_table_is_seated_by_the_host_and_busts_with_stack_zero(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with host_run(tmp_path / "t1.db") as run:
            assert not run.vt.play_hand()  # empty: nothing to deal
            for seat, player, stack in ((1, "ann", 100), (2, "bob", 100),
                                        (5, "cy", 40_000), (8, "dee", 40_000)):
                reply = await run.send("seat_player", seat=seat, player=player, stack=stack)
                assert reply["status"] == "ok", reply
            again = await run.send("seat_player", seat=9, player="ann", stack=500)
            assert again["status"] == "error" and "already seated at seat 1" in again["error"]
            for _ in range(300):
                if run.of(PlayerBusted):
                    break
                assert run.vt.play_hand()
            busted = run.of(PlayerBusted)[0]
            assert busted.player in ("ann", "bob")
            events = run.events()
            ended = events[events.index(busted) - 1]
            assert isinstance(ended, HandEnded)  # the hand that took their last chip
            assert busted.hand_no == ended.hand_no
            started = next(e for e in run.of(HandStarted) if e.hand_no == ended.hand_no)
            assert ended.stacks[started.seats.index(busted.seat)] == 0  # busted with none
            state = run.journal.state
            assert busted.seat not in {v.seat for v in state.seats}
            assert {v.seat: v.stack for v in state.seats} == {
                s.number: s.stack for s in run.vt.table.roster.occupied()}
            moved = await run.send("move_player", seat=8, to_table="t7")
            assert moved["status"] == "ok"
            out = run.of(PlayerMoved)[0]
            assert (out.seat, out.player, out.to_table) == (8, "dee", "t7")
            assert out.stack is not None and out.stack > 0  # they leave with their chips
            seated = sum(e.stack for e in run.of(PlayerSeated))
            left = sum(e.stack or 0 for e in run.of(PlayerMoved))
            assert sum(v.stack for v in run.journal.state.seats) == seated - left

    asyncio.run(scenario())


def test_tourn_22_hand_for_hand_by_command_is_journaled(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with host_run(tmp_path / "t1.db") as run:
            for seat in (3, 4, 6):
                await run.send("seat_player", seat=seat, player=f"p{seat}", stack=30_000)
            refused = await run.send("next_hand")
            assert refused["status"] == "error"
            assert "not playing hand-for-hand" in refused["error"]
            assert run.vt.play_hand()
            on = await run.send("hand_for_hand", on=True)
            assert on["status"] == "ok" and run.journal.state.hand_for_hand
            assert (await run.send("hand_for_hand", on=True))["status"] == "error"
            assert not run.vt.play_hand()
            for hand_no in (2, 3):
                released = await run.send("next_hand")
                assert released["status"] == "ok", released
                assert run.vt.play_hand() and not run.vt.play_hand()
                assert run.journal.state.hand_no == hand_no
            mid_hand: list[str] = []

            def floor_sends_next_hand() -> None:  # the desk runs commands between awaits;
                try:  # here the table itself is asked while the hand runs
                    run.commands.perform(NextHand(), "mid")
                except CommandRefused as exc:
                    mid_hand.append(exc.reason)

            await run.send("next_hand")
            assert run.vt.play_hand(during=floor_sends_next_hand)
            assert mid_hand and "still being played" in mid_hand[0]
            assert [e.on for e in run.of(HandForHandSet)] == [True]
            assert len(run.of(HandReleased)) == 3
            off = await run.send("hand_for_hand", on=False)
            assert off["status"] == "ok" and not run.journal.state.hand_for_hand
            assert run.vt.play_hand() and run.vt.play_hand()
            # each release is journaled before the hand it lets be dealt (the dealer's
            # deal key, an input journaled for audit, may come between: issue 21)
            events = run.events()
            for i, e in enumerate(events):
                if isinstance(e, HandReleased):
                    after = [type(x).__name__ for x in events[i + 1:]
                             if not isinstance(x, InputTaken | CardRead)]
                    assert after[0] == "HandStarted"

    asyncio.run(scenario())


async def until(predicate: Callable[[], bool]) -> None:
    async with asyncio.timeout(GUARD):
        while not predicate():
            await asyncio.sleep(0.005)


def test_tourn_autoplay_waits_for_players_deals_hand_for_hand_and_stops_when_closed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    async def scenario() -> None:
        async with host_run(tmp_path / "t1.db") as run:
            options = RunOptions(autoplay=0, tournament=True, speed=0)
            dealer = asyncio.create_task(
                _tournament_autoplay(run.vt, run.outbox, run.commands, options))
            await asyncio.sleep(0.15)
            assert run.journal.state.hand_no == 0  # nobody seated: it waits
            await run.send("seat_player", seat=2, player="ann", stack=50_000)
            await asyncio.sleep(0.15)
            assert run.journal.state.hand_no == 0  # one player: still waits
            await run.send("seat_player", seat=7, player="bob", stack=50_000)
            await until(lambda: run.journal.state.hand_no >= 3)
            assert (await run.send("pause"))["status"] == "ok"
            paused_at = run.journal.state.hand_no
            await asyncio.sleep(0.15)
            assert run.journal.state.hand_no == paused_at
            await run.send("resume")
            await until(lambda: run.journal.state.hand_no > paused_at)
            await run.send("hand_for_hand", on=True)
            held = run.journal.state.hand_no
            await asyncio.sleep(0.15)
            assert run.journal.state.hand_no == held
            await run.send("next_hand")
            await until(lambda: run.journal.state.hand_no == held + 1
                        and not run.journal.state.hand_in_progress)
            await asyncio.sleep(0.15)
            assert run.journal.state.hand_no == held + 1  # exactly one
            closed = await run.send("close_table")
            assert closed["status"] == "ok"
            async with asyncio.timeout(GUARD):
                await dealer
            assert run.journal.state.closed
            assert not any(isinstance(e, HandStarted) and e.hand_no > held + 1
                           for e in run.events())

    asyncio.run(scenario())
    assert "PLAYED hands=" in capsys.readouterr().out


def test_outbox_keeps_its_newest_seq_when_a_command_and_a_hand_finish_out_of_order(
        tmp_path: Path) -> None:
    """A command's journal write is awaited while the dealer's next hand is written
    synchronously after it: the dealer's batch may be accepted first. The outbox must not
    go back to the command's seq (the link would hold the hand's events back)."""
    async def scenario() -> None:
        journal = Journal(tmp_path / "j.db", table="t1")
        try:
            async with Outbox(journal) as outbox:
                command = journal.append([Paused()])
                hand = journal.append([Resumed()])
                outbox.accept(hand)
                outbox.accept(command)
                assert outbox.last_seq == journal.last_seq == 2
                assert [p.seq for p in await outbox.next_batch(0)] == [1, 2]
        finally:
            journal.close()

    asyncio.run(scenario())


def test_crash_1_a_restarted_tournament_table_keeps_its_players_and_hand_for_hand(
        tmp_path: Path) -> None:
    async def first_boot() -> None:
        async with host_run(tmp_path / "t1.db", seed=8) as run:
            for seat in (2, 5, 8):
                await run.send("seat_player", seat=seat, player=f"p{seat}", stack=30_000)
            assert run.vt.play_hand() and run.vt.play_hand()
            await run.send("hand_for_hand", on=True)

    async def second_boot() -> None:
        async with host_run(tmp_path / "t1.db", seed=9) as run:
            t = run.vt.table
            assert t.hand_for_hand and t.hand_no == 2
            assert {s.number: s.stack for s in t.roster.occupied()} == {
                v.seat: v.stack for v in run.journal.state.seats}
            assert not run.vt.play_hand()  # still held for the floor (TOURN-22)
            assert (await run.send("next_hand"))["status"] == "ok"
            assert run.vt.play_hand() and run.journal.state.hand_no == 3
            run.vt.check_chips()

    asyncio.run(first_boot())
    asyncio.run(second_boot())
