"""The end of a hand: showdown from reads, pots awarded on the dealer's word, undo, and
the floor's corrections.

Showdown (SHOW-2/3): the engine's ``show_order`` says who shows next; the hole cards are
already known from the seat reader, so the dealer confirms each hand (or the player
mucks, at the console or by pushing the cards to the muck). Each pot of ``Hand.awards``
is then shown with its winners lit and awarded when the dealer confirms (POT-2, POT-5:
the engine has already split odd chips by ``pot.odd_unit``).

Undo: the dealer may take back the last actions of the current street, before the next
card (DEAL-6: objections before the burn). The floor may correct any past action of the
hand: the log is replayed with that one action replaced.
"""

from __future__ import annotations

from controller.events import (
    ActionAccepted,
    ActionCorrected,
    ActionHeld,
    ActionsUndone,
    HandEnded,
    HandShown,
    PotAwarded,
    RakeTaken,
    ReplayedStep,
)
from controller.rules.actions import (
    Action,
    BetRaise,
    Call,
    Check,
    DealBoard,
    DealHole,
    Fold,
    Kill,
)
from controller.rules.actions import Muck as MuckAction
from controller.rules.actions import Show as ShowAction
from controller.rules.config import Variant
from controller.rules.errors import RulesError
from controller.rules.evaluator import describe, evaluate, evaluate_omaha
from controller.rules.hand import Hand, Phase

from .base import WORD, Stage, clip
from .betting import action_event
from .ports import Play

_BETTING = (Fold, Check, Call, BetRaise, ShowAction, MuckAction)


def _accepted(play: Play, source: str) -> None:
    play.emit(action_event(play, source))


def _strength_text(play: Play, cards: tuple[int, ...]) -> str:
    hand = play.hand
    assert hand is not None
    try:
        if play.variant is Variant.PO:
            return describe(evaluate_omaha(cards, hand.board))
        return describe(evaluate([*cards, *hand.board]))
    except (RulesError, ValueError):
        return ""


def show(play: Play, seat: int | None = None) -> bool:
    """The next hand in the showdown order is tabled, as read at its seat (SHOW-6)."""

    hand = play.hand
    if hand is None or play.stage is not Stage.SHOWDOWN:
        return play.reject("there is no showdown now", "SHOW-1", "show")
    position = hand.next_to_show if seat is None else play.position_of(seat)
    if position is None:
        return play.reject(f"seat {seat} is not in this hand", "SHOW-1", "show")
    try:
        action = hand.show(position)
    except RulesError as exc:
        return play.reject(exc.reason, exc.rule, "show")
    _accepted(play, "console")
    play.emit(HandShown(hand_no=play.hand_no, player=position,
                        cards=tuple(str(c) for c in action.cards),
                        description=clip(_strength_text(play, action.cards), 120)))
    return True


def muck(play: Play, seat: int | None = None, source: str = "console") -> bool:
    """The next player in the showdown order gives up their claim (SHOW-10)."""

    hand = play.hand
    if hand is None or play.stage is not Stage.SHOWDOWN:
        return play.reject("there is no showdown now", "SHOW-1", source)
    position = hand.next_to_show if seat is None else play.position_of(seat)
    if position is None:
        return play.reject(f"seat {seat} is not in this hand", "SHOW-1", source)
    try:
        hand.muck(position)
    except RulesError as exc:
        return play.reject(exc.reason, exc.rule, source)
    _accepted(play, source)
    return True


def confirm(play: Play) -> bool:
    """The dealer pushes the next pot to its winners; after the last, the hand ends."""

    hand = play.hand
    if hand is None or play.stage is not Stage.AWARDING:
        return play.reject("no pot is waiting to be awarded", "POT-2", "confirm")
    pots = hand.awards  # chips a folding player left (LIVE-2/7/10) and dead hands' are in
    if play.awarded < len(pots):
        pot = pots[play.awarded]
        play.emit(PotAwarded(hand_no=play.hand_no, pot=play.awarded, amount=pot.amount,
                             shares=tuple(pot.shares)))  # (position, chips)
        play.awarded += 1
        if play.awarded < len(pots):
            return True
    _end(play)
    return True


