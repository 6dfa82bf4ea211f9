"""``pitboss demo``: parse the options, run the floor, stop it on Ctrl-C or SIGTERM."""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

from host_bridge.demo.broker import BrokerUnavailable
from host_bridge.demo.floor import DemoRun
from host_bridge.demo.options import DemoError, DemoOptions


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="pitboss demo",
        description="A whole floor on this machine: a broker, the host bridge and its "
        "dashboard, one table controller per table, and a small tournament with fast "
        "clocks, run by the bridge's director (its page and the players' clock screen show "
        "it live). At the winner the demo prints the podium (places and prizes) and the "
        "pages' addresses and stays up, still serving them, until Ctrl-C (--until-winner: "
        "it stops there instead). Ctrl-C stops everything.")
    p.add_argument("--tables", type=int, default=4, help="virtual tables (default 4)")
    p.add_argument("--players", type=int, default=24, help="players (default 24)")
    p.add_argument("--speed", type=float, default=20.0,
                   help="how much faster than real time the clocks run (default 20)")
    p.add_argument("--broker", metavar="HOST:PORT", default=None,
                   help="use this MQTT broker (default: one on localhost:1883 if it "
                   "listens, else an embedded amqtt broker; 'embedded': always that one)")
    p.add_argument("--host", default="127.0.0.1",
                   help="the dashboard's listen address (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000,
                   help="the dashboard's port (default 8000; 0: any free port)")
    p.add_argument("--data", type=Path, default=None, metavar="DIR",
                   help="keep the floor's databases and logs in DIR (default: a temporary "
                   "folder, removed at the end)")
    p.add_argument("--headless", action="store_true",
                   help="plain progress lines instead of the live screen")
    p.add_argument("--mode", choices=("auto", "tournament", "cash"), default="auto",
                   help="what the tables play (default: a tournament)")
    p.add_argument("--seed", default="demo", help="seeds the bots and the seat draw")
    p.add_argument("--until-winner", action="store_true",
                   help="stop once the tournament has a winner, after printing the podium "
                   "(default: print the podium and keep the dashboard, the director page "
                   "and the clock screen up with the finished tournament until Ctrl-C)")
    p.add_argument("--minutes", type=float, default=None, metavar="M",
                   help="stop after M minutes (with --until-winner: whichever comes first)")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run the demo; 0 after a clean stop, 1 if the floor failed, 2 on bad options."""
    args = _parser().parse_args(argv)
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr,  # until the run's log
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    options = DemoOptions(tables=args.tables, players=args.players, speed=args.speed,
                          broker=args.broker, host=args.host, port=args.port, data=args.data,
                          headless=args.headless, until_winner=args.until_winner,
                          minutes=args.minutes, seed=args.seed, mode=args.mode)
    try:
        run = DemoRun(options)
    except DemoError as exc:
        print(f"pitboss demo: {exc}", file=sys.stderr)
        return 2
    try:
        return asyncio.run(_main(run))
    except (DemoError, BrokerUnavailable) as exc:
        print(f"pitboss demo: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # a second Ctrl-C while stopping: the children are gone too
        return 130


async def _main(run: DemoRun) -> int:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        return await run.run(stop)
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(sig)


if __name__ == "__main__":
    raise SystemExit(main())
