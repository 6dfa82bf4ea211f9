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

from typing import TYPE_CHECKING

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

from .base import Stage
from .events import (
    ActionAccepted,
    ActionCorrected,
    ActionReleased,
    ActionsUndone,
    HandEnded,
    HandShown,
    PotAwarded,
)

if TYPE_CHECKING:
    from .table import Table

_BETTING = (Fold, Check, Call, BetRaise, ShowAction, MuckAction)


def follow_phase(table: Table) -> None:
    """Move the table's stage with the engine's phase."""

    hand = table.hand
    assert hand is not None
    if hand.phase is Phase.SHOWDOWN:  # dead hands were killed in the engine (LIVE-17)
        table.stage = Stage.SHOWDOWN
    elif hand.phase is Phase.COMPLETE:
        table.stage = Stage.AWARDING
    elif hand.phase in (Phase.BETTING, Phase.DEAL_BOARD):
        table.stage = Stage.PLAYING


def _accepted(table: Table, position: int, source: str) -> None:
    hand = table.hand
    assert hand is not None
    table.emit(ActionAccepted(table.hand_no, table.seat_of(position), hand.log[-1], source))


def _strength_text(table: Table, cards: tuple[int, ...]) -> str:
    hand = table.hand
    assert hand is not None
    try:
        if table.variant is Variant.PO:
            return describe(evaluate_omaha(cards, hand.board))
        return describe(evaluate([*cards, *hand.board]))
    except (RulesError, ValueError):
        return ""


def show(table: Table, seat: int | None = None) -> bool:
    """The next hand in the showdown order is tabled, as read at its seat (SHOW-6)."""

    hand = table.hand
    if hand is None or table.stage is not Stage.SHOWDOWN:
        return table.reject("there is no showdown now", "SHOW-1", "show")
    position = hand.next_to_show if seat is None else table.position_of(seat)
    if position is None:
        return table.reject(f"seat {seat} is not in this hand", "SHOW-1", "show")
    try:
        action = hand.show(position)
    except RulesError as exc:
        return table.reject(exc.reason, exc.rule, "show")
    _accepted(table, position, "console")
    table.emit(HandShown(table.hand_no, table.seat_of(position), action.cards,
                         _strength_text(table, action.cards)))
    follow_phase(table)
    return True


def muck(table: Table, seat: int | None = None, source: str = "console") -> bool:
    """The next player in the showdown order gives up their claim (SHOW-10)."""

    hand = table.hand
    if hand is None or table.stage is not Stage.SHOWDOWN:
        return table.reject("there is no showdown now", "SHOW-1", source)
    position = hand.next_to_show if seat is None else table.position_of(seat)
    if position is None:
        return table.reject(f"seat {seat} is not in this hand", "SHOW-1", source)
    try:
        hand.muck(position)
    except RulesError as exc:
        return table.reject(exc.reason, exc.rule, source)
    _accepted(table, position, source)
    follow_phase(table)
    return True


def confirm(table: Table) -> bool:
    """The dealer pushes the next pot to its winners; after the last, the hand ends."""

    hand = table.hand
    if hand is None or table.stage is not Stage.AWARDING:
        return table.reject("no pot is waiting to be awarded", "POT-2", "confirm")
    pots = awards(table)
    if table.awarded < len(pots):
        amount, shares = pots[table.awarded]
        table.emit(PotAwarded(table.hand_no, table.awarded, amount, shares))
        table.awarded += 1
        if table.awarded < len(pots):
            return True
    _end(table, pots)
    return True


def awards(table: Table) -> list[tuple[int, tuple[tuple[int, int], ...]]]:
    """Each pot as (amount, ((seat, chips)...)), from ``Hand.awards``: chips a folding
    player left in the pot (LIVE-2/7/10) and dead hands' chips are in the engine's pots."""
    hand = table.hand
    assert hand is not None
    return [(a.amount, tuple((table.seat_of(p), c) for p, c in a.shares))
            for a in hand.awards]


def _end(table: Table, pots: list[tuple[int, tuple[tuple[int, int], ...]]]) -> None:
    hand, pos = table.hand, table.positions
    assert hand is not None and pos is not None
    stacks = {seat: hand.stacks[i] for i, seat in enumerate(pos.dealt)}
    table.roster.after_hand(pos, stacks)
    table.emit(HandEnded(table.hand_no, tuple((s.number, s.stack)
                                              for s in table.roster.occupied()), hand.rake))
    table.previous = pos
    table._clear_hand()


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


def undo(table: Table, count: int, reason: str) -> bool:
    """Take back the last ``count`` actions of this street (before the next card)."""

    hand, r = table.hand, table.reads
    if hand is None or r is None or table.stage in (Stage.IDLE, Stage.DEALING):
        return table.reject("there is no action to take back", None, "undo")
    if table.awarded:
        return table.reject("a pot has been pushed: the floor corrects the hand", "POT-2",
                            "undo")
    if count < 1:
        return table.reject(f"cannot undo {count} actions", None, "undo")
    if r.pending or (hand.street in r.burned and hand.phase is Phase.DEAL_BOARD):
        return table.reject("the next card is out: objections come before the burn; the "
                            "floor can still correct the hand", "DEAL-6", "undo")
    if count > _undoable(hand):
        return table.reject(f"only {_undoable(hand)} action(s) since the last card",
                            "DEAL-6", "undo")
    taken: list[Action] = []
    for _ in range(count):
        taken.append(hand.undo())
    for position, held in list(table.held.items()):
        del table.held[position]
        table.emit(ActionReleased(table.hand_no, table.seat_of(position), held.what))
    table.emit(ActionsUndone(table.hand_no, tuple(taken), reason))
    table.advance()  # a dead hand folds again in turn: only the floor revives one
    return True


def correct(table: Table, index: int, action: Action, reason: str) -> bool:
    """The floor replaces action ``index`` of the log and the hand is replayed."""
    hand = table.hand
    if hand is None or table.awarded:
        return table.reject("no hand to correct (or its pots are already pushed)", None,
                            "correct")
    if not 0 <= index < len(hand.log):
        return table.reject(f"the hand has {len(hand.log)} actions, no #{index}", None,
                            "correct")
    old = hand.log[index]
    if not isinstance(action, _BETTING) or isinstance(old, DealHole | DealBoard):
        return table.reject("cards come from the readers: only betting and showdown "
                            "actions can be corrected", None, "correct")
    log = list(hand.log)
    log[index] = action
    try:
        fixed = Hand.replay(hand.config, log, hand.profile)
    except RulesError as exc:
        return table.reject(f"the hand cannot be replayed with that change: {exc.reason}",
                            exc.rule, "correct")
    table.hand = fixed
    table.held.clear()
    table.emit(ActionCorrected(table.hand_no, index, old, action, reason))
    table.advance()
    return True

