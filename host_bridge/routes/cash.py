"""The cash room's API (issue 19, item 4): cash games from the shipped houses, a waiting
list per game (join, leave, call, seat), removals due (CASH-4/5/9), a new table when the
list is long, the players' options (CASH-5/6) and today's rake per game.

Roles: every role reads; ``floor``, ``director`` and ``admin`` act. A refusal by the rules
is a 409 naming the rule (``(CASH-2)`` in ``detail``, and the ``X-Rule`` header) and
nothing is sent; a table's own refusal is a 409 with its reason. Seating, removing and
opening a table go to the table on the command path (audit row, reply).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

from fastapi import APIRouter, Depends, FastAPI, HTTPException, Path, Request, status
from fastapi.responses import RedirectResponse
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import select
from sqlalchemy.orm import Session

from controller.events import Command
from controller.rules.errors import RulesError
from controller.sync.messages import ReplyMessage
from host_bridge.bridge import Bridge
from host_bridge.cash_room import CashRoom, Game, NotFound, Sender, TableRefused
from host_bridge.deps import (
    COMMANDERS_FLOOR,
    READERS,
    BridgeDep,
    Principal,
    SessionDep,
    require,
)
from host_bridge.models import Seat as SeatRow
from host_bridge.routes.commands import deliver
from host_bridge.routes.rake import ledger
from host_bridge.routes.tables import AUTH, Responses
from host_bridge.schemas import Message

router = APIRouter(prefix="/cash", tags=["cash"])

Reader = Annotated[Principal, Depends(require(READERS, "read the cash room"))]
Floor = Annotated[Principal, Depends(require(COMMANDERS_FLOOR, "run the cash room"))]
WireId = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.:-]+$")]
GameId = Annotated[str, Path(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.:-]+$")]
PlayerId = Annotated[str, Path(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.:-]+$")]
ACTS: Responses = {
    **AUTH, 404: {"model": Message, "description": "no such game or table"},
    409: {"model": Message, "description": "refused by the rules (the rule in ``detail`` "
          "and ``X-Rule``), the table offline, or the table refused; nothing changed"},
    422: {"model": Message, "description": "invalid input, or a house a table cannot play"},
    503: {"model": Message, "description": "no broker connection; nothing was sent"},
    504: {"model": Message, "description": "the table did not reply in time"}}


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid")


class GameCreate(_In):
    """A cash game: ``house`` names a shipped cash house (GET /api/v1/houses)."""

    house: WireId
    tables: Annotated[list[WireId], Field(max_length=10)] = []
    id: WireId | None = None  # the house's file name if left out
    no_ratholing: bool = False  # CASH-3: Texas Deepstack, Omaha Shortstack
    new_table_after: Annotated[int, Field(ge=0, le=100)] = 4


class Join(_In):
    player: WireId


class SeatCreate(_In):
    player: WireId
    stack: Annotated[int, Field(gt=0, le=10**9)]
    reset: bool = False  # CASH-14: a Banzai player resets to 10 BB instead


class Removal(_In):
    player: WireId
    table_id: WireId


class TableOpen(_In):
    table_id: WireId


class Options(_In):
    auto_top_up: bool | None = None  # CASH-6
    global_sit_out: bool | None = None  # CASH-5


class SeatView(BaseModel):
    seat: int
    player: str
    stack: int | None
    sitting_out: str | None  # the rule whose clock runs (CASH-4/5), or None


class TableView(BaseModel):
    table_id: str
    seats: int
    players: list[SeatView]


class CallView(BaseModel):
    player: str
    table_id: str
    seat: int


class DueView(BaseModel):
    player: str
    table_id: str
    seat: int
    rule: str


class GamePublic(BaseModel):
    id: str
    house: str
    name: str
    label: str
    unit: str
    small_blind: int
    big_blind: int
    buy_in_min: int
    buy_in_max: int
    buy_in_rule: str
    no_ratholing: bool
    banzai: bool
    max_tables: int
    new_table_after: int
    tables: list[TableView]
    waiting: list[str]
    called: list[CallView]
    due: list[DueView]
    suggested_table: str | None
    rake_today: int


class GamesPublic(BaseModel):
    data: list[GamePublic]
    count: int


class SeatedPublic(BaseModel):
    table_id: str
    seat: int
    game: GamePublic


class OptionsPublic(BaseModel):
    player: str
    auto_top_up: bool
    global_sit_out: bool


def get_room(request: Request) -> CashRoom:
    room: CashRoom = request.app.state.cash_room
    return room


Room = Annotated[CashRoom, Depends(get_room)]


def attach(app: FastAPI) -> CashRoom:
    """Give ``app`` its cash room (restored from the store) and the ``/cash`` page."""
    room = CashRoom(app.state.bridge, app.state.sessions, app.state.settings.houses_dir)
    app.state.cash_room = room

    async def to_page() -> RedirectResponse:
        return RedirectResponse("/dashboard/cash.html")

    app.add_api_route("/cash", to_page, include_in_schema=False)
    return room


def refused(exc: RulesError) -> HTTPException:
    rule = exc.rule or ""
    return HTTPException(status.HTTP_409_CONFLICT,
                         f"{exc.reason} ({rule}); nothing was sent" if rule else exc.reason,
                         headers={"X-Rule": rule})


def sender(session: Session, bridge: Bridge, who: Principal) -> Sender:
    """Commands to a table as ``who``, on the path every command takes."""
    async def send(wire: str, command: Command) -> ReplyMessage:
        _, reply = await deliver(wire, command, session, bridge, who)
        return reply
    return send


def view(room: CashRoom, game: Game, session: Session) -> GamePublic:
    """A game as the floor sees it (stacks from the store, rake from the ledger)."""
    floor, stake = room.floor, room.floor.stakes[game.id]
    stacks = {(r.table_id, r.seat): r.stack for r in session.scalars(
        select(SeatRow).where(SeatRow.table_id.in_(game.tables)))} if game.tables else {}
    tables = []
    for wire in game.tables:
        t = floor.tables[room.number(wire) or 0]
        tables.append(TableView(table_id=wire, seats=t.seats, players=[
            SeatView(seat=s, player=p, stack=stacks.get((wire, s)),
                     sitting_out=(o.rule if (o := floor.sitting_out.get((p, t.table)))
                                  else None))
            for s, p in sorted(t.players.items())]))
    today = datetime.fromtimestamp(room.bridge.clock(), UTC).date()
    rake = sum(r.rake for r in ledger(session, today) if r.table_id in game.tables)
    return GamePublic(
        id=game.id, house=game.house, name=game.name, label=game.label, unit=game.unit,
        small_blind=stake.small_blind, big_blind=stake.big_blind, buy_in_min=stake.low,
        buy_in_max=stake.high, buy_in_rule=stake.rule, no_ratholing=stake.no_rathole,
        banzai=stake.banzai, max_tables=stake.max_tables,
        new_table_after=game.new_table_after, tables=tables,
        waiting=list(floor.lists[game.id]),
        called=[CallView(player=p, table_id=w, seat=s) for p, w, s in room.called(game)],
        due=[DueView(player=d.player, table_id=room.wire(d.table), seat=d.seat, rule=d.rule)
             for d in room.due() if room.wire(d.table) in game.tables],
        suggested_table=room.suggestion(game, session), rake_today=rake)


def one(room: CashRoom, game_id: str) -> Game:
    try:
        return room.game(game_id)
    except NotFound as exc:
        raise HTTPException(status.HTTP_404_NOT_FOUND, str(exc)) from None


def _table_refused(exc: TableRefused) -> HTTPException:
    return HTTPException(status.HTTP_409_CONFLICT, str(exc),
                         headers={"X-Rule": exc.rule or ""})


@router.get("/games", responses=AUTH)
def list_games(room: Room, session: SessionDep, _who: Reader) -> GamesPublic:
    """Every cash game: its house, limits, tables and players, waiting list, players
    called, removals due, a suggested new table, today's rake. Roles: all."""
    games = [view(room, g, session) for g in room.games.values()]
    return GamesPublic(data=games, count=len(games))


