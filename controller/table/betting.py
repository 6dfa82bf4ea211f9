"""Bets from the dealer console: chips pushed and words said -> a ruling -> an engine action.

What chips and words mean is the live rules' business (``controller.rules.live``,
LIVE-1..14): the dealer keys in the chips a player pushed (each chip's value, or only the
total) and what they said, and :func:`rule_on` asks the rules. This module turns a
:class:`~controller.rules.live.Ruling` into what the table shows and does: an engine
action, chips handed back, a choice for the player, or a question for the floor.

Action out of turn (LIVE-12) is kept as a :class:`Held` wrapping the rules'
:class:`~controller.rules.live.OutOfTurn`: each action taken in between is fed to it, and
when the turn comes its ruling says whether it binds.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from controller.events import ActionAccepted, ActionHeld
from controller.rules.actions import BetRaise, Call, Check, Fold
from controller.rules.config import RulesProfile
from controller.rules.errors import RulesError
from controller.rules.hand import Hand, Phase
from controller.rules.live import (
    Decision,
    Declaration,
        Ruling,
    Word,
    facing,
    interpret_amount,
    interpret_chips,
)

from .base import CONTINUE, WORD, Choice, Stage, clip, nothing
from .ports import Held, Play

Pushed = int | Sequence[int]
"""Chips pushed in one motion: the total only, or each chip's value (LIVE-8, LIVE-9)."""


def total(chips: Pushed) -> int:
    return chips if isinstance(chips, int) else sum(chips)


def rule_on(hand: Hand, chips: Pushed, declared: Declaration | None,
            profile: RulesProfile) -> Ruling:
    """The live rules' ruling on what the player to act pushed and said."""
    f = facing(hand)
    if isinstance(chips, int):
        return interpret_amount(f, chips, declared=declared, profile=profile)
    return interpret_chips(f, tuple(chips), declared=declared, profile=profile)


def choice_of(ruling: Ruling) -> Choice:
    """One option of a rules choice as the console shows it (``fold``, ``call``...)."""
    action = ruling.action
    if isinstance(action, BetRaise):
        return Choice(f"raise_to_{action.to}", f"raise to {action.to}", ruling.rule)
    key = type(action).__name__.lower() if action is not None else "floor"
    return Choice(key, ruling.reason, ruling.rule)


def decision(hand: Hand, word: str, to: int = 0) -> Decision:
    """A declared action for the player to act, as the engine's action value."""
    p = hand.actor
    assert p is not None
    if word == "fold":
        return Fold(p)
    if word == "check":
        return Check(p)
    if word == "call":
        return Call(p, hand.call_amount)
    return BetRaise(p, to)


# ---------------------------------------------------------------- the player to act
def position_for(play: Play, seat: int | None, what: str) -> int | None:
    """The position acting for ``seat`` (the player to act if None), or None after
    rejecting the input."""

    hand = play.hand
    if hand is None or play.stage is not Stage.PLAYING:
        play.reject(f"nobody can {what} now: the table is {play.stage}", "BET-1", what)
        return None
    choice = next((p for p in play.prompts if p.kind == "choice"), None)
    if choice is not None:  # the rule that offered the choice (LIVE-7, LIVE-10...)
        play.reject("a player must first choose (see the open prompt)", choice.event.rule,
                    what)
        return None
    if seat is None:
        if hand.actor is None:
            play.reject(f"nobody can {what} now: no player is to act", "BET-1", what)
        return hand.actor
    position = play.position_of(seat)
    if position is None:
        play.reject(f"seat {seat} is not in this hand", "BET-1", what)
    elif hand.folded[position]:
        play.reject(f"seat {seat} has folded", "BET-2", what)
        return None
    return position


def push(play: Play, chips: Pushed, *, seat: int | None = None,
         declared: Declaration | None = None) -> bool:
    """The chips a player pushed in one motion (the total, or each chip's value) and
    what they said; the live rules (LIVE-1..14) say what it means."""
    position = position_for(play, seat, "bet")
    if position is None:
        return False
    hand = play.hand
    assert hand is not None
    if position != hand.actor:
        return hold_out_of_turn(play, position, chips, declared)
    try:
        ruling = rule_on(hand, chips, declared, play.profile)
    except RulesError as exc:
        return play.reject(exc.reason, exc.rule, "chips")
    return apply_ruling(play, ruling, "console" if declared is not None else "chips")


