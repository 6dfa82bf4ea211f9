"""Device-layer figures (prints them; asserts nothing about time).

    .venv/bin/python tests/benchmarks/bench_devices.py

1. Mock card placed -> ``CardArrived`` delivered by ``TableHardware.events()``, beyond the
   configured stable-read time, on a live asyncio loop (budget: p99 <= 2 ms). Printed again
   with the watch's early wake-up turned off (``spin_s = 0``: a plain ``call_at`` timer,
   which epoll rounds up to the next millisecond), to show what the spin buys, and next to
   the machine's own reference: how late a bare 30 ms ``loop.call_at`` timer fires on
   the same kind of loop in the same run, with the load average (on a shared machine,
   time the process is not scheduled shows in every figure alike).
2. Peak memory of the device layer with the 10-seat tournament profile loaded (tracemalloc).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from controller.devices.events import CardArrived
from controller.devices.mock import MockTable
from controller.devices.profile import load_profile

ROUNDS = 100
BUDGET_P99_MS = 2.0
READERS = [f"seat{n}" for n in range(1, 11)] + [f"player{n}" for n in range(1, 11)]


async def card_latency(spin_s: float | None = None) -> tuple[list[float], float]:
    loop = asyncio.get_running_loop()
    table = MockTable(load_profile("tournament-10"), clock=loop.time)
    if spin_s is not None:
        table.watch.spin_s = spin_s
    stable = table.profile.debounce.stable_s
    readers = READERS
    runner = asyncio.create_task(table.run(), name="devices")
    await asyncio.sleep(0)
    extra: list[float] = []
    events = table.events()
    for r in range(ROUNDS):
        placed: dict[tuple[str, bytes], float] = {}
        for i, reader in enumerate(readers):
            uid = bytes([4, r & 0xFF, r >> 8, i, 0, 0, 1])
            placed[(reader, uid)] = loop.time()
            table.drive_card_placed(reader, uid)
        while placed:
            event = await anext(events)
            if isinstance(event, CardArrived):
                t0 = placed.pop((event.reader, event.uid))
                extra.append((loop.time() - t0 - stable) * 1000)
        for reader in readers:
            for uid in list(table.mock_reader(reader).tags):
                table.drive_card_lifted(reader, uid)
        await asyncio.sleep(0.005)
    runner.cancel()
    table.close()
    return extra, stable


async def bare_timer_lateness(n: int = 200) -> list[float]:
    loop = asyncio.get_running_loop()
    late: list[float] = []
    for i in range(n):
        fired = loop.create_future()
        when = loop.time() + 0.03 + (i % 10) * 1e-4
        loop.call_at(when, fired.set_result, None)
        await fired
        late.append((loop.time() - when) * 1000)
    return late


def memory() -> tuple[int, int]:
    tracemalloc.start()
    table = MockTable(load_profile("tournament-10"))
    for n in range(1, 11):
        table.drive_card_placed(f"seat{n}", bytes([4, n, 0, 0, 0, 0, 1]))
    table.advance(0.05)
    current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    table.close()
    return current, peak


def _figures(extra: list[float]) -> tuple[float, float, float]:
    extra = sorted(extra)
    return statistics.median(extra), extra[int(len(extra) * 0.99) - 1], extra[-1]


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__)
    parser.parse_args(argv)  # no options: --help says what it measures
    extra, stable = asyncio.run(card_latency())
    median, p99, worst = _figures(extra)
    print(f"card placed -> CardArrived beyond the {stable * 1000:.0f} ms stable-read time, "
          f"{len(extra)} cards (20 readers x {ROUNDS} rounds, live asyncio loop):")  # fmt: skip
    print(f"  median {median:.3f} ms  p99 {p99:.3f} ms  max {worst:.3f} ms")
    print(f"  budget p99 <= {BUDGET_P99_MS} ms: {'met' if p99 <= BUDGET_P99_MS else 'MISSED'}")
    median, p99, worst = _figures(asyncio.run(card_latency(spin_s=0.0))[0])
    print(f"  without the early wake-up (spin_s = 0): median {median:.3f} ms  "
          f"p99 {p99:.3f} ms  max {worst:.3f} ms")  # fmt: skip
    median, p99, worst = _figures(asyncio.run(bare_timer_lateness()))
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"  reference, a bare 30 ms call_at timer's lateness: median {median:.3f} ms  "
          f"p99 {p99:.3f} ms  max {worst:.3f} ms")  # fmt: skip
    print(f"  (load average {load} on {os.cpu_count()} CPUs)")
    current, peak = memory()
    print(f"device layer, tournament-10 on the mock backend (tracemalloc): "
          f"current {current / 1024:.0f} KiB, peak {peak / 1024:.0f} KiB")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
