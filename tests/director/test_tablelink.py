"""The director's table link holding tables (TOURN-19's pauses for moves): a table already
paused when the hold begins (the floor paused it; it finishes its hand) may be resumed
by the floor while the director waits. The hold must then ask it to pause, not wait for a
pause nobody asked for (the audited tournament's one failure: "the tables did not report
T1, T2 paused with no hand in play in time")."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

from controller.events import Command, Pause
from controller.sync.messages import ReplyMessage
from host_bridge.director.floorstate import Dealing, TableView
from host_bridge.director.tablelink import TableLink


class Table:
    """One table: a command's reply at once, its report (paused or not, the hand over)
    a little later, as the bridge stores it."""

    def __init__(self) -> None:
        self.view = TableView(wire="T1", number=1, paused=True)  # paused by the floor
        self.state = SimpleNamespace(in_hand=True)  # ... and finishing its hand
        self.commands: list[str] = []
        self.link: TableLink | None = None

    def report(self, **changes: bool) -> None:
        for name, value in changes.items():
            setattr(self.view if name == "paused" else self.state, name, value)
        assert self.link is not None
        self.link.heard()

    async def send(self, table_id: str, command: Command, *, actor: str,
                   role: str) -> tuple[str, ReplyMessage]:
        self.commands.append(command.name)
        if isinstance(command, Pause):  # it stops after the hand in play
            loop = asyncio.get_running_loop()
            loop.call_later(0.05, lambda: self.report(paused=True))
            loop.call_later(0.1, lambda: self.report(in_hand=False))
        return "c", ReplyMessage.model_construct(command_id="c", status="ok")


def _link(table: Table, anomalies: list[str]) -> TableLink:
    floor: Any = SimpleNamespace(tables={1: table.state})
    table.link = TableLink(table, {"T1": table.view}, floor, Dealing(),
                           figures={"commands": 0, "refused": 0},
                           anomaly=anomalies.append, timeout_s=2.0, name="t")
    return table.link


def test_tourn_19_a_table_the_floor_resumes_while_the_director_holds_it_is_paused() -> None:
    async def run() -> tuple[list[str], list[str]]:
        table, anomalies = Table(), []
        link = _link(table, anomalies)
        holding = asyncio.create_task(link.hold(["T1"]))
        await asyncio.sleep(0.05)
        assert not holding.done() and table.commands == []  # paused: nothing to ask
        table.report(paused=False)  # the floor resumed it: it deals on
        await asyncio.wait_for(holding, 5)
        return table.commands, anomalies

    commands, anomalies = asyncio.run(run())
    assert commands == ["pause"]
    assert anomalies == []


def test_tourn_19_holding_a_paused_table_between_hands_sends_nothing() -> None:
    async def run() -> tuple[list[str], list[str]]:
        table, anomalies = Table(), []
        table.state.in_hand = False
        await _link(table, anomalies).hold(["T1"])
        return table.commands, anomalies

    assert asyncio.run(run()) == ([], [])
