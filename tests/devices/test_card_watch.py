"""``CardWatch.run()`` on a live loop: pushes from any thread, failures not swallowed."""

from __future__ import annotations

import asyncio
import threading

import pytest

from controller.devices.debounce import CardWatch
from controller.devices.events import CardArrived, CardEvent
from controller.devices.mock import MockCardReader

A = bytes.fromhex("04a1b2c3d4e5f6")


class FailingReader:
    """A polled reader whose bus fails on the first scan."""

    name = "board1"
    multi_tag = True

    def scan(self) -> frozenset[bytes]:
        raise OSError(5, "SPI transfer failed")

    def close(self) -> None:
        pass


async def _until(events: list[CardEvent], n: int) -> None:
    while len(events) < n:
        await asyncio.sleep(0.001)


def test_run_raises_what_a_failing_reader_raises_instead_of_stopping_silently() -> None:
    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        watch = CardWatch({"board1": FailingReader()}, lambda e: None, clock=loop.time)
        async with asyncio.timeout(5):  # a guard against a hang, not a measurement
            await watch.run()

    with pytest.raises(OSError, match="SPI transfer failed"):
        asyncio.run(scenario())


def test_a_card_placed_from_another_thread_arrives_through_run() -> None:
    async def scenario() -> list[CardEvent]:
        loop = asyncio.get_running_loop()
        reader = MockCardReader("seat1")
        got: list[CardEvent] = []
        watch = CardWatch({"seat1": reader}, got.append, clock=loop.time, stable_s=0.01)
        runner = asyncio.create_task(watch.run())
        await asyncio.sleep(0)
        placer = threading.Thread(target=reader.place, args=(A,))  # e.g. a serial thread
        placer.start()
        placer.join()
        async with asyncio.timeout(5):
            await _until(got, 1)
        runner.cancel()
        return got

    assert asyncio.run(scenario()) == [CardArrived("seat1", A)]


def test_a_watch_runs_on_one_loop_at_a_time() -> None:
    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        watch = CardWatch({"seat1": MockCardReader("seat1")}, lambda e: None, clock=loop.time)
        runner = asyncio.create_task(watch.run())
        await asyncio.sleep(0)
        try:
            with pytest.raises(RuntimeError, match="already running"):
                await watch.run()
        finally:
            runner.cancel()

    asyncio.run(scenario())


def test_cancelling_run_leaves_nothing_scheduled_and_it_can_run_again() -> None:
    async def scenario() -> list[CardEvent]:
        loop = asyncio.get_running_loop()
        reader = MockCardReader("seat1")
        got: list[CardEvent] = []
        watch = CardWatch({"seat1": reader}, got.append, clock=loop.time, stable_s=0.01)
        first = asyncio.create_task(watch.run())
        await asyncio.sleep(0)
        reader.place(A)  # its deadline is armed, then the watch is stopped
        first.cancel()
        with pytest.raises(asyncio.CancelledError):
            await first
        assert (watch._timer, watch._soon) == (None, None)
        second = asyncio.create_task(watch.run())  # the card is still there: it arrives
        async with asyncio.timeout(5):
            await _until(got, 1)
        second.cancel()
        return got

    assert asyncio.run(scenario()) == [CardArrived("seat1", A)]
