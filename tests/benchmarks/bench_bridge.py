"""One bridge, 200 tables, a real Mosquitto (budgets: >= 5,000 events/s ingested; bridge
CPU <= 100 us per event, parse, store, feed and director; table event -> live feed p99
< 100 ms at 1,000 and at 5,000 events/s offered). Each budget is printed MET or MISSED.

Run: .venv/bin/python tests/benchmarks/bench_bridge.py [--tables 200] [--hands 5]
     [--rate 1000] [--clients 4]   (or: pitboss bench bridge)

Starts a private Mosquitto on a free loopback port and, in this process, a bridge
(:class:`~host_bridge.bridge.Bridge` + :class:`~host_bridge.mqtt.MqttLink`, SQLite in a
temporary directory, a subscriber on its live-feed hub). The tables are simulated by a
child process (so the bridge's process holds only the bridge): a few aiomqtt clients, each
publishing for many tables at QoS 1, every table in seq order — three players seated, then
``--hands`` showdown hands (hand_started, hole_dealt + secure/cards, actions, board, pot,
hand_ended), the envelope's ``ts`` set when it is published. The child also listens to the
bridge's acks and says when every table's last event was acknowledged.

The bridge is built as the app builds it (``create_app``): the director's room, the cash
room and the alert board observe its stored batches. Three runs (more with another
``--rate``), each with a fresh broker, bridge and store:
1. throughput: every table publishes as fast as the broker takes it; events/s stored and
   acked = events / (first publish -> last table fully acked);
2. latency, twice: the tables together publish 1,000 and then 5,000 events/s (paced; 5
   events a second per table is already well above a live table's pace); p50/p99 from a
   table's publish (its ``ts``, so the publishers' own delays count too) to the item on
   the bridge's live feed.
Each run also prints the bridge process's CPU per event (loop + ingest thread, and the
ingest thread alone; with ``--store-process`` the store's child process is counted as the
store): on a shared machine that is the figure to compare between runs. A bare subscriber
in a process of its own measures the same events' latency without the bridge (publishers
and broker alone), for comparison. The simulated tables, their ack listener and the probe
use the bridge's own MQTT client (:class:`~host_bridge.mqtt_fast.FastClient`, ~35 µs a
message where plain aiomqtt takes ~100-150): on a 2-core machine the harness must leave the
bridge its share of the CPU (real tables are computers of their own).
Then the bridge process's RSS (current and peak) with the tables on it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import aiomqtt

from controller.sync.messages import parse_host_ack
from host_bridge.mqtt_fast import FastClient
from tests.bridge.tablesim import WireTable, showdown_hand
from tests.sync.conftest import MOSQUITTO, Mosquitto

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from host_bridge.bridge import Bridge

SITE = "bench"
BUDGET_EVENTS_S = 5000.0
BUDGET_P99_MS = 100.0
BUDGET_CPU_US = 100.0  # bridge CPU per ingested event (parse, store, feed, director)
RATES = (1000.0, 5000.0)  # events/s offered in the latency runs
TIMEOUT_S = 180.0
NO_DELAY = ((socket.IPPROTO_TCP, socket.TCP_NODELAY, 1),)


def _pct(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def _rss_kib(pid: str = "self") -> tuple[int, int]:
    fields = dict(line.split(":", 1) for line in
                  Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    return int(fields["VmRSS"].split()[0]), int(fields["VmHWM"].split()[0])


# ---------------------------------------------------------------------------- the tables
def _script(table: str, hands: int) -> list[tuple[str, dict[str, Any]]]:
    """A table's messages (topic, decoded payload) in the order it sends them."""
    wire = WireTable(table=table, boot=f"{table}-boot")
    messages = [wire.seat(s, f"{table}-p{s}", 1000) for s in (1, 2, 3)]
    for hand_no in range(1, hands + 1):
        messages += wire.hand(hand_no, (1, 2, 3), showdown_hand())
    return [(topic.replace("/test/", f"/{SITE}/", 1), json.loads(payload))
            for topic, payload in messages]


