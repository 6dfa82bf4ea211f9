"""What every part of the table shares: its stages and the prompts it opens."""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum

from .events import Choice, Irregularity

MISDEAL = Choice("misdeal", "declare a misdeal: gather, reshuffle, deal again", "LIVE-25")
CONTINUE = Choice("continue", "carry on: the dealer puts it right", None)


class Stage(StrEnum):
    """Where the table is, from the dealer's point of view."""

    IDLE = "idle"  # between hands: seats change, the deck is counted or enrolled
    ENROLLING = "enrolling"  # a new deck is read card by card at the deck reader
    DEALING = "dealing"  # hole cards going out
    PLAYING = "playing"  # betting rounds and board cards
    SHOWDOWN = "showdown"
    AWARDING = "awarding"  # pots wait for the dealer's confirmation
    COLOUR_UP = "colour_up"  # between hands: a colour-up and chip race (CHIPRACE-*)


def nothing() -> None:
    """A choice that needs nothing from the table: the dealer puts it right by hand."""


class Prompt:
    """An open irregularity and what each of its choices does."""

    __slots__ = ("actions", "event")

    def __init__(self, event: Irregularity, actions: dict[str, Callable[[], None]]) -> None:
        self.event = event
        self.actions = actions


