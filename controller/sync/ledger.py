"""The table's durable state as a fold over its journaled events.

:func:`fold` is what crash recovery replays and what the public snapshot shows: seats and
stacks as of the last hand settled, the blind level, pause, hand-for-hand, and whether a
hand is in progress with the stacks it started from (CRASH-1 rolls back to those).

The hand in progress is its log (``PublicState.hand_log``: the engine's log in public, a
``hole_dealt``, ``board`` or ``action`` per engine action, deals included). The journal is
append-only, so an undo or a correction is an event of its own and the log is rebuilt:
``actions_undone`` drops the last entries, which must be the actions it names (newest
first); ``action_corrected`` replaces entry ``index``, which must be ``old``. A host
rebuilds the hand's betting state by replaying ``HandStarted.config`` with that log
(:meth:`~controller.sync.events.GameSetup.config`, ``Hand.replay``). A misdeal or a void
puts every stack back to the start and marks the layout for a redeal (LIVE-25).

:class:`SeatingControls` is a reference :class:`~controller.sync.commands.CommandTable`
over that state: it checks each host command against it and answers with the events
that carry it out. The live table (``controller/table``) will bring its own, richer one.
"""

from __future__ import annotations

from collections.abc import Callable

from controller.sync.errors import CommandRefused, JournalError
from controller.sync.messages import (
    ActionAccepted,
    ActionCorrected,
    ActionHeld,
    ActionsUndone,
    AddChips,
    BoardDealt,
    CallClock,
    CardBurned,
    CloseTable,
    Command,
    DeckReport,
    HandEnded,
    HandForHand,
    HandLayout,
    HandShown,
    HandStarted,
    HandVoided,
    HoleDealt,
    Irregularity,
    MisdealDeclared,
    MovePlayer,
    Pause,
    PlayerCheckedIn,
    PotAwarded,
    PublicEvent,
    PublicState,
    RemovePlayer,
    Resume,
    ScheduleColourUp,
    SeatAdjustment,
    SeatPlayer,
    SeatPresence,
    SeatView,
    SetLevel,
    ShotClockReport,
    StackAdjusted,
    TableChanged,
)

HandEvent = HandStarted | HoleDealt | ActionAccepted | BoardDealt | CardBurned \
    | ActionsUndone | ActionCorrected | ActionHeld | HandShown | PotAwarded | HandEnded \
    | HandVoided | MisdealDeclared
LedgerEvent = PublicEvent


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
        "start_stacks": (), "hand_seats": (), "clock_on_seat": None, "hand_log": ()})


def _void(state: PublicState, hand_no: int, stacks: tuple[int, ...], what: str) -> PublicState:
    _in_hand(state, hand_no, what)
    if stacks != state.start_stacks:  # CRASH-1, LIVE-25: back to the starting stacks
        raise JournalError(f"a {what} must restore {state.start_stacks}, not {stacks}")
    return _settle(state, stacks).model_copy(update={"redeal": True})


def _undo(state: PublicState, event: ActionsUndone) -> PublicState:
    log = state.hand_log
    n = len(event.actions)
    tail = log[len(log) - n:][::-1] if n <= len(log) else ()
    if len(tail) != n or any(not isinstance(e, ActionAccepted) or e.move() != a.move()
                             for e, a in zip(tail, event.actions, strict=True)):
        raise JournalError(f"hand {event.hand_no}: the undone actions are not the last "
                           f"{n} of its log")
    return state.model_copy(update={"hand_log": log[:len(log) - n]})


