"""What the dealer's terminal shows: one :class:`Screen`, the same for the tablet page
(as JSON) and the keypad's dealer display (as a few lines of text).

Every number about the hand is the engine's, as the journal holds it
(:class:`~controller.events.PublicState`, its ``hand`` from
:func:`controller.rules.view.view_of`); the dealer's own part (the stage, the open prompt,
the shot clock, the deck) is the table's :class:`~controller.table.dealer_view.DealerView`.
The buttons offered (``actions``) follow the stage and, in a betting round, the engine's
legal moves: a button for an illegal action is never drawn.
"""

from __future__ import annotations

import textwrap
from dataclasses import asdict, dataclass
from typing import Any

from controller.events import ActionAccepted, BoardDealt, PublicState
from controller.table.base import Stage
from controller.table.dealer_view import DealerView, PromptView

from .commands import Reply, Verb

_BETTING = {"fold": Verb.FOLD, "check": Verb.CHECK, "call": Verb.CALL, "bet_raise": Verb.BET}


@dataclass(frozen=True, slots=True)
class SeatLine:
    seat: int
    player: str
    stack: int
    bet: int = 0
    in_hand: bool = False  # dealt into the hand in play
    folded: bool = False
    all_in: bool = False
    sitting_out: bool = False
    button: bool = False
    to_act: bool = False


@dataclass(frozen=True, slots=True)
class LogLine:
    """One betting or showdown action of the hand in play, as the public log has it (no
    hole card: a shown hand is public). ``index`` is its place in the hand's log, deals
    counted (what a correction names); ``correctable``: a fold, check, call or bet."""

    index: int
    street: str  # preflop, flop, turn, river
    seat: int
    action: str  # fold, check, call, bet_raise, show, muck, kill
    amount: int | None = None  # call: the chips put in; bet_raise: the total bet to
    cards: tuple[str, ...] = ()  # a shown hand
    correctable: bool = False


@dataclass(frozen=True, slots=True)
class Screen:
    """One frame of the dealer's terminal. ``turn`` names the state a tap is made on: a
    tap carrying another ``turn`` came from a stale screen."""

    turn: str
    stage: str
    hand_no: int
    level: int
    small_blind: int
    big_blind: int
    ante: int
    variant: str
    seats: tuple[SeatLine, ...]
    board: tuple[str, ...]
    pot_total: int
    to_act: int | None
    to_call: int
    min_raise_to: int | None
    max_raise_to: int | None
    actions: tuple[str, ...]  # the verbs offered now (buttons on the tablet)
    prompt: PromptView | None
    shot_clock: str
    level_seconds_left: int | None
    colour_up: str | None
    deck_version: int | None
    deck_name: str | None
    decks: tuple[str, ...]
    enrolling: str | None
    paused: bool
    entry: str  # what is being keyed on the keypad
    message: str  # the last reply: done, or the refusal with its rule id
    accepted: bool | None  # of the last reply (None: nothing said yet)
    pots: tuple[int, ...] = ()  # the main pot, then the side pots (bets in front not in them)
    to_show: int | None = None  # the seat the showdown waits for (SHOW-2)
    chips: tuple[tuple[int, str], ...] = ()  # the chips in play, (value, colour)
    log: tuple[LogLine, ...] = ()  # the hand's actions, for a correction
    deck_count: str | None = None  # the count after a hand, cards by name (CARD-1)
    house: str = ""  # the house's label: game, stakes, rake, straddles ("": no house file)
    straddle_seats: tuple[int, ...] = ()  # who may straddle the next hand (STRADDLE-2/3)

    def as_json(self) -> dict[str, Any]:
        return asdict(self)

    def lines(self, width: int = 21) -> tuple[str, ...]:
        """Six lines for the keypad's small dealer display (128x64: 21 characters each):
        what the table waits for (between hands, the house's game and stakes); what may
        be keyed to it (the prompt's numbered choices, the raise range, the saved decks'
        numbers); the level and shot clock; the entry being keyed; the last reply, its
        rule id first, over two lines."""
        context = ""
        if self.prompt is not None:
            head = f"! {self.prompt.rule or ''} {self.prompt.kind}".strip()
            context = " ".join(f"{n} {c.key.replace('_', ' ')}"
                               for n, c in enumerate(self.prompt.choices, start=1))
        elif self.to_act is not None:
            head = f"S{self.to_act} call {self.to_call} pot {self.pot_total}"
            context = ("no raise" if self.min_raise_to is None else
                       f"raise {self.min_raise_to}-{self.max_raise_to}")
        else:
            head = f"#{self.hand_no} {self.stage}"
            if self.house and self.stage == "idle":  # between hands: the game played
                head = _fit(f"#{self.hand_no}", self.house.split(", "), width)
            if self.enrolling:
                context = f"deck {self.enrolling}"
            elif self.colour_up:
                context = self.colour_up
            elif self.decks and self.stage == "idle":
                context = " ".join(f"{n} {d}" for n, d in enumerate(self.decks, start=1))
        clock = f" {self.shot_clock}" if self.shot_clock else ""
        status = f"L{self.level} {self.small_blind}/{self.big_blind}{clock}"
        message = textwrap.wrap(self.message, width)[:2]
        return tuple(line[:width] for line in
                     (head, context, status, f"> {self.entry}", *message))


