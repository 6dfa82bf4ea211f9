"""The host's authority over a tournament's level clock, and the clocks' journal snapshot.

- :class:`HostClock` wraps a table's :class:`~controller.clocks.level_clock.LevelClock`:
  :meth:`HostClock.adopt` takes the host's ``(level, seconds_left, on_break)`` (the wire's
  ``sync_clock`` command) and reports how far the table was off; when no sync has come for
  ``timeout_s`` (default 90 s) the table keeps counting alone and is *unsynced* until the
  next sync reconciles it. A clock the host never synced (a cash table, a table run on
  its own) is never unsynced. It is a pollable clock like the others (``poll``,
  ``next_deadline``), so the runner wakes it when the timeout falls due.
- :class:`ClockSnapshot` is what the table journals at every level change, break, pause and
  sync (durations and a wall-clock instant, never monotonic times), and what a restarted
  controller continues from (:func:`level_state`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from .errors import ClockError
from .events import LevelEvent, LevelReconciled
from .level_clock import LevelClock, Phase

DEFAULT_TIMEOUT_S = 90.0


@dataclass(frozen=True, slots=True)
class ClockSnapshot:
    """The table's clocks as of wall-clock time ``at`` (epoch seconds).

    ``seconds_left`` is the time left in the level or break (None while a synchronised
    break waits for the hand in play); ``held_s`` the level time a synchronised break
    holds (LEVEL-3); ``host`` whether the host runs this clock (it synced it once);
    ``stage`` and ``chips`` the players' time-bank extension chips.
    """

    at: float
    level: int
    phase: str  # "level", "break", "break_due"
    seconds_left: float | None
    held_s: float = 0.0
    synchronised: bool = False
    paused: bool = False
    host: bool = False
    stage: str | None = None
    chips: tuple[tuple[str, int], ...] = ()

    @property
    def on_break(self) -> bool:
        return self.phase in (Phase.BREAK.value, Phase.BREAK_DUE.value)


def snapshot(clock: LevelClock, now: float, at: float, *, host: bool = False,
             chips: dict[str, Any] | None = None) -> ClockSnapshot:
    """``clock`` as of monotonic ``now`` (wall-clock ``at``); ``chips`` an
    ``ExtensionChips.state()``."""
    state = clock.state(now)
    br = state["break"]
    remaining = state["remaining"]
    return ClockSnapshot(
        at=at, level=clock.number, phase=state["phase"],
        seconds_left=None if remaining is None else float(remaining),
        held_s=float(state["frozen"]), synchronised=bool(br and br["synchronised"]),
        paused=clock.paused, host=host,
        stage=None if chips is None else chips["stage"],
        chips=() if chips is None else tuple(sorted(chips["chips"].items())))


def level_state(clock: LevelClock, snap: ClockSnapshot, *, synced: bool) -> dict[str, Any]:
    """The :meth:`LevelClock.restore` state for ``snap`` on ``clock``'s structure."""
    s = clock.structure
    brk = None
    if snap.on_break:
        br = s.break_after(snap.level)
        if snap.synchronised or br is None:
            seconds = s.sync_breaks.seconds if s.sync_breaks is not None else (
                snap.seconds_left or 0.0)
            brk = {"after_level": snap.level, "seconds": seconds, "colour_up": [],
                   "add_on": False, "synchronised": True}
        else:
            brk = {"after_level": br.after_level, "seconds": br.seconds,
                   "colour_up": list(br.colour_up), "add_on": br.add_on,
                   "synchronised": False}
    return {"phase": snap.phase, "level": snap.level, "remaining": snap.seconds_left,
            "frozen": snap.held_s, "paused": snap.paused, "synced": synced,
            "hand_in_progress": False, "break": brk}


class HostClock:
    """The host's authority over one table's level clock (see the module docstring)."""

    def __init__(self, level: LevelClock, *, timeout_s: float = DEFAULT_TIMEOUT_S) -> None:
        if not timeout_s > 0:
            raise ClockError(f"the host sync timeout must be a positive time, not {timeout_s}")
        self.level = level
        self.timeout_s = timeout_s
        self.host = False  # the host has synced this clock (it is the authority)
        self.last_offset_s = 0.0  # how far the table was off at the last sync (+: ahead)
        self._last = -math.inf

    @property
    def unsynced(self) -> bool:
        """The host runs this clock and has not been heard for ``timeout_s`` (or the
        controller restarted since)."""
        return self.host and not self.level.synced

    def adopt(self, number: int, seconds_left: float, on_break: bool, now: float
              ) -> list[LevelEvent]:
        """The host's clock replaces the table's: level ``number`` (during a break, the
        level before it) with ``seconds_left`` in the level or break."""
        s = self.level.structure
        if not 1 <= number <= len(s.levels):
            raise ClockError(f"the host's clock is at level {number}, but this table's "
                             f"structure {s.name!r} has levels 1..{len(s.levels)}; load the "
                             "tournament's structure on the table", "LEVEL-2")
        if seconds_left < 0:
            raise ClockError(f"the host sent {seconds_left} s left; time left is >= 0")
        own = self.level.state(now)
        same = own["level"] == number
        phase = Phase.BREAK.value if on_break else Phase.LEVEL.value
        held = 0.0
        synchronised = False
        if on_break:  # which break: the one the table is in, else the structure's
            ours = own["break"]
            synchronised = bool(ours["synchronised"]) if same and ours else \
                s.break_after(number) is None
            if synchronised:
                held = float(own["frozen"]) if same and own["frozen"] else \
                    s.level(number).seconds
        snap = ClockSnapshot(at=0.0, level=number, phase=phase, seconds_left=seconds_left,
                             held_s=held, synchronised=synchronised, paused=own["paused"])
        state = level_state(self.level, snap, synced=True)
        fresh = self.level.phase is Phase.NOT_STARTED
        events: list[LevelEvent] = self.level.start(now) if fresh else []
        events += self.level.host_update(state, now)
        self.last_offset_s = 0.0 if fresh else next(
            (e.offset_s for e in events if isinstance(e, LevelReconciled)), 0.0)
        self.host = True
        self._last = now
        return events

    def restored(self, snap: ClockSnapshot, now: float, wall_now: float) -> list[LevelEvent]:
        """Continue from a journaled snapshot after a restart. Wall time that passed while
        the controller was down counts (the floor's clock did not stop) unless the clock
        was paused; a host-run clock is unsynced until the host syncs again."""
        self.host = snap.host
        elapsed = 0.0 if snap.paused else max(0.0, wall_now - snap.at)
        self.level.restore(level_state(self.level, snap, synced=not snap.host), now,
                           elapsed_since=elapsed)
        self._last = now
        events = self.level.poll(now)
        if self.level.phase is Phase.BREAK_DUE:  # the hand it waited for was voided
            events += self.level.hand_ended(now)
        return events

    # -- a pollable clock
    def next_deadline(self) -> float | None:
        if self.host and self.level.synced:
            return self._last + self.timeout_s
        return None

    def poll(self, now: float) -> list[LevelEvent]:
        """Past the timeout without a sync: the table counts on alone, unsynced."""
        if self.host and self.level.synced and now >= self._last + self.timeout_s:
            return self.level.host_lost(now)
        return []
