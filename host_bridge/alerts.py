"""The floor's alert board (issue 20): which tables need a person, and why, first.

:class:`AlertBoard` keeps one :class:`Alert` per condition (its id stable while the
condition lasts: ``offline:T7``, ``prompt:T3``...), raised when the condition appears and
cleared when it goes; the floor acknowledges an alert (journaled in ``alert_acks``: who,
when, which alert), and an acknowledged alert stays listed until its condition clears.
Every change goes out on the live feed as ``{"type": "alert", "alert": ...}`` (raised or
changed, acknowledgements included) or ``{"type": "alert_cleared", "id": ...}``.

What the board knows, and how it hears it:

* the tables' events, typed, in seq order, from ``Bridge.observers`` (like the director):
  folded into a :class:`~host_bridge.alerts_watch.TableWatch` per table (prompts, seat
  nodes, device faults, clocks, pauses, colour-ups, breaks, the hand in play); the tables
  they touched are looked at again at once;
* the store, read on every :meth:`AlertBoard.refresh` (each second by :meth:`run`, and on
  every ``GET /api/v1/alerts``): each table's status (online, closed) and players seated,
  the audit log's commands that got no reply in time, the conflicting payloads of issue 17;
* the tournaments (the director's model, plan and level clock): breaks, hand-for-hand,
  short tables and tables to break; and the bridge's own broker link.

Time comes from the bridge's injected clock (``Bridge.clock``), so a test moves it by hand:
a hand open too long (``hand_too_long_s``, or ``hand_too_long_factor`` times the table's
median hand) is seen at the next refresh. Everything runs on the event loop; each read of
the store is one short session, never held across an await. When the bridge restarts, the
watches are rebuilt from each table's latest events and the acknowledgements of alerts
that had not cleared are read back from the journal.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Final

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session, sessionmaker

from controller.events import EVENT_TYPES
from controller.sync.messages import EventMessage
from host_bridge.alerts_conditions import (
    Condition,
    Conflicts,
    HandLimits,
    StoredTable,
    Unanswered,
    broker_condition,
    command_condition,
    conflict_condition,
    sort_key,
    table_conditions,
    tournament_conditions,
)
from host_bridge.alerts_watch import Since, TableWatch
from host_bridge.bridge import Bridge
from host_bridge.db import writer_sessions
from host_bridge.director.service import TournamentDirector
from host_bridge.director.tablelink import ACTOR as DIRECTOR_ACTOR
from host_bridge.models import AlertAck, AuditEntry, EventRecord, PokerTable, Seat, SeqConflict

log = logging.getLogger(__name__)

TICK_S: Final = 1.0  # how often run() refreshes
CONFLICT_HOLD_S: Final = 3600.0  # a conflict is an alert for an hour after the last one
REPLAY_EVENTS: Final = 100  # each table's latest events a restart folds again
#: the event kinds a watch folds (the rest change no alert)
WATCHED: Final = sorted(t.model_fields["kind"].default for t in EVENT_TYPES if t.__name__ in {
    "HandStarted", "HandEnded", "HandVoided", "MisdealDeclared", "ActionAccepted",
    "ClockCalled", "ShotClockReport", "Irregularity", "SeatNodeBack", "DeckReport", "Paused",
    "Resumed", "BreakStarted", "BreakEnded", "ClockSynced", "ColourUpStarted",
    "ColourUpCancelled", "StackAdjusted", "TableClosed"})
COMMANDS, CONFLICTS, BROKER = "commands", "conflicts", "broker"  # groups of alerts


@dataclass(slots=True)
class Alert:
    """One alert as the floor sees it; ``group``: which recomputation owns it."""

    id: str
    table: str | None
    kind: str
    severity: str
    since: float
    text: str
    action: str
    group: str
    acked_by: str | None = None
    acked_at: float | None = None

    def public(self) -> dict[str, Any]:
        """The API's and the feed's form (floor contract)."""
        return {"id": self.id, "table": self.table, "kind": self.kind,
                "severity": self.severity, "since": self.since, "text": self.text,
                "action": self.action, "acked_by": self.acked_by, "acked_at": self.acked_at}


@dataclass(slots=True)
class _Sent:
    table: str
    command: str
    sender: str
    at: float
    timed_out: bool


def _epoch(moment: datetime | None) -> float | None:
    """Audit times are UTC; SQLite gives them back without their zone."""
    if moment is None:
        return None
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp()


def sender_name(actor: str, role: str) -> str:
    """Who sent a command, as an alert names them."""
    return "the tournament director" if actor == DIRECTOR_ACTOR else f"{actor} ({role})"


class CommandLedger:
    """The commands each table did not answer in time since it last answered one, read
    from the audit log: the rows added since the last read, and the ones still open."""

    KEEP = 50  # open rows kept per table (a table that never answers)
    LOOK_BACK = 1000  # audit rows a restart reads again

    def __init__(self) -> None:
        self._last = 0
        self._open: dict[int, _Sent] = {}
        self._answered: dict[str, float] = {}  # table -> when it last answered

    def read(self, session: Session, *, start: bool = False) -> None:
        """Take the new rows and the open rows' outcomes now."""
        if start:
            self._last = max(0, (session.scalar(select(func.max(AuditEntry.id))) or 0)
                             - self.LOOK_BACK)
        columns = (AuditEntry.id, AuditEntry.table_id, AuditEntry.command, AuditEntry.actor,
                   AuditEntry.role, AuditEntry.at, AuditEntry.outcome, AuditEntry.answered_at)
        rows = list(session.execute(select(*columns).where(AuditEntry.id > self._last)
                                    .order_by(AuditEntry.id)))
        if self._open:
            rows += session.execute(select(*columns).where(
                AuditEntry.id.in_(list(self._open)), AuditEntry.id <= self._last))
        for row in rows:
            self._last = max(self._last, row.id)
            if row.outcome in ("sent", "timeout"):
                self._open[row.id] = _Sent(row.table_id, row.command,
                                           sender_name(row.actor, row.role),
                                           _epoch(row.at) or 0.0, row.outcome == "timeout")
                continue
            self._open.pop(row.id, None)
            answered = _epoch(row.answered_at)
            if row.outcome in ("ok", "error", "late") and answered is not None:
                self._answered[row.table_id] = max(answered,
                                                   self._answered.get(row.table_id, 0.0))
        self._prune()

    def _prune(self) -> None:
        by_table: dict[str, list[int]] = {}
        for key, sent in sorted(self._open.items()):
            if sent.at < self._answered.get(sent.table, float("-inf")):
                del self._open[key]  # the table answered since: it talks again
            else:
                by_table.setdefault(sent.table, []).append(key)
        for keys in by_table.values():
            for key in keys[:-self.KEEP]:
                del self._open[key]

    def unanswered(self) -> dict[str, Unanswered]:
        """Per table: the first command that timed out, and how many did."""
        out: dict[str, Unanswered] = {}
        for sent in sorted(self._open.values(), key=lambda s: s.at):
            if not sent.timed_out:
                continue
            first = out.get(sent.table)
            out[sent.table] = Unanswered(sent.command, sent.sender, sent.at, 1) \
                if first is None else Unanswered(first.command, first.sender, first.at,
                                                 first.count + 1)
        return out


