"""Seven-card evaluations per second: Pitboss against treys, phevaluator and eval7.

DESIGN.md budget: the pure-Python 7-card evaluation is at least 10x treys and at least 1x
eval7 (compiled), same hands, same run. Every evaluator gets the same random hands,
converted to its own card type once, outside the timed loop; each is timed over the whole
list, best of a few repeats. treys is pure Python like Pitboss; this phevaluator build and
eval7 are native (C / Cython); phevaluator is listed for reference.

    .venv/bin/python -m tests.benchmarks.bench_evaluators [--hands N] [--seed S]

``run()`` is what ``pitboss bench engine`` calls: it prints nothing and leaves no state.
A peer that is not installed is reported with ``available: False``.
"""

from __future__ import annotations

import argparse
import gc
import random
import time
import warnings
from collections.abc import Callable, Sequence
from itertools import pairwise
from typing import Any, Final

from controller.rules.cards import DECK
from controller.rules.evaluator import evaluate

#: (timed loop, untimed function giving each hand's value, True if higher is better)
Prepared = tuple[Callable[[], None], Callable[[], list[int]], bool]

#: DESIGN.md's budgets: Pitboss's rate over each peer's (tests/test_budgets.py holds
#: them to DESIGN.md's table)
BUDGET_VS_TREYS = 10.0
BUDGET_VS_EVAL7 = 1.0
BUDGETS: Final = (("treys", BUDGET_VS_TREYS), ("eval7", BUDGET_VS_EVAL7))


def random_hands(hands: int, seed: int) -> list[tuple[int, ...]]:
    """``hands`` random 7-card hands (card indexes), the first two being the hole cards."""
    rng = random.Random(seed)
    deck = range(52)
    return [tuple(rng.sample(deck, 7)) for _ in range(hands)]


def _pitboss(hands: Sequence[tuple[int, ...]]) -> Prepared:
    converted = [tuple(DECK[card] for card in hand) for hand in hands]

    def loop() -> None:
        for hand in converted:
            evaluate(hand)

    return loop, lambda: [evaluate(hand) for hand in converted], True


def _treys(hands: Sequence[tuple[int, ...]]) -> Prepared:
    import treys  # type: ignore[import-untyped]

    code = [treys.Card.new(str(card)) for card in DECK]
    converted = [([code[c] for c in hand[:2]], [code[c] for c in hand[2:]]) for hand in hands]
    score = treys.Evaluator().evaluate

    def loop() -> None:
        for hole, board in converted:
            score(hole, board)

    return loop, lambda: [score(hole, board) for hole, board in converted], False


def _phevaluator(hands: Sequence[tuple[int, ...]]) -> Prepared:
    from phevaluator import evaluate_cards  # type: ignore[import-untyped]

    # phevaluator's card ids are Pitboss's (rank * 4 + suit, suits c d h s); checked by
    # the order agreement that run() reports.
    converted = [list(hand) for hand in hands]

    def loop() -> None:
        for hand in converted:
            evaluate_cards(*hand)

    return loop, lambda: [evaluate_cards(*hand) for hand in converted], False


def _eval7(hands: Sequence[tuple[int, ...]]) -> Prepared:
    with warnings.catch_warnings():  # its range parser uses deprecated pyparsing names
        warnings.simplefilter("ignore", DeprecationWarning)
        import eval7  # type: ignore[import-untyped]

    cards = [eval7.Card(str(card)) for card in DECK]
    converted = [[cards[c] for c in hand] for hand in hands]
    score = eval7.evaluate

    def loop() -> None:
        for hand in converted:
            score(hand)

    return loop, lambda: [score(hand) for hand in converted], True


#: name, preparer, pure Python?
EVALUATORS: tuple[tuple[str, Callable[[Sequence[tuple[int, ...]]], Prepared], bool], ...] = (
    ("pitboss", _pitboss, True),
    ("treys", _treys, True),
    ("phevaluator", _phevaluator, False),
    ("eval7", _eval7, False),
)