def _end(play: Play) -> None:
    hand, pos = play.hand, play.positions
    assert hand is not None and pos is not None
    stacks = {seat: hand.stacks[i] for i, seat in enumerate(pos.dealt)}
    play.roster.after_hand(pos, stacks)
    if hand.config.rake is not None:  # RAKE-1..8: the house's take, in its own event
        play.emit(RakeTaken(hand_no=play.hand_no, rake=hand.rake,
                            pot=sum(a.amount for a in hand.awards) + hand.rake,
                            players_dealt=hand.players, saw_flop=len(hand.board) >= 3))
    play.emit(HandEnded(hand_no=play.hand_no, rake=hand.rake,
                        stacks=tuple(play.roster[seat].stack for seat in pos.dealt)))
    play.previous = pos
    play.hand_over()


# ---------------------------------------------------------------- undo and corrections
def _undoable(hand: Hand) -> int:
    """How many actions can be taken back: those after the last card dealt and the
    last dead hand (only the floor revives one)."""
    n = 0
    for action in reversed(hand.log):
        if isinstance(action, DealHole | DealBoard | Kill):
            break
        n += 1
    return n


def undo(play: Play, count: int, reason: str) -> bool:
    """Take back the last ``count`` actions of this street (before the next card)."""

    hand, r = play.hand, play.reads
    if hand is None or r is None or play.stage in (Stage.IDLE, Stage.DEALING):
        return play.reject("there is no action to take back", None, "undo")
    if play.awarded:
        return play.reject("a pot has been pushed: the floor corrects the hand", "POT-2",
                            "undo")
    if count < 1:
        return play.reject(f"cannot undo {count} actions", None, "undo")
    if r.pending or (hand.street in r.burned and hand.phase is Phase.DEAL_BOARD):
        return play.reject("the next card is out: objections come before the burn; the "
                            "floor can still correct the hand", "DEAL-6", "undo")
    if count > _undoable(hand):
        return play.reject(f"only {_undoable(hand)} action(s) since the last card",
                            "DEAL-6", "undo")
    taken: list[Action] = []
    for _ in range(count):
        taken.append(hand.undo())
    play.drop_prompts("choice")  # a live-rule choice about the action taken back
    for position, held in list(play.held.items()):
        del play.held[position]
        play.emit(ActionHeld(hand_no=play.hand_no, seat=play.seat_of(position),
                             what=clip(held.what, WORD), released=True))
    play.emit(ActionsUndone(hand_no=play.hand_no, reason=clip(reason), actions=tuple(
        ActionAccepted.of(play.hand_no, a) for a in taken)))
    play.advance()  # a dead hand folds again in turn: only the floor revives one
    return True


def correct(play: Play, index: int, action: Action, reason: str) -> bool:
    """The floor replaces action ``index`` of the log and the hand is replayed."""
    hand = play.hand
    if hand is None or play.awarded:
        return play.reject("no hand to correct (or its pots are already pushed)", None,
                            "correct")
    if not 0 <= index < len(hand.log):
        return play.reject(f"the hand has {len(hand.log)} actions, no #{index}", None,
                            "correct")
    old = hand.log[index]
    if not isinstance(action, _BETTING) or isinstance(old, DealHole | DealBoard):
        return play.reject("cards come from the readers: only betting and showdown "
                            "actions can be corrected", None, "correct")
    log = list(hand.log)
    log[index] = action
    try:
        fixed = Hand.replay(hand.config, log, hand.profile)
    except RulesError as exc:
        return play.reject(f"the hand cannot be replayed with that change: {exc.reason}",
                            exc.rule, "correct")
    play.hand = fixed
    play.held.clear()
    no = play.hand_no
    replayed = tuple(  # later entries the replay changed: a call of the corrected bet
        ReplayedStep(index=j, step=ActionAccepted.of(no, after))
        for j, (before, after) in enumerate(zip(hand.log, fixed.log, strict=True))
        if j > index and before != after and isinstance(after, _BETTING))
    play.emit(ActionCorrected(hand_no=no, index=index, reason=clip(reason),
                              old=ActionAccepted.of(no, old),
                              new=ActionAccepted.of(no, fixed.log[index]),
                              replayed=replayed))
    play.advance()
    return True

