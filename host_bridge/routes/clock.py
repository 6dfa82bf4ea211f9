"""The players' clock screen (issue 19): a public, read-only face of each tournament for a
big screen in the room, and the page that shows it.

``GET /api/v1/public/tournaments`` lists the tournaments (id, name, stage) and
``GET /api/v1/public/tournaments/{tid}/clock`` is one tournament's clock: the level and
its time left, blinds and antes, the next level, the time to the break, the field, the
average stack, the prize pool and the payouts. Both are **public on purpose**: the screen
hangs in the room with no one to sign it in, so there is no token. Nothing private is in
:class:`ClockFace`: no hole cards (the director never holds any), no player's stack, no
seat; the only player named is the winner, once there is one.

The level clock is the host's (:class:`~controller.clocks.level_clock.LevelClock` in the
director); this module only reads it, never polls it (a poll would take the events the
director's task waits for). The page counts down locally each second from
``seconds_left`` and polls again every few seconds; ``server_time`` lets it drop an answer
older than the one it shows.

``/clock`` (the list to pick from) and ``/clock/{tid}`` serve ``dashboard/clock.html``
with the dashboard's headers; its script and style come from ``/dashboard/``.
"""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, FastAPI, HTTPException, Path, Query, status
from fastapi.responses import FileResponse
from pydantic import BaseModel, Field

from controller.clocks.level_clock import LevelClock, Phase
from controller.clocks.structure import Level
from host_bridge.director.entries import Stage
from host_bridge.director.service import TournamentDirector
from host_bridge.director.tournament import Tournament
from host_bridge.routes.dashboard import PAGES, POLICY
from host_bridge.routes.director import Room
from host_bridge.schemas import Message

router = APIRouter(prefix="/public", tags=["public"])
State = Literal["registering", "running", "paused", "break", "finished", "cancelled"]
TournamentId = Annotated[str, Path(min_length=1, max_length=64,
                                   description="the tournament's id (from GET "
                                   "/api/v1/public/tournaments)")]
PAGE = PAGES / "clock.html"


class LevelFace(BaseModel):
    """A level's blinds and antes as the players see them."""

    level: int
    small_blind: int
    big_blind: int
    ante: int = Field(description="per player")
    big_blind_ante: int = Field(description="paid by the big blind for the table")
    minutes: float


class Payout(BaseModel):
    """What a place pays, in cents."""

    place: int
    amount: int


class ClockFace(BaseModel):
    """One tournament on the big screen: public facts only (no cards, no player's stack)."""

    id: str
    name: str
    stage: str
    state: State = Field(description="what the screen shows: paused, break, running...")
    level: LevelFace = Field(description="the level in force (during a break: the one "
                             "before it)")
    seconds_left: float = Field(description="time left on the clock: the level's, or the "
                                "break's on a break")
    counting: bool = Field(description="the clock runs down now (not paused, not before "
                           "the start, not the last level's endless time)")
    server_time: float = Field(description="the bridge's wall clock (Unix seconds) when "
                               "seconds_left was read")
    rate: float = Field(1.0, description="tournament seconds per real second: 1 on a real "
                        "floor; the demo runs its clock faster, and the screen counts so")
    paused: bool
    on_break: bool
    break_seconds_left: float | None = Field(description="the break's time left, on a break")
    next_level: LevelFace | None = Field(description="the level after this one (after the "
                                         "break, on a break); none after the last")
    seconds_to_break: float | None = Field(description="time to the next scheduled break; "
                                           "none when no break is left")
    players_left: int
    entries: int
    average_stack: int
    prize_pool: int = Field(description="cents")
    places_paid: int
    payouts: list[Payout] = Field(description="place -> amount (cents), best first")
    winner: str | None


class TournamentListing(BaseModel):
    """A tournament the screen can show."""

    id: str
    name: str
    stage: str


NOT_FOUND: dict[int | str, dict[str, object]] = {
    404: {"model": Message, "description": "no tournament with that id"}}


def _level_face(level: Level, t: Tournament) -> LevelFace:
    """``level`` as it will be played: without antes once the field is in the money where
    the structure says so (ANTE-3)."""
    if t.setup.structure.antes_stop_in_the_money and t.in_the_money:
        level = level.without_antes()
    return LevelFace(level=level.number, small_blind=level.small_blind,
                     big_blind=level.big_blind, ante=level.ante,
                     big_blind_ante=level.big_blind_ante, minutes=level.seconds / 60)


_STAGES: dict[Stage, State] = {Stage.REGISTERING: "registering", Stage.FINISHED: "finished",
                               Stage.CANCELLED: "cancelled", Stage.RUNNING: "running"}


def _state(t: Tournament, clock: LevelClock) -> State:
    if t.stage is not Stage.RUNNING:
        return _STAGES[t.stage]
    if clock.paused:
        return "paused"
    return "break" if clock.on_break else "running"


def _synchronised_break(clock: LevelClock) -> bool:
    held = clock.state()["break"]
    return bool(held and held["synchronised"])


