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
- The level clock (``controller.clocks.LevelClock``) runs when the table's levels are
  timed; a new level applies from the next hand, which starts at the deal key (LEVEL-1).
- :class:`~controller.table.clock_panel.ClockPanel` shows all of it: the shot-clock
  display, the buzzer, the seat's light in the countdown, and the level's time on the
  blinds display (the table owns the display's level, blinds, ante and button fields).

Time passes by itself only through ``poll(now)``: the table's ``tick()`` in virtual time,
or :class:`~controller.clocks.runner.ClockRunner` on the asyncio loop (``Table.run``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from controller.clocks.errors import ClockError
from controller.clocks.events import ClockCalled as ClockCalledEvent
from controller.clocks.events import (
    ClockEvent,
    ExtensionUsed,
    LevelStarted,
    LevelTick,
    PauseReason,
    Ruling,
    ShotClockExpired,
)
from controller.clocks.level_clock import LevelClock
from controller.clocks.shot_clock import ShotClock, ShotClockConfig, Street
from controller.clocks.structure import Level as ClockLevel
from controller.clocks.structure import Structure
from controller.clocks.timebank import (
    Caller,
    ExtensionChips,
    profile_call_timing,
    verify_clock_call,
)
from controller.devices.interfaces import ShotClockDisplay, ShotClockFrame
from controller.rules.actions import Check, Fold
from controller.rules.errors import RulesError
from controller.rules.hand import Phase

from . import betting
from .clock_panel import ClockPanel, PanelStyle
from .events import ClockCall, ClockRuled, ExtensionTaken, LevelChanged, TablePaused
from .lights import Level

if TYPE_CHECKING:
    from .table import Table

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


class TableClocks:
    """The table's clocks and their panel (see the module docstring)."""

    def __init__(self, table: Table, *, shot_clock: ShotClockConfig | None,
                 extensions: ExtensionChips | None, style: PanelStyle | None) -> None:
        self.table = table
        hw = table.hardware
        self.shot = ShotClock(shot_clock, chips=extensions) if shot_clock is not None else None
        self.extensions = extensions
        structure = structure_of(table.levels)
        self.level: LevelClock | None = LevelClock(structure) if structure else None
        self.display = LatchedShotClock(hw.shot_clock)
        self.panel = ClockPanel(shot_clock=self.display, buzzer=hw.buzzer, light=hw.light,
                                blinds=hw.blinds, release_light=table.release_light,
                                style=style, time_only=True)
        self.paused = False  # the floor paused the table
        self.counting = False  # the dealer counts an all-in
        self._holding = False  # a prompt for the dealer or floor stops the clock
        self._on: tuple[int, int, int] | None = None  # (hand, log length, position) timed
        self._ruled = False  # the clock ruled on the player now on it
        self._caller = Caller.DEALER.value  # who called the clock last (for the journal)
        self.kick: Callable[[], None] = lambda: None  # re-arms the asyncio runner

    # ---------------------------------------------------------------- time
    def start(self) -> None:
        """The level clock starts with the table (once the blinds display has a frame)."""
        if self.level is not None:
            self.deliver_all(self.level.start(self.table.clock()))

    def clocks(self) -> list[ShotClock | LevelClock]:
        return [c for c in (self.shot, self.level) if c is not None]

    def poll(self) -> None:
        """Report what happened up to now (expiries are ruled on before any input)."""
        shot, level = self.shot, self.level
        if shot is None and level is None:
            return
        now = self.table.clock()
        if shot is not None and shot.deadline is not None:  # running: it may have news
            self.deliver_all(shot.poll(now))
        if level is not None:
            self.deliver_all(level.poll(now))

    def deliver_all(self, events: Sequence[ClockEvent]) -> None:
        for event in events:
            self.deliver(event)

    def deliver(self, event: ClockEvent) -> None:
        """One clock event: what the host must know goes to the journal first, then the
        panel shows it; an expiry is ruled on."""
        t = self.table
        if isinstance(event, ShotClockExpired):
            self.panel.handle(event)
            self._expired(event)
            return
        if isinstance(event, LevelStarted | LevelTick):
            self._level(event)
            return
        if isinstance(event, ClockCalledEvent):
            t.emit(ClockCall(t.hand_no, event.seat, event.seconds, event.countdown_s,
                             self._caller, event.rule))
        elif isinstance(event, ExtensionUsed):
            t.emit(ExtensionTaken(t.hand_no, event.seat, event.player, event.seconds,
                                  event.chips_left))
        self.panel.handle(event)

    def _level(self, event: LevelStarted | LevelTick) -> None:
        t = self.table
        untimed = t.level.seconds is None
        if isinstance(event, LevelStarted) and event.number != t.level_no:
            t.level_no = event.number
            lv = t.level
            untimed = lv.seconds is None
            t.emit(LevelChanged(t.level_no, lv.small_blind, lv.big_blind, lv.ante))
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
        t, hand = self.table, self.table.hand
        from .base import Stage

        want: tuple[int, int, int] | None = None
        if hand is not None and t.stage is Stage.PLAYING and hand.phase is Phase.BETTING \
                and hand.actor is not None:
            want = (t.hand_no, len(hand.log), hand.actor)
        holding = any(p.event.kind in HOLDING for p in t.prompts)
        if want != self._on:
            now = t.clock()
            on, self._on = self._on, want
            if shot.seat is not None:
                acted = (on is not None and hand is not None and t.hand_no == on[0]
                         and len(hand.log) > on[1] and not self._ruled
                         and getattr(hand.log[on[1]], "player", None) == on[2])
                self.deliver_all(shot.acted(now) if acted else shot.clear(now))
            self._ruled = False
            if want is not None and hand is not None:
                seat = t.seat_of(want[2])
                self.deliver_all(shot.start(
                    seat, now, street=STREETS[min(hand.street, 3)],
                    can_check=hand.can_check(), player=t.roster[seat].player))
        if holding != self._holding:
            self._holding = holding
            self._pause(PauseReason.FLOOR, holding or self.paused)
        self.display.flush()
        self.kick()

    def _pause(self, reason: PauseReason, on: bool) -> None:
        if self.shot is None:
            return
        now = self.table.clock()
        self.deliver_all(self.shot.pause(now, reason) if on else self.shot.resume(now, reason))

    def _expired(self, event: ShotClockExpired) -> None:
        """The time ran out: check or fold (CLOCK-9), a dead hand after a call (CLOCK-3)."""
        t, hand = self.table, self.table.hand
        if hand is None or self._on is None or hand.actor is None \
                or t.seat_of(hand.actor) != event.seat:
            return
        position = hand.actor
        self._ruled = True
        ruling = event.ruling
        if ruling is Ruling.CHECK and not hand.can_check():
            ruling = Ruling.FOLD
        t.emit(ClockRuled(t.hand_no, event.seat, ruling.value, event.rule))
        t.prompts = [p for p in t.prompts if p.event.kind != "choice"]
        if ruling is Ruling.DEAD_HAND:
            betting.kill(t, position, event.rule, "clock")
            return
        try:
            hand.apply(Check(position) if ruling is Ruling.CHECK else Fold(position))
        except RulesError as exc:
            t.reject(exc.reason, exc.rule, "clock")
            return
        betting.accepted(t, position, "clock")

    # ---------------------------------------------------------------- commands
    def call_clock(self, seat: int | None, caller: Caller) -> bool:
        """The clock is called on the player to act (CLOCK-1, CLOCK-2 under clock.caller)."""
        t, hand, shot = self.table, self.table.hand, self.shot
        if shot is None:
            return t.reject("this table runs no shot clock", "CLOCK-1", "call_clock")
        if hand is None or hand.actor is None or not shot.active:
            return t.reject("nobody is to act: the clock is called on the player to act",
                            "CLOCK-1", "call_clock")
        if seat is not None and seat != shot.seat:
            return t.reject(f"seat {seat} is not to act: seat {shot.seat} is", "CLOCK-1",
                            "call_clock")
        level = t.hand_level.seconds
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
        t, shot = self.table, self.shot
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
        self.table.emit(TablePaused(paused))
        self._pause(PauseReason.FLOOR, paused or self._holding)
        if self.level is not None:
            now = self.table.clock()
            self.deliver_all(self.level.pause(now) if paused else self.level.resume(now))
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
        return self.level.hand_started(self.table.clock()).number

    def hand_over(self) -> None:
        t = self.table
        if self.shot is not None and self.shot.seat is not None:
            self.deliver_all(self.shot.clear(t.clock()))
        self._on = None
        self._ruled = False
        self.set_counting(False)  # a count belongs to the hand it was in
        if self.level is not None and self.level.hand_in_progress:
            self.deliver_all(self.level.hand_ended(t.clock()))
        self.kick()

    def next_level(self) -> None:
        """The floor moves the level on (raises with the rule at the last level)."""
        assert self.level is not None
        self.deliver_all(self.level.next_level(self.table.clock()))
        self.kick()

    def seconds_left(self) -> float | None:
        if self.level is None or self.table.level.seconds is None:
            return None
        return self.level.seconds_left(self.table.clock())
