"""The colour-up's steps at the table (CHIPRACE-1..6), each journaled and sent so that a
dispute about a chip race is settled from the record: the race started, each seat's
leaving chips counted, each race card dealt (face up: public, CHIPRACE-6.2), the race
dealt again, the raced chips awarded, a step taken back, the colour-up called off.

Its outcome is ONE ``stack_adjusted`` (``reason`` "colour_up", :mod:`.seats`); the
floor's schedule is ``colour_up_scheduled`` (:mod:`.floor`). None of these changes the
table's durable state: the stacks change with the ``stack_adjusted``.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from .base import CardText, Count, Frozen, SeatNo, Text, Word

ChipValue = Annotated[int, Field(ge=1)]


class ColourUpStarted(Frozen):
    """A colour-up began: chips worth ``leaving`` leave play; ``trigger`` is ``dealer``,
    ``floor`` (scheduled) or ``break`` (the level clock); ``seats`` count in this order."""

    kind: Literal["colour_up_started"] = "colour_up_started"
    leaving: tuple[ChipValue, ...] = Field(min_length=1)
    trigger: Word
    seats: tuple[SeatNo, ...] = ()


class ChipsCounted(Frozen):
    """The dealer keyed in ``seat``'s leaving chips: ``chips`` are (value, how many)."""

    kind: Literal["chips_counted"] = "chips_counted"
    seat: SeatNo
    chips: tuple[tuple[ChipValue, Count], ...]


class RaceCardDealt(Frozen):
    """A race card dealt face up at ``seat`` (CHIPRACE-6.2), read or ``keyed`` in."""

    kind: Literal["race_card_dealt"] = "race_card_dealt"
    seat: SeatNo
    card: CardText
    keyed: bool = False


class RaceDealtAgain(Frozen):
    """Every race card was taken back to deal the race again (a misdeal of the race)."""

    kind: Literal["race_dealt_again"] = "race_dealt_again"
    reason: Text


class RaceChipsAwarded(Frozen):
    """The raced chips of value ``chip`` went to ``winners`` (seat, card; no card when the
    race was decided without one); ``rescued`` seats got a chip so as not to be raced out
    (CHIPRACE-3)."""

    kind: Literal["race_chips_awarded"] = "race_chips_awarded"
    chip: ChipValue
    winners: tuple[tuple[SeatNo, CardText | None], ...] = ()
    rescued: tuple[SeatNo, ...] = ()


class ColourUpStepUndone(Frozen):
    """The dealer took back the last colour-up step (``what``: the step's name)."""

    kind: Literal["colour_up_step_undone"] = "colour_up_step_undone"
    what: Word


class ColourUpCancelled(Frozen):
    """The colour-up was called off before the stacks were confirmed; nothing changed."""

    kind: Literal["colour_up_cancelled"] = "colour_up_cancelled"
    reason: Text