@router.post("/games", status_code=status.HTTP_201_CREATED, responses=ACTS)
async def create_game(body: GameCreate, room: Room, session: SessionDep,
                      _who: Floor) -> GamePublic:
    """A cash game of a shipped cash house (its stakes and buy-in limits: CASH-2/7/8) at
    the floor's ``tables`` (already playing it; the players seated there are the game's).
    ``no_ratholing`` for Deepstack/Shortstack (CASH-3). Roles: floor, director, admin."""
    async with room.lock:
        try:
            game = room.create(body.id or body.house, body.house, body.tables, session,
                               no_rathole=body.no_ratholing,
                               new_table_after=body.new_table_after)
        except NotFound as exc:
            raise HTTPException(status.HTTP_404_NOT_FOUND, str(exc)) from None
        except RulesError as exc:
            raise refused(exc) from None
        return view(room, game, session)


@router.get("/games/{game_id}", responses={**AUTH, 404: {"model": Message}})
def read_game(game_id: GameId, room: Room, session: SessionDep, _who: Reader) -> GamePublic:
    """One cash game (as in the list). Roles: all."""
    return view(room, one(room, game_id), session)


@router.post("/games/{game_id}/waiting", responses=ACTS)
async def join_list(game_id: GameId, body: Join, room: Room, session: SessionDep,
                    _who: Floor) -> GamePublic:
    """Put a player on the game's waiting list (CASH-1). Roles: floor, director, admin."""
    async with room.lock:
        one(room, game_id)
        try:
            room.join(game_id, body.player)
        except RulesError as exc:
            raise refused(exc) from None
        return view(room, room.game(game_id), session)


