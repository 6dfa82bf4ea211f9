"""The live feed's hub: every subscriber (a browser's WebSocket) gets its own queue.

Items are public (events as the table published them, status changes): hole cards never
pass through here. A subscriber too slow to keep up is dropped rather than slowing ingest.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from host_bridge.ingest import FeedItem

QUEUE_LIMIT = 1000
DROPPED: FeedItem = {"type": "dropped", "reason": "this feed fell more than 1000 items behind; "
                     "reconnect and reload the tables"}


class FloorFeed:
    """Fans feed items out to subscribers."""

    def __init__(self) -> None:
        self._queues: set[asyncio.Queue[FeedItem]] = set()

    @property
    def subscribers(self) -> int:
        """How many are listening."""
        return len(self._queues)

    def publish(self, item: FeedItem) -> None:
        """Queue ``item`` for every subscriber (never blocks)."""
        for queue in list(self._queues):
            if queue.qsize() >= QUEUE_LIMIT - 1:
                self._queues.discard(queue)
                queue.put_nowait(DROPPED)
            else:
                queue.put_nowait(item)

    @asynccontextmanager
    async def subscribe(self) -> AsyncIterator[asyncio.Queue[FeedItem]]:
        """A queue of items for as long as the context lasts."""
        queue: asyncio.Queue[FeedItem] = asyncio.Queue(QUEUE_LIMIT)
        self._queues.add(queue)
        try:
            yield queue
        finally:
            self._queues.discard(queue)
