"""Where a hand is, and the small pieces its steps share (DEAL-1)."""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import Final

from controller.rules.errors import IllegalActionError


class Phase(StrEnum):
    """Where the hand is (DEAL-1)."""

    DEAL_HOLE = "deal_hole"
    BETTING = "betting"
    DEAL_BOARD = "deal_board"
    SHOWDOWN = "showdown"
    COMPLETE = "complete"


class Street(StrEnum):
    """The betting rounds, in order (DEAL-1)."""

    PREFLOP = "preflop"
    FLOP = "flop"
    TURN = "turn"
    RIVER = "river"


# The phases one by one for the engine's hot paths, where naming a member (Phase.BETTING)
# costs an attribute lookup on the enum class every time (pitboss bench phh).
DEAL_HOLE, BETTING, DEAL_BOARD, SHOWDOWN, COMPLETE = Phase
STREETS: Final = tuple(Street)  # by the hand's street number, 0 to 3
BOARD_DEAL: Final = (3, 1, 1)  # cards dealt to reach the flop, turn and river (DEAL-1)


def can(verify: Callable[..., object], *args: object) -> bool:
    """``can_x`` from ``verify_x``: whether it passes."""
    try:
        verify(*args)
    except IllegalActionError:
        return False
    return True
