"""The tournament director's API (issues 9 and 19): several tournaments per bridge, each
over its own tables, every route under the tournament's id
(``/api/v1/director/tournaments/{tid}/...``): create one over tables, register and
late-register players, start it (the seat draw), balancing suggestions and their
confirmation, hand-for-hand, places and payouts, the last hands of the day, rebuys and
add-ons, and the floor's log of those decisions.

Roles: every role reads; ``director`` and ``admin`` act; the log is read by ``director``,
``admin`` and ``floor``. Every action is journaled with who took it (the token's grant
name and role: :class:`~host_bridge.director.journal.Actor`). Bad input is a 422 naming the
field; a refusal by the rules is a 409 naming the rule (``rule``) and what to do; an
unknown tournament is a 404 naming the id.

The bridge's tournaments live in :class:`DirectorRoom`, by id; every one journaled is
rebuilt when the bridge starts again (a finished one too: its places stay readable), and
resumes at the first table report or request. A table belongs to at most one tournament
that is not finished, and each table's events reach only the tournament it belongs to.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from typing import Annotated, Any

from fastapi import APIRouter, Depends, FastAPI, HTTPException, Path, Query, Request, status
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from controller.rules.errors import RulesError
from controller.sync.messages import EventMessage
from host_bridge.bridge import Bridge
from host_bridge.db import writer_sessions
from host_bridge.deps import (
    COMMANDERS_DIRECTOR,
    COMMANDERS_FLOOR,
    READERS,
    Principal,
    require,
)
from host_bridge.director.entries import Stage
from host_bridge.director.journal import LOG_LIMIT, Actor, DirectorJournal, describe
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
    TournamentSummary,
)
from host_bridge.director.service import TournamentDirector
from host_bridge.models import EventRecord, PokerTable
from host_bridge.schemas import Message
from host_bridge.settings import Role

log = logging.getLogger(__name__)
router = APIRouter(prefix="/director", tags=["director"])
PREFIX = "/api/v1/director/tournaments"

Reader = Annotated[Principal, Depends(require(READERS, "read the tournament"))]
Director = Annotated[Principal, Depends(require(COMMANDERS_DIRECTOR, "run the tournament"))]
LogReader = Annotated[Principal, Depends(require(COMMANDERS_FLOOR,
                                                 "read the tournament's decisions"))]
TournamentId = Annotated[str, Path(min_length=1, max_length=64,
                                   description="the tournament's id (GET " + PREFIX + ")")]
AUTH: dict[int | str, dict[str, Any]] = {
    401: {"model": Message, "description": "missing or unknown token"},
    403: {"model": Message, "description": "this role may not do that"}}
NONE: dict[int | str, dict[str, Any]] = {404: {"model": Message,
                                               "description": "no tournament with that id"}}
REFUSED: dict[int | str, dict[str, Any]] = {409: {"model": Message,
                                                  "description": "refused by the rules"}}
LIVE = (Stage.REGISTERING, Stage.RUNNING)


def is_live(director: TournamentDirector) -> bool:
    """Registering or running: its tables are its own until it finishes."""
    return director.model.stage in LIVE


class DirectorRoom:
    """The bridge's tournaments by id, created by the API or restored from the journal.

    One bridge observer for them all: each table's events go to the tournament that table
    belongs to (the live one using it, else the latest created), so no tournament hears
    another's hands."""

    def __init__(self, bridge: Bridge, sessions: sessionmaker[Session]) -> None:
        self.bridge = bridge
        self.sessions = sessions
        self.journal = DirectorJournal(writer_sessions(sessions))
        self.directors: dict[str, TournamentDirector] = {}
        self._unresumed: set[str] = set()
        self._resuming: dict[str, asyncio.Task[None]] = {}
        self._lock = asyncio.Lock()
        bridge.observers.append(self._observe)
        for tid in self._journaled():
            self._restore(tid)

    # -- restoring ------------------------------------------------------------------------
    def _journaled(self) -> list[str]:
        try:
            return self.journal.ids()
        except Exception:  # a broken journal must not stop the bridge
            log.exception("the tournaments could not be listed from the journal")
            return []

    def _restore(self, tid: str) -> None:
        try:
            director = TournamentDirector.restore(
                self.journal, self.bridge.desk, tid,
                command_timeout_s=self.bridge.settings.command_timeout_s)
        except Exception:  # one broken tournament must not stop the others
            log.exception("tournament %s could not be restored from its journal", tid)
            return
        if director is None:
            return
        self.directors[tid] = director
        self._unresumed.add(tid)
        if is_live(director):  # a finished one hears nothing more; its tables may be reused
            director.catch_up(self.sessions)

    def _resume(self, tid: str) -> asyncio.Task[None] | None:
        """Resume a restored tournament once, on the running loop (its task, if any)."""
        if tid in self._unresumed:
            self._unresumed.discard(tid)
            self._resuming[tid] = asyncio.get_running_loop().create_task(
                self.directors[tid].resume(), name=f"director-resume-{tid}")
        return self._resuming.get(tid)

    # -- the tables' events -----------------------------------------------------------------
    def owners(self) -> dict[str, TournamentDirector]:
        """Each table's tournament: the live one using it, else the latest created."""
        out: dict[str, TournamentDirector] = {}
        for director in self.directors.values():  # in the order they were created
            for wire in director.views:
                if wire not in out or not is_live(out[wire]):
                    out[wire] = director
        return out

    def _observe(self, items: Sequence[EventMessage]) -> None:
        owners = self.owners()
        batches: dict[str, list[EventMessage]] = {}
        for message in items:
            if (owner := owners.get(message.table)) is not None:
                batches.setdefault(owner.id, []).append(message)
        for tid, batch in batches.items():
            try:
                self.directors[tid].observe(batch)
            except Exception:  # one tournament's failure must not starve the others
                log.exception("tournament %s could not take its tables' reports", tid)
        for tid in list(self._unresumed):
            self._resume(tid)

    # -- the API's view -------------------------------------------------------------------------
    def all(self) -> list[TournamentDirector]:
        """Every tournament of the bridge, in the order they were created."""
        return list(self.directors.values())

    def find(self, tid: str) -> TournamentDirector:
        """The tournament ``tid``; a 404 naming it when there is none."""
        director = self.directors.get(tid)
        if director is None:
            raise HTTPException(status.HTTP_404_NOT_FOUND, f"no tournament {tid!r} on this "
                                f"bridge: GET {PREFIX} lists them, POST {PREFIX} creates one")
        return director

    async def ready(self, tid: str) -> TournamentDirector:
        """The tournament ``tid``, resumed (its tables made to match it) if restored."""
        director = self.find(tid)
        task = self._resume(tid)
        if task is not None and not task.done():
            await asyncio.shield(task)
        return director

    async def close(self) -> None:
        """Stop every director's task (the bridge is stopping); their journals are complete."""
        for task in self._resuming.values():
            task.cancel()
        await asyncio.gather(*self._resuming.values(), return_exceptions=True)
        for director in self.directors.values():
            await director.stop()

    # -- creating -----------------------------------------------------------------------------
    async def create(self, options: TournamentOptions, *,
                     clock: Callable[[], float] | None = None,
                     by: Actor | None = None) -> TournamentDirector:
        """A new tournament over tables no live tournament uses (TOURN-1). ``clock``: its
        level clock's time (``pitboss demo`` runs it fast); the host's monotonic one if
        not given. ``by``: who created it (journaled)."""
        async with self._lock:
            self._verify_tables_free(options)
            director = TournamentDirector.create(
                options, self.bridge.desk, journal=self.journal,
                command_timeout_s=self.bridge.settings.command_timeout_s,
                since=self._last_seqs(list(options.tables)), by=by,
                **({} if clock is None else {"clock": clock}))
            self.directors[director.id] = director
        return director

    def _verify_tables_free(self, options: TournamentOptions) -> None:
        for other in self.directors.values():
            taken = sorted(set(options.tables) & set(other.views))
            if taken and is_live(other):
                raise RulesError(
                    f"table {taken[0]} is in tournament {other.id} ({other.options.name}), "
                    f"which is {other.model.stage.value}: a table belongs to one tournament "
                    "at a time; choose other tables or wait until it finishes", "TOURN-1")

    def _last_seqs(self, wires: list[str]) -> dict[str, int]:
        """Each table's last stored seq: its events up to now are not the new
        tournament's (a restart does not catch up on them)."""
        with self.sessions() as session:
            rows = session.execute(select(EventRecord.table_id, func.max(EventRecord.seq))
                                   .where(EventRecord.table_id.in_(wires))
                                   .group_by(EventRecord.table_id)).all()
        return {table: int(seq) for table, seq in rows}


