"""Penalties that follow the player (PEN-1..7, TOURN-32).

The book is keyed by player, not by table, so a penalty follows its player across table
moves, broken tables, redraws and days (PEN-5, TOURN-32): a move needs no bookkeeping,
and :meth:`Penalties.remaining` is what the bridge sends to the new table with the player.

Decisions (RULES.md literal; ``penalty.warning_first`` decides PEN-3):

* PEN-2: a round is one hand per player at the offender's table when the penalty is given.
* PEN-4: every hand dealt at the player's table while they serve counts, wherever that
  table is (the table they sit at now). Their blinds and antes are posted and the hand is
  killed [conv, RULES.md's recommendation]: :meth:`Penalties.serving` tells the table.
* PEN-3 ``true`` (002): a verbal warning comes first; after it, removals of 15 minutes at a
  time (:meth:`Penalties.remove_for`), with the time injected. Hand and round penalties are
  the 004 model and need no warning under ``false``; under ``true`` they also require the
  warning first (002's "the next offence may mean removal" is the escalation).
* Under ``false`` (004) a first offence may be any penalty, disqualification included
  (:meth:`Tournament.exclude`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from controller.rules.config import RulesProfile

from .errors import DirectorError

REMOVAL_S: Final = 15 * 60  # PEN-3 (002): removals of 15 minutes


@dataclass(frozen=True, slots=True)
class Penalty:
    """One penalty as given: a warning, missed hands, or a timed removal."""

    player: str
    kind: str  # "warning", "hands", "removal"
    hands: int = 0
    until: float | None = None  # removals: monotonic seconds
    rule: str = "PEN-1"


class Penalties:
    """The penalty book for one event."""

    def __init__(self, profile: RulesProfile) -> None:
        self.warning_first = profile["penalty.warning_first"] == "true"
        self.given: list[Penalty] = []
        self._hands: dict[str, int] = {}
        self._until: dict[str, float] = {}
        self._counted: set[str] = set()  # counted in the hand they are in now (PEN-4)

    def warned(self, player: str) -> bool:
        return any(p.player == player and p.kind == "warning" for p in self.given)

    def warn(self, player: str) -> Penalty:
        """PEN-1/PEN-3: a verbal warning."""
        return self._give(Penalty(player, "warning", rule="PEN-3"))

    def verify_penalty(self, player: str) -> None:
        if self.warning_first and not self.warned(player):
            raise DirectorError(f"{player} must be warned first: under this house's rules "
                                "a verbal warning precedes any penalty", "PEN-3")

    def miss_hands(self, player: str, hands: int) -> Penalty:
        """PEN-1: the player misses ``hands`` hands (added to any penalty being served)."""
        if hands <= 0:
            raise DirectorError(f"a penalty is one or more hands, not {hands}", "PEN-1")
        self.verify_penalty(player)
        self._hands[player] = self._hands.get(player, 0) + hands
        return self._give(Penalty(player, "hands", hands, rule="PEN-1"))

    def miss_rounds(self, player: str, rounds: int, players_at_table: int) -> Penalty:
        """PEN-2: a round is one hand per player at the table when it is given."""
        if rounds <= 0 or players_at_table < 2:
            raise DirectorError(f"{rounds} rounds at a table of {players_at_table}: a round "
                                "penalty needs one or more rounds at a table in play", "PEN-2")
        self.verify_penalty(player)
        hands = rounds * players_at_table
        self._hands[player] = self._hands.get(player, 0) + hands
        return self._give(Penalty(player, "hands", hands, rule="PEN-2"))

    def remove_for(self, player: str, now: float) -> Penalty:
        """PEN-3 ``true`` (002): removal from the table for 15 minutes, after a warning."""
        if not self.warning_first:
            raise DirectorError("timed removals belong to the warning-first rules "
                                "(penalty.warning_first = true); give hands or rounds", "PEN-3")
        self.verify_penalty(player)
        until = max(now, self._until.get(player, now)) + REMOVAL_S
        self._until[player] = until
        return self._give(Penalty(player, "removal", until=until, rule="PEN-3"))

    def _give(self, p: Penalty) -> Penalty:
        self.given.append(p)
        return p

    def hand_dealt(self, players: Iterable[str]) -> None:
        """A hand was dealt at a table with these players: serving players count it (PEN-4)."""
        for p in players:
            self._counted.discard(p)
            if self._hands.get(p, 0) > 0:
                self._counted.add(p)
                self._hands[p] -= 1
                if self._hands[p] == 0:
                    del self._hands[p]

    def hand_voided(self, players: Iterable[str]) -> None:
        """That hand was void (a misdeal, CRASH-1): it is dealt again, so the players it
        counted for get it back (PEN-4: a hand served is a hand played)."""
        for p in players:
            if p in self._counted:
                self._counted.discard(p)
                self._hands[p] = self._hands.get(p, 0) + 1

    def remaining(self, player: str) -> int:
        """Hands still to serve (they follow the player, PEN-5)."""
        return self._hands.get(player, 0)

    def serving(self, player: str, now: float | None = None) -> bool:
        """Whether the player sits out now: hands left, or a removal not yet over."""
        if self._hands.get(player, 0) > 0:
            return True
        return now is not None and self._until.get(player, now) > now
