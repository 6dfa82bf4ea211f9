"""The seats: players sitting down, leaving, moving, busting, sitting out and coming back,
their stacks adjusted between hands, their cards read at the seat."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from .base import Change, Chips, Count, Frozen, HandNo, Id, SeatNo, Text
from .clock import ClockSnapshot


class PlayerSeated(Change):
    """``player`` sat down at ``seat`` with ``stack`` chips. A player moved from another
    table brings ``extension_chips`` (time bank) and ``penalty_hands`` still to sit out
    (PEN-5, TOURN-32; None: nothing carried); ``clock``: the clocks with those chips."""

    kind: Literal["player_seated"] = "player_seated"
    seat: SeatNo
    player: Id
    stack: Chips
    extension_chips: Count | None = None
    penalty_hands: Count | None = None
    clock: ClockSnapshot | None = None


class PlayerRemoved(Change):
    """``player`` left ``seat`` (and the table) with ``stack`` chips."""

    kind: Literal["player_removed"] = "player_removed"
    seat: SeatNo
    player: Id
    stack: Chips | None = None


class PlayerMoved(Change):
    """``player`` left ``seat`` with ``stack`` chips for table ``to_table`` (balancing)."""

    kind: Literal["player_moved"] = "player_moved"
    seat: SeatNo
    player: Id
    stack: Chips | None = None
    to_table: Id


class PlayerBusted(Change):
    """A tournament player ended hand ``hand_no`` with no chips and left ``seat``."""

    kind: Literal["player_busted"] = "player_busted"
    seat: SeatNo
    player: Id
    hand_no: HandNo | None = None


class ButtonPlaced(Change):
    """Where the button starts, before the table's first hand: the dealer's draw (BTN-4)
    or a random player in cash (BTN-1). The first hand is dealt from it."""

    kind: Literal["button_placed"] = "button_placed"
    seat: SeatNo


class SatOut(Change):
    """The player at ``seat`` sits out from the next hand."""

    kind: Literal["sat_out"] = "sat_out"
    seat: SeatNo


class CameBack(Change):
    """The player at ``seat`` plays again from the next hand."""

    kind: Literal["came_back"] = "came_back"
    seat: SeatNo


class PenaltyServed(Change):
    """PEN-4: the player at ``seat``, serving a hands penalty, had hand ``hand_no`` dealt
    and killed; ``hands_left`` still to serve (0: they play from the next hand)."""

    kind: Literal["penalty_served"] = "penalty_served"
    seat: SeatNo
    player: Id
    hands_left: Count
    hand_no: HandNo | None = None


StackReason = Literal["colour_up", "rebuy", "add_on", "correction", "seat_change"]


class SeatAdjustment(Frozen):
    """One seat's stack before and after an adjustment."""

    seat: SeatNo
    before: Chips
    after: Chips


class StackAdjusted(Change):
    """Stacks changed between hands: a colour-up or chip race, a rebuy, an add-on, a
    floor correction, a seat change."""

    kind: Literal["stack_adjusted"] = "stack_adjusted"
    reason: StackReason
    seats: tuple[SeatAdjustment, ...] = Field(min_length=1)
    note: Text = ""


class SeatPresence(Frozen):
    """A player card arrived at or left its seat's reader (DEAL-5: at the seat)."""

    kind: Literal["presence"] = "presence"
    seat: SeatNo
    present: bool


class PlayerCheckedIn(Frozen):
    """A player card was read at ``seat``; ``assigned`` is where the floor seated that
    player (None: not at this table), so ``assigned != seat`` is a player in the wrong seat."""

    kind: Literal["checked_in"] = "checked_in"
    seat: SeatNo
    player: Id
    assigned: SeatNo | None
