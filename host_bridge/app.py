"""The host bridge's FastAPI app: :func:`create_app` from settings.

The store is opened and migrated when the app is created. The broker connection is the
:class:`~host_bridge.mqtt.MqttLink` (``connect=True``, as ``pitboss bridge run`` does), or
a ``publisher`` given by a test; without either, commands answer 503.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from fastapi import APIRouter, FastAPI, Request, status
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from host_bridge import houses as house_files
from host_bridge.bridge import Bridge
from host_bridge.db import make_engine, migrate, session_factory
from host_bridge.ingest import Publisher
from host_bridge.mqtt import MqttLink
from host_bridge.routes import (
    alerts,
    broadcast,
    cash,
    commands,
    conflicts,
    dashboard,
    director,
    director_floor,
    director_money,
    feed,
    floor_summary,
    hands,
    houses,
    ohh,
    rake,
    tables,
    timeline,
)
from host_bridge.routes import clock as clock_screen  # create_app's clock is the time
from host_bridge.settings import BridgeSettings

API_PREFIX = "/api/v1"


def _field(loc: tuple[Any, ...] | list[Any]) -> str:
    parts = [str(p) for p in loc]
    if parts and parts[0] in ("body", "query", "path", "header"):
        where, rest = parts[0], parts[1:]
        return f"{where} field {'.'.join(rest)}" if rest else where
    return ".".join(parts) or "request"


async def _invalid(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    errors = [{"loc": list(e.get("loc", ())), "msg": e.get("msg", ""),
               "type": e.get("type", ""), "field": _field(e.get("loc", ()))}
              for e in exc.errors()]
    summary = "; ".join(f"{e['field']}: {e['msg']}" for e in errors[:3])
    return JSONResponse(status_code=status.HTTP_422_UNPROCESSABLE_CONTENT,
                        content=jsonable_encoder({"detail": errors,
                                                  "message": f"invalid input: {summary}"}))


def create_app(settings: BridgeSettings, *, publisher: Publisher | None = None,
               connect: bool = False, clock: Callable[[], float] = time.time) -> FastAPI:
    """The bridge app for ``settings``; migrates the store first. With ``connect`` the app
    runs an :class:`~host_bridge.mqtt.MqttLink` to the configured broker while it serves;
    otherwise ``publisher`` (or none) is its only way out."""
    engine = make_engine(settings.database_url)
    migrate(engine)
    sessions = session_factory(engine)
    bridge = Bridge(settings, sessions, publisher, clock=clock)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        try:
            if connect:
                async with MqttLink(bridge):
                    yield
            else:
                yield
        finally:
            await _app.state.director_room.close()  # the director's task ends first
            await _app.state.cash_room.close()  # the auto top-ups in flight
            engine.dispose()

    app = FastAPI(title="Pitboss host bridge", version="1", lifespan=lifespan,
                  description="Every table on the floor, and the floor's decisions back to "
                  "them. Authenticate with a bearer token; each route names its roles.")
    app.state.settings = settings
    app.state.engine = engine
    app.state.sessions = sessions
    app.state.bridge = bridge
    app.add_exception_handler(RequestValidationError, _invalid)
    house_files.install(app)  # a house not sent or not taken: its field, line, rule
    api = APIRouter(prefix=API_PREFIX)
    for module in (tables, conflicts, hands, commands, houses, rake, feed, director, cash):
        api.include_router(module.router)
    api.include_router(director_floor.router)  # penalties, cancel, slips, sit & go (19)
    api.include_router(director_money.router)  # re-entry, surrender, bounties, deals (19)
    api.include_router(clock_screen.router)  # public, no token: the players' clock (issue 19)
    api.include_router(alerts.router)  # the floor's alerts and their acks (issue 20)
    api.include_router(floor_summary.router)  # the floor page's strip and tables (issue 20)
    api.include_router(ohh.router)  # hand histories as OHH downloads (issue 21)
    api.include_router(timeline.router)  # a hand's dispute timeline and its files (issue 21)
    app.include_router(api)
    director.attach(app)  # the tournament director (issue 9), restored if there is one
    cash.attach(app)  # the cash room (issue 19), restored from the store; the /cash page
    alerts.attach(app)  # the alert board (issue 20), after the director it reads
    dashboard.mount(app)
    clock_screen.mount(app)  # the players' clock screen at /clock
    broadcast.attach(app, API_PREFIX)  # the delayed broadcast view, /overlay (issue 21)
    return app
