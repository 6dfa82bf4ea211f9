"""The floor page's summary (issue 20): ``GET /api/v1/floor/summary`` (any role) gives each
tournament's strip (level and time left, blinds and ante in force, the next level, the
break and colour-up, hand-for-hand, the field, the average stack, the prize pool and the
next pay jump) and every table's line (level and blinds in force, seats, tournament or
cash game, and whether it runs, is paused and why, on a break, closed or offline).

A tournament table's level, blinds and ante are the host's, from the director's level
clock (what the next hand is dealt at, antes gone in the money where the structure says
so), never the table's last hand: every table of a tournament shows the same. Other
tables show the stakes of their own last hand. ``ends_at`` is when the level (or break)
ends by the bridge's clock, null while the clock stands; the page counts down from it,
corrected by ``server_time``. ``section`` groups tables on the page: the tournament's or
the cash game's name. One short read of the store per request; nothing private.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, Field
from sqlalchemy import select

from controller.clocks.house import HouseError, parse_house
from controller.clocks.level_clock import LevelClock
from host_bridge.alerts import AlertBoard
from host_bridge.alerts_conditions import held_reason, is_running
from host_bridge.cash_room import CashRoom
from host_bridge.deps import BridgeDep, Reader
from host_bridge.director.entries import Stage
from host_bridge.director.handforhand import H4H
from host_bridge.director.service import TournamentDirector
from host_bridge.director.tournament import Tournament
from host_bridge.models import PokerTable
from host_bridge.routes.clock import ClockFace, clock_face
from host_bridge.routes.director import AUTH, Room

router = APIRouter(prefix="/floor", tags=["floor"])
TableState = Literal["running", "paused", "break", "closed", "offline"]
LIVE = (Stage.REGISTERING, Stage.RUNNING)


class LevelNext(BaseModel):
    """The level after this one."""

    level: int
    small_blind: int
    big_blind: int
    ante: int


class NextPayout(BaseModel):
    """The next pay jump: the place whose prize the players left reach after
    ``players_to_go`` more eliminations (the money's first place outside it)."""

    place: int
    prize: int = Field(description="cents")
    players_to_go: int


class TournamentStrip(BaseModel):
    """One tournament on the floor page's strip."""

    id: str
    name: str
    stage: str
    level: int
    paused: bool
    ends_at: float | None = Field(description="when this level or break ends (Unix seconds, "
                                  "the bridge's clock); null while the clock stands")
    remaining_s: float | None = Field(description="its time left; null before the start")
    small_blind: int
    big_blind: int
    ante: int
    next: LevelNext | None
    break_in_s: float | None = Field(description="time to the next scheduled break")
    on_break: bool
    colour_up: str | None = Field(description="the colour-up under way or next scheduled")
    hand_for_hand: bool
    players_left: int
    entries: int
    average_stack: int
    prize_pool: int = Field(description="cents")
    next_payout: NextPayout | None
    tables: list[str]


class TableLine(BaseModel):
    """One table's line: the level and blinds in force, and its state with the reason."""

    level: int
    small_blind: int | None
    big_blind: int | None
    ante: int | None
    size: int | None = Field(description="its seats (null when unknown)")
    tournament: str | None
    section: str | None = Field(description="the tournament's or the cash game's name")
    state: TableState
    reason: str | None = Field(description="why it is paused, on a break or offline")


class FloorSummary(BaseModel):
    """The tournaments and every table, for the floor page."""

    server_time: float
    tournaments: list[TournamentStrip]
    tables: dict[str, TableLine]


def next_payout(t: Tournament) -> NextPayout | None:
    """The next place that pays more than the players left are sure of now."""
    prizes = t.prizes()[:t.places_paid()]
    left = len(t.alive())
    if t.stage is not Stage.RUNNING or left <= 1 or not prizes:
        return None
    sure = prizes[left - 1] if left <= len(prizes) else 0
    for place in range(min(left - 1, len(prizes)), 0, -1):
        if prizes[place - 1] > sure:
            return NextPayout(place=place, prize=prizes[place - 1],
                              players_to_go=left - place)
    return None


def colour_up(clock: LevelClock) -> str | None:
    """The colour-up of this break, or of the next break that has one."""
    def chips(values: Any) -> str:
        return " and ".join(str(v) for v in values)

    held = clock.state()["break"]
    if clock.on_break and held and held["colour_up"]:
        return f"colour-up of the {chips(held['colour_up'])} chips at this break"
    after = clock.number + (1 if clock.on_break else 0)
    for br in sorted(clock.structure.breaks, key=lambda b: b.after_level):
        if br.after_level >= after and br.colour_up:
            return f"colour-up of the {chips(br.colour_up)} chips at the break after " \
                   f"level {br.after_level}"
    return None


def strip(director: TournamentDirector, face: ClockFace, now: float) -> TournamentStrip:
    """A tournament's strip from the host's level clock (read, never polled); ``now``:
    the bridge's clock, the summary's ``server_time``."""
    t = director.model
    running = t.stage is Stage.RUNNING
    ends_at = now + face.seconds_left / face.rate if face.counting else None
    nxt = face.next_level
    return TournamentStrip(
        id=director.id, name=t.setup.name, stage=t.stage.value, level=face.level.level,
        paused=face.paused, ends_at=ends_at, remaining_s=face.seconds_left if running else None,
        small_blind=face.level.small_blind, big_blind=face.level.big_blind,
        ante=face.level.ante,
        next=None if nxt is None else LevelNext(level=nxt.level, small_blind=nxt.small_blind,
                                                big_blind=nxt.big_blind, ante=nxt.ante),
        break_in_s=face.seconds_to_break, on_break=face.on_break,
        colour_up=colour_up(director.level_clock), hand_for_hand=director.h4h is not None,
        players_left=face.players_left, entries=face.entries,
        average_stack=face.average_stack, prize_pool=face.prize_pool,
        next_payout=next_payout(t), tables=list(director.views))


@lru_cache(maxsize=128)
def _seats(text: str) -> int | None:
    """A house file's seats (None if it cannot be read)."""
    try:
        return parse_house(text).seats
    except HouseError:
        return None


@lru_cache(maxsize=1024)
def _reported(snapshot: str) -> tuple[int | None, int | None, int | None, int | None,
                                      str | None, str]:
    """From a table's retained state: the stakes in force (level, blinds, ante), its
    clock's phase and its house text."""
    state = json.loads(snapshot)
    stakes = state.get("stakes") or {}
    clock = state.get("clock") or {}
    return (stakes.get("level"), stakes.get("small_blind"), stakes.get("big_blind"),
            stakes.get("ante"), clock.get("phase"), state.get("house_text") or "")


def _director_state(director: TournamentDirector, wire: str
                    ) -> tuple[TableState, str | None] | None:
    """What a running tournament says of its table: closed by it, its break, a table
    waiting for hand-for-hand or for balancing."""
    number = director.numbers[wire]
    view = director.views[wire]
    if view.closed or number in director.model.floor.closed:
        return "closed", None
    if not is_running(director):
        return None
    clock = director.level_clock
    if clock.on_break:
        return "break", f"the break after level {clock.number}"
    h4h = director.dealing.h4h
    if h4h is not None and h4h.state.get(number) is H4H.WAITING:
        return "paused", "hand-for-hand: it waits for the other tables (TOURN-22)"
    return None


def table_line(wire: str, row: Any, director: TournamentDirector | None,
               face: ClockFace | None, board: AlertBoard, cash: CashRoom,
               online: bool | None) -> TableLine:
    """One table's line: the tournament's level in force, else its own last hand's."""
    level, sb, bb, ante, phase, house = (_reported(row.snapshot) if row is not None
                                         and row.snapshot else (None,) * 5 + ("",))
    game = cash.game_of(wire)
    if director is not None and face is not None:
        level, sb, bb, ante = (face.level.level, face.level.small_blind,
                               face.level.big_blind, face.level.ante)
        size: int | None = director.options.tables[wire]
        section: str | None = director.model.setup.name
    else:
        level = level or (row.level if row is not None else 1)
        size = _seats(game.text) if game else _seats(house) if house else None
        section = game.name if game else None
    state, reason = _state(wire, row, director, board, online, phase)
    return TableLine(level=level or 1, small_blind=sb, big_blind=bb, ante=ante, size=size,
                     tournament=director.id if director else None, section=section,
                     state=state, reason=reason)


def _state(wire: str, row: Any, director: TournamentDirector | None, board: AlertBoard,
           online: bool | None, phase: str | None) -> tuple[TableState, str | None]:
    if row is None:
        return "offline", "it has not reported to this bridge yet"
    told = _director_state(director, wire) if director is not None else None
    if row.closed or (told is not None and told[0] == "closed"):
        return "closed", None
    if online is None:
        return "offline", "unknown: the bridge has lost the broker"
    if not online:
        return "offline", "the table has lost its link to the bridge"
    if told is not None:
        return told
    watch = board.watch(wire)
    if not is_running(director) and (watch.on_break is not None or phase in (
            "break", "break_due")):
        return "break", f"on a break {watch.on_break.text}" if watch.on_break else "a break"
    held = held_reason(watch, director)
    if row.paused:
        if held is None and director is not None and is_running(director):
            return "paused", "short-handed: it waits for balancing (TOURN-19)"
        return "paused", held[1] if held else "paused"
    if watch.colour_up is not None and held is not None:
        return "paused", held[1]
    return "running", None


def get_cash(request: Request) -> CashRoom:
    cash: CashRoom = request.app.state.cash_room
    return cash


def get_board(request: Request) -> AlertBoard:
    board: AlertBoard = request.app.state.alert_board
    return board


@router.get("/summary", responses=AUTH)
async def read_summary(room: Room, bridge: BridgeDep, _who: Reader,
                       cash: Annotated[CashRoom, Depends(get_cash)],
                       board: Annotated[AlertBoard, Depends(get_board)]) -> FloorSummary:
    """Each live tournament's strip and every table's line (level and blinds in force,
    seats, state and why). Any role."""
    live = [d for d in room.all() if d.model.stage in LIVE]
    faces = {d.id: clock_face(d) for d in live}
    owners = {w: d for w, d in room.owners().items() if d.model.stage in LIVE}
    with room.sessions() as session:  # one short read; no await while it is open
        rows = {r.id: r for r in session.execute(select(
            PokerTable.id, PokerTable.online, PokerTable.closed, PokerTable.paused,
            PokerTable.level, PokerTable.snapshot))}
    tables = {}
    for wire in sorted(set(rows) | set(owners)):
        row = rows.get(wire)
        director = owners.get(wire)
        online = bridge.table_online(wire, row.online) if row is not None else False
        tables[wire] = table_line(wire, row, director,
                                  faces[director.id] if director else None, board, cash,
                                  online)
    now = bridge.clock()
    return FloorSummary(server_time=now, tables=tables,
                        tournaments=[strip(d, faces[d.id], now) for d in live])
