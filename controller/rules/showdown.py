"""The showdown and the settling of a hand: who shows first, who may muck, and how each pot
is won (SHOW-1..10, POT-2..5, RAKE-*, CARD-2/3).

Plain functions, each given exactly the part of the hand it reads; the hand keeps the
state and applies what they return (:meth:`~controller.rules.hand.Hand.show`,
:meth:`~controller.rules.hand.Hand.muck`).
"""

from __future__ import annotations

from collections.abc import Sequence, Set
from dataclasses import dataclass
from typing import NamedTuple

from controller.rules.cards import Card, format_cards
from controller.rules.config import RulesProfile, Variant
from controller.rules.dealing import verify_unseen
from controller.rules.errors import IllegalActionError
from controller.rules.evaluator import evaluate, evaluate_omaha
from controller.rules.game import GameConfig
from controller.rules.pots import Pot, split_pot
from controller.rules.rake import rake_for

HoleCards = tuple[Card | None, ...]  # None: a card nobody read (PHH ``??``)


@dataclass(frozen=True, slots=True)
class Award:
    """One pot as it was awarded (POT-2): after rake, to whom, how much each."""

    amount: int
    eligible: tuple[int, ...]
    shares: tuple[tuple[int, int], ...]  # (player, chips), odd units included (POT-5)

    @property
    def split(self) -> bool:
        """True when tied hands shared the pot."""
        return len(self.shares) > 1


class Settlement(NamedTuple):
    """What settling a hand decides: the rake, each pot's award, each player's winnings
    (new lists, for the hand to keep)."""

    rake: int
    awards: list[Award]
    payouts: list[int]


def showdown_order(stacks: Sequence[int], folded: Sequence[bool],
                   hole: Sequence[HoleCards | None], aggressor: int | None,
                   last_aggressor: int | None, *, table_at_once: bool
                   ) -> tuple[list[int], list[int]]:
    """(the players the showdown waits for, in order; the hands turned up at once).

    SHOW-3, SHOW-4 with ``table_at_once`` and a player all-in: every hand is turned up at
    once and only unread hands wait. Otherwise SHOW-3 ``last_aggressor_first`` when a
    player is all-in, or SHOW-2: the river's last bettor, else the first player left of
    the button, then clockwise.
    """
    n = len(stacks)
    contenders = [i for i in range(n) if not folded[i]]
    all_in = any(stacks[i] == 0 for i in contenders)
    if all_in and table_at_once:
        tabled = [i for i in contenders if None not in (hole[i] or (None,))]
        return [i for i in contenders if i not in tabled], tabled
    start = last_aggressor if all_in else aggressor
    if start is None or folded[start]:
        start = contenders[0]
    return [i for i in contenders if i >= start] + [i for i in contenders if i < start], []


def verify_shown_cards(player: int, hole: HoleCards, known: Set[int],
                       cards: Sequence[Card] | None) -> tuple[Card, ...]:
    """Raise unless ``player`` may table ``cards`` (None: the cards they were dealt);
    return the cards shown (SHOW-5..7, CARD-1)."""
    if cards is None:
        if None in hole:
            raise IllegalActionError(f"player {player}'s cards were not read: say which cards "
                                     "they show", "SHOW-6")
        return tuple(c for c in hole if c is not None)
    if len(cards) != len(hole):
        raise IllegalActionError(f"player {player} must show all {len(hole)} hole cards, not "
                                 f"{len(cards)}", "SHOW-5")
    if None not in hole and sorted(cards) != sorted(c for c in hole if c is not None):
        raise IllegalActionError(f"player {player} holds {format_cards(c for c in hole if c)}"
                                 f", not {format_cards(cards)}", "SHOW-7")
    verify_unseen(known, [c for c in cards if c not in hole])
    return tuple(cards)


def verify_may_muck(player: int, stacks: Sequence[int], folded: Sequence[bool]) -> None:
    """Raise unless ``player`` may muck at the showdown (SHOW-4, SHOW-10)."""
    if stacks[player] and any(stacks[i] == 0 and not folded[i] for i in range(len(stacks))):
        raise IllegalActionError(f"player {player} plays for a side pot against an all-in "
                                 "player and must table the hand", "SHOW-4")


def strength(variant: Variant, hole: HoleCards | None, board: list[Card]) -> int:
    """The value of a tabled hand with this board, higher is better (CARD-2, CARD-3)."""
    assert hole is not None and None not in hole
    cards = [c for c in hole if c is not None]
    if variant is Variant.PO:
        return evaluate_omaha(cards, board)  # CARD-3
    return evaluate(cards + board)  # CARD-2


def settle(cfg: GameConfig, profile: RulesProfile, pots: list[Pot],
           hole: Sequence[HoleCards | None], board: list[Card]) -> Settlement:
    """Take the rake and award each pot on its own to its best eligible hand (POT-2..5)."""
    n = len(hole)
    rake = 0
    if cfg.rake is not None:  # RAKE-1..8, taken from the main pot first
        rake = rake_for(cfg.rake, sum(p.amount for p in pots), saw_flop=len(board) >= 3,
                        players_dealt=n)
        owed = rake
        for k, pot in enumerate(pots):
            take = min(owed, pot.amount)
            pots[k] = Pot(pot.amount - take, pot.eligible)
            owed -= take
    payouts = [0] * n
    strengths: dict[int, int] = {}
    each = profile.odd_unit_each
    awards: list[Award] = []
    for pot in pots:  # POT-2: each pot on its own, never mixed before the split
        if not pot.amount:
            continue
        if len(pot.eligible) == 1:
            shares = {pot.eligible[0]: pot.amount}
        else:
            for i in pot.eligible:
                if i not in strengths:
                    strengths[i] = strength(cfg.variant, hole[i], board)
            best = max(strengths[i] for i in pot.eligible)
            winners = [i for i in pot.eligible if strengths[i] == best]
            shares = ({winners[0]: pot.amount} if len(winners) == 1
                      else split_pot(pot.amount, winners, cfg.unit, each=each))
        for i, won in shares.items():
            payouts[i] += won
        awards.append(Award(pot.amount, pot.eligible, tuple(shares.items())))
    return Settlement(rake, awards, payouts)