def attach(app: FastAPI) -> DirectorRoom:
    """Give ``app`` its director room (restoring every tournament from the journal)."""
    room = DirectorRoom(app.state.bridge, app.state.sessions)
    app.state.director_room = room
    return room


def get_room(request: Request) -> DirectorRoom:
    room: DirectorRoom = request.app.state.director_room
    return room


Room = Annotated[DirectorRoom, Depends(get_room)]


def actor(who: Principal) -> Actor:
    """Who did it, as the journal keeps it: the token's grant name and role."""
    return Actor(name=who.name, role=Role(who.role).value)


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


def summary(director: TournamentDirector) -> TournamentSummary:
    """One line of the list (cheap: no suggestions computed)."""
    model = director.model
    return TournamentSummary(id=director.id, name=model.setup.name, stage=model.stage.value,
                             level=model.level, players_left=len(model.alive()),
                             entries=len(model.entries), tables=list(director.views))


_FIELDS = ("name", "tables", "players", "structure", "breaks", "level_minutes", "sync_every_s",
           "starting_stack", "buy_in", "fee", "profile", "rebuy_levels")


@router.get("/whoami", responses=AUTH)
async def read_whoami(who: Reader) -> dict[str, str]:
    """The token's grant name and role (the page shows the actions the role may take).
    Roles: all."""
    return {"name": who.name, "role": who.role.value}


