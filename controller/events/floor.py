"""The floor's running of the table: hand-for-hand, a colour-up scheduled, the table
closed, and the deck's reports."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from .base import Change, Count, Frozen, HandNo, LevelNo, Word


class HandForHandSet(Change):
    """The floor started (``on``) or stopped hand-for-hand play (TOURN-22)."""

    kind: Literal["hand_for_hand_set"] = "hand_for_hand_set"
    on: bool


class HandReleased(Change):
    """Hand-for-hand: the floor lets one hand (``hand_no``, the next) be dealt (TOURN-22)."""

    kind: Literal["hand_released"] = "hand_released"
    hand_no: HandNo | None = None


class ColourUpScheduled(Change):
    """The floor scheduled a colour-up of the lowest chips for when ``level`` begins
    (CHIPRACE-1)."""

    kind: Literal["colour_up_scheduled"] = "colour_up_scheduled"
    level: LevelNo


class TableClosed(Change):
    """The table is closed (broken): no more hands, no more commands."""

    kind: Literal["table_closed"] = "table_closed"


DECK_NAME = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$"
"""A saved deck's name: also its file's name in the table's deck library, so no path."""

DeckName = Annotated[str, Field(pattern=DECK_NAME)]


class DeckReport(Frozen):
    """The deck (CARD-1), never its UID map (the journal goes to the floor): a new one
    ``enrolled`` or a saved one ``chosen`` between hands (CARD-6) as ``name``, with its
    ``version`` and ``digest`` (the SHA-256 of its UID map: which deck is in play);
    ``checked`` at the shuffle (counts only, no card names: the dealer's screen names
    them; ``foreign``: cards of another saved deck); an ``unknown_card`` read at
    ``reader``, or a ``foreign_card`` there, a card of the saved deck ``name``."""

    kind: Literal["deck"] = "deck"
    what: Literal["enrolled", "chosen", "checked", "unknown_card", "foreign_card"]
    version: Count | None = None
    complete: bool | None = None
    missing: Count = 0
    duplicated: Count = 0
    unknown: Count = 0
    reader: Word | None = None
    digest: Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")] | None = None
    name: DeckName | None = None
    foreign: Count = 0
