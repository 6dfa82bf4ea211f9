"""Seat-node readers and rings: thin adapters over the seat-node link (``seatlink.py``).

The link (written separately) decodes the nodes' frames; these classes only read its
per-node tag sets and send ring states, through the ``SeatNodeLink`` protocol.
"""

from __future__ import annotations

from collections.abc import Callable

from .interfaces import LightState, Listener, SeatNodeLink


class SeatNodeReader:
    """One seat node's hole-card or player-card antenna. A push reader: the link says when."""

    multi_tag = True
    # the node reports a card once it has read it stably (firmware/debounce.py): the Pi's
    # CardWatch adds no stable time of its own (DESIGN budget: card placed at a node ->
    # display, p99 <= 5 ms beyond the node's own read cycle)
    debounced = True

    def __init__(self, name: str, link: SeatNodeLink, node: int, slot: str) -> None:
        self.name = name
        self.link = link
        self.node = node
        self.slot = slot
        self._unsubscribe: Callable[[], None] | None = None

    def scan(self) -> frozenset[bytes]:
        return self.link.tags(self.node, self.slot)

    def set_listener(self, listener: Listener | None) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        if listener is not None:
            self._unsubscribe = self.link.subscribe(listener)

    def close(self) -> None:
        self.set_listener(None)


class SeatNodeRing:
    """A seat node's LED ring."""

    def __init__(self, link: SeatNodeLink, node: int) -> None:
        self.link = link
        self.node = node
        self._state = LightState.off()

    @property
    def state(self) -> LightState:
        return self._state

    def set(self, state: LightState) -> None:
        self.link.set_light(self.node, state)
        self._state = state

    def close(self) -> None:
        self.set(LightState.off())
