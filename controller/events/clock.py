"""The clocks: the level clock's changes (pause, level, break, the host's sync), a clock
called on a player, and the shot clock's reports. Each level, pause, sync or break change
carries a :class:`ClockSnapshot`, what a restarted controller continues from (issue 5)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from .base import Change, Chips, Count, Frozen, Id, LevelNo, RuleId, SeatNo, Word

Seconds = Annotated[float, Field(ge=0)]


class ClockSnapshot(Frozen):
    """The table's clocks as of wall-clock time ``at`` (epoch seconds), journaled with
    every level change, break, pause and sync so that a restarted controller continues
    them (issue 5). ``seconds_left``: of the level or break (None while a synchronised
    break waits for the hand in play); ``held_s``: the level time a synchronised break
    holds (LEVEL-3); ``host``: the host runs this clock; ``stage``/``chips``: the players'
    time-bank extension chips."""

    at: float
    level: LevelNo
    phase: Literal["level", "break", "break_due"]
    seconds_left: Annotated[float, Field(ge=0)] | None = None
    held_s: Annotated[float, Field(ge=0)] = 0.0
    synchronised: bool = False
    paused: bool = False
    host: bool = False
    stage: Annotated[str, Field(max_length=40)] | None = None
    chips: tuple[tuple[Id, Count], ...] = ()


class Paused(Change):
    """The floor stopped the table's clocks; no hand starts until it resumes."""

    kind: Literal["paused"] = "paused"
    clock: ClockSnapshot | None = None


class Resumed(Change):
    """The table's clocks run again."""

    kind: Literal["resumed"] = "resumed"
    clock: ClockSnapshot | None = None


class LevelSet(Change):
    """The blind level moved on to ``level`` (from the next hand, LEVEL-1), with its
    blinds and ante when the table sends them."""

    kind: Literal["level_set"] = "level_set"
    level: LevelNo
    clock: ClockSnapshot | None = None
    small_blind: Chips | None = None
    big_blind: Chips | None = None
    ante: Chips | None = None


class ClockCalled(Change):
    """The clock was called on the player at ``seat`` (CLOCK-1/2): ``seconds`` to decide,
    then a ``countdown_s`` countdown; ``caller`` is ``dealer`` or ``floor``; ``rule`` the
    rule that set the time (when the table sends them)."""

    kind: Literal["clock_called"] = "clock_called"
    seat: SeatNo
    seconds: Seconds | None = None
    countdown_s: Count | None = None
    caller: Word | None = None
    rule: RuleId | None = None


class ClockSynced(Change):
    """The host's level clock was adopted: ``level`` (on a break when ``on_break``);
    ``offset_s`` is how far the table's clock was off (+: ahead)."""

    kind: Literal["clock_synced"] = "clock_synced"
    level: LevelNo
    on_break: bool = False
    offset_s: float | None = None
    clock: ClockSnapshot | None = None


class BreakStarted(Change):
    """A break after ``level`` began, ``seconds`` long; no hand starts until it ends.
    ``colour_up``: the chip denominations leaving play at this break (CHIPRACE-*)."""

    kind: Literal["break_started"] = "break_started"
    level: LevelNo
    colour_up: tuple[Annotated[int, Field(ge=1)], ...] = ()
    clock: ClockSnapshot | None = None
    seconds: Seconds | None = None  # how long it lasts


class BreakEnded(Change):
    """The break after ``level`` is over; hands may start again."""

    kind: Literal["break_ended"] = "break_ended"
    level: LevelNo
    clock: ClockSnapshot | None = None


class ShotClockReport(Frozen):
    """The shot clock at ``seat``: a time-bank ``extension`` spent (``seconds`` more,
    ``chips_left``), or the time ran out and it ``ruled`` (check, fold, dead_hand: CLOCK-3/9;
    the action itself follows as an ``action``). ``hand_no`` 0: outside a hand."""

    kind: Literal["shot_clock"] = "shot_clock"
    hand_no: Count
    seat: SeatNo
    what: Literal["extension", "ruled"]
    seconds: Annotated[float, Field(ge=0)] | None = None
    chips_left: Count | None = None
    ruling: Annotated[str, Field(max_length=16)] | None = None
    rule: RuleId | None = None
