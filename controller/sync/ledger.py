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
(:meth:`~controller.events.GameSetup.config`, ``Hand.replay``). A misdeal or a void
puts every stack back to the start and marks the layout for a redeal (LIVE-25).

The hand in play as anyone may see it (``PublicState.hand``: stage, board, pots, the seat
to act, the amount to call, the raise limits, the legal moves) is the rules engine's
answer, never worked out here: after each step of the log the engine hand is brought up
to date (:mod:`controller.sync.hand_view`, which keeps it between steps) and read with
:func:`~controller.rules.view.view_of`. ``PublicState.stakes`` are the blinds and antes
the last hand started was dealt with (a straddle's size included). ``PublicState.house``
and ``house_text`` are the house in force and its file, as the last ``house_set`` gave
them (a restart plays the very same file).

:class:`SeatingControls` is a reference :class:`~controller.sync.commands.CommandTable`
over that state: it checks each host command against it and answers with the events
that carry it out. The live table (``controller/table``) will bring its own, richer one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import assert_never

from controller.events import (
    ActionAccepted,
    ActionCorrected,
    ActionHeld,
    ActionsUndone,
    AddChips,
    BoardDealt,
    BreakEnded,
    BreakStarted,
    ButtonPlaced,
    CallClock,
    CameBack,
    CardBurned,
    CardRead,
    ChipsCounted,
    ClockCalled,
    ClockSnapshot,
    ClockSynced,
    CloseTable,
    ColourUpCancelled,
    ColourUpScheduled,
    ColourUpStarted,
    ColourUpStepUndone,
    Command,
    DeckReport,
    GameSetup,
    HandEnded,
    HandForHand,
    HandForHandSet,
    HandLayout,
    HandReleased,
    HandShown,
    HandStarted,
    HandStep,
    HandVoided,
    HoleDealt,
    HouseSet,
    InputTaken,
    Irregularity,
    LevelSet,
    MisdealDeclared,
    MovePlayer,
    NextHand,
    Pause,
    Paused,
    PenaltyServed,
    PlayerBusted,
    PlayerCheckedIn,
    PlayerMoved,
    PlayerRemoved,
    PlayerSeated,
    PotAwarded,
    PublicEvent,
    PublicState,
    RaceCardDealt,
    RaceChipsAwarded,
    RaceDealtAgain,
    RakeTaken,
    Rejected,
    RemovePlayer,
    Resume,
    Resumed,
    SatOut,
    ScheduleColourUp,
    SeatAdjustment,
    SeatNodeBack,
    SeatPlayer,
    SeatPresence,
    SeatView,
    SetHouse,
    SetLevel,
    ShotClockReport,
    StackAdjusted,
    SyncClock,
    TableClosed,
)
from controller.events.state import Stakes
from controller.sync.errors import CommandRefused, JournalError
from controller.sync.hand_view import hand_public


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
        "start_stacks": (), "hand_seats": (), "clock_on_seat": None, "hand_log": (),
        "game": None, "hand": None})


def _with_log(state: PublicState, log: tuple[HandStep, ...], grew: bool = False
              ) -> PublicState:
    """The hand's new log and the engine's view of it (``grew``: one entry added to the
    state's log, so the engine hand kept for it takes just that step)."""
    hand = hand_public(state.game, state.start_stacks, state.hand_seats, log,
                       state.hand_log if grew else None, shown=state.hand)
    return state.model_copy(update={"hand_log": log, "hand": hand})


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
    return _with_log(state, log[:len(log) - n])


def _correct(state: PublicState, event: ActionCorrected) -> PublicState:
    log = state.hand_log
    entry = log[event.index] if event.index < len(log) else None
    if not isinstance(entry, ActionAccepted) or entry.move() != event.old.move():
        raise JournalError(f"hand {event.hand_no}: log entry {event.index} is not the "
                           "corrected action")
    fixed: list[HandStep] = [*log[:event.index], event.new, *log[event.index + 1:]]
    for later in event.replayed:  # the replay's later entries (a call of the new bet)
        if not event.index < later.index < len(fixed):
            raise JournalError(f"hand {event.hand_no}: the correction replays log entry "
                               f"{later.index}, which the log does not hold")
        fixed[later.index] = later.step
    return _with_log(state, tuple(fixed))


def _start(state: PublicState, event: HandStarted) -> PublicState:
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
    game = event.config or GameSetup(small_blind=event.small_blind,
                                     big_blind=event.big_blind)  # an old table's: NT
    return _with_log(state.model_copy(update={
        "hand_no": event.hand_no, "hand_in_progress": True, "hand_log": (),
        "start_stacks": event.stacks, "hand_seats": event.seats, "layout": layout,
        "redeal": False, "game": game, "stakes": _stakes(event, game),
        "button_placed": None}), ())


def _stakes(event: HandStarted, game: GameSetup) -> Stakes:
    """The blinds and antes a hand was dealt with, as its ``hand_started`` gives them."""
    return Stakes(level=event.level, variant=game.variant, small_blind=event.small_blind,
                  big_blind=event.big_blind, ante=event.ante or max(game.antes, default=0),
                  big_blind_ante=game.big_blind_ante,
                  straddle=0 if game.straddle == "none"  # STRADDLE-1: 0 means 2x the BB
                  else game.straddle_amount or 2 * game.big_blind)


