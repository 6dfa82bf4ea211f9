"""The clocks on the live table (issue 5): the shot clock, clock calls, extension chips and
the level clock, on the table's injected clock.

- The shot clock starts when action reaches a player: after the last card of a street,
  after the dealer's bet or raise is accepted (an announced amount the dealer has yet to
  confirm pauses it), at once after a call. The player's action stops it; whether it came
  in time, at the very instant the time ran out (CLOCK-3: the tie goes to the player) or
  late is the clock's ruling on the input's time.
- It pauses while the dealer counts an all-in and while the floor pauses the table.
- Expiry: a check if one is possible, otherwise a fold (CLOCK-9, the live shot clock's
  house rule); after a clock call, a dead hand (CLOCK-3) through ``Hand.kill``.
- The level clock (``controller.clocks.LevelClock``) runs on the table's ``Structure``
  (or on plain timed levels); a new level applies from the next hand, which starts at the
  deal key (LEVEL-1). Breaks (scheduled, and synchronised at :55 past the hour, never in
  level 1: LEVEL-3) block the deal; each is journaled as ``BreakStarted`` (with the chip
  denominations of a colour-up) and ``BreakEnded``. A level moved on is ``LevelSet``, a
  clock called ``ClockCalled``, an extension chip spent a ``ShotClockReport``.
- The host is the authority (``HostClock``): a sync is adopted and the difference
  journaled (``ClockSynced``); without one for ``host_timeout_s`` the table counts on
  alone and the blinds display shows UNSYNCED. Every level change, break, pause and sync
  carries a ``ClockSnapshot`` for the journal (the vocabulary's model: the clocks' own
  snapshot converted here, :func:`wire_clock`, as ``controller.clocks`` may not import
  the vocabulary), which a restarted controller continues from
  (:meth:`TableClocks.restore`): a running clock counts the time the controller was down
  (the floor's clock did not stop); a paused one does not.
- Undo (issue 4): a player whose action is taken back is put back on the clock as it
  stood when the action was entered (the time left then, a called clock still called:
  CLOCK-3 lets no player out of a called clock; RULES.md is otherwise silent [interp]).
  A clock ruling that is taken back gives the player a fresh clock (the ruling was wrong).
- :class:`~controller.table.clock_panel.ClockPanel` shows all of it: the shot-clock
  display, the buzzer, the seat's light in the countdown, and the level's time on the
  blinds display (the table owns the display's level, blinds, ante and button fields).

Time passes by itself only through ``poll(now)``: the table's ``tick()`` in virtual time,
or :class:`~controller.clocks.runner.ClockRunner` on the asyncio loop (``Table.run``).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from controller.clocks.errors import ClockError
from controller.clocks.events import BreakEnded as ClockBreakEnded
from controller.clocks.events import BreakStarted as ClockBreakStarted
from controller.clocks.events import ClockCalled as ClockCalledEvent
from controller.clocks.events import (
    ClockEvent,
    ClockMode,
    ExtensionUsed,
    LevelStarted,
    LevelTick,
    PauseReason,
    Ruling,
    ShotClockExpired,
    ShotClockStarted,
    SyncChanged,
)
from controller.clocks.host_clock import DEFAULT_TIMEOUT_S, ClockSnapshot, HostClock, snapshot
from controller.clocks.level_clock import LevelClock
from controller.clocks.level_clock import Phase as LevelPhase
from controller.clocks.shot_clock import ShotClock, ShotClockConfig, Street
from controller.clocks.structure import Level as ClockLevel
from controller.clocks.structure import Structure
from controller.clocks.timebank import (
    Caller,
    ExtensionChips,
    profile_call_timing,
    verify_clock_call,
)
from controller.devices.interfaces import (
    BlindsDisplay,
    Buzzer,
    Clock,
    SeatLight,
    ShotClockDisplay,
    ShotClockFrame,
)
from controller.events import (
    BreakEnded,
    BreakStarted,
    ClockCalled,
    ClockSynced,
    LevelSet,
    Paused,
    Resumed,
    ShotClockReport,
)
from controller.events import ClockSnapshot as WireClock
from controller.rules.config import RulesProfile
from controller.rules.errors import RulesError
from controller.rules.hand import Phase

from .base import Stage
from .clock_panel import ClockPanel, PanelStyle
from .lights import Level
from .ports import HandView, Refuse, Sink
from .seats import Roster

STREETS = (Street.PREFLOP, Street.FLOP, Street.TURN, Street.RIVER)
HOLDING = ("pending", "floor")  # prompts that stop the player's clock: the dealer or floor


def structure_of(levels: Sequence[Level]) -> Structure | None:
    """The level clock's structure for the table's levels, or None when they are not timed
    (a cash game, or levels moved on by hand). An untimed last level stays (LEVEL-6)."""
    if any(lv.seconds is None for lv in levels[:-1]) or levels[0].seconds is None:
        return None
    return Structure("table", tuple(
        ClockLevel(i, lv.small_blind, lv.big_blind, lv.ante, 0,
                   math.inf if lv.seconds is None else float(lv.seconds))
        for i, lv in enumerate(levels, 1)))


def wire_clock(snap: ClockSnapshot | None) -> WireClock | None:
    """The clocks' snapshot as the vocabulary journals it (issue 5: what a restart
    continues from)."""
    if snap is None:
        return None
    return WireClock.model_validate({
        "at": snap.at, "level": snap.level, "phase": snap.phase,
        "seconds_left": snap.seconds_left, "held_s": snap.held_s,
        "synchronised": snap.synchronised, "paused": snap.paused, "host": snap.host,
        "stage": snap.stage, "chips": snap.chips})


def clocks_snapshot(clock: WireClock) -> ClockSnapshot:
    """The journal's snapshot as the clocks take it back."""
    return ClockSnapshot(
        at=clock.at, level=clock.level, phase=clock.phase, seconds_left=clock.seconds_left,
        held_s=clock.held_s, synchronised=clock.synchronised, paused=clock.paused,
        host=clock.host, stage=clock.stage, chips=clock.chips)