def _fit(head: str, parts: list[str], width: int) -> str:
    """``head`` and as many of the label's parts as fit whole in ``width`` (the first part
    cut if even it does not fit): ``#3 NLHE 20/40 kr``, not a rake cut mid-word."""
    line = f"{head} {parts[0]}"
    for part in parts[1:]:
        if len(line) + 2 + len(part) > width:
            break
        line += f", {part}"
    return line


def turn_of(state: PublicState, dealer: DealerView) -> str:
    """What a tap depends on: the hand, how far it has gone, the stage, the prompts."""
    return f"{state.hand_no}.{len(state.hand_log)}.{dealer.stage}.{dealer.prompts}"


def offered(state: PublicState, dealer: DealerView, straddle_seats: tuple[int, ...] = ()
            ) -> tuple[Verb, ...]:
    """The buttons for this moment (the keypad takes any key; the table still decides).
    A straddle is offered between hands when a seat may put one out (``straddle_seats``,
    the table's: none where the house plays no straddles, STRADDLE-1..6)."""
    stage = dealer.stage
    verbs: list[Verb] = []
    if dealer.prompt is not None:
        verbs.append(Verb.CHOOSE)
    hand = state.hand
    if stage is Stage.IDLE:
        verbs.append(Verb.DEAL)
        if straddle_seats:
            verbs.append(Verb.STRADDLE)
        verbs += [Verb.SIT_OUT, Verb.ENROL, Verb.DECK, Verb.COLOUR_UP, Verb.NEXT_LEVEL,
                  Verb.PAUSE]
        if state.hand_no == 0:
            verbs.append(Verb.BUTTON)
    elif stage is Stage.ENROLLING:
        verbs.append(Verb.ENROL)
    elif stage is Stage.COLOUR_UP:
        verbs += [Verb.COUNT, Verb.RACE_CARD, Verb.DEAL, Verb.UNDO, Verb.MISDEAL]
    elif stage is Stage.DEALING:
        verbs += [Verb.MISDEAL, Verb.UNDO]
    elif stage is Stage.PLAYING:
        if hand is not None and hand.to_act is not None:
            verbs += [_BETTING[m] for m in hand.legal]
            if "bet_raise" in hand.legal or "call" in hand.legal:
                verbs.append(Verb.ALL_IN)
            verbs += [Verb.CHIPS, Verb.TIME_BANK, Verb.CALL_CLOCK, Verb.COUNT]
        verbs += [Verb.UNDO, Verb.CORRECT, Verb.MISDEAL]
    elif stage is Stage.SHOWDOWN:
        verbs += [Verb.SHOW, Verb.MUCK, Verb.UNDO, Verb.CORRECT]
    elif stage is Stage.AWARDING:
        verbs += [Verb.DEAL, Verb.CORRECT]
    return tuple(verbs)


