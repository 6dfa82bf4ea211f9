"""Engine benchmark: random complete 6-max no-limit hold'em hands per second, Pitboss and
PokerKit playing the same operations, plus 7-card evaluations per second against treys,
phevaluator and eval7 (``pitboss bench engine``; DESIGN.md budgets: >= 100x PokerKit
hands; evaluations >= 10x treys and >= 1x eval7). Prints each figure beside its budget as
MET or MISSED; the exit status is 1 when a budget is missed.

Each hand is recorded once, untimed, by playing both engines side by side from one random
deal and one random sequence of legal actions (chosen by Pitboss) and checking they end
with the same stacks. The timed part replays each engine's operations from a fresh state:
set-up and forced bets, hole cards, betting, board, showdown and pots.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from controller.rules.cards import format_cards
from controller.rules.config import LIVE_TOURNAMENT, Variant
from controller.rules.game import GameConfig
from controller.rules.hand import Hand, Phase
from tests.benchmarks import bench_evaluators
from tests.rules.oracle import pokerkit_state
from tests.rules.randplay import apply_step, choose_step, shuffled_deck

PLAYERS = 6
#: DESIGN.md's budget: Pitboss's hands per second over PokerKit's (tests/test_budgets.py)
BUDGET_VS_POKERKIT = 100.0

# One operation: ("dh", player, cards) / ("db", cards) / ("f",) / ("cc",) / ("cbr", to) /
# ("show",). PokerKit's list holds its notation strings for cards.
Op = tuple[object, ...]


@dataclass(frozen=True, slots=True)
class RecordedHand:
    """One hand's set-up and each engine's operations."""

    config: GameConfig
    ours: tuple[Op, ...]
    theirs: tuple[Op, ...]


def record(rng: random.Random) -> RecordedHand | None:
    """Play one random hand in both engines; None if they disagree (a rulebook
    departure of PokerKit's, see tests/rules/test_differential_pokerkit.py)."""
    stacks = tuple(rng.randint(40, 250) * 2 for _ in range(PLAYERS))
    config = GameConfig(Variant.NT, stacks, 1, 2)
    deck = shuffled_deck(rng)
    hand = Hand(config, LIVE_TOURNAMENT)
    state = pokerkit_state(config)
    ours: list[Op] = []
    theirs: list[Op] = []
    for player in range(PLAYERS):
        cards = (deck.pop(), deck.pop())
        hand.deal_hole(player, cards)
        state.deal_hole(format_cards(cards))
        ours.append(("dh", player, cards))
        theirs.append(("dh", format_cards(cards)))
    while not hand.is_complete:
        if hand.phase is Phase.BETTING:
            step = choose_step(hand, rng)
            apply_step(hand, step)
            ours.append(step)
            theirs.append(step)
            if step[0] == "f":
                state.fold()
            elif step[0] == "cc":
                state.check_or_call()
            else:
                state.complete_bet_or_raise_to(step[1])
        elif hand.phase is Phase.DEAL_BOARD:
            while state.actor_index is not None and state.checking_or_calling_amount == 0:
                state.check_or_call()  # PokerKit's formal check with nothing to decide
                theirs.append(("cc",))
            cards = tuple(deck.pop() for _ in range(3 if not hand.board else 1))
            hand.deal_board(cards)
            state.deal_board(format_cards(cards))
            ours.append(("db", cards))
            theirs.append(("db", format_cards(cards)))
        else:
            hand.show()
            ours.append(("show",))
    if list(state.stacks) != hand.stacks:
        return None
    return RecordedHand(config, tuple(ours), tuple(theirs))


def play_pitboss(recorded: RecordedHand) -> list[int]:
    """Replay one hand in Pitboss from a fresh state."""
    hand = Hand(recorded.config, LIVE_TOURNAMENT)
    for op in recorded.ours:
        kind = op[0]
        if kind == "cc":
            hand.check_or_call()
        elif kind == "f":
            hand.fold()
        elif kind == "cbr":
            hand.bet_or_raise_to(op[1])  # type: ignore[arg-type]
        elif kind == "dh":
            hand.deal_hole(op[1], op[2])  # type: ignore[arg-type]
        elif kind == "db":
            hand.deal_board(op[1])  # type: ignore[arg-type]
        else:
            hand.show()
    return hand.stacks


def play_pokerkit(recorded: RecordedHand) -> list[int]:
    """Replay one hand in PokerKit from a fresh state."""
    state = pokerkit_state(recorded.config)
    for op in recorded.theirs:
        kind = op[0]
        if kind == "cc":
            state.check_or_call()
        elif kind == "f":
            state.fold()
        elif kind == "cbr":
            state.complete_bet_or_raise_to(op[1])
        elif kind == "dh":
            state.deal_hole(op[1])
        else:
            state.deal_board(op[1])
    return list(state.stacks)


def _cpu_seconds(play: Callable[[RecordedHand], list[int]], hands: list[RecordedHand]) -> float:
    start = time.process_time()
    for recorded in hands:
        play(recorded)
    return time.process_time() - start


def _rates(hands: list[RecordedHand], theirs_sample: list[RecordedHand],
           rounds: int) -> tuple[float, float]:
    """Hands per CPU-second for each engine, best of ``rounds`` interleaved rounds.

    CPU time of this process (not wall time) and interleaving keep other processes on a
    shared machine from favouring either engine.
    """
    ours = theirs = float("inf")
    for _ in range(rounds):
        ours = min(ours, _cpu_seconds(play_pitboss, hands))
        theirs = min(theirs, _cpu_seconds(play_pokerkit, theirs_sample))
    return len(hands) / ours, len(theirs_sample) / theirs


def run(hands: int = 2000, seed: int = 1, *, repeats: int = 3,
        pokerkit_hands: int | None = None) -> dict[str, object]:
    """Record ``hands`` hands and time both engines on them (PokerKit on the first
    ``pokerkit_hands``, default all: it is slow). Returns the figures."""
    import warnings

    rng = random.Random(seed)
    recorded: list[RecordedHand] = []
    skipped = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # PokerKit's deck-order warnings
        while len(recorded) < hands:
            one = record(rng)
            if one is None:
                skipped += 1
            else:
                recorded.append(one)
        theirs_sample = recorded[: pokerkit_hands or hands]
        for one in theirs_sample[:50]:  # the timed replays give the recorded results
            assert play_pitboss(one) == play_pokerkit(one)
        ours, theirs = _rates(recorded, theirs_sample, repeats)
    actions = sum(len(r.ours) for r in recorded) / len(recorded)
    return {"hands": hands, "skipped": skipped, "ops_per_hand": actions,
            "pitboss_hands_per_s": ours, "pokerkit_hands_per_s": theirs,
            "ratio": ours / theirs}


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hands", type=int, default=2000, help="hands per engine (2000)")
    parser.add_argument("--evals", type=int, default=100_000,
                        help="7-card hands per evaluator (100000)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    print(f"Recording {args.hands} random 6-max NT hands in both engines...", flush=True)
    engine = run(args.hands, args.seed, pokerkit_hands=min(args.hands, 500))
    print(f"  ops per hand {engine['ops_per_hand']:.1f} (deals, actions, shows); "
          f"{engine['skipped']} hands set aside where PokerKit departs from the rules")
    print(f"  Pitboss   {engine['pitboss_hands_per_s']:>12,.0f} hands/s")
    print(f"  PokerKit  {engine['pokerkit_hands_per_s']:>12,.0f} hands/s")
    ratio = float(engine["ratio"])  # type: ignore[arg-type]
    met = ratio >= BUDGET_VS_POKERKIT
    print(f"  ratio     {ratio:>12.1f}x")
    print(f"Timing 7-card evaluations on {args.evals} random hands...", flush=True)
    rows = bench_evaluators.run(args.evals, args.seed)
    for row in rows:
        if not row["available"]:
            print(f"  {row['evaluator']:<12} not installed")
            continue
        kind = "pure Python" if row["pure_python"] else "compiled"
        print(f"  {row['evaluator']:<12} {row['evals_per_s']:>12,.0f} evals/s  "
              f"Pitboss x{row['pitboss_ratio']:.2f}  ({kind})")
    verdicts = [(f"budget >= {BUDGET_VS_POKERKIT:g}x PokerKit (hands): "
                 f"{'MET' if met else 'MISSED'} (x{ratio:.1f})", met),
                *bench_evaluators.budget_verdicts(rows)]
    for line, _ in verdicts:
        print(line)
    return 0 if all(ok is not False for _, ok in verdicts) else 1


if __name__ == "__main__":
    raise SystemExit(main())
