"""The floor's alerts (issue 20): ``GET /api/v1/alerts`` lists what needs a person (any
role), ``POST /api/v1/alerts/{alert_id}/ack`` acknowledges one (the floor's roles:
``floor``, ``director``, ``admin``; journaled with who and when). The live feed carries
each change (``alert``, ``alert_cleared``); :mod:`host_bridge.alerts` says where each
alert comes from and what clears it.

The board is created by :func:`attach` with the app, after the director's and the cash
room's (it reads the tournaments); this router's lifespan refreshes it every second while
the app serves (FastAPI runs an included router's lifespan inside the app's).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, FastAPI, HTTPException, Path, Request, status
from pydantic import BaseModel, Field

from host_bridge.alerts import AlertBoard
from host_bridge.deps import COMMANDERS_FLOOR, Principal, Reader, require
from host_bridge.schemas import Message

Acker = Annotated[Principal, Depends(require(COMMANDERS_FLOOR, "acknowledge an alert"))]
AlertId = Annotated[str, Path(min_length=1, max_length=128, pattern=r"^[A-Za-z0-9_.:-]+$",
                              description="the alert's id (GET /api/v1/alerts)")]
AUTH: dict[int | str, dict[str, Any]] = {
    401: {"model": Message, "description": "missing or unknown token"},
    403: {"model": Message, "description": "the token's role may not do this"}}


class AlertPublic(BaseModel):
    """One alert: what is wrong at which table, since when, and what clears it."""

    id: str = Field(description="stable while the condition lasts, e.g. offline:T7")
    table: str | None = Field(description="the table; null for a floor-wide alert")
    kind: str = Field(description="table_offline, seat_node_offline, device_fault, held, "
                      "clock_called, shot_clock_expired, prompt_open, short_handed, "
                      "to_break, command_unanswered, seq_conflict, hand_too_long")
    severity: Literal["high", "medium", "low"]
    since: float = Field(description="when it was raised (Unix seconds, the bridge's clock)")
    text: str = Field(description="what is wrong, one line")
    action: str = Field(description="what clears it, one line")
    acked_by: str | None = Field(description="who acknowledged it (it stays listed until "
                                 "its condition clears)")
    acked_at: float | None


class AlertsPublic(BaseModel):
    """Every alert raised: unacknowledged first, then high, medium, low, newest first."""

    data: list[AlertPublic]
    server_time: float = Field(description="the bridge's clock (Unix seconds) now")


@asynccontextmanager
async def _ticking(app: FastAPI) -> AsyncIterator[None]:
    """While the app serves: the board refreshes each second (its time-based alerts)."""
    board: AlertBoard = app.state.alert_board
    task = asyncio.get_running_loop().create_task(board.run(), name="alert-board")
    try:
        yield
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)


router = APIRouter(prefix="/alerts", tags=["alerts"], lifespan=_ticking)


def attach(app: FastAPI) -> AlertBoard:
    """Give ``app`` its alert board, fed by the bridge and the director's room."""
    room = app.state.director_room
    board = AlertBoard(app.state.bridge, app.state.sessions, directors=room.all,
                       owners=room.owners)
    app.state.alert_board = board
    return board


def get_board(request: Request) -> AlertBoard:
    board: AlertBoard = request.app.state.alert_board
    return board


Board = Annotated[AlertBoard, Depends(get_board)]


@router.get("", responses=AUTH)
async def list_alerts(board: Board, _who: Reader) -> AlertsPublic:
    """What needs a person now, first what matters most: unacknowledged first, then by
    severity, newest first. Read fresh from the store each time. Any role."""
    board.refresh()
    return AlertsPublic(data=[AlertPublic(**a.public()) for a in board.current()],
                        server_time=board.clock())


@router.post("/{alert_id}/ack", responses={**AUTH, 404: {
    "model": Message, "description": "no such alert, or its condition has cleared"}})
async def ack_alert(alert_id: AlertId, board: Board, who: Acker) -> AlertPublic:
    """Acknowledge an alert: it stays listed (with who and when) until its condition
    clears; journaled. Roles: floor, director, admin."""
    board.refresh()  # an alert raised or cleared since the last look counts
    alert = board.ack(alert_id, who.name, who.role.value)
    if alert is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND,
                            f"no alert {alert_id!r} is raised: it may have cleared; "
                            "GET /api/v1/alerts lists the alerts now")
    return AlertPublic(**alert.public())
