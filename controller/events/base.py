"""What every model of the vocabulary is built from: the frozen base, the field types, and
:class:`Change`, the base of every change to the table outside a hand.

Players in a hand are numbered by position, as in PHH and the rules engine: ``player`` 0
is the first seat left of the button, in the order of ``HandStarted.seats``. Seats are the
table's seat numbers (1..10).
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

Id = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.:-]+$")]
CardText = Annotated[str, Field(pattern=r"^[2-9TJQKA][cdhs]$")]
Chips = Annotated[int, Field(ge=0)]
SeatNo = Annotated[int, Field(ge=1, le=10)]
Count = Annotated[int, Field(ge=0)]
HandNo = Annotated[int, Field(ge=1)]
LevelNo = Annotated[int, Field(ge=1)]
RuleId = Annotated[str, Field(max_length=32)]
Text = Annotated[str, Field(max_length=400)]
Word = Annotated[str, Field(max_length=40)]


class Frozen(BaseModel):
    """A frozen model of the vocabulary that refuses unknown fields."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)


class Change(Frozen):
    """A change to the table outside a hand. ``command_id``: the host command that caused
    it (None: the table's own doing, a dealer's key or a clock)."""

    command_id: Id | None = None
