"""The director's room: stdlib, ``controller.rules`` and ``controller.clocks`` only; no
clock, no I/O (DESIGN.md rooms; issue 9's pure core). The bridge-side modules (the service
joined to the tables, its journal and API schemas) may use the bridge, the vocabulary
(``controller.events``) and the wire format's envelopes, SQLAlchemy and pydantic, never
``controller.table`` or ``controller.devices``."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

DIRECTOR = Path(__file__).resolve().parents[2] / "host_bridge" / "director"
ALLOWED = ("controller.rules", "controller.clocks")
BRIDGE_SIDE = {"service.py", "tablelink.py", "reports.py", "floorwork.py", "releases.py",
               "purchases.py", "journal.py", "schemas.py", "money.py", "discipline.py"}
BRIDGE_ALLOWED = ("controller.events", "controller.sync.messages", "controller.clocks",
                  "controller.rules", "host_bridge.", "sqlalchemy", "pydantic")
FORBIDDEN_CALLS = {"time", "monotonic", "perf_counter", "open", "now", "utcnow", "sleep"}


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.append(node.module)
    return names


def test_director_imports_only_stdlib_rules_and_clocks() -> None:
    files = sorted(p for p in DIRECTOR.glob("*.py") if p.name not in BRIDGE_SIDE)
    assert files
    for path in files:
        for name in _imports(path):
            top = name.split(".")[0]
            ok = (top in sys.stdlib_module_names or top == "__future__"
                  or name.startswith(ALLOWED))
            assert ok, f"{path.name} imports {name}"
            assert not name.startswith(("controller.table", "controller.devices"))


def test_the_bridge_side_never_imports_the_table_or_devices() -> None:
    for name in sorted(BRIDGE_SIDE):
        for imported in _imports(DIRECTOR / name):
            top = imported.split(".")[0]
            ok = (top in sys.stdlib_module_names or top == "__future__"
                  or imported.startswith(BRIDGE_ALLOWED) or imported == "host_bridge")
            assert ok, f"{name} imports {imported}"
            assert not imported.startswith(("controller.table", "controller.devices"))


def test_director_reads_no_clock_and_does_no_io() -> None:
    for path in sorted(p for p in DIRECTOR.glob("*.py") if p.name not in BRIDGE_SIDE):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                f = node.func
                name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
                assert name not in FORBIDDEN_CALLS, f"{path.name}:{node.lineno} calls {name}"
            if isinstance(node, ast.Import | ast.ImportFrom):
                mods = ([a.name for a in node.names] if isinstance(node, ast.Import)
                        else [node.module or ""])
                assert not any(m in ("time", "datetime", "os", "socket") for m in mods), (
                    f"{path.name} imports {mods}")


def test_the_director_is_composed_not_mixed_in() -> None:
    """Issue 15: the service composes small collaborators, each given what it needs; no
    class declares stubs of what it expects from a director it is mixed into, and no
    module below the service imports it (or the director it holds)."""
    for path in sorted(DIRECTOR.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                body = [n for n in node.body if not (isinstance(n, ast.Expr)
                                                     and isinstance(n.value, ast.Constant))]
                stub = (len(body) == 1 and isinstance(body[0], ast.Raise)
                        and "NotImplementedError" in ast.unparse(body[0]))
                assert not stub, f"{path.name}:{node.lineno} {node.name} is a stub"
            if isinstance(node, ast.ImportFrom) and path.name != "service.py":
                module = ("." * node.level) + (node.module or "")
                assert module not in (".service", "host_bridge.director.service"), (
                    f"{path.name} imports the service")
            if isinstance(node, ast.ClassDef) and node.name == "TournamentDirector":
                assert not node.bases, "the director is composed, not mixed in"
