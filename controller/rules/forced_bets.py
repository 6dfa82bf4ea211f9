"""The forced bets that open a hand: antes, blinds, posts and the straddle (DEAL-1 step 1,
ANTE-*, BLIND-1..5, STRADDLE-1..5, FL-1).

:func:`post_forced_bets` is a plain function of the hand's setup: it returns the state the
first betting round starts from, and the hand takes it over.
"""

from __future__ import annotations

from typing import NamedTuple

from controller.rules.config import Variant
from controller.rules.game import GameConfig


class ForcedBets(NamedTuple):
    """Everything the forced bets put in, and the betting they leave for the first round.

    The lists are new for each call: the hand takes them over as its own.
    """

    stacks: list[int]  # chips behind once the forced bets are in
    bets: list[int]  # live bets: blinds, live posts, the straddle (BLIND-2)
    contrib: list[int]  # each player's own stake: their bets and their own antes
    dead_money: int  # the big blind ante and dead posts: the table's, nobody's stake
    # (ANTE-2, ANTE-4, BLIND-5): the main pot's, never a side pot of the one who paid it
    current_bet: int  # what the others must call (BLIND-3 [conv]: at least the big blind)
    min_increment: int  # the smallest raise increment (BET-4, STRADDLE-5, FL-1)
    bet_count: int  # bets and raises so far this round (FL-1: the big blind is the bet)


def post_forced_bets(cfg: GameConfig) -> ForcedBets:
    """Post every forced bet of ``cfg`` in the order the rules give."""
    stacks = list(cfg.stacks)
    bets = [0] * len(stacks)
    contrib = [0] * len(stacks)
    dead_money = 0

    def pay(player: int, amount: int, live: bool) -> None:
        paid = min(amount, stacks[player])  # BLIND-3: short stacks post all they have
        stacks[player] -= paid
        contrib[player] += paid
        if live:
            bets[player] += paid

    def pay_dead(player: int, amount: int) -> None:
        nonlocal dead_money
        paid = min(amount, stacks[player])  # BLIND-3 (ANTE-5: what is left after the blind)
        stacks[player] -= paid
        dead_money += paid  # nobody's stake: it never comes back as the payer's side pot

    for player, ante in enumerate(cfg.antes):  # ANTE-4: dead money, posted first
        if ante:
            pay(player, ante, live=False)
    if cfg.small_blind_index is not None:  # BLIND-1, BTN-3; BTN-5: may be missing
        pay(cfg.small_blind_index, cfg.small_blind, live=True)
    pay(cfg.big_blind_index, cfg.big_blind, live=True)
    for post in cfg.posts:  # BLIND-4/5: the live part is a bet; the dead part is dead
        pay(post.player_index, post.live, live=True)  # money like an ante (ANTE-4, POT-7)
        if post.dead:
            pay_dead(post.player_index, post.dead)
    if cfg.big_blind_ante:  # ANTE-2; ANTE-5: the blind first, the ante from the rest
        pay_dead(cfg.big_blind_index, cfg.big_blind_ante)  # for the whole table
    min_increment = cfg.big_blind  # BET-4: preflop the first increment counts as the BB
    straddler = cfg.straddle_index
    if straddler is not None:  # STRADDLE-1..3
        pay(straddler, cfg.straddle_size, live=True)
        min_increment = cfg.straddle_size  # STRADDLE-5
    bet_count = 0
    if cfg.variant is Variant.FT:
        min_increment = cfg.small_bet
        bet_count = 1  # FL-1: the big blind is the round's bet
    # BLIND-3 is silent on what a short big blind leaves to call; by the live convention
    # (and as PokerKit does) the others still owe the full blind [conv].
    current_bet = max(max(bets), cfg.big_blind)
    return ForcedBets(stacks, bets, contrib, dead_money, current_bet, min_increment, bet_count)
