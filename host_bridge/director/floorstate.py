"""What the director knows of the floor besides its model: each table as its own reports
show it (:class:`TableView`), and what the tables are let deal (:class:`Dealing`:
hand-for-hand, the last hands of the day, the hands released).

Plain records, shared by the director's collaborators (the reports, the floor work, the
link to the tables, the snapshot); pure: no I/O, no clock.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from controller.rules.button import Positions

from .handforhand import H4H, HandForHand, LastHands
from .seating import Floor


@dataclass(slots=True)
class HandInPlay:
    """A hand a table has started and not yet ended, as it reported it."""

    players: list[str]
    start: list[int]
    positions: Positions | None
    h4h: int | None


@dataclass(slots=True)
class TableView:
    """One table as its own events show it (not the model's plan). ``granted``: for each
    seat, the time-bank stage (issue 5) the director was in when the table reported the
    player seated there, so whether the count the table holds is the stage's grant."""

    wire: str
    number: int
    seats: dict[int, str] = field(default_factory=dict)
    granted: dict[int, str | None] = field(default_factory=dict)
    paused: bool = False
    hand_for_hand: bool = False
    closed: bool = False
    hand: HandInPlay | None = None
    moved_stacks: dict[str, int | None] = field(default_factory=dict)
    seq: int = 0
    hands: int = 0


@dataclass(slots=True)
class Dealing:
    """What the tables are let deal: hand-for-hand (TOURN-22), the last hands of the day
    (TOURN-27), and the tables (by number) sent ``NextHand`` for a hand not yet begun."""

    h4h: HandForHand | None = None
    last_hands: LastHands | None = None
    released: set[int] = field(default_factory=set)

    def idle_for_moves(self) -> bool:
        """Hand-for-hand: every table has finished the hand and none has been released
        for the next one (outside it, tables are held by pausing them)."""
        return self.h4h is None or (not self.released and all(
            s is H4H.WAITING for s in self.h4h.state.values()))

    def day_over(self, table: int) -> bool:
        """TOURN-27: a table that has played its last hands stays held."""
        return self.last_hands is not None and not self.last_hands.may_deal(table)


def live_wires(floor: Floor, views: Mapping[str, TableView]) -> list[str]:
    """The tables still in play: open in the model and at the table, with players seated
    in the model or still sitting at the table."""
    return [w for w, v in views.items()
            if v.number not in floor.closed and not v.closed
            and (floor.tables[v.number].players or v.seats)]
