"""The table controller wired together: hardware, the live table, the journal, the outbox
and the MQTT link to the host, in one asyncio TaskGroup (DESIGN.md, rooms: ``app.py``).

    pitboss table run --profile virtual --table T1 --broker localhost:1883 --db t1.db
    python -m controller.app table run --profile virtual --table T1 --db t1.db --autoplay 50

Running a table (the options, the virtual dealer and bots, tournament play, the CLI) is
:mod:`controller.table_runner`; this module is what it wires together.

The live table emits the models of the one vocabulary (``controller.events``; hole and
burn cards only as the secret events, which the journal sends on ``secure/cards`` alone).
:class:`TableJournal` takes them as they are: each is journaled with an fsync before the
table's call returns (so displays follow the journal) and queued for the host. Host
commands reach the table through :class:`TableCommands`; a command the table refuses
changes nothing and is answered with the refusal's reason (the desk journals the reply).
At start the journal's state restores the table; a hand a crash cut short is voided
first, every stack back to its start (CRASH-1), and the host hears it as
``hand_voided``; the next hand is dealt with the same layout.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import assert_never

from controller import events as ev
from controller.clocks.house import HouseError, parse_house
from controller.events import (
    AddChips,
    CallClock,
    CloseTable,
    Command,
    HandForHand,
    JournalEvent,
    JsonScalar,
    MovePlayer,
    NextHand,
    Pause,
    PublicState,
    RemovePlayer,
    Resume,
    SeatPlayer,
    SetHouse,
    SetLevel,
    SyncClock,
)
from controller.rules.button import Positions
from controller.rules.errors import RulesError
from controller.sync.errors import CommandRefused
from controller.sync.journal import Journal
from controller.sync.outbox import Outbox
from controller.table import intents
from controller.table.lights import Level
from controller.table.table import Stage, Table
from controller.terminal.desk import Desk

log = logging.getLogger("pitboss.app")

CRASH_VOID = "the controller restarted during the hand (CRASH-1)"
DEFAULT_LEVELS = (Level(50, 100, small_bet=100, big_bet=200),)  # the limit bets: FL-2


# ============================================================================ events
@dataclass
class Capture:
    """What the table emitted while a host command ran: its events, and the reasons of
    anything it refused."""

    events: list[JournalEvent] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)

    @property
    def done(self) -> bool:
        """The table changed something (beyond refusing)."""
        return any(not isinstance(e, ev.Rejected) for e in self.events)


class TableJournal:
    """The live table's sink (``Table(sink=...)``): each event, a model of the one
    vocabulary as the table emitted it, is journaled (fsync) before the call returns,
    then queued for the host (DESIGN.md data flow 4-5); the journal splits a secret one
    (hole or burn cards) onto ``secure/cards``.

    While ``silent`` (restoring the table from the journal) events are dropped; while a
    host command runs they are captured for the command desk, which journals them with
    its reply in one transaction."""

    def __init__(self, outbox: Outbox) -> None:
        self.outbox = outbox
        self.silent = False
        self._capture: Capture | None = None
        # called after each event is journaled (the dealer's terminal redraws): cheap
        # callbacks only, that note a change and let their own task redraw
        self.watchers: list[Callable[[], None]] = []

    def __call__(self, event: JournalEvent) -> None:
        if self.silent:
            return
        capture = self._capture
        if capture is not None:
            capture.events.append(event)
            if isinstance(event, ev.Rejected):
                capture.rejected.append(f"{event.reason} ({event.rule})" if event.rule
                                        else event.reason)
        else:  # a JournalError propagates: the table stops rather than run unjournaled
            self.outbox.record_now([event])
        for watcher in self.watchers:
            watcher()

    @contextmanager
    def capturing(self) -> Iterator[Capture]:
        """Collect the events of one host command instead of journaling them."""
        self._capture = Capture()
        try:
            yield self._capture
        finally:
            self._capture = None

    @contextmanager
    def muted(self) -> Iterator[None]:
        """Drop events (the table is being restored to what the journal already holds)."""
        self.silent = True
        try:
            yield
        finally:
            self.silent = False


def open_desk(table: Table, sink: TableJournal) -> Desk:
    """The dealer's terminal of ``table``: it shows what the journal holds (the outbox's
    public state) and redraws after every journaled event."""
    desk = Desk(table, lambda: sink.outbox.state)
    sink.watchers.append(desk.changed)
    return desk


# ============================================================================ commands
Reply = tuple[Mapping[str, JsonScalar], Sequence[JournalEvent]]


class TableCommands:
    """The host's commands on the live table (:class:`~controller.sync.commands.CommandTable`).

    The table carries a command out while its events are captured; the command desk then
    journals them with the reply in one transaction. What the table cannot do yet is
    refused with the reason, never answered with a silent success."""

    def __init__(self, table: Table, sink: TableJournal) -> None:
        self.table = table
        self.sink = sink

    def _run(self, command_id: str, act: Callable[[], object], *,
             moved_to: str | None = None) -> Reply:
        """Carry out ``act`` with the table's events captured; each change gets the
        command's id. ``moved_to``: the player who left is moved to that table."""
        with self.sink.capturing() as capture:
            ok = act()
        if ok is False or capture.rejected:
            reason = capture.rejected[-1] if capture.rejected else "the table refused it"
            if capture.done:  # half done: journal what happened (the refusal too), say so
                log.warning("command %s partly done: %s", command_id, reason)
            else:  # nothing changed: the desk journals the refusal with its reply
                raise CommandRefused(reason)
        events: list[JournalEvent] = []
        for event in capture.events:
            if moved_to is not None and isinstance(event, ev.PlayerRemoved):
                event = ev.PlayerMoved(seat=event.seat, player=event.player,
                                       stack=event.stack, to_table=moved_to)
            if isinstance(event, ev.Change):
                event = event.model_copy(update={"command_id": command_id})
            events.append(event)
        changes = [e.kind for e in events if isinstance(e, ev.Change)
                   and not isinstance(e, ev.StackAdjusted)]
        return {"change": changes[-1] if changes else "none"}, events

    def _add_chips(self, command_id: str, seat: int, player: str, chips: int,
                   reason: str) -> Reply:
        """A rebuy or add-on (TOURN-10..12): one ``stack_adjusted`` with the command id;
        refused during a hand (TOURN-11), for an empty seat or someone else's."""
        _, events = self._run(command_id, lambda: self.table.add_chips(seat, player, chips,
                                                                       reason))
        after = self.table.roster[seat].stack
        return {"change": "stack_adjusted", "seat": seat, "stack": after}, events

    def _set_house(self, command_id: str, text: str) -> Reply:
        """The host's house file, played from the next hand: a file that cannot be played
        is refused with its field, line and rule; the table refuses during a hand
        (LEVEL-1) and a house of the other kind (TOURN-1). Accepted: ``house_set``."""
        try:
            house = parse_house(text)
        except HouseError as exc:
            raise CommandRefused(str(exc)) from None
        return self._run(command_id, lambda: self.table.submit(intents.SetHouse(house)))

    def perform(self, command: Command, command_id: str) -> Reply:
        """Carry ``command`` out on the table; :class:`CommandRefused` if it cannot."""
        t = self.table
        if self.sink.outbox.state.closed:
            raise CommandRefused("the table is closed")
        match command:
            case Pause():
                if self.sink.outbox.state.paused:
                    raise CommandRefused("the table is already paused")
                return self._run(command_id, lambda: t.pause(True))
            case Resume():
                if not self.sink.outbox.state.paused:
                    raise CommandRefused("the table is not paused")
                return self._run(command_id, lambda: t.pause(False))
            case CallClock(seat=seat):
                return self._run(command_id, lambda: t.call_clock(seat, caller="floor"))
            case HandForHand(on=on):  # TOURN-22
                return self._run(command_id, lambda: t.set_hand_for_hand(on))
            case NextHand():  # TOURN-22: exactly one hand may be dealt
                return self._run(command_id, t.release_hand)
            case SyncClock(level=level, seconds_left=left, on_break=on_break):
                if t.clocks.host is None:
                    raise CommandRefused("this table's levels are not on a clock: the "
                                         "host's clock is for a tournament table")
                return self._run(command_id, lambda: t.sync_clock(level, left, on_break))
            case ev.ScheduleColourUp(at_level=at_level):  # CHIPRACE-1, by the floor
                return self._run(command_id,
                                 lambda: t.submit(intents.ScheduleColourUp(at_level)))
            case SetLevel(level=level):
                if level <= t.level_no:
                    raise CommandRefused(f"the table is at level {t.level_no}; levels only "
                                         "move on")
                if level > len(t.levels):
                    raise CommandRefused(f"the structure has {len(t.levels)} levels")
                steps = level - t.level_no
                return self._run(command_id, lambda: [t.next_level() for _ in range(steps)])
            case SeatPlayer(seat=seat, player=player, stack=stack, extension_chips=chips,
                            penalty_hands=penalty):  # what follows a moved player: PEN-5
                there = next((s.number for s in t.roster.occupied() if s.player == player),
                             None)
                if there is not None:
                    raise CommandRefused(f"player {player} is already seated at seat {there}; "
                                         "remove or move them first")
                return self._run(command_id, lambda: t.take_seat(
                    seat, player, stack, extension_chips=chips, penalty_hands=penalty))
            case AddChips(seat=seat, player=player, chips=chips, reason=reason):
                return self._add_chips(command_id, seat, player, chips, reason)
            case SetHouse(text=text):
                return self._set_house(command_id, text)
            case RemovePlayer(seat=seat):
                return self._run(command_id, lambda: t.leave_seat(seat))
            case MovePlayer(seat=seat, to_table=to_table):
                return self._run(command_id, lambda: t.leave_seat(seat), moved_to=to_table)
            case CloseTable():
                if t.stage is not Stage.IDLE:
                    raise CommandRefused(f"cannot close the table while {t.stage}; wait "
                                         "for the hand to end")
                return {"change": "table_closed"}, [ev.TableClosed(command_id=command_id)]
            case _:
                assert_never(command)