class AlertBoard:
    """The floor's alerts, raised and cleared by their conditions (module docstring)."""

    def __init__(self, bridge: Bridge, sessions: sessionmaker[Session], *,
                 directors: Callable[[], Sequence[TournamentDirector]],
                 owners: Callable[[], Mapping[str, TournamentDirector]]) -> None:
        """``directors``: every tournament of the bridge; ``owners``: each table's."""
        self.bridge = bridge
        self.clock = bridge.clock
        self._sessions = sessions
        self._writer = writer_sessions(sessions)
        self._directors = directors
        self._owners = owners
        self.limits = HandLimits(bridge.settings.hand_too_long_s,
                                 bridge.settings.hand_too_long_factor)
        self.watches: dict[str, TableWatch] = {}
        self.stored: dict[str, StoredTable] = {}
        self.commands = CommandLedger()
        self.conflicts: dict[str, Conflicts] = {}
        self.alerts: dict[str, Alert] = {}
        acks = self._restore()
        bridge.observers.append(self.observe)
        self.refresh()
        self._reapply(acks)

    # -- reading -----------------------------------------------------------------------------
    def current(self) -> list[Alert]:
        """Every alert: unacknowledged first, then by severity, newest first."""
        return sorted(self.alerts.values(), key=lambda a: sort_key(
            a.severity, a.acked_by is not None, a.since, a.id))

    def watch(self, wire: str) -> TableWatch:
        """What the board knows of a table's events (an empty watch if nothing)."""
        return self.watches.get(wire) or TableWatch(wire)

    # -- hearing ---------------------------------------------------------------------------
    def observe(self, stored: Sequence[EventMessage]) -> None:
        """The bridge's hook: one stored batch's events, in each table's seq order; the
        tables they touched (and their tournaments) are looked at again at once."""
        if not stored:
            return
        now = self.clock()
        touched: set[str] = set()
        for message in stored:
            watch = self.watches.get(message.table)
            if watch is None:
                watch = self.watches[message.table] = TableWatch(message.table)
            watch.fold(message.event, message.ts, now, self._sender)
            touched.add(message.table)
        owners = self._owners()
        groups = {f"table:{w}" for w in touched}
        groups |= {f"tournament:{owners[w].id}" for w in touched if w in owners}
        self._update(groups, owners)

    def refresh(self) -> None:
        """Read the store's side (tables, commands, conflicts) and look at everything."""
        now = self.clock()
        with self._sessions() as session:
            rows = session.execute(select(PokerTable.id, PokerTable.online,
                                          PokerTable.closed, PokerTable.paused)).all()
            seated = {t: int(n) for t, n in session.execute(
                select(Seat.table_id, func.count()).group_by(Seat.table_id))}
            self.commands.read(session)
            found = session.execute(select(
                SeqConflict.table_id, func.sum(SeqConflict.count), func.max(SeqConflict.seq),
                func.max(SeqConflict.last_at), func.count(SeqConflict.verdict), func.count())
                .where(SeqConflict.last_at >= now - CONFLICT_HOLD_S)
                .group_by(SeqConflict.table_id)).all()
        online = self.bridge.table_online
        self.stored = {r.id: StoredTable(online(r.id, r.online), r.closed, r.paused,
                                         seated.get(r.id, 0)) for r in rows}
        self.conflicts = {t: Conflicts(int(total), int(seq), float(last), confirmed == count)
                          for t, total, seq, last, confirmed, count in found}
        owners = self._owners()
        groups = {f"table:{w}" for w in (*self.watches, *self.stored)}
        groups |= {f"tournament:{d.id}" for d in self._directors()}
        groups |= {a.group for a in self.alerts.values()} | {COMMANDS, CONFLICTS, BROKER}
        self._update(groups, owners)

    async def run(self, every_s: float = TICK_S) -> None:
        """Refresh every ``every_s`` seconds (the time-based alerts, the store's side)
        until cancelled."""
        while True:
            await asyncio.sleep(every_s)
            try:
                self.refresh()
            except Exception:  # the store busy or gone for a moment: try again
                log.exception("the alert board could not refresh; it tries again")

    # -- acknowledging ------------------------------------------------------------------------
    def ack(self, alert_id: str, actor: str, role: str) -> Alert | None:
        """Acknowledge ``alert_id`` (journaled: who, when, which alert); None when no such
        alert is raised. The first acknowledgement stands."""
        alert = self.alerts.get(alert_id)
        if alert is None or alert.acked_by is not None:
            return alert
        now = self.clock()
        with self._writer() as session, session.begin():
            session.add(AlertAck(alert_id=alert.id, kind=alert.kind, table_id=alert.table,
                                 text=alert.text, since=alert.since, actor=actor, role=role,
                                 at=now))
        alert.acked_by, alert.acked_at = actor, now
        log.info("%s (%s) acknowledged alert %s", actor, role, alert_id)
        self._publish(alert)
        return alert

    # -- the conditions ---------------------------------------------------------------------
    def _conditions(self, group: str, owners: Mapping[str, TournamentDirector],
                    now: float) -> list[Condition]:
        kind, _, key = group.partition(":")
        if kind == "table":
            return table_conditions(key, self.watch(key), self.stored.get(key),
                                    owners.get(key), now, self.limits)
        if kind == "tournament":
            return [c for d in self._directors() if d.id == key
                    for c in tournament_conditions(d)]
        if group == COMMANDS:
            return [command_condition(w, u) for w, u in self.commands.unanswered().items()
                    if self._reachable(w)]
        if group == CONFLICTS:
            return [conflict_condition(w, c) for w, c in sorted(self.conflicts.items())]
        if group == BROKER and self.bridge.broker_connected is False:
            return [broker_condition(self.bridge.broker_lost_at)]
        return []

    def _reachable(self, wire: str) -> bool:
        """Open and online: otherwise the table's own state explains a silence."""
        stored = self.stored.get(wire)
        return not self.watch(wire).closed and (
            stored is None or (not stored.closed and stored.online is not False))

    def _update(self, groups: Iterable[str], owners: Mapping[str, TournamentDirector]
                ) -> None:
        """Recompute ``groups``: raise what is new, change what changed, clear what went."""
        groups = set(groups)
        now = self.clock()
        fresh: dict[str, tuple[Condition, str]] = {}
        for group in sorted(groups):
            for condition in self._conditions(group, owners, now):
                fresh.setdefault(condition.id, (condition, group))
        for alert_id in [i for i, a in self.alerts.items() if a.group in groups
                         and i not in fresh]:
            self._clear(alert_id)
        for alert_id, (c, group) in fresh.items():
            alert = self.alerts.get(alert_id)
            if alert is None:
                alert = self.alerts[alert_id] = Alert(
                    c.id, c.table, c.kind, c.severity, now if c.since is None else c.since,
                    c.text, c.action, group)
                self._publish(alert)
                continue
            alert.group = group
            if (alert.kind, alert.severity, alert.text, alert.action) != (
                    c.kind, c.severity, c.text, c.action):
                alert.kind, alert.severity, alert.text, alert.action = (
                    c.kind, c.severity, c.text, c.action)
                self._publish(alert)

    def _clear(self, alert_id: str) -> None:
        alert = self.alerts.pop(alert_id)
        if alert.acked_by is not None:
            self._cleared_in_journal([alert_id])
        self.bridge.feed.publish({"type": "alert_cleared", "id": alert_id})

    def _publish(self, alert: Alert) -> None:
        self.bridge.feed.publish({"type": "alert", "alert": alert.public()})

    def _cleared_in_journal(self, alert_ids: list[str]) -> None:
        with self._writer() as session, session.begin():
            session.execute(update(AlertAck).where(AlertAck.alert_id.in_(alert_ids),
                                                   AlertAck.cleared_at.is_(None))
                            .values(cleared_at=self.clock()))

    def _sender(self, command_id: str) -> str | None:
        """Who sent the command with this id, from the audit log."""
        with self._sessions() as session:
            row = session.execute(select(AuditEntry.actor, AuditEntry.role).where(
                AuditEntry.command_id == command_id)).first()
        return None if row is None else sender_name(row.actor, row.role)

    # -- a restart ---------------------------------------------------------------------------
    def _restore(self) -> dict[str, AlertAck]:
        """Each table's watch from its latest events (their own times stand for when they
        were heard); the commands' ledger; the acknowledgements not cleared."""
        now = self.clock()
        with self._sessions() as session:
            tables = session.execute(select(PokerTable.id, PokerTable.paused,
                                            PokerTable.closed)).all()
            for table in tables:
                rows = session.execute(select(EventRecord.payload).where(
                    EventRecord.table_id == table.id, EventRecord.applied.is_(True),
                    EventRecord.kind.in_(WATCHED)).order_by(EventRecord.seq.desc())
                    .limit(REPLAY_EVENTS)).scalars().all()
                watch = self.watches[table.id] = TableWatch(table.id)
                for payload in reversed(rows):
                    message = EventMessage.model_validate_json(payload)
                    watch.fold(message.event, message.ts, message.ts, self._sender)
                if table.paused and watch.paused is None:
                    watch.paused = Since("", now)
                watch.closed = watch.closed or table.closed
            self.commands.read(session, start=True)
            acks = session.scalars(select(AlertAck).where(AlertAck.cleared_at.is_(None))
                                   .order_by(AlertAck.id)).all()
        return {a.alert_id: a for a in acks}

    def _reapply(self, acks: Mapping[str, AlertAck]) -> None:
        """Acknowledgements journaled before a restart: on the alerts still raised; the
        others' conditions cleared while the bridge was down."""
        gone = []
        for alert_id, ack in acks.items():
            alert = self.alerts.get(alert_id)
            if alert is None:
                gone.append(alert_id)
                continue
            alert.acked_by, alert.acked_at, alert.since = ack.actor, ack.at, ack.since
        if gone:
            self._cleared_in_journal(gone)
