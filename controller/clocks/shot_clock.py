"""The shot clock: per-action time, clock calls, time banks, the final countdown, rulings.

A pure state machine over an injected monotonic time: every command and ``poll(now)`` take
``now`` (seconds) and return typed events; ``next_deadline()`` says when ``poll`` next has
something to report. Nothing here sleeps, reads a clock or touches a device.

One ``ShotClock`` serves a table: one player is on the clock at a time.

- Action reaches a player (after the last card of a street, after the dealer confirmed the
  previous bet or raise, at once after a call): the table calls ``start``.
- The last ``countdown_s`` seconds tick with a sound each; distinct signals at 3 and 0 s.
- ``pause`` while the dealer counts an all-in or the floor stops the table; ``resume``
  continues with the time that was left.
- Expiry: check if a check is possible, otherwise fold (CLOCK-9, used for the live shot
  clock as a house rule); after a clock call, a dead hand (CLOCK-3).
- CLOCK-3: an action entered at the instant the time runs out belongs to the player
  (``tie_window_s`` widens that instant for a console's key latency).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final

from .errors import ClockError, StructureError
from .events import (
    ActionTiming,
    ClockCalled,
    ClockMode,
    CountdownTick,
    ExtensionUsed,
    PauseReason,
    Ruling,
    SecondsLeft,
    ShotClockCleared,
    ShotClockEvent,
    ShotClockExpired,
    ShotClockPaused,
    ShotClockResumed,
    ShotClockStarted,
    ShotClockStopped,
    SignalKind,
    TimeBankEngaged,
)
from .timebank import CallTiming, ExtensionChips, TimebankPolicy


class Street(StrEnum):
    """The betting round a player acts in (the shot clock may differ per street)."""

    PREFLOP = "preflop"
    FLOP = "flop"
    TURN = "turn"
    RIVER = "river"


DEFAULT_SIGNALS: Final[Mapping[int, SignalKind]] = {3: SignalKind.WARNING, 0: SignalKind.FINAL}


@dataclass(frozen=True)
class ShotClockConfig:
    """How long a player has per action, and how the end of that time sounds.

    ``action_s=None`` means no per-action clock: the player is untimed until the clock is
    called (the live casino default). ``per_street`` overrides ``action_s`` by street.
    """

    action_s: float | None = 30.0
    per_street: Mapping[Street, float] = field(default_factory=dict)
    countdown_s: int = 10
    signals: Mapping[int, SignalKind] = field(default_factory=lambda: dict(DEFAULT_SIGNALS))
    tie_window_s: float = 0.0
    extensions_on_called_clock: bool = False

    def __post_init__(self) -> None:
        for what, value in [("action_s", self.action_s), *self.per_street.items()]:
            if value is not None and not value > 0:
                raise StructureError(f"shot clock {what} must be a positive time, not {value}")
        if not (isinstance(self.countdown_s, int) and self.countdown_s >= 0):
            raise StructureError(f"countdown_s must be whole seconds >= 0, not {self.countdown_s}")
        for second in self.signals:
            if not 0 <= second <= self.countdown_s:
                raise StructureError(f"a signal at {second} s lies outside the "
                                     f"{self.countdown_s} s countdown")
        if self.tie_window_s < 0:
            raise StructureError("tie_window_s cannot be negative")

    def seconds_for(self, street: Street) -> float | None:
        return self.per_street.get(street, self.action_s)


def _shown(remaining: float) -> int:
    """Whole seconds a display shows for ``remaining`` (rounded up, as clocks count down)."""
    return max(0, math.ceil(remaining - 1e-9))


class ShotClock:
    """The per-action clock of one table (see the module docstring)."""

    def __init__(self, config: ShotClockConfig | None = None, *,
                 chips: ExtensionChips | None = None,
                 bank: TimebankPolicy | None = None) -> None:
        self.config = config or ShotClockConfig()
        self.chips = chips
        self.bank = bank
        self._pauses: set[PauseReason] = set()
        self._now = 0.0
        self._reset()

    def _reset(self) -> None:
        self._seat: int | None = None
        self._player: str | None = None
        self._mode = ClockMode.ACTION
        self._can_check = False
        self._timed = False
        self._deadline = 0.0  # while running and timed
        self._remaining = 0.0  # while paused and timed
        self._countdown = self.config.countdown_s
        self._shown = 0
        self._expired = False
        self._expired_at = 0.0  # the deadline that ran out (for CLOCK-3 ties)
        self._bank_s = 0.0  # bank seconds still inside the remaining time
        self._bank_engaged = False
        self._bank_spent = 0.0

    # -- what it is doing
    @property
    def seat(self) -> int | None:
        """The seat on the clock (also after expiry, until the next start or clear)."""
        return self._seat

    @property
    def active(self) -> bool:
        """A player is on the clock and has not acted or run out of time."""
        return self._seat is not None and not self._expired

    @property
    def paused(self) -> bool:
        return bool(self._pauses)

    @property
    def mode(self) -> ClockMode:
        return self._mode

    @property
    def deadline(self) -> float | None:
        """When the time runs out (monotonic); ``None`` if paused, untimed or inactive."""
        if self.active and self._timed and not self._pauses:
            return self._deadline
        return None

    def seconds_left(self, now: float) -> float | None:
        if not self.active or not self._timed:
            return None
        return self._remaining if self._pauses else max(0.0, self._deadline - now)

    # -- commands from the table
    def start(self, seat: int, now: float, *, street: Street = Street.PREFLOP,
              can_check: bool = False, player: str | None = None) -> list[ShotClockEvent]:
        """Action reached ``seat``; ``can_check`` decides the expiry ruling (CLOCK-9)."""
        if self.active:
            raise ClockError(f"seat {self._seat} is still on the clock; stop it first")
        self._now = now
        self._reset()
        self._seat, self._player, self._can_check = seat, player, can_check
        seconds = self.config.seconds_for(street)
        if seconds is not None:
            self._bank_s = self.bank.balance(player) if self.bank and player else 0.0
            self._set_remaining(now, seconds + self._bank_s)
        return [ShotClockStarted(seat, self._shown if self._timed else None, ClockMode.ACTION)]

    def call_clock(self, now: float, timing: CallTiming) -> list[ShotClockEvent]:
        """The clock is called on the player to act (CLOCK-1): ``timing`` from now on."""
        seat = self._require_active()
        if self._mode is ClockMode.CALLED:
            raise ClockError(f"the clock is already called on seat {seat}", "CLOCK-1")
        self._now = now
        self._settle_bank(now)
        self._bank_s = 0.0
        self._mode = ClockMode.CALLED
        self._countdown = timing.countdown_s
        self._set_remaining(now, timing.total_s)
        return [ClockCalled(seat, timing.seconds, timing.countdown_s, timing.rule)]

    def use_extension(self, now: float) -> list[ShotClockEvent]:
        """The player spends a time-bank extension chip: its seconds are added."""
        seat = self._require_active()
        if self.chips is None or self._player is None:
            raise ClockError(f"seat {seat} has no extension chips at this table")
        if not self._timed:
            raise ClockError(f"seat {seat} is not on a timed clock; nothing to extend")
        if self._mode is ClockMode.CALLED and not self.config.extensions_on_called_clock:
            raise ClockError("extension chips cannot be used once the clock is called",
                             "CLOCK-3")
        left = self.chips.take(self._player)
        self._now = now
        remaining = self._left(now)
        if self._bank_s:  # bank seconds already used stay used; the rest stays the bank
            self._bank_spent += self._bank_s - min(self._bank_s, remaining)
            self._bank_s = min(self._bank_s, remaining)
            self._bank_engaged = False
        self._set_remaining(now, remaining + self.chips.seconds)
        return [ExtensionUsed(seat, self._player, self.chips.seconds, left, self._shown)]

    def pause(self, now: float, reason: PauseReason) -> list[ShotClockEvent]:
        """Stop the clock for ``reason`` (several reasons may hold at once)."""
        if reason in self._pauses:
            return []
        events = self.poll(now)  # what happened up to now happened (an expiry included)
        if not self._pauses and self.active and self._timed:
            self._remaining = max(0.0, self._deadline - now)
        self._pauses.add(reason)
        if self._seat is None or self._expired:
            return events
        shown = self._shown if self._timed else None
        return [*events, ShotClockPaused(self._seat, shown, reason)]

    def resume(self, now: float, reason: PauseReason) -> list[ShotClockEvent]:
        """Lift ``reason``; the clock runs again once no reason is left, with the time left."""
        if reason not in self._pauses:
            return []
        self._now = now
        self._pauses.discard(reason)
        if self._pauses or self._seat is None or self._expired:
            return []
        if self._timed:
            self._deadline = now + self._remaining
        return [ShotClockResumed(self._seat, self._shown if self._timed else None)]

    def acted(self, at: float) -> list[ShotClockEvent]:
        """The dealer entered the player's action at ``at`` (the key's timestamp).

        In time, or at the very instant the time ran out (CLOCK-3, the tie goes to the
        player, even if the expiry was already reported): ``IN_TIME``/``TIE_TO_PLAYER``.
        After that instant: ``LATE``, preceded by the expiry if it was not yet reported.
        """
        if self._seat is None:
            raise ClockError("no player is on the clock")
        seat = self._seat
        self._now = max(self._now, at)
        events: list[ShotClockEvent] = []
        if self._expired:
            late = at > self._expired_at + self.config.tie_window_s
            timing = ActionTiming.LATE if late else ActionTiming.TIE_TO_PLAYER
        elif not self._timed or self._pauses or at < self._deadline:
            timing = ActionTiming.IN_TIME
        elif at <= self._deadline + self.config.tie_window_s:
            timing = ActionTiming.TIE_TO_PLAYER
        else:
            events.append(self._expire())
            timing = ActionTiming.LATE
        spent = 0.0
        if not self._expired:  # an expiry has charged the bank already
            self._settle_bank(at)
            spent = self._charge_bank()
        self._reset()
        events.append(ShotClockStopped(seat, timing, spent))
        return events

    def clear(self, now: float) -> list[ShotClockEvent]:
        """Take the clock off the table without a ruling (hand over, misdeal, undo)."""
        self._now = now
        seat = self._seat
        self._reset()
        return [] if seat is None else [ShotClockCleared(seat)]

    # -- time passing
    def next_deadline(self) -> float | None:
        """When ``poll`` next has an event (monotonic seconds), or ``None``."""
        if not self.active or not self._timed or self._pauses:
            return None
        times = [self._expiry_time()]
        if self._shown > 0:
            times.append(self._deadline - (self._shown - 1))
        if self._bank_s and not self._bank_engaged:
            times.append(self._deadline - self._bank_s)
        return min(times)

    def poll(self, now: float) -> list[ShotClockEvent]:
        """Report what happened up to ``now``. Missed seconds are coalesced into one tick."""
        self._now = max(self._now, now)
        if not self.active or not self._timed or self._pauses:
            return []
        assert self._seat is not None
        events: list[ShotClockEvent] = []
        if self._bank_s and not self._bank_engaged and now >= self._deadline - self._bank_s:
            self._bank_engaged = True
            events.append(TimeBankEngaged(self._seat, self._bank_s))
        if self._shown > 0 and now >= self._deadline - (self._shown - 1):
            k = self._shown - 1
            while k > 0 and now >= self._deadline - (k - 1):
                k -= 1
            self._shown = k
            events.append(self._tick(k))
        if now >= self._expiry_time():
            events.append(self._expire())
        return events

    # -- the journal (CRASH recovery): durations only, never monotonic instants
    def state(self, now: float | None = None) -> dict[str, Any]:
        """A JSON-able snapshot; remaining time as of ``now`` (default: the last time seen)."""
        at = self._now if now is None else now
        return {
            "seat": self._seat, "player": self._player, "mode": self._mode.value,
            "can_check": self._can_check, "timed": self._timed,
            "remaining": self._left(at) if self._timed else None,
            "countdown": self._countdown, "shown": self._shown,
            "pauses": sorted(p.value for p in self._pauses), "expired": self._expired,
            "bank_s": self._bank_s, "bank_engaged": self._bank_engaged,
            "bank_spent": self._bank_spent,
        }

    def restore(self, state: Mapping[str, Any], now: float) -> None:
        """Continue from ``state`` with the time that was left (downtime is not charged)."""
        self._reset()
        self._now = now
        self._pauses = {PauseReason(p) for p in state["pauses"]}
        self._seat, self._player = state["seat"], state["player"]
        self._mode = ClockMode(state["mode"])
        self._can_check, self._timed = bool(state["can_check"]), bool(state["timed"])
        self._countdown, self._shown = int(state["countdown"]), int(state["shown"])
        self._expired, self._expired_at = bool(state["expired"]), now
        self._bank_s, self._bank_engaged = float(state["bank_s"]), bool(state["bank_engaged"])
        self._bank_spent = float(state["bank_spent"])
        if self._timed:
            self._remaining = float(state["remaining"])
            self._deadline = now + self._remaining

    # -- inside
    def _require_active(self) -> int:
        if not self.active or self._seat is None:
            raise ClockError("no player is on the clock")
        return self._seat

    def _left(self, now: float) -> float:
        return self._remaining if self._pauses else max(0.0, self._deadline - now)

    def _set_remaining(self, now: float, remaining: float) -> None:
        self._timed = True
        self._remaining = remaining
        self._deadline = now + remaining
        self._shown = _shown(remaining)
        if self._bank_s and remaining <= self._bank_s:
            self._bank_engaged = True

    def _settle_bank(self, now: float) -> None:
        """Move the bank seconds used so far into ``_bank_spent``."""
        if self._bank_s and self._timed:
            used = self._bank_s - min(self._bank_s, self._left(now))
            self._bank_spent += used
            self._bank_s -= used

    def _charge_bank(self) -> float:
        """Take the bank seconds used on this action off the player's online bank."""
        spent, self._bank_spent = self._bank_spent, 0.0
        if self.bank is not None and self._player is not None and spent:
            self.bank.spend(self._player, spent)
        return spent

    def _expiry_time(self) -> float:
        # CLOCK-3: the instant the time runs out still belongs to the player, so expiry is
        # reported only strictly after it (plus the configured tie window).
        return math.nextafter(self._deadline + self.config.tie_window_s, math.inf)

    def _tick(self, k: int) -> ShotClockEvent:
        assert self._seat is not None
        if k > self._countdown:
            return SecondsLeft(self._seat, k)
        # a called clock's countdown may be shorter (25+5): the signals are kept where they fit
        return CountdownTick(self._seat, k, self.config.signals.get(k, SignalKind.BEEP))

    def _expire(self) -> ShotClockExpired:
        assert self._seat is not None
        self._expired, self._expired_at = True, self._deadline
        if self._bank_s:
            self._bank_spent += self._bank_s
            self._bank_s = 0.0
        self._charge_bank()
        if self._mode is ClockMode.CALLED:
            return ShotClockExpired(self._seat, Ruling.DEAD_HAND, "CLOCK-3")
        ruling = Ruling.CHECK if self._can_check else Ruling.FOLD
        return ShotClockExpired(self._seat, ruling, "CLOCK-9")
