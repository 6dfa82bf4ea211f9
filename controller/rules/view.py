"""The public view of a hand in play: what anyone at the table or on the floor may see.

:func:`view_of` reads a :class:`~controller.rules.hand.Hand` once and returns a
:class:`HandView`, a frozen value of ints, bools, tuples and string enums (never a hole
card), cheap enough to build after every action. Everything in it is the engine's own
answer (the same ``actor``, call amount and raise limits the engine enforces), so nobody
downstream needs a second copy of the betting rules: a display or a pydantic model copies
it field by field.

Players are position indices, as in the engine and PHH: 0 is the first player dealt in
left of the button, the last index is the button; heads-up index 1 is the button and
posts the small blind (BTN-3).
"""

from __future__ import annotations

from dataclasses import dataclass

from controller.rules.cards import Card
from controller.rules.config import Variant
from controller.rules.hand import Hand
from controller.rules.phases import STREETS, Phase, Street
from controller.rules.pots import Pot, pots_in_the_middle
from controller.rules.showdown import Award

__all__ = ["HandView", "Phase", "Pot", "Street", "view_of"]


@dataclass(frozen=True, slots=True)
class HandView:
    """A hand as anyone may see it; per-position tuples are indexed by position."""

    variant: Variant
    phase: Phase  # deal_hole, betting, deal_board (cards due), showdown, complete
    street: Street  # the betting round in play, or the last one played (DEAL-1)
    board: tuple[Card, ...]  # community cards dealt so far
    # POT-1: the main pot first, then a side pot above each all-in player's stake, each with
    # the positions that can win it (holding cards, and all-in for at least its level, or
    # with chips behind); chips from the rounds already over, antes included (ANTE-2/4,
    # BLIND-5: the big blind ante and dead posts in the main pot). The bets of the round
    # in play are in ``bets`` until it ends (POT-3: an uncalled part goes back); between
    # rounds these are the pots the hand is settled with. Empty once the hand is complete.
    pots: tuple[Pot, ...]
    pot_total: int  # the pots plus every bet in front (the PL-3 pot); 0 once complete
    stacks: tuple[int, ...]  # chips behind (after the hand: what each player has)
    bets: tuple[int, ...]  # put in this betting round, blinds and straddle included
    folded: tuple[bool, ...]  # folded, or the hand was killed (LIVE-17)
    mucked: tuple[bool, ...]  # gave up their claim at the showdown (SHOW-10)
    all_in: tuple[bool, ...]  # holds cards with no chips behind (BET-6); none once complete
    current_bet: int  # the highest bet this round, what a call matches (a short big blind
    # still leaves the full blind, BLIND-3 [conv]); 0 between rounds and after the betting
    to_act: int | None  # None between streets, all-in runouts, the showdown, hand over
    to_call: int  # what ``to_act`` must add to call, capped by their stack (BET-6); 0
    # if nothing (BLIND-2: the big blind's option) or nobody is to act
    min_raise_to: int | None  # the smallest bet or raise total; None when they may not
    max_raise_to: int | None  # the largest: all-in (NT), the pot (PL-3), fixed size (FL-1)
    can_check: bool  # BET-2, BLIND-2, STRADDLE-2
    can_call: bool  # BET-2, BET-6
    can_bet_or_raise: bool  # BET-3/4/8/9, PL-3, FL-1
    can_fold: bool  # BET-2: whenever it is their turn
    next_to_show: int | None  # the showdown waits for this position to show or muck
    rake: int  # taken once the hand is complete (RAKE-*)
    awards: tuple[Award, ...]  # how each pot was won, once the hand is complete (POT-2)


def view_of(hand: Hand) -> HandView:
    """The public view of ``hand`` as it stands."""
    stacks = hand.stacks
    bets = hand.bets
    folded = hand.folded
    phase = hand.phase
    live = [not (f or m) for f, m in zip(folded, hand.mucked, strict=True)]
    if phase is Phase.COMPLETE:
        pots: tuple[Pot, ...] = ()
        pot_total = 0
        all_in = (False,) * len(stacks)
    else:
        contrib = hand.contrib
        all_in = tuple([a and not s for a, s in zip(live, stacks, strict=True)])
        gathered = [c - b for c, b in zip(contrib, bets, strict=True)]
        pots = tuple(pots_in_the_middle(gathered, contrib, live, all_in, hand.dead_money))
        pot_total = hand.pot_total
    in_round = phase is Phase.BETTING or phase is Phase.DEAL_HOLE
    actor = hand.actor
    low = high = None
    to_call = 0
    if actor is not None:
        to_call = hand.call_amount
        low, high = hand.min_raise_to, hand.max_raise_to
    return HandView(
        variant=hand.config.variant,
        phase=phase,
        street=STREETS[hand.street],
        board=tuple(hand.board),
        pots=pots,
        pot_total=pot_total,
        stacks=tuple(stacks),
        bets=tuple(bets),
        folded=tuple(folded),
        mucked=tuple(hand.mucked),
        all_in=all_in,
        current_bet=hand.current_bet if in_round else 0,
        to_act=actor,
        to_call=to_call,
        min_raise_to=low,
        max_raise_to=high,
        can_check=actor is not None and bets[actor] >= hand.current_bet,
        can_call=to_call > 0,
        can_bet_or_raise=low is not None,
        can_fold=actor is not None,
        next_to_show=hand.next_to_show,
        rake=hand.rake,
        awards=tuple(hand.awards),
    )
