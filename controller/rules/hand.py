"""The hand state machine for NT, PO and FT (DEAL, BLIND, ANTE, STRADDLE, BET, PL, FL, POT, SHOW).

Every operation comes three ways, after PokerKit: ``verify_x`` raises
:class:`IllegalActionError` naming the rule and the reason, ``can_x`` answers yes or no,
and ``x`` performs the action and returns it. An illegal action never changes the state.
Chips are conserved: stacks plus contributions always equal the starting stacks, and after
the hand the stacks plus the rake do.

The hand's truth is its action log (:attr:`Hand.log`): :meth:`Hand.replay` rebuilds any
hand from its config and log, and :meth:`Hand.undo` is a replay without the last action.
"""

from __future__ import annotations

from collections.abc import Iterable

from controller.rules.actions import (
    Action,
    BetRaise,
    Call,
    Check,
    DealBoard,
    DealHole,
    Fold,
    Kill,
    Show,
)
from controller.rules.cards import Card
from controller.rules.config import LIVE_CASH, RulesProfile, Variant
from controller.rules.dealing import DealingSteps
from controller.rules.errors import IllegalActionError
from controller.rules.game import GameConfig
from controller.rules.phases import STREETS, Phase
from controller.rules.phases import can as _can
from controller.rules.pots import Pot, build_pots
from controller.rules.showdown import Award, ShowdownSteps

__all__ = ["STREETS", "Award", "Hand", "Phase"]


