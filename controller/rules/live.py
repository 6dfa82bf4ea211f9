"""What chips pushed and words said mean at a live table (LIVE-1..15).

The dealer console keys in what a player pushed over the line (the chips of each motion)
and what they said; :func:`interpret_chips` answers with a :class:`Ruling`: the action for
the engine, the chips handed back or still owed, a :class:`Choice` when the rules let the
player pick, or "the floor decides". Every ruling names its rule and reads as a sentence.

Decisions where the rulebook is silent or marked [interp]:

* Chips are what the player pushes now, on top of the bet already in front of them (a
  blind included). Pushing more than the stack is an input error.
* LIVE-9 speaks of one denomination; with mixed chips the chip removed is the largest.
* LIVE-7 with nothing to call (a first bet, the BB's option): C = 0 and R is the round's
  minimum increment, so chips short of the minimum bet follow the 50 % rule too.
* A declared bet or raise below the minimum is brought up to the minimum (LIVE-4: a raise
  is at least the previous increment; BET-3); above the pot-limit maximum it is cut to the
  maximum (PL-3). A player who may not raise (BET-8, BET-1) who bets or raises calls.
* "Check" facing a bet is not an action: the player calls or folds (LIVE-3 makes the
  check binding, so no raise). "Call" with nothing to call is a check. "Pot" outside pot
  limit is not an official word (LIVE-1, PL-4): the floor decides.
* "Fold" with chips pushed: the chips stay in the pot (LIVE-2). The engine's fold puts
  nothing in, so the table adds :attr:`Ruling.forfeited` to the pot itself.
* LIVE-10 "opening bet": no bet or raise yet this round preflop (the BB, or a straddle,
  is the opening bet), exactly one after the flop.
* LIVE-14: the readings of an ambiguous amount come from the console (:func:`readings`
  gives "five" as 5, 50, 500...); the legal ones are those the engine would accept.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum

from controller.rules.actions import Action, BetRaise, Call, Check, DealBoard, Fold
from controller.rules.config import RulesProfile, Variant
from controller.rules.errors import IllegalActionError, RulesError
from controller.rules.hand import Hand

Decision = Fold | Check | Call | BetRaise


class Word(StrEnum):
    """The official action words (LIVE-1), and "raise to"/"bet" with an amount."""

    CALL = "call"
    RAISE = "raise"  # no amount
    RAISE_TO = "raise to"
    BET = "bet"
    ALL_IN = "all-in"
    POT = "pot"  # pot limit only (PL-4)
    CHECK = "check"
    FOLD = "fold"


@dataclass(frozen=True, slots=True)
class Declaration:
    """What the player said, in turn, before the chips crossed the line (LIVE-2/3/4)."""

    word: Word
    amount: int | None = None  # RAISE_TO, BET: the total stated
    readings: tuple[int, ...] = ()  # LIVE-14: the totals an ambiguous amount may mean

    def __post_init__(self) -> None:
        takes = self.word in (Word.RAISE_TO, Word.BET)
        if takes != (self.amount is not None or bool(self.readings)):
            raise RulesError(f"'{self.word}' {'needs' if takes else 'takes no'} amount",
                             "LIVE-3")
        if self.amount is not None and self.readings:
            raise RulesError("give either the amount or its readings, not both", "LIVE-14")


def readings(number: int, up_to: int) -> tuple[int, ...]:
    """The totals a spoken number may mean: ``number`` times 1, 10, 100... up to a limit
    ("five" at 200/400 is 500 or 5,000, LIVE-14)."""
    out = []
    value = number
    while 0 < value <= up_to:
        out.append(value)
        value *= 10
    return tuple(out)


@dataclass(frozen=True, slots=True)
class Facing:
    """What the player to act faces, taken from the hand."""

    player: int
    to_call: int  # current_bet - bet; may exceed the stack
    current_bet: int
    last_full_increment: int  # R: the last full increment (the BB or bet size at a round's start)
    bet: int  # the player's bet this round
    stack: int  # chips behind
    min_raise_to: int | None  # None: the player may not bet or raise (BET-8, BET-1)
    max_raise_to: int | None
    pot: int  # all chips in the middle, bets not gathered included (PL-3, LIVE-14)
    pot_limit: bool
    big_blind: int
    opening_bet: bool  # LIVE-10: the bet faced is the round's opening bet (preflop: the BB)
    heads_up: bool  # only two players hold cards

    @property
    def all_in_to(self) -> int:
        """The player's total bet this round if they put in every chip."""
        return self.bet + self.stack

    def legal_to(self, total: int) -> bool:
        """Whether a bet or raise to ``total`` is one the engine accepts."""
        return (self.min_raise_to is not None and self.max_raise_to is not None
                and self.min_raise_to <= total <= self.max_raise_to)


