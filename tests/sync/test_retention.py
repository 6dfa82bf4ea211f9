"""Journal retention: a table that runs for months keeps a bounded journal. Pruning takes
only acknowledged events the state checkpoint covers, beyond the last N hands and older
than D days; it never breaks the seq, the outbox, a restart or a CRASH-1 rollback."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Sequence
from pathlib import Path

import pytest

from controller.events import (
    ActionAccepted,
    HandEnded,
    HandStarted,
    JournalEvent,
    LevelSet,
    PlayerSeated,
)
from controller.sync.journal import Journal, Retention
from controller.sync.messages import ReplyMessage
from controller.sync.soak_node import VirtualTable
from tests.sync.conftest import Mosquitto
from tests.sync.floor import FloorRecorder
from tests.sync.harness import GUARD, assert_host_matches_table, drained, running_table

HOUR = 3600.0


class Clock:
    """Wall-clock time the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


class HandAtATime:
    """An event sink straight into a journal: each hand is journaled as one batch when it
    ends (one fsync per hand keeps a long run quick), ``step`` seconds after the last."""

    def __init__(self, journal: Journal, clock: Clock, step: float) -> None:
        self.journal, self.clock, self.step = journal, clock, step
        self._hand: list[JournalEvent] = []
        self.starts: list[tuple[int, float]] = []  # (seq of hand_started, ts) per hand

    async def record(self, events: Sequence[JournalEvent]) -> Sequence[int]:
        self._hand.extend(events)
        if not isinstance(events[-1], HandEnded):
            return []
        self.clock.now += self.step
        parcels = self.journal.append(self._hand)
        self.starts.append((parcels[0].seq, self.clock.now))
        self._hand = []
        return [p.seq for p in parcels]


def play(journal: Journal, sink: HandAtATime, hands: int, seed: int = 1) -> None:
    """Play ``hands`` hands on the virtual table; the host acknowledges each at once."""
    async def go() -> None:
        table = VirtualTable(sink, journal.state, random.Random(seed))
        for _ in range(hands):
            assert table.can_deal(journal.state)
            await table.play_hand()
            journal.acknowledge(journal.last_seq)
            journal.prune_history()

    asyncio.run(go())


def seated(path: Path, clock: Clock, retention: Retention) -> Journal:
    journal = Journal(path, table="t1", clock=clock, retention=retention)
    journal.append([PlayerSeated(seat=s, player=f"p{s}", stack=100)
                    for s in (1, 2, 3)])
    return journal


def hand(journal: Journal, hand_no: int, stacks: tuple[int, int, int]) -> None:
    start = tuple(s.stack for s in journal.state.seats)
    journal.append([HandStarted(hand_no=hand_no, seats=(1, 2, 3), stacks=start)])
    journal.append([HandEnded(hand_no=hand_no, stacks=stacks)])


def kept(journal: Journal) -> list[int]:
    return [p.seq for p in journal.parcels(0, limit=10**9)]


def test_crash_1_prune_keeps_unacked_events_and_what_the_state_needs(tmp_path: Path) -> None:
    clock = Clock()
    journal = seated(tmp_path / "j.db", clock, Retention(hands=0, days=0))
    hand(journal, 1, (150, 50, 100))  # seqs 4, 5
    hand(journal, 2, (100, 100, 100))  # seqs 6, 7
    journal.append([HandStarted(hand_no=3, seats=(1, 2, 3), stacks=(100, 100, 100)),
                    ActionAccepted(hand_no=3, player=0, action="bet_raise", amount=40)])  # 8, 9
    clock.now += 30 * 24 * HOUR
    journal.acknowledge(5)
    journal.prune_history()
    assert kept(journal) == [6, 7, 8, 9] and journal.pruned == 5  # nothing unacknowledged
    assert journal.outbox_size() == 4
    assert [p.seq for p in journal.parcels(journal.acked)] == [6, 7, 8, 9]  # still resendable

    journal.acknowledge(9)  # the host has it all, but hand 3 is open: its events stay
    journal.prune_history()
    assert kept(journal) == [8, 9] and journal.pruned == 7
    state = journal.state
    journal.close()  # the power goes mid-hand

    again = Journal(tmp_path / "j.db", table="t1", clock=clock)
    assert again.state == state and again.last_seq == 9  # checkpoint + the kept tail
    void = again.void_open_hand("restarted")  # CRASH-1: back to the stacks hand 3 began with
    assert void is not None and void.seq == 10
    assert json.loads(void.public)["event"]["stacks"] == [100, 100, 100]
    assert [s.stack for s in again.state.seats] == [100, 100, 100]
    again.close()