def _end(state: PublicState, event: HandEnded) -> PublicState:
    _in_hand(state, event.hand_no, "hand end")
    if sum(event.stacks) + event.rake != sum(state.start_stacks):
        raise JournalError(f"hand {event.hand_no} ends with {sum(event.stacks)} chips plus "
                           f"{event.rake} rake, but started with {sum(state.start_stacks)}")
    return _settle(state, event.stacks)


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
    return _with_seats(state, seats)


def _with_seats(state: PublicState, seats: dict[int, SeatView]) -> PublicState:
    return state.model_copy(update={"seats": tuple(seats[k] for k in sorted(seats))})


def _clocked(state: PublicState, clock: ClockSnapshot | None) -> PublicState:
    """Issue 5: the clocks as of this change, for a restart."""
    return state if clock is None else state.model_copy(update={"clock": clock})


def _between_hands(state: PublicState, event: PublicEvent) -> None:
    if state.hand_in_progress:
        raise JournalError(f"{event.kind} during hand {state.hand_no}")


def _refuse(event: PublicEvent) -> JournalError:
    return JournalError(f"table change {event.kind!r} does not apply: {event}")


def _seat(state: PublicState, event: PlayerSeated) -> PublicState:
    _between_hands(state, event)
    state = _clocked(state, event.clock)
    seats = _seat_stacks(state)
    if event.seat in seats:
        raise _refuse(event)
    penalty = event.penalty_hands or 0  # PEN-5: a penalty brought along sits them out
    seats[event.seat] = SeatView(seat=event.seat, player=event.player, stack=event.stack,
                                 sitting_out=penalty > 0, penalty_hands=penalty)
    return _with_seats(_carried_chips(state, event.player, event.extension_chips), seats)


def _unseat(state: PublicState, event: PlayerRemoved | PlayerMoved | PlayerBusted
            ) -> PublicState:
    seats = _seat_stacks(state)
    if isinstance(event, PlayerBusted):
        if event.seat not in seats or state.hand_in_progress:
            raise _refuse(event)
        if seats[event.seat].stack != 0:  # only the table busts a player: no chips left
            raise JournalError(f"seat {event.seat} busted with {seats[event.seat].stack} "
                               "chips; a player busts with none")
    else:
        _between_hands(state, event)
        if event.seat not in seats:
            raise _refuse(event)
    del seats[event.seat]
    return _with_seats(state, seats)


def _seat_update(state: PublicState, event: SatOut | CameBack | PenaltyServed,
                 **update: object) -> PublicState:
    seats = _seat_stacks(state)
    if event.seat not in seats:
        raise _refuse(event)
    seats[event.seat] = seats[event.seat].model_copy(update=update)
    return _with_seats(state, seats)


def _release(state: PublicState, event: HandReleased) -> PublicState:
    if not state.hand_for_hand or state.hand_in_progress:
        raise _refuse(event)
    return state  # TOURN-22: one hand may be dealt; the hand itself is the record


def _close(state: PublicState, event: TableClosed) -> PublicState:
    if state.hand_in_progress:
        raise _refuse(event)
    return state.model_copy(update={"closed": True})


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


def _node_status(state: PublicState, seat: int, *, online: bool) -> PublicState:
    """A seat node reported offline, or back: the floor sees which are offline."""
    offline = set(state.seat_nodes_offline)
    if online:
        offline.discard(seat)
    else:
        offline.add(seat)
    return state.model_copy(update={"seat_nodes_offline": tuple(sorted(offline))})


