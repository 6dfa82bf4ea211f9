"""The records the director keeps: entries, hand reports, what follows a moved player."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from controller.rules.button import Positions


class Stage(StrEnum):
    REGISTERING = "registering"
    RUNNING = "running"
    FINISHED = "finished"
    CANCELLED = "cancelled"


class Status(StrEnum):
    ACTIVE = "active"
    PENDING = "pending"  # out of chips, may still rebuy before the next hand (TOURN-10)
    OUT = "out"
    DISQUALIFIED = "disqualified"


@dataclass(slots=True)
class Entry:
    """One buy-in of one player (re-entries are new entries)."""

    key: str
    player: str
    stack: int
    status: Status = Status.ACTIVE
    rebuys: int = 0
    add_on: bool = False
    paid_pool: int = 0  # cents to the prize pool (bounty included)
    paid_fees: int = 0
    bounty: int = 0  # current bounty on this entry's head (TOURN-17)
    bounty_won: int = 0
    knockouts: int = 0  # eliminations this entry was paid a bounty for (TOURN-17)

    @property
    def in_event(self) -> bool:
        """Still in the event: playing, or out of chips while a rebuy is open (TOURN-10)."""
        return self.status in (Status.ACTIVE, Status.PENDING)


@dataclass(frozen=True, slots=True)
class HandResult:
    """One finished hand as a table reports it; stacks by player."""

    table: int
    start: Mapping[str, int]
    end: Mapping[str, int]
    positions: Positions | None = None
    h4h_hand: int | None = None  # the hand-for-hand hand number, if any
    knockouts: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Carry:
    """What follows a moved player to the new table (TOURN-32, PEN-5; time-bank chips)."""

    penalty_hands: int
    time_bank_chips: int


@dataclass(slots=True)
class Bust:
    """One entry out in a hand: its starting stack and table order it (TOURN-24)."""

    entry: str
    start: int
    table: int
