"""Dealing the hand: hole cards and the board, every card seen once (DEAL-1, CARD-1..7).

Plain checks of the cards against the hand's state, each given exactly what it reads;
the hand deals the cards once they pass (:meth:`~controller.rules.hand.Hand.deal_hole`,
:meth:`~controller.rules.hand.Hand.deal_board`).
"""

from __future__ import annotations

from collections.abc import Sequence, Set

from controller.rules.cards import DECK, Card
from controller.rules.config import HOLE_CARDS, Variant
from controller.rules.errors import IllegalActionError
from controller.rules.phases import BOARD_DEAL, DEAL_HOLE, STREETS, Phase


def verify_hole_cards(phase: Phase, variant: Variant, hole: Sequence[object | None],
                      known: Set[int], player: int, cards: Sequence[Card | None]) -> None:
    """Raise unless ``player`` may be dealt ``cards`` now (DEAL-1, CARD-1..3).

    ``hole``: each player's hole cards so far (None: not dealt yet); ``known``: every card
    already in the hand.
    """
    want = HOLE_CARDS[variant]
    if (phase is DEAL_HOLE and 0 <= player < len(hole) and hole[player] is None
            and len(cards) == want and None not in cards and known.isdisjoint(cards)
            and len(set(cards)) == want):  # the common case, checked in one go
        return
    if phase is not Phase.DEAL_HOLE:
        raise IllegalActionError(f"hole cards are dealt before the betting; the hand is at "
                                 f"{phase}", "DEAL-1")
    if not 0 <= player < len(hole):
        raise IllegalActionError(f"there is no player {player} in this hand")
    if hole[player] is not None:
        raise IllegalActionError(f"player {player} already has hole cards", "CARD-2")
    if len(cards) != want:
        raise IllegalActionError(f"{variant} deals {want} hole cards, not {len(cards)}",
                                 "CARD-3" if want == 4 else "CARD-2")
    verify_unseen(known, [c for c in cards if c is not None])


def verify_board_cards(phase: Phase, street: int, known: Set[int],
                       cards: Sequence[Card]) -> None:
    """Raise unless ``cards`` are the next community cards to come (DEAL-1, CARD-7)."""
    if phase is not Phase.DEAL_BOARD:
        why = ("the hand is over: no more cards are dealt (CARD-7)"
               if phase is Phase.COMPLETE else f"the hand is at {phase}")
        raise IllegalActionError(f"no board cards are due now: {why}", "DEAL-1")
    want = BOARD_DEAL[street]
    if len(cards) != want:
        raise IllegalActionError(f"the {STREETS[street + 1]} is {want} card"
                                 f"{'s' if want > 1 else ''}, not {len(cards)}", "DEAL-1")
    verify_unseen(known, cards)


def verify_unseen(known: Set[int], cards: Sequence[int]) -> None:
    """Raise unless every card is new to the hand and none comes twice (CARD-1)."""
    if known.isdisjoint(cards) and len(set(cards)) == len(cards):
        return
    seen: set[int] = set()
    for card in cards:
        if card in known or card in seen:
            raise IllegalActionError(f"{DECK[card]} is already in this hand", "CARD-1")
        seen.add(card)
