"""The ``pitboss`` command: one argparse tree, a module per job.

``pitboss COMMAND ...`` and ``pitboss GROUP COMMAND ...`` are argparse subparsers. A leaf
is a placeholder that forwards the rest of the line to its module's ``main(argv)``, which
owns the leaf's options, its ``--help`` and its ``prog`` (``pitboss bench engine``). So
``pitboss --help`` lists every job without importing any, and running one job imports
that job alone.

Errors are one line on stderr that says what to do, never a usage dump or a traceback:
``pitboss: error: unknown command 'foo' (choose from ...)`` and every other usage error
exit 2; a known runtime error (a device or profile error, a missing or unreadable file, a
missing optional package, which names the extra to install) exits 1 as
``pitboss COMMAND: message``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

CHECKOUT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Job:
    """A leaf command: the module whose ``main(argv)`` runs it."""

    module: str
    help: str
    # the benchmarks take their prog from here: main(argv, prog="pitboss bench engine")
    passes_prog: bool = False


@dataclass(frozen=True)
class Group:
    """A command made of subcommands (``pitboss bench engine``)."""

    help: str
    jobs: dict[str, Job]


def _bench(name: str, help_text: str) -> Job:
    return Job(f"tests.benchmarks.bench_{name}", help_text, passes_prog=True)


COMMANDS: dict[str, Job | Group] = {
    "demo": Job("host_bridge.demo.cli", "a whole floor on this machine: broker, bridge and "
                "dashboard, one process per table, a small tournament"),
    "replay": Job("controller.replay_command", "replay PHH hand histories through the engine"),
    "table": Job("controller.table_runner", "the table controller: 'pitboss table run --profile "
                 "virtual --table T1 --broker localhost:1883 --db PATH'"),
    "bridge": Job("host_bridge.cli", "the floor's host bridge: 'pitboss bridge run "
                  "[--config FILE]'"),
    "firmware": Group("the seat nodes' firmware", {
        "deploy": Job("controller.firmware_deploy", "install the seat-node firmware on a "
                      "board with mpremote"),
    }),
    "hardware": Group("the physical table as data", {
        "wiring": Job("controller.devices.wiring", "write or check the wiring tables in "
                      "hardware/README.md"),
        "keycaps": Job("controller.terminal.keymap", "write or check the dealer keypad's "
                       "keycap legend in hardware/README.md"),
        "check": Job("controller.hardware_check", "commission a table: each reader's read "
                     "rate, each key, light and display, the seat nodes' firmware; a report"),
        "simulate": Job("tests.firmware.simnodes", "a profile's seat nodes simulated: the "
                        "real firmware on MicroPython, on pseudo-terminals (from a source "
                        "checkout)", passes_prog=True),
    }),
    "bench": Group("the benchmarks (from a source checkout with the test extra)", {
        "engine": _bench("engine", "hands/s against PokerKit, 7-card evaluations/s against "
                         "treys, phevaluator, eval7"),
        "clock": _bench("clock", "shot-clock expiry error on a busy loop, level-clock drift"),
        "table": _bench("table", "virtual hands/s, card placed -> display updated, memory "
                        "over 10,000 hands"),
        "sync": _bench("sync", "events/s and latency through the journal and outbox to a "
                       "real Mosquitto; catch-up after an outage"),
        "bridge": _bench("bridge", "one bridge ingesting 200 tables through a real "
                         "Mosquitto; feed latency; memory"),
        "floor": Job("tests.benchmarks.bench_floor_page", "the floor page with 200 live "
                     "tables in Chromium: first paint, an update on screen", passes_prog=True),
        "catchup": _bench("catchup", "a 20,000-event backlog after a bridge or broker outage "
                          "caught up through the bridge on a real Mosquitto; resend requests "
                          "and duplicates"),
        "link": _bench("link", "seat-node link frames decoded per second"),
        "devices": _bench("devices", "card placed -> CardArrived latency, device layer "
                          "memory"),
        "start": _bench("start", "controller cold start to ready, new journal and restart"),
        "seatsim": _bench("seatsim", "card placed at a simulated seat node (the real firmware "
                          "on MicroPython) -> table display updated, beside the node's cycle"),
        "equity": _bench("equity", "exact all-in equities, preflop to river, 2-10 players"),
        "phh": _bench("phh", "PHH files read and replayed per second on the shared corpus "
                      "against PokerKit's HandHistory load + replay"),
        "terminal": _bench("terminal", "dealer key or tablet tap -> intent applied -> dealer "
                           "display and tablet updated, beside bare uvicorn and fsync"),
    }),
}

# The extras of pyproject.toml, by the top-level module a missing package would have
# provided (tests/test_cli.py holds this against pyproject.toml). The first extra that
# provides a module is the one named.
EXTRA_MODULES: dict[str, frozenset[str]] = {
    "table": frozenset({"gpiozero", "luma", "PIL", "serial", "serial_asyncio_fast", "spidev",
                        "smbus2", "mpremote", "evdev", "aiomqtt", "paho", "uvicorn"}),
    "bridge": frozenset({"fastapi", "starlette", "anyio", "uvicorn", "sqlalchemy", "alembic",
                         "pydantic_settings", "websockets", "aiomqtt", "paho", "numpy"}),
    "demo": frozenset({"amqtt"}),
    "postgres": frozenset({"psycopg"}),
    "test": frozenset({"pytest", "hypothesis", "pokerkit", "treys", "phevaluator", "eval7",
                       "httpx2", "schemathesis", "playwright"}),
}
# the extra each command needs, named first when a module it misses is in that extra
COMMAND_EXTRA = {"table": "table", "bridge": "bridge", "demo": "demo",
                 "firmware deploy": "table", "hardware check": "table", "bench": "test"}
INCLUDES = {"demo": ("table", "bridge", "demo"), "test": tuple(EXTRA_MODULES)}


class UsageError(Exception):
    """A command line that names no job: exit 2 with one line."""


class CommandParser(argparse.ArgumentParser):
    """A group's parser: an unknown command is named with the choices, on one line."""

    commands: argparse._SubParsersAction[CommandParser] | None = None

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        if action is self.commands and action.choices is not None and value not in action.choices:
            raise argparse.ArgumentError(
                None, f"unknown command {value!r} (choose from {', '.join(action.choices)})")
        super()._check_value(action, value)

    def add_commands(self, entries: dict[str, Job] | dict[str, Job | Group]) -> None:
        # the dest is this parser's prog: a group's command does not overwrite its parent's
        self.commands = self.add_subparsers(dest=self.prog, metavar="COMMAND",
                                            title="commands")
        for name, entry in entries.items():
            if isinstance(entry, Group):
                group = self.commands.add_parser(name, help=entry.help, description=entry.help,
                                                 allow_abbrev=False)
                group.add_commands(entry.jobs)
            else:
                # A placeholder: everything after the name goes to the job's main(argv),
                # which parses it ('--help' included). Its prefix_chars is no dash, so
                # argparse takes '--profile', '-h'... as plain words for the job.
                leaf = self.commands.add_parser(name, help=entry.help, add_help=False,
                                                prefix_chars="\0")
                leaf.add_argument("argv", nargs=argparse.REMAINDER)


