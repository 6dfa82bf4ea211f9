"""The setup of one hand: game, stakes, forced bets and the players' stacks.

Players are numbered by position, as in PHH: index 0 is the first player dealt in left of
the button and the last index is the button. With three or more players index 0 posts the
small blind and index 1 the big blind; heads-up the button (index 1) posts the small blind
and index 0 the big blind (BTN-3). A tournament hand under the dead-button rule may have
no small blind (BTN-5): then index 0 posts the big blind.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from controller.rules.config import Variant
from controller.rules.errors import ConfigError
from controller.rules.rake import RakePolicy

MAX_PLAYERS = 10


class Straddle(StrEnum):
    """Which straddle, if any, this hand has (STRADDLE-1..4)."""

    NONE = "none"
    UTG = "utg"  # STRADDLE-2: first player clockwise of the big blind
    BUTTON = "button"  # STRADDLE-3: Mississippi, posted by the button


# looked up once: naming an enum member (Straddle.UTG) costs a class lookup each time
_NO_STRADDLE, _UTG = Straddle.NONE, Straddle.UTG


@dataclass(frozen=True, slots=True)
class Post:
    """An extra forced bet by one player who is not a blind (BLIND-4, BLIND-5).

    ``live`` counts as that player's bet toward the call, like a blind (a new cash player's
    big blind out of position); ``dead`` goes to the pot and counts toward nothing, like an
    ante (a missed small blind). A short stack pays the live part first (BLIND-3, as
    ANTE-5 orders the blind before the ante).
    """

    player_index: int
    live: int = 0
    dead: int = 0

    def __post_init__(self) -> None:
        if self.player_index < 0 or self.live < 0 or self.dead < 0 or not self.live + self.dead:
            raise ConfigError(f"a post needs a player index >= 0 and a positive amount, not "
                              f"{self.player_index}: {self.live} live + {self.dead} dead",
                              "BLIND-4")


@dataclass(frozen=True, slots=True)
class GameConfig:
    """Everything fixed before the first card of a hand; amounts in the smallest unit."""

    variant: Variant
    stacks: tuple[int, ...]
    small_blind: int
    big_blind: int
    antes: tuple[int, ...] = ()  # per player, dead money (ANTE-4); () for none
    big_blind_ante: int = 0  # ANTE-2: the big blind pays it for the table, after the blind
    straddle: Straddle = Straddle.NONE
    straddle_amount: int = 0  # 0: twice the big blind (STRADDLE-1)
    small_bet: int = 0  # FT: the bet on preflop and flop (FL-2: the structure sets it)
    big_bet: int = 0  # FT: the bet on turn and river
    fl_capped: bool | None = None  # FL-1; None: capped unless the hand is heads-up
    no_small_blind: bool = False  # BTN-5: the big blind moved on and nobody owes the SB
    unit: int = 1  # the smallest amount a pot is split into (POT-5)
    rake: RakePolicy | None = None  # None: no rake (tournaments, RAKE-9)
    posts: tuple[Post, ...] = ()  # BLIND-4/5: a new player's BB, missed blinds

    def __post_init__(self) -> None:
        n = len(self.stacks)
        if not 2 <= n <= MAX_PLAYERS:
            raise ConfigError(f"a hand needs 2 to {MAX_PLAYERS} players, not {n}")
        if min(self.stacks) <= 0:
            raise ConfigError("every player dealt in needs chips: stacks must be positive "
                              f"whole units, got {list(self.stacks)}")
        if self.big_blind <= 0 or not 0 <= self.small_blind <= self.big_blind:
            raise ConfigError(f"blinds {self.small_blind}/{self.big_blind} are not valid: the "
                              "big blind must be positive and the small blind at most it")
        if self.antes and (len(self.antes) != n or any(a < 0 for a in self.antes)):
            raise ConfigError(f"antes must give one non-negative amount per player ({n})")
        if self.big_blind_ante < 0 or self.unit <= 0:
            raise ConfigError("the big blind ante cannot be negative and the unit must be "
                              "positive")
        if self.straddle is not Straddle.NONE:
            if n < 3:
                raise ConfigError("a straddle needs three or more players (STRADDLE-2/3)")
            if self.variant is Variant.FT:
                raise ConfigError("straddles are for no-limit and pot-limit cash games "
                                  "(STRADDLE-6)")
        if self.no_small_blind and n < 3:
            raise ConfigError("heads-up a hand always has a small blind: the button posts it "
                              "(BTN-3, BTN-6)")
        if self.variant is Variant.FT and not 0 < self.small_bet <= self.big_bet:
            raise ConfigError("fixed limit needs small_bet and big_bet, 0 < small <= big "
                              "(FL-2: the structure sets them)")
        if self.posts:
            self._check_posts()

    def _check_posts(self) -> None:
        n = len(self.stacks)
        who = [p.player_index for p in self.posts]
        blinds = {self.small_blind_index, self.big_blind_index, self.straddle_index}
        if len(set(who)) != len(who) or any(i >= n or i in blinds for i in who):
            raise ConfigError(f"posts must name distinct players of the hand other than the "
                              f"blinds and the straddler, not {who}", "BLIND-4")
        if any(p.live > self.big_blind for p in self.posts):
            raise ConfigError("a live post is at most the big blind", "BLIND-4")

    @property
    def players(self) -> int:
        """How many players are dealt in."""
        return len(self.stacks)

    @property
    def heads_up(self) -> bool:
        """Exactly two players dealt in (BTN-3)."""
        return len(self.stacks) == 2

    @property
    def small_blind_index(self) -> int | None:
        """Who posts the small blind: the button heads-up (BTN-3), else index 0; None when
        the hand has no small blind (BTN-5)."""
        if self.no_small_blind:
            return None
        return 1 if len(self.stacks) == 2 else 0

    @property
    def big_blind_index(self) -> int:
        """Who posts the big blind."""
        return 0 if len(self.stacks) == 2 or self.no_small_blind else 1

    @property
    def straddle_index(self) -> int | None:
        """Who straddles: UTG (STRADDLE-2) or the button (STRADDLE-3)."""
        straddle = self.straddle
        if straddle is _NO_STRADDLE:
            return None
        if straddle is _UTG:
            return self.big_blind_index + 1
        return len(self.stacks) - 1  # BUTTON

    @property
    def straddle_size(self) -> int:
        """The straddle: twice the big blind unless set (STRADDLE-1)."""
        return self.straddle_amount or 2 * self.big_blind

    @property
    def capped(self) -> bool:
        """Whether the fixed-limit cap applies (FL-1)."""
        return self.fl_capped if self.fl_capped is not None else len(self.stacks) > 2
