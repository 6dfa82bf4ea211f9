"""A table's backlog after a bridge outage, caught up through the bridge on a real Mosquitto
(budget: 20,000 events stored and acked <= 10 s after the bridge reconnects).

Run: .venv/bin/python tests/benchmarks/bench_catchup.py [--events 20000] [--live 10]

Starts a private Mosquitto on a free loopback port and, in this process, a bridge
(:class:`~host_bridge.bridge.Bridge` + :class:`~host_bridge.mqtt.MqttLink`, SQLite in a
temporary directory). The table (journal, outbox, link: the controller's sync stack) runs
in a child process, as on its own Pi:
1. the table connects and the bridge acknowledges its first events;
2. the bridge stops (an outage of the floor server); the table journals ``--events`` events
   meanwhile and publishes them to the broker, where nobody takes them (the bridge's
   session is clean), then keeps playing at ``--live`` events/s;
3. a new bridge on the same store connects: the table hears ``host/status`` online and
   sends everything unacknowledged again, while its live events go on; the bridge sees the
   live events above its gap and asks for a resend.
Printed: the time from the bridge's reconnect (its session opening) to the backlog stored
in the bridge's store and acknowledged to the table, against the 10 s budget; the resend
requests the bridge published (counted by a subscriber on the broker); the duplicate
deliveries the bridge received and ignored; the table's messages per backlog event.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import aiomqtt

from controller.events import LevelSet
from controller.sync.messages import parse_host_ack
from controller.sync.topics import Topics
from host_bridge.bridge import Bridge
from host_bridge.db import make_engine, migrate, session_factory
from host_bridge.models import PokerTable
from host_bridge.mqtt import MqttLink
from host_bridge.settings import BridgeSettings
from tests.sync.conftest import MOSQUITTO, Mosquitto
from tests.sync.harness import running_table

SITE = "test"  # the harness's table speaks for site "test"
TABLE = "t1"
BUDGET_S = 10.0
GUARD_S = 180.0  # a stuck run ends here instead of hanging (not a budget)


# ---------------------------------------------------------------------------- the table
async def _table(port: int, db: Path, events: int, live: float) -> None:
    """The child: a table whose host goes away while it journals ``events`` events."""
    level = iter(range(2, 10**9))

    def change(n: int) -> list[LevelSet]:
        return [LevelSet(level=next(level)) for _ in range(n)]

    def say(what: str, **data: Any) -> None:
        print(json.dumps({"what": what, **data}), flush=True)

    async def command() -> str:
        line: str = await asyncio.to_thread(sys.stdin.readline)
        return line.strip()

    async with running_table(db, port, table=TABLE) as stack:
        outbox = stack.outbox
        await outbox.record(change(20))
        while outbox.acked < outbox.last_seq:  # the bridge holds the first events
            await asyncio.sleep(0.01)
        say("ready", seq=outbox.last_seq)
        assert await command() == "outage"
        for _ in range(events // 20):  # a hand's end is one batch of about 20 events
            await outbox.record(change(20))
        target = outbox.last_seq
        playing = True

        async def keep_playing() -> None:
            while playing:
                await asyncio.sleep(1 / live)
                await outbox.record(change(1))

        player = asyncio.create_task(keep_playing(), name="live-table") if live > 0 else None
        await asyncio.sleep(1.0)  # the backlog went out to nobody
        say("backlog", target=target, unacked=outbox.size)
        cpu0 = time.process_time()
        while outbox.acked < target:
            await asyncio.sleep(0.002)
        say("acked", at=time.time(), cpu=time.process_time() - cpu0)
        assert await command() == "stop"
        playing = False
        if player is not None:
            await player


# ---------------------------------------------------------------------------- the bridge
async def _count_resends(port: int, counts: dict[str, int]) -> None:
    """Count the bridge's resend requests on the broker (again after a broker restart)."""
    while True:
        try:
            async with aiomqtt.Client("127.0.0.1", port, identifier="bench-resends") as sub:
                topics = Topics(SITE, TABLE)
                await sub.subscribe(topics.ack, qos=1)
                if counts["events"] < counts["want"]:
                    await sub.subscribe(topics.event, qos=0)
                counts["subscribed"] = 1
                async for message in sub.messages:
                    assert isinstance(message.payload, bytes)
                    if message.topic.value == topics.event:
                        counts["events"] += 1
                        if counts["events"] == counts["want"]:  # seen enough: stop counting
                            await sub.unsubscribe(topics.event)
                    elif parse_host_ack(message.payload).kind == "resend":
                        counts["resends"] += 1
        except aiomqtt.MqttError:
            counts.pop("subscribed", None)
            await asyncio.sleep(0.05)


