"""The showdown and the settling of a hand: who shows first, who may muck, and how each pot
is won (SHOW-1..10, POT-2..5, RAKE-*, CARD-2/3).

A part of :class:`~controller.rules.hand.Hand`, kept in its own module; the attributes it
works on are the hand's own (declared here for the type checker only).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from controller.rules.actions import Action, Muck, Show
from controller.rules.cards import Card, format_cards
from controller.rules.config import RulesProfile, Variant
from controller.rules.errors import IllegalActionError
from controller.rules.evaluator import evaluate, evaluate_omaha
from controller.rules.phases import Phase
from controller.rules.phases import can as _can
from controller.rules.pots import Pot, split_pot
from controller.rules.rake import rake_for

if TYPE_CHECKING:
    from controller.rules.game import GameConfig


@dataclass(frozen=True, slots=True)
class Award:
    """One pot as it was awarded (POT-2): after rake, to whom, how much each."""

    amount: int
    eligible: tuple[int, ...]
    shares: tuple[tuple[int, int], ...]  # (player, chips), odd units included (POT-5)

    @property
    def split(self) -> bool:
        """True when tied hands shared the pot."""
        return len(self.shares) > 1


class ShowdownSteps:
    """The showdown and settling of a hand (mixed into :class:`~controller.rules.hand.Hand`)."""

    if not TYPE_CHECKING:  # the hand holds the slots; the type checker sees them below
        __slots__ = ()
    else:
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
        aggressor: int | None
        last_aggressor: int | None
        payouts: list[int] | None
        awards: list[Award]
        rake: int
        _known: set[int]
        _show_queue: list[int]

        pots: Callable[[], list[Pot]]  # the hand's method

        def _verify_unseen(self, cards: Sequence[int]) -> None: ...

    def _start_showdown(self) -> None:
        self.phase = Phase.SHOWDOWN
        n = len(self.stacks)
        contenders = [i for i in range(n) if not self.folded[i]]
        all_in = any(self.stacks[i] == 0 for i in contenders)
        if all_in and self.profile.allin_table_at_once:
            # SHOW-3, SHOW-4: every hand is turned up at once; only unread hands wait.
            for i in contenders:
                self.shown[i] = None not in (self.hole[i] or (None,))
            self._show_queue = [i for i in contenders if not self.shown[i]]
        else:
            # SHOW-3 last_aggressor_first when someone is all-in; otherwise SHOW-2: the
            # river's last bettor, else the first player left of the button.
            start = self.last_aggressor if all_in else self.aggressor
            if start is None or self.folded[start]:
                start = contenders[0]
            self._show_queue = sorted(contenders, key=lambda i: (i - start) % n)
        self._after_showdown_action()

    def _next_to_show(self, player: int | None, what: str) -> int:
        if self.phase is not Phase.SHOWDOWN:
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
        if cards is None:
            if None in hole:
                raise IllegalActionError(f"player {p}'s cards were not read: say which cards "
                                         "they show", "SHOW-6")
            return tuple(c for c in hole if c is not None)
        if len(cards) != len(hole):
            raise IllegalActionError(f"player {p} must show all {len(hole)} hole cards, not "
                                     f"{len(cards)}", "SHOW-5")
        if None not in hole and sorted(cards) != sorted(c for c in hole if c is not None):
            raise IllegalActionError(f"player {p} holds {format_cards(c for c in hole if c)}"
                                     f", not {format_cards(cards)}", "SHOW-7")
        self._verify_unseen([c for c in cards if c not in hole])
        return tuple(cards)

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
        p = self._next_to_show(player, "muck")
        if self.stacks[p] and any(self.stacks[i] == 0 and not self.folded[i]
                                  for i in range(len(self.stacks))):
            raise IllegalActionError(f"player {p} plays for a side pot against an all-in "
                                     "player and must table the hand", "SHOW-4")

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

    # ------------------------------------------------------------------ settling
    def _strength(self, player: int) -> int:
        hole = self.hole[player]
        assert hole is not None and None not in hole
        cards = [c for c in hole if c is not None]
        if self.config.variant is Variant.PO:
            return evaluate_omaha(cards, self.board)  # CARD-3
        return evaluate(cards + self.board)  # CARD-2

    def _settle(self) -> None:
        self.phase = Phase.COMPLETE
        self.actor = None
        self._show_queue = []
        n = len(self.stacks)
        pots = self.pots()
        cfg = self.config
        if cfg.rake is not None:  # RAKE-1..8, taken from the main pot first
            self.rake = rake_for(cfg.rake, sum(p.amount for p in pots),
                                 saw_flop=len(self.board) >= 3, players_dealt=n)
            owed = self.rake
            for k, pot in enumerate(pots):
                take = min(owed, pot.amount)
                pots[k] = Pot(pot.amount - take, pot.eligible)
                owed -= take
        payouts = [0] * n
        strengths: dict[int, int] = {}
        each = self.profile.odd_unit_each
        awards: list[Award] = []
        for pot in pots:  # POT-2: each pot on its own, never mixed before the split
            if not pot.amount:
                continue
            if len(pot.eligible) == 1:
                shares = {pot.eligible[0]: pot.amount}
            else:
                for i in pot.eligible:
                    if i not in strengths:
                        strengths[i] = self._strength(i)
                best = max(strengths[i] for i in pot.eligible)
                winners = [i for i in pot.eligible if strengths[i] == best]
                shares = ({winners[0]: pot.amount} if len(winners) == 1
                          else split_pot(pot.amount, winners, cfg.unit, each=each))
            for i, won in shares.items():
                payouts[i] += won
            awards.append(Award(pot.amount, pot.eligible, tuple(shares.items())))
        self.awards = awards
        for i in range(n):
            self.stacks[i] += payouts[i]
        self.payouts = payouts