@router.delete("/games/{game_id}/waiting/{player}", responses=ACTS)
async def leave_list(game_id: GameId, player: PlayerId, room: Room, session: SessionDep,
                     _who: Floor) -> GamePublic:
    """Take a player off the list (CASH-1: at any time); a seat held for them is
    freed. Roles: floor, director, admin."""
    async with room.lock:
        one(room, game_id)
        try:
            room.leave_list(game_id, player)
        except RulesError as exc:
            raise refused(exc) from None
        return view(room, room.game(game_id), session)


@router.post("/games/{game_id}/call", responses=ACTS)
async def call_next(game_id: GameId, room: Room, session: SessionDep,
                    _who: Floor) -> GamePublic:
    """Call the next player on the list to a free seat (CASH-1: a table they played
    before, then the fewest players); the seat is held for them. Roles: floor, director,
    admin."""
    async with room.lock:
        one(room, game_id)
        try:
            room.call(game_id)
        except RulesError as exc:
            raise refused(exc) from None
        return view(room, room.game(game_id), session)


@router.post("/games/{game_id}/seat", responses=ACTS)
async def seat_player(game_id: GameId, body: SeatCreate, room: Room, session: SessionDep,
                      bridge: BridgeDep, who: Floor) -> SeatedPublic:
    """Seat a called player with ``stack``: the buy-in checked first (CASH-2 ratholing,
    CASH-3, CASH-7/8 the house's limits, CASH-13/14 Banzai; 409 naming the rule, nothing
    sent), then ``seat_player`` sent to the table. Roles: floor, director, admin."""
    async with room.lock:
        one(room, game_id)
        try:
            wire, seat = await room.seat(game_id, body.player, body.stack,
                                         sender(session, bridge, who), reset=body.reset)
        except RulesError as exc:
            raise refused(exc) from None
        except TableRefused as exc:
            raise _table_refused(exc) from None
        return SeatedPublic(table_id=wire, seat=seat,
                            game=view(room, room.game(game_id), session))


@router.post("/games/{game_id}/removals", responses=ACTS)
async def remove_player(game_id: GameId, body: Removal, room: Room, session: SessionDep,
                        bridge: BridgeDep, who: Floor) -> GamePublic:
    """Remove a player due for removal (CASH-4: 10 minutes sitting out; CASH-5: 500 s of
    a global sit-out; CASH-9: the second button pass with a waiting list): sends
    ``remove_player``. Roles: floor, director, admin."""
    async with room.lock:
        one(room, game_id)
        try:
            await room.remove(game_id, body.player, body.table_id,
                              sender(session, bridge, who), session)
        except RulesError as exc:
            raise refused(exc) from None
        except TableRefused as exc:
            raise _table_refused(exc) from None
        return view(room, room.game(game_id), session)


@router.post("/games/{game_id}/tables", responses=ACTS)
async def open_table(game_id: GameId, body: TableOpen, room: Room, session: SessionDep,
                     bridge: BridgeDep, who: Floor) -> GamePublic:
    """Open a free table for the game (the suggestion confirmed): ``set_house`` with the
    game's house, then the waiting players called to its seats. Roles: floor, director,
    admin."""
    async with room.lock:
        one(room, game_id)
        try:
            await room.open_table(game_id, body.table_id, sender(session, bridge, who),
                                  session)
        except RulesError as exc:
            raise refused(exc) from None
        except TableRefused as exc:
            raise _table_refused(exc) from None
        return view(room, room.game(game_id), session)


@router.put("/players/{player}/options", responses=ACTS)
async def set_options(player: PlayerId, body: Options, room: Room,
                      _who: Floor) -> OptionsPublic:
    """A player's options: ``auto_top_up`` (CASH-6: after every hand, back to the initial
    buy-in; off by default) and ``global_sit_out`` (CASH-5: sitting out at one table is
    sitting out at all, 500 s to return). Roles: floor, director, admin."""
    async with room.lock:
        top_up, everywhere = room.set_options(player, auto_top_up=body.auto_top_up,
                                              global_sit_out=body.global_sit_out)
    return OptionsPublic(player=player, auto_top_up=top_up, global_sit_out=everywhere)
