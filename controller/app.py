"""The table controller wired together: hardware, the live table, the journal, the outbox
and the MQTT link to the host, in one asyncio TaskGroup (DESIGN.md, rooms: ``app.py``).

    pitboss table run --profile virtual --table T1 --broker localhost:1883 --db t1.db
    python -m controller.app table run --profile virtual --table T1 --db t1.db --autoplay 50

Running a table (the options, the virtual dealer and bots, tournament play, the CLI) is
:mod:`controller.table_runner`; this module is what it wires together.

What the live table emits (``controller.table.events``) goes through
:class:`TableJournal`: each event becomes its model of the one vocabulary
(:func:`wire_event`, into ``controller.events``; hole and burn cards only as secret events,
which the journal sends on ``secure/cards`` alone),
is journaled with an fsync before the table's call returns (so displays follow the
journal), and is queued for the host. Host commands reach the table through
:class:`TableCommands`. At start the journal's state restores the table; a hand a crash
cut short is voided first, every stack back to its start (CRASH-1), and the host hears it
as ``hand_voided``; the next hand is dealt with the same layout.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Final, assert_never

from controller import events as ev
from controller.clocks.host_clock import ClockSnapshot
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
    SetLevel,
    SyncClock,
)
from controller.rules.button import Positions
from controller.rules.errors import RulesError
from controller.sync.errors import CommandRefused
from controller.sync.journal import Journal
from controller.sync.outbox import Outbox
from controller.table import events as te
from controller.table import intents
from controller.table.lights import Level
from controller.table.table import Stage, Table

log = logging.getLogger("pitboss.app")

CRASH_VOID = "the controller restarted during the hand (CRASH-1)"
DEFAULT_LEVELS = (Level(50, 100),)


# ============================================================================ events
def _clip(text: str, limit: int) -> str:
    """Free text from the table fits its wire field (a long reason must not stop a table)."""
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _position(state: PublicState, seat: int) -> int:
    try:
        return state.hand_seats.index(seat)
    except ValueError:
        raise ValueError(f"seat {seat} is not in hand {state.hand_no}") from None


def _action(hand_no: int, event: te.ActionAccepted) -> ev.ActionAccepted:
    live: dict[str, object] = {"forfeited": event.forfeited, "returned": event.returned,
                               "owed": event.owed, "source": event.source}
    if event.rule is not None:
        live["rule"] = event.rule
    return ev.ActionAccepted.of(hand_no, event.action, **live)


def _clock(snap: ClockSnapshot | None) -> ev.ClockSnapshot | None:
    """The clocks' snapshot on the wire (issue 5: what a restart continues from)."""
    if snap is None:
        return None
    return ev.ClockSnapshot(
        at=snap.at, level=snap.level, phase=snap.phase,  # type: ignore[arg-type]
        seconds_left=snap.seconds_left, held_s=snap.held_s, synchronised=snap.synchronised,
        paused=snap.paused, host=snap.host, stage=snap.stage, chips=snap.chips)


def clock_snapshot(clock: ev.ClockSnapshot) -> ClockSnapshot:
    """The journal's snapshot as the clocks take it back."""
    return ClockSnapshot(
        at=clock.at, level=clock.level, phase=clock.phase, seconds_left=clock.seconds_left,
        held_s=clock.held_s, synchronised=clock.synchronised, paused=clock.paused,
        host=clock.host, stage=clock.stage, chips=clock.chips)


NOT_SENT: Final = (te.Rejected, te.ColourUpStarted, te.ChipsCounted, te.RaceCardDealt,
                   te.RaceDealtAgain, te.RaceChipsAwarded, te.ColourUpStepUndone,
                   te.ColourUpCancelled)
"""Table events knowingly not journaled: a refusal changed nothing (the table logs it
and the terminal shows it), and a colour-up's steps go out as its outcome, ONE
``stack_adjusted`` (``StacksColouredUp``)."""


