"""What a dealer's terminal sends: one :class:`Command` per finished key sequence or tap.

The keypad (:mod:`controller.terminal.keypad`) and the tablet page
(:mod:`controller.terminal.tablet`) both speak this small vocabulary; the desk
(:mod:`controller.terminal.desk`) turns each command into one of the table's intents
(``controller.table.intents``) and the table's rules decide. Nothing here knows a poker
rule: an amount is what the dealer keyed, a seat is the seat the dealer named.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Verb(StrEnum):
    """Everything a dealer can ask of the terminal."""

    # the hand: the player to act unless a seat is named (LIVE-12: out of turn is held)
    FOLD = "fold"
    CHECK = "check"
    CALL = "call"
    BET = "bet"  # a bet or raise to ``amount`` (LIVE-3)
    ALL_IN = "all_in"  # the largest bet the engine allows, or a call for the rest
    CHIPS = "chips"  # chips pushed in one motion: ``amount`` or each chip in ``chips``
    SHOW = "show"
    MUCK = "muck"
    DEAL = "deal"  # start the hand, show the next hand, push the pot: the deal key
    STRADDLE = "straddle"  # deal the next hand with ``seat``'s straddle (STRADDLE-1..4)
    UNDO = "undo"
    CORRECT = "correct"  # replace action ``index`` of the hand's log with ``action``
    MISDEAL = "misdeal"
    CHOOSE = "choose"  # the open prompt's ``option``
    # clocks
    TIME_BANK = "time_bank"  # the seat on the clock (or ``seat``) spends an extension chip
    CALL_CLOCK = "call_clock"
    COUNT = "count"  # counting an all-in (the clock waits); in a colour-up: a seat's count
    PAUSE = "pause"
    NEXT_LEVEL = "next_level"
    # seats and the deck
    SIT_OUT = "sit_out"  # ``seat`` sits out, or comes back if sitting out
    BUTTON = "button"  # the button draw: the button starts at ``seat`` (BTN-1, BTN-4)
    ENROL = "enrol"  # begin reading a new deck at the deck reader, or finish it
    DECK = "deck"  # play with the saved deck ``name``
    COLOUR_UP = "colour_up"  # start a colour-up now
    RACE_CARD = "race_card"  # key in the race card ``name`` a seat's reader missed


AMOUNT_VERBS = frozenset({Verb.BET, Verb.CHIPS})


@dataclass(frozen=True, slots=True)
class Command:
    """One dealer command. ``amount`` in chips; ``bb`` an amount in big blinds instead
    (the desk multiplies it by the big blind in force); ``turn``: the screen the tablet
    tap was made on (a tap on a stale screen is refused)."""

    verb: Verb
    seat: int | None = None
    amount: int | None = None
    bb: float | None = None
    chips: tuple[int, ...] = ()
    option: str | None = None
    name: str | None = None
    index: int | None = None  # CORRECT: the action's place in the hand's log
    action: Verb | None = None  # CORRECT: what the action should have been
    turn: str | None = None


@dataclass(frozen=True, slots=True)
class Reply:
    """What the terminal says back: done or refused, a sentence for the dealer and the
    rule it applies (a refusal's rule id, when it has one)."""

    accepted: bool
    message: str
    rule: str | None = None

    @property
    def line(self) -> str:
        """One line for a small display: ``BET-3: the raise is below the minimum``."""
        return f"{self.rule}: {self.message}" if self.rule else self.message
