"""The house a table plays (``deploy/houses/*.toml``, :mod:`controller.clocks.house`).

:class:`HouseSet` is journaled when a table starts under a house and whenever the host
changes it between hands (the ``set_house`` command). It carries the house file's text
whole, so a restart plays the very same file and the floor can show it; ``label`` is the
one line the floor, the displays and the dealer's terminal show (game, stakes, rake,
straddles).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from .base import Change, Chips, Count, Frozen, HandNo

#: the longest house text a table journals or a host sends (a house file is small)
HOUSE_TEXT_MAX = 64 * 1024


class HouseView(Frozen):
    """What the public state says of the house in force."""

    name: Annotated[str, Field(max_length=200)]
    game: Literal["NT", "PO", "FT"]
    kind: Literal["cash", "tournament"]
    unit: Literal["kr", "cent", "chip"]
    label: Annotated[str, Field(max_length=400)]
    # a tournament house's multiplier (HexaPro, SNG-3) when one was drawn for the game: the
    # text alone gives the file's default, so a restart needs it to play the same levels
    multiplier: Annotated[float, Field(gt=0, le=1_000_000)] | None = None


class HouseSet(Change):
    """The table plays this house from the next hand on (the first hand, or a change
    between hands: a house never changes during a hand, LEVEL-1). ``command_id``: the
    host's ``set_house`` (None: the table started under ``--house``)."""

    kind: Literal["house_set"] = "house_set"
    hand_no: Count  # the table's latest hand when the house was set (0 before the first)
    house: HouseView
    text: Annotated[str, Field(max_length=HOUSE_TEXT_MAX)]


class RakeTaken(Frozen):
    """The house's rake from one hand of a raked cash house, as its schedule says
    (RAKE-1..8): ``rake`` of a ``pot`` measured before the rake, with ``players_dealt``
    (RAKE-5's halved cap) and whether the hand saw a flop (RAKE-2: no flop, no drop, so
    ``rake`` may be 0). Journaled just before the hand's ``hand_ended``, whose stacks are
    after it; the bridge's rake ledger adds these up per table and day."""

    kind: Literal["rake_taken"] = "rake_taken"
    hand_no: HandNo
    rake: Chips
    pot: Chips
    players_dealt: Annotated[int, Field(ge=2, le=10)]
    saw_flop: bool