def levels_of(structure: Structure) -> tuple[Level, ...]:
    """The blinds display's levels for a structure: the ante shown is the per-player ante,
    else the big blind ante."""
    return tuple(Level(lv.small_blind, lv.big_blind, lv.ante or lv.big_blind_ante,
                       int(lv.seconds)) for lv in structure.levels)


class LatchedShotClock:
    """The shot-clock display as the panel sees it: a frame is held until :meth:`flush`
    (after the table's change is journaled), so a clock handed from one player to the
    next draws once, or not at all when the new frame is the one already shown."""

    def __init__(self, display: ShotClockDisplay) -> None:
        self.display = display
        self._frame = display.frame

    @property
    def frame(self) -> ShotClockFrame:
        return self._frame

    def show(self, frame: ShotClockFrame) -> None:
        self._frame = frame

    def flush(self) -> None:
        if self._frame != self.display.frame:
            self.display.show(self._frame)

    def refresh(self, now: float) -> None:
        self.display.refresh(now)

    def close(self) -> None:
        self.display.close()


class ShowBlinds(Protocol):
    """The table's blinds display follows (``seconds_left``: a new level's time)."""

    def __call__(self, seconds_left: Any = ...) -> None: ...


class RuleOnTime(Protocol):
    """The shot clock ruled on the player at ``seat`` (CLOCK-3, CLOCK-9): the hand in play
    carries the ruling out."""

    def __call__(self, seat: int, ruling: str, rule: str) -> None: ...


@dataclass(frozen=True, slots=True)
class ClockPorts:
    """What the clocks are given of the table: its time, the hand (read-only), the seats'
    players, the journal, refusals, the devices the clock panel drives, the blinds display,
    and the hand's way to carry out a clock's ruling."""

    clock: Clock
    view: HandView
    roster: Roster
    emit: Sink
    reject: Refuse
    refresh_blinds: ShowBlinds
    release_light: Callable[[int], None]
    rule_on_time: RuleOnTime
    profile: RulesProfile
    shot_clock: ShotClockDisplay
    buzzer: Buzzer
    light: Callable[[int], SeatLight]
    blinds: BlindsDisplay


