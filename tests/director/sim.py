"""A simulated tournament on the pure director model, for the invariant tests.

Hands are played by a lightweight chip-transfer simulator, not the rules engine: each
table's positions come from ``controller.rules.button`` (first_hand/next_hand, so the
dead button, newcomers and heads-up rules are the real ones), the blinds and antes of the
level are posted, and two random dealt players contest the pot, going all-in against each
other with some probability. That conserves chips by construction and is fast enough for
200 players; the engine itself is tested in tests/rules.

After every hand :meth:`Tournament.check` asserts: every player seated once, no table
over its seats, chips conserved, finishing places unique and complete.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from controller.clocks.structure import Break, structure
from controller.rules.button import Positions, SeatStatus, first_hand, next_hand
from controller.rules.config import LIVE_TOURNAMENT, RulesProfile, Variant
from host_bridge.director import (
    HandForHand,
    HandResult,
    PayoutStructure,
    SeatingError,
    Stage,
    Tournament,
    TournamentSetup,
)
from tests.rules.randplay import play_random_hand

LEVELS = [(25, 50, 0), (50, 100, 0), (75, 150, 25), (100, 200, 25), (150, 300, 50),
          (200, 400, 50), (300, 600, 75), (400, 800, 100), (600, 1200, 200),
          (1000, 2000, 300), (1500, 3000, 500), (2000, 4000, 500), (3000, 6000, 1000),
          (5000, 10000, 1000), (8000, 16000, 2000), (10000, 20000, 3000)]


def _pay(places: int) -> tuple[int, ...]:
    """A descending payout of ``places`` places in basis points summing to 10,000."""
    weights = [places - i + places // 2 for i in range(places)]
    bps = [10_000 * w // sum(weights) for w in weights]
    bps[0] += 10_000 - sum(bps)
    return tuple(bps)


PAYOUTS = PayoutStructure(((30, _pay(4)), (100, _pay(9)), (1000, _pay(27))))


@dataclass
class Figures:
    hands: int = 0
    rounds: int = 0
    moves: int = 0
    breaks: int = 0
    h4h_hands: int = 0
    shared_places: int = 0
    rebuys: int = 0
    late_entries: int = 0
    checks: int = 0
    levels: int = 1
    redraw: bool = False
    notes: list[str] = field(default_factory=list)


def make_tournament(players: int, tables: int, profile: RulesProfile = LIVE_TOURNAMENT,
                    seats: int = 9) -> Tournament:
    setup = TournamentSetup(
        name="sim", structure=structure(LEVELS, level_minutes=20,
                                        breaks=[Break(2, 600, add_on=True)]),
        buy_in=10_000, fee=1_000, starting_stack=5_000, seats_per_table=seats,
        late_registration_levels=2, rebuy_levels=2, rebuy_price=10_000, rebuy_fee=1_000,
        payouts=PAYOUTS, guarantee=players * 9_000, bounty=2_000)
    t = Tournament(setup, profile, dict.fromkeys(range(1, tables + 1), seats))
    rng = random.Random(1)
    for i in range(players):
        t.register(f"p{i:03d}", rng)
    return t


def _positions(t: Tournament, table: int, newcomers: set[str]) -> Positions | None:
    ts = t.floor.tables[table]
    seats = [SeatStatus(s, t.entry(p).stack, new=p in newcomers)
             for s, p in sorted(ts.players.items())]
    if sum(1 for s in seats if s.stack > 0) < 2:
        return None
    if ts.last is None:
        return first_hand(seats, button=ts.button, tournament=True, profile=t.profile)
    return next_hand(ts.last, seats, tournament=True, profile=t.profile)


def _play_engine(t: Tournament, table: int, pos: Positions, rng: random.Random
                 ) -> tuple[dict[str, int], bool]:
    """One hand on the rules engine with random legal play (tests/rules/randplay.py)."""
    lv = t.setup.structure.level(t.level)
    seat_to = dict(t.floor.tables[table].players)
    stacks = {p: t.entry(p).stack for p in seat_to.values()}
    by_seat = {s: stacks[p] for s, p in seat_to.items()}
    config = pos.game_config(Variant.NT, by_seat, lv.small_blind, lv.big_blind,
                             antes=tuple(lv.ante for _ in pos.dealt))
    played, _, _ = play_random_hand(config, rng, profile=t.profile)
    for seat, chips in zip(pos.dealt, played.stacks, strict=True):
        stacks[seat_to[seat]] = chips
    return stacks, any(c == 0 for c in played.stacks)


def _play(t: Tournament, table: int, pos: Positions, rng: random.Random
          ) -> tuple[dict[str, int], bool]:
    """Chip transfers for one hand; returns the end stacks and whether it was an all-in."""
    lv = t.setup.structure.level(t.level)
    seat_to = dict(t.floor.tables[table].players)
    stacks = {p: t.entry(p).stack for p in seat_to.values()}
    dealt = [seat_to[s] for s in pos.dealt]
    pot = 0

    def post(p: str, amount: int) -> None:
        nonlocal pot
        paid = min(amount, stacks[p])
        stacks[p] -= paid
        pot += paid

    for p in dealt:
        post(p, lv.ante)
    if pos.small_blind is not None:
        post(seat_to[pos.small_blind], lv.small_blind)
    post(seat_to[pos.big_blind], lv.big_blind)
    a, b = rng.sample(dealt, 2)
    all_in = rng.random() < 0.35
    if all_in:
        risk = min(stacks[a], stacks[b])
        stacks[a] -= risk
        stacks[b] -= risk
        pot += 2 * risk
    winner = a if rng.random() < 0.5 else b
    stacks[winner] += pot
    return stacks, all_in


def run(players: int = 60, tables: int = 7, seed: int = 7,
        profile: RulesProfile = LIVE_TOURNAMENT, seats: int = 9, max_rounds: int = 20_000,
        engine: bool = False) -> tuple[Tournament, Figures]:
    """Play a tournament to a winner; ``engine`` plays hands on the rules engine."""
    rng = random.Random(seed)
    t = make_tournament(players, tables, profile, seats)
    fig = Figures()
    t.start(rng)
    t.check()
    h4h: HandForHand | None = None
    late = 0
    while t.stage is Stage.RUNNING:
        fig.rounds += 1
        if fig.rounds > max_rounds:
            raise AssertionError("the simulated tournament does not end")
        if fig.rounds % 12 == 0:
            t.set_level(t.level + 1, rng)
            fig.levels = t.level
        if t.late_registration_open() and late < players // 12 and rng.random() < 0.3:
            try:
                t.register(f"late{late:02d}", rng)
            except SeatingError as exc:  # TOURN-4: no seat outside the blinds
                fig.notes.append(str(exc))
            else:
                fig.late_entries += 1
            late += 1
        # between rounds every table is idle: hand-for-hand ends in the money; final
        # table redraw (TOURN-28) when everyone fits at one table; else break (TOURN-21)
        if h4h is not None and len(t.alive()) <= t.places_paid():
            h4h = None
        live = [tid for tid, ts in t.floor.tables.items() if ts.players]
        target = t.floor.table_to_break()
        if len(live) > 1 and len(t.floor.where) <= t.setup.seats_per_table and h4h is None:
            fig.moves += len(t.floor.final_table_redraw(min(live), rng)[0])
            fig.redraw = True
        elif target is not None:
            fig.moves += len(t.floor.break_table(target, rng))
            fig.breaks += 1
            if h4h is not None:
                h4h.remove_table(target)
        moves = t.floor.suggest_balance(rng)
        t.floor.apply_all(moves)
        fig.moves += len(moves)
        t.check()
        fig.checks += 1
        alive = len(t.alive())
        live = [tid for tid, ts in t.floor.tables.items() if ts.players]
        if h4h is None and 0 < alive - t.places_paid() <= 2 and len(live) > 1:
            h4h = HandForHand(live)
        _round(t, h4h, rng, fig, _play_engine if engine else _play)
    t.check()
    spans = set(t.places().values())
    fig.shared_places = sum(1 for best, worst in spans if worst > best)
    return t, fig


def _round(t: Tournament, h4h: HandForHand | None, rng: random.Random, fig: Figures,
           play: Callable[[Tournament, int, Positions, random.Random],
                          tuple[dict[str, int], bool]]) -> None:
    order = sorted(tid for tid, ts in t.floor.tables.items() if ts.players)
    rng.shuffle(order)
    started: list[tuple[int, Positions, int | None]] = []
    for tid in order:
        if t.stage is not Stage.RUNNING:
            return
        ts = t.floor.tables[tid]
        newcomers = set(ts.newcomers)
        for key in list(t.pending):  # TOURN-10: rebuy before the hand
            player = t.entries[key].player
            if t.floor.where[player][0] == tid and rng.random() < 0.5 and t.rebuys_open():
                t.rebuy(player)
                fig.rebuys += 1
        if sum(1 for p in ts.players.values() if t.entry(p).stack > 0) < 2:
            if h4h is not None and tid in h4h.may_deal():  # one player: waits for a move
                h4h.skip(tid)
            continue
        t.hand_started(tid, rng)  # settles pending busts who did not rebuy
        pos = _positions(t, tid, newcomers)
        assert pos is not None
        number = h4h.hand_started(tid) if h4h is not None else None
        started.append((tid, pos, number))
    frozen: list[tuple[int, HandResult]] = []
    for tid, pos, number in started:
        start = {p: t.entry(p).stack for p in t.floor.tables[tid].players.values()}
        end, all_in = play(t, tid, pos, rng)
        result = HandResult(tid, start, end, pos, h4h_hand=number)
        if h4h is not None and all_in:
            h4h.all_in(tid)
            frozen.append((tid, result))
            continue
        _finish(t, h4h, result, rng, fig)
    while frozen:
        assert h4h is not None
        released = h4h.may_finish()
        assert released is not None, "a frozen all-in table is never released"
        result = next(r for tid, r in frozen if tid == released)
        frozen = [(tid, r) for tid, r in frozen if tid != released]
        _finish(t, h4h, result, rng, fig)


def _finish(t: Tournament, h4h: HandForHand | None, result: HandResult, rng: random.Random,
            fig: Figures) -> None:
    if h4h is not None:
        h4h.hand_ended(result.table)
        fig.h4h_hands += 1
    t.hand_ended(result, rng)
    fig.hands += 1
    t.check()
    fig.checks += 1
