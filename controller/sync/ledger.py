"""The table's durable state as a fold over its journaled events.

:func:`fold` is what crash recovery replays and what the public snapshot shows: seats and
stacks as of the last hand settled, the blind level, pause, hand-for-hand, and whether a
hand is in progress with the stacks it started from (CRASH-1 rolls back to those).

:class:`SeatingControls` is a reference :class:`~controller.sync.commands.CommandTable`
over that state: it checks each host command against it and answers with the events
that carry it out. The live table (``controller/table``) will bring its own, richer one.
"""

from __future__ import annotations

from collections.abc import Callable

from controller.sync.errors import CommandRefused, JournalError
from controller.sync.messages import (
    ActionAccepted,
    BoardDealt,
    CallClock,
    CloseTable,
    Command,
    HandEnded,
    HandForHand,
    HandStarted,
    HandVoided,
    HoleDealt,
    MovePlayer,
    Pause,
    PotAwarded,
    PublicState,
    RemovePlayer,
    Resume,
    ScheduleColourUp,
    SeatPlayer,
    SeatView,
    SetLevel,
    TableChanged,
)

HandEvent = HandStarted | HoleDealt | ActionAccepted | BoardDealt | PotAwarded | HandEnded \
    | HandVoided
LedgerEvent = HandEvent | TableChanged


def _seat_stacks(state: PublicState) -> dict[int, SeatView]:
    return {s.seat: s for s in state.seats}


def _in_hand(state: PublicState, hand_no: int, what: str) -> None:
    if not state.hand_in_progress or state.hand_no != hand_no:
        raise JournalError(f"{what} for hand {hand_no}, but the hand in progress is "
                           f"{state.hand_no if state.hand_in_progress else 'none'}")


def _settle(state: PublicState, stacks: tuple[int, ...]) -> PublicState:
    if len(stacks) != len(state.hand_seats):
        raise JournalError(f"{len(stacks)} stacks for a hand of {len(state.hand_seats)} seats")
    seats = _seat_stacks(state)
    for seat, stack in zip(state.hand_seats, stacks, strict=True):
        seats[seat] = seats[seat].model_copy(update={"stack": stack})
    return state.model_copy(update={
        "seats": tuple(seats[k] for k in sorted(seats)), "hand_in_progress": False,
        "start_stacks": (), "hand_seats": (), "clock_on_seat": None})


def _fold_hand(state: PublicState, event: HandEvent) -> PublicState:
    if isinstance(event, HandStarted):
        if state.hand_in_progress or state.closed:
            raise JournalError(f"hand {event.hand_no} cannot start: "
                               + ("the table is closed" if state.closed
                                  else f"hand {state.hand_no} is in progress"))
        if event.hand_no <= state.hand_no:
            raise JournalError(f"hand {event.hand_no} after hand {state.hand_no}")
        seats = _seat_stacks(state)
        if len(event.seats) != len(event.stacks) or len(set(event.seats)) != len(event.seats):
            raise JournalError("a hand needs one stack per seat, each seat once")
        for seat, stack in zip(event.seats, event.stacks, strict=True):
            if seat not in seats or seats[seat].stack != stack:
                raise JournalError(f"seat {seat} starts hand {event.hand_no} with {stack}, "
                                   f"but the table has {seats.get(seat)}")
        return state.model_copy(update={
            "hand_no": event.hand_no, "hand_in_progress": True,
            "start_stacks": event.stacks, "hand_seats": event.seats})
    if isinstance(event, HandEnded):
        _in_hand(state, event.hand_no, "hand end")
        if sum(event.stacks) + event.rake != sum(state.start_stacks):
            raise JournalError(f"hand {event.hand_no} ends with {sum(event.stacks)} chips plus "
                               f"{event.rake} rake, but started with {sum(state.start_stacks)}")
        return _settle(state, event.stacks)
    if isinstance(event, HandVoided):
        _in_hand(state, event.hand_no, "void")
        if event.stacks != state.start_stacks:  # CRASH-1: back to the starting stacks
            raise JournalError(f"a void must restore {state.start_stacks}, not {event.stacks}")
        return _settle(state, event.stacks)
    _in_hand(state, event.hand_no, event.kind)
    return state


