"""The dealer's terminal behind its two faces: the keypad and the tablet both hand a
:class:`~controller.terminal.commands.Command` to :meth:`Desk.do`, which turns it into one
of the table's intents (``controller.table.intents``) and submits it down the table's one
path. The table's rules accept or refuse; the desk only translates, and says back what
happened (a refusal with its rule id) on the :class:`~controller.terminal.screen.Screen`
both faces draw.

Defaults a dealer expects: an action without a seat is the player to act's; a time-bank
chip without a seat is the player on the clock's; an amount keyed in big blinds is
multiplied by the big blind in force. All-in is what the player said with the whole stack
pushed (``ChipsPushed`` with the all-in declaration: LIVE-1), so the live rules decide
what it means, in turn or not.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Protocol, runtime_checkable

from controller.events import PublicState
from controller.rules.actions import BetRaise, Call, Check, Fold
from controller.rules.live import Decision, Declaration, Word
from controller.table import intents as i
from controller.table.base import Stage
from controller.table.dealer_view import DealerView
from controller.table.live_table import Outcome

from .commands import Command, Reply, Verb
from .screen import Screen, build, turn_of

log = logging.getLogger("pitboss.terminal")

STALE = ("the table moved on since this screen was drawn (another action, a card or a "
         "prompt came first): look at the screen again and tap once more")


class TableFace(Protocol):
    """What the desk uses of the live table: its one path in and the dealer's view."""

    def submit(self, intent: i.Intent) -> Outcome: ...

    def dealer_view(self) -> DealerView: ...


@runtime_checkable
class InputsFace(Protocol):
    """A table that journals its inputs (``Table.submit_from``): the keys or the tap that
    made an intent go to the journal before it is applied, for the floor's dispute
    timeline. A table without it is handed the bare intent."""

    def submit_from(self, origin: i.Origin, intent: i.Intent) -> Outcome: ...


@runtime_checkable
class StraddleFace(Protocol):
    """A table that says which seats may straddle the next hand (``Table.straddle_seats``:
    none during a hand, or where the house plays no straddles). A table without it is
    offered no straddle; one keyed is still the table's to refuse."""

    def straddle_seats(self) -> tuple[int, ...]: ...


