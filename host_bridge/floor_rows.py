"""The floor model's rows as one ingest transaction sees them: plain values in memory,
read in a few queries and written back in a few statements.

:mod:`host_bridge.floor_model` says what an applied event changes (a table's level, a
seat's stack, a hand's board...); it changes it here, in a :class:`FloorRows`, which reads
what the batch's events will touch up front (:meth:`FloorRows.preload`: one query each for
the tables, their seats, their hands and the players being seated), anything else at its
first use, and writes every change at :meth:`FloorRows.write` with one ``executemany`` per
statement: each changed column set of a table or hand, the seats deleted, changed and
added, the new players, hands, stack and level records.

Why not the ORM (it was, until issue 20): an ORM object per row read, its state tracking
and its unit of work's flush cost ~70 µs per event at 5,000 events/s from 200 tables,
most of the bridge's budget of 100 µs; these rows are a handful of columns the ingest
alone writes (the cursor's own columns go out in :meth:`Ingest._sync`).

A :class:`FloorRows` lives for one transaction (or one savepoint's worth after a failure:
the caller drops it and starts a new one, which reads the store again).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from sqlalchemy import Table, bindparam, delete, insert, select, update
from sqlalchemy.orm import Session

from host_bridge.models import Hand, LevelRecord, Player, PokerTable, Seat, StackRecord

Values = dict[str, Any]

_TABLES: Final[Table] = PokerTable.__table__  # type: ignore[assignment]
_SEATS: Final[Table] = Seat.__table__  # type: ignore[assignment]
_HANDS: Final[Table] = Hand.__table__  # type: ignore[assignment]
_PLAYERS: Final[Table] = Player.__table__  # type: ignore[assignment]
_STACKS: Final[Table] = StackRecord.__table__  # type: ignore[assignment]
_LEVELS: Final[Table] = LevelRecord.__table__  # type: ignore[assignment]

#: a table's columns as read (all but its retained snapshot, read only where a state
#: message compares with it)
TABLE_COLUMNS: Final = tuple(c.name for c in _TABLES.columns if c.name != "snapshot")
#: a table at its first sight
NEW_TABLE: Final[Values] = {
    "online": False, "status_at": None, "boot": None, "acked_seq": 0, "level": 1,
    "paused": False, "hand_for_hand": False, "colour_up_at_level": None,
    "clock_on_seat": None, "closed": False, "hand_no": 0, "hand_in_progress": False,
    "last_event_ts": None, "house": None}


class Row:
    """One row's values, and which columns changed since it was read (or last written)."""

    __slots__ = ("changed", "new", "values")

    def __init__(self, values: Values, *, new: bool = False) -> None:
        self.values = values
        self.changed: set[str] = set()
        self.new = new  # not in the store yet: inserted whole at the write

    def __getitem__(self, column: str) -> Any:
        return self.values[column]

    def __setitem__(self, column: str, value: Any) -> None:
        self.values[column] = value
        if not self.new:
            self.changed.add(column)


#: a seat's (player id, stack)
SeatValue = tuple[str, int]