def facing(hand: Hand) -> Facing:
    """What the player to act faces; raises when nobody is to act."""
    p = hand.actor
    if p is None:
        raise IllegalActionError("nobody is to act now", "BET-1")
    start = max((i + 1 for i, a in enumerate(hand.log) if isinstance(a, DealBoard)), default=0)
    raises = sum(isinstance(a, BetRaise) for a in hand.log[start:])
    return Facing(
        player=p, to_call=hand.current_bet - hand.bets[p], current_bet=hand.current_bet,
        last_full_increment=hand.min_increment, bet=hand.bets[p], stack=hand.stacks[p],
        min_raise_to=hand.min_raise_to, max_raise_to=hand.max_raise_to, pot=hand.pot_total,
        pot_limit=hand.config.variant is Variant.PO, big_blind=hand.config.big_blind,
        opening_bet=raises == (0 if hand.street == 0 else 1),
        heads_up=hand.folded.count(False) == 2)


@dataclass(frozen=True, slots=True)
class Ruling:
    """A ruling on what a player did: an action, a choice, or the floor's call."""

    rule: str
    reason: str  # a sentence the dealer can read out
    action: Decision | None = None  # for the engine; None for a choice, floor or pending
    returned: int = 0  # chips handed back to the player
    owed: int = 0  # chips the player must still put in
    forfeited: int = 0  # chips that stay in the pot although the player folds
    choice: Choice | None = None
    floor: bool = False  # the floor (tournament director) decides
    pending: bool = False  # an announced raise whose amount is not clear yet (LIVE-12)


@dataclass(frozen=True, slots=True)
class Choice:
    """The options the rules give the player (LIVE-7 fold allowed, LIVE-10 call or fold)."""

    options: tuple[Ruling, ...]


# ---------------------------------------------------------------- making actions legal
def _to(f: Facing, target: int, pushed: int, rule: str, reason: str) -> Ruling:
    """The action that takes the player's bet to ``target``, made legal for the engine.

    At or below the current bet: a call (a check with nothing to call). Above it: a bet or
    raise clamped into the engine's range; a player who may not raise calls instead.
    """
    if target > f.current_bet and f.min_raise_to is None:
        rule, reason = "BET-8", ("The player may not raise now (the betting was not reopened "
                                 "or nobody is left to raise): it is a "
                                 + ("call." if f.to_call > 0 else "check."))
        target = f.current_bet
    action: Decision
    if target <= f.current_bet:
        if f.to_call <= 0:
            return Ruling(rule, reason, Check(f.player), returned=pushed)
        put = min(f.to_call, f.stack)
        action = Call(f.player, put)
    else:
        assert f.min_raise_to is not None and f.max_raise_to is not None
        if target < f.min_raise_to:
            reason += f" It is brought up to the minimum, {f.min_raise_to}."
        elif target > f.max_raise_to:
            limit = "the pot-limit maximum" if f.pot_limit else "the most allowed"
            reason += f" It is cut to {limit}, {f.max_raise_to}."
        to = min(max(target, f.min_raise_to), f.max_raise_to)
        put = to - f.bet
        action = BetRaise(f.player, to)
    return Ruling(rule, reason, action, returned=max(0, pushed - put), owed=max(0, put - pushed))


def _word(f: Facing) -> str:
    return "raise" if f.current_bet else "bet"


# ---------------------------------------------------------------- the interpreter
def interpret_chips(facing: Facing, chips: Sequence[int], *, declared: Declaration | None,
                    profile: RulesProfile, later_motions: Sequence[Sequence[int]] = (),
                    after_count: bool = False) -> Ruling:
    """What the player's chips (one forward motion) and words mean.

    ``chips``: the values of the chips pushed over the line in the first motion, on top of
    the bet already in front of the player. ``later_motions``: chips brought in further
    trips to the stack (LIVE-4, LIVE-5). ``after_count``: the player asked for a count and
    pushed the figure given (LIVE-13).
    """
    f = facing
    motions = [list(chips), *(list(m) for m in later_motions)]
    if any(c <= 0 for m in motions for c in m):
        raise RulesError("chips have positive values")
    pushed = sum(sum(m) for m in motions)
    if pushed > f.stack:
        raise RulesError(f"{pushed} pushed is more than the player's {f.stack} behind")
    if declared is not None:
        return _declared(f, declared, motions, pushed)
    if not chips:
        raise RulesError("nothing was pushed and nothing said: no action yet", "LIVE-1")
    if len(motions) > 1:  # LIVE-5: a string bet; only the first motion counts
        if f.to_call > 0:
            return _to(f, f.current_bet, pushed, "LIVE-5",
                       "String bet: only the first motion counts, and facing a bet it is a "
                       "call.")
        first = _silent(f, len(chips), max(chips), sum(chips), profile, after_count)
        return _with_returned(first, pushed - sum(chips), "LIVE-5",
                              "String bet: only the first motion counts; the chips of the "
                              "later trips go back.")
    return _silent(f, len(chips), max(chips), pushed, profile, after_count)