async def _tables(port: int, tables: int, hands: int, rate: float, clients: int) -> dict[
        str, Any]:
    names = [f"t{i:03d}" for i in range(tables)]
    scripts = {name: _script(name, hands) for name in names}
    last_seq = {n: max(p["seq"] for t, p in s if t.endswith("/event"))
                for n, s in scripts.items()}
    events = sum(1 for s in scripts.values() for t, _ in s if t.endswith("/event"))
    acked: dict[str, int] = {}
    done = asyncio.Event()
    out: dict[str, Any] = {"tables": tables, "events": events,
                           "messages": sum(map(len, scripts.values()))}

    async def listen(sub: aiomqtt.Client) -> None:
        async for message in sub.messages:
            assert isinstance(message.payload, bytes)
            ack = parse_host_ack(message.payload)
            if ack.kind == "ack" and ack.acked > acked.get(ack.table, 0):
                acked[ack.table] = ack.acked
                if ack.acked >= last_seq[ack.table] and len(acked) == tables and all(
                        acked[n] >= last_seq[n] for n in names):
                    out["all_acked"] = time.time()
                    done.set()

    interval = tables / rate if rate > 0 else 0.0

    async def play(client: aiomqtt.Client, name: str, start: float) -> None:
        due = start
        for topic, data in scripts[name]:
            if interval and topic.endswith("/event"):
                due += interval
                await asyncio.sleep(max(0.0, due - time.monotonic()))
            data["ts"] = time.time()
            await client.publish(topic, json.dumps(data, separators=(",", ":")).encode(),
                                 qos=1)

    pubs = [FastClient("127.0.0.1", port, identifier=f"bench-tables-{i}",
                           socket_options=NO_DELAY) for i in range(clients)]
    sub = FastClient("127.0.0.1", port, identifier="bench-acks", socket_options=NO_DELAY)
    async with sub:
        await sub.subscribe(f"pitboss/v1/{SITE}/host/ack/+", qos=1)
        listener = asyncio.create_task(listen(sub))
        for c in pubs:
            await c.__aenter__()
            c.pending_calls_threshold = 10 * tables
        try:
            out["first_publish"] = time.time()
            start = time.monotonic()
            await asyncio.gather(*(play(pubs[i % clients], n, start + i * interval / tables)
                                   for i, n in enumerate(names)))
            out["last_publish"] = time.time()
            try:
                await asyncio.wait_for(done.wait(), TIMEOUT_S)
            except TimeoutError:
                out["acked_tables"] = sum(acked.get(n, 0) >= last_seq[n] for n in names)
        finally:
            listener.cancel()
            for c in pubs:
                await c.__aexit__(None, None, None)
    return out


async def _probe(port: int) -> dict[str, float]:
    """A bare subscriber to every table's events (its own process): publish -> broker ->
    a client doing nothing else. The bridge's feed latency is compared with this one."""
    latencies: list[float] = []
    async with FastClient("127.0.0.1", port, identifier="bench-probe",
                              socket_options=NO_DELAY) as client:
        await client.subscribe(f"pitboss/v1/{SITE}/table/+/event", qos=1)
        print("ready", flush=True)
        stop = asyncio.create_task(asyncio.to_thread(sys.stdin.readline))

        async def listen() -> None:
            async for message in client.messages:
                assert isinstance(message.payload, bytes)
                ts = json.loads(message.payload)["ts"]
                latencies.append((time.time() - ts) * 1000)

        listener = asyncio.create_task(listen())
        await stop
        listener.cancel()
    return {"p50": _pct(latencies, 0.5), "p99": _pct(latencies, 0.99), "n": len(latencies)}


# ---------------------------------------------------------------------------- the bridge
@dataclass
class Run:
    """What one run measured."""

    tables: dict[str, Any]
    latencies_ms: list[float] = field(default_factory=list)
    arrivals: list[float] = field(default_factory=list)  # when each latency was measured
    stored: int = 0
    dropped: int = 0
    rss_kib: tuple[int, int] = (0, 0)
    loop_lag_ms: list[float] = field(default_factory=list)
    cpu_s: float = 0.0  # the bridge process's CPU time (all threads) during the run
    store_cpu_s: float = 0.0  # of which in Ingest.apply (the ingest thread)
    batches: int = 0
    probe: dict[str, float] = field(default_factory=dict)  # publish -> a bare subscriber


