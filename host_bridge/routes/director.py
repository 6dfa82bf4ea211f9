"""The tournament director's API (issue 9): create a tournament over tables, register and
late-register players, start it (the seat draw), balancing suggestions and their
confirmation, hand-for-hand, places and payouts, the last hands of the day.

Roles: every role reads; ``director`` and ``admin`` act. Bad input is a 422 naming the
field; a refusal by the rules is a 409 naming the rule (``rule``) and what to do.

One tournament runs per bridge (:class:`DirectorRoom`); it is rebuilt from its journal
when the bridge starts again, and resumes at the first table report or request.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Annotated, Any

from fastapi import APIRouter, Depends, FastAPI, HTTPException, Path, Request, status
from fastapi.responses import JSONResponse
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from controller.rules.errors import RulesError
from host_bridge.bridge import Bridge
from host_bridge.db import writer_sessions
from host_bridge.deps import COMMANDERS_DIRECTOR, READERS, Principal, require
from host_bridge.director.journal import DirectorJournal
from host_bridge.director.options import TournamentOptions
from host_bridge.director.purchases import PurchaseUnconfirmed
from host_bridge.director.schemas import (
    BalanceConfirm,
    BalancingPublic,
    HandForHandPublic,
    LastHandsCreate,
    PlacesPublic,
    PlayerCreate,
    TournamentCreate,
    TournamentPublic,
)
from host_bridge.director.service import TournamentDirector
from host_bridge.models import PokerTable
from host_bridge.schemas import Message
from host_bridge.settings import Role

log = logging.getLogger(__name__)
router = APIRouter(prefix="/director", tags=["director"])

Reader = Annotated[Principal, Depends(require(READERS, "read the tournament"))]
Director = Annotated[Principal, Depends(require(COMMANDERS_DIRECTOR, "run the tournament"))]
AUTH: dict[int | str, dict[str, Any]] = {
    401: {"model": Message, "description": "missing or unknown token"},
    403: {"model": Message, "description": "this role may not do that"}}
NONE: dict[int | str, dict[str, Any]] = {404: {"model": Message,
                                               "description": "no tournament yet"}}
REFUSED: dict[int | str, dict[str, Any]] = {409: {"model": Message,
                                                  "description": "refused by the rules"}}


class DirectorRoom:
    """The bridge's tournament: at most one, created by the API or restored."""

    def __init__(self, bridge: Bridge, sessions: sessionmaker[Session]) -> None:
        self.bridge = bridge
        self.sessions = sessions
        self.journal = DirectorJournal(writer_sessions(sessions))
        self.director: TournamentDirector | None = None
        self._resumed = True
        self._lock = asyncio.Lock()
        try:
            restored = TournamentDirector.restore(self.journal, bridge.desk)
        except Exception:  # a broken journal must not stop the bridge
            log.exception("the tournament could not be restored from its journal")
            restored = None
        if restored is not None:
            self._attach(restored)
            self._resumed = False
            restored.catch_up(sessions)

    def _attach(self, director: TournamentDirector) -> None:
        if self.director is not None:
            self.bridge.observers.remove(self._observe)
        self.director = director
        self.bridge.observers.append(self._observe)

    def _observe(self, items: Any) -> None:
        if self.director is None:
            return
        self.director.observe(items)
        if not self._resumed:
            self._resumed = True
            asyncio.get_running_loop().create_task(self.director.resume(),
                                                   name="director-resume")

    async def close(self) -> None:
        """Stop the director's task (the bridge is stopping); its journal is complete."""
        if self.director is not None:
            await self.director.stop()

    async def ready(self) -> TournamentDirector:
        if self.director is None:
            raise HTTPException(status.HTTP_404_NOT_FOUND, "no tournament yet: create one "
                                "with POST /api/v1/director/tournament")
        if not self._resumed:
            self._resumed = True
            await self.director.resume()
        return self.director

    async def create(self, options: TournamentOptions) -> TournamentDirector:
        if self.director is not None and self.director.model.stage.value in (
                "registering", "running"):
            raise refused(RulesError(f"tournament {self.director.id} is "
                                     f"{self.director.model.stage.value}; one at a time",
                                     "TOURN-1"))
        director = TournamentDirector.create(options, self.bridge.desk, journal=self.journal,
                                             command_timeout_s=self.bridge.settings
                                             .command_timeout_s)
        if self.director is not None:
            await self.director.stop()
        self._attach(director)
        self._resumed = True
        return director


def attach(app: FastAPI) -> DirectorRoom:
    """Give ``app`` its director room (restoring a tournament from the journal)."""
    room = DirectorRoom(app.state.bridge, app.state.sessions)
    app.state.director_room = room
    return room


