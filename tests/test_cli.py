"""The ``pitboss`` command as a technician meets it, run in a subprocess: every group and
command answers ``--help`` under its own name, ``--version``, and every mistake is one
line on stderr (exit 2 for the command line, 1 for a runtime error), never a traceback."""

from __future__ import annotations

import importlib.metadata
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from controller.cli import COMMANDS, EXTRA_MODULES, Group, Job, missing_extra

ROOT = Path(__file__).resolve().parents[1]
TOP = "demo, replay, table, bridge, firmware, hardware, bench"


def pitboss(*args: str, cwd: Path = ROOT, timeout: float = 120
            ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "controller.cli", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=timeout)


def one_line(proc: subprocess.CompletedProcess[str]) -> str:
    """The single stderr line of a refused command (and nothing that looks like a dump)."""
    assert "Traceback" not in proc.stderr, proc.stderr
    assert "usage:" not in proc.stderr, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    return lines[0]


def _every_command() -> list[str]:
    names: list[str] = []
    for name, entry in COMMANDS.items():
        names.append(name)
        if isinstance(entry, Group):
            names += [f"{name} {job}" for job in entry.jobs]
    # the jobs' own subcommands
    return [*names, "table run", "bridge run"]


@pytest.mark.parametrize("command", _every_command())
def test_every_group_and_command_answers_help_under_its_own_name(command: str) -> None:
    proc = pitboss(*command.split(), "--help")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    assert proc.stdout.startswith(f"usage: pitboss {command} "), proc.stdout[:200]


def test_the_top_level_help_lists_every_command_with_its_help() -> None:
    proc = pitboss("--help")
    assert proc.returncode == 0 and proc.stdout.startswith("usage: pitboss ")
    for name, entry in COMMANDS.items():
        first_words = " ".join(entry.help.split()[:3])
        assert re.search(rf"^\s+{name}\s+{re.escape(first_words)}", proc.stdout, re.M), name


def test_a_group_lists_its_commands() -> None:
    proc = pitboss("bench", "--help")
    bench = COMMANDS["bench"]
    assert isinstance(bench, Group)
    for name in bench.jobs:
        assert re.search(rf"^\s+{name}\s+\S", proc.stdout, re.M), name


def _modules_loaded_by(*argv: str) -> set[str]:
    """The project's and the heavy vendors' modules loaded by ``pitboss ARGV``."""
    script = (
        "import sys\n"
        "from controller.cli import main\n"
        "try:\n"
        f"    main({list(argv)!r})\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(*sorted(sys.modules), sep='\\n', file=sys.stderr)\n")
    proc = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    return set(proc.stderr.split())


def test_the_top_level_help_imports_no_job() -> None:
    loaded = _modules_loaded_by("--help")
    jobs = {job.module for entry in COMMANDS.values()
            for job in (entry.jobs.values() if isinstance(entry, Group) else [entry])}
    assert not jobs & loaded
    assert not {m for m in loaded if m.startswith(("host_bridge", "controller.table",
                                                   "controller.sync", "pydantic", "rich"))}


def test_running_one_job_loads_no_other() -> None:
    loaded = _modules_loaded_by("replay", "--help")
    assert "controller.replay_command" in loaded
    others = ("host_bridge", "controller.app", "controller.table", "controller.devices",
              "controller.firmware_deploy", "sqlalchemy", "fastapi", "gpiozero")
    assert not {m for m in loaded if m.startswith(others)}


def test_version_is_the_installed_one() -> None:
    proc = pitboss("--version")
    assert proc.returncode == 0
    assert proc.stdout == f"pitboss {importlib.metadata.version('pitboss')}\n"


def test_an_unknown_command_is_one_line_with_the_choices() -> None:
    proc = pitboss("foo")
    assert proc.returncode == 2
    assert one_line(proc) == f"pitboss: error: unknown command 'foo' (choose from {TOP})"


def test_an_unknown_command_in_a_group_names_the_group_and_its_choices() -> None:
    proc = pitboss("bench", "nope")
    assert proc.returncode == 2
    line = one_line(proc)
    assert line.startswith("pitboss bench: error: unknown command 'nope' (choose from engine,")


def test_a_group_without_a_command_says_which_to_choose() -> None:
    proc = pitboss("firmware")
    assert proc.returncode == 2
    assert one_line(proc).startswith("pitboss firmware: error: choose a command: deploy")


