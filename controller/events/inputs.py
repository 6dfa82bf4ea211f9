"""The table's inputs, journaled for audit: the floor's dispute timeline holds every card
read at a reader, every key and tablet tap and every shot-clock ruling that reached the
table's one path, each journaled *before* it is applied, with the intent it became and the
table's clock time. Its outcome is what the journal holds after it, up to the next input
(the table takes one input at a time): the events it caused, or a ``rejected`` with the
rule id, or nothing.

A card read names a card, and a card is secret until it is shown: :class:`CardSeen` is the
secret event the table hands the journal, which splits it like a hole card into its public
face :class:`CardRead` (reader, seat, time) on ``event`` and the card on ``secure/cards``
(``what`` "read"), with the same seq. Nothing here is logged at INFO.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from .base import CardText, Count, Frozen, HandNo, SeatNo, Text, Word
from .commands import JsonScalar

InputSource = Literal["reader", "keypad", "tablet", "clock", "node"]
"""Where an input came from: a card reader, the dealer's keypad (or the table's console
keys), the dealer's tablet, the shot clock running out, a seat node going or coming back."""


class InputTaken(Frozen):
    """An input the table took (not a card read: see :class:`CardRead`), journaled before
    it is applied. ``what`` says it for a person (``key deal``, ``keys: 3 seat 1200 bet``,
    ``tap: bet amount=1200 seat=3``); ``intent`` and ``fields`` are the intent it became
    (``RaiseTo``, ``{"to": 1200, "seat": 3, "exact": true}``; empty for a clock's ruling);
    ``at`` the table's clock (monotonic seconds: differences between inputs are exact);
    ``hand_no`` the hand in play or the last one (0 before the first)."""

    kind: Literal["input"] = "input"
    hand_no: Count
    source: InputSource
    what: Text
    at: float
    intent: Word = ""
    fields: dict[str, JsonScalar] = Field(default_factory=dict, max_length=16)
    reader: Word | None = None
    seat: SeatNo | None = None


class CardRead(Frozen):
    """A card of the deck in play read at ``reader`` (a seat's, the board's or the muck's)
    while a hand is in play, journaled before it is applied; which card is on
    ``secure/cards`` only (same seq). ``seat``: the seat whose reader it is."""

    kind: Literal["card_read"] = "card_read"
    hand_no: HandNo
    reader: Word
    at: float
    seat: SeatNo | None = None


class CardSeen(Frozen):
    """What the table reports when a reader reads a card: secret, never public as is."""

    hand_no: HandNo
    reader: Word
    at: float
    card: CardText
    seat: SeatNo | None = None

    def public(self) -> CardRead:
        """The public face: where and when a card was read, never which."""
        return CardRead(hand_no=self.hand_no, reader=self.reader, at=self.at, seat=self.seat)