def get_room(request: Request) -> DirectorRoom:
    room: DirectorRoom = request.app.state.director_room
    return room


Room = Annotated[DirectorRoom, Depends(get_room)]


def refused(exc: RulesError) -> HTTPException:
    """A 409 naming the rule."""
    rule = f" ({exc.rule})" if exc.rule else ""
    return HTTPException(status.HTTP_409_CONFLICT, f"{exc.reason}{rule}",
                         headers={"X-Rule": exc.rule or ""})


def invalid(field: str, message: str) -> JSONResponse:
    return JSONResponse(status_code=status.HTTP_422_UNPROCESSABLE_CONTENT, content={
        "detail": [{"loc": ["body", field], "msg": message, "type": "value_error",
                    "field": f"body field {field}"}],
        "message": f"invalid input: body field {field}: {message}"})


_FIELDS = ("name", "tables", "players", "structure", "breaks", "level_minutes", "sync_every_s",
           "starting_stack", "buy_in", "fee", "profile", "rebuy_levels")


@router.get("/whoami", responses=AUTH)
async def read_whoami(who: Reader) -> dict[str, str]:
    """The token's grant name and role (the page shows the actions the role may take).
    Roles: all."""
    return {"name": who.name, "role": who.role.value}


@router.get("/tournament", responses={**AUTH, **NONE})
async def read_tournament(room: Room, _who: Reader) -> TournamentPublic:
    """The tournament now: field, tables, hand-for-hand, places. Roles: all."""
    director = await room.ready()
    return TournamentPublic.model_validate(director.status())


@router.post("/tournament", status_code=status.HTTP_201_CREATED,
             responses={**AUTH, **REFUSED, 422: {"description": "a field cannot be used"}})
async def create_tournament(body: TournamentCreate, room: Room, _who: Director) -> Any:
    """Create a tournament over tables with its players registered (TOURN-1/8). Roles:
    ``director``, ``admin``."""
    try:
        options = TournamentOptions(
            name=body.name, tables=dict(body.tables), players=tuple(body.players),
            structure=body.structure, starting_stack=body.starting_stack,
            buy_in=body.buy_in, fee=body.fee, seed=body.seed,
            level_seconds=60 * body.level_minutes if body.level_minutes else 0.0,
            breaks=tuple((b.after_level, 60 * b.minutes, tuple(b.colour_up))
                         for b in body.breaks),
            late_registration_levels=body.late_registration_levels,
            hand_for_hand_margin=body.hand_for_hand_margin, auto_balance=body.auto_balance,
            time_bank_start=body.time_bank_start,
            time_bank_final_table=body.time_bank_final_table,
            rebuy_levels=body.rebuy_levels, rebuy_price=body.rebuy_price,
            rebuy_fee=body.rebuy_fee, add_on=body.add_on, add_on_price=body.add_on_price,
            add_on_fee=body.add_on_fee)
        options.verify()
        options.setup()
    except RulesError as exc:
        field = exc.reason.split(":", 1)[0]
        return invalid(field if field in _FIELDS else "name", exc.reason)
    async with room._lock:
        try:
            director = await room.create(options)
        except RulesError as exc:
            if "is already registered" in exc.reason or "listed twice" in exc.reason:
                return invalid("players", exc.reason)
            raise refused(exc) from None
    return TournamentPublic.model_validate(director.status())


@router.post("/tournament/players", status_code=status.HTTP_201_CREATED,
             responses={**AUTH, **NONE, **REFUSED})
async def register_player(body: PlayerCreate, room: Room, _who: Director) -> TournamentPublic:
    """Register a player; once running, a late entry seated by TOURN-4 while late
    registration is open (TOURN-5). Roles: ``director``, ``admin``."""
    director = await room.ready()
    try:
        await director.register(body.player)
    except RulesError as exc:
        raise refused(exc) from None
    return TournamentPublic.model_validate(director.status())


@router.post("/tournament/start", responses={**AUTH, **NONE, **REFUSED})
async def start_tournament(room: Room, _who: Director) -> TournamentPublic:
    """The seat draw (TOURN-2); players are seated at the tables and the clock starts.
    Roles: ``director``, ``admin``."""
    director = await room.ready()
    with room.sessions() as session:
        online = set(session.scalars(select(PokerTable.id).where(
            PokerTable.id.in_(list(director.views)), PokerTable.online.is_(True))))
    offline = [w for w in director.views if w not in online]
    if offline and director.model.stage.value == "registering":
        raise refused(RulesError(f"tables {', '.join(offline[:5])} are not online; the draw "
                                 "waits for every table (GET /api/v1/tables)", "TOURN-2"))
    try:
        await director.start()
    except RulesError as exc:
        raise refused(exc) from None
    return TournamentPublic.model_validate(director.status())


