"""``pitboss bench floor --quick`` runs as a technician runs it (a subprocess through the
CLI): 200 tables on a served bridge, the floor page in Debian's Chromium, and every figure
printed beside its budget (first paint in both views, an update on screen, where the
update's time went, the page's reconciliation reads off its path). Nothing about time is
asserted (the machine is shared); that each figure was measured over every load and every
update, and each line is whole, is.
Fails like the other Chromium tests where Chromium is missing (``tests/needs.py``)."""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path

from tests.bridge.test_dashboard import CHROMIUM
from tests.needs import missing

ROOT = Path(__file__).resolve().parents[2]
SPREAD = r"p50 (\d+) ms, p99 (\d+) ms, max (\d+) ms \((\d+)\)"
VERDICT = r"(MET|MISSED)$"
LOADS = 2  # --quick


def need_chromium() -> None:
    if not CHROMIUM.exists() or shutil.which(str(CHROMIUM)) is None:
        missing("no /usr/bin/chromium: apt-get install chromium")
    if importlib.util.find_spec("playwright") is None:
        missing("the playwright package is not installed")
    if not any(importlib.util.find_spec(m) for m in ("websockets", "wsproto")):
        missing("uvicorn serves no WebSocket without the websockets package")


def spread(found: re.Match[str], first: int = 1) -> tuple[int, int, int, int]:
    """p50, p99, max and count of a line's spread (its groups from ``first``)."""
    p50, p99, top, count = (int(found[i]) for i in range(first, first + 4))
    assert 0 <= p50 <= p99 <= top, found[0]
    return p50, p99, top, count


def test_the_floor_page_benchmark_runs_from_the_cli_and_prints_every_figure() -> None:
    need_chromium()
    proc = subprocess.run([sys.executable, "-m", "controller.cli", "bench", "floor",
                           "--quick"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    out = proc.stdout
    assert re.search(r"^floor page: 200 tables online, 9 players each; .*; load average "
                     r"[\d.]+ \(5 min [\d.]+\) on \d+ cores$", out, re.M), out
    for view in ("full cards", "compact view"):
        marks = re.search(rf"^first paint, {view} \({LOADS} fresh loads\): FCP p50 (\d+) ms, "
                          rf"max (\d+) ms; 200 cards in the DOM: {SPREAD}$", out, re.M)
        assert marks, f"no {view} marks in:\n{out}"
        assert int(marks[1]) <= int(marks[2]), marks[0]
        assert spread(marks, first=3)[3] == LOADS, marks[0]
        painted = re.search(rf"^first paint, {view} \(200 cards on screen\): {SPREAD}; long "
                            rf"tasks per load p50 \d+, longest \d+ ms; budget < 1 s: "
                            + VERDICT, out, re.M)
        assert painted, f"no {view} first paint in:\n{out}"
        assert spread(painted)[3] == LOADS, painted[0]
    head = re.search(r"^updates: (\d+) stack corrections to 200 tables over 2 s \((\d+)/s "
                     r"offered\); page clock - Python clock [+-][\d.]+ ms \(round trip "
                     r"[\d.]+ ms\)$", out, re.M)
    assert head, out
    sent = int(head[1])
    assert sent == 100, head[0]  # --quick: 2 s at 50/s
    screen = re.search(rf"^update on screen: {SPREAD}; dropped (\d+), superseded (\d+), "
                       rf"not taken by the bridge (\d+); long tasks \d+, longest \d+ ms; "
                       rf"budget p99 < 150 ms: " + VERDICT, out, re.M)
    assert screen, f"no update line in:\n{out}"
    shown = spread(screen)[3]
    assert shown + int(screen[5]) + int(screen[6]) == sent and screen[7] == "0", screen[0]
    dom = re.search(rf"^update in the DOM: {SPREAD}$", out, re.M)
    assert dom and spread(dom)[3] == shown, out
    for stage in ("the page has the feed event", "from the feed event to the card patched"):
        found = re.search(rf"^   of which, {stage}: {SPREAD}$", out, re.M)
        assert found, f"no {stage} line in:\n{out}"
        assert 0 < spread(found)[3] <= shown, found[0]
    stored = re.search(rf'^off the path, the page has the "stored" item: {SPREAD}$', out, re.M)
    assert stored and 0 < spread(stored)[3] <= shown, out
    reads = re.search(r"^off the path, tables read over REST \(reconciliation\): (\d+) reads "
                      rf"of (\d+) tables, answered in {SPREAD}; updates first shown after "
                      r"such a read: (\d+)$", out, re.M)
    assert reads, f"no reconciliation line in:\n{out}"
    assert int(reads[2]) <= int(reads[1]) == spread(reads, first=3)[3], reads[0]
    assert int(reads[7]) <= shown, reads[0]
    assert len(re.findall(r"^after (?:first paint|the updates): load average", out, re.M)) == 2
