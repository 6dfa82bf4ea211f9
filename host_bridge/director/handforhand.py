"""Hand-for-hand play at the bubble and the last hands of the day (TOURN-22/23/24/27).

Both are coordinators: the tables report hand starts, hand ends and all-ins; the
coordinator says which tables may deal or finish. Pure and synchronous; the bridge turns
the answers into table commands.

Decisions (RULES.md literal):

* TOURN-22: when hand-for-hand is announced, tables in a hand finish it (those hands are
  not hand-for-hand hands); then every table deals hand 1 at once, and no table deals hand
  n+1 until every table has finished hand n. A table that cannot deal (one player left,
  waiting for a move) is skipped for that hand by the floor (:meth:`HandForHand.skip`).
* TOURN-22: an all-in and call freezes the table; it finishes only when every other table
  has finished the same hand, and several frozen tables finish one at a time, lowest table
  number first [the seeds give no order].
* TOURN-27: the draw is made with 15 to 5 minutes left in the last level of the day
  (inclusive); the card is 3..7; every table plays exactly that many more hands, counted
  from its next deal. A table broken meanwhile stops counting; its players play out the
  count of the table they join.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from enum import StrEnum

from .errors import DirectorError


class H4H(StrEnum):
    PLAYING = "playing"
    WAITING = "waiting"
    FROZEN = "frozen"  # all-in called: cards frozen face down (TOURN-22)


class HandForHand:
    """TOURN-22/23: every table plays the same hand number and waits for the others."""

    def __init__(self, tables: Iterable[int], in_hand: Iterable[int] = ()) -> None:
        playing = set(in_hand)
        self.state = {t: H4H.PLAYING if t in playing else H4H.WAITING for t in tables}
        if not self.state:
            raise DirectorError("hand-for-hand needs tables", "TOURN-22")
        self.hand = 0  # the hand-for-hand hand being played; 0: finishing earlier hands
        self.to_deal: set[int] = set()
        self.released: int | None = None
        self._open()

    def _open(self) -> None:
        """When every table waits and none is still to deal, the next hand opens."""
        if not self.to_deal and all(s is H4H.WAITING for s in self.state.values()):
            self.hand += 1
            self.to_deal = set(self.state)

    def may_deal(self) -> set[int]:
        return set(self.to_deal)

    def verify_deal(self, table: int) -> None:
        if table not in self.state:
            raise DirectorError(f"table {table} is not in hand-for-hand play", "TOURN-22")
        if table not in self.to_deal:
            raise DirectorError(f"table {table} waits: hand-for-hand hand {self.hand} is not "
                                "finished at every table", "TOURN-22")

    def hand_started(self, table: int) -> int:
        """A table deals; returns the hand-for-hand hand number it plays."""
        self.verify_deal(table)
        self.to_deal.discard(table)
        self.state[table] = H4H.PLAYING
        return self.hand

    def skip(self, table: int) -> None:
        """The table does not deal this hand (too few players until a move)."""
        self.verify_deal(table)
        self.to_deal.discard(table)
        self._open()

    def all_in(self, table: int) -> None:
        """An all-in has been called: the table's hand is frozen (TOURN-22)."""
        if self.state.get(table) is not H4H.PLAYING:
            raise DirectorError(f"table {table} is not playing a hand", "TOURN-22")
        self.state[table] = H4H.FROZEN

    def may_finish(self) -> int | None:
        """The frozen table the floor lets finish now: none while any other table plays or
        may still deal the hand; one at a time."""
        if self.released is not None:
            return self.released
        if self.to_deal or any(s is H4H.PLAYING for s in self.state.values()):
            return None
        frozen = sorted(t for t, s in self.state.items() if s is H4H.FROZEN)
        if frozen:
            self.released = frozen[0]
        return self.released

    def hand_ended(self, table: int) -> None:
        state = self.state.get(table)
        if state is H4H.FROZEN and self.may_finish() != table:
            raise DirectorError(f"table {table}'s all-in waits until every other table has "
                                "finished the hand", "TOURN-22")
        if state not in (H4H.PLAYING, H4H.FROZEN):
            raise DirectorError(f"table {table} is not playing a hand", "TOURN-22")
        self.state[table] = H4H.WAITING
        if self.released == table:
            self.released = None
        self._open()

    def remove_table(self, table: int) -> None:
        """A broken table leaves hand-for-hand play (between hands only)."""
        if self.state.get(table) is not H4H.WAITING:
            raise DirectorError(f"table {table} can only break between hands", "TOURN-21")
        del self.state[table]
        self.to_deal.discard(table)
        self._open()


class LastHands:
    """TOURN-27: the clock stops and every table plays a drawn 3..7 more hands."""

    def __init__(self, tables: Iterable[int], *, seconds_left: float, card: int) -> None:
        if not 5 * 60 <= seconds_left <= 15 * 60:
            raise DirectorError(f"the last hands are drawn with 15 to 5 minutes left in the "
                                f"level, not {seconds_left / 60:.1f}", "TOURN-27")
        if not 3 <= card <= 7:
            raise DirectorError(f"the card drawn is 3 to 7, not {card}", "TOURN-27")
        self.card = card
        self.clock_stopped = True
        self.dealt = dict.fromkeys(tables, 0)
        self.in_hand: set[int] = set()

    @staticmethod
    def draw(rng: random.Random) -> int:
        """The card a player draws: 3 to 7."""
        return rng.randint(3, 7)

    def may_deal(self, table: int) -> bool:
        return table in self.dealt and self.dealt[table] < self.card

    def hand_started(self, table: int) -> int:
        """Count a deal; returns how many hands remain at that table after this one."""
        if not self.may_deal(table):
            raise DirectorError(f"table {table} has played its {self.card} last hands",
                                "TOURN-27")
        self.dealt[table] += 1
        self.in_hand.add(table)
        return self.card - self.dealt[table]

    def hand_ended(self, table: int) -> None:
        self.in_hand.discard(table)

    def remove_table(self, table: int) -> None:
        self.dealt.pop(table, None)
        self.in_hand.discard(table)

    @property
    def done(self) -> bool:
        """Play for the day ends: every table has played the count."""
        return not self.in_hand and all(n >= self.card for n in self.dealt.values())
