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
    """A PokerKit state with the same players, stacks and forced bets, posted."""
    n = config.players
    forced = [0] * n
    forced[0], forced[1] = config.small_blind, config.big_blind  # PokerKit swaps heads-up
    if config.straddle_index is not None:
        forced[config.straddle_index] = config.straddle_size
    antes: list[int] = list(config.antes) or [0] * n
    antes[config.big_blind_index] += config.big_blind_ante
    if n == 2:  # PokerKit reads heads-up antes, like blinds, as [small blind, big blind]
        antes.reverse()
    trimming = not config.big_blind_ante  # uniform antes are layered; a BB ante is dead
    if config.variant is Variant.FT:
        return pokerkit.FixedLimitTexasHoldem.create_state(
            AUTOMATIONS, trimming, antes, forced, config.small_bet, config.big_bet,
            config.stacks, n)
    game = (pokerkit.NoLimitTexasHoldem if config.variant is Variant.NT
            else pokerkit.PotLimitOmahaHoldem)
    return game.create_state(AUTOMATIONS, trimming, antes, forced, config.big_blind,
                             config.stacks, n)