def wire_event(event: te.TableEvent, state: PublicState,
               config: Callable[[], ev.GameSetup | None] = lambda: None,
               level: int | None = None) -> JournalEvent | None:
    """The vocabulary's model of one table event (None: knowingly not sent, see
    :data:`NOT_SENT`), given the journal's state before it (seats to positions);
    ``config`` gives the hand's game setup at ``HandStarted``.

    Exhaustive: a table event without a case here fails ``mypy --strict``
    (``assert_never``), so none is dropped unseen."""
    match event:
        # -- the hand
        case te.HandStarted():
            return ev.HandStarted(
                hand_no=event.hand_no, seats=event.dealt, stacks=event.stacks,
                small_blind=event.small_blind_amount, big_blind=event.big_blind_amount,
                ante=event.ante, button=event.button, small_blind_seat=event.small_blind,
                big_blind_seat=event.big_blind, level=level, config=config())
        case te.HoleCardsDealt(hand_no=hand_no, seat=seat, cards=cards):
            return ev.HoleCardsDealt(hand_no=hand_no, player=_position(state, seat),
                                     cards=tuple(str(c) for c in cards))
        case te.CardBurned(hand_no=hand_no, card=card):
            return ev.BurnedCard(hand_no=hand_no, card=str(card))
        case te.BoardDealt(hand_no=hand_no, street=street, cards=cards):
            return ev.BoardDealt.model_validate({
                "hand_no": hand_no, "cards": tuple(str(c) for c in cards),
                "street": street if street in ("flop", "turn", "river") else None})
        case te.ActionAccepted():
            return _action(event.hand_no, event)
        case te.ActionHeld(hand_no=hand_no, seat=seat, what=what):
            return ev.ActionHeld(hand_no=hand_no, seat=seat, what=_clip(what, 40))
        case te.ActionReleased(hand_no=hand_no, seat=seat, what=what):
            return ev.ActionHeld(hand_no=hand_no, seat=seat, what=_clip(what, 40),
                                 released=True)
        case te.ActionsUndone(hand_no=hand_no, actions=actions, reason=reason):
            return ev.ActionsUndone(hand_no=hand_no, reason=_clip(reason, 400), actions=tuple(
                ev.ActionAccepted.of(hand_no, a) for a in actions))
        case te.ActionCorrected(hand_no=hand_no, index=index, old=old, new=new):
            return ev.ActionCorrected(
                hand_no=hand_no, index=index, reason=_clip(event.reason, 400),
                old=ev.ActionAccepted.of(hand_no, old), new=ev.ActionAccepted.of(hand_no, new))
        case te.HandShown(hand_no=hand_no, seat=seat, cards=cards, description=text):
            return ev.HandShown(hand_no=hand_no, player=_position(state, seat),
                                cards=tuple(str(c) for c in cards),
                                description=_clip(text, 120))
        case te.PotAwarded(hand_no=hand_no, pot=pot, amount=amount, shares=shares):
            return ev.PotAwarded(hand_no=hand_no, pot=pot, amount=amount, shares=tuple(
                (_position(state, s), chips) for s, chips in shares))
        case te.HandEnded(hand_no=hand_no, stacks=stacks, rake=rake):
            after = dict(stacks)
            return ev.HandEnded(hand_no=hand_no, rake=rake,
                                stacks=tuple(after[s] for s in state.hand_seats))
        case te.MisdealDeclared(hand_no=hand_no, reason=reason, rule=rule):
            return ev.MisdealDeclared(hand_no=hand_no, stacks=state.start_stacks,
                                      reason=_clip(reason, 400), rule=rule)
        # -- outside a hand: seats
        case te.SeatTaken(seat=seat, player=player, stack=stack, extension_chips=chips,
                          penalty_hands=penalty, clock=clock):  # PEN-5, TOURN-32
            return ev.PlayerSeated(seat=seat, player=player, stack=stack,
                                   extension_chips=chips, penalty_hands=penalty,
                                   clock=_clock(clock))
        case te.PenaltyServed(hand_no=hand_no, seat=seat, player=player, hands_left=left):
            return ev.PenaltyServed(seat=seat, player=player, hands_left=left,  # PEN-4
                                    hand_no=hand_no)
        case te.SeatLeft(seat=seat, player=player, stack=stack):
            return ev.PlayerRemoved(seat=seat, player=player, stack=stack)
        case te.PlayerBusted(hand_no=hand_no, seat=seat, player=player):
            return ev.PlayerBusted(seat=seat, player=player, hand_no=hand_no)
        case te.ChipsAdded(seat=seat, before=before, after=after, reason=reason):
            return ev.StackAdjusted(  # TOURN-10..12: a rebuy or add-on, one seat
                reason="add_on" if reason == "add_on" else "rebuy",
                seats=(ev.SeatAdjustment(seat=seat, before=before, after=after),))
        case te.SatOut(seat=seat):
            return ev.SatOut(seat=seat)
        case te.CameBack(seat=seat):
            return ev.CameBack(seat=seat)
        case te.PlayerCheckedIn(seat=seat, player=player):
            return ev.PlayerCheckedIn(seat=seat, player=player, assigned=seat)
        case te.WrongSeat(seat=seat, player=player, assigned=assigned):
            return ev.PlayerCheckedIn(seat=seat, player=player, assigned=assigned)
        case te.PresenceChanged(seat=seat, present=present):
            return ev.SeatPresence(seat=seat, present=present)
        # -- clocks
        case te.LevelChanged(level=level, clock=clock):
            return ev.LevelSet(level=level, clock=_clock(clock))
        case te.TablePaused(paused=paused, clock=clock):
            return ev.Paused(clock=_clock(clock)) if paused else ev.Resumed(clock=_clock(clock))
        case te.BreakStarted(level=level, colour_up=colour_up, clock=clock):
            return ev.BreakStarted(level=level, colour_up=colour_up, clock=_clock(clock))
        case te.BreakEnded(level=level, clock=clock):
            return ev.BreakEnded(level=level, clock=_clock(clock))
        case te.ClockSynced(level=level, on_break=on_break, offset_s=offset, clock=clock):
            return ev.ClockSynced(level=level, on_break=on_break, offset_s=round(offset, 3),
                                  clock=_clock(clock))
        case te.ClockCall(seat=seat):
            return ev.ClockCalled(seat=seat)
        case te.ExtensionTaken(hand_no=hand_no, seat=seat, seconds=seconds, chips_left=left):
            return ev.ShotClockReport(hand_no=hand_no, seat=seat, what="extension",
                                      seconds=seconds, chips_left=left)
        case te.ClockRuled(hand_no=hand_no, seat=seat, ruling=ruling, rule=rule):
            return ev.ShotClockReport(hand_no=hand_no, seat=seat, what="ruled",
                                      ruling=ruling, rule=rule)
        # -- the floor and the deck
        case te.HandForHandSet(on=on):
            return ev.HandForHandSet(on=on)
        case te.HandReleased(hand_no=hand_no):
            return ev.HandReleased(hand_no=hand_no)
        case te.ColourUpScheduled(level=level):
            return ev.ColourUpScheduled(level=level)
        case te.StacksColouredUp(stacks=stacks, note=note):  # the colour-up as ONE event
            return ev.StackAdjusted(reason="colour_up", note=_clip(note, 400), seats=tuple(
                ev.SeatAdjustment(seat=seat, before=before, after=after)
                for seat, before, after in stacks))
        case te.DeckEnrolled(version=version):
            return ev.DeckReport(what="enrolled", version=version)
        case te.DeckChecked(complete=complete, missing=missing, duplicated=twice,
                            unknown=unknown):
            return ev.DeckReport(what="checked", complete=complete, missing=len(missing),
                                 duplicated=len(twice), unknown=len(unknown))
        case te.UnknownCard(reader=reader):
            return ev.DeckReport(what="unknown_card", reader=reader)
        case te.Irregularity():  # its cards (if any) are for the dealer's screen only
            return ev.Irregularity(hand_no=event.hand_no, what=_clip(event.kind, 40),
                                   reason=_clip(event.reason, 400), rule=event.rule,
                                   seat=event.seat,
                                   choices=tuple(_clip(c.key, 40) for c in event.choices))
        case te.Rejected() | te.ColourUpStarted() | te.ChipsCounted() | te.RaceCardDealt() \
                | te.RaceDealtAgain() | te.RaceChipsAwarded() | te.ColourUpStepUndone() \
                | te.ColourUpCancelled():
            return None  # NOT_SENT
        case _:
            assert_never(event)


