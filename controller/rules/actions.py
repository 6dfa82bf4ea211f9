"""The actions of a hand, each a frozen dataclass (DESIGN.md style, after PokerKit).

A hand's truth is its action log: the state is a fold over these, so replay gives undo,
crash recovery, PHH export and audit from one mechanism.
"""

from __future__ import annotations

from dataclasses import dataclass

from controller.rules.cards import Card


@dataclass(frozen=True, slots=True)
class DealHole:
    """Hole cards dealt to one player; ``None`` for a card nobody read (PHH ``????``)."""

    player: int
    cards: tuple[Card | None, ...]


@dataclass(frozen=True, slots=True)
class DealBoard:
    """Community cards: three on the flop, then one on the turn and one on the river."""

    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class Fold:
    """The player gives up the hand and every claim to the pot (BET-2).

    ``forfeit``: chips the player pushed that stay in the pot though they fold (LIVE-2,
    LIVE-7 with the fold option, LIVE-10 call_or_forfeit).
    """

    player: int
    forfeit: int = 0


@dataclass(frozen=True, slots=True)
class Kill:
    """The player's hand is dead wherever the hand is (LIVE-17, DEAL-5, LIVE-16): it
    can win nothing and its chips stay in the pot."""

    player: int
    rule: str


@dataclass(frozen=True, slots=True)
class Check:
    """The player passes with nothing to call (BET-2, BLIND-2)."""

    player: int


@dataclass(frozen=True, slots=True)
class Call:
    """The player matches the highest bet, or puts in all their chips (BET-6)."""

    player: int
    amount: int  # chips put in by this call


@dataclass(frozen=True, slots=True)
class BetRaise:
    """A bet or raise to a total of ``to`` this round (BET-3, BET-4, PL-3, FL-1)."""

    player: int
    to: int


@dataclass(frozen=True, slots=True)
class Show:
    """The player tables their hand at the showdown (SHOW-6)."""

    player: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class Muck:
    """The player gives up their claim at the showdown (SHOW-10)."""

    player: int


Action = DealHole | DealBoard | Fold | Check | Call | BetRaise | Show | Muck | Kill
