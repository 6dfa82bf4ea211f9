"""``pitboss replay``: replay hand histories (PHH, or Open Hand History: OHH) through the
rules engine. A file is read as OHH when its content is JSON (:mod:`controller.phh_files`),
into the same hand history a PHH file gives, so both are checked the same way.

With ``--json`` it prints one object per hand per line::

    {"source": "<path>" or "<path>#<index>", "variant": "NT", "ok": true,
     "finishing_stacks": [...], "error": null}

A hand that cannot be replayed (illegal action, bad file, unsupported variant) or whose
finishing stacks (or ``_rake_taken``, the rake a raked hand paid) differ from the file's
has ``ok`` false and ``error`` says why. Without ``--json`` a readable summary is printed,
with a progress bar on long runs. The exit status is 0 iff every hand was ok.

Each hand is replayed under ``--profile`` when given (a profile name, a rules file, or a
house file of ``deploy/houses``), else under the rules its file records (``_rules``, which
a table writes with every hand it exports), else the live profile.
"""

from __future__ import annotations

import argparse
import json
import sys
import tomllib
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from controller.clocks.house import parse_house
from controller.phh_files import iter_paths, load
from controller.rules.config import LIVE_CASH, RulesProfile, house_profile, profile_named
from controller.rules.errors import RulesError
from controller.rules.phh import HandHistory
from controller.rules.replay import (
    expected_stacks,
    rake_taken,
    replay_history,
    rules_from_history,
)


@dataclass(frozen=True, slots=True)
class Outcome:
    """One hand's replay: the JSON line's fields."""

    source: str
    variant: str | None
    ok: bool
    finishing_stacks: list[int | float] | None
    error: str | None

    def json(self) -> str:
        return json.dumps({"source": self.source, "variant": self.variant, "ok": self.ok,
                           "finishing_stacks": self.finishing_stacks, "error": self.error},
                          ensure_ascii=False)


def _in_file_units(stacks: list[int], scale: int) -> list[int | float]:
    if scale == 1:
        return list(stacks)
    return [s // scale if s % scale == 0 else float(Fraction(s, scale)) for s in stacks]


def replay_one(history: HandHistory, source: str, profile: RulesProfile | None) -> Outcome:
    """Replay one hand and compare it with the file's finishing stacks, if it has them;
    under ``profile``, else the file's own ``_rules``, else the live profile."""
    try:
        profile = profile or rules_from_history(history) or LIVE_CASH
        hand = replay_history(history, profile)
        if not hand.is_complete:
            raise RulesError(f"the history ends before the hand does (at {hand.phase})")
        expected = expected_stacks(history, each=profile.odd_unit_each)
        taken = rake_taken(history)
    except RulesError as exc:
        return Outcome(source, history.variant, False, None, str(exc))
    got = _in_file_units(hand.stacks, history.unit_scale)
    if taken is not None and taken != hand.rake:  # RAKE-1..8: the file's _rake_taken
        file_rake, replay_rake = _in_file_units([taken, hand.rake], history.unit_scale)
        return Outcome(source, history.variant, False, None,
                       f"the rake differs: the file took {file_rake} (_rake_taken), the "
                       f"replay takes {replay_rake} (under its _rake policy)")
    if expected is not None and expected != hand.stacks:
        want = _in_file_units(expected, history.unit_scale)
        return Outcome(source, history.variant, False, None,
                       f"finishing stacks differ: the file has {want}, the replay gives {got}")
    return Outcome(source, history.variant, True, got, None)


def outcomes(paths: list[str], profile: RulesProfile | None) -> Iterator[Outcome]:
    """Every hand under ``paths`` (files or folders, recursively), in order."""
    try:
        files = list(iter_paths(paths))
    except RulesError as exc:
        yield Outcome(str(exc).split(":", 1)[0], None, False, None, str(exc))
        return
    for path in files:
        try:
            hands = load(path)
        except RulesError as exc:
            yield Outcome(str(path), None, False, None, str(exc))
            continue
        for index, history in enumerate(hands, 1):
            source = str(path) if path.suffix == ".phh" else f"{path}#{index}"
            yield replay_one(history, source, profile)


def _profile(name: str) -> RulesProfile:
    """A profile name, a rules file (``base = ...`` plus CONF keys) or a house file."""
    path = Path(name)
    if path.suffix == ".toml" or path.is_file():
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise SystemExit(
                f"pitboss replay: cannot read the house profile {path}: {exc}") from None
        try:
            house_file = "name" in tomllib.loads(text)  # deploy/houses: a whole house
        except tomllib.TOMLDecodeError:
            house_file = False  # house_profile says what is wrong with it
        if house_file:
            return parse_house(text, path.name).rules
        return house_profile(text, source=path.name)
    return profile_named(name)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="pitboss replay", description="Replay hand histories (PHH, or Open Hand History "
        "JSON) through the engine.")
    parser.add_argument("paths", nargs="+", metavar="PATH",
                        help=".phh/.phhs/.ohh/.json files or folders (searched recursively)")
    parser.add_argument("--json", action="store_true", help="one JSON object per hand per line")
    parser.add_argument("--profile", default=None,
                        help="rules profile: live, live-tournament, online, or a house file "
                             "(TOML; deploy/houses); default: each file's own (_rules), "
                             "else live")
    args = parser.parse_args(argv)
    try:
        profile = None if args.profile is None else _profile(args.profile)
    except RulesError as exc:
        print(f"pitboss replay: {exc}", file=sys.stderr)
        return 2
    if args.json:
        all_ok = True
        for outcome in outcomes(args.paths, profile):
            all_ok &= outcome.ok
            print(outcome.json())
        return 0 if all_ok else 1
    return _summary(args.paths, profile)


def _summary(paths: list[str], profile: RulesProfile | None) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    console = Console(stderr=False)
    results: list[Outcome] = []
    by_variant: Counter[str] = Counter()
    with Progress(TextColumn("replaying"), BarColumn(), MofNCompleteColumn(),
                  console=console, transient=True) as progress:
        task = progress.add_task("hands", total=None)
        for outcome in outcomes(paths, profile):
            results.append(outcome)
            by_variant[outcome.variant or "?"] += 1
            progress.advance(task)
    failed = [o for o in results if not o.ok]
    variants = ", ".join(f"{v} {n}" for v, n in sorted(by_variant.items()))
    rules = ("each file's own rules (_rules), else the live profile" if profile is None
             else f"the [bold]{profile.name}[/bold] rules profile")
    console.print(f"Replayed {len(results)} hands ({variants}) under {rules}.")
    console.print(f"[green]{len(results) - len(failed)} ok[/green], "
                  f"[{'red' if failed else 'green'}]{len(failed)} failed[/]")
    for outcome in failed[:20]:
        console.print(f"  [red]✗[/red] {outcome.source}: {outcome.error}", highlight=False)
    if len(failed) > 20:
        console.print(f"  ... and {len(failed) - 20} more (use --json for all)")
    return 0 if not failed else 1
