"""Dealing the hand: hole cards and the board, every card seen once (DEAL-1, CARD-1..7).

A part of :class:`~controller.rules.hand.Hand`, kept in its own module; the attributes it
works on are the hand's own (declared here for the type checker only).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from controller.rules.actions import Action, DealBoard, DealHole
from controller.rules.cards import DECK, Card
from controller.rules.config import HOLE_CARDS
from controller.rules.errors import IllegalActionError
from controller.rules.phases import BOARD_DEAL, STREETS, Phase
from controller.rules.phases import can as _can

if TYPE_CHECKING:
    from controller.rules.game import GameConfig


class DealingSteps:
    """The dealing steps of a hand (mixed into :class:`~controller.rules.hand.Hand`)."""

    if not TYPE_CHECKING:  # the hand holds the slots; the type checker sees them below
        __slots__ = ()
    else:
        config: GameConfig
        phase: Phase
        street: int
        stacks: list[int]
        hole: list[tuple[Card | None, ...] | None]
        board: list[Card]
        log: list[Action]
        _known: set[int]

        def _start_round(self) -> None: ...

    def verify_deal_hole(self, player: int, cards: Sequence[Card | None]) -> None:
        """Raise unless ``player`` may be dealt these hole cards now (CARD-2, CARD-3)."""
        if self.phase is not Phase.DEAL_HOLE:
            raise IllegalActionError(f"hole cards are dealt before the betting; the hand is at "
                                     f"{self.phase}", "DEAL-1")
        if not 0 <= player < len(self.stacks):
            raise IllegalActionError(f"there is no player {player} in this hand")
        if self.hole[player] is not None:
            raise IllegalActionError(f"player {player} already has hole cards", "CARD-2")
        want = HOLE_CARDS[self.config.variant]
        if len(cards) != want:
            raise IllegalActionError(f"{self.config.variant} deals {want} hole cards, not "
                                     f"{len(cards)}", "CARD-3" if want == 4 else "CARD-2")
        self._verify_unseen([c for c in cards if c is not None])

    def can_deal_hole(self, player: int, cards: Sequence[Card | None]) -> bool:
        """Whether :meth:`deal_hole` would accept these cards."""
        return _can(self.verify_deal_hole, player, cards)

    def deal_hole(self, player: int, cards: Sequence[Card | None]) -> DealHole:
        """Deal ``player`` their hole cards; betting starts once everyone has theirs."""
        known = self._known
        if not (self.phase is Phase.DEAL_HOLE and 0 <= player < len(self.hole)
                and self.hole[player] is None
                and len(cards) == HOLE_CARDS[self.config.variant]
                and None not in cards and known.isdisjoint(cards)
                and len(set(cards)) == len(cards)):  # the common case, checked in one go
            self.verify_deal_hole(player, cards)  # anything else: the full reasons
        action = DealHole(player, tuple(cards))
        self.hole[player] = action.cards
        known.update(c for c in action.cards if c is not None)
        self.log.append(action)
        if None not in self.hole:
            self.phase = Phase.BETTING
            self._start_round()
        return action

    def verify_deal_board(self, cards: Sequence[Card]) -> None:
        """Raise unless these community cards are the next to come (DEAL-1, CARD-7)."""
        if self.phase is not Phase.DEAL_BOARD:
            why = ("the hand is over: no more cards are dealt (CARD-7)"
                   if self.phase is Phase.COMPLETE else f"the hand is at {self.phase}")
            raise IllegalActionError(f"no board cards are due now: {why}", "DEAL-1")
        want = BOARD_DEAL[self.street]
        if len(cards) != want:
            raise IllegalActionError(f"the {STREETS[self.street + 1]} is {want} card"
                                     f"{'s' if want > 1 else ''}, not {len(cards)}", "DEAL-1")
        self._verify_unseen(cards)

    def can_deal_board(self, cards: Sequence[Card]) -> bool:
        """Whether :meth:`deal_board` would accept these cards."""
        return _can(self.verify_deal_board, cards)

    def deal_board(self, cards: Sequence[Card]) -> DealBoard:
        """Deal the flop, turn or river; betting follows while two players can bet."""
        self.verify_deal_board(cards)
        action = DealBoard(tuple(cards))
        self.board.extend(action.cards)
        self._known.update(action.cards)
        self.log.append(action)
        self.street += 1
        self.phase = Phase.BETTING
        self._start_round()
        return action

    def _verify_unseen(self, cards: Sequence[int]) -> None:
        if self._known.isdisjoint(cards) and len(set(cards)) == len(cards):
            return
        seen: set[int] = set()
        for card in cards:
            if card in self._known or card in seen:
                raise IllegalActionError(f"{DECK[card]} is already in this hand", "CARD-1")
            seen.add(card)