class Desk:
    """One table's dealer terminal. ``state()`` is the journal's public state (what the
    table has journaled is what the dealer sees)."""

    def __init__(self, table: TableFace, state: Callable[[], PublicState]) -> None:
        self.table = table
        self.state = state
        self.entry = ""  # what is being keyed on the keypad, for the screen
        self.reply: Reply | None = None
        self._listeners: list[Callable[[], None]] = []

    # ------------------------------------------------------------------ the screen
    def screen(self) -> Screen:
        table = self.table
        straddles = table.straddle_seats() if isinstance(table, StraddleFace) else ()
        return build(self.state(), table.dealer_view(), entry=self.entry,
                     reply=self.reply, straddle_seats=straddles)

    def subscribe(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call ``listener()`` whenever the screen may have changed."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def changed(self) -> None:
        """Something the screen shows changed (a key, a reply, a journaled event)."""
        for listener in list(self._listeners):
            listener()

    def keying(self, entry: str) -> None:
        """The keypad shows what is being keyed before it is sent."""
        if entry != self.entry:
            self.entry = entry
            self.changed()

    def say(self, reply: Reply) -> Reply:
        self.reply = reply
        self.changed()
        return reply

    # ------------------------------------------------------------------ commands
    def do(self, command: Command, origin: i.Origin | None = None) -> Reply:
        """Carry ``command`` out at the table; the reply is also on the screen. ``origin``:
        the face it came from (the keys pressed, the tap), journaled with the intent."""
        state = self.state()
        dealer = self.table.dealer_view()
        if command.turn is not None and command.turn != turn_of(state, dealer):
            return self.say(Reply(False, STALE))
        try:
            intent = self._intent(command, state, dealer)
        except _Refused as why:
            return self.say(Reply(False, why.message, why.rule))
        table = self.table
        outcome = (table.submit_from(origin, intent)
                   if origin is not None and isinstance(table, InputsFace)
                   else table.submit(intent))
        refusal = outcome.refusal
        if not outcome.accepted:
            reason = refusal.reason if refusal is not None else "the table refused it"
            return self.say(Reply(False, reason, refusal.rule if refusal else None))
        return self.say(Reply(True, _done(command)))

    def _intent(self, c: Command, state: PublicState, dealer: DealerView) -> i.Intent:
        seat = c.seat
        match c.verb:
            case Verb.FOLD:
                return i.Fold(seat)
            case Verb.CHECK:
                return i.Check(seat)
            case Verb.CALL:
                return i.Call(seat)
            case Verb.BET:
                return i.RaiseTo(self._amount(c, state, dealer), seat, exact=True)
            case Verb.CHIPS:
                chips: int | tuple[int, ...] = (c.chips if c.chips
                                                else self._amount(c, state, dealer))
                return i.ChipsPushed(chips, seat)
            case Verb.ALL_IN:
                return self._all_in(seat, state)
            case Verb.SHOW:
                return i.Show(seat)
            case Verb.MUCK:
                return i.Muck(seat, source="terminal")
            case Verb.DEAL:
                return i.Key("deal")
            case Verb.STRADDLE:  # the table refuses a seat or a house that may not
                return i.Deal(straddle=_seat(c, "STRADDLE"))
            case Verb.UNDO:
                return i.Key("undo")
            case Verb.MISDEAL:
                return i.Key("misdeal")
            case Verb.CORRECT:
                return self._correction(c, state, dealer)
            case Verb.CHOOSE:
                return i.Choose(self._option(c, dealer))
            case Verb.TIME_BANK:
                on = seat or state.clock_on_seat or (state.hand.to_act if state.hand else None)
                if on is None:
                    raise _Refused("nobody is on the clock: key the seat, then TIME BANK",
                                   "CLOCK-3")
                return i.UseTimeBank(on)
            case Verb.CALL_CLOCK:
                return i.CallClock(seat)
            case Verb.COUNT:
                if dealer.stage is Stage.COLOUR_UP:
                    count = (tuple(zip(c.chips[::2], c.chips[1::2], strict=True))
                             if c.chips else self._amount(c, state, dealer))
                    return i.CountColourUp(_seat(c, "COUNT"), count)
                return i.Key("count")
            case Verb.PAUSE:
                return i.Key("pause")
            case Verb.NEXT_LEVEL:
                return i.Key("next_level")
            case Verb.SIT_OUT:
                number = _seat(c, "SIT OUT")
                out = any(v.seat == number and v.sitting_out for v in state.seats)
                return i.ComeBack(number) if out else i.SitOut(number)
            case Verb.BUTTON:
                return i.PlaceButton(_seat(c, "BUTTON"))
            case Verb.ENROL:
                if dealer.stage is Stage.ENROLLING:
                    return i.FinishEnrolment()
                return i.BeginEnrolment(name=c.name)  # None: deck-<version>
            case Verb.DECK:
                if not c.name:
                    raise _Refused("name the saved deck to play with", "CARD-1")
                return i.ChooseDeck(c.name)
            case Verb.COLOUR_UP:
                return i.Key("colour_up")
            case Verb.RACE_CARD:
                if not c.name:
                    raise _Refused("key the race card (e.g. Ah)", "CHIPRACE-6")
                return i.KeyRaceCard(_seat(c, "RACE CARD"), c.name)
        raise _Refused(f"the terminal has no command {c.verb!r}", None)

    def _amount(self, c: Command, state: PublicState, dealer: DealerView) -> int:
        """The amount keyed, in chips (an amount in big blinds times the big blind)."""
        if c.bb is not None:
            big = build(state, dealer).big_blind
            chips = c.bb * big
            if big <= 0 or chips != int(chips) or chips <= 0:
                raise _Refused(f"{c.bb:g} big blinds of {big} is not a whole number of "
                               "chips: key the amount in chips", None)
            return int(chips)
        hand = state.hand
        if (c.amount is None and c.verb is Verb.BET and hand is not None
                and c.seat in (None, hand.to_act) and hand.min_raise_to is not None
                and hand.min_raise_to == hand.max_raise_to):
            return hand.min_raise_to  # one size allowed (fixed limit): BET alone bets it
        if c.amount is None or c.amount <= 0:
            raise _Refused(f"key the amount first, then {c.verb.upper()}", None)
        return c.amount

    def _all_in(self, seat: int | None, state: PublicState) -> i.Intent:
        hand = state.hand
        number = seat if seat is not None else (hand.to_act if hand else None)
        player = next((p for p in hand.players if p.seat == number), None) if hand else None
        if player is None:
            raise _Refused("no player to go all-in: it is nobody's turn", "BET-2")
        if player.stack <= 0:
            raise _Refused(f"seat {number} is already all-in", "BET-6")
        return i.ChipsPushed(player.stack, number, Declaration(Word.ALL_IN))

    def _option(self, c: Command, dealer: DealerView) -> str:
        prompt = dealer.prompt
        if prompt is None:
            raise _Refused("no prompt is open", None)
        if c.option:
            return c.option
        if c.index is not None and 1 <= c.index <= len(prompt.choices):
            return prompt.choices[c.index - 1].key
        raise _Refused(f"choose 1 to {len(prompt.choices)}: "
                       + "; ".join(f"{n} {ch.key}" for n, ch in
                                   enumerate(prompt.choices, start=1)), prompt.rule)

    def _correction(self, c: Command, state: PublicState, dealer: DealerView) -> i.Intent:
        """The floor's correction: action ``index`` of the hand's log becomes ``action``
        for ``seat`` (the hand is replayed by the engine, which refuses what cannot be)."""
        if c.index is None or c.action is None or c.seat is None:
            raise _Refused("a correction names the action's number in the log, the seat "
                           "and what it should have been", None)
        if c.seat not in state.hand_seats:
            raise _Refused(f"seat {c.seat} is not in the hand", None)
        player = state.hand_seats.index(c.seat)
        action: Decision
        match c.action:
            case Verb.FOLD:
                action = Fold(player)
            case Verb.CHECK:
                action = Check(player)
            case Verb.CALL:
                action = Call(player, 0)  # the engine works the amount out on replay
            case Verb.BET:
                action = BetRaise(player, self._amount(c, state, dealer))
            case _:
                raise _Refused("a correction is a fold, check, call or bet", None)
        return i.Correct(c.index, action, "the dealer's correction at the terminal")


class _Refused(Exception):
    """A command the desk cannot even put to the table (nothing keyed, no seat)."""

    def __init__(self, message: str, rule: str | None) -> None:
        super().__init__(message)
        self.message = message
        self.rule = rule


def _seat(c: Command, key: str) -> int:
    if c.seat is None:
        raise _Refused(f"key the seat first: seat number, SEAT, then {key}", None)
    return c.seat


def _done(c: Command) -> str:
    who = f"seat {c.seat}: " if c.seat is not None else ""
    amount = f" {c.amount}" if c.amount is not None else (f" {c.bb:g} BB" if c.bb else "")
    return f"{who}{c.verb.replace('_', ' ')}{amount}"
