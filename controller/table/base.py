"""What every part of the table shares: its stages, the prompts it opens and their choices,
and the limits of the vocabulary's free text."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from controller.events import Irregularity
from controller.rules.cards import Card


@dataclass(frozen=True, slots=True)
class Choice:
    """One way the dealer or floor may resolve a prompt, with the rule that allows it."""

    key: str  # what the console sends back, e.g. "misdeal", "continue", "kill_hand"
    text: str
    rule: str | None = None


MISDEAL = Choice("misdeal", "declare a misdeal: gather, reshuffle, deal again", "LIVE-25")
CONTINUE = Choice("continue", "carry on: the dealer puts it right", None)

WORD = 40  # the vocabulary's short words (a prompt's kind, a held action, a source)
TEXT = 400  # its reasons and notes


def clip(text: str, limit: int = TEXT) -> str:
    """Free text fits its field in the vocabulary (a long reason must not stop a table)."""
    return text if len(text) <= limit else text[:limit - 1] + "…"


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
    """An open irregularity: the event journaled for it (which never names a card), its
    choices and what each does, and the ``cards`` concerned, for the dealer's screen only
    (they may be hole cards: never journaled, never sent, never logged)."""

    __slots__ = ("actions", "cards", "choices", "event")

    def __init__(self, event: Irregularity, choices: tuple[Choice, ...],
                 actions: dict[str, Callable[[], None]], cards: tuple[Card, ...] = ()
                 ) -> None:
        self.event = event
        self.choices = choices
        self.actions = actions
        self.cards = cards

    @property
    def kind(self) -> str:
        """What is wrong: ``wrong_place``, ``too_many``, ``choice``, ``floor``..."""
        return self.event.what

    @property
    def seat(self) -> int | None:
        return self.event.seat

    @property
    def text(self) -> str:
        """For the dealer's screen (the table's own console, never the public topic)."""
        named = " ".join(c.symbol() for c in self.cards)
        return f"{named}: {self.event.reason}" if named else self.event.reason
