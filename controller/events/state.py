"""The table's public state: what anyone may see (the retained ``state`` topic, the
journal's checkpoint, the dealer's tablet); no field can hold a hole card."""

from __future__ import annotations

from .base import Chips, Count, Frozen, Id, LevelNo, SeatNo
from .clock import ClockSnapshot
from .hand import HandStep


class SeatView(Frozen):
    """One occupied seat in the public snapshot."""

    seat: SeatNo
    player: Id
    stack: Chips
    sitting_out: bool = False
    penalty_hands: Count = 0  # PEN-4/5: hands still to sit out (dealt in, killed)


class HandLayout(Frozen):
    """Where the button and blinds were in the last hand started (BTN-1..7)."""

    button: SeatNo
    small_blind: SeatNo | None
    big_blind: SeatNo
    seats: tuple[SeatNo, ...]  # dealt, in position order


class PublicState(Frozen):
    """What anyone may see about the table: no field can hold a hole card."""

    seats: tuple[SeatView, ...] = ()
    level: LevelNo = 1
    paused: bool = False
    hand_for_hand: bool = False
    colour_up_at_level: LevelNo | None = None
    clock_on_seat: SeatNo | None = None
    closed: bool = False
    hand_no: Count = 0  # the last hand started
    hand_in_progress: bool = False
    start_stacks: tuple[Chips, ...] = ()  # of the hand in progress, by position
    hand_seats: tuple[SeatNo, ...] = ()
    hand_log: tuple[HandStep, ...] = ()  # the hand in progress: its engine log, in public
    layout: HandLayout | None = None  # of the last hand started
    redeal: bool = False  # that hand was void (misdeal, CRASH-1): the same layout again
    clock: ClockSnapshot | None = None  # the clocks as last journaled (issue 5: restart)
