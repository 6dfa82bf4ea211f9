"""Cash games on the floor: waiting lists, table assignment, buy-in limits with the
ratholing table, sit-out removal, table changes and the rake ledger (CASH-1, -2, -4, -8,
-10, RAKE-1..8 accounting).

Time is injected: ``now`` is seconds since the Unix epoch, UTC (the ratholing counter
resets at 00:00 UTC, CASH-2). Money is in cents.

Decisions (RULES.md literal):

* CASH-2 applies on every table (the brief's "ratholing table"), normal limits 50-100 BB
  unless the stake sets its own (CASH-8 live stakes: 1,000-5,000 kr at 10/20); the
  ratholing rows then use the stake's minimum and maximum in place of 50 and 100 BB. The
  counter is read before the current return counts [interp as RULES.md] and counts
  returns after leaving with at least the maximum (100 BB) within 30 minutes.
* CASH-1 assignment: the first player on the stake's waiting list goes to a table of that
  stake with a free seat, preferring a table they played before, then the table with the
  fewest players, then the lowest table number; the seat is the lowest free seat [the
  seeds do not choose the seat].
* CASH-4: a player sitting out for more than 10 minutes (600 s, strictly more) is removed.
* CASH-9 (live) [interp as RULES.md]: button passes are counted from the start of the
  absence (``controller.rules.button.button_passed``); at the second pass, and only while
  the stake has a waiting list, the stack is due to be removed.
* CASH-10/CASH-11: a player changing or moved from a closed table brings the whole table
  stake, capped at the new table's maximum buy-in (Appendix B.7, read literally: exactly
  the maximum; the excess is the player's to cash). A closed table's players choose seats
  in the order of a high-card draw, drawn here from the ``random.Random`` given.
* CASH-10: a move to another table of the same stake is allowed only if the table left has
  more players than the table joined (before the move).
* Rake ledger: each hand's rake is recorded once per (table, hand id) -- a repeated report
  with the same amount is ignored (idempotent), a different amount is refused.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Final

from controller.rules.button import Positions, button_passed

from .errors import DirectorError

RATHOLE_S: Final = 30 * 60  # CASH-2
SIT_OUT_S: Final = 10 * 60  # CASH-4
DAY_S: Final = 24 * 3600


@dataclass(frozen=True, slots=True)
class Stake:
    """A cash stake and its buy-in limits (cents)."""

    name: str
    small_blind: int
    big_blind: int
    min_buy_in: int = 0  # 0: 50 BB (CASH-2)
    max_buy_in: int = 0  # 0: 100 BB

    def __post_init__(self) -> None:
        if not 0 < self.small_blind <= self.big_blind:
            raise DirectorError(f"{self.name}: blinds {self.small_blind}/{self.big_blind}",
                                "BLIND-1")
        if self.low > self.high:
            raise DirectorError(f"{self.name}: minimum buy-in above the maximum", "CASH-2")

    @property
    def low(self) -> int:
        return self.min_buy_in or 50 * self.big_blind

    @property
    def high(self) -> int:
        return self.max_buy_in or 100 * self.big_blind


LIVE_STAKES: Final = (  # CASH-8, in øre (kr cents)
    Stake("NLHE 10/20", 1_000, 2_000, 100_000, 500_000),
    Stake("NLHE 20/40", 2_000, 4_000, 200_000, 1_000_000),
)


@dataclass(slots=True)
class CashTable:
    table: int
    stake: str
    seats: int
    players: dict[int, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Departure:
    player: str
    table: int
    stack: int
    at: float


@dataclass(frozen=True, slots=True)
class RakeEntry:
    table: int
    hand: str
    cents: int


class CashFloor:
    """Every cash table on the floor, the waiting lists and the rake ledger."""

    def __init__(self, stakes: tuple[Stake, ...]) -> None:
        self.stakes = {s.name: s for s in stakes}
        self.tables: dict[int, CashTable] = {}
        self.lists: dict[str, list[str]] = {s: [] for s in self.stakes}
        self.where: dict[str, tuple[int, int]] = {}
        self.history: dict[str, set[int]] = {}  # tables each player has played (CASH-1)
        self.departures: dict[str, Departure] = {}  # last departure per player
        self._rathole: dict[tuple[str, int], int] = {}  # (player, UTC day) -> counter
        self.sitting_out: dict[str, float] = {}
        self.passes: dict[str, int] = {}  # CASH-9: button passes since sitting out
        self.rake: dict[tuple[int, str], RakeEntry] = {}

    def _stake(self, name: str) -> Stake:
        try:
            return self.stakes[name]
        except KeyError:
            raise DirectorError(f"no stake {name!r} on the floor", "CASH-8") from None

    def add_table(self, table: int, stake: str, seats: int = 9) -> None:
        self._stake(stake)
        if table in self.tables or not 2 <= seats <= 10:
            raise DirectorError(f"table {table}: already open, or not 2 to 10 seats", "CASH-1")
        self.tables[table] = CashTable(table, stake, seats)

    # -- waiting lists (CASH-1) -------------------------------------------------------------
    def join_list(self, player: str, stake: str) -> int:
        """Put a player on a stake's list; returns their position (1 = next)."""
        queue = self.lists[self._stake(stake).name]
        if player in queue:
            raise DirectorError(f"{player} is already on the {stake} list", "CASH-1")
        queue.append(player)
        return len(queue)

    def leave_list(self, player: str, stake: str) -> None:
        """Players may leave the queue at any time (CASH-1)."""
        queue = self.lists[self._stake(stake).name]
        if player not in queue:
            raise DirectorError(f"{player} is not on the {stake} list", "CASH-1")
        queue.remove(player)

    def suggest_seat(self, stake: str) -> tuple[str, int, int] | None:
        """The next player on the list and the table and seat they are called to."""
        queue = self.lists[self._stake(stake).name]
        if not queue:
            return None
        player = queue[0]
        open_tables = [t for t in self.tables.values()
                       if t.stake == stake and len(t.players) < t.seats]
        if not open_tables:
            return None
        played = self.history.get(player, set())
        best = min(open_tables,
                   key=lambda t: (t.table not in played, len(t.players), t.table))
        seat = min(s for s in range(1, best.seats + 1) if s not in best.players)
        return player, best.table, seat

    # -- buy-ins (CASH-2) -------------------------------------------------------------------
    def counter(self, player: str, now: float) -> int:
        """The ratholing counter today (UTC)."""
        return self._rathole.get((player, int(now // DAY_S)), 0)

    def buy_in_limits(self, player: str, table: int, now: float) -> tuple[int, int]:
        """(min, max) buy-in in cents for ``player`` sitting at ``table`` now (CASH-2)."""
        stake = self._stake(self._table(table).stake)
        low, high = stake.low, stake.high
        left = self.departures.get(player)
        if left is None or left.table != table or now - left.at > RATHOLE_S:
            return low, high
        x = left.stack
        if x <= low:
            return low, high
        if x < high:
            return x, high
        if self.counter(player, now) <= 4:
            return high, x
        return x, x

    def _table(self, table: int) -> CashTable:
        try:
            return self.tables[table]
        except KeyError:
            raise DirectorError(f"there is no cash table {table}", "CASH-1") from None

    def verify_sit_down(self, player: str, table: int, seat: int, amount: int,
                        now: float) -> None:
        t = self._table(table)
        if player in self.where:
            raise DirectorError(f"{player} already sits at table {self.where[player][0]}",
                                "CASH-10")
        if not 1 <= seat <= t.seats or seat in t.players:
            raise DirectorError(f"seat {seat} of table {table} is not free", "CASH-1")
        low, high = self.buy_in_limits(player, table, now)
        if not low <= amount <= high:
            raise DirectorError(f"{player} may buy in for {low / 100:.2f} to {high / 100:.2f} "
                                f"here, not {amount / 100:.2f}", "CASH-2")

    def sit_down(self, player: str, table: int, seat: int, amount: int, now: float) -> None:
        self.verify_sit_down(player, table, seat, amount, now)
        t = self.tables[table]
        left = self.departures.get(player)
        if (left is not None and left.table == table and now - left.at <= RATHOLE_S
                and left.stack >= self._stake(t.stake).high):
            key = (player, int(now // DAY_S))
            self._rathole[key] = self._rathole.get(key, 0) + 1  # counted after reading
        t.players[seat] = player
        self.where[player] = (table, seat)
        self.history.setdefault(player, set()).add(table)
        for queue in self.lists.values():
            if player in queue:
                queue.remove(player)

    def leave(self, player: str, stack: int, now: float) -> Departure:
        """A player leaves with ``stack`` cents (remembered for CASH-2)."""
        if player not in self.where:
            raise DirectorError(f"{player} is not seated", "CASH-1")
        table, seat = self.where.pop(player)
        del self.tables[table].players[seat]
        self.sitting_out.pop(player, None)
        d = Departure(player, table, stack, now)
        self.departures[player] = d
        return d

    # -- sitting out (CASH-4) ---------------------------------------------------------------
    def sit_out(self, player: str, now: float) -> None:
        if player not in self.where:
            raise DirectorError(f"{player} is not seated", "CASH-4")
        if player not in self.sitting_out:
            self.sitting_out[player] = now
            self.passes[player] = 0

    def sit_in(self, player: str) -> None:
        self.sitting_out.pop(player, None)
        self.passes.pop(player, None)

    def button_moved(self, table: int, previous: Positions, current: Positions) -> list[str]:
        """CASH-9 (live): count the button passing absent players' seats; returns those
        whose stack the floor removes now (second pass, and a waiting list exists)."""
        t = self._table(table)
        due = []
        for seat, player in sorted(t.players.items()):
            if player in self.sitting_out and button_passed(previous, current, seat):
                self.passes[player] = self.passes.get(player, 0) + 1
                if self.passes[player] >= 2 and self.lists[t.stake]:
                    due.append(player)
        return due

    def due_for_removal(self, now: float) -> list[str]:
        """Players sitting out for more than 10 minutes (CASH-4)."""
        return sorted(p for p, since in self.sitting_out.items() if now - since > SIT_OUT_S)

    # -- table changes (CASH-10) ------------------------------------------------------------
    def verify_change(self, player: str, to_table: int) -> None:
        if player not in self.where:
            raise DirectorError(f"{player} is not seated", "CASH-10")
        src = self.tables[self.where[player][0]]
        dst = self._table(to_table)
        if len(dst.players) >= dst.seats:
            raise DirectorError(f"table {to_table} is full", "CASH-10")
        if dst.stake == src.stake and len(src.players) <= len(dst.players):
            raise DirectorError(f"table {src.table} has {len(src.players)} players and table "
                                f"{to_table} {len(dst.players)}: the move would leave "
                                f"{src.table} two or more players short", "CASH-10")

    def stack_on_moving(self, stack: int, to_table: int) -> int:
        """CASH-10/11: the whole stake comes along, capped at the new table's maximum."""
        return min(stack, self._stake(self._table(to_table).stake).high)

    def close_table(self, table: int, rng: random.Random) -> list[str]:
        """CASH-11: close a table; its players, in high-card order, choose new seats
        (they join without posting a BB, BLIND-6). The table leaves the floor."""
        t = self._table(table)
        players = sorted(t.players.values())
        rng.shuffle(players)  # the high-card draw
        for p in players:
            del self.where[p]
            self.sitting_out.pop(p, None)
            self.passes.pop(p, None)
        del self.tables[table]
        return players

    # -- rake ledger ------------------------------------------------------------------------
    def record_rake(self, table: int, hand: str, cents: int) -> bool:
        """Record a hand's rake; returns False for a repeated identical report."""
        self._table(table)
        if cents < 0:
            raise DirectorError("rake cannot be negative", "RAKE-1")
        old = self.rake.get((table, hand))
        if old is not None:
            if old.cents != cents:
                raise DirectorError(f"hand {hand} at table {table} was raked {old.cents}, "
                                    f"not {cents}", "RAKE-1")
            return False
        self.rake[(table, hand)] = RakeEntry(table, hand, cents)
        return True

    def rake_by_table(self) -> dict[int, int]:
        out = dict.fromkeys(self.tables, 0)
        for e in self.rake.values():
            out[e.table] = out.get(e.table, 0) + e.cents
        return out
