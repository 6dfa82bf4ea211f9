"""The command desk: schema and shape checks, state checks, idempotency by command_id
(in memory and across a restart), and fuzzed payloads that change nothing."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.events import Command, JournalEvent, JsonScalar, PublicState
from controller.sync.commands import CommandDesk
from controller.sync.journal import Journal
from controller.sync.ledger import SeatingControls
from controller.sync.outbox import Outbox
from controller.sync.soak_node import open_table


class CountingTable:
    """A fake table: the reference controls, counting what it is asked to perform."""

    def __init__(self, outbox: Outbox) -> None:
        self.inner = SeatingControls(lambda: outbox.state)
        self.calls: list[str] = []

    def perform(self, command: Command, command_id: str
                ) -> tuple[Mapping[str, JsonScalar], Sequence[JournalEvent]]:
        self.calls.append(command_id)
        return self.inner.perform(command, command_id)


@asynccontextmanager
async def desk_at(db: Path) -> AsyncIterator[tuple[CommandDesk, Outbox, CountingTable]]:
    journal = open_table(db, "t1", players=3, stack=500)
    try:
        async with Outbox(journal) as outbox:
            table = CountingTable(outbox)
            yield CommandDesk(outbox, table), outbox, table
    finally:
        journal.close()


def cmd(command: dict[str, Any], command_id: str = "c1", **over: Any) -> bytes:
    body = {"schema": 2, "table": "t1", "boot": "host-1", "seq": 1, "ts": time.time(),
            "command_id": command_id, "command": command, **over}
    return json.dumps(body).encode()


def run(db: Path, body: Callable[[CommandDesk, Outbox, CountingTable], Awaitable[None]]
        ) -> None:
    async def scenario() -> None:
        async with desk_at(db) as (desk, outbox, table):
            await body(desk, outbox, table)
    asyncio.run(scenario())


async def ask(desk: CommandDesk, payload: bytes) -> dict[str, Any]:
    reply: dict[str, Any] = json.loads(await desk.handle(payload))
    return reply


def test_each_command_is_carried_out_and_journaled(tmp_path: Path) -> None:
    async def body(desk: CommandDesk, outbox: Outbox, table: CountingTable) -> None:
        script: list[tuple[dict[str, Any], Callable[[PublicState], bool]]] = [
            ({"name": "pause"}, lambda s: s.paused),
            ({"name": "resume"}, lambda s: not s.paused),
            ({"name": "set_level", "level": 4}, lambda s: s.level == 4),
            ({"name": "hand_for_hand", "on": True}, lambda s: s.hand_for_hand),
            ({"name": "colour_up", "at_level": 6}, lambda s: s.colour_up_at_level == 6),
            ({"name": "seat_player", "seat": 7, "player": "ann", "stack": 900},
             lambda s: any(v.seat == 7 and v.stack == 900 for v in s.seats)),
            ({"name": "move_player", "seat": 7, "to_table": "t9"},
             lambda s: all(v.seat != 7 for v in s.seats)),
            ({"name": "remove_player", "seat": 3}, lambda s: len(s.seats) == 2),
            ({"name": "close_table"}, lambda s: s.closed),
        ]
        for i, (command, check) in enumerate(script):
            reply = await ask(desk, cmd(command, f"c{i}"))
            assert reply["status"] == "ok", reply
            assert reply["command_id"] == f"c{i}" and reply["seq"] == outbox.last_seq
            assert check(outbox.state), command
        assert desk.performed == len(script)

    run(tmp_path / "j.db", body)


def test_call_clock_needs_a_hand_in_progress(tmp_path: Path) -> None:
    async def body(desk: CommandDesk, outbox: Outbox, table: CountingTable) -> None:
        reply = await ask(desk, cmd({"name": "call_clock", "seat": 1}))
        assert reply["status"] == "error" and "not in a hand" in reply["error"]

    run(tmp_path / "j.db", body)


def test_a_repeated_command_is_answered_from_memory_not_run_twice(tmp_path: Path) -> None:
    async def body(desk: CommandDesk, outbox: Outbox, table: CountingTable) -> None:
        first = await desk.handle(cmd({"name": "pause"}, "once"))
        seq = outbox.last_seq
        again = await desk.handle(cmd({"name": "pause"}, "once"))
        assert again == first and outbox.last_seq == seq and table.calls == ["once"]
        other = await ask(desk, cmd({"name": "pause"}, "twice"))  # a new id: really asked
        assert other["status"] == "error" and "already paused" in other["error"]

    run(tmp_path / "j.db", body)

    async def after_restart(desk: CommandDesk, outbox: Outbox, table: CountingTable) -> None:
        reply = await ask(desk, cmd({"name": "pause"}, "once"))
        assert reply["status"] == "ok" and table.calls == []  # from the journal
        refused = await ask(desk, cmd({"name": "pause"}, "twice"))
        assert "already paused" in refused["error"] and table.calls == []

    run(tmp_path / "j.db", after_restart)


def test_bad_commands_get_a_clear_error_and_change_nothing(tmp_path: Path) -> None:
    async def body(desk: CommandDesk, outbox: Outbox, table: CountingTable) -> None:
        seq, state = outbox.last_seq, outbox.state
        cases = [
            (cmd({"name": "deal_aces"}), "unknown command 'deal_aces'"),
            (cmd({"name": "set_level", "level": "high"}), "malformed CommandMessage"),
            (cmd({"name": "set_level"}), "level"),
            (cmd({"name": "pause"}, schema=3), "schema version 3 is not supported"),
            (cmd({"name": "pause"}, schema=1), "version 2 split table_changed"),
            (cmd({"name": "pause"}, table="t2"), "for table t2 reached table t1"),
            (cmd({"name": "resume"}), "not paused"),
            (cmd({"name": "seat_player", "seat": 1, "player": "bob", "stack": 5}),
             "seat 1 is taken"),
            (cmd({"name": "remove_player", "seat": 9}), "seat 9 is empty"),
            (b"{not json", "not JSON"),
            (b"[1, 2]", "not a JSON object"),
        ]
        for i, (payload, reason) in enumerate(cases):
            payload = payload.replace(b'"c1"', f'"bad{i}"'.encode())
            reply = await ask(desk, payload)
            assert reply["status"] == "error" and reason in reply["error"], reply
            assert reply["data"] is None
        assert (outbox.last_seq, outbox.state) == (seq, state)
        malformed = await ask(desk, b'{"schema": 2, "command_id": 5}')
        assert malformed["command_id"] is None

    run(tmp_path / "j.db", body)


def test_seating_waits_for_the_hand_to_end(tmp_path: Path) -> None:
    async def body(desk: CommandDesk, outbox: Outbox, table: CountingTable) -> None:
        from controller.events import HandStarted
        await outbox.record([HandStarted(hand_no=1, seats=(1, 2, 3), stacks=(500, 500, 500))])
        commands: list[dict[str, Any]] = [
            {"name": "seat_player", "seat": 5, "player": "x", "stack": 10},
            {"name": "remove_player", "seat": 1}, {"name": "close_table"}]
        for i, command in enumerate(commands):
            reply = await ask(desk, cmd(command, f"h{i}"))
            assert "during hand 1" in reply["error"]
        assert (await ask(desk, cmd({"name": "call_clock", "seat": 2}, "clk")))["status"] == "ok"

    run(tmp_path / "j.db", body)


_json = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
                     lambda inner: st.lists(inner, max_size=4)
                     | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=12)
_commandish = st.fixed_dictionaries(
    {"schema": st.sampled_from([2, 2, 2, 1, "2", None]), "table": st.sampled_from(["t1", "t2"]),
     "command_id": st.text(max_size=70) | st.integers(),
     "command": st.fixed_dictionaries({"name": st.sampled_from(
         ["pause", "set_level", "seat_player", "close_table", "x"])}, optional={
         "level": _json, "seat": _json, "player": _json, "stack": _json})},
    optional={"boot": _json, "seq": _json, "ts": _json})


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(payload=st.binary(max_size=64) | _commandish.map(lambda d: json.dumps(d).encode()))
def test_fuzzed_commands_never_crash_and_invalid_ones_change_nothing(payload: bytes) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        async def body(desk: CommandDesk, outbox: Outbox, table: CountingTable) -> None:
            seq = outbox.last_seq
            reply = await ask(desk, payload)
            assert reply["status"] in ("ok", "error")
            if reply["status"] == "error":
                assert reply["error"] and outbox.last_seq == seq
            else:
                assert desk.performed == 1

        run(Path(tmp) / "j.db", body)
        Journal(Path(tmp) / "j.db", table="t1").close()  # and the journal still opens
