"""PHH files parsed and replayed per second, Pitboss against PokerKit (``pitboss bench
phh``; DESIGN.md budget: >= 20x PokerKit's ``HandHistory`` load + replay, same files, same
run).

Every file of the corpus (default ``../shared/phh`` beside the checkout) is read into
memory once, untimed, as bytes. Then, in interleaved rounds (best of ``--rounds``, CPU time
of this process, so other processes on a shared machine favour neither side):

- Pitboss: decode and read each file (``loads_file``: the fast TOML reader, tomllib where
  a file leaves its subset), then replay each hand as ``pitboss replay`` does
  (``replay_one``: the engine, the file's finishing stacks and rake compared);
- PokerKit: ``HandHistory.load`` of each file, then iterate its states to the end (the
  replay: every action applied, the pots pushed and pulled);
- for the split, Pitboss's reading with tomllib alone (``fast=False``), the reference the
  fast reader is held to.

Untimed checks before the clock starts: every hand replays ok in Pitboss, both sides read
the same number of hands, and the fast reader gives the same hands as tomllib.
"""

from __future__ import annotations

import argparse
import io
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from controller.phh_files import iter_paths
from controller.replay_command import replay_one
from controller.rules.phh import HandHistory, loads_file

BUDGET_RATIO = 20.0
CORPUS = Path(__file__).resolve().parents[3] / "shared" / "phh"

Corpus = list[tuple[str, bytes]]


def read_corpus(root: Path, files: int | None) -> Corpus:
    """(name, bytes) of the first ``files`` PHH files under ``root`` (all by default)."""
    if not root.is_dir():
        raise SystemExit(f"the PHH corpus {root} is absent: pass --corpus PATH (a folder of "
                         ".phh/.phhs files, e.g. ../shared/phh beside the checkout)")
    paths = list(iter_paths([root]))[:files]
    if not paths:
        raise SystemExit(f"no .phh or .phhs files under {root}")
    return [(str(p), p.read_bytes()) for p in paths]


def parse_ours(corpus: Corpus, *, fast: bool = True) -> list[tuple[str, HandHistory]]:
    """Every hand of the corpus, read by Pitboss."""
    return [(name, hand) for name, data in corpus
            for hand in loads_file(data.decode(), name, fast=fast)]


def replay_ours(hands: list[tuple[str, HandHistory]]) -> int:
    """Replay every hand as ``pitboss replay`` does; the number that replayed ok."""
    return sum(replay_one(hand, name, None).ok for name, hand in hands)


def load_theirs(corpus: Corpus) -> list[Any]:
    """Every hand of the corpus, read by PokerKit's ``HandHistory.load``."""
    import pokerkit

    out: list[Any] = []
    for name, data in corpus:
        if name.endswith(".phhs"):
            out.extend(pokerkit.HandHistory.load_all(io.BytesIO(data)))
        else:
            out.append(pokerkit.HandHistory.load(io.BytesIO(data)))
    return out


def replay_theirs(hands: list[Any]) -> int:
    """Iterate every PokerKit hand history's states to the end; the number of states."""
    states = 0
    for hand in hands:
        for _ in hand:
            states += 1
    return states


def _cpu(work: Callable[[], object]) -> tuple[float, Any]:
    start = time.process_time()
    result = work()
    return time.process_time() - start, result


def check(corpus: Corpus) -> tuple[int, int]:
    """Untimed: the hands both sides read, and that Pitboss's are right."""
    ours = parse_ours(corpus)
    reference = parse_ours(corpus, fast=False)
    if [h for _, h in ours] != [h for _, h in reference]:
        raise SystemExit("the fast PHH reader and tomllib disagree on this corpus: a bug "
                         "(tests/rules/test_phh_fast.py says where)")
    ok = replay_ours(ours)
    if ok != len(ours):
        raise SystemExit(f"{len(ours) - ok} of {len(ours)} hands do not replay ok: run "
                         "'pitboss replay --json' on the corpus to see which")
    return len(ours), len(load_theirs(corpus))


