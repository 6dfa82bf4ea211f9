"""The broadcast view (issue 21), for the ``broadcast`` role only: a table's live hand
``hole_card_delay_s`` seconds behind the table (a bridge setting, 30 s by default), with
hole cards, stacks, bets, pots, the board, who folded, and exact equities per street.

* ``GET /api/v1/broadcast/tables/{table_id}``: the view now (a snapshot).
* ``WS /api/v1/broadcast/tables/{table_id}/feed``: the view now and on every change. It
  authenticates as ``/api/v1/feed`` does (a bearer header, or a first text frame
  ``{"token": "..."}`` from a browser); another role is closed with 4403, an unknown
  table with 4404.
* ``/overlay?table=ID``: the overlay page for a streaming program's browser source
  (transparent; the token in the URL fragment, ``#token=...``, or the dashboard's
  sign-in).

Every other role gets 403 and not one card: the view is built only after the role check.
"""

from __future__ import annotations

import contextlib
from typing import Any

import anyio
from fastapi import APIRouter, FastAPI, HTTPException, WebSocket, WebSocketDisconnect
from fastapi.responses import FileResponse
from sqlalchemy.orm import Session, sessionmaker

from host_bridge.bridge import Bridge
from host_bridge.broadcast.feed import FellBehind, follow, load_table
from host_bridge.broadcast.view import BroadcastView
from host_bridge.deps import BROADCASTERS, BridgeDep, Broadcaster, SessionDep, principal_for
from host_bridge.ingest import feed_json
from host_bridge.models import PokerTable
from host_bridge.routes.dashboard import PAGES, POLICY
from host_bridge.routes.feed import _token as feed_token  # one way to sign a socket in
from host_bridge.routes.tables import AUTH, NOT_FOUND, TableId, table_or_404
from host_bridge.settings import BridgeSettings

router = APIRouter(prefix="/broadcast", tags=["broadcast"])
OVERLAY = PAGES / "overlay.html"


@router.get("/tables/{table_id}", responses={**AUTH, **NOT_FOUND})
def read_broadcast(table_id: TableId, session: SessionDep, bridge: BridgeDep,
                   _who: Broadcaster) -> BroadcastView:
    """The table's latest hand as it stood ``hole_card_delay_s`` ago: hole cards released
    by then, stacks, bets, pots, board, folds, each player's exact equity (win, tie, outs
    on the turn) and the equities as each street began. Nothing of a hand younger than
    the delay. Only the ``broadcast`` role."""
    table_or_404(session, table_id)
    now = bridge.clock()
    return load_table(session, table_id, now=now,
                      delay_s=bridge.settings.hole_card_delay_s).view(now)


@router.websocket("/tables/{table_id}/feed")
async def broadcast_feed(ws: WebSocket, table_id: str) -> None:
    """Stream the table's broadcast view: ``{"type": "broadcast", ...}`` frames (the
    snapshot's fields) now and whenever it changes. Only the ``broadcast`` role."""
    settings: BridgeSettings = ws.app.state.settings
    bridge: Bridge = ws.app.state.bridge
    sessions: sessionmaker[Session] = ws.app.state.sessions
    await ws.accept()
    try:
        who = principal_for(settings, await feed_token(ws))
    except HTTPException as exc:
        await ws.close(code=4401, reason=str(exc.detail)[:120])
        return
    if who.role not in BROADCASTERS:
        await ws.close(code=4403, reason=f"role {who.role.value!r} may not see the "
                       "broadcast view; this needs: broadcast")
        return
    with sessions() as session:
        known = session.get(PokerTable, table_id) is not None
    if not known:
        await ws.close(code=4404, reason=f"no table {table_id[:40]!r} has reported to this "
                       "bridge")
        return
    await ws.send_text(feed_json({"type": "hello", "role": who.role.value,
                                  "table": table_id}))
    await _stream(ws, bridge, sessions, table_id)


async def _stream(ws: WebSocket, bridge: Bridge, sessions: sessionmaker[Session],
                  table_id: str) -> None:
    """Follow the view until the client goes away (or falls behind)."""

    async def send(frame: dict[str, Any]) -> None:
        await ws.send_text(feed_json(frame))

    async with anyio.create_task_group() as tasks:  # whichever ends first ends both

        async def forward() -> None:
            with contextlib.suppress(WebSocketDisconnect, RuntimeError):
                try:
                    await follow(bridge, sessions, table_id, send)
                except FellBehind:
                    await ws.close(code=1013, reason="fell behind; reconnect")
            tasks.cancel_scope.cancel()

        async def listen() -> None:
            with contextlib.suppress(WebSocketDisconnect, RuntimeError):
                while (await ws.receive())["type"] != "websocket.disconnect":
                    pass
            tasks.cancel_scope.cancel()

        tasks.start_soon(forward, name="broadcast-forward")
        tasks.start_soon(listen, name="broadcast-listen")


def attach(app: FastAPI, api_prefix: str) -> None:
    """Serve the broadcast routes under ``api_prefix`` and the overlay page at
    ``/overlay`` (its script and style are the dashboard's files)."""
    app.include_router(router, prefix=api_prefix)

    async def overlay() -> FileResponse:
        return FileResponse(OVERLAY, media_type="text/html", headers={
            "Content-Security-Policy": POLICY, "X-Content-Type-Options": "nosniff",
            "Cache-Control": "no-cache"})

    app.add_api_route("/overlay", overlay, include_in_schema=False)


__all__ = ["OVERLAY", "attach", "router"]
