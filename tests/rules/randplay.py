"""Random legal play for property tests, differential tests and the engine benchmark.

The randomness is a ``random.Random`` passed in; the engine itself never draws any.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from controller.rules.cards import DECK, Card
from controller.rules.config import HOLE_CARDS, LIVE_CASH, RulesProfile
from controller.rules.game import GameConfig
from controller.rules.hand import Hand, Phase

# One betting step as plain data: ("f",), ("cc",) or ("cbr", total).
Step = tuple[str] | tuple[str, int]


def shuffled_deck(rng: random.Random) -> list[Card]:
    """A deck order drawn from ``rng``."""
    order = list(DECK)
    rng.shuffle(order)
    return order


def deal_hole_cards(hand: Hand, deck: list[Card]) -> None:
    """Deal every player their hole cards off the top of ``deck`` (in position order)."""
    per = HOLE_CARDS[hand.config.variant]
    for player in range(hand.players):
        hand.deal_hole(player, [deck.pop() for _ in range(per)])


def choose_step(hand: Hand, rng: random.Random, *, fold_when_free: bool = False,
                may_raise: bool = True) -> Step:
    """A random legal betting step for the player to act.

    Folding is only offered when there is something to call, unless ``fold_when_free``
    (PokerKit refuses a fold that could have been a check). Raises are offered when legal,
    unless ``may_raise`` is false (where the oracle departs from the rulebook).
    """
    options: list[Step] = [("cc",)]
    if fold_when_free or hand.call_amount > 0:
        options.append(("f",))
    low, high = hand.min_raise_to, hand.max_raise_to
    if may_raise and low is not None and high is not None:
        options.append(("cbr", low))
        options.append(("cbr", high))
        if high > low:
            options.append(("cbr", rng.randint(low, high)))
    weights = [3 if o[0] == "cc" else 2 if o[0] == "f" else 1 for o in options]
    return rng.choices(options, weights)[0]


def apply_step(hand: Hand, step: Step) -> None:
    """Perform one betting step on the engine."""
    if step[0] == "f":
        hand.fold()
    elif step[0] == "cc":
        hand.check_or_call()
    else:
        hand.bet_or_raise_to(step[1])  # type: ignore[misc]  # ("cbr", total)


def play_random_hand(config: GameConfig, rng: random.Random, *, fold_when_free: bool = False,
                     profile: RulesProfile = LIVE_CASH) -> tuple[Hand, list[Card], list[Step]]:
    """Play one complete hand with random legal actions; return it, the deck order used
    (top of the deck last) and the betting steps taken."""
    deck = shuffled_deck(rng)
    order = list(deck)
    hand = Hand(config, profile)
    deal_hole_cards(hand, deck)
    steps: list[Step] = []
    while not hand.is_complete:
        if hand.phase is Phase.BETTING:
            step = choose_step(hand, rng, fold_when_free=fold_when_free)
            apply_step(hand, step)
            steps.append(step)
        elif hand.phase is Phase.DEAL_BOARD:
            hand.deal_board([deck.pop() for _ in range(3 if not hand.board else 1)])
        elif hand.phase is Phase.SHOWDOWN:
            hand.show()
    return hand, order, steps


def chips_balance(hand: Hand) -> int:
    """Stacks plus what is in the middle plus rake: constant through a hand."""
    return sum(hand.stacks) + (0 if hand.is_complete else hand.pot_total) + hand.rake


def positions(stacks: Sequence[int]) -> list[int]:
    """Player indices, for readability in tests."""
    return list(range(len(stacks)))
