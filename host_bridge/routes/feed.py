"""The live feed: a WebSocket of public floor events (accepted events as soon as they
arrive, status changes, ``stored`` when a table's changes are in the store). The
``broadcast`` role also gets ``hole_cards`` items, each released only after the configured
delay or at the end of its hand; no other role ever does.

Authenticate with ``Authorization: Bearer <token>`` on the upgrade request or, from a
browser (which cannot set headers on a WebSocket), with a first text frame
``{"token": "..."}``. A refused socket is closed with code 4401 or 4403 and the reason.
"""

from __future__ import annotations

import asyncio
import contextlib
import json

import anyio
from fastapi import APIRouter, HTTPException, WebSocket, WebSocketDisconnect

from host_bridge.bridge import Bridge
from host_bridge.deps import BROADCASTERS, READERS, principal_for
from host_bridge.ingest import FeedItem, feed_json
from host_bridge.settings import BridgeSettings

router = APIRouter(tags=["feed"])
AUTH_WAIT_S = 10.0


async def _token(ws: WebSocket) -> str | None:
    header = ws.headers.get("authorization", "")
    if header.lower().startswith("bearer "):
        return header[7:].strip()
    try:
        first = await asyncio.wait_for(ws.receive_text(), AUTH_WAIT_S)
        token = json.loads(first).get("token")
    except (TimeoutError, ValueError, AttributeError):
        return None
    return token if isinstance(token, str) else None


@router.websocket("/feed")
async def feed(ws: WebSocket) -> None:
    """Stream feed items as JSON text frames until the client goes away. Any role."""
    await ws.accept()
    with contextlib.suppress(WebSocketDisconnect):  # a page closed before its hello: fine
        await _serve(ws)


async def _serve(ws: WebSocket) -> None:
    """Sign the socket in, then stream; a client that goes away ends it (its disconnect
    is the caller's to take)."""
    settings: BridgeSettings = ws.app.state.settings
    bridge: Bridge = ws.app.state.bridge
    try:
        who = principal_for(settings, await _token(ws))
    except HTTPException as exc:
        await ws.close(code=4401, reason=str(exc.detail)[:120])
        return
    if who.role not in READERS:  # every role reads today; kept for a future role
        await ws.close(code=4403, reason=f"role {who.role.value!r} may not read the feed")
        return
    async with bridge.feed.subscribe(privileged=who.role in BROADCASTERS) as queue:
        await ws.send_text(feed_json({"type": "hello", "role": who.role.value}))
        async with anyio.create_task_group() as tasks:  # whichever ends first ends both

            async def forward() -> None:
                await _forward(ws, queue)
                tasks.cancel_scope.cancel()

            async def listen() -> None:
                await _until_closed(ws)
                tasks.cancel_scope.cancel()

            tasks.start_soon(forward, name="feed-forward")
            tasks.start_soon(listen, name="feed-listen")


async def _forward(ws: WebSocket, queue: asyncio.Queue[FeedItem]) -> None:
    """Send each item; a subscriber that fell behind is told so and closed."""
    with contextlib.suppress(WebSocketDisconnect, RuntimeError):
        while True:
            item = await queue.get()
            await ws.send_text(feed_json(item))
            if item.get("type") == "dropped":
                await ws.close(code=1013, reason="fell behind; reconnect")
                return


async def _until_closed(ws: WebSocket) -> None:
    """Return when the client goes away (it sends nothing else), so the subscription ends."""
    with contextlib.suppress(WebSocketDisconnect, RuntimeError):
        while True:
            message = await ws.receive()
            if message["type"] == "websocket.disconnect":
                return
