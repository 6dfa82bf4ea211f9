"""The tournament's level clock: levels, breaks, synchronised breaks, host authority.

A pure state machine over an injected monotonic time, like the shot clock: commands and
``poll(now)`` queue typed events, ``poll`` returns them, ``next_deadline()`` says when to
poll next. Each segment's end is computed from the previous segment's end, never from the
time a poll happened, so the clock does not drift however late it is polled.

- LEVEL-1: a new level applies from the next hand; a hand starts at the dealer's shuffle
  key, and :meth:`LevelClock.hand_started` returns the level in force at that instant.
- LEVEL-6: after the last level, the last level stays in force.
- Breaks after a level (with an optional colour-up: :class:`ColourUpDue` and the
  ``on_colour_up`` hook) lie on the clock's timeline.
- LEVEL-3: a synchronised break at ``minute`` past each hour of local wall time, skipped
  while the tournament is in its first level. The level's time stops at that minute and the
  break starts when the hand in play ends (at once if none is).
- The host is the authority: :meth:`host_update` adopts the host's clock and reports how far
  the table was off; :meth:`host_lost` marks the table unsynced and it counts on alone.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from enum import StrEnum
from typing import Any

from .errors import ClockError
from .events import (
    BreakDue,
    BreakEnded,
    BreakStarted,
    ColourUpDue,
    LevelClockPaused,
    LevelClockResumed,
    LevelEvent,
    LevelReconciled,
    LevelStarted,
    LevelTick,
    SyncChanged,
)
from .structure import Break, Level, Structure


class Phase(StrEnum):
    """Where the level clock is."""

    NOT_STARTED = "not_started"
    LEVEL = "level"
    BREAK = "break"
    BREAK_DUE = "break_due"  # LEVEL-3: the synchronised break waits for the hand in play


class LevelClock:
    """One tournament's level clock as a table (or the host) runs it."""

    def __init__(self, structure: Structure, *, wall_offset: float | None = None,
                 on_colour_up: Callable[[ColourUpDue], None] | None = None) -> None:
        """``wall_offset``: local wall-clock seconds minus monotonic seconds, needed for
        synchronised breaks (``time.time() + utcoffset - time.monotonic()`` on the table)."""
        if structure.sync_breaks is not None and wall_offset is None:
            raise ClockError("synchronised breaks need the wall clock (wall_offset)", "LEVEL-3")
        self.structure = structure
        self.wall_offset = wall_offset
        self.on_colour_up = on_colour_up
        self.phase = Phase.NOT_STARTED
        self.number = 1  # the level on the clock (during a break: the one before it)
        self.synced = True
        self.hand_in_progress = False
        self._break: Break | None = None
        self._sync_break = False
        self._end = math.inf  # the current segment's end (monotonic), inf when none
        self._remaining = 0.0  # the current segment's time left while paused
        self._frozen = 0.0  # the level's time left while a synchronised break holds it
        self._paused = False
        self._shown = -1
        self._next_sync = math.inf
        self._now = 0.0
        self._events: list[LevelEvent] = []

    # -- what it shows
    @property
    def level(self) -> Level:
        """The level on the clock now (it applies from the next hand, LEVEL-1)."""
        return self.structure.level(self.number)

    @property
    def on_break(self) -> bool:
        return self.phase in (Phase.BREAK, Phase.BREAK_DUE)

    @property
    def paused(self) -> bool:
        return self._paused

    def seconds_left(self, now: float) -> float:
        """Time left in the current level or break (the frozen level time when break is due)."""
        if self.phase is Phase.BREAK_DUE:
            return self._frozen
        if self._paused:
            return self._remaining
        return 0.0 if self._end == math.inf else max(0.0, self._end - now)

    # -- commands
    def start(self, now: float) -> list[LevelEvent]:
        """Level 1 begins."""
        if self.phase is not Phase.NOT_STARTED:
            raise ClockError("the level clock is already running")
        self._now = now
        self._enter_level(1, now)
        self._next_sync = self._sync_after(now)
        return self.poll(now)

    def pause(self, now: float) -> list[LevelEvent]:
        """The floor stops the tournament clock."""
        self._advance(now)
        if not self._paused and self.phase in (Phase.LEVEL, Phase.BREAK):
            self._remaining = self.seconds_left(now)
            self._paused = True
            self._end = math.inf
            self._events.append(LevelClockPaused(math.ceil(self._remaining)))
        return self.poll(now)

    def resume(self, now: float) -> list[LevelEvent]:
        """The tournament clock runs again with the time that was left."""
        self._advance(now)
        if self._paused:
            self._paused = False
            final = self.phase is Phase.LEVEL and self.number >= len(self.structure.levels) \
                and self._remaining == 0
            self._end = math.inf if final else now + self._remaining
            self._next_sync = self._sync_after(now)
            self._events.append(LevelClockResumed(math.ceil(self._remaining)))
        return self.poll(now)

    def next_level(self, now: float) -> list[LevelEvent]:
        """The floor moves the tournament on to the next level now, with its full time (a
        break in progress ends). It applies from the next hand, like any level (LEVEL-1)."""
        self._advance(now)
        if self.phase is Phase.NOT_STARTED:
            raise ClockError("the tournament clock has not started", "LEVEL-2")
        if self.number >= len(self.structure.levels):
            raise ClockError("this is the last level of the structure", "LEVEL-6")
        if self.on_break:
            self._events.append(BreakEnded(self.number, self.number + 1))
        self._enter_level(self.number + 1, now)
        if self._paused:  # a paused clock stays paused, with the new level's full time
            self._remaining, self._end = self.level.seconds, math.inf
        self._next_sync = self._sync_after(now)
        return self.poll(now)

    def hand_started(self, now: float) -> Level:
        """The dealer pressed the shuffle key: the level in force now governs the hand
        (LEVEL-1). Raises during a break. Events it caused wait for the next ``poll``."""
        self._advance(now)
        if self.phase is Phase.NOT_STARTED:
            raise ClockError("the tournament clock has not started", "LEVEL-2")
        if self.on_break:
            raise ClockError("the tournament is on a break; no hand may start", "LEVEL-3")
        self.hand_in_progress = True
        return self.level

    def hand_ended(self, now: float) -> list[LevelEvent]:
        """The hand in play is over; a synchronised break that was due starts now."""
        self._advance(now)
        self.hand_in_progress = False
        if self.phase is Phase.BREAK_DUE:
            self._start_sync_break(now)
        return self.poll(now)

    def host_lost(self, now: float) -> list[LevelEvent]:
        """The host went away: keep counting alone, shown as unsynced."""
        self._advance(now)
        if self.synced:
            self.synced = False
            self._events.append(SyncChanged(False))
        return self.poll(now)

    def host_update(self, host_state: Mapping[str, Any], now: float) -> list[LevelEvent]:
        """Adopt the host's clock (a :meth:`state` from the host's own level clock)."""
        self._advance(now)
        before, number = self._position(now), self.number
        hand, synced = self.hand_in_progress, self.synced
        self.restore(host_state, now)
        self.hand_in_progress = hand  # the table knows its own hand (LEVEL-1)
        self.synced = synced
        offset = before - self._position(now)
        if abs(offset) > 1e-6:
            self._events.append(LevelReconciled(offset))
        if self.number != number and self.phase is Phase.LEVEL:
            self._events.append(self._level_started(now))
        if not self.synced:
            self.synced = True
            self._events.append(SyncChanged(True))
        return self.poll(now)

    # -- time passing
    def next_deadline(self) -> float | None:
        if self._events:
            return self._now
        if self.phase is Phase.NOT_STARTED or self._paused or self.phase is Phase.BREAK_DUE:
            return None
        times = [self._end]
        if self._end != math.inf and self._shown > 0:
            times.append(self._end - (self._shown - 1))
        if self.phase is Phase.LEVEL:
            times.append(self._next_sync)
        t = min(times)
        return None if t == math.inf else t

    def poll(self, now: float) -> list[LevelEvent]:
        self._advance(now)
        events, self._events = self._events, []
        return events

    # -- the journal
    def state(self, now: float | None = None) -> dict[str, Any]:
        """A JSON-able snapshot: the segment's time left as of ``now`` (default: last seen)."""
        at = self._now if now is None else now
        br = self._break
        return {
            "phase": self.phase.value, "level": self.number,
            "remaining": self.seconds_left(at) if self.phase is not Phase.BREAK_DUE else None,
            "frozen": self._frozen, "paused": self._paused, "synced": self.synced,
            "hand_in_progress": self.hand_in_progress,
            "break": None if br is None else {
                "after_level": br.after_level, "seconds": br.seconds,
                "colour_up": list(br.colour_up), "add_on": br.add_on,
                "synchronised": self._sync_break},
        }

    def restore(self, state: Mapping[str, Any], now: float, *, elapsed_since: float = 0.0
                ) -> None:
        """Continue from ``state``. ``elapsed_since``: seconds that passed since it was taken
        (a running clock catches up on the next poll; 0 when unknown)."""
        self._now = now
        self.phase = Phase(state["phase"])
        self.number = int(state["level"])
        self._paused = bool(state["paused"])
        self.synced = bool(state["synced"])
        self.hand_in_progress = bool(state["hand_in_progress"])
        self._frozen = float(state["frozen"])
        b = state["break"]
        self._break = None if b is None else Break(int(b["after_level"]), float(b["seconds"]),
                                                    tuple(b["colour_up"]), bool(b["add_on"]))
        self._sync_break = bool(b and b["synchronised"])
        remaining = state["remaining"]
        self._remaining = 0.0 if remaining is None else float(remaining)
        final = self.phase is Phase.LEVEL and self.number >= len(self.structure.levels) \
            and self._remaining == 0
        if self._paused or self.phase in (Phase.NOT_STARTED, Phase.BREAK_DUE) or final:
            self._end = math.inf
        else:
            self._end = now + self._remaining - (0.0 if self._paused else elapsed_since)
        self._shown = -1
        self._next_sync = self._sync_after(now - elapsed_since)

    # -- inside
    def _sync_after(self, t: float) -> float:
        """The first synchronised-break instant at or after ``t`` (monotonic)."""
        sync = self.structure.sync_breaks
        if sync is None or self.wall_offset is None:
            return math.inf
        wall = t + self.wall_offset
        return t + (sync.minute * 60 - wall) % 3600

    def _enter_level(self, number: int, at: float) -> None:
        self.phase, self.number, self._break, self._sync_break = Phase.LEVEL, number, None, False
        self._end = at + self.structure.level(number).seconds
        self._shown = -1
        self._events.append(self._level_started(at))

    def _level_started(self, now: float) -> LevelStarted:
        lv = self.level
        return LevelStarted(lv.number, lv.small_blind, lv.big_blind, lv.ante,
                            lv.big_blind_ante, math.ceil(self.seconds_left(now) - 1e-9))

    def _start_sync_break(self, at: float) -> None:
        sync = self.structure.sync_breaks
        assert sync is not None
        self.phase, self._sync_break = Phase.BREAK, True
        self._break = Break(self.number, sync.seconds)
        self._end = at + sync.seconds
        self._shown = -1
        self._events.append(BreakStarted(self.number, sync.seconds, True))

    def _advance(self, now: float) -> None:
        """Walk every boundary up to ``now``, each at its own instant (no drift)."""
        self._now = max(self._now, now)
        if self.phase is Phase.NOT_STARTED or self._paused:
            return
        while True:
            # a level that ends at the very minute ends first; the break then holds the new level
            if self.phase is Phase.LEVEL and self._next_sync < self._end \
                    and self._next_sync <= now:
                at = self._next_sync
                self._next_sync = at + 3600
                if self.number == 1:  # LEVEL-3: no break while in the first level
                    continue
                self._frozen = self._end - at if self._end != math.inf else 0.0
                self.phase = Phase.BREAK_DUE
                self._end = math.inf
                self._events.append(BreakDue(self.number))
                if not self.hand_in_progress:
                    self._start_sync_break(at)
                continue
            if self._end > now:
                break
            at = self._end
            if self.phase is Phase.LEVEL:
                br = self.structure.break_after(self.number)
                if self.number >= len(self.structure.levels):
                    self._end = math.inf  # LEVEL-6: the last level stays in force
                elif br is not None:
                    self.phase, self._break, self._sync_break = Phase.BREAK, br, False
                    self._end = at + br.seconds
                    self._shown = -1
                    self._events.append(BreakStarted(br.after_level, br.seconds, False))
                    if br.colour_up:
                        due = ColourUpDue(br.after_level, br.colour_up)
                        self._events.append(due)
                        if self.on_colour_up is not None:
                            self.on_colour_up(due)
                else:
                    self._enter_level(self.number + 1, at)
            elif self.phase is Phase.BREAK:
                if self._sync_break:  # the held level resumes with its time left
                    self._events.append(BreakEnded(self.number, self.number))
                    self.phase, self._break, self._sync_break = Phase.LEVEL, None, False
                    self._end = at + self._frozen if self._frozen else math.inf
                    self._shown = -1
                    self._next_sync = self._sync_after(at + 1e-9)
                else:
                    self._events.append(BreakEnded(self.number, self.number + 1))
                    self._enter_level(self.number + 1, at)
            else:
                break
        self._tick(now)

    def _tick(self, now: float) -> None:
        if self.phase not in (Phase.LEVEL, Phase.BREAK):
            return
        if self._end == math.inf:
            shown = 0
        else:
            shown = self._shown
            if shown < 0:
                shown = math.ceil(self._end - now - 1e-9)
            while shown > 0 and now >= self._end - (shown - 1):
                shown -= 1
        if shown != self._shown:
            self._shown = shown
            self._events.append(LevelTick(self.number, max(0, shown), self.on_break))

    def _position(self, now: float) -> float:
        """Seconds of tournament clock behind us (scheduled segments; for the offset)."""
        s = self.structure
        done = sum(lv.seconds for lv in s.levels[: self.number - 1])
        done += sum(b.seconds for b in s.breaks if b.after_level < self.number)
        left = self.seconds_left(now)
        if self.phase is Phase.BREAK and not self._sync_break and self._break is not None:
            return done + self.level.seconds + self._break.seconds - left
        if self.phase in (Phase.BREAK, Phase.BREAK_DUE):
            left = self._frozen
        return done + self.level.seconds - left
