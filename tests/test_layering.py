"""DESIGN.md's rooms held against the code: who may import whom, and no import circle.

Every import counts: at module level, inside functions, and under ``TYPE_CHECKING``
(DESIGN.md: "lazy imports and TYPE_CHECKING imports count"). The room table below is
DESIGN.md's "controller/ rooms" table and its paragraph on ``host_bridge``; a new arrow
that points up, or a new circle anywhere, fails here.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("controller", "host_bridge", "firmware")

# room -> the project's rooms it may import (itself always); DESIGN.md "controller/ rooms"
ROOMS: dict[str, tuple[str, ...]] = {
    "controller.rules": (),
    "controller.clocks": ("controller.rules",),
    "controller.chiprace": ("controller.rules",),
    "controller.events": ("controller.rules",),
    "controller.devices": ("firmware.link",),
    "controller.table": ("controller.rules", "controller.clocks", "controller.chiprace",
                         "controller.events", "controller.devices"),
    "controller.terminal": ("controller.table", "controller.events", "controller.devices",
                            "controller.rules"),
    "controller.sync": ("controller.rules", "controller.events", "controller.clocks"),
    "host_bridge": ("controller.rules", "controller.clocks", "controller.events",
                    "controller.sync", "host_bridge"),
    "firmware": ("firmware",),
}
# the wiring at the top may import every room (DESIGN.md: app.py, table_runner.py, cli.py)
WIRING = ("controller.app", "controller.table_runner", "controller.table_setup", "controller.cli",
          "controller.replay_command", "controller.firmware_deploy", "controller.phh_files",
          "controller.hardware_check")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")
            if "node_modules" not in p.parts}


def imports(name: str, path: Path, known: set[str]) -> Iterator[str]:
    """Every project module ``name`` imports, anywhere in the file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package[:len(package) - node.level + 1]
                base = ".".join([*up, base] if base else up)
            subs = [f"{base}.{a.name}" for a in node.names]
            # ``from pkg import module``: the module (and its package, which is below it)
            targets = subs if all(t in known for t in subs) else [base, *subs]
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                yield target


def graph() -> dict[str, set[str]]:
    mods = modules()
    known = set(mods)
    return {name: set(imports(name, path, known)) for name, path in mods.items()}


def cycles(g: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of two or more modules (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in g.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    import sys
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        for v in sorted(g):
            if v not in index:
                visit(v)
    finally:
        sys.setrecursionlimit(limit)
    return found


def room_of(module: str) -> str | None:
    for room in sorted(ROOMS, key=len, reverse=True):
        if module == room or module.startswith(room + "."):
            return room
    return None


def within(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def test_there_is_no_import_circle_anywhere() -> None:
    found = cycles(graph())
    assert found == [], "import circles (every import counts): " + "; ".join(
        " -> ".join(c) for c in found)


def test_every_room_imports_only_the_rooms_below_it() -> None:
    wrong = []
    for module, targets in sorted(graph().items()):
        room = room_of(module)
        if room is None or within(module, WIRING):
            continue
        allowed = (room, *ROOMS[room])
        wrong += [f"{module} -> {t}" for t in sorted(targets) if not within(t, allowed)]
    assert wrong == [], "arrows that point up or sideways (DESIGN.md rooms):\n" + "\n".join(wrong)


def test_the_rules_room_imports_the_standard_library_only() -> None:
    import sys

    stdlib = sys.stdlib_module_names
    wrong = []
    for path in (ROOT / "controller" / "rules").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level
                     else [])
            wrong += [f"{path.name}: {n}" for n in names
                      if n.split(".")[0] not in stdlib and not n.startswith("controller.rules")]
    assert wrong == []


@pytest.mark.parametrize("edge", [("controller.rules.cards", "controller.table.table"),
                                  ("controller.table.hand_in_play", "host_bridge.app")])
def test_the_check_would_catch_a_new_upward_arrow(edge: tuple[str, str]) -> None:
    """The room check itself: an arrow up from a low room is reported."""
    source, target = edge
    room = room_of(source)
    assert room is not None
    assert not within(target, (room, *ROOMS[room]))


def test_the_check_would_catch_a_new_circle() -> None:
    g = graph()
    g["controller.rules.cards"] = {*g["controller.rules.cards"], "controller.rules.hand"}
    assert any("controller.rules.cards" in c for c in cycles(g))