@pytest.mark.parametrize(("argv", "prefix"), [
    (["--bogus"], "pitboss: error: unrecognized arguments: --bogus"),
    (["replay", "--bogus", "x.phh"], "pitboss replay: error: unrecognized arguments: --bogus"),
    (["firmware", "deploy", "auto", "--seat", "three"],
     "pitboss firmware deploy: error: argument --seat: invalid int value: 'three'"),
    (["table", "run", "--profile", "no-such-profile"],
     "pitboss table run: error: the following arguments are required: --table, --db"),
    (["bridge", "serve"], "pitboss bridge: error: argument command: invalid choice: 'serve'"),
])
def test_a_bad_argument_is_one_line_naming_the_command(argv: list[str], prefix: str) -> None:
    proc = pitboss(*argv)
    assert proc.returncode == 2
    line = one_line(proc)
    assert line.startswith(prefix), line


def test_an_unknown_profile_is_one_line_with_the_profiles_to_choose(tmp_path: Path) -> None:
    proc = pitboss("table", "run", "--profile", "no-such-profile", "--table", "T1",
                   "--db", str(tmp_path / "t1.db"), "--broker", "127.0.0.1:9")
    assert proc.returncode == 1
    line = one_line(proc)
    assert line.startswith("pitboss table: ") and "no-such-profile" in line, line
    assert "virtual" in line  # what to use instead


def test_a_missing_file_is_one_line_with_its_path(tmp_path: Path) -> None:
    readme = tmp_path / "no-such-dir" / "README.md"
    proc = pitboss("hardware", "wiring", "--readme", str(readme))
    assert proc.returncode == 1
    assert one_line(proc) == f"pitboss hardware wiring: No such file or directory: {readme}"


def test_a_missing_package_names_the_extra_to_install() -> None:
    # sqlalchemy made unimportable, as in a table-only install
    script = ("import sys\n"
              "sys.modules['sqlalchemy'] = None\n"
              "from controller.cli import main\n"
              "raise SystemExit(main(['bridge', 'run']))\n")
    proc = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 1
    line = one_line(proc)
    assert line.startswith("pitboss bridge: this needs the bridge extra (sqlalchemy is not "
                           "installed): pip install "), line
    assert line.endswith("[bridge]'")


def test_the_missing_module_maps_to_the_commands_own_extra_first() -> None:
    assert missing_extra("bridge", "aiomqtt") == "bridge"
    assert missing_extra("table", "aiomqtt") == "table"
    assert missing_extra("demo", "sqlalchemy.orm") == "demo"  # demo brings the bridge
    assert missing_extra("demo", "amqtt.broker") == "demo"
    assert missing_extra("bench engine", "pokerkit") == "test"
    assert missing_extra("replay", "psycopg") == "postgres"
    assert missing_extra("replay", "controller.no_such_module") is None  # a bug, not an extra


def _top_level_modules(distribution: str) -> set[str]:
    normal = re.sub(r"[-_.]+", "-", distribution).lower()
    found = {module for module, dists in importlib.metadata.packages_distributions().items()
             if normal in {re.sub(r"[-_.]+", "-", d).lower() for d in dists}}
    return found or {normal.replace("-", "_")}  # not installed here (a Linux-only package)


@pytest.mark.parametrize("extra", ["table", "bridge", "demo", "postgres"])
def test_every_package_of_an_extra_is_known_to_the_missing_extra_message(extra: str) -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    for requirement in project["optional-dependencies"][extra]:
        name = re.match(r"[A-Za-z0-9._-]+", requirement)
        assert name is not None
        if name.group() == "pitboss":
            continue  # pitboss[table,bridge]: those extras are checked themselves
        modules = _top_level_modules(name.group())
        assert modules & EXTRA_MODULES[extra], (extra, requirement, modules)


def test_the_table_extra_leaves_out_the_bridge_and_the_demo() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    table = " ".join(project["optional-dependencies"]["table"]).lower()
    for package in ("fastapi", "sqlalchemy", "alembic", "amqtt"):
        assert package not in table
        assert package not in " ".join(project["dependencies"]).lower()


def test_jobs_are_modules_with_a_main() -> None:
    # each entry of the tree is importable from the checkout; a renamed module would only
    # show when someone runs it
    jobs: list[Job] = []
    for entry in COMMANDS.values():
        jobs += list(entry.jobs.values()) if isinstance(entry, Group) else [entry]
    for job in jobs:
        path = ROOT / (job.module.replace(".", "/") + ".py")
        assert path.is_file(), job.module
        assert re.search(r"^def main\(argv", path.read_text(), re.M), job.module
