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

from pydantic import ValidationError
from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from controller.events import (
    TABLE_EVENTS,
    BreakEnded,
    BreakStarted,
    CameBack,
    ClockCalled,
    ColourUpScheduled,
    HandForHandSet,
    HandVoided,
    LevelSet,
    MisdealDeclared,
    PenaltyServed,
    PlayerBusted,
    PlayerMoved,
    PlayerRemoved,
    PlayerSeated,
    PublicEvent,
    SatOut,
    ShotClockReport,
    StackAdjusted,
    TableClosed,
)
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
def _chips(stack: int | None) -> str:
    return "?" if stack is None else f"{stack:,}"


def _line(event: PublicEvent) -> str | None:
    """What is news in one table event (None: not news). The director holds tables
    between hands to move players and syncs their clocks: those mechanics of the floor
    (pause, resume, clock sync, hand released) are too many to be news, and so is every
    step of a hand."""
    match event:
        case LevelSet(level=level):
            return f"level {level}"
        case PlayerBusted(player=player, seat=seat):
            return f"{player} is out (seat {seat})"
        case PlayerMoved(player=player, to_table=to_table, stack=stack):
            return f"{player} moves to table {to_table} with {_chips(stack)}"
        case PlayerSeated(player=player, seat=seat, stack=stack):
            return f"{player} sits in seat {seat} with {_chips(stack)}"
        case PlayerRemoved(player=player, seat=seat):
            return f"{player} leaves seat {seat}"
        case SatOut(seat=seat):
            return f"seat {seat} sits out"
        case CameBack(seat=seat):
            return f"seat {seat} is back"
        case PenaltyServed(player=player, hands_left=left):
            return f"{player} serves a penalty hand ({left} left)"
        case TableClosed():
            return "table closed"
        case HandForHandSet(on=on):
            return f"hand-for-hand {'starts' if on else 'ends'}"
        case ColourUpScheduled(level=level):
            return f"colour-up at level {level}"
        case ClockCalled(seat=seat):
            return f"clock called on seat {seat}"
        case BreakStarted(colour_up=chips) if chips:
            return f"break; the {', '.join(str(c) for c in chips)} chips colour up (chip race)"
        case BreakStarted():
            return "break"
        case BreakEnded():
            return "break over"
        case StackAdjusted(reason=reason, seats=seats):
            return f"{reason.replace('_', '-')}, {len(seats)} stack(s) adjusted"
        case ShotClockReport(what="ruled", seat=seat):
            return f"shot clock ran out on seat {seat}"
        case MisdealDeclared(hand_no=hand_no):
            return f"hand {hand_no} misdealt"
        case HandVoided(hand_no=hand_no):
            return f"hand {hand_no} voided"
        case _:
            return None


def describe(item: Mapping[str, Any]) -> str | None:
    """A short line for a feed item worth showing, or None (the hand's every action is
    not). Public fields only: the feed never carries hole cards. A feed item's event is
    parsed once into the vocabulary and dispatched by type."""
    kind = item.get("type")
    table = item.get("table", "?")
    if kind == "status":
        return f"{table}: {'online' if item.get('online') else 'offline'}"
    if kind != "event":
        return None
    try:
        event = TABLE_EVENTS.validate_python(item.get("event"))
    except ValidationError:
        return None  # not an event of this vocabulary: nothing to say about it
    line = _line(event)
    return None if line is None else f"{table}: {line}"


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