@dataclass
class Capture:
    """What the table emitted while a host command ran: the wire events, and the reasons
    of anything it rejected."""

    events: list[JournalEvent] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)


class TableJournal:
    """The live table's sink (``Table(sink=...)``): each event, converted, is journaled
    (fsync) before the call returns, then queued for the host (DESIGN.md data flow 4-5).

    ``table`` is attached once the table exists (it gives ``HandStarted`` its game setup).
    While ``silent`` (restoring the table from the journal) events are dropped; while a
    host command runs they are captured for the command desk, which journals them with
    its reply in one transaction."""

    def __init__(self, outbox: Outbox, table: Table | None = None) -> None:
        self.outbox = outbox
        self.table = table
        self.silent = False
        self._capture: Capture | None = None

    def _config(self) -> ev.GameSetup | None:
        hand = self.table.hand if self.table is not None else None
        return None if hand is None else ev.GameSetup.of(hand.config, hand.profile)

    def __call__(self, event: te.TableEvent) -> None:
        if self.silent:
            return
        if self._capture is not None and isinstance(event, te.Rejected):
            self._capture.rejected.append(event.reason)
        level = self.table.level_no if self.table is not None else None
        converted = wire_event(event, self.outbox.state, self._config, level)
        if converted is None:
            return
        if self._capture is not None:
            self._capture.events.append(converted)
        else:  # a JournalError propagates: the table stops rather than run unjournaled
            self.outbox.record_now([converted])

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
            if capture.events:  # half done: journal what happened, and say so
                log.warning("command %s partly done: %s", command_id, reason)
            else:
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

    Not restored yet (lost on a restart): missed blinds and pending posts (BLIND-4/5)."""
    with sink.muted():
        for seat in list(table.roster.occupied()):
            table.leave_seat(seat.number)
        for view in state.seats:  # a penalty still to serve sits them out (PEN-4/5)
            table.take_seat(view.seat, view.player, view.stack,
                            penalty_hands=view.penalty_hands or None)
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
        while state.clock is None and table.level_no < min(state.level, len(table.levels)):
            table.next_level()
        at = state.colour_up_at_level
        if at is not None and at > table.level_no:  # the floor's colour-up still to come
            table.submit(intents.ScheduleColourUp(at))
    if state.clock is not None:
        table.restore_clock(clock_snapshot(state.clock))


def recover(journal: Journal) -> bool:
    """Void a hand a crash cut short (CRASH-1); True if there was one."""
    voided = journal.void_open_hand(CRASH_VOID)
    if voided is not None:
        log.warning("hand %d voided after a restart: stacks rolled back",
                    journal.state.hand_no)
    return voided is not None