def interpret_amount(facing: Facing, amount: int, *, declared: Declaration | None,
                     profile: RulesProfile, after_count: bool = False) -> Ruling:
    """As :func:`interpret_chips` when the console knows only the total pushed in one
    motion, not the chips: the single-chip and one-chip-less tests (LIVE-8, LIVE-9) cannot
    be made, so the total is read as many small chips (LIVE-7, LIVE-10 still apply)."""
    f = facing
    if not 0 <= amount <= f.stack:
        raise RulesError(f"{amount} pushed: between 0 and the player's {f.stack} behind")
    if declared is not None:
        return _declared(f, declared, [[amount] if amount else []], amount)
    if not amount:
        raise RulesError("nothing was pushed and nothing said: no action yet", "LIVE-1")
    return _silent(f, 0, 0, amount, profile, after_count)


def _with_returned(r: Ruling, extra: int, rule: str, why: str) -> Ruling:
    """``r`` with ``extra`` more chips handed back (the chips of a string's later trips);
    chips are chips, so what the player still owes is taken from them first."""
    if r.choice is not None:
        options = tuple(_with_returned(o, extra, rule, why) for o in r.choice.options)
        return replace(r, rule=rule, reason=f"{why} {r.reason}", choice=Choice(options))
    if isinstance(r.action, Fold):
        return replace(r, rule=rule, reason=f"{why} {r.reason}", returned=r.returned + extra)
    used = min(extra, r.owed)
    return replace(r, rule=rule, reason=f"{why} {r.reason}", owed=r.owed - used,
                   returned=r.returned + extra - used)


def _silent(f: Facing, count: int, largest: int, pushed: int, profile: RulesProfile,
            after_count: bool) -> Ruling:
    """Chips pushed in one motion without a word (LIVE-7..10, LIVE-13); ``count`` chips,
    the largest worth ``largest`` (0, 0: not known)."""
    if pushed == f.stack:  # BET-6/7: all the chips: all-in, whatever LIVE-7 would say
        return _to(f, f.all_in_to, pushed, "BET-6",
                   "All the player's chips went in: the player is all-in.")
    if f.to_call <= 0:
        if f.min_raise_to is not None and pushed >= f.min_raise_to - f.bet:
            if count == 1:
                return _to(f, f.bet + pushed, pushed, "LIVE-8",
                           f"A single chip with no bet to face {_word(f)}s its full value.")
            return _to(f, f.bet + pushed, pushed, "LIVE-4",
                       f"Chips put in with one motion {_word(f)} the full amount.")
        return _half_rule(f, pushed, profile)
    if pushed < f.to_call:
        return _undercall(f, pushed, profile, after_count)
    if count == 1:
        return _to(f, f.current_bet, pushed, "LIVE-8",
                   "A single chip of the call or more, without a word, is a call.")
    if count and pushed - largest < f.to_call:
        return _to(f, f.current_bet, pushed, "LIVE-9",
                   "Removing one chip would leave less than the call: it is a call.")
    return _half_rule(f, pushed, profile)


def _half_rule(f: Facing, pushed: int, profile: RulesProfile) -> Ruling:
    """LIVE-7: E beyond the call; E >= R raises fully, E >= R/2 makes a full raise."""
    extra = pushed - max(f.to_call, 0)
    r = f.last_full_increment
    if extra >= r or f.min_raise_to is None:
        return _to(f, f.bet + pushed, pushed, "LIVE-9" if extra >= r else "BET-8",
                   f"The chips are a {_word(f)} to the full amount put in.")
    if 2 * extra >= r:  # exactly 50 % is a raise (LIVE-7)
        raise_ = _to(f, f.current_bet + r, pushed, "LIVE-7",
                     f"{extra} beyond the call is at least half of {r}: the player must make a"
                     f" full {_word(f)} to {f.current_bet + r}.")
        if profile.text("halfraise.fold_allowed") == "true":
            fold = Ruling("LIVE-7", "The player may fold instead; the chips put in stay in "
                          "the pot.", Fold(f.player), forfeited=pushed)
            return Ruling("LIVE-7", raise_.reason + " Or the player may fold and lose the "
                          "chips put in.", choice=Choice((raise_, fold)))
        return raise_
    return _to(f, f.current_bet, pushed, "LIVE-7",
               f"{extra} beyond the call is less than half of {r}: it is a "
               + ("call" if f.to_call > 0 else "check") + f" and {extra} goes back.")


