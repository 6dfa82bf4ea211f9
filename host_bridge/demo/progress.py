"""What the demo shows in the terminal: the floor as the bridge stored it (tables, players,
levels, hands), the tournament's standing, and the last notable events from the live
feed. ``rich`` draws it live; headless, the same facts are printed as plain lines.

Only public facts are read (the ``poker_tables``, ``seats`` and ``hands`` rows and the
public feed): hole cards never reach the terminal.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from host_bridge.models import Hand, PokerTable, Seat


@dataclass(frozen=True, slots=True)
class TableLine:
    """One table as the bridge knows it."""

    table: str
    online: bool
    closed: bool
    paused: bool
    hand_for_hand: bool
    level: int
    blinds: tuple[int, int] | None
    players: int
    chips: int
    hand_no: int
    hands_ended: int

    @property
    def status(self) -> str:
        """One word for the table's state."""
        if self.closed:
            return "closed"
        if not self.online:
            return "offline"
        if self.paused:
            return "paused"
        return "hand-for-hand" if self.hand_for_hand else "playing"


@dataclass(frozen=True, slots=True)
class FloorView:
    """The whole floor at one moment."""

    tables: tuple[TableLine, ...] = ()

    @property
    def players(self) -> int:
        """Players seated anywhere."""
        return sum(t.players for t in self.tables)

    @property
    def chips(self) -> int:
        """Chips in front of the seated players."""
        return sum(t.chips for t in self.tables)

    @property
    def hands(self) -> int:
        """Hands played to their end on the whole floor."""
        return sum(t.hands_ended for t in self.tables)

    @property
    def level(self) -> int:
        """The highest level any open table plays."""
        return max((t.level for t in self.tables if not t.closed), default=1)

    @property
    def online(self) -> int:
        """Tables online and not closed."""
        return sum(1 for t in self.tables if t.online and not t.closed)


def read_floor(sessions: sessionmaker[Session]) -> FloorView:
    """The floor from the bridge's store (a few small queries; safe beside ingest)."""
    with sessions() as session:
        seats = {tid: (n, chips or 0) for tid, n, chips in session.execute(
            select(Seat.table_id, func.count(), func.sum(Seat.stack)).group_by(Seat.table_id))}
        ended = dict(session.execute(
            select(Hand.table_id, func.count()).where(Hand.status == "ended")
            .group_by(Hand.table_id)).tuples().all())
        last = select(Hand.table_id, func.max(Hand.hand_no).label("no")).group_by(
            Hand.table_id).subquery()
        blinds = {tid: (sb, bb) for tid, sb, bb in session.execute(
            select(Hand.table_id, Hand.small_blind, Hand.big_blind).join(
                last, (Hand.table_id == last.c.table_id) & (Hand.hand_no == last.c.no)))}
        lines = []
        for t in session.scalars(select(PokerTable).order_by(PokerTable.id)):
            players, chips = seats.get(t.id, (0, 0))
            lines.append(TableLine(
                table=t.id, online=t.online, closed=t.closed, paused=t.paused,
                hand_for_hand=t.hand_for_hand, level=t.level, blinds=blinds.get(t.id),
                players=players, chips=chips, hand_no=t.hand_no,
                hands_ended=int(ended.get(t.id, 0))))
    return FloorView(tuple(lines))


# ------------------------------------------------------------------------ the event log
NOTABLE_CHANGES = {
    "level_set": "level {level}", "player_busted": "{player} is out (seat {seat})",
    "player_moved": "{player} moves to table {to_table} with {stack}",
    "player_seated": "{player} sits in seat {seat} with {stack}",
    "player_removed": "{player} leaves seat {seat}", "table_closed": "table closed",
    "hand_for_hand": "hand-for-hand", "colour_up_scheduled": "colour-up at level {level}",
    "clock_called": "clock called on seat {seat}",
    "break_started": "break", "break_ended": "break over",
}
# the director holds tables between hands to move players, and syncs their clocks: the
# mechanics of the floor, too many to be news
QUIET_CHANGES = frozenset({"paused", "resumed", "clock_synced", "hand_released"})