def apply_ruling(play: Play, ruling: Ruling, source: str) -> bool:
    """Carry out a ruling for the player to act: an action, a choice, or a question."""

    hand = play.hand
    assert hand is not None and hand.actor is not None
    position = hand.actor
    seat = play.seat_of(position)
    if ruling.choice is not None:
        def take(option: Ruling) -> Callable[[], None]:
            def apply() -> None:
                if play.hand is not hand or hand.actor != position:
                    play.reject("the choice no longer applies: the action has moved on",
                                 ruling.rule, source)
                    return
                apply_ruling(play, option, source)
            return apply
        play.prompt("choice", ruling.reason, ruling.rule, seat,
                     [(choice_of(o), take(o)) for o in ruling.choice.options])
        return True
    if ruling.action is None:  # the floor decides, or an announced raise's amount
        kind = "floor" if ruling.floor else "pending"
        play.prompt(kind, ruling.reason, ruling.rule, seat, [(CONTINUE, nothing)])
        return True
    action = ruling.action
    if ruling.forfeited and isinstance(action, Fold):  # LIVE-2/7/10: the chips stay in
        action = Fold(action.player, action.forfeit + ruling.forfeited)
    try:
        hand.apply(action)
    except RulesError as exc:
        return play.reject(exc.reason, exc.rule, source)
    accepted(play, position, source, ruling)
    return True


def fold_from_muck(play: Play, position: int) -> None:
    """LIVE-16: the hand touched the muck: folded in turn, dead out of turn (an all-in
    hand included: it can win nothing, LIVE-17)."""
    hand = play.hand
    assert hand is not None
    if position == hand.actor and hand.phase is Phase.BETTING:
        hand.fold()
        accepted(play, position, "muck")
    else:
        kill(play, position, "LIVE-16", "muck")


def kill(play: Play, position: int, rule: str, source: str) -> bool:
    """The hand at ``position`` is dead now, in turn or not (LIVE-17, DEAL-5, LIVE-16,
    CLOCK-3): the engine logs it, its chips stay in the pot, the action moves on."""
    hand = play.hand
    assert hand is not None
    try:
        hand.kill(position, rule)
    except RulesError as exc:
        return play.reject(exc.reason, exc.rule, source)
    play.emit(action_event(play, source, rule=rule))
    play.held.pop(position, None)  # a dead hand's held action dies with it
    if any(p.kind == "choice" and p.seat == play.seat_of(position) for p in play.prompts):
        play.prompts = [p for p in play.prompts if p.kind != "choice"]
    advance(play)
    return True


def hold_out_of_turn(play: Play, position: int, chips: Pushed,
                     declared: Declaration | None) -> bool:
    """Out of turn (LIVE-12): held, binding when the turn comes unless released."""
    hand = play.hand
    assert hand is not None
    pushed = total(chips)
    word = declared.word if declared is not None else None
    action: Decision
    if word is Word.FOLD:
        action = Fold(position)
    elif word is Word.CHECK or (word is None and not pushed):
        action = Check(position)
    elif declared is not None and declared.amount is not None:
        action = BetRaise(position, declared.amount)
    elif word in (Word.CALL, None) and hand.bets[position] + pushed <= hand.current_bet:
        action = Call(position, 0)
    else:
        action = BetRaise(position, hand.bets[position] + pushed)
    play.held[position] = held = Held.taken(action, play.profile, pushed)
    play.emit(ActionHeld(hand_no=play.hand_no, seat=play.seat_of(position),
                         what=clip(held.what, WORD)))
    return True


def action_event(play: Play, source: str, ruling: Ruling | None = None, *,
                 rule: str | None = None) -> ActionAccepted:
    """The event of the engine's last action (by position), with how it was made: its
    ``source`` and what the live rules decided (chips returned, owed, forfeited)."""
    hand = play.hand
    assert hand is not None
    live: dict[str, object] = {"source": source}
    if ruling is not None:
        live.update(returned=ruling.returned, owed=ruling.owed, forfeited=ruling.forfeited)
        rule = rule or ruling.rule
    if rule is not None:
        live["rule"] = rule
    return ActionAccepted.of(play.hand_no, hand.log[-1], **live)


def accepted(play: Play, position: int, source: str, ruling: Ruling | None = None) -> None:
    """The engine took the action: journal it, feed it to held actions, move on."""
    hand = play.hand
    assert hand is not None
    action = hand.log[-1]
    play.emit(action_event(play, source, ruling))
    play.held.pop(position, None)
    for other, held in list(play.held.items()):
        play.held[other] = held.after(action)
    if any(p.kind == "choice" for p in play.prompts):  # the choice was this one's
        play.prompts = [p for p in play.prompts if p.kind != "choice"]
    advance(play)


def advance(play: Play) -> None:
    """After any change: fold dead hands in turn, apply or release held actions when
    their turn comes, and move the stage on with the engine's phase."""
    hand = play.hand
    assert hand is not None and play.reads is not None
    actor = hand.actor
    if actor is not None and hand.phase is Phase.BETTING:
        seat = play.seat_of(actor)
        if seat in play.reads.dead:  # BLIND-7: a hand dealt to fold folds in turn
            hand.fold()
            accepted(play, actor, "auto")
            return
        held = play.held.pop(actor, None)
        if held is not None:
            try:
                ruling = held.oot.ruling(facing(hand), held.pushed)
            except RulesError:
                ruling = None
            if ruling is None or ruling.pending:
                play.emit(ActionHeld(hand_no=play.hand_no, seat=seat,
                                     what=clip(held.what, WORD), released=True))
            else:
                apply_ruling(play, ruling, "held")
                return
