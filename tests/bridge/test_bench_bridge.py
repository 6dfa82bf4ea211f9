"""``pitboss bench bridge`` runs as a technician runs it (a subprocess through the CLI), on a
small floor (10 tables, one hand each, so the test takes seconds): its three runs (unpaced,
1,000 and 5,000 events/s offered) each store and feed every event the tables sent, and
every budget is printed beside its figure as MET or MISSED, the verdict agreeing with the
figure and the exit status with the verdicts. Nothing about time is asserted (the machine
is shared, and ten tables cannot reach 5,000 events/s): that each figure is measured, over
every event, and judged right, is.
Fails, saying so, where Mosquitto is not installed (``tests/needs.py``)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from tests.needs import missing
from tests.sync.conftest import MOSQUITTO

ROOT = Path(__file__).resolve().parents[2]
TABLES = 10
RUNS = ("throughput, unpaced", "latency, paced at 1,000 events/s",
        "latency, paced at 5,000 events/s")


def _number(text: str) -> float:
    return float(text.replace(",", ""))


def test_the_bridge_benchmark_runs_from_the_cli_and_judges_every_budget() -> None:
    if MOSQUITTO is None:
        missing("mosquitto is not installed: sudo apt-get install mosquitto")
    proc = subprocess.run([sys.executable, "-m", "controller.cli", "bench", "bridge",
                           "--tables", str(TABLES), "--hands", "1", "--clients", "2"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    out = proc.stdout
    assert "Traceback" not in proc.stderr, proc.stderr
    assert "lost the broker" not in proc.stderr, proc.stderr  # a clean stop is no loss
    cpu_by_run = []
    for run in map(re.escape, RUNS):
        sent = re.search(rf"^\[{run}\] (\d+) events \((\d+) messages\) from {TABLES} tables: "
                         rf"published in [\d.]+ s, all stored and acked after [\d.]+ s -> "
                         rf"[\d,]+ events/s; stored (\d+)$", out, re.M)
        assert sent, f"no stored line for {run} in:\n{out}"
        events = int(sent[1])
        assert events > 0 and int(sent[3]) == events, sent[0]  # every event stored, once
        cpu = re.search(rf"^\[{run}\] bridge CPU \(loop \+ ingest thread\): [\d.]+ s = (\d+) "
                        rf"us/event", out, re.M)
        assert cpu, f"no CPU line for {run} in:\n{out}"
        cpu_by_run.append(int(cpu[1]))
        feed = re.search(rf"^\[{run}\] publish -> live feed: p50 ([\d.]+) ms, p99 ([\d.]+) ms, "
                         rf"max ([\d.]+) ms over (\d+) items; feed drops 0;", out, re.M)
        assert feed, f"no feed line (or feed drops) for {run} in:\n{out}"
        assert float(feed[1]) <= float(feed[2]) <= float(feed[3]), feed[0]
        assert int(feed[4]) == events, feed[0]  # every event reached the live feed
    verdicts = []
    rate = re.search(r"^budget events/s >= 5,000: (MET|MISSED) \(([\d,]+)\)$", out, re.M)
    assert rate, out
    verdicts.append((rate[1], _number(rate[2]) >= 5000))
    cpu_line = re.search(r"^budget bridge CPU per event <= 100 us \(worst run\): (MET|MISSED) "
                         r"\((\d+) us; by run: unpaced (\d+), 1,000/s (\d+), 5,000/s (\d+)\)$",
                         out, re.M)
    assert cpu_line, out
    by_run = [int(cpu_line[i]) for i in (3, 4, 5)]
    assert by_run == cpu_by_run and int(cpu_line[2]) == max(by_run), cpu_line[0]
    verdicts.append((cpu_line[1], max(by_run) <= 100))
    for offered in ("1,000", "5,000"):
        p99 = re.search(rf"^budget feed p99 < 100 ms at {offered} events/s offered: "
                        rf"(MET|MISSED) \(([\d.]+) ms\)$", out, re.M)
        assert p99, out
        verdicts.append((p99[1], float(p99[2]) < 100))
    for said, holds in verdicts:
        assert said == ("MET" if holds else "MISSED"), (said, holds, out)
    assert proc.returncode == (0 if all(holds for _, holds in verdicts) else 1), out