@router.get("/tournaments", responses=AUTH)
async def list_tournaments(room: Room, _who: Reader) -> list[TournamentSummary]:
    """Every tournament of the bridge (finished ones too), in the order they were created:
    id, name, stage, players left of the entries, tables. Roles: all."""
    return [summary(d) for d in room.all()]


@router.post("/tournaments", status_code=status.HTTP_201_CREATED,
             responses={**AUTH, **REFUSED, 422: {"description": "a field cannot be used"}})
async def create_tournament(body: TournamentCreate, room: Room, who: Director) -> Any:
    """Create a tournament over tables with its players registered (TOURN-1/8); refused
    (409, TOURN-1) over a table another tournament that is not finished uses. The answer
    carries its ``id``. Roles: ``director``, ``admin``."""
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
            add_on_fee=body.add_on_fee, re_entry=body.re_entry, max_entries=body.max_entries,
            surrender=body.surrender, bounty=body.bounty, progressive=body.progressive,
            deals=body.deals)
        options.verify()
        options.setup()
    except RulesError as exc:
        field = exc.reason.split(":", 1)[0]
        return invalid(field if field in _FIELDS else "name", exc.reason)
    try:
        director = await room.create(options, by=actor(who))
    except RulesError as exc:
        if "is already registered" in exc.reason or "listed twice" in exc.reason:
            return invalid("players", exc.reason)
        raise refused(exc) from None
    return TournamentPublic.model_validate(director.status())


@router.get("/tournaments/{tid}", responses={**AUTH, **NONE})
async def read_tournament(tid: TournamentId, room: Room, _who: Reader) -> TournamentPublic:
    """The tournament now: field, tables, hand-for-hand, places; a move that waits for a
    hand to end is shown ``pending``. Roles: all."""
    director = await room.ready(tid)
    return TournamentPublic.model_validate(director.status())