def _correct(state: PublicState, event: ActionCorrected) -> PublicState:
    log = state.hand_log
    entry = log[event.index] if event.index < len(log) else None
    if not isinstance(entry, ActionAccepted) or entry.move() != event.old.move():
        raise JournalError(f"hand {event.hand_no}: log entry {event.index} is not the "
                           "corrected action")
    return state.model_copy(update={
        "hand_log": (*log[:event.index], event.new, *log[event.index + 1:])})


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
        layout = None if event.button is None or event.big_blind_seat is None else HandLayout(
            button=event.button, small_blind=event.small_blind_seat,
            big_blind=event.big_blind_seat, seats=event.seats)
        return state.model_copy(update={
            "hand_no": event.hand_no, "hand_in_progress": True, "hand_log": (),
            "start_stacks": event.stacks, "hand_seats": event.seats, "layout": layout,
            "redeal": False})
    if isinstance(event, HandEnded):
        _in_hand(state, event.hand_no, "hand end")
        if sum(event.stacks) + event.rake != sum(state.start_stacks):
            raise JournalError(f"hand {event.hand_no} ends with {sum(event.stacks)} chips plus "
                               f"{event.rake} rake, but started with {sum(state.start_stacks)}")
        return _settle(state, event.stacks)
    if isinstance(event, HandVoided):
        return _void(state, event.hand_no, event.stacks, "void")
    if isinstance(event, MisdealDeclared):
        return _void(state, event.hand_no, event.stacks, "misdeal")
    _in_hand(state, event.hand_no, event.kind)
    if isinstance(event, HoleDealt | BoardDealt | ActionAccepted):
        return state.model_copy(update={"hand_log": (*state.hand_log, event)})
    if isinstance(event, ActionsUndone):
        return _undo(state, event)
    if isinstance(event, ActionCorrected):
        return _correct(state, event)
    return state  # burn, held, shown, pot: no change to the durable state


def _fold_stacks(state: PublicState, event: StackAdjusted) -> PublicState:
    if state.hand_in_progress:
        raise JournalError(f"stacks adjusted ({event.reason}) during hand {state.hand_no}")
    seats = _seat_stacks(state)
    for adj in event.seats:
        seat = seats.get(adj.seat)
        if seat is None or seat.stack != adj.before:
            raise JournalError(f"seat {adj.seat} had {seat.stack if seat else 'no player'}, "
                               f"not {adj.before}, before the {event.reason}")
        seats[adj.seat] = seat.model_copy(update={"stack": adj.after})
    return state.model_copy(update={"seats": tuple(seats[k] for k in sorted(seats))})


def _fold_change(state: PublicState, event: TableChanged) -> PublicState:
    seats = _seat_stacks(state)
    change = event.change
    if event.clock is not None:  # issue 5: the clocks as of this change, for a restart
        state = state.model_copy(update={"clock": event.clock})
    if change in ("clock_synced", "break_started", "break_ended"):
        return state  # the level clock's own changes: its snapshot is the record
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
        penalty = event.penalty_hands or 0  # PEN-5: a penalty brought along sits them out
        seats[event.seat] = SeatView(seat=event.seat, player=event.player, stack=event.stack,
                                     sitting_out=penalty > 0, penalty_hands=penalty)
        state = _carried_chips(state, event.player, event.extension_chips)
        return state.model_copy(update={"seats": tuple(seats[k] for k in sorted(seats))})
    if change == "penalty_served" and event.seat in seats and event.penalty_hands is not None:
        seats[event.seat] = seats[event.seat].model_copy(  # PEN-4: hands still to serve
            update={"penalty_hands": event.penalty_hands})
        return state.model_copy(update={"seats": tuple(seats[k] for k in sorted(seats))})
    if change in ("sat_out", "came_back") and event.seat is not None and event.seat in seats:
        seats[event.seat] = seats[event.seat].model_copy(
            update={"sitting_out": change == "sat_out"})
        return state.model_copy(update={"seats": tuple(seats[k] for k in sorted(seats))})
    if change == "player_busted" and event.seat in seats and not state.hand_in_progress:
        if seats[event.seat].stack != 0:  # only the table busts a player: no chips left
            raise JournalError(f"seat {event.seat} busted with {seats[event.seat].stack} "
                               "chips; a player busts with none")
        del seats[event.seat]
        return state.model_copy(update={"seats": tuple(seats[k] for k in sorted(seats))})
    if change == "hand_released" and state.hand_for_hand and not state.hand_in_progress:
        return state  # TOURN-22: one hand may be dealt; the hand itself is the record
    if change in ("player_removed", "player_moved") and event.seat in seats:
        del seats[event.seat]
        return state.model_copy(update={"seats": tuple(seats[k] for k in sorted(seats))})
    if change == "table_closed" and not state.hand_in_progress:
        return state.model_copy(update={"closed": True})
    raise JournalError(f"table change {change!r} does not apply: {event}")


