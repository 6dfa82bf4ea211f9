"""Time for a decision beyond the shot clock: clock-call timings, extension chips, online banks.

- :func:`call_timing` reads ``clock.duration`` (CLOCK-1).
- :class:`ExtensionChips` is the live time bank: chips of e.g. 30 s a player spends on
  request, granted and reset by the tournament's stage, carried to a new table by the host.
- :class:`TableTimebank` (CLOCK-5/6) and :class:`LegacyTimebank` (CLOCK-7) are the online
  banks, chosen by ``timebank.model``; the shot clock spends them when decision time runs out.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final, Protocol

from controller.rules.config import RulesProfile

from .errors import ClockError, StructureError


# -- clock calls (CLOCK-1) -----------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class CallTiming:
    """A clock call's time: ``seconds`` to decide, then a ``countdown_s`` countdown."""

    seconds: float
    countdown_s: int
    rule: str = "CLOCK-1"

    @property
    def total_s(self) -> float:
        return self.seconds + self.countdown_s


SHORT_LEVEL_MAX_MINUTES: Final = 25  # CLOCK-1: 25+5 in events whose levels last <= 25 min


def call_timing(duration: str, level_minutes: float | None = None) -> CallTiming:
    """The time a clock call gives under ``clock.duration`` (CLOCK-1).

    ``60+10`` (002): one minute, then 10 s. ``50+10`` (004): 50 s + 10 s, which 004 itself
    shortens to 25 s + 5 s in events whose levels last 25 minutes or less, so ``50+10``
    becomes ``25+5`` when ``level_minutes`` is given and short. ``25+5`` is always 25 + 5.
    """
    if duration == "60+10":
        return CallTiming(60, 10)
    if duration == "50+10":
        if level_minutes is not None and level_minutes <= SHORT_LEVEL_MAX_MINUTES:
            return CallTiming(25, 5)
        return CallTiming(50, 10)
    if duration == "25+5":
        return CallTiming(25, 5)
    raise ClockError(f"clock.duration cannot be {duration!r}; choose 60+10, 50+10 or 25+5",
                     "CLOCK-1")


def profile_call_timing(profile: RulesProfile, level_minutes: float | None = None
                        ) -> CallTiming:
    """``call_timing`` for a rules profile's ``clock.duration`` (raises where it is n/a)."""
    return call_timing(profile.text("clock.duration"), level_minutes)


class Caller(StrEnum):
    """Who asks for the clock on a player."""

    PLAYER = "player"
    DEALER = "dealer"  # from the dealer console
    FLOOR = "floor"  # the floor, through the host


def verify_clock_call(clock_caller: str, caller: Caller, *, in_pot: bool = False,
                      at_table: bool = True, floor_approved: bool = False) -> None:
    """CLOCK-2 under ``clock.caller``; raises with the reason when the call is not allowed.

    ``in_pot`` (002 cash): a player in the pot; ``at_table`` (002 tournaments): a player at
    the table; under both the dealer or manager may also call it. ``floor_approval`` (004):
    any player or the dealer, once the floor approves. The floor itself may always call it.
    """
    if caller is Caller.FLOOR:
        return
    if clock_caller == "floor_approval":
        if not floor_approved:
            raise ClockError("the floor must approve a clock call", "CLOCK-2")
        return
    if caller is Caller.DEALER:
        return
    if clock_caller == "in_pot" and not in_pot:
        raise ClockError("only a player in the pot may call the clock", "CLOCK-2")
    if clock_caller == "at_table" and not at_table:
        raise ClockError("only a player at the table may call the clock", "CLOCK-2")
    if clock_caller not in ("in_pot", "at_table"):
        raise ClockError(f"clock.caller cannot be {clock_caller!r}", "CLOCK-2")


# -- live extension chips ------------------------------------------------------------------
class ExtensionChips:
    """Each player's time-bank extension chips (live). Keyed by the player's id.

    ``grants`` maps a tournament stage (``"day1"``, ``"final_table"``...) to the number of
    chips every player holds when that stage begins: entering a stage resets the count.
    """

    def __init__(self, seconds: float = 30.0, grants: Mapping[str, int] | None = None) -> None:
        if seconds <= 0:
            raise StructureError(f"an extension chip must be worth some time, not {seconds} s")
        self.seconds = seconds
        self.grants = dict(grants or {})
        for stage, count in self.grants.items():
            if count < 0:
                raise StructureError(f"stage {stage!r} cannot grant {count} chips")
        self.stage: str | None = None
        self._chips: dict[str, int] = {}

    def enter_stage(self, stage: str, players: Iterable[str]) -> None:
        """The tournament reached ``stage``: every player's count is reset to its grant."""
        if stage not in self.grants:
            raise ClockError(f"no extension grant for stage {stage!r}; the stages are "
                             + ", ".join(sorted(self.grants)))
        self.stage = stage
        self._chips = {player: self.grants[stage] for player in players}

    def chips(self, player: str) -> int:
        return self._chips.get(player, 0)

    def take(self, player: str) -> int:
        """Spend one of ``player``'s chips; returns how many are left. Raises if none."""
        left = self.chips(player)
        if left <= 0:
            raise ClockError(f"player {player} has no extension chips left")
        self._chips[player] = left - 1
        return left - 1

    def carry_out(self, player: str) -> int:
        """The player leaves this table: their count goes with them (through the host)."""
        return self._chips.pop(player, 0)

    def carry_in(self, player: str, chips: int) -> None:
        """A player arrives from another table with ``chips`` (as the host reports)."""
        if chips < 0:
            raise ClockError(f"a player cannot carry {chips} chips")
        self._chips[player] = chips

    def state(self) -> dict[str, Any]:
        return {"stage": self.stage, "chips": dict(self._chips)}

    def restore(self, state: Mapping[str, Any]) -> None:
        self.stage = state["stage"]
        self._chips = {str(p): int(c) for p, c in state["chips"].items()}


