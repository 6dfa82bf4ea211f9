"""A command_id reused with another command, at the command desk: refused with a reason
naming the id, nothing done or recorded, also after a restart (the digest is journaled with
the reply); the same id with the same command, however its JSON is written, is a retry."""

from __future__ import annotations

from pathlib import Path

from controller.sync.commands import CommandDesk
from controller.sync.outbox import Outbox
from tests.sync.test_commands import CountingTable, ask, cmd, run

REFUSED = ("command_id once was already used for another command; nothing was done: send "
           "set_level with a new command_id")


def test_a_reused_id_is_refused_and_a_retry_answered_also_after_a_restart(
        tmp_path: Path) -> None:
    db = tmp_path / "j.db"
    answers: dict[str, bytes] = {}

    async def first_boot(desk: CommandDesk, outbox: Outbox, table: CountingTable) -> None:
        answers["first"] = await desk.handle(cmd({"name": "set_level", "level": 4}, "once"))
        seq, state = outbox.last_seq, outbox.state
        refused = await ask(desk, cmd({"name": "set_level", "level": 9}, "once"))
        assert (refused["status"], refused["error"]) == ("error", REFUSED)
        assert (outbox.last_seq, outbox.state, table.calls) == (seq, state, ["once"])
        # the same command written another way (keys reordered) is the same command
        again = await desk.handle(cmd({"level": 4, "name": "set_level"}, "once"))
        assert again == answers["first"]

    async def after_restart(desk: CommandDesk, outbox: Outbox, table: CountingTable) -> None:
        refused = await ask(desk, cmd({"name": "set_level", "level": 9}, "once"))
        assert refused["error"] == REFUSED and outbox.state.level == 4
        assert await desk.handle(cmd({"name": "set_level", "level": 4}, "once")) \
            == answers["first"]
        assert table.calls == []

    run(db, first_boot)
    run(db, after_restart)
