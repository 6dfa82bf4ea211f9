"""CRASH-1 with the live table: ``pitboss table run`` (``python -m controller.table_runner``) on
the virtual table is SIGKILLed while its bots play, restarted each time, and finally run
to a drained finish. Every hand a kill cut short is voided with its starting stacks and
dealt again; the host holds every event exactly once, in order, byte-identical to the
journal, and no chip is made or lost."""

from __future__ import annotations

import asyncio
import json
import random
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from controller.events import HandStarted, HandVoided
from controller.sync.journal import Journal
from controller.sync.messages import EventMessage, parse_message
from tests.sync.conftest import ROOT, Mosquitto
from tests.sync.floor import FloorRecorder
from tests.sync.harness import GUARD


def start_table(db: Path, port: int, *extra: str) -> subprocess.Popen[str]:
    """``pitboss table run --profile virtual ...`` as a subprocess."""
    return subprocess.Popen(
        [sys.executable, "-m", "controller.table_runner", "table", "run", "--profile", "virtual",
         "--table", "t1", "--broker", f"127.0.0.1:{port}", "--db", str(db), "--site", "test",
         *extra], cwd=ROOT, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def kill_soak(broker: Mosquitto, db: Path, *, kills: int, seed: int) -> int:
    """Kill the table ``kills`` times mid-play, then drain; returns the kills that landed
    mid-hand."""
    rng = random.Random(seed)

    async def scenario() -> int:
        cut_short: list[tuple[int, tuple[int, ...], tuple[int, ...]]] = []
        async with FloorRecorder(broker.port) as host:
            for i in range(kills):
                node = start_table(db, broker.port, "--autoplay", "0", "--seed", f"{seed}-{i}")
                assert node.stdout is not None
                ready = await asyncio.to_thread(node.stdout.readline)
                assert ready.startswith("READY"), ready + (node.stderr.read()
                                                           if node.stderr else "")
                await asyncio.sleep(rng.uniform(0.05, 0.4))
                node.send_signal(signal.SIGKILL)
                await asyncio.to_thread(node.communicate)
                assert node.returncode == -signal.SIGKILL
                left = Journal(db, table="t1")  # what the crash left behind
                try:
                    if left.state.hand_in_progress:
                        cut_short.append((left.state.hand_no, left.state.hand_seats,
                                          left.state.start_stacks))
                finally:
                    left.close()
            final = start_table(db, broker.port, "--autoplay", "2", "--drain",
                                "--seed", f"{seed}-final")
            async with asyncio.timeout(GUARD):
                out, err = await asyncio.to_thread(final.communicate)
            assert final.returncode == 0, err[-2000:]
            assert "DRAINED" in out
            journal = Journal(db, table="t1")
            try:
                async with asyncio.timeout(GUARD):
                    await host.until(lambda: host.tables["t1"].contiguous == journal.last_seq)
                rec = host.tables["t1"]
                parcels = journal.parcels(0, limit=10**9)
                assert rec.applied == list(range(1, journal.last_seq + 1))  # once, in order
                assert rec.conflicts == []
                assert all(rec.events[p.seq] == p.public for p in parcels)
                assert rec.state == journal.state
                events = [parse_message(EventMessage, p.public).event for p in parcels]
                for hand_no, seats, stacks in cut_short:  # CRASH-1, then dealt again
                    voids = [i for i, e in enumerate(events)
                             if isinstance(e, HandVoided) and e.hand_no == hand_no]
                    assert len(voids) == 1
                    assert events[voids[0]].stacks == stacks  # type: ignore[union-attr]
                    nxt = next(e for e in events[voids[0]:] if isinstance(e, HandStarted))
                    assert nxt.hand_no == hand_no + 1 and nxt.seats == seats
                bought = sum(json.loads(p.public)["event"].get("stack") or 0
                             for p in parcels if b'"player_seated"' in p.public)
                left_with = sum(json.loads(p.public)["event"].get("stack") or 0
                                for p in parcels if b'"player_removed"' in p.public)
                assert sum(s.stack for s in journal.state.seats) == bought - left_with
            finally:
                journal.close()
        return len(cut_short)

    return asyncio.run(scenario())


def test_crash_1_killed_mid_hand_restarts_rolled_back_nothing_lost(
        broker: Mosquitto, tmp_path: Path) -> None:
    assert kill_soak(broker, tmp_path / "t1.db", kills=3, seed=1) >= 1


@pytest.mark.slow
def test_crash_1_kill_soak_many(broker: Mosquitto, tmp_path: Path) -> None:
    assert kill_soak(broker, tmp_path / "t1.db", kills=25, seed=2) >= 10
