"""The sync link on a real Mosquitto (budget: accepted event -> host subscriber on
loopback, journal fsync included, p99 <= 5 ms).

Run: .venv/bin/python tests/benchmarks/bench_sync.py [--events N] [--outage SECONDS]

Starts its own Mosquitto on a free loopback port and a journal in a temporary directory,
then prints:
1. events per second through the outbox (journal fsync, MQTT QoS 1) to a subscriber, one
   event per commit and in batches of 20 (a hand's end is one batch);
2. latency from ``Outbox.record`` being called to the event arriving at a subscriber, one
   event at a time: median and p99, with the journal commit alone beside it;
3. with ``--outage S`` (default 60; 0 skips): the broker stopped for S seconds while the
   virtual table plays, then the outbox size when it returns and the catch-up time until
   the host has acknowledged all of it;
4. with ``--kills N`` (default 50; 0 skips): the controller SIGKILLed at N random points and
   restarted, then checked (the host holds every event once, in order, stacks equal);
5. journal retention: how long one prune batch holds the journal's thread (an append
   queued behind it waits at most that long).
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import aiomqtt

from controller.events import LevelSet
from controller.sync.journal import Journal, Retention
from tests.sync.conftest import MOSQUITTO, Mosquitto
from tests.sync.harness import outage_run, running_table
from tests.sync.test_crash import kill_soak

BUDGET_P99_MS = 5.0


def _pct(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def _through(port: int, db: Path, events: int) -> None:
    async with running_table(db, port) as stack, \
            aiomqtt.Client("127.0.0.1", port, identifier="bench-sub") as sub:
        await sub.subscribe(stack.link.topics.event, qos=1)
        arrived: dict[int, float] = {}
        wanted = asyncio.Event()
        target = [0]

        async def receive() -> None:
            async for message in sub.messages:
                payload = message.payload
                assert isinstance(payload, bytes)
                seq = int(payload.split(b'"seq":', 1)[1].split(b",", 1)[0])
                arrived[seq] = time.perf_counter()
                if seq >= target[0]:
                    wanted.set()

        receiver = asyncio.create_task(receive(), name="bench-subscriber")
        await asyncio.sleep(0.2)
        level = iter(range(2, 10**9))

        def change() -> LevelSet:
            return LevelSet(level=next(level))

        # 1. throughput
        for batch in (1, 20):
            start_seq = stack.outbox.last_seq
            target[0] = start_seq + events
            wanted.clear()
            t0 = time.perf_counter()
            for _ in range(events // batch):
                await stack.outbox.record([change() for _ in range(batch)])
            await wanted.wait()
            elapsed = time.perf_counter() - t0
            print(f"throughput, {batch:2d} event(s) per commit: {events / elapsed:8.0f} events/s "
                  f"({events} events, journal fsync + QoS 1 to a subscriber)")

        # 2. latency, one event at a time
        latencies, commits = [], []
        for _ in range(min(events, 2000)):
            seq = stack.outbox.last_seq + 1
            target[0] = seq
            wanted.clear()
            t0 = time.perf_counter()
            await stack.outbox.record([change()])
            commits.append(time.perf_counter() - t0)
            await wanted.wait()
            latencies.append(arrived[seq] - t0)
        ms = [x * 1000 for x in latencies]
        cms = [x * 1000 for x in commits]
        p99 = _pct(ms, 0.99)
        print(f"latency, accepted event -> subscriber ({len(ms)} events): median "
              f"{statistics.median(ms):.2f} ms, p99 {p99:.2f} ms (budget p99 <= "
              f"{BUDGET_P99_MS} ms: {'met' if p99 <= BUDGET_P99_MS else 'MISSED'})")
        print(f"  of which the journal commit (fsync): median {statistics.median(cms):.2f} ms, "
              f"p99 {_pct(cms, 0.99):.2f} ms")
        link = [a - b for a, b in zip(ms, cms, strict=True)]
        print(f"  and the rest (queue, MQTT QoS 1 through the broker): median "
              f"{statistics.median(link):.2f} ms, p99 {_pct(link, 0.99):.2f} ms")
        receiver.cancel()


def _raw_commit_ms(path: Path, n: int = 1000) -> list[float]:
    """Same-run reference: a bare SQLite WAL ``synchronous=FULL`` commit of one row."""
    db = sqlite3.connect(str(path), isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.execute("CREATE TABLE t (seq INTEGER PRIMARY KEY, body BLOB)")
    out = []
    for i in range(n):
        t0 = time.perf_counter()
        db.execute("BEGIN IMMEDIATE")
        db.execute("INSERT INTO t VALUES (?, ?)", (i, b"x" * 300))
        db.execute("COMMIT")
        out.append((time.perf_counter() - t0) * 1000)
    db.close()
    return out


def _prune_ms(path: Path, events: int, batch: int) -> list[float]:
    """Journal ``events`` acknowledged events, then time each retention batch that prunes
    them (the clock is moved on a year so the days rule lets every one go)."""
    now = [time.time()]
    journal = Journal(path, table="t1", clock=lambda: now[0],
                      retention=Retention(hands=0, days=1, batch=batch))
    level = iter(range(2, 10**9))
    for _ in range(events // 100):
        journal.append([LevelSet(level=next(level)) for _ in range(100)])
    journal.acknowledge(journal.last_seq)
    now[0] += 365 * 86_400
    out = []
    while True:
        t0 = time.perf_counter()
        gone = journal.prune_history()
        out.append((time.perf_counter() - t0) * 1000)
        if gone < batch:
            break
    journal.close()
    return out


def main(argv: Sequence[str] | None = None, prog: str | None = None) -> int:
    """Run the benchmark; print the figures."""
    parser = argparse.ArgumentParser(
        prog=prog, description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--events", type=int, default=2000)
    parser.add_argument("--outage", type=float, default=60.0)
    parser.add_argument("--kills", type=int, default=50)
    args = parser.parse_args(argv)
    if MOSQUITTO is None:
        print("bench_sync: mosquitto is not installed (apt-get install -y mosquitto)")
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        broker = Mosquitto(Path(tmp) / "broker")
        broker.start()
        try:
            raw = _raw_commit_ms(Path(tmp) / "raw.db")
            print(f"reference, bare SQLite WAL FULL commit on this disk now: median "
                  f"{statistics.median(raw):.2f} ms, p99 {_pct(raw, 0.99):.2f} ms")
            asyncio.run(_through(broker.port, Path(tmp) / "bench.db", args.events))
            if args.outage > 0:
                figures = asyncio.run(outage_run(broker, Path(tmp) / "outage.db",
                                                 seconds=args.outage))
                print(f"outage of {figures.seconds:.0f} s while the table plays: "
                      f"{figures.events_during} events journaled meanwhile, outbox "
                      f"{figures.outbox_at_return} when the broker returned, caught up in "
                      f"{figures.catch_up_s:.2f} s (reconnect backoff included); the host "
                      "holds every event once, in order, stacks equal")
            if args.kills > 0:
                soak = kill_soak(broker, Path(tmp) / "kills.db", kills=args.kills, seed=7)
                print(f"SIGKILL soak: {soak.kills} kills at random points ({soak.ready_kills} "
                      f"while playing), {soak.kills} of {soak.kills} runs recovered; "
                      f"{soak.events} events, {soak.hands} hands, {soak.voided} voided "
                      "(CRASH-1); the host holds every event once, in order, stacks equal")
            batch = Retention().batch
            prunes = _prune_ms(Path(tmp) / "prune.db", 20 * batch, batch)
            print(f"retention: pruning {20 * batch} acknowledged events in batches of {batch}: "
                  f"median {statistics.median(prunes):.1f} ms, max {max(prunes):.1f} ms "
                  "per batch (an append waits at most one batch)")
        finally:
            broker.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