class FloorRows:
    """The floor-model rows of one transaction (see the module's docstring)."""

    def __init__(self, session: Session) -> None:
        self._session = session
        self.tables: dict[str, Row] = {}
        self._snapshots: dict[str, str | None] = {}
        self._seats: dict[str, dict[int, SeatValue]] = {}  # table -> seat -> now
        self._seats_stored: dict[str, dict[int, SeatValue]] = {}  # as in the store
        self._hands: dict[tuple[str, int], Row | None] = {}  # None: no such hand stored
        self._players: set[str] = set()  # known to be stored (or added)
        self._players_read: set[str] = set()  # looked up in the store
        self._new_players: list[Values] = []
        self._records: list[tuple[Table, Values]] = []  # stack and level records

    def connection(self) -> Any:
        """The transaction's connection (for what the caller reads itself)."""
        return self._session.connection()

    # ------------------------------------------------------------------ reading
    def preload(self, tables: Iterable[str], seated: Iterable[str], handed: Iterable[str],
                started: Iterable[tuple[str, int]], players: Iterable[str],
                states: Iterable[str] = ()) -> None:
        """Read up front what a batch's events will touch, one query per kind: the rows
        of ``tables``, the seats of ``seated``, the open hands of ``handed`` and the hands
        ``started`` names (a restarted hand replaces its row), which of ``players`` exist,
        and the snapshots of ``states``."""
        conn = self._session.connection()
        wanted = [t for t in set(tables) if t not in self.tables]
        if wanted:
            for row in conn.execute(select(*(_TABLES.c[c] for c in TABLE_COLUMNS))
                                    .where(_TABLES.c.id.in_(wanted))).mappings():
                self.tables[row["id"]] = Row(dict(row))
        want_snap = [t for t in set(states) if t not in self._snapshots]
        if want_snap:
            got: dict[str, str | None] = {
                table_id: snapshot for table_id, snapshot in conn.execute(
                    select(_TABLES.c.id, _TABLES.c.snapshot)
                    .where(_TABLES.c.id.in_(want_snap)))}
            for table_id in want_snap:
                self._snapshots[table_id] = got.get(table_id)
        want_seats = [t for t in set(seated) if t not in self._seats]
        if want_seats:
            self._read_seats(want_seats)
        open_tables = list(set(handed))
        keys = {k for k in started if k not in self._hands}
        if open_tables or keys:
            condition = (_HANDS.c.table_id.in_(open_tables)
                         & (_HANDS.c.status == "in_progress"))
            if keys:  # a superset of the keys' rows: their tables' hands with those numbers
                condition = condition | (_HANDS.c.table_id.in_({t for t, _ in keys})
                                         & _HANDS.c.hand_no.in_({n for _, n in keys}))
            for row in conn.execute(select(_HANDS).where(condition)).mappings():
                key = (row["table_id"], row["hand_no"])
                if self._hands.get(key) is None:
                    self._hands[key] = Row(dict(row))
            for key in keys:
                self._hands.setdefault(key, None)
        want_players = [p for p in set(players) if p not in self._players_read]
        if want_players:
            self._players_read.update(want_players)
            self._players.update(conn.execute(select(_PLAYERS.c.id).where(
                _PLAYERS.c.id.in_(want_players))).scalars())

    def _read_seats(self, tables: list[str]) -> None:
        for table_id in tables:
            self._seats[table_id] = {}
        for table_id, seat, player, stack in self._session.connection().execute(
                select(_SEATS.c.table_id, _SEATS.c.seat, _SEATS.c.player_id, _SEATS.c.stack)
                .where(_SEATS.c.table_id.in_(tables))):
            self._seats[table_id][seat] = (player, stack)
        for table_id in tables:
            self._seats_stored[table_id] = dict(self._seats[table_id])

    def table(self, table_id: str) -> Row:
        """The table's row; a table never seen before is stored now (its seats, hands
        and records refer to it)."""
        row = self.tables.get(table_id)
        if row is None:
            self.preload([table_id], (), (), (), ())
            row = self.tables.get(table_id)
        if row is None:
            values = {"id": table_id, **NEW_TABLE}
            self._session.connection().execute(insert(_TABLES), [values])
            row = self.tables[table_id] = Row(values)
        return row

    def snapshot(self, table_id: str) -> str | None:
        """The table's retained state as stored (or as changed in this transaction)."""
        if table_id not in self._snapshots:
            self.preload((), (), (), (), (), [table_id])
        return self._snapshots[table_id]

    def set_snapshot(self, table_id: str, snapshot: str) -> None:
        """Keep the table's new retained state."""
        self._snapshots[table_id] = snapshot
        self.table(table_id)["snapshot"] = snapshot

    def seats(self, table_id: str) -> dict[int, SeatValue]:
        """The table's seats (seat -> player, stack), changed in place by the caller."""
        seats = self._seats.get(table_id)
        if seats is None:
            self._read_seats([table_id])
            seats = self._seats[table_id]
        return seats

    def hand(self, table_id: str, hand_no: int) -> Row | None:
        """The table's hand ``hand_no``, if one is stored (or started in this batch)."""
        key = (table_id, hand_no)
        if key not in self._hands:
            row = self._session.connection().execute(select(_HANDS).where(
                _HANDS.c.table_id == table_id, _HANDS.c.hand_no == hand_no)).mappings().first()
            self._hands[key] = None if row is None else Row(dict(row))
        return self._hands[key]

    # ------------------------------------------------------------------ changing
    def add_hand(self, values: Values) -> Row:
        """A new hand's row; one stored under the same (table, hand_no) is deleted (the
        table started the hand again: the new start stands)."""
        key = (values["table_id"], values["hand_no"])
        old = self.hand(*key)
        if old is not None and not old.new:
            self._session.connection().execute(delete(_HANDS).where(
                _HANDS.c.table_id == key[0], _HANDS.c.hand_no == key[1]))
        row = self._hands[key] = Row(values, new=True)
        return row

    def ensure_player(self, player: str, ts: float) -> None:
        """Store the player at their first sight."""
        if player not in self._players_read:
            self.preload((), (), (), (), [player])
        if player not in self._players:
            self._players.add(player)
            self._new_players.append({"id": player, "first_seen_ts": ts})

    def record_stack(self, table_id: str, seq: int, seat: int, player: str | None,
                     chips: int, hand_no: int | None) -> None:
        """One line of the stacks' history."""
        self._records.append((_STACKS, {"table_id": table_id, "seq": seq, "seat": seat,
                                        "player_id": player, "chips": chips,
                                        "hand_no": hand_no}))

    def record_level(self, table_id: str, seq: int, level: int, ts: float) -> None:
        """One line of the levels' history."""
        self._records.append((_LEVELS, {"table_id": table_id, "seq": seq, "level": level,
                                        "ts": ts}))

    # ------------------------------------------------------------------ writing
    def write(self) -> None:
        """Write every change since the last write, one statement per kind of change
        (parents first: players before seats)."""
        conn = self._session.connection()
        if self._new_players:
            conn.execute(insert(_PLAYERS), self._new_players)
            self._new_players = []
        self._write_seats(conn)
        new_hands = [row for row in self._hands.values() if row is not None and row.new]
        if new_hands:
            conn.execute(insert(_HANDS), [row.values for row in new_hands])
            for row in new_hands:  # stored: a later change updates its changed columns
                row.new = False
        _update_changed(conn, _HANDS, [r for r in self._hands.values() if r is not None],
                        ("table_id", "hand_no"))
        records: dict[Table, list[Values]] = {}
        for table, values in self._records:
            records.setdefault(table, []).append(values)
        for table, rows in records.items():
            conn.execute(insert(table), rows)
        self._records = []
        _update_changed(conn, _TABLES, list(self.tables.values()), ("id",))

    def _write_seats(self, conn: Any) -> None:
        gone: list[Values] = []
        moved: list[Values] = []
        added: list[Values] = []
        for table_id, now in self._seats.items():
            stored = self._seats_stored[table_id]
            if now == stored:
                continue
            for seat, value in stored.items():
                if seat not in now:
                    gone.append({"t": table_id, "s": seat})
                elif now[seat] != value:
                    moved.append({"t": table_id, "s": seat, "p": now[seat][0],
                                  "c": now[seat][1]})
            added += [{"table_id": table_id, "seat": seat, "player_id": player,
                       "stack": stack}
                      for seat, (player, stack) in now.items() if seat not in stored]
            self._seats_stored[table_id] = dict(now)
        if gone:
            conn.execute(delete(_SEATS).where(_SEATS.c.table_id == bindparam("t"),
                                              _SEATS.c.seat == bindparam("s")), gone)
        if moved:
            conn.execute(update(_SEATS).where(
                _SEATS.c.table_id == bindparam("t"), _SEATS.c.seat == bindparam("s"))
                .values(player_id=bindparam("p"), stack=bindparam("c")), moved)
        if added:
            conn.execute(insert(_SEATS), added)


def _update_changed(conn: Any, table: Table, rows: list[Row], key: tuple[str, ...]) -> None:
    """One executemany per set of changed columns, by the ``key`` columns; the rows are
    clean after."""
    groups: dict[frozenset[str], list[Values]] = {}
    for row in rows:
        if row.changed:
            params = {f"_{c}": row.values[c] for c in (*key, *row.changed)}
            groups.setdefault(frozenset(row.changed), []).append(params)
            row.changed = set()
    for columns, params_list in groups.items():
        conn.execute(update(table).where(*(table.c[k] == bindparam(f"_{k}") for k in key))
                     .values({c: bindparam(f"_{c}") for c in columns}), params_list)


__all__ = ["NEW_TABLE", "TABLE_COLUMNS", "FloorRows", "Row", "SeatValue"]
