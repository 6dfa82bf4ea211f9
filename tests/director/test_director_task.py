"""The director's own task (the floor's clock, balancing, hand-for-hand) stops when the
bridge stops it, whatever it is doing: even as a table's report wakes it at that very
moment (the bridge shutting down while reports still arrive). Contract tables in-process
(no broker), dealt by the test."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from controller.events import ShotClockReport
from controller.sync.messages import EventMessage
from host_bridge.app import create_app
from host_bridge.director.options import TournamentOptions
from host_bridge.director.service import TournamentDirector
from tests.bridge.conftest import make_settings
from tests.director.floortables import LocalFloor


async def _until(ready: object, timeout_s: float = 5.0) -> None:
    assert callable(ready)
    async with asyncio.timeout(timeout_s):
        while not ready():
            await asyncio.sleep(0.01)


def test_stop_ends_the_task_even_as_a_report_wakes_it(tmp_path: Path) -> None:
    async def run() -> TournamentDirector:
        floor = LocalFloor(["T1"], seed=1, all_in=0.0)
        app = create_app(make_settings(tmp_path, command_timeout_s=5.0), publisher=floor)
        bridge = app.state.bridge
        floor.connect(bridge.receive)
        for message in floor.status_messages():
            await bridge.receive(*message)
        director = TournamentDirector.create(TournamentOptions(
            name="t", tables={"T1": 9}, auto_balance=False, players=("a", "b", "c")),
            bridge.desk)
        bridge.observers.append(director.observe)
        await director.start()
        view = director.views["T1"]
        await _until(lambda: len(view.seats) == 3 and not view.paused)
        await asyncio.sleep(0.2)  # the director's task waits for something to do
        seat = min(view.seats)
        # a report wakes the task, and in the same turn of the loop the bridge stops it
        director.observe([EventMessage(table="T1", boot="boot-T1", seq=view.seq + 1,
                                       ts=time.time(), event=ShotClockReport(
                                           hand_no=0, seat=seat, what="ruled"))])
        async with asyncio.timeout(5.0):  # the task ends; it does not run on
            await director.stop()
        return director

    director = asyncio.run(run())
    assert director.anomalies == []
    assert not director.finished.is_set()  # stopped, not finished: a restart resumes it
