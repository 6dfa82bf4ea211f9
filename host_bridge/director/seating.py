"""The floor's seating chart: seat draw, late entries, balancing, breaking tables and the
final-table redraw (TOURN-2, -4, -19, -20, -21, -28; BTN-4, BTN-7).

:class:`Floor` knows which player sits where and, from the tables' reports, each table's
last hand layout (:class:`controller.rules.button.Positions`). From that it predicts the
next hand the way ``button.next_hand`` deals it (BTN-5): the next BB is the first player
clockwise after the last BB, the next SB seat is the last BB's seat, and the next button is
the last SB position; seats strictly between that button and that SB are "between the SB
and the button", where a new player would not be dealt (BTN-7).

Commands follow the house style: ``suggest_*`` return :class:`Move` lists without
changing anything; :meth:`Floor.apply` carries one out after verifying it; ``can_x``
answers without raising. A refused command changes nothing.

Decisions where RULES.md is [interp] or silent (read literally, the CONF key decides):

* TOURN-19 ``bb_to_worst``: the mover is the player due the BB next at the table with the
  most players (ties: the lowest table id); the seat is the open seat at the table with the
  fewest players (ties: lowest id) that will post the BB soonest: the first open seat
  clockwise after the short table's next SB seat, never that SB seat, never between the
  SB and the button.
* TOURN-20 ``random_far_from_bb``: a random player from a random table among those with
  the most players, to a random table among those with the fewest, at the allowed open
  seat that reaches the BB last.
* When to balance [conv, TOURN-20]: whenever the largest and smallest tables differ by 2
  or more. TOURN-19: a table 3 or more players short of the largest stops
  (:meth:`Floor.stopped_tables`) until balanced.
* A table with no hand played yet predicts from its drawn button: the first player after
  the button is the next SB.
* TOURN-21: a broken table's players are dealt seats by a random draw; each goes, in
  random order, to a table with the fewest players (random among ties), to a random open
  seat there that is not between the SB and the button if one exists (otherwise any open
  seat: the player waits for the BB, BTN-7).
* TOURN-4 late entries and re-entries: the table with the fewest players (random among
  ties), a random open seat not between the SB and the button; never such a seat.
* BTN-5 ``stuck_button`` (online): the next button stays on the last player before the
  next SB seat, so the seats "between the SB and the button" run from that player.
* TOURN-4 "stacks go into play once every seat with the same number has been assigned"
  is a query (:meth:`Floor.seat_number_complete`); the floor staff act on it.
* TOURN-28 ``seat_10``: the button on the highest-numbered seat of the final table
  [interp]; ``draw``: the button drawn among the occupied seats.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from controller.rules.button import Positions
from controller.rules.config import RulesProfile

from .errors import SeatingError


@dataclass(frozen=True, slots=True)
class Move:
    """One player moved to a seat; ``from_table`` None for a new entry."""

    player: str
    from_table: int | None
    from_seat: int | None
    to_table: int
    to_seat: int
    rule: str


@dataclass(slots=True)
class TableState:
    """One table as the floor sees it between reports."""

    table: int
    seats: int
    players: dict[int, str] = field(default_factory=dict)  # seat -> player
    button: int = 1  # drawn button (BTN-4) until a hand is played
    last: Positions | None = None
    in_hand: bool = False
    newcomers: set[str] = field(default_factory=set)  # seated since the last hand began

    def open_seats(self) -> list[int]:
        return [s for s in range(1, self.seats + 1) if s not in self.players]


def _after(a: int, x: int, seats: int) -> int:
    """How far ``x`` is clockwise from ``a`` (1..seats)."""
    return (x - a - 1) % seats + 1


def _clockwise(seats: Iterable[int], start: int, size: int) -> list[int]:
    return sorted(seats, key=lambda s: _after(start, s, size))


class Floor:
    """Tables, seats and who sits where; pure state, commands verified before they apply."""

    def __init__(self, profile: RulesProfile, tables: Mapping[int, int]) -> None:
        """``tables``: table id -> number of seats (2..10)."""
        self.profile = profile
        self.tables: dict[int, TableState] = {}
        self.where: dict[str, tuple[int, int]] = {}
        self.break_order: list[int] = sorted(tables)  # TOURN-21, announced; see announce
        self.closed: set[int] = set()  # broken tables: nobody is seated there again
        for t, n in tables.items():
            self.add_table(t, n)

    # -- the chart ------------------------------------------------------------------------
    def add_table(self, table: int, seats: int) -> None:
        """Open a table (or reopen a broken one, empty)."""
        if table in self.closed and not self.tables[table].players:
            self.closed.discard(table)
            self.tables[table] = TableState(table, seats)
            self.break_order.append(table)
            return
        if table in self.tables:
            raise SeatingError(f"table {table} is already on the floor", "TOURN-21")
        if not 2 <= seats <= 10:
            raise SeatingError(f"a table has 2 to 10 seats, not {seats}", "BTN-3")
        self.tables[table] = TableState(table, seats)
        if table not in self.break_order:
            self.break_order.append(table)

    def table(self, table: int) -> TableState:
        try:
            return self.tables[table]
        except KeyError:
            raise SeatingError(f"there is no table {table} on the floor", "TOURN-2") from None

    def counts(self) -> dict[int, int]:
        """Players per open table (broken tables are closed)."""
        return {t: len(ts.players) for t, ts in self.tables.items() if t not in self.closed}

    def players(self) -> list[str]:
        return sorted(self.where)

    def seat_of(self, player: str) -> tuple[int, int]:
        try:
            return self.where[player]
        except KeyError:
            raise SeatingError(f"{player} is not seated", "TOURN-2") from None

    def check(self) -> None:
        """The chart's invariants: each player seated once, no table over its seats."""
        seen: dict[str, tuple[int, int]] = {}
        for t, ts in self.tables.items():
            if len(ts.players) > ts.seats or any(not 1 <= s <= ts.seats for s in ts.players):
                raise AssertionError(f"table {t} is over its {ts.seats} seats")
            for s, p in ts.players.items():
                if p in seen:
                    raise AssertionError(f"{p} is seated twice: {seen[p]} and {(t, s)}")
                seen[p] = (t, s)
        if seen != self.where:
            raise AssertionError("the player index disagrees with the tables")

    # -- reports from the tables -----------------------------------------------------------
    def set_button(self, table: int, seat: int) -> None:
        """The drawn button of a table before its first hand (BTN-4)."""
        ts = self.table(table)
        if not 1 <= seat <= ts.seats:
            raise SeatingError(f"table {table} has no seat {seat}", "BTN-4")
        ts.button, ts.last = seat, None

    def hand_started(self, table: int) -> None:
        ts = self.table(table)
        if ts.in_hand:
            raise SeatingError(f"table {table} is already playing a hand", "DEAL-4")
        ts.in_hand = True
        ts.newcomers.clear()

    def hand_ended(self, table: int, positions: Positions) -> None:
        ts = self.table(table)
        if not ts.in_hand:
            raise SeatingError(f"table {table} reported the end of a hand it had not started",
                               "DEAL-4")
        ts.in_hand, ts.last = False, positions

    def unseat(self, player: str) -> tuple[int, int]:
        """Remove a player (eliminated, excluded); returns where they sat."""
        t, s = self.seat_of(player)
        del self.tables[t].players[s]
        del self.where[player]
        self.tables[t].newcomers.discard(player)
        return t, s

    # -- position prediction (BTN-5, BTN-7) -------------------------------------------------
    def _anchor(self, ts: TableState) -> int:
        """The next hand's SB seat: the next BB is the first player clockwise after it."""
        if ts.last is not None:
            return ts.last.big_blind
        occupied = [s for s in ts.players if s != ts.button]
        return _clockwise(occupied, ts.button, ts.seats)[0] if occupied else ts.button

    def between_sb_and_button(self, table: int) -> set[int]:
        """Seats where a new player would sit between the SB and the button next hand."""
        ts = self.table(table)
        if ts.last is None:
            return set()
        start, stop = ts.last.sb_position, ts.last.big_blind
        if self.profile["tourn.button_mode"] == "stuck_button":  # BTN-5 (003): the button
            old = [s for s, p in ts.players.items()  # stays on the last old player before
                   if s != stop and p not in ts.newcomers]  # the SB seat
            if old:
                start = _clockwise(old, stop, ts.seats)[-1]
        return {s for s in range(1, ts.seats + 1)
                if 0 < _after(start, s, ts.seats) < _after(start, stop, ts.seats)}

    def seat_number_complete(self, seat: int) -> bool:
        """TOURN-4: whether seat ``seat`` is assigned at every open table that has it, so
        the alternates' stacks for that seat number may go into play together."""
        tables = [ts for t, ts in self.tables.items()
                  if t not in self.closed and seat <= ts.seats]
        return bool(tables) and all(seat in ts.players for ts in tables)

    def next_big_blind(self, table: int) -> str | None:
        """The player due the BB next hand (the first player after the next SB seat)."""
        ts = self.table(table)
        if not ts.players:
            return None
        anchor = self._anchor(ts)
        order = _clockwise([s for s in ts.players if s != anchor] or list(ts.players), anchor,
                           ts.seats)
        return ts.players[order[0]]

    def allowed_seats(self, table: int) -> list[int]:
        """Open seats a new player may take: not between the SB and the button (BTN-7)."""
        ts = self.table(table)
        banned = self.between_sb_and_button(table)
        return [s for s in ts.open_seats() if s not in banned]

    def worst_seats(self, table: int) -> list[int]:
        """Allowed open seats, the one that posts the BB soonest first; never the SB seat."""
        ts = self.table(table)
        anchor = self._anchor(ts)
        seats = [s for s in self.allowed_seats(table) if s != anchor or ts.last is None]
        return _clockwise(seats, anchor, ts.seats)

    # -- commands ------------------------------------------------------------------------
    def verify_move(self, move: Move) -> None:
        """Raise unless ``move`` can be carried out now."""
        if move.from_table is None:
            if move.player in self.where:
                raise SeatingError(f"{move.player} is already seated at table "
                                   f"{self.where[move.player][0]}", "TOURN-6")
        else:
            if self.where.get(move.player) != (move.from_table, move.from_seat):
                raise SeatingError(f"{move.player} is not in seat {move.from_seat} of table "
                                   f"{move.from_table}", move.rule)
            if self.tables[move.from_table].in_hand:
                raise SeatingError(f"table {move.from_table} is playing a hand; "
                                   f"{move.player} moves when it ends", "TOURN-19")
        ts = self.table(move.to_table)
        if move.to_table in self.closed:
            raise SeatingError(f"table {move.to_table} has been broken", "TOURN-21")
        if not 1 <= move.to_seat <= ts.seats:
            raise SeatingError(f"table {move.to_table} has no seat {move.to_seat}", move.rule)
        if move.to_seat in ts.players and ts.players[move.to_seat] != move.player:
            raise SeatingError(f"seat {move.to_seat} of table {move.to_table} is taken by "
                               f"{ts.players[move.to_seat]}", move.rule)
        if move.rule == "TOURN-4" and move.to_seat in self.between_sb_and_button(ts.table):
            raise SeatingError(f"seat {move.to_seat} of table {move.to_table} is between the "
                               "small blind and the button", "TOURN-4")

    def can_apply(self, move: Move) -> bool:
        try:
            self.verify_move(move)
        except SeatingError:
            return False
        return True

    def apply(self, move: Move) -> Move:
        """Carry out a move (or seat a new entry) after verifying it."""
        self.verify_move(move)
        if move.from_table is not None and move.from_seat is not None:
            del self.tables[move.from_table].players[move.from_seat]
            self.tables[move.from_table].newcomers.discard(move.player)
        ts = self.tables[move.to_table]
        ts.players[move.to_seat] = move.player
        ts.newcomers.add(move.player)
        self.where[move.player] = (move.to_table, move.to_seat)
        return move

    def apply_all(self, moves: Sequence[Move]) -> None:
        """Carry out several moves as one: all verified in order on a copy first."""
        trial = self.copy()
        for m in moves:
            trial.apply(m)
        for m in moves:
            self.apply(m)

    def copy(self) -> Floor:
        out = Floor(self.profile, {})
        out.break_order = list(self.break_order)
        out.closed = set(self.closed)
        for t, ts in self.tables.items():
            out.tables[t] = TableState(t, ts.seats, dict(ts.players), ts.button, ts.last,
                                       ts.in_hand, set(ts.newcomers))
        out.where = dict(self.where)
        return out

    # -- the draw (TOURN-2) and late entries (TOURN-4) -------------------------------------
    def draw(self, players: Sequence[str], rng: random.Random) -> list[Move]:
        """The random seat draw at the start over every open table: players dealt round
        the tables in random order (sizes differ by one at most), seats at random."""
        if self.where:
            raise SeatingError("the draw is made once, before anyone is seated", "TOURN-2")
        if len(set(players)) != len(players):
            raise SeatingError("a player is in the draw twice", "TOURN-6")
        capacity = sum(ts.seats for ts in self.tables.values())
        if len(players) > capacity:
            raise SeatingError(f"{len(players)} players but {capacity} seats", "TOURN-2")
        order = list(players)
        rng.shuffle(order)
        used = sorted(self.tables.values(), key=lambda ts: ts.table)
        free = {ts.table: rng.sample(range(1, ts.seats + 1), ts.seats) for ts in used}
        moves = []
        i = 0
        for p in order:  # dealt round the tables: sizes differ by one at most
            while not free[used[i % len(used)].table]:
                i += 1
            t = used[i % len(used)].table
            moves.append(Move(p, None, None, t, free[t].pop(), "TOURN-2"))
            i += 1
        self.apply_all(moves)
        return moves

    def suggest_late_entry(self, player: str, rng: random.Random) -> Move:
        """TOURN-4: a seat for a late entry or re-entry (never between the SB and button)."""
        if player in self.where:
            raise SeatingError(f"{player} is already seated", "TOURN-6")
        counts = self.counts()
        for size in sorted(set(counts.values())):
            tables = [t for t, c in counts.items() if c == size and self.allowed_seats(t)]
            if tables:
                t = rng.choice(sorted(tables))
                return Move(player, None, None, t, rng.choice(self.allowed_seats(t)), "TOURN-4")
        raise SeatingError("no open seat outside the blinds and the button on the floor; "
                           "add a table or wait", "TOURN-4")

    def seat_late_entry(self, player: str, rng: random.Random) -> Move:
        return self.apply(self.suggest_late_entry(player, rng))

    # -- balancing (TOURN-19/20) -----------------------------------------------------------
    def stopped_tables(self) -> list[int]:
        """TOURN-19: tables at least 3 players short of the largest table stop playing."""
        counts = {t: c for t, c in self.counts().items() if c > 0}
        if not counts:
            return []
        top = max(counts.values())
        return sorted(t for t, c in counts.items() if top - c >= 3)

    def suggest_balance(self, rng: random.Random) -> list[Move]:
        """Moves that bring every occupied table within one player of the others."""
        trial = self.copy()
        moves: list[Move] = []
        mode = self.profile.text("tourn.balance_seat")
        while True:
            counts = {t: c for t, c in trial.counts().items() if c > 0}
            if len(counts) < 2 or max(counts.values()) - min(counts.values()) < 2:
                return moves
            top, low = max(counts.values()), min(counts.values())
            bigs = sorted(t for t, c in counts.items() if c == top)
            smalls = sorted(t for t, c in counts.items() if c == low)
            if mode == "bb_to_worst":
                src, dst = bigs[0], smalls[0]
                player = trial.next_big_blind(src)
                seats = trial.worst_seats(dst)
            else:
                src, dst = rng.choice(bigs), rng.choice(smalls)
                player = rng.choice(sorted(trial.tables[src].players.values()))
                seats = trial.worst_seats(dst)[::-1]
            if player is None or not seats:
                seats = trial.tables[dst].open_seats()  # only seats that wait for the BB
            if player is None or not seats:
                return moves
            t, s = trial.where[player]
            move = Move(player, t, s, dst, seats[0],
                        "TOURN-19" if mode == "bb_to_worst" else "TOURN-20")
            trial.apply(move)
            moves.append(move)

    # -- breaking tables (TOURN-21) --------------------------------------------------------
    def announce_break_order(self, order: Sequence[int]) -> None:
        """TOURN-21: the order tables break in, announced when registration closes."""
        if sorted(order) != sorted(self.tables):
            raise SeatingError("the break order lists every table once", "TOURN-21")
        self.break_order = list(order)

    def table_to_break(self) -> int | None:
        """The next table to break: when the players fit at one table fewer."""
        live = [t for t in self.break_order if self.tables[t].players]
        if len(live) < 2:
            return None
        players = len(self.where)
        seats_without = sum(self.tables[t].seats for t in live) - self.tables[live[0]].seats
        return live[0] if players <= seats_without else None

    def suggest_break(self, table: int, rng: random.Random) -> list[Move]:
        """TOURN-21: the broken table's players reseated by a random draw."""
        ts = self.table(table)
        if ts.in_hand:
            raise SeatingError(f"table {table} breaks when its hand ends", "TOURN-21")
        trial = self.copy()
        trial.break_order = [t for t in trial.break_order if t != table]
        trial.closed.add(table)
        others = [t for t in trial.tables if t not in trial.closed]
        movers = sorted(ts.players.values())
        rng.shuffle(movers)
        if len(movers) > sum(len(trial.tables[t].open_seats()) for t in others):
            raise SeatingError(f"the other tables cannot seat table {table}'s players",
                               "TOURN-21")
        moves = []
        for p in movers:
            counts = {t: len(trial.tables[t].players) for t in others
                      if trial.tables[t].open_seats()}
            low = min(counts.values())
            dst = rng.choice(sorted(t for t, c in counts.items() if c == low))
            seats = trial.allowed_seats(dst) or trial.tables[dst].open_seats()
            f_t, f_s = trial.where[p]
            move = Move(p, f_t, f_s, dst, rng.choice(seats), "TOURN-21")
            trial.apply(move)
            moves.append(move)
        return moves

    def break_table(self, table: int, rng: random.Random) -> list[Move]:
        moves = self.suggest_break(table, rng)
        self.apply_all(moves)
        self.break_order = [t for t in self.break_order if t != table]
        self.closed.add(table)
        return moves

    # -- final table (TOURN-28) ------------------------------------------------------------
    def final_table_redraw(self, table: int, rng: random.Random) -> tuple[list[Move], int]:
        """Everyone left redrawn at ``table``; returns the moves and the button seat."""
        ts = self.table(table)
        if table in self.closed:
            raise SeatingError(f"table {table} has been broken", "TOURN-28")
        if any(t.in_hand for t in self.tables.values()):
            raise SeatingError("the final-table redraw waits for every hand to end",
                               "TOURN-28")
        players = sorted(self.where)
        if len(players) > ts.seats:
            raise SeatingError(f"{len(players)} players do not fit at table {table}'s "
                               f"{ts.seats} seats", "TOURN-28")
        rng.shuffle(players)
        seats = rng.sample(range(1, ts.seats + 1), len(players))
        moves = [Move(p, *self.where[p], table, s, "TOURN-28")
                 for p, s in zip(players, seats, strict=True)]
        for t in self.tables.values():
            t.players.clear()
            t.newcomers.clear()
        self.where.clear()
        self.closed = set(self.tables) - {table}
        self.break_order = [table]
        for m in moves:
            ts.players[m.to_seat] = m.player
            self.where[m.player] = (table, m.to_seat)
        if self.profile["tourn.final_table_button"] == "seat_10":
            button = ts.seats
        else:
            button = rng.choice(sorted(ts.players))
        self.set_button(table, button)
        return moves, button