class TableClocks:
    """The table's clocks and their panel (see the module docstring)."""

    def __init__(self, ports: ClockPorts, *, levels: Sequence[Level],
                 shot_clock: ShotClockConfig | None,
                 extensions: ExtensionChips | None, style: PanelStyle | None,
                 structure: Structure | None = None,
                 wall_clock: Callable[[], float] | None = None,
                 host_timeout_s: float = DEFAULT_TIMEOUT_S) -> None:
        """``levels``: the blinds levels (a ``structure``'s if one is given); the level
        clock runs on the ``structure`` (default: the timed ``levels``, if any);
        ``wall_clock``: epoch seconds (default: ``time.time`` at start, then the table's
        own clock, so virtual time moves it too); ``host_timeout_s``: how long without a
        sync from the host before the table shows UNSYNCED."""
        self.p = table = ports
        self.structure = structure
        self.levels = tuple(levels)
        self.level_no = 1
        self.shot = ShotClock(shot_clock, chips=extensions) if shot_clock is not None else None
        self.extensions = extensions
        self._anchor = time.time() - table.clock()
        self.wall: Callable[[], float] = wall_clock or self._anchored_wall
        structure = structure or structure_of(self.levels)
        self.level: LevelClock | None = None
        self.host: HostClock | None = None
        if structure is not None:
            local = self.wall() + time.localtime(self.wall()).tm_gmtoff  # LEVEL-3: local :55
            self.level = LevelClock(structure, wall_offset=local - table.clock())
            self.host = HostClock(self.level, timeout_s=host_timeout_s)
        self.display = LatchedShotClock(table.shot_clock)
        self.panel = ClockPanel(shot_clock=self.display, buzzer=table.buzzer,
                                light=table.light, blinds=table.blinds,
                                release_light=table.release_light,
                                style=style, time_only=True)
        self.paused = False  # the floor paused the table
        self.counting = False  # the dealer counts an all-in
        self._holding = False  # a prompt for the dealer or floor stops the clock
        self._on: tuple[int, int, int] | None = None  # (hand, log length, position) timed
        self._ruled = False  # the clock ruled on the player now on it
        self._caller = Caller.DEALER.value  # who called the clock last (for the journal)
        self._saved: dict[tuple[int, int, int], dict[str, Any]] = {}  # clocks at actions
        self._break: int | None = None  # the level whose break the table announced
        self.kick: Callable[[], None] = lambda: None  # re-arms the asyncio runner

    # ---------------------------------------------------------------- time
    def _anchored_wall(self) -> float:
        """Epoch seconds on the table's own clock (virtual time moves it too)."""
        return self.p.clock() + self._anchor

    def start(self) -> None:
        """The level clock starts with the table (once the blinds display has a frame)."""
        if self.level is not None:
            self.deliver_all(self.level.start(self.p.clock()))

    def clocks(self) -> list[ShotClock | LevelClock | HostClock]:
        return [c for c in (self.shot, self.level, self.host) if c is not None]

    def poll(self) -> None:
        """Report what happened up to now (expiries are ruled on before any input)."""
        shot, level = self.shot, self.level
        if shot is None and level is None:
            return
        now = self.p.clock()
        if shot is not None and shot.deadline is not None:  # running: it may have news
            self.deliver_all(shot.poll(now))
        if level is not None:
            self.deliver_all(level.poll(now))
        if self.host is not None:
            self.deliver_all(self.host.poll(now))

    def deliver_all(self, events: Sequence[ClockEvent]) -> None:
        for event in events:
            self.deliver(event)

    def deliver(self, event: ClockEvent) -> None:
        """One clock event: what the host must know goes to the journal first, then the
        panel shows it; an expiry is ruled on."""
        t = self.p
        if isinstance(event, ShotClockExpired):
            self.panel.handle(event)
            self._expired(event)
            return
        if isinstance(event, LevelStarted | LevelTick):
            self._level(event)
            return
        if isinstance(event, ClockBreakStarted | ClockBreakEnded):
            self._announce_break()
        elif isinstance(event, SyncChanged):
            self.panel.handle(event)
            t.refresh_blinds()
            return
        if isinstance(event, ClockCalledEvent):
            t.emit(ClockCalled(seat=event.seat, seconds=event.seconds,
                               countdown_s=event.countdown_s, caller=self._caller,
                               rule=event.rule))
        elif isinstance(event, ExtensionUsed):
            t.emit(ShotClockReport(hand_no=t.view.hand_no, seat=event.seat, what="extension",
                                   seconds=event.seconds, chips_left=event.chips_left))
        self.panel.handle(event)

    def _level(self, event: LevelStarted | LevelTick) -> None:
        t = self.p
        untimed = self.current.seconds is None
        if isinstance(event, LevelStarted) and event.number != self.level_no:
            self.level_no = event.number
            lv = self.current
            untimed = lv.seconds is None
            t.emit(LevelSet(level=self.level_no, small_blind=lv.small_blind,
                            big_blind=lv.big_blind, ante=lv.ante, clock=self.snapshot()))
            # the table's fields with the new level's time: one frame, no flicker
            t.refresh_blinds(None if untimed else event.seconds_left)
        if untimed:  # an untimed last level shows no time
            self.panel.level_time(None)
        else:
            self.panel.handle(event)

    # ---------------------------------------------------------------- the player to act
    def sync(self) -> None:
        """After any change: stop the clock of a player who acted (or is no longer to act)
        and start it for the player action has reached."""
        shot = self.shot
        if shot is None:
            return
        t, hand = self.p, self.p.view.hand
        want: tuple[int, int, int] | None = None
        if hand is not None and t.view.stage is Stage.PLAYING and hand.phase is Phase.BETTING \
                and hand.actor is not None:
            want = (t.view.hand_no, len(hand.log), hand.actor)
        holding = any(p.kind in HOLDING for p in t.view.prompts)
        if want != self._on:
            now = t.clock()
            on, self._on = self._on, want
            if shot.seat is not None:
                acted = (on is not None and hand is not None and t.view.hand_no == on[0]
                         and len(hand.log) > on[1] and not self._ruled
                         and getattr(hand.log[on[1]], "player", None) == on[2])
                if acted and on is not None:  # kept in case the action is taken back
                    self._saved[on] = shot.state(now)
                self.deliver_all(shot.acted(now) if acted else shot.clear(now))
            self._ruled = False
            if want is not None and hand is not None:
                seat = t.view.seat_of(want[2])
                saved = self._saved.pop(want, None)
                for key in [k for k in self._saved if k[0] != want[0] or k[1] >= want[1]]:
                    del self._saved[key]  # actions taken back, or another hand's
                if saved is not None:
                    self._resume(seat, saved, now, hand.can_check())
                else:
                    self.deliver_all(shot.start(
                        seat, now, street=STREETS[min(hand.street, 3)],
                        can_check=hand.can_check(), player=t.roster[seat].player))
        if holding != self._holding:
            self._holding = holding
            self._pause(PauseReason.FLOOR, holding or self.paused)
        self.display.flush()
        self.kick()

    def _resume(self, seat: int, saved: dict[str, Any], now: float, can_check: bool) -> None:
        """An undo put the player back to act: their clock as it stood when they acted."""
        shot = self.shot
        assert shot is not None
        state = {**saved, "pauses": shot.state(now)["pauses"], "can_check": can_check,
                 "expired": False, "seat": seat}
        shot.restore(state, now)
        left = shot.seconds_left(now)
        shown = None if left is None else math.ceil(left - 1e-9)
        if shot.mode is ClockMode.CALLED and shown is not None:
            countdown = int(state["countdown"])
            self.panel.handle(ClockCalledEvent(seat, max(0, shown - countdown), countdown,
                                               "CLOCK-3"))
        else:
            self.panel.handle(ShotClockStarted(seat, shown, shot.mode))

    def _pause(self, reason: PauseReason, on: bool) -> None:
        if self.shot is None:
            return
        now = self.p.clock()
        self.deliver_all(self.shot.pause(now, reason) if on else self.shot.resume(now, reason))

    def _expired(self, event: ShotClockExpired) -> None:
        """The time ran out: check or fold (CLOCK-9), a dead hand after a call (CLOCK-3)."""
        t, hand = self.p, self.p.view.hand
        if hand is None or self._on is None or hand.actor is None \
                or t.view.seat_of(hand.actor) != event.seat:
            return
        self._ruled = True
        ruling = event.ruling
        if ruling is Ruling.CHECK and not hand.can_check():
            ruling = Ruling.FOLD
        t.rule_on_time(event.seat, ruling.value, event.rule)

    # ---------------------------------------------------------------- commands
    def call_clock(self, seat: int | None, caller: Caller) -> bool:
        """The clock is called on the player to act (CLOCK-1, CLOCK-2 under clock.caller)."""
        t, hand, shot = self.p, self.p.view.hand, self.shot
        if shot is None:
            return t.reject("this table runs no shot clock", "CLOCK-1", "call_clock")
        if hand is None or hand.actor is None or not shot.active:
            return t.reject("nobody is to act: the clock is called on the player to act",
                            "CLOCK-1", "call_clock")
        if seat is not None and seat != shot.seat:
            return t.reject(f"seat {seat} is not to act: seat {shot.seat} is", "CLOCK-1",
                            "call_clock")
        level = (t.view.level or self.current).seconds
        try:
            verify_clock_call(t.profile.text("clock.caller"), caller)
            timing = profile_call_timing(t.profile, None if level is None else level / 60)
            events = shot.call_clock(t.clock(), timing)
        except RulesError as exc:
            return t.reject(exc.reason, exc.rule, "call_clock")
        self._caller = caller.value
        self.deliver_all(events)
        self.kick()
        return True

    def use_extension(self, seat: int) -> bool:
        """The player on the clock spends an extension chip (its seconds are added)."""
        t, shot = self.p, self.shot
        if shot is None or self.extensions is None:
            return t.reject("this table has no time-bank extension chips", None, "extension")
        if seat != shot.seat or not shot.active:
            return t.reject(f"seat {seat} is not on the clock", None, "extension")
        try:
            events = shot.use_extension(t.clock())
        except ClockError as exc:
            return t.reject(exc.reason, exc.rule, "extension")
        self.deliver_all(events)
        self.kick()
        return True

    def set_paused(self, paused: bool) -> bool:
        """The floor stops or restarts the table's clocks (shot clock and level clock)."""
        if paused == self.paused:
            return False
        self.paused = paused
        now = self.p.clock()
        events = [] if self.level is None else (
            self.level.pause(now) if paused else self.level.resume(now))
        clock = self.snapshot()
        self.p.emit(Paused(clock=clock) if paused else Resumed(clock=clock))
        self._pause(PauseReason.FLOOR, paused or self._holding)
        self.deliver_all(events)
        self.kick()
        return True

    def set_counting(self, counting: bool) -> None:
        """The dealer counts an all-in (the player's clock stops meanwhile)."""
        if counting != self.counting:
            self.counting = counting
            self._pause(PauseReason.ALL_IN_COUNT, counting)
            self.kick()

    # ---------------------------------------------------------------- levels and hands
    def hand_started(self) -> int | None:
        """The level number in force for the hand starting now (LEVEL-1); raises on a
        break. None when the levels are not on a clock."""
        if self.level is None:
            return None
        return self.level.hand_started(self.p.clock()).number

    def hand_over(self) -> None:
        t = self.p
        if self.shot is not None and self.shot.seat is not None:
            self.deliver_all(self.shot.clear(t.clock()))
        self._on = None
        self._ruled = False
        self._saved.clear()
        self.set_counting(False)  # a count belongs to the hand it was in
        if self.level is not None and self.level.hand_in_progress:
            self.deliver_all(self.level.hand_ended(t.clock()))
        self.kick()

    @property
    def current(self) -> Level:
        """The level in force now (a hand in play keeps its own: LEVEL-1)."""
        return self.levels[min(self.level_no, len(self.levels)) - 1]

    def next_level(self) -> bool:
        """The floor moves the level on; it applies from the next hand (LEVEL-1)."""
        if self.level is not None:
            try:
                self.deliver_all(self.level.next_level(self.p.clock()))
            except ClockError as exc:
                return self.p.reject(exc.reason, exc.rule, "next_level")
            self.kick()
            return True
        if self.level_no >= len(self.levels):
            return self.p.reject("this is the last level of the structure", "LEVEL-6",
                                 "next_level")
        self.level_no += 1
        lv = self.current
        self.p.emit(LevelSet(level=self.level_no, small_blind=lv.small_blind,
                             big_blind=lv.big_blind, ante=lv.ante))
        return True

    def seconds_left(self) -> float | None:
        if self.level is None or self.current.seconds is None:
            return None
        return self.level.seconds_left(self.p.clock())

    def forced_bets(self, number: int, players: int) -> dict[str, Any]:
        """The antes of level ``number`` for a hand of ``players`` (ANTE-1): per player
        and the big blind ante from the structure; plain levels have a big blind ante."""
        structure = self.structure
        if structure is None:
            levels = self.levels
            return {"big_blind_ante": levels[min(number, len(levels)) - 1].ante}
        lv = structure.level(number)
        return {"antes": (lv.ante,) * players if lv.ante else (),
                "big_blind_ante": lv.big_blind_ante}

    # ---------------------------------------------------------------- breaks, the host
    @property
    def on_break(self) -> bool:
        """A break is on (no hand may start)."""
        return self.level is not None and self.level.phase is LevelPhase.BREAK

    @property
    def unsynced(self) -> bool:
        """The host runs the level clock and has not been heard (shown as UNSYNCED)."""
        return self.host is not None and self.host.unsynced

    def _announce_break(self) -> None:
        """Journal a break that began or ended (BreakStarted with its colour-up, then
        BreakEnded), whether the clock ran into it or the host's sync moved the table."""
        level, t = self.level, self.p
        on = self.on_break
        if level is None or on == (self._break is not None):
            return
        if on:
            self._break = level.number
            br = level.state()["break"] or {}
            seconds = float(br.get("seconds", level.seconds_left(t.clock())))
            t.emit(BreakStarted(level=level.number, seconds=seconds,
                                colour_up=tuple(br.get("colour_up", ())),
                                clock=self.snapshot()))
        else:
            after, self._break = self._break, None
            assert after is not None
            t.emit(BreakEnded(level=after, clock=self.snapshot()))
        t.refresh_blinds()

    def snapshot(self) -> WireClock | None:
        """The clocks as they stand, for the journal (None: no level clock)."""
        if self.level is None or self.level.phase is LevelPhase.NOT_STARTED:
            return None
        host = self.host is not None and self.host.host
        chips = None if self.extensions is None else self.extensions.state()
        return wire_clock(snapshot(self.level, self.p.clock(), self.wall(), host=host,
                                   chips=chips))

    def adopt(self, number: int, seconds_left: float, on_break: bool) -> bool:
        """The host's clock (the authority): adopted, the difference journaled."""
        t, host = self.p, self.host
        if host is None:
            return t.reject("this table's levels are not on a clock; the host's clock "
                            "applies to a tournament table", "LEVEL-2", "sync_clock")
        try:
            events = host.adopt(number, seconds_left, on_break, t.clock())
        except ClockError as exc:
            return t.reject(exc.reason, exc.rule, "sync_clock")
        t.emit(ClockSynced(level=number, on_break=on_break,
                           offset_s=round(host.last_offset_s, 3), clock=self.snapshot()))
        self.deliver_all(events)
        self._announce_break()
        t.refresh_blinds()
        self.kick()
        return True

    def restore(self, clock: WireClock) -> None:
        """Continue the clocks from the journal's last snapshot (see the module
        docstring); what happened while the controller was down is journaled now."""
        snap = clocks_snapshot(clock)
        if self.extensions is not None and (snap.stage is not None or snap.chips):
            self.extensions.restore({"stage": snap.stage, "chips": dict(snap.chips)})
        if self.host is None or self.level is None:
            return
        t = self.p
        if snap.paused and not self.paused:
            self.paused = True
            self._pause(PauseReason.FLOOR, True)
        self._break = snap.level if snap.phase == LevelPhase.BREAK.value else None
        events = self.host.restored(snap, t.clock(), self.wall())
        if snap.level != self.level_no:
            self.level_no = min(snap.level, len(self.levels))
        self.deliver_all(events)
        self._announce_break()
        left = self.level.seconds_left(t.clock())
        t.refresh_blinds(None if self.current.seconds is None else math.ceil(left - 1e-9))
        self.kick()