def describe(item: Mapping[str, Any]) -> str | None:
    """A short line for a feed item worth showing, or None (the hand's every action is
    not). Public fields only: the feed never carries hole cards."""
    kind = item.get("type")
    table = item.get("table", "?")
    if kind == "status":
        return f"{table}: {'online' if item.get('online') else 'offline'}"
    if kind != "event":
        return None
    event = item.get("event") or {}
    what = event.get("kind")
    if what == "table_changed":
        change = str(event.get("change"))
        if change in QUIET_CHANGES:
            return None
        if change == "hand_for_hand":
            return f"{table}: hand-for-hand {'starts' if event.get('on') else 'ends'}"
        if change == "break_started" and event.get("colour_up"):
            chips = ", ".join(str(c) for c in event["colour_up"])
            return f"{table}: break; the {chips} chips colour up (chip race)"
        template = NOTABLE_CHANGES.get(change, change.replace("_", " "))
        fields = {k: ("?" if v is None else (f"{v:,}" if k == "stack" and isinstance(v, int)
                                             else v))
                  for k, v in event.items()}
        try:
            return f"{table}: {template.format_map(_Blank(fields))}"
        except (ValueError, IndexError):
            return f"{table}: {change}"
    if what == "stack_adjusted":
        seats = event.get("seats") or []
        reason = str(event.get("reason", "")).replace("_", "-")
        return f"{table}: {reason}, {len(seats)} stack(s) adjusted"
    if what == "shot_clock" and event.get("what") == "ruled":
        return f"{table}: shot clock ran out on seat {event.get('seat')}"
    if what in ("misdeal_declared", "hand_voided"):
        return f"{table}: hand {event.get('hand_no')} {what.replace('_', ' ')}"
    if what is not None and ("colour" in what or "race" in what or "break" in what):
        return f"{table}: {what.replace('_', ' ')}"
    return None


class _Blank(dict[str, Any]):
    def __missing__(self, key: str) -> str:
        return "?"


@dataclass
class EventLog:
    """The last notable events, newest last."""

    size: int = 10
    lines: deque[str] = field(default_factory=deque)
    seen: int = 0

    def add(self, item: Mapping[str, Any]) -> str | None:
        """Keep ``item``'s line if it is notable; return it."""
        line = describe(item)
        if line is not None:
            self.seen += 1
            self.lines.append(f"{time.strftime('%H:%M:%S')} {line}")
            while len(self.lines) > self.size:
                self.lines.popleft()
        return line


# ------------------------------------------------------------------------ drawing
@dataclass(frozen=True, slots=True)
class Standing:
    """The tournament's standing, as the demo knows it (None fields: not known)."""

    name: str = "demo"
    players_left: int | None = None
    entrants: int | None = None
    level: int | None = None
    blinds: str | None = None
    winner: str | None = None
    finished: bool = False
    note: str | None = None


def render(view: FloorView, standing: Standing, log: EventLog, *, dashboard: str,
           broker: str, elapsed: float) -> RenderableType:
    """The live screen: a header, the tables, the last events."""
    head = Text()
    head.append("Pitboss demo", style="bold")
    head.append(f"  dashboard {dashboard}  broker {broker}  {_clock(elapsed)}\n")
    left = standing.players_left if standing.players_left is not None else view.players
    entrants = f"/{standing.entrants}" if standing.entrants else ""
    head.append(f"players left {left}{entrants}   level {standing.level or view.level}")
    if standing.blinds:
        head.append(f" ({standing.blinds})")
    head.append(f"   hands played {view.hands:,}   tables open {view.online}")
    if standing.winner:
        head.append(f"\nwinner: {standing.winner}", style="bold green")
    if standing.note:
        head.append(f"\n{standing.note}", style="yellow")
    grid = Table(expand=True, pad_edge=False)
    for column, justify in (("table", "left"), ("state", "left"), ("level", "right"),
                            ("blinds", "right"), ("players", "right"),
                            ("chips", "right"), ("hand", "right")):
        grid.add_column(column, justify=justify)  # type: ignore[arg-type]
    for t in view.tables:
        style = "dim" if t.closed else ("red" if not t.online else "")
        grid.add_row(t.table, t.status, str(t.level),
                     f"{t.blinds[0]:,}/{t.blinds[1]:,}" if t.blinds else "-",
                     str(t.players), f"{t.chips:,}", str(t.hand_no), style=style)
    events = Text("\n".join(log.lines) or "waiting for the tables...")
    return Group(Panel(head), grid, Panel(events, title="last events", title_align="left"))


def summary_line(view: FloorView, standing: Standing, elapsed: float) -> str:
    """One plain line for headless runs and logs."""
    left = standing.players_left if standing.players_left is not None else view.players
    return (f"[{_clock(elapsed)}] tables open {view.online}/{len(view.tables)}  players "
            f"left {left}  level {standing.level or view.level}  hands {view.hands}  chips "
            f"{view.chips:,}" + (f"  ({standing.note})" if standing.note else ""))


def _clock(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    return f"{minutes:02d}:{secs:02d}"