@router.get("/tournament/balancing", responses={**AUTH, **NONE})
async def read_balancing(room: Room, _who: Reader) -> BalancingPublic:
    """Suggested balancing, table breaks and the final-table redraw (TOURN-19..21, -28),
    with the version to confirm them. Roles: all."""
    director = await room.ready()
    s = director.status()
    return BalancingPublic(version=s["version"], auto_balance=s["auto_balance"],
                           suggestions=s["suggestions"])


@router.post("/tournament/balancing", responses={**AUTH, **NONE, **REFUSED})
async def confirm_balancing(body: BalanceConfirm, room: Room, _who: Director
                            ) -> TournamentPublic:
    """Carry out the suggestions (the tables are held between hands while players move).
    Refused when the floor changed since ``version``. Roles: ``director``, ``admin``."""
    director = await room.ready()
    if director.model.stage.value != "running":
        raise refused(RulesError(f"the tournament is {director.model.stage.value}",
                                 "TOURN-19"))
    if not director.suggestions():
        raise refused(RulesError("the tables are balanced: nothing to move", "TOURN-19"))
    try:
        await director.carry_out_floor_work(body.version)
    except RulesError as exc:
        raise refused(exc) from None
    return TournamentPublic.model_validate(director.status())


@router.get("/tournament/hand-for-hand", responses={**AUTH, **NONE})
async def read_hand_for_hand(room: Room, _who: Reader) -> HandForHandPublic:
    """Hand-for-hand play (TOURN-22): the hand, the tables still playing it. Roles: all."""
    director = await room.ready()
    return HandForHandPublic.model_validate(director.status()["hand_for_hand"])


@router.get("/tournament/places", responses={**AUTH, **NONE})
async def read_places(room: Room, _who: Reader) -> PlacesPublic:
    """Eliminations, finishing places and prizes (TOURN-1, -24). Roles: all."""
    director = await room.ready()
    s = director.status()
    return PlacesPublic(places=s["places"], prizes=s["prizes"], prize_pool=s["prize_pool"],
                        places_paid=s["places_paid"], winner=s["winner"])


@router.post("/tournament/last-hands", responses={**AUTH, **NONE, **REFUSED})
async def draw_last_hands(body: LastHandsCreate, room: Room, who: Director
                          ) -> TournamentPublic:
    """TOURN-27: stop the clock, draw 3..7 hands; every table plays that many more.
    Only with 15 to 5 minutes left in the level. Roles: ``director``, ``admin``."""
    director = await room.ready()
    try:
        await director.draw_last_hands(body.card)
    except RulesError as exc:
        raise refused(exc) from None
    log.info("%s (%s) drew the last hands of the day", who.name, Role(who.role).value)
    return TournamentPublic.model_validate(director.status())


PlayerId = Annotated[str, Path(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.:-]+$",
                               description="the player's id")]
BUYING: dict[int | str, dict[str, Any]] = {
    404: {"model": Message, "description": "no tournament yet, or no such player"},
    504: {"model": Message, "description": "the table has not reported the chips yet"}}


async def _buy(room: DirectorRoom, player: str, what: str) -> TournamentPublic:
    director = await room.ready()
    if player not in director.model.current:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"player {player!r} is not registered "
                            f"in tournament {director.id} (GET {PREFIX})")
    try:
        await (director.rebuy(player) if what == "rebuy" else director.add_on(player))
    except PurchaseUnconfirmed as exc:
        raise HTTPException(status.HTTP_504_GATEWAY_TIMEOUT, exc.reason) from None
    except RulesError as exc:
        raise refused(exc) from None
    return TournamentPublic.model_validate(director.status())


PREFIX = "/api/v1/director/tournament"


@router.post("/tournament/players/{player}/rebuy", responses={**AUTH, **BUYING, **REFUSED})
async def rebuy_player(player: PlayerId, room: Room, _who: Director) -> TournamentPublic:
    """TOURN-10/11: a rebuy of the starting stack, while the player has at most the
    starting stack and within the rebuy levels; the player's table is held between hands,
    adds the chips and reports them, and the model and the prize pool follow. Roles:
    ``director``, ``admin``."""
    return await _buy(room, player, "rebuy")


@router.post("/tournament/players/{player}/add-on", responses={**AUTH, **BUYING, **REFUSED})
async def add_on_player(player: PlayerId, room: Room, _who: Director) -> TournamentPublic:
    """TOURN-12: the add-on, once per player, in the break after level 2; carried to the
    table like a rebuy. Roles: ``director``, ``admin``."""
    return await _buy(room, player, "add_on")
