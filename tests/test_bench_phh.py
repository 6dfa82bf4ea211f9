"""``pitboss bench phh --files 50 --rounds 1`` runs as a technician runs it (a subprocess
through the CLI) and prints each figure beside its budget. Nothing about speed is asserted
(the machine is shared); that every line is whole is."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from tests.needs import need_module

ROOT = Path(__file__).resolve().parents[1]
RATE = r"([\d,]+)"


def test_the_phh_benchmark_runs_from_the_cli_and_prints_every_figure(shared_dir: Path) -> None:
    need_module("pokerkit", "pokerkit is not installed (PITBOSS_EXTRAS=test source "
                            "scripts/venv.sh)")
    proc = subprocess.run([sys.executable, "-m", "controller.cli", "bench", "phh", "--files",
                           "50", "--rounds", "1", "--corpus", str(shared_dir / "phh")],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert re.search(r"^50 files, (\d+) hands \(PokerKit read \1\); CPU time", out, re.M), out
    for name in ("Pitboss", "PokerKit"):
        assert re.search(rf"^  {name} +{RATE} hands/s +read +{RATE}/s \( *\d+%\) +replay +"
                         rf"{RATE}/s \( *\d+%\)$", out, re.M), out
    assert re.search(rf"^  Pitboss read \+ replay: {RATE} hands/s \((MET|MISSED), budget >= "
                     rf"{RATE} = 20x PokerKit's {RATE}\)$", out, re.M), out
    assert re.search(rf"^  Pitboss reading with tomllib alone: {RATE} hands/s \(the fast "
                     r"reader is x[\d.]+\)$", out, re.M), out
    assert re.search(r"^  Pitboss read alone: x[\d.]+, replay alone: x[\d.]+ PokerKit's "
                     r"load \+ replay$", out, re.M), out
    assert re.search(r"^budget >= 20x PokerKit: (MET|MISSED) \(x[\d.]+\)$", out, re.M), out
