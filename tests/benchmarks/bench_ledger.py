"""What the journal's state fold costs (prints figures; asserts nothing about time).

    .venv/bin/python tests/benchmarks/bench_ledger.py [--hands N]

The virtual table (6 players, mock hardware, the full table loop) plays N hands; each
event it hands the journal is folded into the public state as ``Journal.append`` does
(:func:`controller.sync.ledger.fold`, hole and burn cards split off first). Printed:

1. the table alone, and the table with the fold in its sink, in hands per second on CPU
   time (the virtual table's budget is >= 500 hands/s);
2. the fold alone over the same events: microseconds per event and per hand, with the
   engine's view of the hand in play (``PublicState.hand``) and, for comparison, with
   that view switched off (the fold as it was before the view existed);
3. how many whole-log replays the view needed (the engine hand is kept between steps:
   one per hand, at its start);
4. the virtual table with the real journal in its sink (``Journal.append`` per event, as
   the live table's sink does: SQLite WAL, ``synchronous=FULL``), with and without the
   hand view, in hands per second on the wall clock.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from controller.events import JournalEvent, PublicEvent, PublicState, is_secret
from controller.sync import ledger
from controller.sync.hand_view import LIVE_HANDS
from controller.sync.journal import Journal
from controller.table.virtual import VirtualTable


def public(event: JournalEvent) -> PublicEvent:
    """The journal's split: a secret event's public face."""
    return event.public() if is_secret(event) else event  # type: ignore[union-attr,return-value]


def play(hands: int, fold: bool) -> tuple[float, list[PublicEvent], PublicState]:
    """CPU seconds for ``hands`` hands; the public events; the state folded (if asked)."""
    events: list[PublicEvent] = []
    folded = [PublicState()]

    def sink(event: JournalEvent) -> None:
        one = public(event)
        events.append(one)
        if fold:
            folded[0] = ledger.fold(folded[0], one)

    vt = VirtualTable(players=6, seed=1, sink=sink)
    cpu = time.process_time()
    vt.play_hands(hands)
    return time.process_time() - cpu, events, folded[0]


def fold_all(events: list[PublicEvent]) -> float:
    """CPU seconds to fold ``events`` from an empty state."""
    state = PublicState()
    cpu = time.process_time()
    for event in events:
        state = ledger.fold(state, event)
    return time.process_time() - cpu


def journaled(hands: int, folder: Path) -> float:
    """Wall seconds for ``hands`` hands with every event journaled as it comes."""
    journal = Journal(folder / f"bench-{time.monotonic_ns()}.db", table="bench")
    try:
        def sink(event: JournalEvent) -> None:
            journal.append([event])

        vt = VirtualTable(players=6, seed=1, sink=sink)
        start = time.perf_counter()
        vt.play_hands(hands)
        return time.perf_counter() - start
    finally:
        journal.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=1000)
    args = parser.parse_args(argv)
    hands = args.hands
    bare, _, _ = play(hands, fold=False)
    replays = LIVE_HANDS.replays
    with_fold, events, state = play(hands, fold=True)
    replays = LIVE_HANDS.replays - replays
    print(f"1. virtual table, 6 players, {hands} hands on CPU time: {hands / bare:,.0f} "
          f"hands/s alone, {hands / with_fold:,.0f} hands/s with the state fold in its sink "
          "(budget >= 500)")
    view = min(fold_all(events) for _ in range(3))
    with mock.patch.object(ledger, "hand_public", lambda *_a, **_k: None):
        without = min(fold_all(events) for _ in range(3))
    per = len(events) / hands
    print(f"2. the fold alone, {len(events):,} events ({per:.1f} per hand): "
          f"{view / len(events) * 1e6:.1f} us/event, {view / hands * 1e3:.2f} ms/hand with "
          f"the engine's hand view; {without / len(events) * 1e6:.1f} us/event, "
          f"{without / hands * 1e3:.2f} ms/hand without it")
    print(f"3. whole-log replays while playing: {replays} for {state.hand_no} hands started")
    journal_hands = max(1, hands // 5)
    with tempfile.TemporaryDirectory(dir=Path(__file__).parent) as folder:
        on = journaled(journal_hands, Path(folder))
        with mock.patch.object(ledger, "hand_public", lambda *_a, **_k: None):
            off = journaled(journal_hands, Path(folder))
    print(f"4. virtual table journaling every event, {journal_hands} hands: "
          f"{journal_hands / on:,.1f} hands/s with the hand view, {journal_hands / off:,.1f} "
          "without it (each event an fsynced commit)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
