"""Controller cold start to ready (budget: <= 1.5 s).

Run: .venv/bin/python tests/benchmarks/bench_start.py   (or: pitboss bench start)

Starts the table controller as a floor runs it, ``pitboss table run --profile virtual``
(mock hardware), in a fresh process, and times from the spawn to its ``READY`` line: the
journal is open and recovered, the table restored, the link to the broker started (the
table plays on without a broker; the link keeps trying in the background). Two journals:
a new one, and one that already holds a few hundred played hands (restart after a power
cut). Peers in the same run: a bare interpreter start and importing the controller, so a
slow machine shows as a slow peer too.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BUDGET_S = 1.5


def _spawn_until(argv: list[str], marker: str | None) -> float:
    """Seconds from spawning ``argv`` to the line starting with ``marker`` (None: exit)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    try:
        if marker is None:
            proc.wait(timeout=60)
            return time.perf_counter() - t0
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith(marker):
                return time.perf_counter() - t0
        raise RuntimeError(f"{argv[2:]} exited without printing {marker!r}")
    finally:
        if proc.poll() is None:
            proc.terminate()
            proc.wait(timeout=30)


def _table(db: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "controller.app", "table", "run", "--profile", "virtual",
            "--table", "T1", "--broker", "127.0.0.1:9", "--db", str(db), *extra]


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog=prog, description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--hands", type=int, default=100,
                        help="hands in the journal for the restart case")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="pitboss-start-") as tmp:
        work = Path(tmp)
        rows: list[tuple[str, list[float]]] = []
        rows.append(("python -c pass", [_spawn_until([sys.executable, "-c", "pass"], None)
                                         for _ in range(args.runs)]))
        rows.append(("import controller.app", [
            _spawn_until([sys.executable, "-c", "import controller.app"], None)
            for _ in range(args.runs)]))
        fresh = []
        for k in range(args.runs):
            fresh.append(_spawn_until(_table(work / f"fresh{k}.db"), "READY"))
        rows.append(("table, new journal", fresh))
        played = work / "played.db"
        print(f"playing {args.hands} virtual hands into a journal...", flush=True)
        _spawn_until(_table(played, "--autoplay", str(args.hands)), "PLAYED")
        rows.append(("table, restart", [_spawn_until(_table(played), "READY")
                                        for _ in range(args.runs)]))
    print(f"\nController cold start to READY, {args.runs} runs each (budget {BUDGET_S} s)")
    print(f"  {'':28}{'median':>9}{'max':>9}")
    for name, times in rows:
        print(f"  {name:28}{statistics.median(times):8.3f}s{max(times):8.3f}s")
    worst = max(max(t) for name, t in rows if name.startswith("table"))
    verdict = "meets" if worst <= BUDGET_S else "MISSES"
    print(f"  slowest table start {worst:.3f} s: {verdict} the budget of {BUDGET_S} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
