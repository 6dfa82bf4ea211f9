"""Fixtures and helpers for the demo tests: a private Mosquitto (the sync tests' broker,
failing where the binary is absent), the demo run as a user runs it, and a look at its
processes through /proc."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
WAIT_S = 60.0  # an upper bound for a slow, shared machine, not a budget



def start_demo(*args: str) -> subprocess.Popen[str]:
    """``pitboss demo ARGS`` in a process group of its own, as a terminal would run it."""
    return subprocess.Popen([sys.executable, "-m", "controller.cli", "demo", *args], cwd=ROOT,
                            text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)


def descendants(pid: int) -> set[int]:
    """Every process below ``pid`` now (from /proc)."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        parents.setdefault(ppid, []).append(int(entry.name))
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _read(db: Path, sql: str) -> list[Any]:
    """Rows of ``sql`` from the bridge's store (read-only, beside the running bridge);
    none before the store exists and is migrated."""
    if not db.exists():
        return []
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as conn:
        try:
            return conn.execute(sql).fetchall()
        except sqlite3.OperationalError:  # not migrated yet
            return []


def hands_ended(db: Path) -> dict[str, int]:
    """Hands the bridge stored as ended, by table."""
    return dict(_read(db, "SELECT table_id, count(*) FROM hands WHERE status = 'ended' "
                          "GROUP BY table_id"))


def open_tables(db: Path) -> list[str]:
    """The tables the bridge holds open, sorted."""
    return sorted(t for (t,) in _read(db, "SELECT id FROM poker_tables WHERE NOT closed"))


def wait_for(check: Callable[[], bool], what: str, proc: subprocess.Popen[str]) -> None:
    """Wait until ``check()``; fail with the demo's output if it exits first."""
    deadline = time.monotonic() + WAIT_S
    while not check():
        if proc.poll() is not None:
            out = proc.stdout.read() if proc.stdout else ""
            pytest.fail(f"the demo exited ({proc.returncode}) before {what}:\n{out}")
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(0.2)
