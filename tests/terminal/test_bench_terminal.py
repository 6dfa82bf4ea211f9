"""``pitboss bench terminal --quick`` runs as a technician runs it (a subprocess through the
CLI) and prints each of its figures: key -> display, key -> tablet stream, tap -> answer,
stream and display, and the peers measured beside them. Nothing about time is asserted
(the machine is shared); that every command was timed and every line is whole is."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NUMBERS = r"p50 ([\d.]+) ms, p99 ([\d.]+) ms, max ([\d.]+) ms \((\d+)"
BUDGETED = NUMBERS + r", (\d+) over 20 ms; budget p99 <= 20 ms: (met|MISSED)\)"
FIGURES = {
    "key display": r"^1\. key press -> dealer display frame updated: " + BUDGETED + "$",
    "key stream": r"^2\. key press -> tablet SSE frame with the change: " + BUDGETED + "$",
    "tap answer": r"^3\. tablet tap -> HTTP answer: " + BUDGETED + "$",
    "tap stream": r"^   tablet tap -> SSE frame on a second tablet: " + BUDGETED + "$",
    "tap display": r"^   tablet tap -> dealer display frame updated: " + BUDGETED + "$",
    "desk": r"^   of which the desk carrying a command out \(Desk\.do: .*\): " + NUMBERS,
    "journal": r"^   of Desk\.do, the journal \(append \+ fsync of its events\): " + NUMBERS,
    "fsync": r"^peer: one event journaled alone \(append \+ fsync\): " + NUMBERS
             + r".*; a command's journaling p50 is [\d.]+x that$",
    "post": r"^peer: bare uvicorn ASGI app on this loop, POST -> answer: " + NUMBERS
            + r".*; tap -> answer p50 is [\d.]+x that$",
    "push": r"^peer: bare uvicorn SSE frame pushed -> received: " + NUMBERS
            + r".*; key -> SSE p50 is [\d.]+x that$",
}


def test_the_terminal_benchmark_runs_from_the_cli_and_prints_every_figure() -> None:
    proc = subprocess.run([sys.executable, "-m", "controller.cli", "bench", "terminal",
                           "--quick"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    out = proc.stdout
    head = re.search(r"^terminal: 3 hands, 3 players, journal fsync on; (\d+) keys and "
                     r"(\d+) taps timed; ([\d.]+) events journaled per command", out, re.M)
    assert head, out
    keys, taps = int(head[1]), int(head[2])
    # every command of the 3 hands (15 each) timed, alternately at the keypad and the tablet
    assert keys + taps == 45 and abs(keys - taps) <= 1, out
    assert float(head[3]) >= 1.0, out  # each accepted command journaled its event(s)
    assert re.search(r"^   full garbage collections during the hands: \d+", out, re.M), out
    for name, pattern in FIGURES.items():
        found = re.search(pattern, out, re.M)
        assert found, f"no {name} line in:\n{out}"
        p50, p99, top, count = (float(found[1]), float(found[2]), float(found[3]),
                                int(found[4]))
        assert 0 < p50 <= p99 <= top, f"{name}: {found[0]}"
        expected = {"key display": keys, "key stream": keys, "tap answer": taps,
                    "tap stream": taps, "tap display": taps, "desk": keys + taps,
                    "journal": keys + taps}
        assert count == expected.get(name, 30), f"{name}: {found[0]}"  # --quick: 30 peers