def fold(state: PublicState, event: PublicEvent) -> PublicState:
    """The state after ``event``; :class:`JournalError` if it cannot follow ``state``."""
    match event:
        # -- the hand
        case HandStarted():
            return _start(state, event)
        case HandEnded():
            return _end(state, event)
        case HandVoided(hand_no=hand_no, stacks=stacks):
            return _void(state, hand_no, stacks, "void")
        case MisdealDeclared(hand_no=hand_no, stacks=stacks):
            return _void(state, hand_no, stacks, "misdeal")
        case HoleDealt() | BoardDealt() | ActionAccepted():
            _in_hand(state, event.hand_no, event.kind)
            return _with_log(state, (*state.hand_log, event), grew=True)
        case ActionsUndone():
            _in_hand(state, event.hand_no, event.kind)
            return _undo(state, event)
        case ActionCorrected():
            _in_hand(state, event.hand_no, event.kind)
            return _correct(state, event)
        case CardBurned() | ActionHeld() | HandShown() | PotAwarded() | RakeTaken():
            _in_hand(state, event.hand_no, event.kind)
            return state  # no change to the durable state
        # -- the seats
        case PlayerSeated():
            return _seat(state, event)
        case PlayerRemoved() | PlayerMoved() | PlayerBusted():
            return _unseat(state, event)
        case SatOut() | CameBack():
            return _seat_update(state, event, sitting_out=isinstance(event, SatOut))
        case ButtonPlaced(seat=seat):  # BTN-1, BTN-4: the first hand is dealt from it
            return state.model_copy(update={"button_placed": seat})
        case PenaltyServed(hands_left=left):  # PEN-4: hands still to serve
            return _seat_update(state, event, penalty_hands=left)
        case StackAdjusted():
            return _fold_stacks(state, event)
        case SeatPresence() | PlayerCheckedIn():
            return state  # for the floor to see; the durable state does not change
        # -- the clocks
        case Paused(clock=clock) | Resumed(clock=clock):
            return _clocked(state, clock).model_copy(
                update={"paused": isinstance(event, Paused)})
        case LevelSet(level=level, clock=clock):
            return _clocked(state, clock).model_copy(update={"level": level})
        case ClockSynced(clock=clock) | BreakStarted(clock=clock) | BreakEnded(clock=clock):
            return _clocked(state, clock)  # the level clock's own: its snapshot is the record
        case ClockCalled(seat=seat):
            return state.model_copy(update={"clock_on_seat": seat})
        case ShotClockReport(what="extension", chips_left=int() as left) \
                if state.clock is not None:
            return _fold_extension(state, event, left)
        case ShotClockReport():
            return state
        # -- the floor
        case HandForHandSet(on=on):
            return state.model_copy(update={"hand_for_hand": on})
        case HandReleased():
            return _release(state, event)
        case ColourUpScheduled(level=level):
            return state.model_copy(update={"colour_up_at_level": level})
        case HouseSet(house=house, text=text):  # LEVEL-1: a house changes between hands
            _between_hands(state, event)
            return state.model_copy(update={"house": house, "house_text": text})
        case TableClosed():
            return _close(state, event)
        case Irregularity(what="seat_node_offline", seat=int() as seat):
            return _node_status(state, seat, online=False)
        case SeatNodeBack(seat=seat):
            return _node_status(state, seat, online=True)
        case Irregularity() | DeckReport() | Rejected():
            return state  # a refusal changed nothing
        case InputTaken() | CardRead():
            return state  # an input, for audit: its outcome is what follows it
        case ColourUpStarted() | ChipsCounted() | RaceCardDealt() | RaceDealtAgain() \
                | RaceChipsAwarded() | ColourUpStepUndone() | ColourUpCancelled():
            return state  # the colour-up's steps: its stack_adjusted changes the stacks
        case _:
            assert_never(event)


Answer = tuple[dict[str, int | str | bool], list[PublicEvent]]


class SeatingControls:
    """Host commands checked against the ledger state; each answer is data plus the
    change events that carry it out, each with the command's id (nothing changes until
    they are journaled)."""

    def __init__(self, state: Callable[[], PublicState]) -> None:
        self._state = state

    def perform(self, command: Command, command_id: str) -> Answer:
        """Validate ``command`` against the current state; :class:`CommandRefused` if not."""
        st = self._state()
        seats = _seat_stacks(st)
        if st.closed:
            raise CommandRefused("the table is closed")

        def change(event: PublicEvent) -> Answer:
            return {"change": event.kind}, [event.model_copy(update={"command_id": command_id})]

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
                return change(Paused())
            case Resume():
                if not st.paused:
                    raise CommandRefused("the table is not paused")
                return change(Resumed())
            case SetLevel(level=level):
                return change(LevelSet(level=level))
            case CallClock(seat=seat):
                need_seated(seat)
                if not st.hand_in_progress or seat not in st.hand_seats:
                    raise CommandRefused(f"seat {seat} is not in a hand: no clock to call")
                return change(ClockCalled(seat=seat))
            case HandForHand(on=on):
                if st.hand_for_hand == on:
                    raise CommandRefused(f"hand-for-hand is already {'on' if on else 'off'}")
                return change(HandForHandSet(on=on))
            case ScheduleColourUp(at_level=at):
                if at <= st.level:
                    raise CommandRefused(f"level {at} is not after the current level {st.level}")
                return change(ColourUpScheduled(level=at))
            case SeatPlayer(seat=seat, player=player, stack=stack):
                need_no_hand("seat a player")
                if seat in seats:
                    raise CommandRefused(f"seat {seat} is taken by {seats[seat].player}")
                if any(s.player == player for s in st.seats):
                    raise CommandRefused(f"player {player} is already seated")
                return change(PlayerSeated(seat=seat, player=player, stack=stack,
                                           extension_chips=command.extension_chips,
                                           penalty_hands=command.penalty_hands or None))
            case RemovePlayer(seat=seat):
                need_seated(seat)
                need_no_hand("remove a player")
                return change(PlayerRemoved(seat=seat, player=seats[seat].player))
            case MovePlayer(seat=seat, to_table=to_table):
                need_seated(seat)
                need_no_hand("move a player")
                return change(PlayerMoved(seat=seat, player=seats[seat].player,
                                          stack=seats[seat].stack, to_table=to_table))
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
                return change(TableClosed())
            case NextHand() | SyncClock() | SetHouse():  # the live table's (controller.app)
                raise CommandRefused(f"command {command.name!r} is not handled")
            case _:
                assert_never(command)
