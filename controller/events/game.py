"""The game a hand is played at, on the wire: :class:`GameSetup` is everything of the rules'
:class:`~controller.rules.game.GameConfig` but the stacks, so a host can replay the hand."""

from __future__ import annotations

from fractions import Fraction
from typing import Annotated, Literal

from pydantic import Field

from controller.rules.config import LIVE_CASH, RulesProfile, Variant
from controller.rules.game import GameConfig, Post, Straddle
from controller.rules.rake import RakeBracket, RakePolicy

from .base import Chips, Count, Frozen


class RakeSetup(Frozen):
    """:class:`~controller.rules.rake.RakePolicy` on the wire (``percent`` as ``"7/2"``)."""

    kind: Literal["percentage", "brackets"]
    percent: Annotated[str, Field(pattern=r"^\d+(/\d+)?$")] = "0"
    cap: Chips | None = None
    halved_cap: Chips | None = None
    rounding: Literal["nearest", "up"] = "nearest"
    minimum: Chips = 1
    brackets: tuple[tuple[Chips | None, Chips], ...] = ()
    no_flop_no_drop: bool = True
    unit: Annotated[str, Field(max_length=16)] = "cent"

    @classmethod
    def of(cls, policy: RakePolicy) -> RakeSetup:
        """The wire form of a rake policy."""
        return cls(kind=policy.kind, percent=str(policy.percent), cap=policy.cap,
                   halved_cap=policy.halved_cap, rounding=policy.rounding,
                   minimum=policy.minimum,
                   brackets=tuple((b.pot_to, b.rake) for b in policy.brackets),
                   no_flop_no_drop=policy.no_flop_no_drop, unit=policy.unit)

    def policy(self) -> RakePolicy:
        """The rules' rake policy (raises ``ConfigError`` if it is not a valid one)."""
        return RakePolicy(self.kind, Fraction(self.percent), self.cap, self.halved_cap,
                          self.rounding, self.minimum,
                          tuple(RakeBracket(t, r) for t, r in self.brackets),
                          self.no_flop_no_drop, self.unit)


RuleValue = Annotated[str, Field(max_length=64)] | int | None


class RulesSetup(Frozen):
    """The rules profile a hand is played under (RULES.md §1: one value per key), so a
    host replays it by the same rules: who shows first at an all-in showdown (SHOW-3), odd
    chips (POT-5), short all-ins (BET-9)..."""

    name: Annotated[str, Field(min_length=1, max_length=64)]
    values: tuple[tuple[Annotated[str, Field(max_length=64)], RuleValue], ...]

    @classmethod
    def of(cls, profile: RulesProfile) -> RulesSetup:
        return cls(name=profile.name, values=tuple(sorted(profile.values.items())))

    def profile(self) -> RulesProfile:
        """The rules' profile (raises ``ConfigError`` naming the key if one is not valid)."""
        return RulesProfile(self.name, dict(self.values))


class PostSetup(Frozen):
    """An extra forced bet by a player who is not a blind (BLIND-4, BLIND-5)."""

    player: Count
    live: Chips = 0
    dead: Chips = 0


class GameSetup(Frozen):
    """Everything of :class:`~controller.rules.game.GameConfig` but the stacks (those are
    ``HandStarted.stacks``): what a host needs to replay the hand for PHH."""

    variant: Literal["NT", "PO", "FT"] = "NT"
    small_blind: Chips
    big_blind: Chips
    antes: tuple[Chips, ...] = ()
    big_blind_ante: Chips = 0
    straddle: Literal["none", "utg", "button"] = "none"
    straddle_amount: Chips = 0
    small_bet: Chips = 0
    big_bet: Chips = 0
    fl_capped: bool | None = None
    no_small_blind: bool = False
    unit: Annotated[int, Field(ge=1)] = 1
    posts: tuple[PostSetup, ...] = ()
    rake: RakeSetup | None = None
    rules: RulesSetup | None = None  # None: the live cash profile

    @classmethod
    def of(cls, config: GameConfig, profile: RulesProfile | None = None) -> GameSetup:
        """The wire form of a hand's configuration and the rules it is played under."""
        return cls(rules=None if profile is None else RulesSetup.of(profile),
                   variant=config.variant.value, small_blind=config.small_blind,
                   big_blind=config.big_blind, antes=config.antes,
                   big_blind_ante=config.big_blind_ante, straddle=config.straddle.value,
                   straddle_amount=config.straddle_amount, small_bet=config.small_bet,
                   big_bet=config.big_bet, fl_capped=config.fl_capped,
                   no_small_blind=config.no_small_blind, unit=config.unit,
                   posts=tuple(PostSetup(player=p.player_index, live=p.live, dead=p.dead)
                               for p in config.posts),
                   rake=None if config.rake is None else RakeSetup.of(config.rake))

    def profile(self) -> RulesProfile:
        """The rules profile the hand is played under."""
        return LIVE_CASH if self.rules is None else self.rules.profile()

    def config(self, stacks: tuple[int, ...]) -> GameConfig:
        """The rules' configuration for a hand with these starting stacks."""
        return GameConfig(
            Variant(self.variant), stacks, self.small_blind, self.big_blind, self.antes,
            self.big_blind_ante, Straddle(self.straddle), self.straddle_amount,
            self.small_bet, self.big_bet, self.fl_capped, self.no_small_blind, self.unit,
            None if self.rake is None else self.rake.policy(),
            tuple(Post(p.player, p.live, p.dead) for p in self.posts))