def _carried_chips(state: PublicState, player: str, chips: int | None) -> PublicState:
    """A seated player's time-bank extension chips (TOURN-32) in the clocks' snapshot."""
    if chips is None or state.clock is None:
        return state
    held = dict(state.clock.chips)
    held[player] = chips
    clock = state.clock.model_copy(update={"chips": tuple(sorted(held.items()))})
    return state.model_copy(update={"clock": clock})


def _fold_extension(state: PublicState, event: ShotClockReport, left: int) -> PublicState:
    """A time-bank extension chip spent: the player's count in the clocks' snapshot."""
    seat = _seat_stacks(state).get(event.seat)
    return state if seat is None else _carried_chips(state, seat.player, left)


def fold(state: PublicState, event: LedgerEvent) -> PublicState:
    """The state after ``event``; :class:`JournalError` if it cannot follow ``state``."""
    if isinstance(event, TableChanged):
        return _fold_change(state, event)
    if isinstance(event, StackAdjusted):
        return _fold_stacks(state, event)
    if isinstance(event, ShotClockReport) and event.what == "extension" \
            and state.clock is not None and event.chips_left is not None:
        return _fold_extension(state, event, event.chips_left)
    if isinstance(event, Irregularity | SeatPresence | PlayerCheckedIn | DeckReport
                  | ShotClockReport):
        return state  # for the floor to see; the durable state does not change
    return _fold_hand(state, event)


class SeatingControls:
    """Host commands checked against the ledger state; each answer is data plus the
    :class:`TableChanged` events that carry it out (nothing changes until journaled)."""

    def __init__(self, state: Callable[[], PublicState]) -> None:
        self._state = state

    def perform(self, command: Command, command_id: str
                ) -> tuple[dict[str, int | str | bool], list[TableChanged | StackAdjusted]]:
        """Validate ``command`` against the current state; :class:`CommandRefused` if not."""
        st = self._state()
        seats = _seat_stacks(st)
        if st.closed:
            raise CommandRefused("the table is closed")

        def change(**kw: object) -> tuple[dict[str, int | str | bool],
                                          list[TableChanged | StackAdjusted]]:
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
                return change(change="player_seated", seat=seat, player=player, stack=stack,
                              extension_chips=command.extension_chips,
                              penalty_hands=command.penalty_hands or None)
            case RemovePlayer(seat=seat):
                need_seated(seat)
                need_no_hand("remove a player")
                return change(change="player_removed", seat=seat, player=seats[seat].player)
            case MovePlayer(seat=seat, to_table=to_table):
                need_seated(seat)
                need_no_hand("move a player")
                return change(change="player_moved", seat=seat, player=seats[seat].player,
                              stack=seats[seat].stack, to_table=to_table)
            case AddChips(seat=seat, player=player, chips=chips, reason=reason):
                need_seated(seat)  # TOURN-10..12: a rebuy or add-on, between hands
                need_no_hand(f"add chips ({reason})")
                if seats[seat].player != player:
                    raise CommandRefused(f"seat {seat} is {seats[seat].player}'s, not "
                                         f"{player}'s")
                before = seats[seat].stack
                return {"change": "stack_adjusted", "seat": seat, "stack": before + chips}, [
                    StackAdjusted(reason=reason, command_id=command_id, seats=(
                        SeatAdjustment(seat=seat, before=before, after=before + chips),))]
            case CloseTable():
                need_no_hand("close the table")
                return change(change="table_closed")
        raise CommandRefused(f"command {command!r} is not handled")  # pragma: no cover