@router.post("/tournaments/{tid}/players", status_code=status.HTTP_201_CREATED,
             responses={**AUTH, **NONE, **REFUSED})
async def register_player(tid: TournamentId, body: PlayerCreate, room: Room,
                          who: Director) -> TournamentPublic:
    """Register a player; once running, a late entry seated by TOURN-4 while late
    registration is open (TOURN-5). Roles: ``director``, ``admin``."""
    director = await room.ready(tid)
    try:
        await director.register(body.player, actor(who))
    except RulesError as exc:
        raise refused(exc) from None
    return TournamentPublic.model_validate(director.status())


@router.post("/tournaments/{tid}/start", responses={**AUTH, **NONE, **REFUSED})
async def start_tournament(tid: TournamentId, room: Room, who: Director) -> TournamentPublic:
    """The seat draw (TOURN-2); players are seated at the tables and the clock starts.
    Roles: ``director``, ``admin``."""
    director = await room.ready(tid)
    with room.sessions() as session:
        online = set(session.scalars(select(PokerTable.id).where(
            PokerTable.id.in_(list(director.views)), PokerTable.online.is_(True))))
    offline = [w for w in director.views if w not in online]
    if offline and director.model.stage.value == "registering":
        raise refused(RulesError(f"tables {', '.join(offline[:5])} are not online; the draw "
                                 "waits for every table (GET /api/v1/tables)", "TOURN-2"))
    try:
        await director.start(actor(who))
    except RulesError as exc:
        raise refused(exc) from None
    return TournamentPublic.model_validate(director.status())


@router.get("/tournaments/{tid}/balancing", responses={**AUTH, **NONE})
async def read_balancing(tid: TournamentId, room: Room, _who: Reader) -> BalancingPublic:
    """Suggested balancing, table breaks and the final-table redraw (TOURN-19..21, -28),
    with the version to confirm them; a move waiting for a hand is ``pending``. Roles:
    all."""
    director = await room.ready(tid)
    s = director.status()
    return BalancingPublic(version=s["version"], auto_balance=s["auto_balance"],
                           suggestions=s["suggestions"])


@router.post("/tournaments/{tid}/balancing", responses={**AUTH, **NONE, **REFUSED})
async def confirm_balancing(tid: TournamentId, body: BalanceConfirm, room: Room,
                            who: Director) -> TournamentPublic:
    """Carry out the suggestions (the tables are held between hands while players move).
    Refused when the floor changed since ``version``. Roles: ``director``, ``admin``."""
    director = await room.ready(tid)
    if director.model.stage.value != "running":
        raise refused(RulesError(f"the tournament is {director.model.stage.value}",
                                 "TOURN-19"))
    if not director.suggestions():
        raise refused(RulesError("the tables are balanced: nothing to move", "TOURN-19"))
    try:
        await director.carry_out_floor_work(body.version, actor(who))
    except RulesError as exc:
        raise refused(exc) from None
    return TournamentPublic.model_validate(director.status())


@router.get("/tournaments/{tid}/hand-for-hand", responses={**AUTH, **NONE})
async def read_hand_for_hand(tid: TournamentId, room: Room, _who: Reader
                             ) -> HandForHandPublic:
    """Hand-for-hand play (TOURN-22): the hand, the tables still playing it. Roles: all."""
    director = await room.ready(tid)
    return HandForHandPublic.model_validate(director.status()["hand_for_hand"])


@router.get("/tournaments/{tid}/places", responses={**AUTH, **NONE})
async def read_places(tid: TournamentId, room: Room, _who: Reader) -> PlacesPublic:
    """Eliminations, finishing places and prizes (TOURN-1, -24). Roles: all."""
    director = await room.ready(tid)
    s = director.status()
    return PlacesPublic(places=s["places"], prizes=s["prizes"], prize_pool=s["prize_pool"],
                        places_paid=s["places_paid"], winner=s["winner"])


