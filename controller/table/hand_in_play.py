"""The one owner of the hand in play: its stage, the rules ``Hand``, the reads in progress,
held actions, open prompts and the misdeal window (DESIGN.md: one owner for the hand).

:class:`HandInPlay` takes the hand's intents (``controller.table.intents``) from the
table and either accepts them, journaling the events, or refuses with the rule id and a
reason, changing nothing. Its steps are carried out by :mod:`~controller.table.betting`
(chips and words, out-of-turn, dead hands), :mod:`~controller.table.reads` (cards at the
seats, the board and the muck) and :mod:`~controller.table.showdown` (showdown, awards,
undo, corrections), which see it through :class:`~controller.table.ports.Play`.

The stage is never stored: it is worked out here, from the engine's phase and whether a
colour-up or a deck enrolment is under way, so it cannot disagree with the hand.
Misdeals live here too: the dealer's key, a prompt's misdeal option, the floor's void.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence

from controller.events import (
    ButtonPlaced,
    GameSetup,
    HandStarted,
    Irregularity,
    JournalEvent,
    MisdealDeclared,
    Rejected,
    ShotClockReport,
)
from controller.rules.actions import Check as CheckAction
from controller.rules.actions import Fold as FoldAction
from controller.rules.button import Positions, first_hand, initial_button, next_hand
from controller.rules.cards import Card
from controller.rules.config import HOLE_CARDS, RulesProfile, Variant
from controller.rules.errors import RulesError
from controller.rules.hand import Hand, Phase
from controller.rules.live import Declaration, Word

from . import betting, reads, showdown
from .base import CONTINUE, MISDEAL, WORD, Choice, Prompt, Stage, clip
from .dealing import HandReads
from .intents import (
    Call,
    Check,
    ChipsPushed,
    Choose,
    Confirm,
    Correct,
    DeclareMisdeal,
    Fold,
    HandIntent,
    Muck,
    RaiseTo,
    Show,
    Undo,
)
from .lights import Level
from .ports import Action, Held, Sink
from .seats import Roster

log = logging.getLogger("pitboss.table")

_PHASE_STAGE = {Phase.DEAL_HOLE: Stage.DEALING, Phase.BETTING: Stage.PLAYING,
                Phase.DEAL_BOARD: Stage.PLAYING, Phase.SHOWDOWN: Stage.SHOWDOWN,
                Phase.COMPLETE: Stage.AWARDING}


class HandInPlay:
    """The hand in play at one table (see the module docstring)."""

    def __init__(self, *, journal: Sink, beep: Callable[[], None], roster: Roster,
                 profile: RulesProfile, variant: Variant, tournament: bool,
                 colouring_up: Callable[[], bool], enrolling: Callable[[], bool],
                 on_hand_over: Callable[[], None]) -> None:
        self._journal = journal
        self._beep = beep
        self._colouring_up = colouring_up
        self._enrolling = enrolling
        self._on_hand_over = on_hand_over
        self.roster = roster
        self.profile = profile
        self.variant = variant
        self.tournament = tournament
        self.hand_no = 0
        self.hand: Hand | None = None
        self.positions: Positions | None = None
        self.reads: HandReads | None = None
        self.held: dict[int, Held] = {}  # by position, out of turn (LIVE-12)
        self.prompts: list[Prompt] = []
        self.awarded = 0  # pots confirmed so far in AWARDING
        self.button: int | None = None  # the first hand's button (BTN-1, BTN-4 draw)
        self.previous: Positions | None = None
        self.redeal: Positions | None = None  # after a misdeal: the same positions again
        self.level: Level | None = None  # the level the hand is played at (LEVEL-1)
        self.hand_level_no = 1

    # ================================================================ where the table is
    @property
    def stage(self) -> Stage:
        """Where the table is, from the dealer's point of view (worked out, never set).
        A colour-up and a deck enrolment happen only between hands."""
        hand = self.hand
        if hand is not None:
            return _PHASE_STAGE[hand.phase]
        if self._colouring_up():
            return Stage.COLOUR_UP
        if self._enrolling():
            return Stage.ENROLLING
        return Stage.IDLE

    def seat_of(self, position: int) -> int:
        assert self.positions is not None
        return self.positions.dealt[position]

    def position_of(self, seat: int) -> int | None:
        if self.positions is None or seat not in self.positions.dealt:
            return None
        return self.positions.dealt.index(seat)

    # ================================================================ telling the world
    def emit(self, event: JournalEvent) -> None:
        self._journal(event)

    def beep(self) -> None:
        self._beep()

    def reject(self, reason: str, rule: str | None = None, source: str = "") -> bool:
        """Refuse an input: journaled with its rule and reason, the buzzer sounds."""
        self.emit(Rejected(reason=clip(self.unnamed(reason)), rule=rule,
                           source=clip(source, WORD)))
        self._beep()
        return False

    def unnamed(self, text: str) -> str:
        """``text`` fit for a public event: a face-down card of the hand in play (a hole
        card, a burn) it names, as an engine's reason may, becomes "a card"."""
        reads = self.reads
        if reads is None or not text:
            return text
        for card in reads.face_down():
            for name in (str(card), card.symbol()):
                if name in text:
                    text = re.sub(rf"(?<!\w){re.escape(name)}(?!\w)", "a card", text)
        return text

    def prompt(self, kind: str, reason: str, rule: str | None, seat: int | None,
               options: Sequence[tuple[Choice, Action]], cards: tuple[Card, ...] = ()
               ) -> None:
        """Open a prompt: the journaled ``Irregularity`` never names a card (``reason``
        must not either); ``cards`` stay on the table's prompt for the dealer's screen."""
        choices = tuple(c for c, _ in options)
        event = Irregularity(hand_no=self.hand_no, what=clip(kind, WORD),
                             reason=clip(self.unnamed(reason)), rule=rule, seat=seat,
                             choices=tuple(clip(c.key, WORD) for c in choices))
        self.prompts.append(Prompt(event, choices, {c.key: fn for c, fn in options}, cards))
        self.emit(event)
        self._beep()

    def drop_prompts(self, kind: str, seat: int | None = None) -> None:
        """Close the open prompts of ``kind`` (of ``seat`` only, if given)."""
        self.prompts = [p for p in self.prompts
                        if not (p.kind == kind and (seat is None or p.seat == seat))]

    # ================================================================ the hand's intents
    def take(self, intent: HandIntent) -> bool:
        """One of the hand's intents; True if accepted (see the module docstring)."""
        match intent:
            case Fold(seat=seat):
                return self._declared(Declaration(Word.FOLD), seat)
            case Check(seat=seat):
                return self._declared(Declaration(Word.CHECK), seat)
            case Call(seat=seat):
                return self._declared(Declaration(Word.CALL), seat)
            case RaiseTo(to=to, seat=seat, exact=exact):
                hand = self.hand
                if exact and hand is not None and hand.actor is not None and (
                        seat is None or self.position_of(seat) == hand.actor):
                    hand.verify_bet_or_raise_to(to)  # BET-3/4/6, PL-3, FL-1: refused
                return self._declared(Declaration(Word.RAISE_TO, amount=to), seat)
            case ChipsPushed(chips=chips, seat=seat, said=said):
                return betting.push(self, chips, seat=seat, declared=said)
            case Show(seat=seat):
                return showdown.show(self, seat)
            case Muck(seat=seat, source=source):
                return showdown.muck(self, seat, source)
            case Confirm():
                return showdown.confirm(self)
            case Undo(count=count, reason=reason):
                return showdown.undo(self, count, reason)
            case Correct(index=index, action=action, reason=reason):
                return showdown.correct(self, index, action, reason)
            case Choose(option=option):
                return self.choose(option)
            case DeclareMisdeal(reason=reason, rule=rule):
                return self.misdeal(reason, rule)
        return self.reject(f"the hand does not take {type(intent).__name__}", None, "hand")

    def _declared(self, declared: Declaration, seat: int | None) -> bool:
        return betting.push(self, 0, seat=seat, declared=declared)

    def advance(self) -> None:
        """After any change: dead hands fold in turn, held actions bind or are released."""
        betting.advance(self)

    def card(self, where: str, seat: int | None, card: Card) -> None:
        """A card of the deck read at a seat's reader (``seat``), the board or the muck."""
        reads.card_at(self, where, seat, card)

    # ================================================================ a new hand
    def next_positions(self) -> Positions:
        """The rules' layout for the next hand (BTN-1..7); raises with the rule if none."""
        redeal = self.redeal
        if redeal is not None and all(self.roster[s].stack > 0 for s in redeal.dealt):
            return redeal  # LIVE-25: the same hand again (unless a player has left since)
        seats = self.roster.statuses()
        if self.previous is not None:
            return next_hand(self.previous, seats, tournament=self.tournament,
                             profile=self.profile)
        if self.tournament:
            button = initial_button(seats, profile=self.profile, drawn=self.button)
        elif self.button is None:
            raise RulesError("place the button on a player first", "BTN-1")
        else:
            button = self.button
        return first_hand(seats, button=button, tournament=self.tournament,
                          profile=self.profile)

    def begin(self, hand: Hand, positions: Positions, level: Level, level_no: int,
              ante: int) -> None:
        """The deal key started ``hand`` with ``positions`` at ``level`` (LEVEL-1)."""
        self.redeal = None
        self.hand_no += 1
        self.hand, self.positions = hand, positions
        self.level, self.hand_level_no = level, level_no
        self.reads = HandReads(positions.dealt, HOLE_CARDS[self.variant])
        self.reads.dead.update(positions.auto_fold)
        self.held.clear()
        self.prompts.clear()
        self.awarded = 0
        self.emit(HandStarted(
            hand_no=self.hand_no, seats=positions.dealt, stacks=hand.config.stacks,
            small_blind=level.small_blind, big_blind=level.big_blind, ante=ante,
            button=positions.button, small_blind_seat=positions.small_blind,
            big_blind_seat=positions.big_blind, level=level_no,
            config=GameSetup.of(hand.config, hand.profile)))

    def place_button(self, seat: int) -> bool:
        """Where the button starts (BTN-1 cash, BTN-4 the draw): before the first hand."""
        if self.previous is not None or self.stage is not Stage.IDLE:
            return self.reject("the button moves by the rules once play has begun", "BTN-2",
                               "button")
        if seat not in self.roster.seats:
            return self.reject(f"there is no seat {seat}", "BTN-1", "button")
        self.button = seat
        self.emit(ButtonPlaced(seat=seat))
        return True

    def new_game(self) -> None:
        """A fresh start: the next hand is a first hand (the button is placed again)."""
        self.previous = self.redeal = None
        self.button = None

    def restore(self, hand_no: int, previous: Positions | None, redeal: bool) -> None:
        """After a restart: the journal's last hand number and layout (CRASH-1)."""
        self.hand_no = hand_no
        self.previous = previous
        self.redeal = previous if redeal else None

    # ================================================================ prompts, misdeals
    def choose(self, option: str) -> bool:
        """Answer the latest open prompt that offers ``option`` (the misdeal key too)."""
        for prompt in reversed(self.prompts):
            if option in prompt.actions:
                self.prompts.remove(prompt)
                prompt.actions[option]()
                return True
        if option == "misdeal":
            if self.stage is Stage.DEALING:
                return self.misdeal("the dealer declared a misdeal during the deal", "LIVE-25")
            return self.reject("a misdeal is declared only before substantial action, as "
                               "BTN-8 allows; the floor can still void the hand", "LIVE-25",
                               "misdeal")
        return self.reject(f"no open prompt offers {option!r}", None, "console")

    def misdeal_choice(self) -> tuple[Choice, Action]:
        """The misdeal option a prompt offers during the deal and the play (LIVE-25)."""

        def misdeal() -> None:
            self.misdeal("the dealer chose a misdeal", "LIVE-25")

        return MISDEAL, misdeal

    def misdeal(self, reason: str, rule: str | None = "LIVE-25") -> bool:
        """Void the hand: bets go back, the blinds stay where they were, dealt again."""
        hand = self.hand
        if hand is None or self.stage in (Stage.IDLE, Stage.ENROLLING):
            return self.reject("there is no hand to void", rule, "misdeal")
        self.emit(MisdealDeclared(hand_no=self.hand_no, stacks=hand.config.stacks,
                                  reason=clip(reason), rule=rule))  # the stacks it began with
        self.redeal = self.positions
        self.hand_over()
        return True

    def hand_over(self) -> None:
        """The hand is finished or void: the table is between hands again."""
        self.hand = None
        self.positions = None
        self.reads = None
        self.held.clear()
        self.prompts.clear()
        self._on_hand_over()

    def clock_ruled(self, seat: int, ruling: str, rule: str) -> None:
        """The shot clock ruled on the player to act at ``seat``: a check or a fold
        (CLOCK-9), or a dead hand after a clock call (CLOCK-3)."""
        hand = self.hand
        if hand is None or hand.actor is None or self.seat_of(hand.actor) != seat:
            return
        position = hand.actor
        self.emit(ShotClockReport(hand_no=self.hand_no, seat=seat, what="ruled",
                                  ruling=ruling, rule=rule))
        self.drop_prompts("choice")
        if ruling == "dead_hand":
            betting.kill(self, position, rule, "clock")
            return
        try:
            hand.apply(CheckAction(position) if ruling == "check" else FoldAction(position))
        except RulesError as exc:
            self.reject(exc.reason, exc.rule, "clock")
            return
        betting.accepted(self, position, "clock")

    def node_offline(self, seat: int) -> None:
        """A seat node stopped answering: the dealer is told (and the host, through the
        journal) and may carry on, keying that seat's cards."""
        self.prompt("seat_node_offline",
                    f"seat {seat}'s node is not answering: its cards are not read and its "
                    "lights are dark; check its cable, or carry on and key its cards in",
                    None, seat, [(Choice("continue", "carry on without the seat's reader"),
                                  _nothing)])


def _nothing() -> None:
    """The dealer puts it right by hand: nothing changes in the hand."""


__all__ = ["CONTINUE", "MISDEAL", "HandInPlay", "Stage"]