def _best_time(loop: Callable[[], None], repeats: int) -> float:
    best = float("inf")
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        for _ in range(repeats):
            start = time.perf_counter()
            loop()
            best = min(best, time.perf_counter() - start)
    finally:
        if gc_was_enabled:
            gc.enable()
    return best


def _order(values: list[int], higher_is_better: bool) -> list[int]:
    """-1/0/1 for each consecutive pair of hands: is the first worse, equal or better."""
    flip = 1 if higher_is_better else -1
    return [flip * ((a > b) - (a < b)) for a, b in pairwise(values)]


def run(hands: int, seed: int, *, repeats: int = 3) -> list[dict[str, Any]]:
    """Time each evaluator on the same ``hands`` random 7-card hands from ``seed``.

    One dict per evaluator: ``evaluator``, ``available``, ``pure_python``, ``hands``,
    ``seconds`` (best of ``repeats``), ``evals_per_s``, ``pitboss_ratio`` (Pitboss's rate
    over this one's) and ``agrees`` (same order and ties as Pitboss on consecutive hands).
    """
    if hands < 2 or repeats < 1:
        raise ValueError("run() needs at least 2 hands and 1 repeat")
    deal = random_hands(hands, seed)
    results: list[dict[str, Any]] = []
    pitboss_rate = 0.0
    pitboss_order: list[int] = []
    for name, prepare, pure_python in EVALUATORS:
        row: dict[str, Any] = {"evaluator": name, "pure_python": pure_python, "hands": hands}
        try:
            loop, values, higher_is_better = prepare(deal)
        except ImportError:
            results.append({**row, "available": False})
            continue
        seconds = _best_time(loop, repeats)
        rate = hands / seconds
        order = _order(values(), higher_is_better)
        if name == "pitboss":
            pitboss_rate, pitboss_order = rate, order
        results.append({
            **row,
            "available": True,
            "seconds": seconds,
            "evals_per_s": rate,
            "pitboss_ratio": pitboss_rate / rate,
            "agrees": order == pitboss_order,
        })
    return results


def budget_verdicts(rows: Sequence[dict[str, Any]]) -> list[tuple[str, bool | None]]:
    """Each budget's line (``budget >= 10x treys (pure Python): MET (x12.60)``) and whether
    it is met (None: the peer is not installed, so not measured)."""
    out: list[tuple[str, bool | None]] = []
    for peer, budget in BUDGETS:
        row = next((r for r in rows if r["evaluator"] == peer and r["available"]), None)
        if row is None:
            out.append((f"budget >= {budget:g}x {peer}: not measured, {peer} is not "
                        "installed", None))
            continue
        ratio = row["pitboss_ratio"]
        met = ratio >= budget
        kind = "pure Python" if row["pure_python"] else "compiled"
        out.append((f"budget >= {budget:g}x {peer} ({kind}): {'MET' if met else 'MISSED'} "
                    f"(x{ratio:.2f})", met))
    return out


def main(argv: Sequence[str] | None = None, prog: str | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog=prog, description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--hands", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    rows = run(args.hands, args.seed, repeats=args.repeats)
    print(f"{args.hands:,} random 7-card hands, seed {args.seed}, best of {args.repeats}")
    print(f"{'evaluator':<12} {'kind':<7} {'evals/s':>12} {'pitboss x':>10}  agrees")
    for row in rows:
        if not row["available"]:
            print(f"{row['evaluator']:<12} not installed")
            continue
        kind = "python" if row["pure_python"] else "native"
        print(f"{row['evaluator']:<12} {kind:<7} {row['evals_per_s']:>12,.0f} "
              f"{row['pitboss_ratio']:>10.2f}  {'yes' if row['agrees'] else 'NO'}")
    verdicts = budget_verdicts(rows)
    for line, _ in verdicts:
        print(line)
    return 0 if all(met is not False for _, met in verdicts) else 1


if __name__ == "__main__":
    raise SystemExit(main())