@router.post("/tournaments/{tid}/last-hands", responses={**AUTH, **NONE, **REFUSED})
async def draw_last_hands(tid: TournamentId, body: LastHandsCreate, room: Room,
                          who: Director) -> TournamentPublic:
    """TOURN-27: stop the clock, draw 3..7 hands; every table plays that many more.
    Only with 15 to 5 minutes left in the level. Roles: ``director``, ``admin``."""
    director = await room.ready(tid)
    try:
        await director.draw_last_hands(body.card, actor(who))
    except RulesError as exc:
        raise refused(exc) from None
    return TournamentPublic.model_validate(director.status())


PlayerId = Annotated[str, Path(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.:-]+$",
                               description="the player's id")]
BUYING: dict[int | str, dict[str, Any]] = {
    404: {"model": Message, "description": "no tournament with that id, or no such player"},
    504: {"model": Message, "description": "the table has not reported the chips yet"}}


async def _buy(room: DirectorRoom, tid: str, player: str, what: str, by: Actor
               ) -> TournamentPublic:
    director = await room.ready(tid)
    if player not in director.model.current:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"player {player!r} is not registered "
                            f"in tournament {director.id} (GET {PREFIX}/{director.id})")
    try:
        await (director.rebuy(player, by) if what == "rebuy"
               else director.add_on(player, by))
    except PurchaseUnconfirmed as exc:
        raise HTTPException(status.HTTP_504_GATEWAY_TIMEOUT, exc.reason) from None
    except RulesError as exc:
        raise refused(exc) from None
    return TournamentPublic.model_validate(director.status())


@router.post("/tournaments/{tid}/players/{player}/rebuy",
             responses={**AUTH, **BUYING, **REFUSED})
async def rebuy_player(tid: TournamentId, player: PlayerId, room: Room, who: Director
                       ) -> TournamentPublic:
    """TOURN-10/11: a rebuy of the starting stack, while the player has at most the
    starting stack and within the rebuy levels; the player's table is held between hands,
    adds the chips and reports them, and the model and the prize pool follow. Roles:
    ``director``, ``admin``."""
    return await _buy(room, tid, player, "rebuy", actor(who))


@router.post("/tournaments/{tid}/players/{player}/add-on",
             responses={**AUTH, **BUYING, **REFUSED})
async def add_on_player(tid: TournamentId, player: PlayerId, room: Room, who: Director
                        ) -> TournamentPublic:
    """TOURN-12: the add-on, once per player, in the break after level 2; carried to the
    table like a rebuy. Roles: ``director``, ``admin``."""
    return await _buy(room, tid, player, "add_on", actor(who))


class LogEntryPublic(BaseModel):
    """One decision journaled: its number, when (wall-clock seconds), what, and who took
    it (``by`` null: the floor's own task, e.g. hand-for-hand by the margin, or a journal
    written before the field existed)."""

    seq: int
    at: float
    kind: str
    what: str
    by: Actor | None


@router.get("/tournaments/{tid}/log", responses={**AUTH, **NONE})
async def read_log(tid: TournamentId, room: Room, _who: LogReader,
                   after: Annotated[int, Query(ge=0, description="only decisions numbered "
                                               "after this seq")] = 0,
                   last: Annotated[int | None, Query(ge=1, le=LOG_LIMIT, description=(
                       "only the last this many"))] = None) -> list[LogEntryPublic]:
    """The tournament's decisions in the order they were taken, each with who took it and
    when: creation, registrations, the start, balancing, hand-for-hand, the last hands,
    rebuys and add-ons, re-entries, surrenders, deals, penalties, the sit & go, a
    cancellation (the tables' reports and the clock's ticks are left out). Kept in the
    journal, so a restart keeps them. Roles: ``director``, ``admin``, ``floor``."""
    room.find(tid)
    return [LogEntryPublic(seq=j.seq, at=j.at, kind=j.entry.kind, what=describe(j.entry),
                           by=getattr(j.entry, "by", None))
            for j in room.journal.decisions(tid, after=after, last=last)]
