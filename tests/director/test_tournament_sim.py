"""A simulated tournament on the pure director model, checked after every hand.

Hands are played by the lightweight chip-transfer simulator in ``sim.py`` (positions from
``controller.rules.button``; blinds, antes and all-ins as chip transfers), and in separate
runs by the rules engine (``controller.rules.hand.Hand``) with random legal play from
``tests/rules/randplay.py``, whose wild play busts the field in fewer hands. After every
hand: every player seated once, no table over its seats, chips
conserved, finishing places unique and complete (TOURN-2/4/19/21/22/24/28, TOURN-10).
"""

from __future__ import annotations

import time

import pytest

from controller.rules.config import ONLINE
from host_bridge.director import Stage

from .sim import run


def _finished(players: int, t, fig) -> None:  # type: ignore[no-untyped-def]
    assert t.stage is Stage.FINISHED
    entries = len(t.entries)
    assert entries == players + fig.late_entries
    spans = t.places()
    assert len(spans) == entries
    covered = sorted(p for best, worst in set(spans.values()) for p in range(best, worst + 1))
    assert covered == list(range(1, entries + 1))
    (winner,) = [e for e in t.alive()]
    assert winner.stack == t.issued - t.removed
    pay = t.payouts()
    bounties = sum(e.bounty_won for e in t.entries.values()) + winner.bounty
    assert sum(pay.values()) - bounties == t.pool.total
    assert fig.hands > 0 and fig.checks >= fig.hands


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_tourn_sim_60_players_to_a_winner(seed: int) -> None:
    t, fig = run(players=60, tables=7, seed=seed)
    _finished(60, t, fig)
    assert fig.breaks >= 4 and fig.moves > 0 and fig.redraw  # TOURN-19/21/28
    assert fig.levels > 2 and fig.rebuys > 0


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_tourn_sim_60_players_on_the_rules_engine(seed: int) -> None:
    t, fig = run(players=60, tables=7, seed=seed, engine=True)
    _finished(60, t, fig)
    assert fig.redraw and fig.breaks >= 4


def test_tourn_sim_hand_for_hand_reached_at_the_bubble() -> None:
    seen = 0
    for seed in range(4, 10):
        t, fig = run(players=60, tables=7, seed=seed)
        _finished(60, t, fig)
        seen += fig.h4h_hands
    assert seen > 0  # TOURN-22 played in some of the runs


def test_tourn_sim_online_profile() -> None:
    t, fig = run(players=60, tables=7, seed=5, profile=ONLINE)
    _finished(60, t, fig)


@pytest.mark.slow
def test_tourn_sim_200_players_on_20_tables() -> None:
    began = time.perf_counter()
    figures = []
    for seed in range(10):
        t, fig = run(players=200, tables=20, seed=seed, seats=10)
        _finished(200, t, fig)
        figures.append(fig)
    elapsed = time.perf_counter() - began
    hands = sum(f.hands for f in figures)
    engine_began = time.perf_counter()
    for seed in range(10):
        t, fig = run(players=200, tables=20, seed=seed, seats=10, engine=True)
        _finished(200, t, fig)
        figures.append(fig)
    engine_s = time.perf_counter() - engine_began
    print(f"\n200 players x 10 runs x 2 simulators (engine runs {engine_s:.2f} s): "
          f"{hands} hands, {sum(f.moves for f in figures)} moves, "
          f"{sum(f.breaks for f in figures)} breaks, {sum(f.h4h_hands for f in figures)} "
          f"hand-for-hand hands, {sum(f.shared_places for f in figures)} shared places, "
          f"{elapsed:.2f} s")