async def _run(args: argparse.Namespace, rate: float) -> Run:
    # the bridge's side, imported here: the simulated tables and the probe (this file run
    # as a child, twice a run) start in 0.4 s instead of 2 s without the bridge and its store
    from sqlalchemy import func, select

    from host_bridge.app import create_app
    from host_bridge.db import session_factory
    from host_bridge.models import EventRecord
    from host_bridge.mqtt import MqttLink
    from host_bridge.settings import BridgeSettings
    from host_bridge.store_process import StoreProcess

    assert MOSQUITTO is not None
    with tempfile.TemporaryDirectory(prefix="bench-bridge-") as tmp:
        broker = Mosquitto(Path(tmp) / "broker")
        broker.start()
        try:
            settings = BridgeSettings.model_validate({
                "database_url": f"sqlite:///{tmp}/bridge.db", "site": SITE,
                "mqtt_port": broker.port, "bridge_id": "bench-bridge"})
            # the bridge as `pitboss bridge` builds it: its observers (the director's room,
            # the cash room, the alert board) hear every stored batch, and are timed with it
            app = create_app(settings)
            engine: Engine = app.state.engine
            bridge: Bridge = app.state.bridge
            board_ticks = asyncio.create_task(app.state.alert_board.run())
            store_process = None
            if args.store_process:  # the store in a child process: time it on this side
                store_process = StoreProcess(bridge.ingest, settings.database_url,
                                             host_boot=bridge.host_boot)
                bridge.ingest = store_process  # type: ignore[assignment]
            run = Run(tables={})
            apply = bridge.ingest.apply

            def timed(messages: Any) -> Any:
                t0 = time.thread_time()
                try:
                    return apply(messages)
                finally:
                    if store_process is None:
                        run.store_cpu_s += time.thread_time() - t0
                    run.batches += 1

            bridge.ingest.apply = timed  # type: ignore[method-assign]

            async def watch_feed() -> None:
                while True:
                    async with bridge.feed.subscribe() as queue:
                        while (item := await queue.get())["type"] != "dropped":
                            if item["type"] == "event" and "ts" in item:
                                now = time.time()
                                run.latencies_ms.append((now - item["ts"]) * 1000)
                                run.arrivals.append(now)
                        run.dropped += 1

            async def watch_loop() -> None:  # how late the bridge's event loop wakes up
                while True:
                    t0 = time.perf_counter()
                    await asyncio.sleep(0.01)
                    run.loop_lag_ms.append((time.perf_counter() - t0 - 0.01) * 1000)

            async with MqttLink(bridge) as link:
                await asyncio.wait_for(link.connected.wait(), 10)
                cpu0 = time.process_time()
                child_cpu0 = store_process.cpu_s() if store_process is not None else 0.0
                watchers = [asyncio.create_task(watch_feed()), asyncio.create_task(watch_loop())]
                probe = await asyncio.create_subprocess_exec(
                    sys.executable, __file__, "--probe", "--port", str(broker.port),
                    stdout=subprocess.PIPE, stdin=subprocess.PIPE)
                assert probe.stdout is not None and probe.stdin is not None
                await probe.stdout.readline()  # subscribed
                child = await asyncio.create_subprocess_exec(
                    sys.executable, __file__, "--child", "--port", str(broker.port),
                    "--tables", str(args.tables), "--hands", str(args.hands),
                    "--rate", str(rate), "--clients", str(args.clients),
                    stdout=subprocess.PIPE)
                stdout, _ = await child.communicate()
                await asyncio.sleep(0.2)  # the last feed items
                probed, _ = await probe.communicate(b"stop\n")
                run.probe = json.loads(probed)
                for w in watchers:
                    w.cancel()
                run.cpu_s = time.process_time() - cpu0
                if store_process is not None:  # its CPU is the bridge's too
                    run.store_cpu_s = store_process.cpu_s() - child_cpu0
                    run.cpu_s += run.store_cpu_s
                run.tables = json.loads(stdout)
                run.rss_kib = _rss_kib()
                if store_process is not None:  # the store's child process is the bridge's
                    child_rss = _rss_kib(str(store_process.pid))
                    run.rss_kib = (run.rss_kib[0] + child_rss[0], run.rss_kib[1] + child_rss[1])
            board_ticks.cancel()
            await app.state.director_room.close()
            await app.state.cash_room.close()
            with session_factory(engine)() as session:
                run.stored = session.scalar(select(func.count()).select_from(EventRecord)) or 0
            engine.dispose()
            if store_process is not None:
                store_process.close()
        finally:
            broker.stop()
    return run