_STREETS = ("preflop", "flop", "turn", "river")


def hand_log(state: PublicState) -> tuple[LogLine, ...]:
    """The actions of the hand in play, each with its place in the log and its seat."""
    lines: list[LogLine] = []
    boards, street = 0, _STREETS[0]
    for index, step in enumerate(state.hand_log):
        if isinstance(step, BoardDealt):
            boards += 1
            street = step.street or _STREETS[min(boards, 3)]
        elif isinstance(step, ActionAccepted) and step.player < len(state.hand_seats):
            lines.append(LogLine(
                index=index, street=street,
                seat=state.hand_seats[step.player], action=step.action, amount=step.amount,
                cards=step.cards, correctable=step.action in _BETTING))
    return tuple(lines)


def build(state: PublicState, dealer: DealerView, *, entry: str = "",
          reply: Reply | None = None, straddle_seats: tuple[int, ...] = ()) -> Screen:
    """The screen for ``state`` (the journal's) and ``dealer`` (the table's);
    ``straddle_seats``: the seats that may straddle the next hand (the table's)."""
    hand = state.hand
    stakes = state.stakes
    layout = state.layout
    players = {p.seat: p for p in hand.players} if hand is not None else {}
    seats = []
    for view in state.seats:
        p = players.get(view.seat)
        seats.append(SeatLine(
            seat=view.seat, player=view.player,
            stack=p.stack if p is not None else view.stack,
            bet=p.bet if p is not None else 0, in_hand=p is not None,
            folded=p is not None and (p.folded or p.mucked),
            all_in=p is not None and p.all_in, sitting_out=view.sitting_out,
            button=view.seat == (state.button_placed or (layout.button if layout else None)),
            to_act=hand is not None and hand.to_act == view.seat))
    in_hand = stakes is not None and state.hand_in_progress
    return Screen(
        turn=turn_of(state, dealer), stage=str(dealer.stage), hand_no=state.hand_no,
        level=(stakes.level or dealer.level) if in_hand and stakes else dealer.level,
        small_blind=stakes.small_blind if in_hand and stakes else dealer.small_blind,
        big_blind=stakes.big_blind if in_hand and stakes else dealer.big_blind,
        ante=stakes.ante if in_hand and stakes else dealer.ante,
        variant=dealer.variant,
        seats=tuple(seats), board=hand.board if hand is not None else (),
        pot_total=hand.pot_total if hand is not None else 0,
        to_act=hand.to_act if hand is not None else None,
        to_call=hand.to_call if hand is not None else 0,
        min_raise_to=hand.min_raise_to if hand is not None else None,
        max_raise_to=hand.max_raise_to if hand is not None else None,
        actions=tuple(str(v) for v in offered(state, dealer, straddle_seats)),
        prompt=dealer.prompt, shot_clock=dealer.shot_clock,
        level_seconds_left=dealer.level_seconds_left, colour_up=dealer.colour_up,
        deck_version=dealer.deck_version, deck_name=dealer.deck_name, decks=dealer.decks,
        deck_count=dealer.deck_count,
        enrolling=dealer.enrolling, paused=dealer.paused, entry=entry,
        message=reply.line if reply is not None else "",
        accepted=reply.accepted if reply is not None else None,
        pots=tuple(p.amount for p in hand.pots) if hand is not None else (),
        to_show=hand.next_to_show if hand is not None else None,
        chips=dealer.chips, log=hand_log(state),
        house=dealer.house_label or (state.house.label if state.house is not None else ""),
        straddle_seats=straddle_seats)