# -- online time banks (CLOCK-5/6/7) -------------------------------------------------------
class TimebankPolicy(Protocol):
    """An online time bank: seconds a player may use once the decision time runs out."""

    def hand_started(self, player: str) -> None: ...

    def balance(self, player: str) -> float: ...

    def spend(self, player: str, seconds: float) -> None: ...

    def state(self) -> dict[str, Any]: ...

    def restore(self, state: Mapping[str, Any]) -> None: ...


@dataclass(frozen=True, slots=True)
class TimebankRow:
    """One row of the CLOCK-5 table."""

    first_hand_s: float
    added_s: float
    every_nth_hand: int
    cap_s: float


# CLOCK-5 (003 §10). HexaPro rows by multiplier; HexaPro Extreme uses them too (CLOCK-6).
TIMEBANK_ROWS: Final[Mapping[str, TimebankRow]] = {
    "cash": TimebankRow(15, 5, 10, 30),
    "hexapro_under_25x": TimebankRow(10, 5, 5, 20),
    "hexapro_25x_up": TimebankRow(30, 5, 5, 60),
    "tournament": TimebankRow(15, 5, 10, 30),
    "sng": TimebankRow(10, 5, 5, 20),
}


def timebank_row(game: str, multiplier: float | None = None) -> TimebankRow:
    """The CLOCK-5 row for ``cash``, ``tournament``, ``sng``, ``hexapro`` or
    ``hexapro_extreme`` (these two need the game's ``multiplier``; CLOCK-6 [interp])."""
    if game in ("hexapro", "hexapro_extreme"):
        if multiplier is None:
            raise StructureError(f"{game} needs its multiplier to choose a timebank row",
                                 "CLOCK-6")
        return TIMEBANK_ROWS["hexapro_25x_up" if multiplier >= 25 else "hexapro_under_25x"]
    try:
        return TIMEBANK_ROWS[game]
    except KeyError:
        raise StructureError(f"no timebank row for game {game!r}; choose cash, tournament, "
                             "sng, hexapro or hexapro_extreme", "CLOCK-5") from None


class TableTimebank:
    """CLOCK-5/6: a bank per player at this table or tournament, never refilled per hand;
    time is added at the start of the player's N-th, 2N-th... hand, up to the cap."""

    def __init__(self, row: TimebankRow) -> None:
        self.row = row
        self._bank: dict[str, float] = {}
        self._hands: dict[str, int] = {}

    def hand_started(self, player: str) -> None:
        hands = self._hands.get(player, 0) + 1
        self._hands[player] = hands
        if hands == 1:
            self._bank[player] = self.row.first_hand_s
        elif hands % self.row.every_nth_hand == 0:
            self._bank[player] = min(self.row.cap_s, self._bank[player] + self.row.added_s)

    def balance(self, player: str) -> float:
        return self._bank.get(player, 0.0)

    def spend(self, player: str, seconds: float) -> None:
        self._bank[player] = max(0.0, self.balance(player) - seconds)

    def state(self) -> dict[str, Any]:
        return {"bank": dict(self._bank), "hands": dict(self._hands)}

    def restore(self, state: Mapping[str, Any]) -> None:
        self._bank = {str(p): float(s) for p, s in state["bank"].items()}
        self._hands = {str(p): int(n) for p, n in state["hands"].items()}


class LegacyTimebank:
    """CLOCK-7 (000): at least 10 s at the start of every hand, 0.25 s more for each hand
    played, never over 30 s. [interp] The first hand starts at the 10 s floor; each later
    hand start adds 0.25 s before the floor and the cap apply."""

    FLOOR_S: Final = 10.0
    PER_HAND_S: Final = 0.25
    CAP_S: Final = 30.0

    def __init__(self) -> None:
        self._bank: dict[str, float] = {}

    def hand_started(self, player: str) -> None:
        if player not in self._bank:
            self._bank[player] = self.FLOOR_S
            return
        grown = self._bank[player] + self.PER_HAND_S
        self._bank[player] = min(self.CAP_S, max(self.FLOOR_S, grown))

    def balance(self, player: str) -> float:
        return self._bank.get(player, 0.0)

    def spend(self, player: str, seconds: float) -> None:
        self._bank[player] = max(0.0, self.balance(player) - seconds)

    def state(self) -> dict[str, Any]:
        return {"bank": dict(self._bank)}

    def restore(self, state: Mapping[str, Any]) -> None:
        self._bank = {str(p): float(s) for p, s in state["bank"].items()}


def timebank_policy(profile: RulesProfile, game: str, multiplier: float | None = None
                    ) -> TimebankPolicy | None:
    """The online bank ``timebank.model`` selects (``None`` where the key is n/a: live)."""
    model = profile["timebank.model"]
    if model is None:
        return None
    if model == "legacy":
        return LegacyTimebank()
    return TableTimebank(timebank_row(game, multiplier))
