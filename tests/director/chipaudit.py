"""Every chip of a tournament accounted for from the tables' own events, as the bridge
stored them (issue 19's audit): a table's seats are followed event by event, so the chips
put on the tables (every ``player_seated``: the draw, a re-entry, a move's arrival, a
player seated again) less the chips that left a table (``player_removed``,
``player_moved``) are the chips at the end, and no hand makes or loses a chip.

Pure: it reads ``(table, kind, payload)`` rows in each table's order (seq) and keeps
a list of what did not add up, so a test shows every problem at once.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

VOIDS = ("hand_voided", "misdeal")  # the hand is void: every stack back to its start


@dataclass
class ChipAudit:
    """The seats of every table, replayed from its events."""

    seats: dict[str, dict[int, tuple[str, int]]] = field(default_factory=dict)
    seated: int = 0  # chips put on a table
    left: int = 0  # chips taken off a table (removed, moved away)
    hands: int = 0
    problems: list[str] = field(default_factory=list)
    _order: dict[str, tuple[int, ...]] = field(default_factory=dict)  # the hand's seats

    @classmethod
    def of(cls, rows: Iterable[tuple[str, str, dict[str, Any]]]) -> ChipAudit:
        audit = cls()
        for table, kind, event in rows:
            audit.take(table, kind, event)
        return audit

    @property
    def final(self) -> dict[str, int]:
        """Each player still seated somewhere, with their chips."""
        return {p: s for seats in self.seats.values() for p, s in seats.values()}

    @property
    def final_total(self) -> int:
        return sum(self.final.values())

    def take(self, table: str, kind: str, e: dict[str, Any]) -> None:
        """One event of ``table``, in the table's order."""
        seats = self.seats.setdefault(table, {})
        match kind:
            case "player_seated":
                if e["seat"] in seats:
                    self.problems.append(f"{table}: {e['player']} seated over {seats[e['seat']]}")
                seats[e["seat"]] = (e["player"], e["stack"])
                self.seated += e["stack"]
            case "player_removed" | "player_moved" | "player_busted":
                player, stack = seats.pop(e["seat"], (e["player"], 0))
                reported = e.get("stack", 0) if kind != "player_busted" else 0
                if player != e["player"] or (reported is not None and reported != stack):
                    self.problems.append(f"{table}: {kind} {e} but the seat held "
                                         f"{player} with {stack}")
                self.left += stack
            case "hand_started":
                self._order[table] = tuple(e["seats"])
                self._compare(table, f"hand {e['hand_no']} started", e["stacks"])
            case "hand_ended":
                self._settle(table, e, conserve=True)
                self.hands += 1
            case kind if kind in VOIDS:
                self._settle(table, e, conserve=False)
            case "stack_adjusted":
                for row in e["seats"]:
                    player, stack = seats[row["seat"]]
                    if stack != row["before"]:
                        self.problems.append(f"{table}: {e['reason']} at seat {row['seat']} "
                                             f"from {row['before']}, held {stack}")
                    seats[row["seat"]] = (player, row["after"])
                    self.seated += row["after"] - row["before"]

    def _compare(self, table: str, what: str, stacks: list[int]) -> None:
        seats = self.seats[table]
        held = [seats[s][1] if s in seats else None for s in self._order[table]]
        if held != list(stacks):
            self.problems.append(f"{table}: {what} with {list(stacks)}, seats held {held}")

    def _settle(self, table: str, e: dict[str, Any], *, conserve: bool) -> None:
        seats = self.seats[table]
        order = self._order.get(table, ())
        before = sum(seats[s][1] for s in order if s in seats)
        if conserve and sum(e["stacks"]) + e.get("rake", 0) != before:
            self.problems.append(f"{table}: hand {e['hand_no']} ended with "
                                 f"{sum(e['stacks'])} chips of {before}")
        for seat, stack in zip(order, e["stacks"], strict=True):
            if seat in seats:
                seats[seat] = (seats[seat][0], stack)