def _undercall(f: Facing, pushed: int, profile: RulesProfile, after_count: bool) -> Ruling:
    """LIVE-10 (and LIVE-13): less than the call, without a word."""
    call = _to(f, f.current_bet, pushed, "LIVE-10", "Undercall: the player must make a full "
               "call.")
    if after_count:
        return replace(call, rule="LIVE-13", reason="The caller accepted the whole action: "
                       "they put in the correct amount, or all their chips.")
    if profile.text("undercall.mode") == "call_or_forfeit":
        fold = Ruling("LIVE-10", "The player folds; the chips put in stay in the pot.",
                      Fold(f.player), forfeited=pushed)
        return Ruling("LIVE-10", "Undercall: the player calls the full amount or folds and "
                      "loses the chips put in.", choice=Choice((call, fold)))
    if f.heads_up or f.opening_bet:
        return call
    return Ruling("LIVE-10", "Undercall facing a raise in a multi-way pot: the floor decides.",
                  returned=0, floor=True)


def _declared(f: Facing, d: Declaration, motions: Sequence[Sequence[int]],
              pushed: int) -> Ruling:
    """LIVE-2/3/4/8/13/14: the words bind; the chips follow them."""
    w = d.word
    if w is Word.FOLD:
        return Ruling("LIVE-3", "Fold is binding" + ("; the chips put in stay in the pot."
                      if pushed else "."), Fold(f.player), forfeited=pushed)
    if w is Word.CHECK:
        if f.to_call <= 0:
            return Ruling("LIVE-3", "Check is binding.", Check(f.player), returned=pushed)
        call = _to(f, f.current_bet, pushed, "LIVE-3", "The player calls.")
        fold = Ruling("LIVE-3", "The player folds.", Fold(f.player), returned=pushed)
        return Ruling("LIVE-3", "Check is not possible facing a bet, and a check gives up the "
                      "right to raise: the player calls or folds.", choice=Choice((call, fold)))
    if w is Word.CALL:
        return _to(f, f.current_bet, pushed, "LIVE-2",
                   "Call is binding for the full amount.")
    if w is Word.ALL_IN:
        return _to(f, f.all_in_to, pushed, "LIVE-2", "All-in is binding.")
    if w is Word.POT:
        if not f.pot_limit:
            return Ruling("LIVE-1", "'Pot' is an official word only in pot limit: the floor "
                          "decides what it meant.", returned=pushed, floor=True)
        return _to(f, f.max_raise_to or f.current_bet, pushed, "PL-4",
                   f"'Pot' {_word(f)}s the pot-limit maximum.")
    if w is Word.RAISE:
        counted = sum(motions[0]) + (sum(motions[1]) if len(motions) > 1 else 0)
        extra = pushed - counted  # LIVE-4.3: one more trip; any further trip is a string
        if not counted:
            return Ruling("LIVE-12", f"'{_word(f).capitalize()}' announced: the amount must be"
                          " clear before the next player acts.", returned=pushed, pending=True)
        target = max(f.bet + counted, f.current_bet + 1)  # LIVE-2: a raise, at least the min
        if len(motions[0]) == 1 and len(motions) == 1 and f.to_call > 0:
            r = _to(f, target, counted, "LIVE-8", "'Raise' with a single chip raises "
                    "the most allowed up to the chip's value.")
        else:
            r = _to(f, target, counted, "LIVE-4",
                    f"'{_word(f).capitalize()}' declared: the chips put in count.")
        if extra:
            return _with_returned(r, extra, "LIVE-5", "Only one more trip to the stack counts "
                                  "after 'raise'; the later chips go back.")
        return r
    return _amount(f, d, pushed)


def _amount(f: Facing, d: Declaration, pushed: int) -> Ruling:
    """"Raise to X" / "bet X" (LIVE-3: a stated amount binds; LIVE-14: ambiguous ones)."""
    if d.amount is not None:
        return _to(f, max(d.amount, f.current_bet + 1), pushed, "LIVE-3",
                   f"The stated {_word(f)} to {d.amount} is binding.")
    fits = [x for x in d.readings if f.legal_to(x) and x <= f.pot]
    if not fits:
        return Ruling("LIVE-14", "No reading of the amount is legal and within the pot: the "
                      "floor decides.", returned=pushed, floor=True)
    best = max(fits)
    said = ", ".join(map(str, d.readings))
    return _to(f, best, pushed, "LIVE-14", f"The amount could mean {said}: it is the largest "
               f"reasonable one within the pot of {f.pot}, {best}.")