# ============================================================================ recovery
def restore(table: Table, state: PublicState, sink: TableJournal) -> None:
    """Put the table where the journal says it is (nothing is journaled again): seats,
    stacks, sitting out, the hand count, the level, and where the button was. A void or a
    misdeal last: that layout is dealt again (LIVE-25, CRASH-1).

    The clocks continue from the journal's last snapshot (issue 5: level, time left, break,
    pause, time-bank extension chips, those a moved player brought included); a penalty
    still to serve is restored with the seat (PEN-4/5); a running level clock counts the time the
    controller was down, and what that time changed (a level, a break) is journaled now.
    A host-run clock shows UNSYNCED until the host syncs it again.

    The house the journal last set is played again (``house_text``), before the seats.

    Not restored yet (lost on a restart): missed blinds and pending posts (BLIND-4/5)."""
    with sink.muted():
        for seat in list(table.roster.occupied()):
            table.leave_seat(seat.number)
        _restore_house(table, state)
        for view in state.seats:  # a penalty still to serve sits them out (PEN-4/5); the
            table.take_seat(view.seat, view.player, view.stack,  # chips are theirs, not
                            penalty_hands=view.penalty_hands or None,  # a buy-in
                            buy_in=False)
            if view.sitting_out and not view.penalty_hands:
                table.sit_out(view.seat)
        if state.paused:
            table.pause(True)
        if state.hand_for_hand:  # TOURN-22 (a release not yet dealt is lost: the floor
            table.set_hand_for_hand(True)  # releases the hand again)
        positions: Positions | None = None
        layout = state.layout
        if layout is not None:
            try:
                positions = Positions(layout.button, layout.small_blind, layout.big_blind,
                                      layout.seats)
            except RulesError as exc:
                log.warning("the last layout cannot be restored: %s", exc.reason)
        table.restore(hand_no=state.hand_no, previous=positions, redeal=state.redeal,
                      level_no=None if state.clock is None else state.clock.level)
        if state.button_placed is not None and positions is None:  # BTN-1/4, not yet dealt
            table.submit(intents.PlaceButton(state.button_placed))
        while state.clock is None and table.level_no < min(state.level, len(table.levels)):
            table.next_level()
        at = state.colour_up_at_level
        if at is not None and at > table.level_no:  # the floor's colour-up still to come
            table.submit(intents.ScheduleColourUp(at))
    if state.clock is not None:
        table.restore_clock(state.clock)


def _restore_house(table: Table, state: PublicState) -> None:
    """The house the journal last set (``house_text``), unless the table was built
    with that very file: a restart plays the house it played."""
    text = state.house_text
    multiplier = None if state.house is None else state.house.multiplier
    if not text or (table.house is not None and table.house.text == text
                    and table.house.multiplier == multiplier):
        return
    try:
        house = parse_house(text, "the journal's house", multiplier=multiplier)
    except HouseError as exc:
        log.warning("the journal's house cannot be played again: %s", exc)
        return
    refusal = table.submit(intents.SetHouse(house)).refusal
    if refusal is not None:
        log.warning("the journal's house %r is not restored: %s", house.name, refusal.reason)


def recover(journal: Journal) -> bool:
    """Void a hand a crash cut short (CRASH-1); True if there was one."""
    voided = journal.void_open_hand(CRASH_VOID)
    if voided is not None:
        log.warning("hand %d voided after a restart: stacks rolled back",
                    journal.state.hand_no)
    return voided is not None
