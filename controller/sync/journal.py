"""The journal: every accepted table event, appended to SQLite (WAL, ``synchronous=FULL``)
before it is displayed or sent (DESIGN.md, How data flows, step 4).

Each event gets the table's next ``seq`` (strictly increasing for the life of the table,
across boots) and this boot's id, and is stored as the exact bytes that go on the wire,
so a resend is the original. A batch of events, and the reply to the command that caused
them, commit in one transaction: after a power cut either all of it happened or none.

The journal also keeps the table's durable state (:mod:`controller.sync.ledger`) with a
checkpoint written whenever no hand is in progress; opening the journal replays what came
after the checkpoint, and :meth:`Journal.void_open_hand` rolls a hand that a crash cut
short back to its starting stacks (CRASH-1).

Retention (:class:`Retention`): a table runs for months, so :meth:`Journal.prune_history`
deletes the oldest events once they are both acknowledged by the host and covered by the
state checkpoint, keeping the last ``hands`` hands and every event younger than ``days``;
the seq carries on from the highest ever written, pruned or not.

This class is synchronous and owns its connection; :class:`~controller.sync.outbox.Outbox`
runs it on one dedicated thread so the fsync never blocks the event loop.
"""

from __future__ import annotations

import secrets
import sqlite3
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from controller.events import (
    BurnedCard,
    CardSeen,
    HandVoided,
    HoleCardsDealt,
    JournalEvent,
    PublicEvent,
    PublicState,
)
from controller.sync.errors import JournalError, MessageRejected
from controller.sync.journal_lock import JournalLock
from controller.sync.ledger import fold
from controller.sync.messages import EventMessage, SecureCards, parse_message

_SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    seq INTEGER PRIMARY KEY, boot TEXT NOT NULL, ts REAL NOT NULL, kind TEXT NOT NULL,
    public BLOB NOT NULL, secure BLOB);