# ---------------------------------------------------------------- LIVE-11, LIVE-12
class Substantial(StrEnum):
    """The two definitions of substantial action (LIVE-11)."""

    TDA = "004"  # two actions in turn with chips in one of them, or any three actions
    CASINO = "002"  # any bet, call or raise


def substantial_definition(profile: RulesProfile) -> Substantial:
    """The definition that goes with the profile's seed (oot.release_on: 004 or 002)."""
    return (Substantial.CASINO if profile.text("oot.release_on") == "substantial"
            else Substantial.TDA)


def is_substantial(actions: Sequence[Action], definition: Substantial = Substantial.TDA
                   ) -> bool:
    """Whether these actions in turn are substantial action (LIVE-11, BTN-8, DEAL-7).
    Only betting actions count; dealing does not."""
    acts = [a for a in actions if isinstance(a, (Fold, Check, Call, BetRaise))]
    chips = any(isinstance(a, (Call, BetRaise)) for a in acts)
    if definition is Substantial.CASINO:
        return chips
    return len(acts) >= 3 or (len(acts) >= 2 and chips)


def misplaced_button_is_misdeal(actions: Sequence[Action], profile: RulesProfile) -> bool:
    """BTN-8, DEAL-7: a misplaced button found before substantial action makes a misdeal
    (the button is then put right); after it, play goes on and the next hand's button moves
    on from where it was (pass the hand as played to ``button.next_hand``)."""
    return not is_substantial(actions, substantial_definition(profile))


@dataclass(frozen=True, slots=True)
class OutOfTurn:
    """An out-of-turn action waiting for the player's turn (LIVE-12).

    Feed it every action taken in between with :meth:`after`; when the turn comes,
    :meth:`ruling` says what stands. Folding out of turn is always binding.
    """

    action: Decision
    release_on: str  # oot.release_on: "action_change" (004) or "substantial" (002)
    released: bool = False

    @classmethod
    def taken(cls, action: Decision, profile: RulesProfile) -> OutOfTurn:
        """An OOT action under the profile's ``oot.release_on``."""
        return cls(action, profile.text("oot.release_on"))

    def after(self, between: Action) -> OutOfTurn:
        """The state once another player has acted in between."""
        if self.released or isinstance(self.action, Fold):
            return self
        changes = (Call, BetRaise) if self.release_on == "substantial" else (BetRaise,)
        return replace(self, released=True) if isinstance(between, changes) else self

    @property
    def binding(self) -> bool:
        """Whether the OOT action still stands."""
        return not self.released

    def ruling(self, f: Facing, pushed: int = 0) -> Ruling:
        """What happens when the turn reaches the player; ``pushed``: chips put out OOT."""
        if not self.binding:
            return Ruling("LIVE-12", "The action before changed: the out-of-turn action is "
                          "released, its chips go back and the player has every option.",
                          returned=pushed, pending=True)
        a = self.action
        why = "The action before did not change: the out-of-turn action is binding."
        if isinstance(a, Fold):
            return Ruling("LIVE-12", "Folding out of turn is binding.", Fold(f.player),
                          forfeited=pushed)
        if isinstance(a, Check):
            if f.to_call > 0:
                raise RulesError("a check cannot stand against a bet: the action changed")
            return Ruling("LIVE-12", why, Check(f.player), returned=pushed)
        target = a.to if isinstance(a, BetRaise) else f.current_bet
        return _to(f, target, pushed, "LIVE-12", why)


# ---------------------------------------------------------------- LIVE-15
@dataclass(frozen=True, slots=True)
class HiddenChips:
    """The settlement of an all-in with hidden chips (LIVE-15)."""

    if_all_in_wins: int  # what the caller pays: min(V, S_B)
    if_caller_wins: int  # what the caller wins: min(S_A, S_B)
    all_in_keeps_if_losing: int  # S_A - min(S_A, S_B)


def hidden_chips(visible: int, real_stack: int, caller_stack: int) -> HiddenChips:
    """LIVE-15: the all-in covers every chip, but the hidden ones cannot win anything."""
    if not 0 < visible <= real_stack or caller_stack <= 0:
        raise RulesError("the visible all-in is positive and at most the real stack", "LIVE-15")
    lose = min(real_stack, caller_stack)
    return HiddenChips(min(visible, caller_stack), lose, real_stack - lose)
