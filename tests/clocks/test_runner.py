"""The asyncio driver on a real loop: events arrive in order, never before their instant.

No timed assertions: the clocks run for fractions of a second and the tests only check
order and that nothing fired early (``loop.time()`` is the clocks' own time source).
"""

from __future__ import annotations

import asyncio
import contextlib

from controller.clocks import LevelClock, ShotClock, ShotClockConfig
from controller.clocks.events import (
    ClockEvent,
    CountdownTick,
    LevelStarted,
    PauseReason,
    Ruling,
    ShotClockExpired,
)
from controller.clocks.runner import ClockRunner
from controller.clocks.structure import structure


def test_runner_delivers_countdown_and_expiry_in_order_and_not_early() -> None:
    async def main() -> tuple[list[ClockEvent], float, float]:
        loop = asyncio.get_running_loop()
        clock = ShotClock(ShotClockConfig(0.25, countdown_s=0, signals={}))
        got: list[tuple[float, ClockEvent]] = []
        runner = ClockRunner([clock], lambda e: got.append((loop.time(), e)))
        runner.do(lambda now: clock.start(1, now, can_check=False))
        deadline = clock.deadline
        assert deadline is not None
        while not any(isinstance(e, ShotClockExpired) for _, e in got):
            await asyncio.sleep(0.01)
        runner.close()
        expired_at = next(t for t, e in got if isinstance(e, ShotClockExpired))
        return [e for _, e in got], expired_at, deadline

    events, expired_at, deadline = asyncio.run(main())
    assert events[-1] == ShotClockExpired(1, Ruling.FOLD, "CLOCK-9")
    assert [e.seconds_left for e in events if isinstance(e, CountdownTick)] == [0]
    assert expired_at > deadline  # CLOCK-3: never at or before the instant itself


def test_runner_is_rearmed_by_commands_pause_holds_the_expiry() -> None:
    async def main() -> list[ClockEvent]:
        clock = ShotClock(ShotClockConfig(0.05, countdown_s=0, signals={}))
        got: list[ClockEvent] = []
        runner = ClockRunner([clock], got.append)
        runner.do(lambda now: clock.start(1, now))
        runner.do(lambda now: clock.pause(now, PauseReason.FLOOR))
        await asyncio.sleep(0.15)  # well past the original deadline
        assert not any(isinstance(e, ShotClockExpired) for e in got)
        runner.do(lambda now: clock.resume(now, PauseReason.FLOOR))
        while not any(isinstance(e, ShotClockExpired) for e in got):
            await asyncio.sleep(0.01)
        runner.close()
        return got

    events = asyncio.run(main())
    assert events[-1] == ShotClockExpired(1, Ruling.FOLD, "CLOCK-9")


def test_runner_drives_several_clocks_and_run_task_can_be_cancelled() -> None:
    async def main() -> list[ClockEvent]:
        level = LevelClock(structure([(1, 2, 0), (2, 4, 0)], level_minutes=0.002))  # 0.12 s
        got: list[ClockEvent] = []
        runner = ClockRunner([level], got.append)
        task = asyncio.create_task(runner.run(), name="clocks")
        runner.do(level.start)
        while not any(isinstance(e, LevelStarted) and e.number == 2 for e in got):
            await asyncio.sleep(0.01)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        return got

    events = asyncio.run(main())
    assert [e.number for e in events if isinstance(e, LevelStarted)] == [1, 2]
