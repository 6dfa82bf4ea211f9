"""Cash games on the floor: waiting lists, calls to a seat, buy-in limits with the
ratholing table, sit-out removal, table changes and the rake ledger (CASH-1..11, -13,
-14, RAKE-1..8 accounting).

Time is injected: ``now`` is seconds since the Unix epoch, UTC (the ratholing counter
and the Banzai resets restart at 00:00 UTC, CASH-2/14). Money is in the stake's unit
(cents online, kr live). The model is plain data: :meth:`CashFloor.to_json` and
:meth:`CashFloor.from_json` carry it whole through a restart.

Decisions (RULES.md literal):

* CASH-2 applies on every table (the brief's "ratholing table"), normal limits 50-100 BB
  unless the stake sets its own (``rule`` names where they come from: CASH-8 live stakes,
  CASH-7 Banzai); the ratholing rows then use the stake's minimum and maximum in place of
  50 and 100 BB. The counter is read before the current return counts [interp as
  RULES.md] and counts returns after leaving with at least the maximum (100 BB) within 30
  minutes.
* CASH-3: a stake with ``no_rathole`` (Texas Deepstack, Omaha Shortstack) takes the
  counter-5 row always: a player returning within 30 minutes to the table they left
  never comes back with less than they left with.
* CASH-1 assignment: the first player on the stake's waiting list not yet called goes to
  a table of that stake with a free seat (not held for another call), preferring a table
  they played before, then the table with the fewest players (and players called to it),
  then the lowest table
  number; the seat is the lowest free seat [the seeds do not choose the seat].
* A player sits at one table at a time (CASH-10: change tables instead), except on an
  ``online`` stake, where they may play several; Banzai (``banzai``) allows at most
  ``max_tables`` tables of the stake (CASH-13).
* CASH-14: a Banzai player who left the stake with more than 10 BB (the stake's maximum)
  in the last 30 minutes rejoins it with that same stack; with ``reset`` they take 10 BB
  instead, five times a UTC day at most.
* CASH-4: a player sitting out for more than 10 minutes (600 s, strictly more) is due
  for removal. CASH-5: a player with the global sit-out option who sits out at one table
  is sitting out at all their cash tables, and is due for removal after 500 s (strictly
  more); coming back at one table brings them back at all.
* CASH-6: the auto top-up is a player's option, off by default; after every hand it
  refills a stack below the initial buy-in at that table to it [a stack of 0 is not
  refilled: the player has busted and buys in again].
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
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Final

from controller.rules.button import Positions, button_passed

from .errors import DirectorError

RATHOLE_S: Final = 30 * 60  # CASH-2, CASH-14
SIT_OUT_S: Final = 10 * 60  # CASH-4
GLOBAL_SIT_OUT_S: Final = 500  # CASH-5
BANZAI_RESETS: Final = 5  # CASH-14, a UTC day
DAY_S: Final = 24 * 3600


@dataclass(frozen=True, slots=True)
class Stake:
    """A cash stake, its buy-in limits (in its unit) and the rules that vary by format."""

    name: str
    small_blind: int
    big_blind: int
    min_buy_in: int = 0  # 0: 50 BB (CASH-2)
    max_buy_in: int = 0  # 0: 100 BB
    rule: str = "CASH-2"  # where the limits come from: CASH-2, CASH-7 (Banzai), CASH-8
    online: bool = False  # a player may play several tables of it
    no_rathole: bool = False  # CASH-3: Deepstack, Shortstack
    banzai: bool = False  # CASH-13/14
    max_tables: int = 4  # CASH-13: banzai.max_tables_per_stake

    def __post_init__(self) -> None:
        if not 0 < self.small_blind <= self.big_blind:
            raise DirectorError(f"{self.name}: blinds {self.small_blind}/{self.big_blind}",
                                "BLIND-1")
        if self.low > self.high:
            raise DirectorError(f"{self.name}: minimum buy-in above the maximum", self.rule)
        if self.max_tables < 1:
            raise DirectorError(f"{self.name}: at least one Banzai table", "CASH-13")

    @property
    def low(self) -> int:
        return self.min_buy_in or 50 * self.big_blind

    @property
    def high(self) -> int:
        return self.max_buy_in or 100 * self.big_blind


LIVE_STAKES: Final = (  # CASH-8, in øre (kr cents)
    Stake("NLHE 10/20", 1_000, 2_000, 100_000, 500_000, rule="CASH-8"),
    Stake("NLHE 20/40", 2_000, 4_000, 200_000, 1_000_000, rule="CASH-8"),
)


@dataclass(slots=True)
class CashTable:
    table: int
    stake: str
    seats: int
    players: dict[int, str] = field(default_factory=dict)
    name: str = ""  # the floor's name for it (its wire id); the number if empty


@dataclass(frozen=True, slots=True)
class Departure:
    player: str
    table: int
    stack: int
    at: float
    stake: str = ""


@dataclass(frozen=True, slots=True)
class RakeEntry:
    table: int
    hand: str
    cents: int


@dataclass(frozen=True, slots=True)
class SitOut:
    """Since when a player sits out at a table, how long they may, and the rule."""

    since: float
    limit_s: float
    rule: str  # CASH-4 or CASH-5


@dataclass(frozen=True, slots=True)
class Due:
    """A player due to be removed from a table, and the rule that removes them."""

    player: str
    table: int
    seat: int
    rule: str  # CASH-4, CASH-5 or CASH-9


@dataclass(frozen=True, slots=True)
class Limits:
    """The buy-ins a player may sit down with at a table now, and the rule that says so."""

    low: int
    high: int
    rule: str


Pair = tuple[str, int]  # (player, table)


class CashFloor:
    """Every cash table on the floor, the waiting lists and the rake ledger."""

    def __init__(self, stakes: tuple[Stake, ...]) -> None:
        self.stakes = {s.name: s for s in stakes}
        self.tables: dict[int, CashTable] = {}
        self.lists: dict[str, list[str]] = {s: [] for s in self.stakes}
        self.called: dict[str, tuple[int, int]] = {}  # player -> (table, seat) held
        self.where: dict[str, dict[int, int]] = {}  # player -> {table: seat}
        self.history: dict[str, set[int]] = {}  # tables each player has played (CASH-1)
        self.departures: dict[Pair, Departure] = {}  # last departure per player and table
        self._rathole: dict[tuple[str, int], int] = {}  # (player, UTC day) -> counter
        self._resets: dict[tuple[str, int], int] = {}  # (player, UTC day) -> CASH-14 resets
        self.sitting_out: dict[Pair, SitOut] = {}
        self.passes: dict[Pair, int] = {}  # CASH-9: button passes since sitting out
        self.orbit_due: set[Pair] = set()  # CASH-9: the second pass came with a list
        self.initial: dict[Pair, int] = {}  # CASH-6: the buy-in at each table
        self.top_up: set[str] = set()  # CASH-6: players with the auto top-up on
        self.global_sit_out: set[str] = set()  # CASH-5: players with the option on
        self.rake: dict[tuple[int, str], RakeEntry] = {}

    def _stake(self, name: str) -> Stake:
        try:
            return self.stakes[name]
        except KeyError:
            raise DirectorError(f"no stake {name!r} on the floor", "CASH-8") from None

    def add_stake(self, stake: Stake) -> None:
        if stake.name in self.stakes:
            raise DirectorError(f"the stake {stake.name!r} is already on the floor", "CASH-8")
        self.stakes[stake.name] = stake
        self.lists[stake.name] = []

    def add_table(self, table: int, stake: str, seats: int = 9, name: str = "") -> None:
        self._stake(stake)
        if table in self.tables or not 2 <= seats <= 10:
            raise DirectorError(f"table {table}: already open, or not 2 to 10 seats", "CASH-1")
        self.tables[table] = CashTable(table, stake, seats, name=name)

    def label(self, table: int) -> str:
        """How a message names a table: the floor's name, else its number."""
        t = self.tables.get(table)
        return t.name if t is not None and t.name else str(table)

    def _table(self, table: int) -> CashTable:
        try:
            return self.tables[table]
        except KeyError:
            raise DirectorError(f"there is no cash table {table}", "CASH-1") from None

    def seat_of(self, player: str, table: int) -> int | None:
        return self.where.get(player, {}).get(table)

    # -- waiting lists (CASH-1) -------------------------------------------------------------
    def join_list(self, player: str, stake: str) -> int:
        """Put a player on a stake's list; returns their position (1 = next)."""
        queue = self.lists[self._stake(stake).name]
        if player in queue:
            raise DirectorError(f"{player} is already on the {stake} list", "CASH-1")
        queue.append(player)
        return len(queue)

    def leave_list(self, player: str, stake: str) -> None:
        """Players may leave the queue at any time (CASH-1); a seat held for them is freed."""
        queue = self.lists[self._stake(stake).name]
        if player not in queue:
            raise DirectorError(f"{player} is not on the {stake} list", "CASH-1")
        queue.remove(player)
        self.called.pop(player, None)

    def _held(self, table: int) -> set[int]:
        return {s for t, s in self.called.values() if t == table}

    def suggest_seat(self, stake: str) -> tuple[str, int, int] | None:
        """The next player on the list not yet called, and the table and seat they are
        called to (None: nobody waiting, or no free seat)."""
        queue = [p for p in self.lists[self._stake(stake).name] if p not in self.called]
        open_tables = [t for t in self.tables.values() if t.stake == stake
                       and len(t.players) + len(self._held(t.table)) < t.seats]
        for player in queue:
            fits = [t for t in open_tables if t.table not in self.where.get(player, {})]
            if not fits:
                continue
            played = self.history.get(player, set())
            best = min(fits, key=lambda t: (t.table not in played,
                                            len(t.players) + len(self._held(t.table)),
                                            t.table))
            taken = set(best.players) | self._held(best.table)
            seat = min(s for s in range(1, best.seats + 1) if s not in taken)
            return player, best.table, seat
        return None

    def call_next(self, stake: str) -> tuple[str, int, int]:
        """Call the next player to a free seat (CASH-1); the seat is held for them."""
        found = self.suggest_seat(stake)
        if found is None:
            why = ("nobody is waiting" if not self.lists[self._stake(stake).name]
                   else "no table of the game has a free seat")
            raise DirectorError(f"no one to call to {stake}: {why}", "CASH-1")
        player, table, seat = found
        self.called[player] = (table, seat)
        return found

    def call_to(self, stake: str, table: int) -> list[tuple[str, int]]:
        """Call the waiting players, in list order, to the free seats of ``table`` (a
        table just opened for a long list); returns (player, seat) for each call."""
        t = self._table(table)
        calls = []
        for player in self.lists[self._stake(stake).name]:
            taken = set(t.players) | self._held(table)
            free = [s for s in range(1, t.seats + 1) if s not in taken]
            if not free:
                break
            if player in self.called or table in self.where.get(player, {}):
                continue
            self.called[player] = (table, free[0])
            calls.append((player, free[0]))
        return calls

    # -- buy-ins (CASH-2, -3, -7, -8, -14) --------------------------------------------------
    def counter(self, player: str, now: float) -> int:
        """The ratholing counter today (UTC)."""
        return self._rathole.get((player, int(now // DAY_S)), 0)

    def resets(self, player: str, now: float) -> int:
        """The Banzai resets used today (UTC, CASH-14)."""
        return self._resets.get((player, int(now // DAY_S)), 0)

    def _banzai_return(self, player: str, stake: Stake, now: float) -> Departure | None:
        """CASH-14: the player's last departure from the Banzai stake, if it binds them."""
        left = [d for (p, _), d in self.departures.items()
                if p == player and d.stake == stake.name]
        last = max(left, key=lambda d: d.at, default=None)
        if last is None or now - last.at > RATHOLE_S or last.stack <= stake.high:
            return None
        return last

    def limits(self, player: str, table: int, now: float, reset: bool = False) -> Limits:
        """The buy-ins ``player`` may sit down with at ``table`` now, and the rule."""
        stake = self._stake(self._table(table).stake)
        low, high = stake.low, stake.high
        if stake.banzai:
            last = self._banzai_return(player, stake, now)
            if last is None or (reset and self.resets(player, now) < BANZAI_RESETS):
                return Limits(low, high, stake.rule)
            return Limits(last.stack, last.stack, "CASH-14")
        left = self.departures.get((player, table))
        if left is None or now - left.at > RATHOLE_S:
            return Limits(low, high, stake.rule)
        x = left.stack
        if x <= low:
            return Limits(low, high, stake.rule)
        rule = "CASH-3" if stake.no_rathole else "CASH-2"
        if x < high:
            return Limits(x, high, rule)
        if self.counter(player, now) <= 4 and not stake.no_rathole:
            return Limits(high, x, rule)
        return Limits(x, x, rule)

    def buy_in_limits(self, player: str, table: int, now: float) -> tuple[int, int]:
        """(min, max) buy-in for ``player`` sitting at ``table`` now (CASH-2)."""
        found = self.limits(player, table, now)
        return found.low, found.high

    def verify_sit_down(self, player: str, table: int, seat: int, amount: int,
                        now: float, reset: bool = False) -> None:
        t = self._table(table)
        stake = self._stake(t.stake)
        name = self.label(table)
        mine = self.where.get(player, {})
        if table in mine:
            raise DirectorError(f"{player} already sits at table {name}", "CASH-1")
        if mine and not stake.online:
            raise DirectorError(f"{player} already sits at table {self.label(min(mine))}: "
                                "change tables instead", "CASH-10")
        same = [x for x in mine if self.tables[x].stake == t.stake]
        if stake.banzai and len(same) >= stake.max_tables:
            raise DirectorError(f"{player} already plays {len(same)} {t.stake} tables, the "
                                f"most a player may", "CASH-13")
        if stake.banzai and reset and self._banzai_return(player, stake, now) is not None \
                and self.resets(player, now) >= BANZAI_RESETS:
            raise DirectorError(f"{player} has used the {BANZAI_RESETS} resets of today: "
                                "they rejoin with the stack they left with", "CASH-14")
        if not 1 <= seat <= t.seats or seat in t.players:
            raise DirectorError(f"seat {seat} of table {name} is not free", "CASH-1")
        held = self.called.get(player)
        if seat in self._held(table) and held != (table, seat):
            raise DirectorError(f"seat {seat} of table {name} is held for a player called "
                                "from the list", "CASH-1")
        lim = self.limits(player, table, now, reset)
        if not lim.low <= amount <= lim.high:
            exact = f"exactly {lim.low}" if lim.low == lim.high else \
                f"{lim.low} to {lim.high}"
            raise DirectorError(f"{player} may buy in for {exact} at table {name} now, not "
                                f"{amount}", lim.rule)

    def sit_down(self, player: str, table: int, seat: int, amount: int, now: float,
                 reset: bool = False) -> None:
        self.verify_sit_down(player, table, seat, amount, now, reset)
        self.count_return(player, table, now, reset)
        self.seated(player, table, seat, amount)

    def count_return(self, player: str, table: int, now: float, reset: bool = False) -> None:
        """Count a sit-down at ``table`` now on the ratholing counter (CASH-2) or the
        Banzai resets (CASH-14), as the limits read them before it."""
        stake = self._stake(self._table(table).stake)
        day = int(now // DAY_S)
        if stake.banzai:
            if reset and self._banzai_return(player, stake, now) is not None:
                self._resets[(player, day)] = self.resets(player, now) + 1
        else:
            left = self.departures.get((player, table))
            if left is not None and now - left.at <= RATHOLE_S and left.stack >= stake.high:
                self._rathole[(player, day)] = self.counter(player, now) + 1  # after reading

    def seated(self, player: str, table: int, seat: int, amount: int) -> None:
        """Record a player the table seated (as :meth:`sit_down`, without its checks: the
        table has already seated them, e.g. from its own keypad)."""
        t = self._table(table)
        t.players[seat] = player
        self.where.setdefault(player, {})[table] = seat
        self.history.setdefault(player, set()).add(table)
        self.initial[(player, table)] = amount
        self.called.pop(player, None)
        for queue in self.lists.values():
            if player in queue:
                queue.remove(player)

    def leave(self, player: str, stack: int, now: float, table: int | None = None
              ) -> Departure:
        """A player leaves ``table`` (their only one if None) with ``stack`` (CASH-2)."""
        mine = self.where.get(player, {})
        if not mine or (table is not None and table not in mine):
            raise DirectorError(f"{player} is not seated" + (
                f" at table {table}" if table is not None else ""), "CASH-1")
        if table is None:
            if len(mine) > 1:
                raise DirectorError(f"{player} sits at tables {sorted(mine)}: say which one "
                                    "they leave", "CASH-1")
            table = next(iter(mine))
        seat = mine.pop(table)
        if not mine:
            del self.where[player]
        t = self.tables[table]
        del t.players[seat]
        self._forget(player, table)
        d = Departure(player, table, stack, now, t.stake)
        self.departures[(player, table)] = d
        return d

    def _forget(self, player: str, table: int) -> None:
        key = (player, table)
        self.sitting_out.pop(key, None)
        self.passes.pop(key, None)
        self.orbit_due.discard(key)
        self.initial.pop(key, None)

    # -- sitting out (CASH-4, -5, -9) -------------------------------------------------------
    def sit_out(self, player: str, now: float, table: int | None = None) -> list[int]:
        """The player sits out at ``table`` (their only one if None); with the global
        sit-out option, at all their cash tables (CASH-5). Returns the tables newly sat
        out at."""
        mine = self.where.get(player, {})
        if not mine or (table is not None and table not in mine):
            raise DirectorError(f"{player} is not seated", "CASH-4")
        if player in self.global_sit_out:
            tables, out = sorted(mine), SitOut(now, GLOBAL_SIT_OUT_S, "CASH-5")
        else:
            tables = [table if table is not None else min(mine)]
            out = SitOut(now, SIT_OUT_S, "CASH-4")
        fresh = [t for t in tables if (player, t) not in self.sitting_out]
        for t in fresh:
            self.sitting_out[(player, t)] = out
            self.passes[(player, t)] = 0
        return fresh

    def sit_in(self, player: str, table: int | None = None) -> None:
        """The player plays again at ``table`` (all tables if None); coming back from a
        global sit-out comes back at every table (CASH-5)."""
        for key, out in list(self.sitting_out.items()):
            if key[0] == player and (table is None or key[1] == table or out.rule == "CASH-5"):
                del self.sitting_out[key]
                self.passes.pop(key, None)
                self.orbit_due.discard(key)

    def button_moved(self, table: int, previous: Positions, current: Positions) -> list[str]:
        """CASH-9 (live): count the button passing absent players' seats; returns those
        whose stack the floor removes now (second pass, and a waiting list exists)."""
        t = self._table(table)
        due = []
        for seat, player in sorted(t.players.items()):
            key = (player, table)
            if key in self.sitting_out and button_passed(previous, current, seat):
                self.passes[key] = self.passes.get(key, 0) + 1
                if self.passes[key] >= 2 and self.lists[t.stake]:
                    due.append(player)
                    self.orbit_due.add(key)
        return due

    def due_for_removal(self, now: float) -> list[Due]:
        """Players sitting out too long (CASH-4: 10 minutes, CASH-5: 500 s) or an orbit
        with a waiting list (CASH-9), by player and table."""
        out = {(p, t): Due(p, t, self.where[p][t], "CASH-9") for p, t in self.orbit_due}
        for (p, t), s in self.sitting_out.items():
            if now - s.since > s.limit_s:
                out[(p, t)] = Due(p, t, self.where[p][t], s.rule)
        return [out[k] for k in sorted(out)]

    # -- the auto top-up (CASH-6) -----------------------------------------------------------
    def top_ups(self, table: int, stacks: Mapping[int, int]) -> dict[int, int]:
        """After a hand: the chips to add per seat (``stacks``: seat -> stack) for the
        players with the auto top-up on, up to their initial buy-in here (CASH-6)."""
        t = self._table(table)
        out = {}
        for seat, stack in sorted(stacks.items()):
            player = t.players.get(seat)
            if player is None or player not in self.top_up:
                continue
            initial = self.initial.get((player, table), 0)
            if 0 < stack < initial:
                out[seat] = initial - stack
        return out

    # -- table changes (CASH-10) ------------------------------------------------------------
    def verify_change(self, player: str, to_table: int) -> None:
        mine = self.where.get(player, {})
        if not mine:
            raise DirectorError(f"{player} is not seated", "CASH-10")
        src = self.tables[min(mine)]
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
            del self.where[p][table]
            if not self.where[p]:
                del self.where[p]
            self._forget(p, table)
        self.called = {p: ts for p, ts in self.called.items() if ts[0] != table}
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

    # -- a restart --------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """Everything, as JSON types (tuple keys become rows)."""
        return {
            "stakes": [asdict(s) for s in self.stakes.values()],
            "tables": [[t.table, t.stake, t.seats, sorted(t.players.items()), t.name]
                       for t in self.tables.values()],
            "lists": self.lists,
            "called": [[p, t, s] for p, (t, s) in self.called.items()],
            "where": [[p, t, s] for p, mine in self.where.items() for t, s in mine.items()],
            "history": {p: sorted(ts) for p, ts in self.history.items()},
            "departures": [[d.player, d.table, d.stack, d.at, d.stake]
                           for d in self.departures.values()],
            "rathole": [[p, d, n] for (p, d), n in self._rathole.items()],
            "resets": [[p, d, n] for (p, d), n in self._resets.items()],
            "sitting_out": [[p, t, s.since, s.limit_s, s.rule]
                            for (p, t), s in self.sitting_out.items()],
            "passes": [[p, t, n] for (p, t), n in self.passes.items()],
            "orbit_due": sorted([p, t] for p, t in self.orbit_due),
            "initial": [[p, t, n] for (p, t), n in self.initial.items()],
            "top_up": sorted(self.top_up),
            "global_sit_out": sorted(self.global_sit_out),
            "rake": [[e.table, e.hand, e.cents] for e in self.rake.values()],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CashFloor:
        """The floor :meth:`to_json` wrote."""
        f = cls(tuple(Stake(**s) for s in data["stakes"]))
        for table, stake, seats, players, name in data["tables"]:
            f.tables[table] = CashTable(table, stake, seats, {s: p for s, p in players}, name)
        f.lists.update({k: list(v) for k, v in data["lists"].items()})
        f.called = {p: (t, s) for p, t, s in data["called"]}
        for p, t, s in data["where"]:
            f.where.setdefault(p, {})[t] = s
        f.history = {p: set(ts) for p, ts in data["history"].items()}
        f.departures = {(p, t): Departure(p, t, n, at, s)
                        for p, t, n, at, s in data["departures"]}
        f._rathole = {(p, d): n for p, d, n in data["rathole"]}
        f._resets = {(p, d): n for p, d, n in data["resets"]}
        f.sitting_out = {(p, t): SitOut(since, lim, rule)
                         for p, t, since, lim, rule in data["sitting_out"]}
        f.passes = {(p, t): n for p, t, n in data["passes"]}
        f.orbit_due = {(p, t) for p, t in data["orbit_due"]}
        f.initial = {(p, t): n for p, t, n in data["initial"]}
        f.top_up = set(data["top_up"])
        f.global_sit_out = set(data["global_sit_out"])
        f.rake = {(t, h): RakeEntry(t, h, n) for t, h, n in data["rake"]}
        return f