def test_seq_carries_on_after_every_event_is_pruned(tmp_path: Path) -> None:
    clock = Clock()
    journal = seated(tmp_path / "j.db", clock, Retention(hands=0, days=0))
    hand(journal, 1, (120, 80, 100))
    clock.now += HOUR
    journal.acknowledge(journal.last_seq)
    assert journal.prune_history() == 5 and kept(journal) == []
    state = journal.state
    journal.close()

    again = Journal(tmp_path / "j.db", table="t1", clock=clock)
    assert again.last_seq == 5 and again.pruned == 5 and again.state == state
    assert again.boots()[-1] == (again.boot, 6)
    (parcel,) = again.append([LevelSet(level=2)])
    assert parcel.seq == 6 and kept(again) == [6]
    assert again.prune_history() == 0  # not acknowledged yet
    again.close()


@pytest.mark.parametrize(("step", "hands", "days", "kept_hands"), [
    (300.0, 30, 1 / 24, 30),  # 12 hands in the last hour: the last 30 hands rule
    (60.0, 30, 1 / 24, 61),  # 60 hands in the last hour (and the one on the cutoff): days rule
    (60.0, 0, 0.0, 1),  # keep no hands, no days: only the hand of this very second
])
def test_retention_keeps_the_last_n_hands_and_the_last_d_days(
        tmp_path: Path, step: float, hands: int, days: float, kept_hands: int) -> None:
    clock = Clock()
    journal = Journal(tmp_path / "j.db", table="t1", clock=clock,
                      retention=Retention(hands=hands, days=days))
    journal.append([PlayerSeated(seat=s, player=f"p{s}",
                                 stack=20_000) for s in range(1, 7)])
    sink = HandAtATime(journal, clock, step)
    play(journal, sink, 150)
    first_kept = sink.starts[-kept_hands][0]
    assert kept(journal) == list(range(first_kept, journal.last_seq + 1))
    assert journal.pruned == first_kept - 1
    journal.close()


def test_journal_stays_bounded_over_a_long_run(tmp_path: Path) -> None:
    clock = Clock()
    journal = Journal(tmp_path / "j.db", table="t1", clock=clock,
                      retention=Retention(hands=40, days=0))
    journal.append([PlayerSeated(seat=s, player=f"p{s}",
                                 stack=20_000) for s in range(1, 7)])
    sink = HandAtATime(journal, clock, 60.0)
    sizes = []
    for round_no in range(4):
        play(journal, sink, 100, seed=round_no)
        sizes.append(journal.size())
    total = journal.last_seq
    assert sizes[-1]["events"] == total - sink.starts[-40][0] + 1  # exactly the last 40 hands
    assert max(s["events"] for s in sizes) < 2 * min(s["events"] for s in sizes)
    assert total > 8 * sizes[-1]["events"]  # the run wrote far more than it keeps
    assert sizes[-1]["outbox"] == 0
    # freed pages are reused: the file stops growing once the window is full
    assert sizes[-1]["pages"] <= sizes[1]["pages"] * 1.15, sizes
    journal.close()


def test_command_replies_older_than_the_retention_are_forgotten(tmp_path: Path) -> None:
    clock = Clock()
    journal = Journal(tmp_path / "j.db", table="t1", clock=clock,
                      retention=Retention(hands=0, days=1))

    def reply(command_id: str) -> bytes:
        return ReplyMessage(table="t1", boot=journal.boot, seq=0, ts=clock.now,
                            command_id=command_id, status="ok", data={}).to_wire()

    journal.record_reply("old", reply("old"))
    clock.now += 2 * 24 * HOUR
    journal.record_reply("new", reply("new"))
    journal.prune_history()
    assert journal.reply_for("old") is None and journal.reply_for("new") is not None
    journal.close()


def test_retention_on_a_live_link_restarts_into_the_same_state_and_seq(
        broker: Mosquitto, tmp_path: Path) -> None:
    keep = Retention(hands=2, days=0)

    async def scenario() -> None:
        async with FloorRecorder(broker.port) as host:
            async with running_table(tmp_path / "t1.db", broker.port, retention=keep,
                                     history_every=0.05) as stack:
                await stack.play(6, seed=2)
                await drained(host, stack)
                async with asyncio.timeout(GUARD):
                    while stack.journal.pruned == 0:
                        await asyncio.sleep(0.05)
                assert_host_matches_table(host, stack.journal)
                last_seq, state = stack.outbox.last_seq, stack.outbox.state
            tables = host.tables
        async with FloorRecorder(broker.port, tables=tables) as host, \
                running_table(tmp_path / "t1.db", broker.port, retention=keep,
                              history_every=0.05) as stack:
            assert stack.journal.last_seq == last_seq and stack.journal.state == state
            await stack.play(3, seed=3)
            await drained(host, stack)
            async with asyncio.timeout(GUARD):
                while stack.journal.pruned <= last_seq:
                    await asyncio.sleep(0.05)
            assert_host_matches_table(host, stack.journal)  # 1..last once, in order
            assert stack.journal.size()["events"] < stack.journal.last_seq - last_seq

    asyncio.run(scenario())
