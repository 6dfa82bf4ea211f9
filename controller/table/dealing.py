"""What was read where during one hand: hole cards by seat, burns, the board (CARD-8).

The table routes each card read here and gets back what it means. Nothing here touches
the engine: it records the physical cards so that the table can compare them with what
the rules expect (dealing order, counts per seat, a burn before each street).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final, Literal

from controller.rules.cards import Card

BOARD_COUNTS = (3, 1, 1)  # flop, turn, river
StreetName = Literal["flop", "turn", "river"]
STREET_NAMES: Final[tuple[StreetName, StreetName, StreetName]] = ("flop", "turn", "river")


@dataclass(slots=True)
class HandReads:
    """The physical cards of one hand."""

    dealt: tuple[int, ...]  # seats in dealing order: first left of the button .. button
    per_seat: int  # hole cards each (2 NT, 4 PO)
    hole: dict[int, list[Card]] = field(default_factory=dict)
    owner: dict[Card, int] = field(default_factory=dict)  # hole card -> seat
    burns: list[Card] = field(default_factory=list)
    burned: set[int] = field(default_factory=set)  # streets (0 flop, 1 turn, 2 river) burned
    board: list[Card] = field(default_factory=list)  # accepted by the engine
    pending: list[Card] = field(default_factory=list)  # read, street not complete yet
    extra: dict[int, list[Card]] = field(default_factory=dict)  # beyond per_seat (LIVE-17)
    dead: set[int] = field(default_factory=set)  # seats dealt to fold in turn (BLIND-7)
    kills: dict[int, str] = field(default_factory=dict)  # seat -> rule: dead at the deal's end

    def __post_init__(self) -> None:
        self.hole = {s: [] for s in self.dealt}

    @property
    def hole_count(self) -> int:
        return sum(len(c) for c in self.hole.values())

    @property
    def deal_complete(self) -> bool:
        return self.hole_count == self.per_seat * len(self.dealt)

    @property
    def next_seat(self) -> int | None:
        """Who should get the next hole card, dealing one at a time clockwise (CARD-8)."""
        k = self.hole_count
        if k >= self.per_seat * len(self.dealt):
            return None
        # the k-th card goes to the first seat with fewest cards, in dealing order
        fewest = min(len(c) for c in self.hole.values())
        for seat in self.dealt:
            if len(self.hole[seat]) == fewest:
                return seat
        return None

    def short(self) -> list[int]:
        """Seats holding fewer than their hole cards."""
        return [s for s in self.dealt if len(self.hole[s]) < self.per_seat]

    def knows(self, card: Card) -> bool:
        """Whether the card already has a place in this hand."""
        return (card in self.owner or card in self.burns or card in self.board
                or card in self.pending)

    def face_down(self) -> list[Card]:
        """The cards of this hand nobody may see: hole cards (extra ones too) and burns."""
        return [*self.owner, *(c for cs in self.extra.values() for c in cs), *self.burns]

    def where(self, card: Card) -> str:
        if card in self.owner:
            return f"seat {self.owner[card]}'s hole card"
        if card in self.burns:
            return "a burn card"
        return "on the board"

    def add_hole(self, seat: int, card: Card) -> bool:
        """Record a hole card; False if the seat already has all of its cards."""
        cards = self.hole[seat]
        if len(cards) >= self.per_seat:
            self.extra.setdefault(seat, []).append(card)
            return False
        cards.append(card)
        self.owner[card] = seat
        return True
