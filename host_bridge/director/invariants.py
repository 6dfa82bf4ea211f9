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

from typing import TYPE_CHECKING

from .entries import Stage

if TYPE_CHECKING:
    from .tournament import Tournament


def check_tournament(t: Tournament) -> None:
    """Raise ``AssertionError`` naming the first invariant that does not hold."""
    t.floor.check()
    seated = set(t.floor.where)
    alive = {e.player for e in t.alive()}
    if t.stage is Stage.RUNNING and seated != alive:
        raise AssertionError(f"seated {sorted(seated ^ alive)} disagree with the field")
    if t.chips_in_play() != t.issued - t.removed:
        raise AssertionError(f"chips: {t.chips_in_play()} in play, "
                             f"{t.issued - t.removed} issued")
    places = t.places()
    alive_keys = {e.key for e in t.alive()}
    out = set(t.entries) - alive_keys
    expected = set(t.entries) if t.stage is Stage.FINISHED else out
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
    lowest = len(t.entries) - len(places) + 1
    if covered != list(range(lowest, len(t.entries) + 1)):
        raise AssertionError(f"places {covered} do not tile {lowest}..{len(t.entries)}")
