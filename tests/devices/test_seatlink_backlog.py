"""A seat-node link that nobody reads events from keeps a bounded backlog."""

from __future__ import annotations

import asyncio

from controller.devices.events import CardArrived
from controller.devices.seatlink import EVENT_BACKLOG, SeatNodeLink


class NullWriter:
    def write(self, data: bytes) -> None:
        pass

    def close(self) -> None:
        pass


def test_unread_events_are_bounded_and_the_drops_counted() -> None:
    asyncio.run(_bounded())


async def _bounded() -> None:
    link = SeatNodeLink(asyncio.StreamReader(), NullWriter(), clock=lambda: 0.0, tick_s=None)
    calls: list[None] = []
    link.subscribe(lambda: calls.append(None))
    for i in range(EVENT_BACKLOG + 500):
        link._emit(CardArrived("seat1", i.to_bytes(4, "big")))
    kept = link.pending_events()
    assert len(kept) == EVENT_BACKLOG and link.events_dropped == 500
    assert kept[0] == CardArrived("seat1", (500).to_bytes(4, "big"))  # the oldest went first
    assert len(calls) == EVENT_BACKLOG + 500  # listeners still hear every card
