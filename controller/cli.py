"""The ``pitboss`` command: one entry point, a subcommand per job.

Each subcommand lives in its own module with a ``main(argv) -> int``; this file only
dispatches, so ``pitboss --help`` stays quick and importing one job never loads another.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

# subcommand -> (module, help). Nested groups ("bench engine") resolve one level deeper.
COMMANDS: dict[str, tuple[str, str]] = {
    "demo": ("host_bridge.demo.cli", "a whole floor on this machine: broker, bridge and "
             "dashboard, one process per table, a small tournament ('pitboss demo --help')"),
    "replay": ("controller.replay_command", "replay PHH hand histories through the engine"),
    "table": ("controller.app", "the table controller: 'pitboss table run --profile virtual "
              "--table T1 --broker localhost:1883 --db PATH'"),
    "bridge": ("host_bridge.cli", "the floor's host bridge: 'pitboss bridge run [--config F]'"),
    "firmware deploy": ("controller.firmware_deploy", "install the seat-node firmware on a "
                        "board with mpremote"),
    "hardware wiring": ("controller.devices.wiring", "write or check the wiring tables in "
                        "hardware/README.md"),
    "bench engine": ("tests.benchmarks.bench_engine", "hands/s against PokerKit, 7-card "
                     "evaluations/s against treys, phevaluator, eval7"),
    "bench clock": ("tests.benchmarks.bench_clock", "shot-clock expiry error on a busy loop, "
                    "level-clock drift"),
    "bench table": ("tests.benchmarks.bench_table", "virtual hands/s, card placed -> display "
                    "updated, memory over 10,000 hands"),
    "bench sync": ("tests.benchmarks.bench_sync", "events/s and latency through the journal "
                   "and outbox to a real Mosquitto; catch-up after an outage"),
    "bench bridge": ("tests.benchmarks.bench_bridge", "one bridge ingesting 200 tables "
                     "through a real Mosquitto; feed latency; memory"),
    "bench link": ("tests.benchmarks.bench_link", "seat-node link frames decoded per second"),
    "bench devices": ("tests.benchmarks.bench_devices", "card placed -> CardArrived latency, "
                      "device layer memory"),
    "bench start": ("tests.benchmarks.bench_start", "controller cold start to ready, new "
                    "journal and restart"),
}

CHECKOUT = Path(__file__).resolve().parents[1]


def _usage() -> str:
    width = max(len(name) for name in COMMANDS)
    lines = ["usage: pitboss COMMAND [ARGS...]", "", "commands:"]
    lines += [f"  {name:<{width}}  {text}" for name, (_, text) in COMMANDS.items()]
    lines += ["", "Run 'pitboss COMMAND --help' for a command's options."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help", "help"):
        print(_usage())
        return 0
    name = args[0]
    rest = args[1:]
    if name not in COMMANDS and rest and f"{name} {rest[0]}" in COMMANDS:
        name, rest = f"{name} {rest[0]}", rest[1:]
    if name not in COMMANDS:
        group = [c for c in COMMANDS if c.startswith(name + " ")]
        hint = f"; try one of: {', '.join(group)}" if group else ""
        print(f"pitboss: unknown command {' '.join(args[:2])!r}{hint}\n\n{_usage()}",
              file=sys.stderr)
        return 2
    module_name = COMMANDS[name][0]
    if module_name.startswith("tests."):
        # Benchmarks compare against test-only peers (PokerKit, treys...) and live with the
        # tests in a source checkout, not in the installed package.
        if not (CHECKOUT / "tests" / "benchmarks").is_dir():
            print("pitboss: benchmarks run from a source checkout (tests/benchmarks); clone "
                  "the repository and install it with its test extras", file=sys.stderr)
            return 2
        sys.path.insert(0, str(CHECKOUT))
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        print(f"pitboss {name}: a package it needs is missing ({exc.name}); install the "
              "test extras: pip install -e '.[test]'", file=sys.stderr)
        return 2
    return int(module.main(rest) or 0)


if __name__ == "__main__":
    raise SystemExit(main())
