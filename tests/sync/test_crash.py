"""CRASH-1 on a real broker: the controller is SIGKILLed at random points (starting up,
recovering, mid-hand, mid-commit, mid-publish), restarted each time, and finally let run
until the host has everything. The host must then hold every event exactly once and in
order, byte-identical to the journal, with stacks equal to the table's and no chip lost."""

from __future__ import annotations

import asyncio
import json
import random
import signal
from dataclasses import dataclass
from pathlib import Path

import pytest

from controller.sync.journal import Journal
from tests.sync.conftest import Mosquitto, start_node
from tests.sync.floor import FloorRecorder
from tests.sync.harness import GUARD, assert_host_matches_table


@dataclass
class SoakResult:
    """What a kill soak did."""

    kills: int
    events: int
    hands: int
    voided: int
    boots: int  # controller runs that opened the journal, the final one included
    ready_kills: int  # kills after the controller said READY


def kill_soak(broker: Mosquitto, db: Path, *, kills: int, seed: int,
              max_delay: float = 0.3) -> SoakResult:
    """Start, SIGKILL after a random delay, ``kills`` times; then run to a drained finish
    and check the host against the journal."""
    rng = random.Random(seed)

    async def scenario() -> SoakResult:
        ended_early: list[str] = []  # runs that ended before the kill (must be none)
        ready_kills = 0
        async with FloorRecorder(broker.port) as host:
            for i in range(kills):
                node = start_node(db, broker.port, "--seed", f"{seed}-{i}")
                if rng.random() < 0.8:  # most kills land while it plays and sends ...
                    ready_kills += 1
                    assert node.stdout is not None
                    ready = await asyncio.to_thread(node.stdout.readline)
                    assert ready.startswith("READY"), ready
                    await asyncio.sleep(rng.uniform(0.0, max_delay))
                else:  # ... the rest while it starts up, recovers or connects
                    await asyncio.sleep(rng.uniform(0.0, 1.0))
                node.send_signal(signal.SIGKILL)
                _, err = await asyncio.to_thread(node.communicate)
                if node.returncode != -signal.SIGKILL:
                    ended_early.append(f"run {i} exited {node.returncode}: {err[-1500:]}")
            assert ended_early == []
            final = start_node(db, broker.port, "--seed", f"{seed}-final", "--more", "3",
                               "--drain")
            async with asyncio.timeout(GUARD * 2):
                out, err = await asyncio.to_thread(final.communicate)
            assert final.returncode == 0, err[-2000:]
            assert "DRAINED" in out
            journal = Journal(db, table="t1")
            try:
                async with asyncio.timeout(GUARD):
                    await host.until(lambda: host.tables["t1"].contiguous == journal.last_seq)
                assert_host_matches_table(host, journal)
                kinds = [json.loads(p.public)["event"]["kind"]
                         for p in journal.parcels(0, limit=10**9)]
                return SoakResult(kills, journal.last_seq, journal.state.hand_no,
                                  kinds.count("hand_voided"), len(journal.boots()) - 1,
                                  ready_kills)
            finally:
                journal.close()

    return asyncio.run(scenario())


@pytest.mark.slow  # a soak of 50 kills; test_table_crash kills mid-hand by default
def test_crash_1_sigkill_at_random_points_loses_and_duplicates_nothing(
        broker: Mosquitto, tmp_path: Path) -> None:
    result = kill_soak(broker, tmp_path / "t1.db", kills=20, seed=11)
    assert result.voided > 0  # some kills did land mid-hand, and those hands were rolled back
    assert result.hands > result.voided and result.boots >= result.ready_kills + 1


@pytest.mark.slow
def test_crash_1_sigkill_500_times(broker: Mosquitto, tmp_path: Path) -> None:
    result = kill_soak(broker, tmp_path / "t1.db", kills=500, seed=500)
    print(f"\n500-kill soak: {result}")
    assert result.voided >= 50 and result.boots >= result.ready_kills + 1
