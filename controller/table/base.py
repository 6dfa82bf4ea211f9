"""What every part of the table shares: its stages, the prompts it opens, and the
``console`` decorator that makes the displays follow a dealer or floor input."""

from __future__ import annotations

import functools
from collections.abc import Callable
from enum import StrEnum
from typing import TYPE_CHECKING, Concatenate, ParamSpec, Protocol, TypeVar

from .events import Choice, Irregularity

if TYPE_CHECKING:
    from .timing import TableClocks


class Consoled(Protocol):
    """What ``console`` needs of the table."""

    _depth: int
    _quiet: bool
    clocks: TableClocks

    def refresh(self) -> None: ...


S = TypeVar("S", bound=Consoled)
MISDEAL = Choice("misdeal", "declare a misdeal: gather, reshuffle, deal again", "LIVE-25")
CONTINUE = Choice("continue", "carry on: the dealer puts it right", None)


P = ParamSpec("P")
R = TypeVar("R")


def console(method: Callable[Concatenate[S, P], R]) -> Callable[Concatenate[S, P], R]:
    """A dealer or floor input: once it is handled (and journaled), the displays follow."""

    def run(self: S, /, *args: P.args, **kwargs: P.kwargs) -> R:
        if not self._depth:
            self.clocks.poll()  # time ran out before this input: the clock ruled first
        self._depth += 1
        try:
            return method(self, *args, **kwargs)
        finally:
            self._depth -= 1
            if not self._depth and not self._quiet:
                self.refresh()

    functools.update_wrapper(run, method)
    return run


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


