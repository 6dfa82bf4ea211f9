"""Small builders for director tests."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from controller.clocks.structure import Break, structure
from controller.rules.config import LIVE_TOURNAMENT, RulesProfile
from host_bridge.director import HandResult, PayoutStructure, Tournament, TournamentSetup

LEVELS = [(50, 100, 0), (100, 200, 0), (150, 300, 25), (200, 400, 50), (300, 600, 75)]


def setup(**kw: Any) -> TournamentSetup:
    base: dict[str, Any] = dict(
        name="test", structure=structure(LEVELS, level_minutes=20,
                                         breaks=[Break(2, 600, add_on=True)]),
        buy_in=10_000, fee=1_000, starting_stack=10_000, seats_per_table=9,
        payouts=PayoutStructure(((10, (7000, 3000)), (100, (5000, 3000, 2000)))))
    base.update(kw)
    return TournamentSetup(**base)


def started(players: int, tables: Mapping[int, int] | None = None,
            profile: RulesProfile = LIVE_TOURNAMENT, seed: int = 1, **kw: Any) -> Tournament:
    t = Tournament(setup(**kw), profile, tables or {1: 9, 2: 9})
    rng = random.Random(seed)
    for i in range(players):
        t.register(f"p{i}", rng)
    t.start(rng)
    return t


def hand(t: Tournament, table: int, changes: Mapping[str, int], rng: random.Random | None = None,
         h4h: int | None = None, knockouts: Mapping[str, tuple[str, ...]] | None = None
         ) -> list[str]:
    """Play one hand at ``table`` where stacks change by ``changes`` (must sum to 0)."""
    rng = rng or random.Random(0)
    t.hand_started(table, rng)
    start = {p: t.entry(p).stack for p in t.floor.tables[table].players.values()}
    end = {p: s + changes.get(p, 0) for p, s in start.items()}
    return t.hand_ended(HandResult(table, start, end, h4h_hand=h4h,
                                   knockouts=dict(knockouts or {})), rng)


def same_table(t: Tournament, n: int) -> tuple[int, list[str]]:
    """A table and ``n`` players seated there."""
    for tid, ts in t.floor.tables.items():
        if len(ts.players) >= n:
            return tid, sorted(ts.players.values())[:n]
    raise AssertionError("no table that big")
