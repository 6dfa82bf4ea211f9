"""The host's commands to a table (``table/{id}/cmd``), each a frozen model with a
``name`` literal in one discriminated union, and what a reply's data may hold. A table
answers a command with the events that carry it out (``command_id`` on each change)."""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal

from pydantic import Field, SerializerFunctionWrapHandler, model_serializer

from .base import Frozen, Id, SeatNo

JsonScalar = str | int | float | bool | None
"""A value in a reply's ``data``."""

Level = Annotated[int, Field(ge=1, le=1000)]


class Pause(Frozen):
    """Pause the table (the clocks stop)."""

    name: Literal["pause"] = "pause"


class Resume(Frozen):
    """Resume a paused table."""

    name: Literal["resume"] = "resume"


class SetLevel(Frozen):
    """Move the table to a blind level."""

    name: Literal["set_level"] = "set_level"
    level: Level


class CallClock(Frozen):
    """Call the clock on the player in a seat."""

    name: Literal["call_clock"] = "call_clock"
    seat: SeatNo


class HandForHand(Frozen):
    """Start (``on``) or stop hand-for-hand play."""

    name: Literal["hand_for_hand"] = "hand_for_hand"
    on: bool


class NextHand(Frozen):
    """Hand-for-hand: deal the next hand now (every table at once, TOURN-*)."""

    name: Literal["next_hand"] = "next_hand"


class SyncClock(Frozen):
    """The host's tournament level clock (the authority, issue 5): the table adopts
    ``level`` with ``seconds_left`` in it (on a break when ``on_break``) and counts on its
    own until the next sync; a table that hears none for a while shows it is unsynced."""

    name: Literal["sync_clock"] = "sync_clock"
    level: Level
    seconds_left: Annotated[float, Field(ge=0, le=86_400)]
    on_break: bool = False


class ScheduleColourUp(Frozen):
    """Colour up the smallest chips when ``at_level`` begins."""

    name: Literal["colour_up"] = "colour_up"
    at_level: Level


class SeatPlayer(Frozen):
    """Seat a player with a stack. A player moved from another table brings what follows
    them (PEN-5, TOURN-32): ``extension_chips``, the time-bank chips they hold (None: the
    table's default for a newcomer), and ``penalty_hands``, the hands of a penalty still to
    serve (an orbit penalty converted to hands by the director, PEN-2; None or 0: none)."""

    name: Literal["seat_player"] = "seat_player"
    seat: SeatNo
    player: Id
    stack: Annotated[int, Field(gt=0)]
    extension_chips: Annotated[int, Field(ge=0, le=1000)] | None = None
    penalty_hands: Annotated[int, Field(ge=0, le=10_000)] | None = None

    @model_serializer(mode="wrap")
    def _without_nothing_carried(self, handler: SerializerFunctionWrapHandler) -> Any:
        """Nothing carried, nothing sent: the command stays as short as it was before
        these fields existed."""
        data = handler(self)
        if isinstance(data, dict):
            for key in ("extension_chips", "penalty_hands"):
                if data.get(key) is None:
                    data.pop(key, None)
        return data


class RemovePlayer(Frozen):
    """Remove the player in a seat (busted or gone)."""

    name: Literal["remove_player"] = "remove_player"
    seat: SeatNo


class MovePlayer(Frozen):
    """Move the player in a seat out to another table (balancing)."""

    name: Literal["move_player"] = "move_player"
    seat: SeatNo
    to_table: Id


class AddChips(Frozen):
    """A rebuy or add-on bought on the floor (TOURN-10..12): add ``chips`` to the stack of
    ``player`` in ``seat``, between hands. The table answers with ``stack_adjusted``
    (``reason`` "rebuy" or "add_on") carrying the command id; it refuses during a hand,
    for an empty seat, or when someone else sits there."""

    name: Literal["add_chips"] = "add_chips"
    seat: SeatNo
    player: Id
    chips: Annotated[int, Field(gt=0, le=10**9)]
    reason: Literal["rebuy", "add_on"]


class SetHouse(Frozen):
    """Play the house file ``text`` (TOML, ``deploy/houses/``) from the next hand: the
    game, stakes, rake, straddles, buy-ins and rule options. Refused during a hand
    (LEVEL-1: a hand is played under the rules it began with) and for a file the table
    cannot play (the error names the field and its line)."""

    name: Literal["set_house"] = "set_house"
    text: Annotated[str, Field(min_length=1, max_length=64 * 1024)]


class CloseTable(Frozen):
    """Close the table (breaking it)."""

    name: Literal["close_table"] = "close_table"


Command = Annotated[
    Pause | Resume | SetLevel | CallClock | HandForHand | NextHand | SyncClock
    | ScheduleColourUp | SeatPlayer | RemovePlayer | MovePlayer | AddChips | SetHouse
    | CloseTable,
    Field(discriminator="name"),
]
COMMAND_NAMES: Final = frozenset({
    "pause", "resume", "set_level", "call_clock", "hand_for_hand", "next_hand", "sync_clock",
    "colour_up", "seat_player", "remove_player", "move_player", "add_chips", "set_house",
    "close_table",
})
