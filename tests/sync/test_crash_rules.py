"""CRASH-2..6 where they apply to a physical table (CRASH-1 is tests/sync/test_crash.py and
tests/sync/test_table_crash.py).

- CRASH-2 (cash: a hand a failure stops is cancelled, every bet returned): ``pitboss table
  run`` on a cash table is SIGKILLed while chips are in the pot and restarted against a real
  Mosquitto; the hand is voided with the stacks it started with, each seat gets back what it
  had put in, and the host holds the void.
- CRASH-4 (a tournament cancelled by a crash: players compensated under CANCEL): the
  director's core (:meth:`Tournament.cancel`, ``host_bridge/director/cancel.py``). A hand a
  crash cut short reaches the director as no result (the table voids it, CRASH-1), so the
  compensation is worked from the stacks as that hand began. There is no floor route that
  cancels a tournament yet, so this is proven through the director's core, not a route.
- CRASH-5 (a malfunction voids all pays and plays, DEAL-8): the live table on mock
  readers with the real journal; a reader malfunction (one card read at two readers: an
  antenna overlap) at the showdown, before the pot is pushed, is answered by the dealer's
  misdeal: no pot is paid, every stack is back to the hand's start, journaled.

Not tested here, because they cannot apply to a physical table:

- CRASH-3 (undecided bets void after 90 days, to charity): a hand at a physical table never
  stays undecided. A hand the controller's stop cuts short is voided at the next start
  (CRASH-1/CRASH-2) and its chips are back in front of the players, so no bet is left
  unresolved for days; a tournament the floor cannot finish is cancelled under CANCEL
  (CRASH-4). The HexaPro clause is an online jackpot game's.
- CRASH-6 (the operator is not responsible for a player's own disconnection, TOURN-18): a
  player at a physical table has no connection of their own to lose; an absent player is
  handled by the live rules (BLIND-7, dead hands), not by the disconnection rules, which are
  online-only (CLOCK-8, TOURN-18).
"""

from __future__ import annotations

import asyncio
import random
import signal
import subprocess
import sys
from pathlib import Path

from controller.app import TableJournal
from controller.devices.mock import MockTable
from controller.devices.profile import load_profile
from controller.events import (
    HandEnded,
    HandStarted,
    HandVoided,
    Irregularity,
    MisdealDeclared,
    PotAwarded,
    PublicEvent,
    PublicState,
)
from controller.rules.config import LIVE_CASH
from controller.sync.journal import Journal
from controller.sync.ledger import fold
from controller.sync.messages import EventMessage, parse_message
from controller.sync.outbox import Outbox
from controller.table.lights import Level
from controller.table.table import Stage, Table
from host_bridge.director import Stage as TournamentStage
from tests.director.helpers import hand, started
from tests.sync.conftest import ROOT, Mosquitto
from tests.sync.floor import FloorRecorder
from tests.sync.harness import GUARD
from tests.table.conftest import DECKMAP, Dealer


