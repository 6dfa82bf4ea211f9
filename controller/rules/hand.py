"""The hand state machine for NT, PO and FT (DEAL, BLIND, ANTE, STRADDLE, BET, PL, FL, POT, SHOW).

Every operation comes three ways, after PokerKit: ``verify_x`` raises
:class:`IllegalActionError` naming the rule and the reason, ``can_x`` answers yes or no,
and ``x`` performs the action and returns it. An illegal action never changes the state.
Chips are conserved: stacks plus the pot (contributions and dead money) always equal the
starting stacks, and after the hand the stacks plus the rake do.

The hand's truth is its action log (:attr:`Hand.log`): :meth:`Hand.replay` rebuilds any
hand from its config and log, and :meth:`Hand.undo` is a replay without the last action.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

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
from controller.rules.betting import next_to_act, raise_bounds, verify_raise_total
from controller.rules.cards import Card
from controller.rules.config import HOLE_CARDS, LIVE_CASH, RulesProfile, Variant
from controller.rules.dealing import verify_board_cards, verify_hole_cards
from controller.rules.errors import IllegalActionError
from controller.rules.forced_bets import post_forced_bets
from controller.rules.game import MAX_PLAYERS, GameConfig
from controller.rules.hand_showdown import ShowdownSteps
from controller.rules.phases import STREETS, Phase
from controller.rules.phases import can as _can
from controller.rules.pots import Pot, pots_with_dead_money
from controller.rules.showdown import Award

__all__ = ["STREETS", "Award", "Hand", "Phase"]
# looked up once: naming an enum member (Phase.BETTING) costs a class lookup each time
(DEAL_HOLE, BETTING, DEAL_BOARD, SHOWDOWN, COMPLETE), _FT, _PO = Phase, Variant.FT, Variant.PO
# The actions that hold nothing but the player are the same value in every hand: made once
# per seat and logged as they are (frozen, equal by value), never built per action.
_CHECKS: Final = tuple(Check(i) for i in range(MAX_PLAYERS))
_FOLDS: Final = tuple(Fold(i) for i in range(MAX_PLAYERS))


class Hand(ShowdownSteps):
    """One hand, from the forced bets to the pots awarded.

    The hand holds the state and every step of it; the rules that only read the state are
    plain functions in their own modules (forced bets, betting, dealing, showdown).
    """

    __slots__ = (  # with ShowdownSteps.__slots__: the whole state (see undo)
        "_active", "_hole_count", "_known", "_limits", "_limits_at", "_successive",
        "_undealt", "acted", "aggressor", "bet_count", "bets", "board", "config", "contrib",
        "current_bet", "dead_money", "folded", "hole", "last_aggressor", "log",
        "min_increment", "mucked", "profile", "reopen_level", "short_accum", "shown",
        "stacks", "street",
    )

    def __init__(self, config: GameConfig, profile: RulesProfile = LIVE_CASH) -> None:
        n = config.players
        forced = post_forced_bets(config)  # DEAL-1: antes, blinds, posts, straddle
        self.config = config
        self.profile = profile
        self.stacks = forced.stacks
        self.bets = forced.bets  # live bets this round
        self.contrib = forced.contrib  # each one's stake this hand, own antes included
        self.dead_money = forced.dead_money  # BB ante, dead posts: the table's (ANTE-2/4)
        self.folded = [False] * n
        self.mucked = [False] * n
        self.shown = [False] * n
        self.hole: list[tuple[Card | None, ...] | None] = [None] * n
        self.board: list[Card] = []
        self.log: list[Action] = []
        self.payouts: list[int] | None = None
        self.awards: list[Award] = []  # how each pot was won, once the hand is settled
        self.rake = 0
        self.phase = DEAL_HOLE
        self.street = 0
        self.actor: int | None = None
        self.acted = [-1] * n  # the bet level each player last acted on this round
        self.current_bet = forced.current_bet
        self.min_increment = forced.min_increment
        self.reopen_level = forced.current_bet
        self.short_accum = 0
        self.bet_count = forced.bet_count
        self.aggressor: int | None = None  # last bettor or raiser this round
        self.last_aggressor: int | None = None  # ... in the whole hand
        self._active = n - self.stacks.count(0)  # holding cards, chips behind (not all-in)
        self._known: set[int] = set()
        self._limits_at = -1  # len(log) when _limits was worked out (-1: never)
        self._limits: tuple[int, int] | None = None
        self._successive = profile.short_allin_successive  # BET-9 mode, read once
        self._show_queue: list[int] = []
        self._hole_count = HOLE_CARDS[config.variant]  # CARD-2, CARD-3
        self._undealt = n  # players still waiting for their hole cards

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
        return self.phase is COMPLETE

    @property
    def show_order(self) -> tuple[int, ...]:
        """Who still has to show or muck, in the order the rules call them (SHOW-2/3)."""
        return tuple(self._show_queue) if self.phase is SHOWDOWN else ()

    @property
    def next_to_show(self) -> int | None:
        """The player the showdown waits for, or None."""
        return self._show_queue[0] if self.phase is SHOWDOWN and self._show_queue else None

    def pots(self) -> list[Pot]:
        """The main pot and side pots as they stand (POT-1), before rake.

        Each player's own antes are layered with their bets; the big blind ante and the
        dead part of a post (a missed small blind) are dead money for the whole table and
        go to the main pot, never to a side pot of the one who paid them (ANTE-2, ANTE-4,
        BLIND-5, POT-7).
        """
        live = [not (f or m) for f, m in zip(self.folded, self.mucked, strict=True)]
        return pots_with_dead_money(self.contrib, live, self.dead_money)

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

    # ------------------------------------------------------------------ dealing
    def verify_deal_hole(self, player: int, cards: Sequence[Card | None]) -> None:
        """Raise unless ``player`` may be dealt these hole cards now (CARD-2, CARD-3)."""
        verify_hole_cards(self.phase, self.config.variant, self.hole, self._known, player,
                          cards)

    def can_deal_hole(self, player: int, cards: Sequence[Card | None]) -> bool:
        """Whether :meth:`deal_hole` would accept these cards."""
        return _can(self.verify_deal_hole, player, cards)

    def deal_hole(self, player: int, cards: Sequence[Card | None]) -> DealHole:
        """Deal ``player`` their hole cards; betting starts once everyone has theirs."""
        hole, known = self.hole, self._known
        if type(cards) is not tuple:
            cards = tuple(cards)
        # the usual deal, checked in one go (CARD-1..3, DEAL-1); else the full check says why
        if (self.phase is DEAL_HOLE and 0 <= player < len(hole) and hole[player] is None
                and len(cards) == self._hole_count and None not in cards
                and known.isdisjoint(cards) and len(set(cards)) == len(cards)):
            known.update(cards)  # type: ignore[arg-type]  # no None: checked above
        else:
            verify_hole_cards(self.phase, self.config.variant, hole, known, player, cards)
            known.update(c for c in cards if c is not None)  # unread cards (``??``): unknown
        action = DealHole(player, cards)
        hole[player] = cards
        self.log.append(action)
        self._undealt -= 1
        if not self._undealt:
            self.phase = BETTING
            self._start_round()
        return action

    def verify_deal_board(self, cards: Sequence[Card]) -> None:
        """Raise unless these community cards are the next to come (DEAL-1, CARD-7).

        Also while all that is left of the betting is the big blind's option, nobody able
        to answer a raise: dealing on leaves its check out, which is legal too (BET-1,
        BLIND-2; RULES.md Appendix C).
        """
        phase = DEAL_BOARD if self._option_only else self.phase
        verify_board_cards(phase, self.street, self._known, cards)

    def can_deal_board(self, cards: Sequence[Card]) -> bool:
        """Whether :meth:`deal_board` would accept these cards."""
        return _can(self.verify_deal_board, cards)

    def deal_board(self, cards: Sequence[Card]) -> DealBoard:
        """Deal the flop, turn or river; betting follows while two players can bet.

        Dealt while the big blind's option is pending with nobody left to bet against,
        the option passes as a check, unlogged (BLIND-2).
        """
        option_only = self._option_only  # as verify_deal_board reads it
        verify_board_cards(DEAL_BOARD if option_only else self.phase, self.street, self._known,
                           cards)
        if option_only:
            self._end_round()
        action = DealBoard(cards if type(cards) is tuple else tuple(cards))
        self.board.extend(action.cards)
        self._known.update(action.cards)
        self.log.append(action)
        self.street += 1
        self.phase = BETTING
        self._start_round()
        return action

    # ------------------------------------------------------------------ betting
    def _verify_turn(self, player: int | None, what: str) -> int:
        if self.phase is not BETTING or self.actor is None:
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
        p = self.actor  # BET-1: the player to act, in turn; else verify_fold says why not
        if forfeit or p is None or player not in (None, p) or self.phase is not BETTING:
            self.verify_fold(player, forfeit)
        assert p is not None
        if forfeit:
            self.stacks[p] -= forfeit
            self.contrib[p] += forfeit
        self.folded[p] = True
        self._active -= 1  # only players with chips behind are asked to act
        action = Fold(p, forfeit) if forfeit else _FOLDS[p]
        self.log.append(action)
        if self.folded.count(False) == 1:  # POT-4: one player left wins without showing
            self._end_round()
        else:
            self._advance(p)
        return action

    def verify_kill(self, player: int, rule: str = "LIVE-17") -> None:
        """Raise unless ``player``'s hand can be declared dead now (LIVE-17, DEAL-5)."""
        if self.phase is COMPLETE:
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
        if self.phase is SHOWDOWN:
            self._show_queue = [i for i in self._show_queue if i != player]
            self._after_showdown_action()
        elif self.phase is BETTING:
            start = self.actor if self.actor != player else (player + 1) % len(self.stacks)
            self.actor = None if start is None else next_to_act(
                start, self.stacks, self.folded, self.bets, self.acted, self.current_bet,
                self._active, self.street == 0)
            if self.actor is None or self.folded.count(False) == 1:
                self._end_round()
        elif self.phase is DEAL_BOARD and self.folded.count(False) == 1:
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
        action = _CHECKS[p]
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
        amount, p = self.verify_call(player), self.actor
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
        p = self.actor  # BET-1: the player to act, in turn; else _verify_turn says why not
        if p is None or player not in (None, p) or self.phase is not BETTING:
            p = self._verify_turn(player, "check or call")
        if self.bets[p] >= self.current_bet:
            self.acted[p] = self.current_bet
            check = _CHECKS[p]
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
        if p is not None and self.phase is BETTING:
            try:
                limits = self._verify_raise_rights(p)
            except IllegalActionError:
                limits = None
        self._limits_at, self._limits = key, limits
        return limits

    def _verify_raise_rights(self, p: int) -> tuple[int, int]:
        cfg = self.config
        current = self.current_bet
        acted = self.acted[p]
        if acted < 0:  # BET-8: a player who has not acted keeps every option
            reopened = True
        elif self._successive:  # BET-9 successive_no_calls
            reopened = self.reopen_level > acted
        else:  # BET-9 per_player_cumulative
            reopened = current - acted >= self.min_increment
        fixed_size = pot_limit = None
        capped = False
        if cfg.variant is _FT:  # FL-1
            fixed_size = cfg.small_bet if self.street < 2 else cfg.big_bet
            capped = cfg.capped and self.bet_count >= self.profile.number("fl.max_bets")
        elif cfg.variant is _PO:  # PL-3: current bet + the pot after calling
            pot_limit = current + self.pot_total + (current - self.bets[p])
        return raise_bounds(p, self.stacks, self.bets, self.folded, current=current,
                            min_increment=self.min_increment, reopened=reopened,
                            capped=capped, fixed_size=fixed_size, pot_limit=pot_limit)

    def verify_bet_or_raise_to(self, amount: int, player: int | None = None) -> None:
        """Raise unless the player to act may bet or raise to a total of ``amount``."""
        p = self._verify_turn(player, "bet or raise")
        verify_raise_total(p, amount, self._verify_raise_rights(p), self.config.variant,
                           self.current_bet)

    def can_bet_or_raise_to(self, amount: int, player: int | None = None) -> bool:
        """Whether :meth:`bet_or_raise_to` would be accepted."""
        return _can(self.verify_bet_or_raise_to, amount, player)

    def bet_or_raise_to(self, amount: int, player: int | None = None) -> BetRaise:
        """The player to act bets or raises to a total of ``amount`` this round."""
        p = self.actor  # BET-1: the player to act, in turn; else _verify_turn says why not
        if p is None or player not in (None, p) or self.phase is not BETTING:
            p = self._verify_turn(player, "bet or raise")
        verify_raise_total(p, amount, self._verify_raise_rights(p), self.config.variant,
                           self.current_bet)
        put = amount - self.bets[p]
        self.stacks[p] -= put
        if not self.stacks[p]:
            self._active -= 1  # BET-7/8: all-in
        self.contrib[p] += put
        self.bets[p] = amount
        self.acted[p] = amount
        increment = amount - self.current_bet
        if increment >= self.min_increment:  # BET-4, BET-7: a full raise reopens
            if self.config.variant is not _FT:  # fixed limit keeps its bet size
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
    @property
    def _option_only(self) -> bool:
        """True when all the betting left is the big blind's option (or the straddler's)
        against opponents all-in for no more than its bet (BET-1, BLIND-2, STRADDLE-2):
        nobody could answer a raise (POT-3), so it may check or fold, and the dealer may
        also deal on without its check (RULES.md Appendix C)."""
        p = self.actor
        return (p is not None and self._active == 1 and self.phase is BETTING
                and self.bets[p] >= self.current_bet)

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
            if cfg.variant is _FT:
                self.min_increment = cfg.small_bet if self.street < 2 else cfg.big_bet
            else:
                self.min_increment = cfg.big_blind
            first = 0
        # BET-1: a lone active player at the start has nobody to bet against, not even
        # the big blind (no option: nobody else could act this round)
        self.actor = next_to_act(first % n, self.stacks, self.folded, self.bets, self.acted,
                                 self.current_bet, self._active, False)
        if self.actor is None:
            self._end_round()

    def _advance(self, player: int) -> None:
        stacks = self.stacks  # the hot path: next_to_act called directly (BET-1)
        self.actor = next_to_act((player + 1) % len(stacks), stacks, self.folded, self.bets,
                                 self.acted, self.current_bet, self._active,
                                 self.street == 0)  # BLIND-2: the option
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
            self.phase = DEAL_BOARD

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
        last, previous = self.log[-1], Hand.replay(self.config, self.log[:-1], self.profile)
        for name in (*ShowdownSteps.__slots__, *Hand.__slots__):
            setattr(self, name, getattr(previous, name))
        return last