def _report(name: str, run: Run) -> float:
    t = run.tables
    span = t.get("all_acked", float("nan")) - t["first_publish"]
    rate = t["events"] / span
    print(f"[{name}] {t['events']} events ({t['messages']} messages) from {t['tables']} tables: "
          f"published in {t['last_publish'] - t['first_publish']:.2f} s, all stored "
          f"and acked after {span:.2f} s -> {rate:,.0f} events/s; stored {run.stored}")
    print(f"[{name}] bridge CPU (loop + ingest thread): {run.cpu_s:.2f} s = "
          f"{run.cpu_s / t['events'] * 1e6:.0f} us/event -> {t['events'] / run.cpu_s:,.0f} "
          f"events per CPU-second; of it storing: {run.store_cpu_s:.2f} s in {run.batches} "
          f"batches ({run.store_cpu_s / t['events'] * 1e6:.0f} us/event)")
    if "acked_tables" in t:
        print(f"[{name}] TIMEOUT: only {t['acked_tables']} tables fully acked")
    print(f"[{name}] publish -> live feed: p50 {_pct(run.latencies_ms, 0.5):.1f} ms, "
          f"p99 {_pct(run.latencies_ms, 0.99):.1f} ms, max {max(run.latencies_ms or [0]):.1f} "
          f"ms over {len(run.latencies_ms)} items; feed drops {run.dropped}; bridge loop lag "
          f"p99 {_pct(run.loop_lag_ms, 0.99):.1f} ms, max {max(run.loop_lag_ms or [0]):.1f} ms")
    if run.probe:
        print(f"[{name}] the same events at a bare subscriber in its own process (publishers "
              f"and broker alone): p50 {run.probe['p50']:.1f} ms, p99 {run.probe['p99']:.1f} "
              f"ms over {run.probe['n']:.0f}")
    seconds: dict[int, list[float]] = {}
    for at, ms in zip(run.arrivals, run.latencies_ms, strict=True):
        seconds.setdefault(int(at - t["first_publish"]), []).append(ms)
    slow = sorted((max(v), k) for k, v in seconds.items())[-3:][::-1]
    print(f"[{name}] slowest seconds of the run (second: max ms): "
          + ", ".join(f"+{k}s: {v:.0f}" for v, k in slow))
    return rate


def _verdict(ok: bool) -> str:
    return "MET" if ok else "MISSED"


async def _bench(args: argparse.Namespace) -> int:
    print(f"{args.tables} tables, {args.hands} hands each, {args.clients} publishing clients, "
          "real Mosquitto on loopback, SQLite (WAL) in a temp dir; the bridge with its "
          "observers (director, cash room, alert board)")
    blast = await _run(args, 0.0)
    rate = _report("throughput, unpaced", blast)
    runs = [blast]
    p99s: dict[float, float] = {}
    rates = sorted({*RATES, args.rate}) if args.rate not in RATES else RATES
    for offered in rates:
        paced = await _run(args, offered)
        _report(f"latency, paced at {offered:,.0f} events/s", paced)
        p99s[offered] = _pct(paced.latencies_ms, 0.99)
        runs.append(paced)
    rss, peak = runs[-1].rss_kib
    print(f"bridge RSS with {args.tables} tables: {rss / 1024:.1f} MiB (peak "
          f"{peak / 1024:.1f} MiB)")
    # CPU per event: the worst run's (a paced run stores smaller batches)
    cpu_us = max(r.cpu_s / r.tables["events"] * 1e6 for r in runs)
    load = Path("/proc/loadavg").read_text().split()[:3]
    print(f"machine load average (1, 5, 15 min): {' '.join(load)} on "
          f"{len(os.sched_getaffinity(0))} CPUs (shared: compare CPU per event)")
    verdicts = [rate >= BUDGET_EVENTS_S, cpu_us <= BUDGET_CPU_US]
    print(f"budget events/s >= {BUDGET_EVENTS_S:,.0f}: {_verdict(verdicts[0])} ({rate:,.0f})")
    print(f"budget bridge CPU per event <= {BUDGET_CPU_US:.0f} us (worst run): "
          f"{_verdict(verdicts[1])} ({cpu_us:.0f} us; by run: " + ", ".join(
              f"{name} {r.cpu_s / r.tables['events'] * 1e6:.0f}"
              for name, r in zip(["unpaced", *(f"{o:,.0f}/s" for o in rates)], runs,
                                 strict=True)) + ")")
    for offered, p99 in p99s.items():
        verdicts.append(p99 < BUDGET_P99_MS)
        print(f"budget feed p99 < {BUDGET_P99_MS:.0f} ms at {offered:,.0f} events/s offered: "
              f"{_verdict(verdicts[-1])} ({p99:.1f} ms)")
    return 0 if all(verdicts) else 1


def main(argv: Sequence[str] | None = None, prog: str | None = None) -> int:
    """Run the benchmark (or, with ``--child``, be the tables); 1 if a budget is missed."""
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--hands", type=int, default=5)
    parser.add_argument("--rate", type=float, default=1000.0,
                        help="events/s offered by all tables together in a latency run "
                        "(besides 1,000 and 5,000)")
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--store-process", action="store_true",
                        help="store in a child process (host_bridge.store_process)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--probe", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.probe:
        print(json.dumps(asyncio.run(_probe(args.port))))
        return 0
    if args.child:
        out = asyncio.run(_tables(args.port, args.tables, args.hands, args.rate, args.clients))
        print(json.dumps(out))
        return 0
    if MOSQUITTO is None:
        print("mosquitto is not installed (Debian: apt-get install -y mosquitto)")
        return 2
    return asyncio.run(_bench(args))


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