def start_table(db: Path, port: int, *extra: str) -> subprocess.Popen[str]:
    """``pitboss table run --profile virtual ...`` (a cash table) as a subprocess."""
    return subprocess.Popen(
        [sys.executable, "-m", "controller.table_runner", "table", "run", "--profile", "virtual",
         "--table", "t1", "--broker", f"127.0.0.1:{port}", "--db", str(db), "--site", "test",
         *extra], cwd=ROOT, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def events_of(journal: Journal) -> list[tuple[int, PublicEvent]]:
    return [(p.seq, parse_message(EventMessage, p.public).event)
            for p in journal.parcels(0, limit=10**9)]


# ------------------------------------------------------------------------------ CRASH-2
def test_crash_2_cash_hand_stopped_by_a_kill_is_cancelled_every_bet_returned(
        broker: Mosquitto, tmp_path: Path) -> None:
    db = tmp_path / "t1.db"
    rng = random.Random(2)

    async def scenario() -> None:
        async with FloorRecorder(broker.port) as host:
            cut: PublicState | None = None
            for i in range(12):  # kill until one lands with chips in the pot
                node = start_table(db, broker.port, "--autoplay", "0", "--seed", f"c2-{i}")
                assert node.stdout is not None
                ready = await asyncio.to_thread(node.stdout.readline)
                assert ready.startswith("READY"), ready
                await asyncio.sleep(rng.uniform(0.05, 0.3))
                node.send_signal(signal.SIGKILL)
                await asyncio.to_thread(node.communicate)
                left = Journal(db, table="t1", read_only=True)
                try:
                    state = left.state
                finally:
                    left.close()
                if state.hand_in_progress and state.hand is not None \
                        and state.hand.pot_total > 0:
                    cut = state
                    break
            assert cut is not None, "no kill landed with bets in the pot"
            final = start_table(db, broker.port, "--autoplay", "1", "--drain",
                                "--seed", "c2-final")
            async with asyncio.timeout(GUARD):
                out, err = await asyncio.to_thread(final.communicate)
            assert final.returncode == 0, err[-2000:]
            assert "DRAINED" in out
            journal = Journal(db, table="t1", read_only=True)
            try:
                async with asyncio.timeout(GUARD):
                    await host.until(lambda: host.tables["t1"].contiguous == journal.last_seq)
                events = events_of(journal)
                stored = host.tables["t1"].events
                parcels = {p.seq: p.public for p in journal.parcels(0, limit=10**9)}
            finally:
                journal.close()
        voids = [(i, seq, e) for i, (seq, e) in enumerate(events)
                 if isinstance(e, HandVoided) and e.hand_no == cut.hand_no]
        assert len(voids) == 1  # the hand is cancelled, once
        index, seq, void = voids[0]
        assert void.stacks == cut.start_stacks
        assert not any(isinstance(e, HandEnded) and e.hand_no == cut.hand_no
                       for _, e in events)  # never settled as if played
        state = PublicState()
        for _, event in events[: index + 1]:
            state = fold(state, event)
        stacks = {s.seat: s.stack for s in state.seats}
        # every bet returned to its player: each seat has what it started the hand with
        assert tuple(stacks[s] for s in cut.hand_seats) == cut.start_stacks
        assert not state.hand_in_progress
        assert stored[seq] == parcels[seq]  # the host was told, byte for byte

    asyncio.run(scenario())


# ------------------------------------------------------------------------------ CRASH-4
def test_crash_4_tournament_cancelled_after_a_crash_compensates_under_cancel() -> None:
    t = started(4, {1: 9})
    a, b, c, d = sorted(t.floor.where)
    hand(t, 1, {a: -10_000, b: 10_000})  # a hand that was played out
    # the next hand is cut short by the crash: the table voids it (CRASH-1) and the
    # director receives no result for it, so the stacks stay as that hand began
    t.hand_started(1, random.Random(0))
    stacks_at_crash = {p: t.entry(p).stack for p in (b, c, d)}
    assert stacks_at_crash[b] == 20_000
    comp = t.cancel()  # the floor cannot go on: the tournament is cancelled
    assert t.stage is TournamentStage.CANCELLED
    assert set(comp) == {b, c, d}  # the players still in, compensated
    assert all(x.rule == "CANCEL-2" for x in comp.values())  # before the money
    pool = t.pool.collected
    assert sum(x.prize for x in comp.values()) == pool  # the whole pool goes back
    # CANCEL-2: half shared equally, half in proportion to the chips left
    total = sum(stacks_at_crash.values())
    for p, x in comp.items():
        assert abs(x.prize - (pool // 2 // 3 + pool // 2 * stacks_at_crash[p] // total)) <= 2
    assert all(x.fees == 1_000 for x in comp.values())  # and their fees


# ------------------------------------------------------------------------------ CRASH-5
HANDS = {1: "AsKs", 3: "QdQc", 5: "7h2c"}


def test_crash_5_reader_malfunction_at_showdown_voids_pays_and_plays(tmp_path: Path) -> None:
    async def run() -> None:
        journal = Journal(tmp_path / "t1.db", table="t1")
        try:
            async with Outbox(journal) as outbox:
                sink = TableJournal(outbox)
                hw = MockTable(load_profile("virtual"))
                table = Table(hw, sink=sink, levels=(Level(5, 10),), deck=DECKMAP,
                              profile=LIVE_CASH)
                for seat in HANDS:
                    table.take_seat(seat, f"player{seat}", 1_000)
                table.set_button(5)
                dealer = Dealer(table, hw)
                dealer.press("deal")
                dealer.deal(HANDS)
                assert table.raise_to(40) and table.call() and table.call()  # 120 in
                for burn, cards in (("2d", "3d4d5d"), ("6h", "8c"), ("6s", "9h")):
                    dealer.street(burn, cards)
                    assert table.check() and table.check() and table.check()
                assert table.stage is Stage.SHOWDOWN and journal.state.hand_in_progress
                # the malfunction: the river card is read at seat 1's antenna too
                dealer.place("seat1", "9h")
                flagged = [e for e in dealer_events(journal) if isinstance(e, Irregularity)]
                assert flagged and flagged[-1].what == "two_readers"
                assert "misdeal" in flagged[-1].choices
                assert table.resolve("misdeal")  # the dealer's misdeal key
                hw.close()
            events = [e for _, e in events_of(journal)]
        finally:
            journal.close()
        start = next(e for e in events if isinstance(e, HandStarted))
        void = [e for e in events if isinstance(e, MisdealDeclared)]
        assert len(void) == 1 and void[0].stacks == start.stacks == (1_000, 1_000, 1_000)
        assert not any(isinstance(e, PotAwarded | HandEnded) for e in events)  # no pay
        reopened = Journal(tmp_path / "t1.db", table="t1", read_only=True)
        try:
            assert not reopened.state.hand_in_progress
            assert [s.stack for s in reopened.state.seats] == [1_000, 1_000, 1_000]
        finally:
            reopened.close()

    asyncio.run(run())


def dealer_events(journal: Journal) -> list[PublicEvent]:
    return [e for _, e in events_of(journal)]