def run(corpus: Corpus, rounds: int = 3) -> dict[str, float]:
    """Best-of-``rounds`` CPU seconds for each part, interleaved, and the hands counted."""
    best: dict[str, float] = {}

    def keep(part: str, seconds: float) -> None:
        best[part] = min(best.get(part, float("inf")), seconds)

    hands, theirs_hands = check(corpus)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PokerKit warns about fields it does not know
        for _ in range(rounds):
            seconds, ours = _cpu(lambda: parse_ours(corpus))
            keep("ours_parse", seconds)
            keep("ours_replay", _cpu(lambda: replay_ours(ours))[0])  # noqa: B023
            keep("tomllib_parse", _cpu(lambda: parse_ours(corpus, fast=False))[0])
            seconds, theirs = _cpu(lambda: load_theirs(corpus))
            keep("theirs_load", seconds)
            keep("theirs_replay", _cpu(lambda: replay_theirs(theirs))[0])  # noqa: B023
    return {**best, "hands": hands, "theirs_hands": theirs_hands, "files": len(corpus)}


def report(figures: dict[str, float]) -> bool:
    """Print each figure beside the budget (MET or MISSED); True when it is met."""
    hands, files = int(figures["hands"]), int(figures["files"])
    ours = figures["ours_parse"] + figures["ours_replay"]
    theirs = figures["theirs_load"] + figures["theirs_replay"]
    ours_rate, theirs_rate = hands / ours, figures["theirs_hands"] / theirs
    ratio = ours_rate / theirs_rate
    need = BUDGET_RATIO * theirs_rate  # hands/s the budget asks of Pitboss in this run

    def verdict(value: float, wanted: float) -> str:
        return f"{'MET' if value >= wanted else 'MISSED'}, budget >= {wanted:,.0f}"

    def row(name: str, parse: float, replay: float, count: float) -> None:
        total = parse + replay
        print(f"  {name:<9} {count / total:>9,.0f} hands/s   read {count / parse:>9,.0f}/s "
              f"({parse / total:>4.0%})   replay {count / replay:>9,.0f}/s "
              f"({replay / total:>4.0%})")

    print(f"{files} files, {hands} hands (PokerKit read {int(figures['theirs_hands'])}); "
          "CPU time, best of the rounds")
    row("Pitboss", figures["ours_parse"], figures["ours_replay"], hands)
    row("PokerKit", figures["theirs_load"], figures["theirs_replay"], figures["theirs_hands"])
    print(f"  Pitboss read + replay: {ours_rate:,.0f} hands/s "
          f"({verdict(ours_rate, need)} = {BUDGET_RATIO:.0f}x PokerKit's {theirs_rate:,.0f})")
    print(f"  Pitboss reading with tomllib alone: {hands / figures['tomllib_parse']:,.0f} "
          f"hands/s (the fast reader is x{figures['tomllib_parse'] / figures['ours_parse']:.1f})")
    replay_alone = hands / figures["ours_replay"] / theirs_rate
    read_alone = hands / figures["ours_parse"] / theirs_rate
    print(f"  Pitboss read alone: x{read_alone:.1f}, replay alone: x{replay_alone:.1f} "
          "PokerKit's load + replay")
    met = ratio >= BUDGET_RATIO
    print(f"budget >= {BUDGET_RATIO:.0f}x PokerKit: {'MET' if met else 'MISSED'} (x{ratio:.1f})")
    return met


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=None,
                        help="only the first N files, sorted (default: every file)")
    parser.add_argument("--rounds", type=int, default=3, help="timed rounds, best kept (3)")
    parser.add_argument("--corpus", type=Path, default=CORPUS,
                        help=f"a folder of .phh/.phhs files (default {CORPUS})")
    args = parser.parse_args(argv)
    if (args.files is not None and args.files < 1) or args.rounds < 1:
        parser.error("--files and --rounds take a number >= 1")
    corpus = read_corpus(args.corpus, args.files)
    print(f"Reading and replaying {len(corpus)} PHH files, Pitboss and PokerKit...",
          flush=True)
    report(run(corpus, args.rounds))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
