"""The showdown steps of :class:`~controller.rules.hand.Hand` (SHOW, POT-4): who shows
first, showing and mucking in that order, and settling the pots; split from ``hand.py``
so each stays a module a person can hold in mind. The rules that only read the state are
in :mod:`controller.rules.showdown`; these are the steps that change it."""

from __future__ import annotations

from collections.abc import Sequence

from controller.rules.actions import Action, Muck, Show
from controller.rules.cards import Card
from controller.rules.config import RulesProfile
from controller.rules.errors import IllegalActionError
from controller.rules.game import GameConfig
from controller.rules.phases import Phase
from controller.rules.phases import can as _can
from controller.rules.pots import Pot
from controller.rules.showdown import (
    Award,
    settle,
    showdown_order,
    verify_may_muck,
    verify_shown_cards,
)

__all__ = ["ShowdownSteps"]

SHOWDOWN, COMPLETE = Phase.SHOWDOWN, Phase.COMPLETE


class ShowdownSteps:
    """What :class:`~controller.rules.hand.Hand` does from the showdown on; it holds the
    state (these are its attributes)."""

    # the state these steps set (the rest is the hand's own, read here)
    __slots__ = ("_show_queue", "actor", "awards", "payouts", "phase", "rake")

    config: GameConfig
    profile: RulesProfile
    phase: Phase
    actor: int | None
    stacks: list[int]
    folded: list[bool]
    mucked: list[bool]
    shown: list[bool]
    hole: list[tuple[Card | None, ...] | None]
    board: list[Card]
    log: list[Action]
    payouts: list[int] | None
    awards: list[Award]
    rake: int
    aggressor: int | None
    last_aggressor: int | None
    _known: set[int]
    _show_queue: list[int]

    def pots(self) -> list[Pot]:
        """The pots as they stand (the hand's own)."""
        raise NotImplementedError

    def _start_showdown(self) -> None:
        self.phase = SHOWDOWN
        queue, tabled = showdown_order(self.stacks, self.folded, self.hole, self.aggressor,
                                       self.last_aggressor,
                                       table_at_once=self.profile.allin_table_at_once)
        for i in tabled:  # SHOW-3, SHOW-4: turned up at once
            self.shown[i] = True
        self._show_queue = queue
        self._after_showdown_action()

    def _next_to_show(self, player: int | None, what: str) -> int:
        if self.phase is not SHOWDOWN:
            raise IllegalActionError(f"nobody can {what} now: the hand is at {self.phase}",
                                     "SHOW-1")
        p = self._show_queue[0]
        if player is not None and player != p:
            raise IllegalActionError(f"player {player} cannot {what} yet: player {p} shows "
                                     "first", "SHOW-2")
        return p

    def verify_show(self, player: int | None = None,
                    cards: Sequence[Card] | None = None) -> tuple[Card, ...]:
        """Raise unless the next player may table these cards; return the cards shown."""
        p = self._next_to_show(player, "show")
        hole = self.hole[p]
        assert hole is not None
        return verify_shown_cards(p, hole, self._known, cards)

    def can_show(self, player: int | None = None, cards: Sequence[Card] | None = None) -> bool:
        """Whether :meth:`show` would be accepted."""
        return _can(self.verify_show, player, cards)

    def show(self, player: int | None = None, cards: Sequence[Card] | None = None) -> Show:
        """The next player in the showdown order tables their hand (SHOW-2, SHOW-6)."""
        shown = self.verify_show(player, cards)
        p = self._show_queue.pop(0)
        hole = self.hole[p]
        assert hole is not None
        if None in hole:
            self._known.update(shown)
            self.hole[p] = shown
        self.shown[p] = True
        action = Show(p, shown)
        self.log.append(action)
        self._after_showdown_action()
        return action

    def verify_muck(self, player: int | None = None) -> None:
        """Raise unless the next player in the showdown order may muck (SHOW-4, SHOW-10)."""
        verify_may_muck(self._next_to_show(player, "muck"), self.stacks, self.folded)

    def can_muck(self, player: int | None = None) -> bool:
        """Whether :meth:`muck` would be accepted."""
        return _can(self.verify_muck, player)

    def muck(self, player: int | None = None) -> Muck:
        """The next player in the showdown order gives up their claim (SHOW-10)."""
        self.verify_muck(player)
        p = self._show_queue.pop(0)
        self.mucked[p] = True
        action = Muck(p)
        self.log.append(action)
        self._after_showdown_action()
        return action

    def _after_showdown_action(self) -> None:
        in_claim = [i for i in range(len(self.stacks)) if not (self.folded[i] or self.mucked[i])]
        if len(in_claim) <= 1 or not self._show_queue:  # POT-4, SHOW-5 exception
            self._settle()

    def _settle(self) -> None:
        self.phase = COMPLETE
        self.actor = None
        self._show_queue = []
        self.rake, self.awards, payouts = settle(self.config, self.profile, self.pots(),
                                                 self.hole, self.board)
        self.payouts = payouts
        stacks = self.stacks
        for i, won in enumerate(payouts):
            stacks[i] += won
