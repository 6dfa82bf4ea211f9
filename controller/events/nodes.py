"""The table's seat nodes, as the floor sees them.

A node that stops answering (its cable pulled, its power lost) is the dealer's prompt, an
``Irregularity`` with ``what="seat_node_offline"`` and the seat; the node's return is
:class:`SeatNodeBack`, so the floor (and the public state's ``seat_nodes_offline``) can
clear what it showed without waiting for the prompt to be answered.
"""

from __future__ import annotations

from typing import Literal

from .base import Count, Frozen, SeatNo

#: the ``Irregularity.what`` of a seat node that stopped answering
SEAT_NODE_OFFLINE = "seat_node_offline"


class SeatNodeBack(Frozen):
    """Seat ``seat``'s node answers again after it was reported offline: its readers
    and its ring work again. ``hand_no`` as in :class:`~.hand.Irregularity` (the table's
    latest hand; 0 before the first)."""

    kind: Literal["seat_node_back"] = "seat_node_back"
    hand_no: Count
    seat: SeatNo
