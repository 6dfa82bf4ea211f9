"""Exact all-in equity benchmark (``pitboss bench equity``; DESIGN.md budget: < 50 ms per
question for 2-10 players on the flop, turn and river, and preflop heads-up).

Each case asks :func:`host_bridge.broadcast.equity.equities` about random deals (seeded)
and prints p50, p99 and max beside the budget, MET or MISSED. Preflop with 3+ players
uses the same exact count (``Share.exact`` is True), so it is held to the same budget;
one extra case deals ten suited hands, where flushes cost the most. The tables are built
once before timing (the bridge builds them at start); their build time is printed.

Peers in the same run: the plain loop over every runout with the rules evaluator (the
obvious exact method; preflop is too slow for it: 1.7M boards), and eval7's Monte Carlo
in C at 100,000 samples for preflop heads-up (an estimate, ± about 0.3%).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from functools import partial
from itertools import combinations

from controller.rules.cards import DECK, Card
from controller.rules.evaluator import evaluate
from host_bridge.broadcast.equity import equities, warm_up

BUDGET_MS = 50.0
NAMES = [str(card) for card in DECK]
Deal = tuple[list[tuple[str, str] | None], list[str]]


def random_deal(rng: random.Random, players: int, board: int) -> Deal:
    cards = rng.sample(NAMES, 2 * players + board)
    holes: list[tuple[str, str] | None] = [(cards[2 * i], cards[2 * i + 1])
                                           for i in range(players)]
    return holes, cards[2 * players:]


def suited_deal(rng: random.Random, players: int, board: int) -> Deal:
    """Every hand two of one suit (flush corrections in every suit), then the board."""
    by_suit = {s: [n for n in NAMES if n[1] == s] for s in "cdhs"}
    for cards in by_suit.values():
        rng.shuffle(cards)
    holes: list[tuple[str, str] | None] = []
    for i in range(players):
        suit = by_suit["cdhs"[i % 4]]
        holes.append((suit.pop(), suit.pop()))
    rest = [n for cards in by_suit.values() for n in cards]
    return holes, rng.sample(rest, board)


def loop_equity(deal: Deal) -> list[float]:
    """The obvious exact method: every runout, every hand ranked by the rules evaluator."""
    holes = [[Card.parse(c) for c in h] for h in deal[0] if h]
    board = [Card.parse(c) for c in deal[1]]
    used = {*board, *(c for h in holes for c in h)}
    left = [c for c in DECK if c not in used]
    share = [0.0] * len(holes)
    runouts = 0
    for more in combinations(left, 5 - len(board)):
        values = [evaluate([*h, *board, *more]) for h in holes]
        best = max(values)
        top = [i for i, v in enumerate(values) if v == best]
        for i in top:
            share[i] += 1 / len(top)
        runouts += 1
    return [s / runouts for s in share]


def timed(call: Callable[[], object], repeat: int = 1) -> float:
    """Milliseconds per call."""
    start = time.perf_counter()
    for _ in range(repeat):
        call()
    return (time.perf_counter() - start) * 1000 / repeat


def percentiles(values: list[float]) -> tuple[float, float, float]:
    ordered = sorted(values)
    p99 = ordered[max(0, int(len(ordered) * 0.99) - 1)]
    return statistics.median(ordered), p99, ordered[-1]


def eval7_peer(deals: list[Deal], samples: int) -> tuple[float, float] | None:
    """eval7's C Monte Carlo on the heads-up deals: (median ms, largest equity error)."""
    try:
        import eval7  # type: ignore[import-untyped]
    except ImportError:
        return None
    spent, errors = [], []
    for holes, _ in deals:
        first, second = holes
        assert first is not None and second is not None
        hero = [eval7.Card(c) for c in first]
        villain = eval7.HandRange("".join(second))
        spent.append(timed(partial(eval7.py_hand_vs_range_monte_carlo, hero, villain, [],
                                   samples)))
        estimate = eval7.py_hand_vs_range_monte_carlo(hero, villain, [], samples)
        share = equities(holes, [])[0]
        assert share is not None
        errors.append(abs(estimate - share.equity))
    return statistics.median(spent), max(errors)


def run_case(name: str, deals: list[Deal], peer_deals: int) -> bool:
    """Time every deal; print the figures and the loop peer; True if within budget."""
    spent = [timed(partial(equities, *deal)) for deal in deals]
    p50, p99, worst = percentiles(spent)
    met = p99 < BUDGET_MS and worst < BUDGET_MS
    line = (f"  {name:<28} p50 {p50:6.2f} ms  p99 {p99:6.2f} ms  max {worst:6.2f} ms"
            f"  budget < {BUDGET_MS:.0f} ms: {'MET' if met else 'MISSED'}")
    if peer_deals and len(deals[0][1]) >= 3:
        loop = statistics.median(timed(partial(loop_equity, deal))
                                 for deal in deals[:peer_deals])
        line += f"   (loop with the rules evaluator: {loop:7.2f} ms, {loop / p50:5.1f}x ours)"
    print(line)
    return met


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deals", type=int, default=200, help="random deals per case")
    parser.add_argument("--peer-deals", type=int, default=10,
                        help="deals per case also run through the peers (0: none)")
    parser.add_argument("--samples", type=int, default=100_000,
                        help="eval7 Monte Carlo samples (the preflop peer)")
    parser.add_argument("--seed", type=int, default=21)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)

    build = timed(warm_up)
    print(f"exact equities, {args.deals} random deals per case (tables built once in "
          f"{build:.0f} ms, at bridge start):")
    cases: list[tuple[str, list[Deal]]] = [
        ("preflop heads-up", [random_deal(rng, 2, 0) for _ in range(args.deals)])]
    for players in (3, 6, 10):
        cases.append((f"preflop {players} players (exact)",
                      [random_deal(rng, players, 0) for _ in range(args.deals)]))
    cases.append(("preflop 10 suited (exact)",
                  [suited_deal(rng, 10, 0) for _ in range(args.deals)]))
    for street, board in (("flop", 3), ("turn", 4), ("river", 5)):
        for players in (2, 6, 10):
            cases.append((f"{street} {players} players",
                          [random_deal(rng, players, board) for _ in range(args.deals)]))
    met = [run_case(name, deals, args.peer_deals) for name, deals in cases]
    if args.peer_deals:
        peer = eval7_peer(cases[0][1][:args.peer_deals], args.samples)
        if peer is None:
            print("  eval7 not installed: no Monte Carlo peer (pip install eval7)")
        else:
            ours = statistics.median(timed(partial(equities, *deal))
                                     for deal in cases[0][1][:args.peer_deals])
            print(f"  peer, preflop heads-up: eval7 Monte Carlo (C), {args.samples:,} samples "
                  f"{peer[0]:.2f} ms ({peer[0] / ours:.1f}x ours, exact), largest error "
                  f"{peer[1] * 100:.2f} points of equity")
    print(f"all cases within budget: {'MET' if all(met) else 'MISSED'}")
    return 0 if all(met) else 1


if __name__ == "__main__":
    raise SystemExit(main())
