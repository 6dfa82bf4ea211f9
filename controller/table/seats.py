"""Seats across the table's life: sit down, leave, sit out, come back, player-card check-in.

The floor assigns players to seats (``assign``); a player card read at a seat's player
reader checks the player in if the seat is theirs, and is reported as a wrong seat if
not. While checked in, the card lying on the player reader says the player is at the seat
(DEAL-5); lifting it says they stepped away.

Who gets the button and the blinds is the rules' business (``controller.rules.button``,
BTN-1..7, BLIND-4..7); this module keeps what those rules read about each seat
(:meth:`Roster.statuses`) and carries their bookkeeping from hand to hand
(:meth:`Roster.after_hand`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from controller.rules.button import Missed, Positions, SeatStatus, after_hand


class SeatState(StrEnum):
    """What a seat is doing between hands."""

    EMPTY = "empty"
    PLAYING = "playing"
    SITTING_OUT = "sitting_out"


@dataclass(slots=True)
class Seat:
    """One chair: who sits there, their chips, whether they play and are at the table."""

    number: int
    state: SeatState = SeatState.EMPTY
    player: str = ""
    stack: int = 0
    present: bool = False  # at the seat now (DEAL-5)
    checked_in: bool = False  # their player card was read here
    new: bool = False  # joined since the last hand (BLIND-4, BTN-7)
    wants_to_post: bool = False  # BLIND-4 wait_or_post_bb: asked to post a BB now
    missed: Missed = Missed.NONE  # blinds passed while sitting out (BLIND-5)


class SeatError(ValueError):
    """A seat change the table cannot make (seat taken, unknown seat, during a hand...)."""


@dataclass(slots=True)
class Roster:
    """All the seats of one table, numbered 1..N."""

    size: int
    seats: dict[int, Seat] = field(default_factory=dict)
    assignments: dict[bytes, tuple[str, int]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.seats:
            self.seats = {n: Seat(n) for n in range(1, self.size + 1)}

    def __getitem__(self, seat: int) -> Seat:
        try:
            return self.seats[seat]
        except KeyError:
            raise SeatError(f"there is no seat {seat}: this table has seats 1..{self.size}") \
                from None

    def __iter__(self) -> Iterator[Seat]:
        return iter(self.seats.values())

    # -- changes
    def take(self, seat: int, player: str, stack: int) -> Seat:
        s = self[seat]
        if s.state is not SeatState.EMPTY:
            raise SeatError(f"seat {seat} is taken by {s.player}")
        if stack <= 0:
            raise SeatError(f"a player sits down with chips, not {stack}")
        self.seats[seat] = s = Seat(seat, SeatState.PLAYING, player, stack, present=True,
                                    new=True)
        return s

    def leave(self, seat: int) -> Seat:
        s = self[seat]
        if s.state is SeatState.EMPTY:
            raise SeatError(f"seat {seat} is empty")
        self.seats[seat] = Seat(seat)
        return s

    def sit_out(self, seat: int) -> None:
        s = self[seat]
        if s.state is not SeatState.PLAYING:
            raise SeatError(f"seat {seat} is {s.state}, not playing")
        s.state = SeatState.SITTING_OUT

    def come_back(self, seat: int) -> None:
        s = self[seat]
        if s.state is not SeatState.SITTING_OUT:
            raise SeatError(f"seat {seat} is {s.state}, not sitting out")
        s.state = SeatState.PLAYING

    def assign(self, card_uid: bytes, player: str, seat: int) -> None:
        """The floor's seat assignment for the player carrying ``card_uid``."""
        self[seat]
        self.assignments[card_uid] = (player, seat)

    def check_in(self, seat: int, card_uid: bytes) -> tuple[str, int | None]:
        """A player card at ``seat``: (player, assigned seat); assigned == seat is good."""
        player, assigned = self.assignments.get(card_uid, ("unknown player", None))
        if assigned == seat:
            s = self[seat]
            s.checked_in = True
            s.present = True
            if s.state is SeatState.EMPTY:
                s.player = player
        return player, assigned

    # -- views
    def occupied(self) -> list[Seat]:
        return [s for s in self.seats.values() if s.state is not SeatState.EMPTY]

    def playing(self) -> list[int]:
        """Seats that will be dealt in: playing with chips."""
        return [s.number for s in self.seats.values()
                if s.state is SeatState.PLAYING and s.stack > 0]

    def stacks(self) -> Mapping[int, int]:
        return {s.number: s.stack for s in self.seats.values() if s.state is not SeatState.EMPTY}

    def statuses(self) -> tuple[SeatStatus, ...]:
        """What the button rules read: one status per occupied seat."""
        return tuple(SeatStatus(s.number, s.stack, s.state is SeatState.SITTING_OUT, s.new,
                                s.wants_to_post, s.missed)
                     for s in self.seats.values() if s.state is not SeatState.EMPTY)

    def after_hand(self, positions: Positions, stacks: Mapping[int, int]) -> None:
        """Carry stacks and the blind bookkeeping into the next hand (BLIND-4/5)."""
        for seat, stack in stacks.items():
            self.seats[seat].stack = stack
        for status in after_hand(positions, self.statuses()):
            s = self.seats[status.seat]
            s.new, s.wants_to_post, s.missed = (status.new, status.wants_to_post,
                                                status.missed_blinds)

    def total_chips(self) -> int:
        return sum(s.stack for s in self.seats.values())
