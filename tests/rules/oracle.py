"""PokerKit set up as the test oracle for a Pitboss GameConfig (test-only; see RULES.md
Appendix C for where the oracle departs from the rulebook)."""

from __future__ import annotations

from typing import Any

import pokerkit

from controller.rules.config import Variant
from controller.rules.game import GameConfig

AUTOMATIONS = (
    pokerkit.Automation.ANTE_POSTING,
    pokerkit.Automation.BET_COLLECTION,
    pokerkit.Automation.BLIND_OR_STRADDLE_POSTING,
    pokerkit.Automation.CARD_BURNING,
    pokerkit.Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
    pokerkit.Automation.HAND_KILLING,
    pokerkit.Automation.CHIPS_PUSHING,
    pokerkit.Automation.CHIPS_PULLING,
)


def pokerkit_state(config: GameConfig) -> Any:
    """A PokerKit state with the same players, stacks and forced bets, posted (see
    :func:`pokerkit_game`)."""
    return pokerkit_game(config)(config.stacks, config.players)


def pokerkit_game(config: GameConfig) -> Any:
    """The PokerKit game (the table's rules, without the stacks) for a GameConfig; calling
    it with the stacks and the player count gives the state, and PokerKit writes a hand's
    PHH from both (``pokerkit.HandHistory.from_game_state``).

    A post's dead part (BLIND-5) is an ante of that player and, like the big blind ante,
    makes every ante dead money in PokerKit (``ante_trimming_status`` false), as both are
    in the engine (ANTE-4). A post's live part is a forced bet at that position, but
    PokerKit opens the betting after the highest forced bet (the last one on a tie), as
    after a straddle: with a live post past the big blind it calls a different first
    player than BET-1 does, so only betting whose order does not matter compares.
    """
    n = config.players
    forced = [0] * n
    forced[0], forced[1] = config.small_blind, config.big_blind  # PokerKit swaps heads-up
    if config.straddle_index is not None:
        forced[config.straddle_index] = config.straddle_size
    antes: list[int] = list(config.antes) or [0] * n
    antes[config.big_blind_index] += config.big_blind_ante
    for post in config.posts:
        forced[post.player_index] += post.live
        antes[post.player_index] += post.dead
    if n == 2:  # PokerKit reads heads-up antes, like blinds, as [small blind, big blind]
        antes.reverse()
    # uniform antes are layered like the engine's own antes; a BB ante or dead post is dead
    trimming = not (config.big_blind_ante or any(p.dead for p in config.posts))
    if config.variant is Variant.FT:
        return pokerkit.FixedLimitTexasHoldem(AUTOMATIONS, trimming, antes, forced,
                                              config.small_bet, config.big_bet)
    game = (pokerkit.NoLimitTexasHoldem if config.variant is Variant.NT
            else pokerkit.PotLimitOmahaHoldem)
    return game(AUTOMATIONS, trimming, antes, forced, config.big_blind)