def seconds_to_break(clock: LevelClock, left: float) -> float | None:
    """Seconds until the next scheduled break starts: what is left of this level (or of
    this break) and every whole level up to the one the break follows. None when no
    scheduled break is ahead, the clock stands still (LEVEL-6's last level) or a
    synchronised break (LEVEL-3) holds the level."""
    s, number = clock.structure, clock.number
    if clock.phase is Phase.BREAK_DUE or (clock.phase is Phase.BREAK
                                          and _synchronised_break(clock)):
        return None
    on_break = clock.phase is Phase.BREAK  # then this level's break is behind us
    ahead = [b.after_level for b in s.breaks if number + int(on_break) <= b.after_level
             < len(s.levels)]  # no break follows the last level (LEVEL-6)
    if not ahead:
        return None
    return left + sum(s.level(k).seconds for k in range(number + 1, min(ahead) + 1))


def _next_level(t: Tournament, clock: LevelClock) -> LevelFace | None:
    s = clock.structure
    if clock.phase is Phase.BREAK_DUE or (clock.phase is Phase.BREAK
                                          and _synchronised_break(clock)):
        return _level_face(s.level(clock.number), t)  # the held level resumes
    if clock.number >= len(s.levels):
        return None  # LEVEL-6: the last level stays in force
    return _level_face(s.level(clock.number + 1), t)


def _rate(director: TournamentDirector) -> float:
    """How fast the director's clock runs against real time: a clock that says its
    ``speed`` (the demo's fast tournament clock) runs that fast; the host's own runs at 1."""
    speed = getattr(director.clock, "speed", 1.0)
    return float(speed) if isinstance(speed, (int, float)) and speed > 0 else 1.0


def clock_face(director: TournamentDirector) -> ClockFace:
    """The tournament's public face now. Reads the host's level clock without polling it."""
    t, clock = director.model, director.level_clock
    now, wall = director.clock(), director.wall()
    started = clock.phase is not Phase.NOT_STARTED
    left = clock.seconds_left(now) if started else clock.structure.level(1).seconds
    final = clock.phase is Phase.LEVEL and clock.number >= len(clock.structure.levels) \
        and left == 0
    counting = (t.stage is Stage.RUNNING and started and not clock.paused and not final
                and clock.phase is not Phase.BREAK_DUE)
    # the clock's level, not the model's: the director records a new level a moment after
    # its clock reached it, and the screen must not show level 3's time with level 2's blinds
    in_force = clock.structure.level(clock.number)
    prizes = t.prizes()[:t.places_paid()]
    alive = t.alive()
    return ClockFace(
        id=director.id, name=t.setup.name, stage=t.stage.value, state=_state(t, clock),
        level=_level_face(in_force, t), seconds_left=round(left, 2), counting=counting,
        server_time=wall, rate=_rate(director), paused=clock.paused,
        on_break=clock.on_break,
        break_seconds_left=round(left, 2) if clock.phase is Phase.BREAK else None,
        next_level=_next_level(t, clock),
        seconds_to_break=None if final else _rounded(seconds_to_break(clock, left)),
        players_left=len(alive), entries=len(t.entries),
        average_stack=t.chips_in_play() // len(alive) if alive else 0,
        prize_pool=t.pool.total, places_paid=len(prizes),
        payouts=[Payout(place=i, amount=p) for i, p in enumerate(prizes, start=1)],
        winner=alive[0].player if t.stage is Stage.FINISHED and len(alive) == 1 else None)


def _rounded(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds, 2)


# Public on purpose (no token, no role): the players' screen in the room has no one to
# sign it in. tests/bridge/test_auth.py lists these routes as PUBLIC, outside its matrix.
@router.get("/tournaments")
async def list_tournaments(room: Room, stage: Annotated[Stage | None, Query(
        description="only the tournaments at this stage (e.g. running)")] = None
                           ) -> list[TournamentListing]:
    """The tournaments on this bridge (id, name, stage) in the order they were created,
    for the screen to pick one. Public: no token."""
    return [TournamentListing(id=d.id, name=d.model.setup.name, stage=d.model.stage.value)
            for d in room.all() if stage is None or d.model.stage is stage]


@router.get("/tournaments/{tid}/clock", responses=NOT_FOUND)
async def read_clock(tid: TournamentId, room: Room) -> ClockFace:
    """The tournament's clock for the players' screen: level, time left (with the server's
    time), blinds, next level, time to the break, field, average stack, prize pool and
    payouts. Nothing private. Public: no token."""
    try:
        director = room.find(tid)
    except HTTPException as exc:
        if exc.status_code != status.HTTP_404_NOT_FOUND:
            raise
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"no tournament {tid!r} on this "
                            "bridge; the tournaments are listed at GET "
                            "/api/v1/public/tournaments") from None
    return clock_face(director)


def mount(app: FastAPI) -> None:
    """Serve the clock page at ``/clock`` (pick a tournament) and ``/clock/{tid}``."""

    async def page() -> FileResponse:
        return FileResponse(PAGE, media_type="text/html", headers={
            "Content-Security-Policy": POLICY, "X-Content-Type-Options": "nosniff",
            "Cache-Control": "no-cache"})

    async def page_for(tid: TournamentId) -> FileResponse:
        return await page()

    app.add_api_route("/clock", page, include_in_schema=False)
    app.add_api_route("/clock/{tid}", page_for, include_in_schema=False)
