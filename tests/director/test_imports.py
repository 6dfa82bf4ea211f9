"""The director's room: stdlib, ``controller.rules`` and ``controller.clocks`` only; no
clock, no I/O (DESIGN.md rooms; issue 9's pure core)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

DIRECTOR = Path(__file__).resolve().parents[2] / "host_bridge" / "director"
ALLOWED = ("controller.rules", "controller.clocks")
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
    files = sorted(DIRECTOR.glob("*.py"))
    assert files
    for path in files:
        for name in _imports(path):
            top = name.split(".")[0]
            ok = (top in sys.stdlib_module_names or top == "__future__"
                  or name.startswith(ALLOWED))
            assert ok, f"{path.name} imports {name}"
            assert not name.startswith(("controller.table", "controller.devices"))


def test_director_reads_no_clock_and_does_no_io() -> None:
    for path in sorted(DIRECTOR.glob("*.py")):
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