CREATE TABLE IF NOT EXISTS outbox (seq INTEGER PRIMARY KEY);
CREATE TABLE IF NOT EXISTS replies (command_id TEXT PRIMARY KEY, reply BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS boots (boot TEXT PRIMARY KEY, started REAL NOT NULL,
    next_seq INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS hand_starts ON events (seq) WHERE kind = 'hand_started';
"""
# The digest of each answered command's canonical JSON, by command_id: a repeated id with
# the same command is a retry (answered with the stored reply), with another command it is
# refused. Created on open, so a journal written before it gains the table; a reply kept
# from before has no digest and is answered as a retry.
_DIGESTS = """
CREATE TABLE IF NOT EXISTS command_digests (command_id TEXT PRIMARY KEY,
    digest TEXT NOT NULL);
"""
_WAL_LIMIT = 8 << 20  # bytes the WAL file is cut back to after a checkpoint
_DAY = 86_400.0


@dataclass(frozen=True, slots=True)
class Retention:
    """How much acknowledged history the journal keeps; older events are pruned.

    An event goes only when all of these hold: the host has acknowledged it, the state
    checkpoint covers it (so no restart, and no CRASH-1 rollback, needs it), it is older
    than the last ``hands`` hands, and it is older than ``days``. Command replies older
    than ``days`` go too. ``batch`` bounds the rows deleted per transaction, so an append
    never waits long behind a prune.
    """

    hands: int = 1000
    days: float = 7.0
    batch: int = 500

    def __post_init__(self) -> None:
        if self.hands < 0 or self.days < 0 or self.batch < 1:
            raise ValueError(f"retention needs hands >= 0, days >= 0 and batch >= 1, not "
                             f"{self.hands}, {self.days}, {self.batch}")


KEEP = Retention()  # the default: 1000 hands and 7 days of acknowledged history


@dataclass(frozen=True, slots=True)
class Parcel:
    """One journaled event as it goes out: the public payload and, for hole cards, the
    secure one (same seq)."""

    seq: int
    public: bytes
    secure: bytes | None = None


def new_boot_id() -> str:
    """A boot id: the start time in seconds and a random suffix, e.g. ``1763800000-3fa2c1``."""
    return f"{int(time.time())}-{secrets.token_hex(3)}"


class Journal:
    """The table's append-only event log with its outbox, command replies and state.

    Opened for writing (the default) it holds the journal's lock
    (:mod:`controller.sync.journal_lock`) until :meth:`close`, taken before anything is
    read or written, so a second controller on the same journal gets
    :class:`~controller.sync.journal_lock.JournalInUse` naming the first and never voids
    its hand. ``read_only=True`` opens it for reading alone, without the lock: what was
    journaled, the state, the outbox; every write is refused.
    """

    def __init__(self, path: str | Path, *, table: str, boot: str | None = None,
                 clock: Callable[[], float] = time.time,
                 retention: Retention = KEEP, read_only: bool = False,
                 owner: str | None = None) -> None:
        self.table = table
        self.boot = boot or new_boot_id()
        self.retention = retention
        self.read_only = read_only
        self._clock = clock
        self._lock: JournalLock | None = None
        if read_only:
            self._open_read_only(path)
            return
        if str(path) != ":memory:":  # one process per journal: before anything is read
            self._lock = JournalLock(path, boot=self.boot, owner=owner)
            self._lock.acquire()
        try:
            self._open(path, table, clock)
        except BaseException:
            if self._lock is not None:
                self._lock.release()
            raise

    def _open(self, path: str | Path, table: str, clock: Callable[[], float]) -> None:
        try:
            self._db = sqlite3.connect(str(path), isolation_level=None,
                                       check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute(f"PRAGMA journal_size_limit={_WAL_LIMIT}")
            self._db.executescript(_SCHEMA)
            self._db.executescript(_DIGESTS)
            with self._transaction():
                owner = self._meta("table")
                if owner is None:
                    self._set_meta("table", table)
                elif owner != table:
                    raise JournalError(f"{path} is the journal of table {owner}, not {table}")
                self.pruned = int(self._meta("pruned") or 0)  # every seq up to it is gone
                self.last_seq = max(self.pruned, int(self._db.execute(
                    "SELECT coalesce(max(seq), 0) FROM events").fetchone()[0]))
                self._db.execute("INSERT INTO boots VALUES (?, ?, ?)",
                                 (self.boot, clock(), self.last_seq + 1))
            self.acked = int(self._meta("acked") or 0)
            self.state = self._recover_state()
        except sqlite3.Error as exc:
            raise JournalError(f"cannot open the journal {path}: {exc}") from None

    def _open_read_only(self, path: str | Path) -> None:
        """Open an existing journal for reading alone (no lock, no boot recorded)."""
        try:
            uri = Path(path).resolve().as_uri() + "?mode=ro"
            self._db = sqlite3.connect(uri, uri=True, isolation_level=None,
                                       check_same_thread=False)
            owner = self._meta("table")
            if owner != self.table:
                self._db.close()
                raise JournalError(f"{path} is the journal of table {owner}, not {self.table}")
            self.pruned = int(self._meta("pruned") or 0)
            self.last_seq = max(self.pruned, int(self._db.execute(
                "SELECT coalesce(max(seq), 0) FROM events").fetchone()[0]))
            self.acked = int(self._meta("acked") or 0)
            self.state = self._recover_state()
        except sqlite3.Error as exc:
            raise JournalError(f"cannot open the journal {path} to read it: {exc}") from None

    # ------------------------------------------------------------------ plumbing
    @contextmanager
    def _transaction(self) -> Iterator[None]:
        if self.read_only:
            raise JournalError("this journal was opened read-only; open it without "
                               "read_only=True (it then takes the journal's lock) to write")
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    def _meta(self, key: str) -> str | None:
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def _set_meta(self, key: str, value: str) -> None:
        self._db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    def _recover_state(self) -> PublicState:
        saved = self._meta("state")
        state = PublicState() if saved is None else PublicState.model_validate_json(saved)
        after = int(self._meta("state_seq") or 0)
        rows = self._db.execute("SELECT seq, public FROM events WHERE seq > ? ORDER BY seq",
                                (after,))
        for seq, public in rows:
            try:
                message = parse_message(EventMessage, bytes(public))
            except MessageRejected as exc:
                raise JournalError(f"journal event {seq} is unreadable: {exc.reason}") from None
            state = fold(state, message.event)
        return state

    # ------------------------------------------------------------------ writing
    def append(self, events: Sequence[JournalEvent], *,
               reply: tuple[str, Callable[[int], bytes]] | None = None,
               digest: str | None = None) -> list[Parcel]:
        """Journal ``events`` (and the reply to the command that caused them) in one
        transaction, fsynced; return them as parcels with their seqs.

        The events must follow the current state (:func:`~controller.sync.ledger.fold`);
        if one does not, or the disk fails, nothing is journaled and :class:`JournalError`
        says why. ``reply`` is ``(command_id, build)`` where ``build(last_seq)`` renders it;
        ``digest`` is that command's (:meth:`digest_for`), kept with it.
        """
        state = self.state
        parcels: list[Parcel] = []
        rows: list[tuple[int, str, float, str, bytes, bytes | None]] = []
        ts = self._clock()
        seq = self.last_seq
        for event in events:
            seq += 1
            secure: bytes | None = None
            public_event: PublicEvent
            match event:
                case HoleCardsDealt() | BurnedCard() | CardSeen():  # secret: split it
                    public_event = event.public()
                    secure = SecureCards.of(event, table=self.table, boot=self.boot,
                                            seq=seq, ts=ts).to_wire()
                case _:
                    public_event = event
            state = fold(state, public_event)
            public = EventMessage(table=self.table, boot=self.boot, seq=seq, ts=ts,
                                  event=public_event).to_wire()
            rows.append((seq, self.boot, ts, public_event.kind, public, secure))
            parcels.append(Parcel(seq, public, secure))
        try:
            with self._transaction():
                self._db.executemany("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?)", rows)
                self._db.executemany("INSERT INTO outbox VALUES (?)", [(r[0],) for r in rows])
                if reply is not None:
                    self._db.execute("INSERT INTO replies VALUES (?, ?)",
                                     (reply[0], reply[1](seq)))
                    if digest is not None:
                        self._db.execute("INSERT INTO command_digests VALUES (?, ?)",
                                         (reply[0], digest))
                if rows and not state.hand_in_progress:
                    self._set_meta("state", state.model_dump_json())
                    self._set_meta("state_seq", str(seq))
        except sqlite3.Error as exc:
            raise JournalError(f"the journal refused {len(rows)} event(s): {exc}") from None
        self.last_seq = seq
        self.state = state
        return parcels

    def void_open_hand(self, reason: str) -> Parcel | None:
        """If a hand was in progress when the table stopped, journal its void: every stack
        back to what it was when the hand started (CRASH-1, DEAL-8). None if no hand was."""
        if not self.state.hand_in_progress:
            return None
        void = HandVoided(hand_no=self.state.hand_no, stacks=self.state.start_stacks,
                          reason=reason)
        return self.append([void])[0]

    def acknowledge(self, acked: int) -> int:
        """The host holds every event up to ``acked``: prune them from the outbox.
        Returns the outbox size left. An ack never moves backwards."""
        acked = min(acked, self.last_seq)
        try:
            # No fsync for an ack: a power cut can only lose it, which costs a resend the
            # host ignores; the events' own commits stay FULL and are not kept waiting.
            self._db.execute("PRAGMA synchronous=NORMAL")
            try:
                with self._transaction():
                    if acked > self.acked:
                        self._set_meta("acked", str(acked))
                        self._db.execute("DELETE FROM outbox WHERE seq <= ?", (acked,))
                    size = int(self._db.execute("SELECT count(*) FROM outbox").fetchone()[0])
            finally:
                self._db.execute("PRAGMA synchronous=FULL")
        except sqlite3.Error as exc:
            raise JournalError(f"cannot record the ack of {acked}: {exc}") from None
        self.acked = max(self.acked, acked)
        return size

    def prune_history(self) -> int:
        """Delete the oldest events :attr:`retention` lets go (at most ``batch`` of them,
        with the command replies older than ``days``); return how many events went.

        Never an event the host has not acknowledged (it may still have to go out), nor
        one after the state checkpoint (opening the journal replays those; CRASH-1 rolls
        an open hand back from them). The highest seq pruned is recorded, so the next seq
        follows on even if every event is gone."""
        keep = self.retention
        cutoff = self._clock() - keep.days * _DAY
        try:
            upto = min(self.acked, int(self._meta("state_seq") or 0))
            if keep.hands:
                row = self._db.execute(
                    "SELECT seq FROM events WHERE kind = 'hand_started' ORDER BY seq DESC "
                    "LIMIT 1 OFFSET ?", (keep.hands - 1,)).fetchone()
                upto = min(upto, self.pruned if row is None else int(row[0]) - 1)
            last = self.pruned
            for seq, ts in self._db.execute(
                    "SELECT seq, ts FROM events WHERE seq > ? AND seq <= ? ORDER BY seq "
                    "LIMIT ?", (self.pruned, upto, keep.batch)).fetchall():
                if ts >= cutoff:
                    break  # a prefix only: what stays is one unbroken run of seqs
                last = int(seq)
            with self._transaction():
                gone = self._db.execute("DELETE FROM events WHERE seq <= ?", (last,)).rowcount
                if last > self.pruned:
                    self._set_meta("pruned", str(last))
                self._db.execute(
                    "DELETE FROM replies WHERE rowid IN (SELECT rowid FROM replies WHERE "
                    "CASE WHEN json_valid(CAST(reply AS TEXT)) "
                    "THEN json_extract(CAST(reply AS TEXT), '$.ts') < ? "
                    "ELSE 0 END ORDER BY rowid LIMIT ?)", (cutoff, keep.batch))
                self._db.execute("DELETE FROM command_digests WHERE command_id NOT IN "
                                 "(SELECT command_id FROM replies)")
        except sqlite3.Error as exc:
            raise JournalError(f"cannot prune the journal: {exc}") from None
        self.pruned = last
        return int(gone)

    def size(self) -> dict[str, int]:
        """Rows kept per table and the database's pages in use and free (retention tests)."""
        try:
            rows = {name: int(self._db.execute(f"SELECT count(*) FROM {name}").fetchone()[0])
                    for name in ("events", "outbox", "replies", "boots")}
            pages = int(self._db.execute("PRAGMA page_count").fetchone()[0])
            free = int(self._db.execute("PRAGMA freelist_count").fetchone()[0])
        except sqlite3.Error as exc:
            raise JournalError(f"cannot read the journal's size: {exc}") from None
        return {**rows, "pages": pages, "free_pages": free}

    # ------------------------------------------------------------------ reading
    def parcels(self, after: int, *, upto: int | None = None, limit: int = 500) -> list[Parcel]:
        """Journaled events with ``after < seq <= upto``, oldest first, at most ``limit``."""
        upto = self.last_seq if upto is None else upto
        try:
            rows = self._db.execute(
                "SELECT seq, public, secure FROM events WHERE seq > ? AND seq <= ? "
                "ORDER BY seq LIMIT ?", (after, upto, limit)).fetchall()
        except sqlite3.Error as exc:
            raise JournalError(f"cannot read the journal: {exc}") from None
        return [Parcel(int(s), bytes(p), None if c is None else bytes(c)) for s, p, c in rows]

    def outbox_size(self) -> int:
        """How many journaled events the host has not acknowledged."""
        try:
            return int(self._db.execute("SELECT count(*) FROM outbox").fetchone()[0])
        except sqlite3.Error as exc:
            raise JournalError(f"cannot read the outbox: {exc}") from None

    def reply_for(self, command_id: str) -> bytes | None:
        """The reply already given to ``command_id``, if any."""
        try:
            row = self._db.execute("SELECT reply FROM replies WHERE command_id = ?",
                                   (command_id,)).fetchone()
        except sqlite3.Error as exc:
            raise JournalError(f"cannot read the replies: {exc}") from None
        return None if row is None else bytes(row[0])

    def digest_for(self, command_id: str) -> str | None:
        """The digest of the command answered as ``command_id`` (None if unknown, or
        answered before digests were kept)."""
        try:
            row = self._db.execute("SELECT digest FROM command_digests WHERE command_id = ?",
                                   (command_id,)).fetchone()
        except sqlite3.Error as exc:
            raise JournalError(f"cannot read the command digests: {exc}") from None
        return None if row is None else str(row[0])

    def record_reply(self, command_id: str, reply: bytes, digest: str | None = None) -> None:
        """Remember the reply to a command that changed nothing (a refusal), with the
        command's digest; the first reply recorded for an id stays."""
        try:
            with self._transaction():
                self._db.execute("INSERT OR IGNORE INTO replies VALUES (?, ?)",
                                 (command_id, reply))
                if digest is not None:
                    self._db.execute("INSERT OR IGNORE INTO command_digests VALUES (?, ?)",
                                     (command_id, digest))
        except sqlite3.Error as exc:
            raise JournalError(f"cannot record the reply to {command_id}: {exc}") from None

    def boots(self) -> list[tuple[str, int]]:
        """Every boot of this table with the first seq it could use, oldest first."""
        return [(str(b), int(n)) for b, n in self._db.execute(
            "SELECT boot, next_seq FROM boots ORDER BY rowid")]

    def pragma(self, name: str) -> str:
        """A connection setting, for tests (``journal_mode``, ``synchronous``)."""
        return str(self._db.execute(f"PRAGMA {name}").fetchone()[0])

    def close(self) -> None:
        """Close the connection (everything is already durable) and let the lock go."""
        try:
            self._db.close()
        finally:
            if self._lock is not None:
                self._lock.release()