def _fold_change(state: PublicState, event: TableChanged) -> PublicState:
    seats = _seat_stacks(state)
    change = event.change
    if change in ("player_seated", "player_removed", "player_moved") and state.hand_in_progress:
        raise JournalError(f"{change} during hand {state.hand_no}")
    if change == "paused":
        return state.model_copy(update={"paused": True})
    if change == "resumed":
        return state.model_copy(update={"paused": False})
    if change == "level_set" and event.level is not None:
        return state.model_copy(update={"level": event.level})
    if change == "clock_called":
        return state.model_copy(update={"clock_on_seat": event.seat})
    if change == "hand_for_hand" and event.on is not None:
        return state.model_copy(update={"hand_for_hand": event.on})
    if change == "colour_up_scheduled" and event.level is not None:
        return state.model_copy(update={"colour_up_at_level": event.level})
    if change == "player_seated" and event.seat is not None and event.player is not None \
            and event.stack is not None and event.seat not in seats:
        seats[event.seat] = SeatView(seat=event.seat, player=event.player, stack=event.stack)
        return state.model_copy(update={"seats": tuple(seats[k] for k in sorted(seats))})
    if change in ("player_removed", "player_moved") and event.seat in seats:
        del seats[event.seat]
        return state.model_copy(update={"seats": tuple(seats[k] for k in sorted(seats))})
    if change == "table_closed" and not state.hand_in_progress:
        return state.model_copy(update={"closed": True})
    raise JournalError(f"table change {change!r} does not apply: {event}")


def fold(state: PublicState, event: LedgerEvent) -> PublicState:
    """The state after ``event``; :class:`JournalError` if it cannot follow ``state``."""
    if isinstance(event, TableChanged):
        return _fold_change(state, event)
    return _fold_hand(state, event)


class SeatingControls:
    """Host commands checked against the ledger state; each answer is data plus the
    :class:`TableChanged` events that carry it out (nothing changes until journaled)."""

    def __init__(self, state: Callable[[], PublicState]) -> None:
        self._state = state

    def perform(self, command: Command, command_id: str) -> tuple[dict[str, int | str | bool],
                                                                   list[TableChanged]]:
        """Validate ``command`` against the current state; :class:`CommandRefused` if not."""
        st = self._state()
        seats = _seat_stacks(st)
        if st.closed:
            raise CommandRefused("the table is closed")

        def change(**kw: object) -> tuple[dict[str, int | str | bool], list[TableChanged]]:
            event = TableChanged.model_validate({**kw, "command_id": command_id})
            return {"change": event.change}, [event]

        def need_no_hand(what: str) -> None:
            if st.hand_in_progress:
                raise CommandRefused(f"cannot {what} during hand {st.hand_no}; "
                                     "wait for it to end")

        def need_seated(seat: int) -> None:
            if seat not in seats:
                raise CommandRefused(f"seat {seat} is empty")

        match command:
            case Pause():
                if st.paused:
                    raise CommandRefused("the table is already paused")
                return change(change="paused")
            case Resume():
                if not st.paused:
                    raise CommandRefused("the table is not paused")
                return change(change="resumed")
            case SetLevel(level=level):
                return change(change="level_set", level=level)
            case CallClock(seat=seat):
                need_seated(seat)
                if not st.hand_in_progress or seat not in st.hand_seats:
                    raise CommandRefused(f"seat {seat} is not in a hand: no clock to call")
                return change(change="clock_called", seat=seat)
            case HandForHand(on=on):
                if st.hand_for_hand == on:
                    raise CommandRefused(f"hand-for-hand is already {'on' if on else 'off'}")
                return change(change="hand_for_hand", on=on)
            case ScheduleColourUp(at_level=at):
                if at <= st.level:
                    raise CommandRefused(f"level {at} is not after the current level {st.level}")
                return change(change="colour_up_scheduled", level=at)
            case SeatPlayer(seat=seat, player=player, stack=stack):
                need_no_hand("seat a player")
                if seat in seats:
                    raise CommandRefused(f"seat {seat} is taken by {seats[seat].player}")
                if any(s.player == player for s in st.seats):
                    raise CommandRefused(f"player {player} is already seated")
                return change(change="player_seated", seat=seat, player=player, stack=stack)
            case RemovePlayer(seat=seat):
                need_seated(seat)
                need_no_hand("remove a player")
                return change(change="player_removed", seat=seat, player=seats[seat].player)
            case MovePlayer(seat=seat, to_table=to_table):
                need_seated(seat)
                need_no_hand("move a player")
                return change(change="player_moved", seat=seat, player=seats[seat].player,
                              stack=seats[seat].stack, to_table=to_table)
            case CloseTable():
                need_no_hand("close the table")
                return change(change="table_closed")
        raise CommandRefused(f"command {command!r} is not handled")  # pragma: no cover
