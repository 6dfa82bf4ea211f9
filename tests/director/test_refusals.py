"""A refused command changes nothing: random command sequences on a small tournament.

Each step picks a command (some valid, many not: wrong player, wrong time, bad amounts,
a table mid-hand) and runs it; when it raises a :class:`DirectorError`, the director's
whole state must be as before. After every step the invariants hold.
"""

from __future__ import annotations

import copy
import random
from dataclasses import asdict
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from controller.rules.config import LIVE_TOURNAMENT, ONLINE
from host_bridge.director import DirectorError, HandResult, Stage, Tournament
from host_bridge.director.seating import Move

from .helpers import started


def _state(t: Tournament) -> Any:
    return (
        {k: asdict(e) for k, e in t.entries.items()}, dict(t.current), list(t.waiting),
        copy.deepcopy(t.busts), dict(t.pending), t.issued, t.removed, t.stage, t.level,
        t.on_break_after, dict(t.floor.where),
        {i: (dict(ts.players), ts.in_hand, ts.last, ts.button)
         for i, ts in t.floor.tables.items()},
        t.penalties.given[:], t.floor.closed.copy(), t.bounty_residue,
    )


def _command(t: Tournament, rng: random.Random) -> None:
    players = [*sorted({e.player for e in t.entries.values()}), "ghost"]
    p = rng.choice(players)
    tables = sorted(t.floor.tables)
    tid = rng.choice(tables)
    kind = rng.randrange(13)
    if kind == 0:
        t.rebuy(p)
    elif kind == 1:
        t.add_on(p)
    elif kind == 2:
        t.surrender(p, rng.choice([0, 1, 5_000, 10**9]))
    elif kind == 3:
        t.re_enter(p, rng)
    elif kind == 4:
        t.register(rng.choice([p, f"new{rng.randrange(5)}"]), rng)
    elif kind == 5:
        t.set_level(t.level + rng.choice([-1, 1]), rng)
    elif kind == 6:
        t.start_break()
    elif kind == 7:
        t.hand_started(tid, rng)
    elif kind == 8:  # a hand report, sometimes wrong
        ts = t.floor.tables[tid]
        start = {q: t.entry(q).stack for q in ts.players.values()}
        end = dict(start)
        live = [q for q, s in start.items() if s > 0]
        if len(live) >= 2:
            a, b = rng.sample(live, 2)
            moved = rng.choice([start[a], start[a] // 2, start[a] + 1])
            end[a] -= moved
            end[b] += moved
        if end and rng.random() < 0.2:
            end[rng.choice(sorted(end))] += 1  # a chip from nowhere
        t.hand_ended(HandResult(tid, start, end, h4h_hand=rng.choice([None, 1])), rng)
    elif kind == 9:
        moves = t.floor.suggest_balance(rng)
        if moves and rng.random() < 0.5:
            m = moves[0]
            moves = [Move(m.player, m.from_table, m.from_seat, m.to_table,
                          rng.randint(1, 9), m.rule)]
        t.floor.apply_all(moves)
    elif kind == 10:
        t.exclude(p, disqualify=rng.random() < 0.5)
    elif kind == 11:
        target = t.floor.table_to_break()
        t.floor.break_table(target if target is not None else tid, rng)
    else:
        t.penalties.miss_rounds(p, rng.choice([0, 1]), rng.choice([1, 6]))


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([LIVE_TOURNAMENT, ONLINE]))
def test_refused_commands_change_nothing(seed: int, profile: Any) -> None:
    rng = random.Random(seed)
    t = started(8, {1: 5, 2: 5}, profile=profile, seed=seed, rebuy_levels=2,
                add_on=True, surrender=True, re_entry=True, max_entries=2,
                late_registration_levels=2, bounty=1_000)
    refused = 0
    for _ in range(120):
        if t.stage is not Stage.RUNNING:
            break
        before = _state(t)
        try:
            _command(t, rng)
        except DirectorError:
            refused += 1
            assert _state(t) == before
        t.check()
    assert refused > 0