class Hand(DealingSteps, ShowdownSteps):
    """One hand, from the forced bets to the pots awarded."""

    __slots__ = (
        "_active",
        "_known",
        "_limits",
        "_limits_at",
        "_show_queue",
        "_successive",
        "acted",
        "actor",
        "aggressor",
        "awards",
        "bet_count",
        "bets",
        "board",
        "config",
        "contrib",
        "current_bet",
        "dead_money",
        "folded",
        "hole",
        "last_aggressor",
        "log",
        "min_increment",
        "mucked",
        "payouts",
        "phase",
        "profile",
        "rake",
        "reopen_level",
        "short_accum",
        "shown",
        "stacks",
        "street",
    )

    def __init__(self, config: GameConfig, profile: RulesProfile = LIVE_CASH) -> None:
        n = config.players
        self.config = config
        self.profile = profile
        self.stacks = list(config.stacks)
        self.bets = [0] * n  # live bets this round
        self.contrib = [0] * n  # what each player put in this hand, their own antes included
        self.dead_money = 0  # the big blind ante: the table's, in the main pot (ANTE-2)
        self.folded = [False] * n
        self.mucked = [False] * n
        self.shown = [False] * n
        self.hole: list[tuple[Card | None, ...] | None] = [None] * n
        self.board: list[Card] = []
        self.log: list[Action] = []
        self.payouts: list[int] | None = None
        self.awards: list[Award] = []  # how each pot was won, once the hand is settled
        self.rake = 0
        self.phase = Phase.DEAL_HOLE
        self.street = 0
        self.actor: int | None = None
        self.acted = [-1] * n  # the bet level each player last acted on this round
        self.current_bet = 0
        self.min_increment = config.big_blind
        self.reopen_level = 0
        self.short_accum = 0
        self.bet_count = 0
        self.aggressor: int | None = None  # last bettor or raiser this round
        self.last_aggressor: int | None = None  # ... in the whole hand
        self._active = n  # players holding cards with chips behind (not all-in)
        self._known: set[int] = set()
        self._limits_at = -1  # len(log) when _limits was worked out (-1: never)
        self._limits: tuple[int, int] | None = None
        self._successive = profile.short_allin_successive  # BET-9 mode, read once
        self._show_queue: list[int] = []
        self._post_forced_bets()

    # ------------------------------------------------------------------ forced bets
    def _pay(self, player: int, amount: int, live: bool) -> None:
        paid = min(amount, self.stacks[player])  # BLIND-3: short stacks post all they have
        self.stacks[player] -= paid
        if paid and not self.stacks[player]:
            self._active -= 1
        self.contrib[player] += paid
        if live:
            self.bets[player] += paid

    def _post_forced_bets(self) -> None:
        cfg = self.config
        for player, ante in enumerate(cfg.antes):  # ANTE-4: dead money, posted first
            if ante:
                self._pay(player, ante, live=False)
        if cfg.small_blind_index is not None:  # BLIND-1, BTN-3; BTN-5: may be missing
            self._pay(cfg.small_blind_index, cfg.small_blind, live=True)
        self._pay(cfg.big_blind_index, cfg.big_blind, live=True)
        for post in cfg.posts:  # BLIND-4/5: the live part is a bet, the dead part is not
            self._pay(post.player_index, post.live, live=True)
            self._pay(post.player_index, post.dead, live=False)
        if cfg.big_blind_ante:  # ANTE-2; ANTE-5: the blind first, the ante from the rest
            bb = cfg.big_blind_index
            paid = min(cfg.big_blind_ante, self.stacks[bb])
            self.stacks[bb] -= paid
            if paid and not self.stacks[bb]:
                self._active -= 1
            self.dead_money = paid  # paid for the whole table: nobody's stake, all can win it
        straddler = cfg.straddle_index
        if straddler is not None:  # STRADDLE-1..3
            self._pay(straddler, cfg.straddle_size, live=True)
            self.min_increment = cfg.straddle_size  # STRADDLE-5
        if cfg.variant is Variant.FT:
            self.min_increment = cfg.small_bet
            self.bet_count = 1  # FL-1: the big blind is the round's bet
        # BLIND-3 is silent on what a short big blind leaves to call; by the live
        # convention (and as PokerKit does) the others still owe the full blind [conv].
        self.current_bet = max(max(self.bets), cfg.big_blind)
        self.reopen_level = self.current_bet

    # ------------------------------------------------------------------ views
    @property
    def players(self) -> int:
        """How many players were dealt in."""
        return len(self.stacks)

    @property
    def pot_total(self) -> int:
        """All chips in the middle, bets not yet gathered included (PL-3)."""
        return sum(self.contrib) + self.dead_money

    @property
    def call_amount(self) -> int:
        """What the player to act must put in to call (capped by their stack)."""
        p = self.actor
        if p is None:
            return 0
        return min(self.current_bet - self.bets[p], self.stacks[p])

    @property
    def min_raise_to(self) -> int | None:
        """The smallest legal bet or raise total for the player to act, or None."""
        limits = self._raise_limits()
        return None if limits is None else limits[0]

    @property
    def max_raise_to(self) -> int | None:
        """The largest legal bet or raise total for the player to act, or None."""
        limits = self._raise_limits()
        return None if limits is None else limits[1]

    @property
    def is_complete(self) -> bool:
        """True once every pot has been awarded."""
        return self.phase is Phase.COMPLETE

    @property
    def show_order(self) -> tuple[int, ...]:
        """Who still has to show or muck, in the order the rules call them (SHOW-2/3)."""
        return tuple(self._show_queue) if self.phase is Phase.SHOWDOWN else ()

    @property
    def next_to_show(self) -> int | None:
        """The player the showdown waits for, or None."""
        return self._show_queue[0] if self.phase is Phase.SHOWDOWN and self._show_queue else None

    def pots(self) -> list[Pot]:
        """The main pot and side pots as they stand (POT-1), before rake.

        Each player's own antes are layered with their bets; the big blind ante is dead
        money for the whole table and goes to the main pot (ANTE-2, ANTE-4).
        """
        live = [not (f or m) for f, m in zip(self.folded, self.mucked, strict=True)]
        pots = build_pots(self.contrib, live)
        if self.dead_money:
            if pots:
                pots[0] = Pot(pots[0].amount + self.dead_money, pots[0].eligible)
            else:
                pots = [Pot(self.dead_money, tuple(i for i, a in enumerate(live) if a))]
        return pots

    def snapshot(self) -> tuple[object, ...]:
        """Everything that makes up the state, for equality checks (undo, replay)."""
        return (
            self.phase, self.street, self.actor, tuple(self.stacks), tuple(self.bets),
            tuple(self.contrib), self.dead_money, self._active, tuple(self.folded),
            tuple(self.mucked), tuple(self.shown), tuple(self.hole), tuple(self.board),
            self.current_bet, self.min_increment, self.reopen_level, self.short_accum,
            self.bet_count, tuple(self.acted), self.aggressor, self.last_aggressor,
            tuple(self._show_queue), self.rake,
            None if self.payouts is None else tuple(self.payouts),
            tuple(self.awards), len(self.log),
        )

    # ------------------------------------------------------------------ betting
    def _verify_turn(self, player: int | None, what: str) -> int:
        if self.phase is not Phase.BETTING or self.actor is None:
            raise IllegalActionError(f"nobody can {what} now: the hand is at {self.phase}",
                                     "BET-1")
        if player is not None and player != self.actor:
            raise IllegalActionError(f"player {player} cannot {what}: it is player "
                                     f"{self.actor}'s turn", "BET-1")
        return self.actor

    def verify_fold(self, player: int | None = None, forfeit: int = 0) -> None:
        """Raise unless the player to act (or ``player``) may fold, leaving ``forfeit``
        chips they pushed in the pot (BET-2; LIVE-2/7/10)."""
        p = self._verify_turn(player, "fold")
        if not 0 <= forfeit <= self.stacks[p]:
            raise IllegalActionError(f"player {p} cannot leave {forfeit} in the pot: they have "
                                     f"{self.stacks[p]} behind", "LIVE-2")

    def can_fold(self, player: int | None = None, forfeit: int = 0) -> bool:
        """Whether :meth:`fold` would be accepted."""
        return _can(self.verify_fold, player, forfeit)

    def fold(self, player: int | None = None, forfeit: int = 0) -> Fold:
        """The player to act gives up the hand (BET-2, LIVE-3); chips they pushed and must
        leave stay in the pot as dead money, never a bet that could come back (POT-7)."""
        self.verify_fold(player, forfeit)
        p = self.actor
        assert p is not None
        if forfeit:
            self.stacks[p] -= forfeit
            self.contrib[p] += forfeit
        self.folded[p] = True
        self._active -= 1  # only players with chips behind are asked to act
        action = Fold(p, forfeit)
        self.log.append(action)
        if self.folded.count(False) == 1:  # POT-4: one player left wins without showing
            self._end_round()
        else:
            self._advance(p)
        return action

    def verify_kill(self, player: int, rule: str = "LIVE-17") -> None:
        """Raise unless ``player``'s hand can be declared dead now (LIVE-17, DEAL-5)."""
        if self.phase is Phase.COMPLETE:
            raise IllegalActionError("the hand is over: the pots were awarded", "LIVE-24")
        if not 0 <= player < len(self.stacks):
            raise IllegalActionError(f"there is no player {player} in this hand")
        if self.folded[player] or self.mucked[player]:
            raise IllegalActionError(f"player {player} holds no live hand", rule)

    def can_kill(self, player: int, rule: str = "LIVE-17") -> bool:
        """Whether :meth:`kill` would be accepted."""
        return _can(self.verify_kill, player, rule)

    def kill(self, player: int, rule: str = "LIVE-17") -> Kill:
        """Declare ``player``'s hand dead, in turn or not: it can win nothing and its chips
        stay in the pot (LIVE-17); the rule that killed it is logged (DEAL-5, LIVE-16)."""
        self.verify_kill(player, rule)
        if self.stacks[player]:
            self._active -= 1
        self.folded[player] = True
        action = Kill(player, rule)
        self.log.append(action)
        if self.phase is Phase.SHOWDOWN:
            self._show_queue = [i for i in self._show_queue if i != player]
            self._after_showdown_action()
        elif self.phase is Phase.BETTING:
            start = self.actor if self.actor != player else (player + 1) % len(self.stacks)
            self.actor = None if start is None else self._next_to_act(start)
            if self.actor is None or self.folded.count(False) == 1:
                self._end_round()
        elif self.phase is Phase.DEAL_BOARD and self.folded.count(False) == 1:
            self._settle()  # between rounds: nothing to return, the last hand wins (POT-4)
        return action

    def verify_check(self, player: int | None = None) -> None:
        """Raise unless the player to act may check (BET-2, BLIND-2)."""
        p = self._verify_turn(player, "check")
        if self.bets[p] < self.current_bet:
            raise IllegalActionError(f"player {p} cannot check: there is "
                                     f"{self.current_bet - self.bets[p]} to call", "BET-2")

    def can_check(self, player: int | None = None) -> bool:
        """Whether :meth:`check` would be accepted."""
        return _can(self.verify_check, player)

    def check(self, player: int | None = None) -> Check:
        """The player to act checks."""
        self.verify_check(player)
        p = self.actor
        assert p is not None
        self.acted[p] = self.current_bet
        action = Check(p)
        self.log.append(action)
        self._advance(p)
        return action

    def verify_call(self, player: int | None = None) -> int:
        """Raise unless the player to act may call; return the chips the call puts in."""
        p = self._verify_turn(player, "call")
        owed = self.current_bet - self.bets[p]
        if owed <= 0:
            raise IllegalActionError(f"player {p} has nothing to call: check or bet", "BET-2")
        return min(owed, self.stacks[p])  # BET-6: all-in for less

    def can_call(self, player: int | None = None) -> bool:
        """Whether :meth:`call` would be accepted."""
        return _can(self.verify_call, player)

    def call(self, player: int | None = None) -> Call:
        """The player to act matches the highest bet, or goes all-in for less (BET-6)."""
        amount = self.verify_call(player)
        p = self.actor
        assert p is not None
        self.stacks[p] -= amount
        if not self.stacks[p]:
            self._active -= 1  # BET-6: all-in
        self.contrib[p] += amount
        self.bets[p] += amount
        self.acted[p] = self.current_bet
        self.short_accum = 0  # BET-9: a call ends a run of short all-ins
        action = Call(p, amount)
        self.log.append(action)
        self._advance(p)
        return action

    def check_or_call(self, player: int | None = None) -> Check | Call:
        """Check if nothing is owed, else call (PHH ``cc``)."""
        p = self._verify_turn(player, "check or call")
        if self.bets[p] >= self.current_bet:
            self.acted[p] = self.current_bet
            check = Check(p)
            self.log.append(check)
            self._advance(p)
            return check
        return self.call(p)

    def _raise_limits(self) -> tuple[int, int] | None:
        """(min, max) bet-or-raise totals for the player to act, or None if they may not.

        Asked several times per decision (min, max, the live chip rules): kept until the
        next action, since every change to the hand appends to its log.
        """
        key = len(self.log)
        if self._limits_at == key:
            return self._limits
        p = self.actor
        limits: tuple[int, int] | None = None
        if p is not None and self.phase is Phase.BETTING:
            try:
                limits = self._verify_raise_rights(p)
            except IllegalActionError:
                limits = None
        self._limits_at, self._limits = key, limits
        return limits

    def _verify_raise_rights(self, p: int) -> tuple[int, int]:
        cfg = self.config
        bets = self.bets
        current = self.current_bet
        all_in_to = self.stacks[p] + bets[p]
        if all_in_to <= current:
            raise IllegalActionError(f"player {p} has no chips beyond a call", "BET-6")
        folded = self.folded
        stacks = self.stacks
        if not any(i != p and not folded[i] and stacks[i] + bets[i] > current
                   for i in range(len(stacks))):  # POT-3: it would all come back uncalled
            raise IllegalActionError("no other player can put in more than the current bet: "
                                     "only call or fold", "BET-1")
        acted = self.acted[p]
        if acted >= 0:
            if self._successive:
                reopened = self.reopen_level > acted
            else:  # BET-9 per_player_cumulative
                reopened = current - acted >= self.min_increment
            if not reopened:
                raise IllegalActionError(
                    f"player {p} already acted and faces only a short all-in: call or "
                    "fold (the betting was not reopened)", "BET-8")
        variant = cfg.variant
        if variant is Variant.FT:
            if cfg.capped and self.bet_count >= self.profile.number("fl.max_bets"):
                raise IllegalActionError("the betting is capped at one bet and three raises "
                                         "this round", "FL-1")
            size = cfg.small_bet if self.street < 2 else cfg.big_bet
            low = high = current + size
        else:
            low = current + self.min_increment  # BET-3, BET-4 (min_increment starts at BB)
            high = all_in_to
            if variant is Variant.PO:  # PL-3: current bet + the pot after calling, but
                # never below the minimum (BET-3: a small pot still allows a full bet)
                high = max(low, current + self.pot_total + (current - bets[p]))
        if all_in_to < low:  # BET-8: an all-in short of the minimum is still allowed
            return all_in_to, all_in_to
        return low, min(high, all_in_to)

    def verify_bet_or_raise_to(self, amount: int, player: int | None = None) -> None:
        """Raise unless the player to act may bet or raise to a total of ``amount``."""
        p = self._verify_turn(player, "bet or raise")
        low, high = self._verify_raise_rights(p)
        if not low <= amount <= high:
            word = "bet" if self.current_bet == 0 else "raise"
            if low == high:
                rule = "FL-1" if self.config.variant is Variant.FT else "BET-8"
                raise IllegalActionError(f"player {p} can {word} only to {low}, not {amount}",
                                         rule)
            rule = "BET-4" if amount < low else (
                "PL-3" if self.config.variant is Variant.PO else "BET-6")
            raise IllegalActionError(f"a {word} must be to between {low} and {high}, not "
                                     f"{amount}", rule)

    def can_bet_or_raise_to(self, amount: int, player: int | None = None) -> bool:
        """Whether :meth:`bet_or_raise_to` would be accepted."""
        return _can(self.verify_bet_or_raise_to, amount, player)

    def bet_or_raise_to(self, amount: int, player: int | None = None) -> BetRaise:
        """The player to act bets or raises to a total of ``amount`` this round."""
        self.verify_bet_or_raise_to(amount, player)
        p = self.actor
        assert p is not None
        put = amount - self.bets[p]
        self.stacks[p] -= put
        if not self.stacks[p]:
            self._active -= 1  # BET-7/8: all-in
        self.contrib[p] += put
        self.bets[p] = amount
        self.acted[p] = amount
        increment = amount - self.current_bet
        if increment >= self.min_increment:  # BET-4, BET-7: a full raise reopens
            if self.config.variant is not Variant.FT:  # fixed limit keeps its bet size
                self.min_increment = increment
            self.reopen_level = amount
            self.short_accum = 0
            self.bet_count += 1
        else:  # BET-8: short all-in; BET-9: a run of them may add up to a full raise
            self.short_accum += increment
            if self._successive and self.short_accum >= self.min_increment:
                self.reopen_level = amount
                self.short_accum = 0
        self.current_bet = amount
        self.aggressor = self.last_aggressor = p
        action = BetRaise(p, amount)
        self.log.append(action)
        self._advance(p)
        return action

    # ------------------------------------------------------------------ round flow
    def _start_round(self) -> None:
        cfg = self.config
        n = len(self.stacks)
        if self.street == 0:
            straddler = cfg.straddle_index
            first = (straddler if straddler is not None else cfg.big_blind_index) + 1
        else:  # DEAL-2: later rounds start left of the button
            self.current_bet = 0
            self.reopen_level = 0
            self.short_accum = 0
            self.bet_count = 0
            self.aggressor = None
            self.acted = [-1] * n
            if cfg.variant is Variant.FT:
                self.min_increment = cfg.small_bet if self.street < 2 else cfg.big_bet
            else:
                self.min_increment = cfg.big_blind
            first = 0
        self.actor = self._next_to_act(first % n)
        if self.actor is None:
            self._end_round()

    def _next_to_act(self, start: int) -> int | None:
        stacks = self.stacks
        folded = self.folded
        bets = self.bets
        acted = self.acted
        current = self.current_bet
        n = len(stacks)
        for k in range(start, start + n):
            i = k if k < n else k - n
            if stacks[i] and not folded[i] and (acted[i] < 0 or bets[i] < current):
                if self._active == 1 and bets[i] >= current:
                    return None  # BET-1: nobody left to bet against
                return i
        return None

    def _advance(self, player: int) -> None:
        self.actor = self._next_to_act((player + 1) % len(self.stacks))
        if self.actor is None:
            self._end_round()

    def _end_round(self) -> None:
        self.actor = None
        bets = self.bets
        ordered = sorted(bets)
        top, second = ordered[-1], ordered[-2]
        if top > second:  # POT-3: the part nobody matched goes back
            leader = bets.index(top)
            back = top - second
            bets[leader] -= back
            self.contrib[leader] -= back
            if not self.stacks[leader]:
                self._active += 1  # chips behind again
            self.stacks[leader] += back
        self.bets = [0] * len(bets)
        if self.folded.count(False) == 1:
            self._settle()
        elif self.street == 3:
            self._start_showdown()
        else:
            self.phase = Phase.DEAL_BOARD

    # ------------------------------------------------------------------ log
    def apply(self, action: Action) -> Action:
        """Perform a logged action again (replay, undo, crash recovery)."""
        if isinstance(action, DealHole):
            return self.deal_hole(action.player, action.cards)
        if isinstance(action, DealBoard):
            return self.deal_board(action.cards)
        if isinstance(action, Fold):
            return self.fold(action.player, action.forfeit)
        if isinstance(action, Kill):
            return self.kill(action.player, action.rule)
        if isinstance(action, Check):
            return self.check(action.player)
        if isinstance(action, Call):
            return self.call(action.player)
        if isinstance(action, BetRaise):
            return self.bet_or_raise_to(action.to, action.player)
        if isinstance(action, Show):
            return self.show(action.player, action.cards)
        return self.muck(action.player)

    @classmethod
    def replay(cls, config: GameConfig, actions: Iterable[Action],
               profile: RulesProfile = LIVE_CASH) -> Hand:
        """Rebuild a hand from its config and action log."""
        hand = cls(config, profile)
        for action in actions:
            hand.apply(action)
        return hand

    def undo(self) -> Action:
        """Take back the last action; the state is exactly what it was before it."""
        if not self.log:
            raise IllegalActionError("there is nothing to undo: no action yet this hand")
        last = self.log[-1]
        previous = Hand.replay(self.config, self.log[:-1], self.profile)
        for name in Hand.__slots__:
            setattr(self, name, getattr(previous, name))
        return last
