"""The invariants checked after every hand (issue 9's simulation and the bridge's audits).

* every player still in the event is seated exactly once, and nobody else is;
* no table is over its seats;
* chips are conserved: the stacks in play equal the chips issued (starting stacks,
  rebuys, add-ons, chip-race gains) less those removed (surrender, exclusion, chip-race
  losses);
* finishing places are unique and complete: exactly the entries out have a place (all
  entries once the event is finished), each shared place is held by exactly as many
  entries as it spans, and the places given so far tile the bottom of the field.

A broken invariant is a bug in the director or in a report it accepted, so it raises
``AssertionError`` rather than a rules error.
"""

from __future__ import annotations

from collections.abc import Mapping

from .entries import Entry, Stage
from .seating import Floor


def check_field(stage: Stage, floor: Floor, entries: Mapping[str, Entry],
                places: Mapping[str, tuple[int, int]], *, issued: int, removed: int) -> None:
    """Raise ``AssertionError`` naming the first invariant that does not hold, over a
    tournament's records: its ``stage``, seating chart, entries by key, the places given
    (entry -> (best, worst)), and the chips issued and removed so far."""
    floor.check()
    alive_entries = [e for e in entries.values() if e.in_event]
    seated = set(floor.where)
    alive = {e.player for e in alive_entries}
    if stage is Stage.RUNNING and seated != alive:
        raise AssertionError(f"seated {sorted(seated ^ alive)} disagree with the field")
    in_play = sum(e.stack for e in alive_entries)
    if in_play != issued - removed:
        raise AssertionError(f"chips: {in_play} in play, {issued - removed} issued")
    alive_keys = {e.key for e in alive_entries}
    out = set(entries) - alive_keys
    expected = set(entries) if stage is Stage.FINISHED else out
    if set(places) != expected:
        raise AssertionError(f"placed {sorted(set(places) ^ expected)} disagree with the "
                             "entries out")
    held: dict[tuple[int, int], int] = {}
    for span in places.values():
        held[span] = held.get(span, 0) + 1
    for (best, worst), n in held.items():
        if worst - best + 1 != n:
            raise AssertionError(f"place {best}-{worst} is shared by {n} entries")
    covered = sorted(p for best, worst in held for p in range(best, worst + 1))
    lowest = len(entries) - len(places) + 1
    if covered != list(range(lowest, len(entries) + 1)):
        raise AssertionError(f"places {covered} do not tile {lowest}..{len(entries)}")
