"""The forced bets that open a hand: antes, blinds, posts and the straddle (DEAL-1 step 1,
ANTE-*, BLIND-1..5, STRADDLE-1..5, FL-1).

:func:`post_forced_bets` is a plain function of the hand's setup: it returns the state the
first betting round starts from, and the hand takes it over.
"""

from __future__ import annotations

from typing import Final, NamedTuple

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
    n = len(stacks)
    bets = [0] * n
    contrib = [0] * n
    dead_money = 0
    for player, ante in enumerate(cfg.antes):  # ANTE-4: dead money, posted first
        if ante:
            _pay(stacks, contrib, None, player, ante)
    heads_up = n == 2
    big = 0 if heads_up or cfg.no_small_blind else 1  # GameConfig.big_blind_index
    if not cfg.no_small_blind:  # BLIND-1, BTN-3 (GameConfig.small_blind_index); BTN-5
        _pay(stacks, contrib, bets, 1 if heads_up else 0, cfg.small_blind)
    _pay(stacks, contrib, bets, big, cfg.big_blind)
    for post in cfg.posts:  # BLIND-4/5: the live part is a bet; the dead part is dead
        _pay(stacks, contrib, bets, post.player_index, post.live)  # money like an ante
        if post.dead:  # (ANTE-4, POT-7)
            dead_money += _pay_dead(stacks, post.player_index, post.dead)
    if cfg.big_blind_ante:  # ANTE-2; ANTE-5: the blind first, the ante from the rest
        dead_money += _pay_dead(stacks, big, cfg.big_blind_ante)  # for the whole table
    min_increment = cfg.big_blind  # BET-4: preflop the first increment counts as the BB
    straddler = cfg.straddle_index
    if straddler is not None:  # STRADDLE-1..3
        _pay(stacks, contrib, bets, straddler, cfg.straddle_size)
        min_increment = cfg.straddle_size  # STRADDLE-5
    bet_count = 0
    if cfg.variant is _FT:
        min_increment = cfg.small_bet
        bet_count = 1  # FL-1: the big blind is the round's bet
    # BLIND-3 is silent on what a short big blind leaves to call; by the live convention
    # (and as PokerKit does) the others still owe the full blind [conv].
    top = max(bets)
    current_bet = top if top > cfg.big_blind else cfg.big_blind
    return ForcedBets(stacks, bets, contrib, dead_money, current_bet, min_increment, bet_count)


_FT: Final = Variant.FT


def _pay(stacks: list[int], contrib: list[int], bets: list[int] | None, player: int,
         amount: int) -> None:
    """``player`` puts in ``amount``, their own stake; a live bet too unless ``bets`` is
    None (an ante)."""
    paid = amount if amount < stacks[player] else stacks[player]  # BLIND-3: short stacks
    stacks[player] -= paid  # post all they have
    contrib[player] += paid
    if bets is not None:
        bets[player] += paid


def _pay_dead(stacks: list[int], player: int, amount: int) -> int:
    """What ``player`` pays of ``amount`` that is nobody's stake: it never comes back as
    the payer's side pot (BLIND-3; ANTE-5: what is left after the blind)."""
    paid = amount if amount < stacks[player] else stacks[player]
    stacks[player] -= paid
    return paid