def _one_line_error(parser: argparse.ArgumentParser, message: str) -> NoReturn:
    hint = "" if "choose from" in message else f" (see '{parser.prog} --help')"
    parser.exit(2, f"{parser.prog}: error: {message}{hint}\n")


@contextmanager
def one_line_usage_errors() -> Iterator[None]:
    """Every parser in this process, a job's own included, reports a usage error as one
    line (its usage stays in its ``--help``)."""
    original = argparse.ArgumentParser.error
    argparse.ArgumentParser.error = _one_line_error  # type: ignore[assignment]
    try:
        yield
    finally:
        argparse.ArgumentParser.error = original  # type: ignore[method-assign]


class _Version(argparse.Action):
    """``--version``: the installed distribution's version (read only when asked)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS,
                         help="print the installed version and exit")

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            print(f"pitboss {version('pitboss')}")
        except PackageNotFoundError:
            print(f"pitboss (not installed; running from {CHECKOUT})")
        parser.exit(0)


def build_parser() -> CommandParser:
    """The whole tree; no job module is imported."""
    parser = CommandParser(
        prog="pitboss", allow_abbrev=False,
        description="The software of a smart poker table and of the tournament floor it "
        "reports to.",
        epilog="Run 'pitboss COMMAND --help' for a command's options.")
    parser.add_argument("--version", action=_Version)
    parser.add_commands(COMMANDS)
    return parser


def _resolve(parser: CommandParser, argv: Sequence[str]) -> tuple[str, Job, list[str]]:
    """(the job's name, the job, the arguments for its main) or a usage error."""
    args = parser.parse_args(argv)
    path: list[str] = []
    entries: dict[str, Job | Group] | dict[str, Job] = COMMANDS
    current = parser
    while True:
        name = getattr(args, current.prog, None)
        if name is None:
            raise UsageError(f"{current.prog}: error: choose a command: {', '.join(entries)} "
                             f"(see '{current.prog} --help')")
        path.append(name)
        entry = entries[name]
        if isinstance(entry, Job):
            return " ".join(path), entry, list(args.argv)
        assert current.commands is not None
        entries, current = entry.jobs, current.commands.choices[name]


def missing_extra(command: str, module: str) -> str | None:
    """The extra that provides ``module`` (a dotted name), the command's own first."""
    top = module.partition(".")[0]
    own = COMMAND_EXTRA.get(command, COMMAND_EXTRA.get(command.partition(" ")[0]))
    order = ([own] if own else []) + [e for e in EXTRA_MODULES if e != own]
    for extra in order:
        if any(top in EXTRA_MODULES[part] for part in INCLUDES.get(extra, (extra,))):
            return extra
    return None


def _install_hint(extra: str) -> str:
    if extra == "test" or (CHECKOUT / "pyproject.toml").is_file():
        # a source checkout (the Pi and the bridge are deployed from one): install from it
        return f"pip install -e '{CHECKOUT}[{extra}]'"
    return f"pip install 'pitboss[{extra}]'"


def _one_line(text: object) -> str:
    return " ".join(str(text).split())


def _run(name: str, job: Job, argv: list[str]) -> int:
    import importlib

    if job.module.startswith("tests."):
        # Benchmarks compare against test-only peers (PokerKit, treys...) and the seat-node
        # simulator runs the firmware under the tests' MicroPython: both live with the
        # tests in a source checkout, not in the installed package.
        if not (CHECKOUT / "tests" / "benchmarks").is_dir():
            raise UsageError(f"pitboss {name}: this runs from a source checkout (tests/): "
                             "clone the repository and install it with its test extra")
        sys.path.insert(0, str(CHECKOUT))
    prog = f"pitboss {name}"
    module = importlib.import_module(job.module)
    if job.passes_prog:
        return int(module.main(argv, prog=prog) or 0)
    return int(module.main(argv) or 0)


def _known_error(name: str, exc: BaseException) -> str | None:
    """The one line for an error the user can act on; None for a bug."""
    from controller.devices.errors import DeviceError, ProfileError
    from controller.terminal.tablet import TabletError

    if isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        return _known_error(name, exc.exceptions[0])  # one task of a TaskGroup failed
    if isinstance(exc, DeviceError | ProfileError | TabletError):
        return _one_line(exc)
    if isinstance(exc, ModuleNotFoundError) and exc.name:
        extra = missing_extra(name, exc.name)
        if extra is None:
            return None
        package = exc.name.partition(".")[0]
        return (f"this needs the {extra} extra ({package} is not installed): "
                f"{_install_hint(extra)}")
    if isinstance(exc, FileNotFoundError | PermissionError | IsADirectoryError
                  | NotADirectoryError):
        if exc.filename is None:
            return _one_line(exc)
        return f"{exc.strerror or exc}: {exc.filename}"
    return None


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    if not args:
        parser.print_help()
        return 0
    with one_line_usage_errors():
        try:
            name, job, rest = _resolve(parser, args)
        except UsageError as exc:
            print(exc, file=sys.stderr)
            return 2
        try:
            return _run(name, job, rest)
        except UsageError as exc:
            print(exc, file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            return 130
        except BrokenPipeError:  # `pitboss ... | head`: the reader left, nothing to say
            import os

            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 1
        except Exception as exc:
            line = _known_error(name, exc)
            if line is None:
                raise
            print(f"pitboss {name}: {line}", file=sys.stderr)
            return 1


if __name__ == "__main__":
    raise SystemExit(main())
