"""What the clocks report: typed, frozen events, returned by ``poll(now)`` and commands.

The clocks never touch a device; ``controller.table.clock_panel`` maps these events to the
shot-clock display, the buzzer and the seat lights, and the table maps rulings to actions.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Ruling(StrEnum):
    """What happens to a hand whose clock ran out."""

    CHECK = "check"  # a check was possible (CLOCK-9)
    FOLD = "fold"  # facing a bet (CLOCK-9)
    DEAD_HAND = "dead_hand"  # after a clock call (CLOCK-3)


class ClockMode(StrEnum):
    """Why a player is on the clock."""

    ACTION = "action"  # the per-action shot clock (house rule)
    CALLED = "called"  # a clock call (CLOCK-1)


class SignalKind(StrEnum):
    """The sound of one countdown second."""

    BEEP = "beep"  # every second of the final countdown
    WARNING = "warning"  # distinct signal, by default at 3 s
    FINAL = "final"  # distinct signal, by default at 0 s


class PauseReason(StrEnum):
    """Why a clock is stopped; it runs again when no reason is left."""

    ALL_IN_COUNT = "all_in_count"  # the dealer counts an all-in
    FLOOR = "floor"  # the floor paused the table or the tournament


class ActionTiming(StrEnum):
    """How the dealer's entry of a player's action stood against the clock."""

    IN_TIME = "in_time"
    TIE_TO_PLAYER = "tie_to_player"  # CLOCK-3: entered at the instant the clock ran out
    LATE = "late"  # after the ruling; the ruling stands


# -- the shot clock ------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class ShotClockStarted:
    """Action reached ``seat``; ``seconds_left`` is whole seconds shown (None: untimed)."""

    seat: int
    seconds_left: int | None
    mode: ClockMode


@dataclass(frozen=True, slots=True)
class ClockCalled:
    """The clock was called on ``seat``: ``seconds`` then a ``countdown_s`` countdown."""

    seat: int
    seconds: float
    countdown_s: int
    rule: str


@dataclass(frozen=True, slots=True)
class SecondsLeft:
    """A whole second passed before the final countdown (the display shows it quietly)."""

    seat: int
    seconds_left: int


@dataclass(frozen=True, slots=True)
class CountdownTick:
    """A second of the final countdown: the display, the seat light and a sound."""

    seat: int
    seconds_left: int
    signal: SignalKind


@dataclass(frozen=True, slots=True)
class TimeBankEngaged:
    """The player's decision time ran out and their online time bank took over (CLOCK-5)."""

    seat: int
    bank_s: float


@dataclass(frozen=True, slots=True)
class ExtensionUsed:
    """A time-bank extension chip was spent: ``seconds`` more; ``chips_left`` remain."""

    seat: int
    player: str
    seconds: float
    chips_left: int
    seconds_left: int


@dataclass(frozen=True, slots=True)
class ShotClockPaused:
    """The clock stopped with ``seconds_left`` to go."""

    seat: int
    seconds_left: int | None
    reason: PauseReason


@dataclass(frozen=True, slots=True)
class ShotClockResumed:
    """The clock runs again with the time that was left."""

    seat: int
    seconds_left: int | None


@dataclass(frozen=True, slots=True)
class ShotClockStopped:
    """The player acted (or the table cleared the clock); ``bank_used_s`` came off the bank."""

    seat: int
    timing: ActionTiming
    bank_used_s: float = 0.0


@dataclass(frozen=True, slots=True)
class ShotClockCleared:
    """The table took the clock off ``seat`` without a ruling (hand over, misdeal, undo)."""

    seat: int


@dataclass(frozen=True, slots=True)
class ShotClockExpired:
    """The time ran out: the table applies ``ruling`` to the player on ``seat``."""

    seat: int
    ruling: Ruling
    rule: str


ShotClockEvent = (ShotClockStarted | ClockCalled | SecondsLeft | CountdownTick
                  | TimeBankEngaged | ExtensionUsed | ShotClockPaused | ShotClockResumed
                  | ShotClockStopped | ShotClockCleared | ShotClockExpired)


# -- the level clock -----------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class LevelStarted:
    """Level ``number`` is on the clock; it applies from the next hand (LEVEL-1)."""

    number: int
    small_blind: int
    big_blind: int
    ante: int
    big_blind_ante: int
    seconds_left: int


@dataclass(frozen=True, slots=True)
class LevelTick:
    """A whole second of the level (or break) clock passed."""

    number: int
    seconds_left: int
    on_break: bool


@dataclass(frozen=True, slots=True)
class BreakDue:
    """It is time for a synchronised break; it starts once the hand in play ends (LEVEL-3)."""

    after_level: int


@dataclass(frozen=True, slots=True)
class BreakStarted:
    """A break began on the level clock; it lasts ``seconds``. The clock's own report
    (``poll``), not a table event: the table journals the break as the vocabulary's
    ``break_started`` (:class:`controller.events.BreakStarted`, with its colour-up and the
    clocks' snapshot)."""

    after_level: int
    seconds: float
    synchronised: bool


@dataclass(frozen=True, slots=True)
class ColourUpDue:
    """A colour-up is scheduled at this break: chips of these denominations leave play.

    The chip race (CHIPRACE-*) subscribes to this event.
    """

    after_level: int
    denominations: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class BreakEnded:
    """The break is over; play resumes at level ``next_level``."""

    after_level: int
    next_level: int


@dataclass(frozen=True, slots=True)
class LevelClockPaused:
    """The floor stopped the tournament clock (e.g. TOURN-27)."""

    seconds_left: int


@dataclass(frozen=True, slots=True)
class LevelClockResumed:
    """The tournament clock runs again."""

    seconds_left: int


@dataclass(frozen=True, slots=True)
class SyncChanged:
    """The table lost (False) or regained (True) the host's authority over the level clock."""

    synced: bool


@dataclass(frozen=True, slots=True)
class LevelReconciled:
    """The host's clock replaced the table's; ``offset_s`` > 0: the table had run ahead."""

    offset_s: float


LevelEvent = (LevelStarted | LevelTick | BreakDue | BreakStarted | ColourUpDue | BreakEnded
              | LevelClockPaused | LevelClockResumed | SyncChanged | LevelReconciled)
ClockEvent = ShotClockEvent | LevelEvent
