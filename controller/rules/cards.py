"""Cards and decks (CARD-1, CARD-2, CARD-3).

A card is a small int, ``rank * 4 + suit``: ranks 0..12 are 2..A, suits 0..3 are
clubs, diamonds, hearts, spades. ``Card`` subclasses ``int`` so the evaluator can index
its tables with it directly, and the 52 instances are made once and shared: parsing
returns an existing object, never a new one.

The deck never shuffles itself: randomness is passed in as the order to deal from
(DESIGN.md: the rules room draws no randomness it did not receive).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

from controller.rules.errors import CardError

RANKS: Final = "23456789TJQKA"
SUITS: Final = "cdhs"
SUIT_SYMBOLS: Final = "♣♦♥♠"
RANK_NAMES: Final = (
    "two", "three", "four", "five", "six", "seven", "eight",
    "nine", "ten", "jack", "queen", "king", "ace",
)
RANK_PLURALS: Final = tuple("sixes" if name == "six" else name + "s" for name in RANK_NAMES)

_SUIT_OF_CHAR: Final = {**{c: i for i, c in enumerate(SUITS)},
                        **{c: i for i, c in enumerate(SUIT_SYMBOLS)},
                        **{c: i for i, c in enumerate(SUITS.upper())}}
_RANK_OF_CHAR: Final = {**{c: i for i, c in enumerate(RANKS)},
                        **{c: i for i, c in enumerate(RANKS.lower())}}


class Card(int):
    """One of the 52 cards; an ``int`` from 0 to 51 (``rank * 4 + suit``)."""

    __slots__ = ()

    @property
    def rank(self) -> int:
        """0 for a deuce up to 12 for an ace."""
        return self >> 2

    @property
    def suit(self) -> int:
        """0 clubs, 1 diamonds, 2 hearts, 3 spades."""
        return self & 3

    @staticmethod
    def parse(text: str) -> Card:
        """Parse ``As``, ``Td``, ``T♦`` or ``10h``; raise :class:`CardError` otherwise."""
        token = text.strip()
        if token[:2] == "10":
            token = "T" + token[2:]
        if len(token) != 2 or token[0] not in _RANK_OF_CHAR or token[1] not in _SUIT_OF_CHAR:
            raise CardError(
                f"{text!r} is not a card: write a rank (2-9, T, J, Q, K, A) then a suit "
                "(c, d, h, s or ♣ ♦ ♥ ♠), e.g. 'As' or 'T♦'"
            )
        return DECK[_RANK_OF_CHAR[token[0]] * 4 + _SUIT_OF_CHAR[token[1]]]

    def symbol(self) -> str:
        """The card with a suit symbol, e.g. ``T♦``."""
        return RANKS[self >> 2] + SUIT_SYMBOLS[self & 3]

    def __str__(self) -> str:
        return RANKS[self >> 2] + SUITS[self & 3]

    def __repr__(self) -> str:
        return f"Card({RANKS[self >> 2] + SUITS[self & 3]!r})"


#: The 52 cards in index order (2c, 2d, 2h, 2s, 3c ... As); ``DECK[i]`` is card ``i``.
DECK: Final[tuple[Card, ...]] = tuple(Card(i) for i in range(52))


def parse_cards(text: str) -> tuple[Card, ...]:
    """Parse cards written together or apart: ``"AsKd"``, ``"As Kd"``, ``"A♠ K♦"``.

    ``"??"`` (an unknown card, as in PHH) is rejected: callers that accept unknown cards
    handle it before parsing.
    """
    compact = "".join(text.split()).replace("10", "T")
    if len(compact) % 2:
        raise CardError(f"{text!r} does not split into two-character cards (e.g. 'AsKd')")
    return tuple(Card.parse(compact[i : i + 2]) for i in range(0, len(compact), 2))


def format_cards(cards: Iterable[int], *, symbols: bool = False) -> str:
    """Cards written together, e.g. ``AsKd`` (or ``A♠K♦`` with ``symbols``)."""
    suits = SUIT_SYMBOLS if symbols else SUITS
    return "".join(RANKS[c >> 2] + suits[c & 3] for c in cards)


def check_distinct(cards: Sequence[int]) -> None:
    """Raise :class:`CardError` naming the card that appears twice (CARD-1: one deck)."""
    seen: set[int] = set()
    for card in cards:
        if card in seen:
            raise CardError(f"{DECK[card]} appears twice; a hand uses one 52-card deck (CARD-1)")
        seen.add(card)


class Deck:
    """A deck to deal from, in an order the caller chose (shuffled outside the engine).

    ``Deck(order)`` takes all 52 cards once each (CARD-1); ``deal(n)`` takes cards off the
    top. The engine's randomness is this order, passed in.
    """

    __slots__ = ("_cards", "_next")

    def __init__(self, order: Sequence[int]) -> None:
        if len(order) != 52:
            raise CardError(f"a deck has 52 cards, this order has {len(order)} (CARD-1)")
        check_distinct(order)
        self._cards: tuple[Card, ...] = tuple(DECK[c] for c in order)
        self._next = 0

    @classmethod
    def fresh(cls) -> Deck:
        """A deck in index order (2c first), for tests and enrolment."""
        return cls(DECK)

    @property
    def remaining(self) -> int:
        """How many cards are left to deal."""
        return 52 - self._next

    def deal(self, count: int = 1) -> tuple[Card, ...]:
        """Take ``count`` cards off the top; raise :class:`CardError` if too few are left."""
        if count < 0 or count > 52 - self._next:
            raise CardError(f"cannot deal {count} cards, {52 - self._next} are left")
        start = self._next
        self._next += count
        return self._cards[start : self._next]
