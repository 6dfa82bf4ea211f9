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


class DeckReport(Frozen):
    """The deck: a new one ``enrolled`` (``version``, and ``digest``, the SHA-256 of its
    UID map: which deck is in play), ``checked`` at the shuffle (CARD-1: counts only, no
    card names; the dealer's screen names them), or an ``unknown_card`` read at
    ``reader``."""

    kind: Literal["deck"] = "deck"
    what: Literal["enrolled", "checked", "unknown_card"]
    version: Count | None = None
    complete: bool | None = None
    missing: Count = 0
    duplicated: Count = 0
    unknown: Count = 0
    reader: Word | None = None
    digest: Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")] | None = None