async def _bench(args: argparse.Namespace, outage: str) -> dict[str, Any]:
    assert MOSQUITTO is not None
    with tempfile.TemporaryDirectory(prefix="bench-catchup-") as tmp:
        broker = Mosquitto(Path(tmp) / "broker")
        broker.start()
        try:
            settings = BridgeSettings.model_validate({
                "database_url": f"sqlite:///{tmp}/bridge.db", "site": SITE,
                "mqtt_port": broker.port, "bridge_id": "bench-bridge"})
            engine = make_engine(settings.database_url)
            migrate(engine)
            # the table's events are counted (broker outage) until the bridge is let back in
            want = args.events // 10 if outage == "broker" else 0
            counts = {"resends": 0, "events": 0, "want": want}
            counter = asyncio.create_task(_count_resends(broker.port, counts))
            while "subscribed" not in counts:
                await asyncio.sleep(0.01)
            child = await asyncio.create_subprocess_exec(
                sys.executable, __file__, "--table", "--port", str(broker.port),
                "--db", f"{tmp}/table.db", "--events", str(args.events),
                "--live", str(args.live), stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE)
            assert child.stdin is not None and child.stdout is not None

            async def hear(what: str) -> dict[str, Any]:
                assert child.stdout is not None
                line = await asyncio.wait_for(child.stdout.readline(), GUARD_S)
                said: dict[str, Any] = json.loads(line)
                assert said["what"] == what, said
                return said

            bridge = Bridge(settings, session_factory(engine))
            link = MqttLink(bridge)
            await link.__aenter__()
            try:
                await asyncio.wait_for(link.connected.wait(), 10)
                await hear("ready")
                await link.__aexit__(None, None, None)
                if outage == "broker":
                    await asyncio.to_thread(broker.stop)
                child.stdin.write(b"outage\n")  # the host side is gone: the table plays on
                backlog = await hear("backlog")
                if outage == "broker":
                    # the table's backoff is the shorter one: it is back first and sends its
                    # backlog to nobody; the bridge returns while that stream is under way
                    await asyncio.to_thread(broker.start)
                    async with asyncio.timeout(GUARD_S):
                        while counts["events"] < want:
                            await asyncio.sleep(0.002)
                counts["resends"] = 0
                bridge = Bridge(settings, session_factory(engine))  # on the same store
                link = MqttLink(bridge)
                t0, cpu0 = time.time(), time.process_time()
                await link.__aenter__()
                dup0 = bridge.ingest.duplicates
                acked = await hear("acked")
                while True:  # stored in the bridge's store (the table's ack says so too)
                    with session_factory(engine)() as session:
                        row = session.get(PokerTable, TABLE)
                        if row is not None and row.acked_seq >= backlog["target"]:
                            break
                    await asyncio.sleep(0.01)
                stored_at, cpu = time.time(), time.process_time() - cpu0
                child.stdin.write(b"stop\n")
                await child.wait()
            finally:
                await link.__aexit__(None, None, None)
                counter.cancel()
                await asyncio.gather(counter, return_exceptions=True)
            engine.dispose()
            return {"outage": outage, "events": backlog["unacked"],
                    "target": backlog["target"], "caught_up_s": max(acked["at"], stored_at) - t0,
                    "resends": counts["resends"], "bridge_cpu_s": cpu,
                    "table_cpu_s": acked["cpu"], "load": os.getloadavg()[0],
                    "duplicates": bridge.ingest.duplicates - dup0}
        finally:
            broker.stop()


def report(figures: dict[str, Any]) -> bool:
    """Print the figures; True if the budget is met."""
    ok = bool(figures["caught_up_s"] <= BUDGET_S)
    print(f"{figures['outage']} outage, backlog of {figures['events']} events (up to seq "
          f"{figures['target']}), the table playing on: stored and acked "
          f"{figures['caught_up_s']:.2f} s after the bridge reconnected (budget <= "
          f"{BUDGET_S:.0f} s: {'MET' if ok else 'MISSED'})")
    print(f"  resend requests published by the bridge: {figures['resends']}; duplicate "
          f"deliveries the bridge received and ignored: {figures['duplicates']} "
          f"({figures['duplicates'] / max(1, figures['events']):.2f} per backlog event)")
    print(f"  CPU meanwhile: bridge process {figures['bridge_cpu_s']:.2f} s, table process "
          f"{figures['table_cpu_s']:.2f} s (this machine's load average: "
          f"{figures['load']:.1f} on {os.cpu_count()} cores)")
    return ok


def main(argv: Sequence[str] | None = None, prog: str | None = None) -> int:
    """Run the benchmark (or, with ``--table``, be the table); 1 if the budget is missed."""
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.splitlines()[0]
                                     if __doc__ else None)
    parser.add_argument("--events", type=int, default=20_000,
                        help="events the table journals while the bridge is away")
    parser.add_argument("--live", type=float, default=10.0,
                        help="events/s the table keeps journaling meanwhile and after")
    parser.add_argument("--outage", nargs="+", choices=("bridge", "broker"),
                        default=["bridge", "broker"], help="what goes away (each a run)")
    parser.add_argument("--table", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--db", default="", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.table:
        asyncio.run(_table(args.port, Path(args.db), args.events, args.live))
        return 0
    if MOSQUITTO is None:
        print("bench_catchup: mosquitto is not installed (apt-get install -y mosquitto)")
        return 2
    print(f"one table, a {args.events}-event backlog after a bridge outage, live events at "
          f"{args.live:g}/s; real Mosquitto on loopback, the bridge's SQLite in a temp dir")
    met = [report(asyncio.run(_bench(args, outage))) for outage in args.outage]
    return 0 if all(met) else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
