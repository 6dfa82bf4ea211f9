"""What the live table accepts and tells the world: one frozen dataclass per happening.

Every event goes to the injected sink (the journal, ``controller.sync``) *before* any
display or light changes (DESIGN.md: journal before display). Events whose class has
``secret = True`` carry hole cards: the sync layer routes them to the secure topic only,
and they are never written to INFO logs (CARD-4).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ClassVar

from controller.clocks.host_clock import ClockSnapshot
from controller.rules.actions import Action
from controller.rules.cards import Card


@dataclass(frozen=True, slots=True)
class Choice:
    """One way the dealer or floor may resolve a prompt, with the rule that allows it."""

    key: str  # what the console sends back, e.g. "misdeal", "continue", "kill_hand"
    text: str
    rule: str | None = None


# ---------------------------------------------------------------- seats
@dataclass(frozen=True, slots=True)
class SeatTaken:
    """A player sat down at ``seat`` with ``stack`` chips; a player moved from another
    table may bring ``extension_chips`` (time bank) and ``penalty_hands`` still to sit out
    (PEN-5, TOURN-32); None: nothing carried."""

    secret: ClassVar[bool] = False
    seat: int
    player: str
    stack: int
    extension_chips: int | None = None
    penalty_hands: int | None = None
    clock: ClockSnapshot | None = field(default=None, compare=False)  # with carried chips


@dataclass(frozen=True, slots=True)
class SeatLeft:
    """The player at ``seat`` left the table with ``stack`` chips."""

    secret: ClassVar[bool] = False
    seat: int
    player: str
    stack: int


@dataclass(frozen=True, slots=True)
class ChipsAdded:
    """A rebuy or add-on (TOURN-10..12, ``reason`` "rebuy" or "add_on") reached the player
    at ``seat``: the stack went from ``before`` to ``after`` between hands."""

    secret: ClassVar[bool] = False
    seat: int
    player: str
    before: int
    after: int
    reason: str


@dataclass(frozen=True, slots=True)
class SatOut:
    """The player at ``seat`` sits out from the next hand."""

    secret: ClassVar[bool] = False
    seat: int


@dataclass(frozen=True, slots=True)
class CameBack:
    """The player at ``seat`` plays again from the next hand."""

    secret: ClassVar[bool] = False
    seat: int


@dataclass(frozen=True, slots=True)
class PlayerCheckedIn:
    """A player card was read at the seat the floor assigned to that player."""

    secret: ClassVar[bool] = False
    seat: int
    player: str


@dataclass(frozen=True, slots=True)
class WrongSeat:
    """A player card was read at ``seat``, but the floor seated that player elsewhere."""

    secret: ClassVar[bool] = False
    seat: int
    player: str
    assigned: int | None  # None: the player has no seat at this table


@dataclass(frozen=True, slots=True)
class PresenceChanged:
    """A player card arrived at or left its seat's player reader (DEAL-5: at the seat)."""

    secret: ClassVar[bool] = False
    seat: int
    present: bool


# ---------------------------------------------------------------- deck
@dataclass(frozen=True, slots=True)
class DeckEnrolled:
    """A deck's 52 UIDs were mapped to cards and stored as ``version`` (``digest``)."""

    secret: ClassVar[bool] = False
    version: int
    digest: str


@dataclass(frozen=True, slots=True)
class DeckChecked:
    """The deck was counted at the shuffle (CARD-1): what was missing, extra or twice."""

    secret: ClassVar[bool] = False
    complete: bool
    missing: tuple[Card, ...]
    duplicated: tuple[Card, ...]
    unknown: tuple[bytes, ...]  # UIDs not in the deck map: a foreign card

    @property
    def text(self) -> str:
        """The result in words, cards by name, for the dealer."""
        if self.complete:
            return "deck complete: 52 cards"
        parts = []
        if self.missing:
            parts.append("missing " + " ".join(c.symbol() for c in self.missing))
        if self.duplicated:
            parts.append("twice " + " ".join(c.symbol() for c in self.duplicated))
        if self.unknown:
            parts.append(f"{len(self.unknown)} unknown card(s)")
        return "; ".join(parts)


@dataclass(frozen=True, slots=True)
class UnknownCard:
    """A UID the deck map does not know was read at ``reader``; it is never guessed."""

    secret: ClassVar[bool] = False
    reader: str
    uid: bytes


# ---------------------------------------------------------------- the hand
@dataclass(frozen=True, slots=True)
class HandStarted:
    """A new hand (DEAL-4): who is where and with what, in engine position order."""

    secret: ClassVar[bool] = False
    hand_no: int
    button: int | None
    small_blind: int | None
    big_blind: int
    dealt: tuple[int, ...]  # seats, index 0 first left of the button, last the button
    stacks: tuple[int, ...]  # before the forced bets, same order
    small_blind_amount: int
    big_blind_amount: int
    ante: int


@dataclass(frozen=True, slots=True)
class HoleCardsDealt:
    """A seat's hole cards as read at its reader. Secret: the secure topic only."""

    secret: ClassVar[bool] = True
    hand_no: int
    seat: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class CardBurned:
    """A burn card went to the muck before a street (CARD-8). Secret: it is face down."""

    secret: ClassVar[bool] = True
    hand_no: int
    card: Card


@dataclass(frozen=True, slots=True)
class BoardDealt:
    """The flop, turn or river, as read at the board reader."""

    secret: ClassVar[bool] = False
    hand_no: int
    street: str
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class ActionAccepted:
    """A betting or showdown action the engine accepted; ``seat`` is the table seat."""

    secret: ClassVar[bool] = False
    hand_no: int
    seat: int
    action: Action
    source: str  # "console", "chips", "muck", "held" (LIVE-12), "auto" (a dead hand)
    returned: int = 0  # chips handed back to the player (LIVE-7, LIVE-8)
    owed: int = 0  # chips the player must still put in (a declared amount, LIVE-3)
    forfeited: int = 0  # chips that stay in the pot though the player folds (LIVE-2/10)
    rule: str | None = None  # the live rule that decided what the chips meant


@dataclass(frozen=True, slots=True)
class ActionHeld:
    """An action out of turn is held (LIVE-12); it binds when the turn comes, or not."""

    secret: ClassVar[bool] = False
    hand_no: int
    seat: int
    what: str


@dataclass(frozen=True, slots=True)
class ActionReleased:
    """A held out-of-turn action no longer binds: the action before it changed (LIVE-12)."""

    secret: ClassVar[bool] = False
    hand_no: int
    seat: int
    what: str


@dataclass(frozen=True, slots=True)
class ActionsUndone:
    """The dealer took back the last actions (before the next card), with the reason."""

    secret: ClassVar[bool] = False
    hand_no: int
    actions: tuple[Action, ...]
    reason: str


@dataclass(frozen=True, slots=True)
class ActionCorrected:
    """The floor replaced a past action; the hand was replayed from its log."""

    secret: ClassVar[bool] = False
    hand_no: int
    index: int
    old: Action
    new: Action
    reason: str


@dataclass(frozen=True, slots=True)
class HandShown:
    """A hand tabled at the showdown (SHOW-2, SHOW-6), with its name (``two pair...``)."""

    secret: ClassVar[bool] = False
    hand_no: int
    seat: int
    cards: tuple[Card, ...]
    description: str


@dataclass(frozen=True, slots=True)
class PotAwarded:
    """One pot, confirmed by the dealer (POT-2, POT-5): ``shares`` are (seat, chips)."""

    secret: ClassVar[bool] = False
    hand_no: int
    pot: int  # 0 main pot, then the side pots
    amount: int
    shares: tuple[tuple[int, int], ...]


@dataclass(frozen=True, slots=True)
class HandEnded:
    """The hand is over: every seat's stack after it, and the rake."""

    secret: ClassVar[bool] = False
    hand_no: int
    stacks: tuple[tuple[int, int], ...]  # (seat, chips)
    rake: int


@dataclass(frozen=True, slots=True)
class MisdealDeclared:
    """The hand is void: cards gathered, bets returned, dealt again (LIVE-25)."""

    secret: ClassVar[bool] = False
    hand_no: int
    reason: str
    rule: str | None


@dataclass(frozen=True, slots=True)
class Irregularity:
    """Something the dealer must resolve, shown with the rule and the allowed choices."""

    secret: ClassVar[bool] = False
    hand_no: int
    kind: str  # "wrong_place", "too_many", "too_few", "empty_seat", "two_readers", ...
    reason: str  # never names a card: ``cards`` does, and makes the event secret
    rule: str | None
    seat: int | None
    choices: tuple[Choice, ...]
    cards: tuple[Card, ...] = ()  # the card(s) concerned, for the dealer's screen

    @property
    def text(self) -> str:
        """For the dealer's screen (the table's own console, never the public topic)."""
        named = " ".join(c.symbol() for c in self.cards)
        return f"{named}: {self.reason}" if named else self.reason


@dataclass(frozen=True, slots=True)
class Rejected:
    """An input the table did not accept, and why; nothing changed."""

    secret: ClassVar[bool] = False
    reason: str
    rule: str | None = None
    source: str = ""


@dataclass(frozen=True, slots=True)
class LevelChanged:
    """The blind level moved on; ``clock``: the clocks as they stand now (for a restart)."""

    secret: ClassVar[bool] = False
    level: int
    small_blind: int
    big_blind: int
    ante: int
    clock: ClockSnapshot | None = field(default=None, compare=False)


# ---------------------------------------------------------------- clocks
@dataclass(frozen=True, slots=True)
class ClockCall:
    """The clock was called on the player at ``seat`` (CLOCK-1/2): ``seconds`` to decide,
    then a ``countdown_s`` countdown; ``caller`` is the dealer or the floor."""

    secret: ClassVar[bool] = False
    hand_no: int
    seat: int
    seconds: float
    countdown_s: int
    caller: str
    rule: str


@dataclass(frozen=True, slots=True)
class ExtensionTaken:
    """The player at ``seat`` spent a time-bank extension chip: ``seconds`` more."""

    secret: ClassVar[bool] = False
    hand_no: int
    seat: int
    player: str
    seconds: float
    chips_left: int


@dataclass(frozen=True, slots=True)
class ClockRuled:
    """The player's time ran out: ``ruling`` is ``check`` or ``fold`` (CLOCK-9, the live
    shot clock's house rule) or ``dead_hand`` after a clock call (CLOCK-3)."""

    secret: ClassVar[bool] = False
    hand_no: int
    seat: int
    ruling: str
    rule: str


@dataclass(frozen=True, slots=True)
class TablePaused:
    """The floor stopped (``paused``) or restarted the table's clocks."""

    secret: ClassVar[bool] = False
    paused: bool
    clock: ClockSnapshot | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class BreakStarted:
    """A break after ``level`` began, ``seconds`` long; no hand starts until it ends.
    ``colour_up``: the chip denominations leaving play at this break (CHIPRACE-*)."""

    secret: ClassVar[bool] = False
    level: int
    seconds: float
    colour_up: tuple[int, ...] = ()
    clock: ClockSnapshot | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class BreakEnded:
    """The break after ``level`` is over; hands may start again."""

    secret: ClassVar[bool] = False
    level: int
    clock: ClockSnapshot | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class ClockSynced:
    """The host's level clock was adopted: ``level`` with ``seconds_left`` (on a break
    when ``on_break``); ``offset_s`` is how far the table's clock was off (+: ahead)."""

    secret: ClassVar[bool] = False
    level: int
    seconds_left: float
    on_break: bool
    offset_s: float
    clock: ClockSnapshot | None = field(default=None, compare=False)


# ---------------------------------------------------------------- tournament play
@dataclass(frozen=True, slots=True)
class PlayerBusted:
    """A tournament player ended hand ``hand_no`` with no chips and left ``seat``."""

    secret: ClassVar[bool] = False
    hand_no: int
    seat: int
    player: str


@dataclass(frozen=True, slots=True)
class PenaltyServed:
    """PEN-4: the player at ``seat``, serving a hands penalty, had hand ``hand_no`` dealt
    and killed; ``hands_left`` still to serve (0: they play from the next hand)."""

    secret: ClassVar[bool] = False
    hand_no: int
    seat: int
    player: str
    hands_left: int


@dataclass(frozen=True, slots=True)
class HandForHandSet:
    """The floor started (``on``) or stopped hand-for-hand play (TOURN-22)."""

    secret: ClassVar[bool] = False
    on: bool


@dataclass(frozen=True, slots=True)
class HandReleased:
    """Hand-for-hand: the floor lets hand ``hand_no`` (one hand) be dealt (TOURN-22)."""

    secret: ClassVar[bool] = False
    hand_no: int


# ---------------------------------------------------------------- colour-up (CHIPRACE-*)
@dataclass(frozen=True, slots=True)
class ColourUpScheduled:
    """The floor scheduled a colour-up of the lowest chips for when ``level`` begins."""

    secret: ClassVar[bool] = False
    level: int


@dataclass(frozen=True, slots=True)
class ColourUpStarted:
    """A colour-up began: chips worth ``leaving`` leave play; ``trigger`` is ``dealer``,
    ``floor`` (scheduled) or ``break`` (the level clock); ``seats`` in race order."""

    secret: ClassVar[bool] = False
    leaving: tuple[int, ...]
    trigger: str
    seats: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class ChipsCounted:
    """The dealer keyed in a seat's leaving chips: ``chips`` are (value, how many)."""

    secret: ClassVar[bool] = False
    seat: int
    chips: tuple[tuple[int, int], ...]


@dataclass(frozen=True, slots=True)
class RaceCardDealt:
    """A race card dealt face up at ``seat`` (CHIPRACE-6.2), read or keyed in."""

    secret: ClassVar[bool] = False
    seat: int
    card: Card
    keyed: bool


@dataclass(frozen=True, slots=True)
class RaceDealtAgain:
    """The race cards were taken back to be dealt again (a misdeal of the race)."""

    secret: ClassVar[bool] = False
    reason: str


@dataclass(frozen=True, slots=True)
class RaceChipsAwarded:
    """The raced chips went to ``winners`` (seat, card); ``rescued`` seats got a chip so
    as not to be raced out (CHIPRACE-3)."""

    secret: ClassVar[bool] = False
    chip: int
    winners: tuple[tuple[int, Card | None], ...]
    rescued: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class ColourUpStepUndone:
    """The dealer took back the last colour-up step (``what``)."""

    secret: ClassVar[bool] = False
    what: str


@dataclass(frozen=True, slots=True)
class ColourUpCancelled:
    """The colour-up was called off before the stacks were confirmed; nothing changed."""

    secret: ClassVar[bool] = False
    reason: str


@dataclass(frozen=True, slots=True)
class StacksColouredUp:
    """The confirmed stacks after a colour-up and chip race: ``stacks`` are (seat, before,
    after); the journal and the host get them as one ``stack_adjusted``."""

    secret: ClassVar[bool] = False
    leaving: tuple[int, ...]
    unit: int  # the lowest chip still in play
    stacks: tuple[tuple[int, int, int], ...]
    note: str


TableEvent = (
    SeatTaken | SeatLeft | ChipsAdded | SatOut | CameBack | PlayerCheckedIn | WrongSeat
    | PresenceChanged
    | DeckEnrolled | DeckChecked | UnknownCard | HandStarted | HoleCardsDealt | CardBurned
    | BoardDealt | ActionAccepted | ActionHeld | ActionReleased | ActionsUndone
    | ActionCorrected | HandShown | PotAwarded | HandEnded | MisdealDeclared | Irregularity
    | Rejected | LevelChanged | ClockCall | ExtensionTaken | ClockRuled | TablePaused
    | BreakStarted | BreakEnded | ClockSynced
    | PlayerBusted | PenaltyServed | HandForHandSet | HandReleased
    | ColourUpScheduled | ColourUpStarted | ChipsCounted | RaceCardDealt | RaceDealtAgain
    | RaceChipsAwarded | ColourUpStepUndone | ColourUpCancelled | StacksColouredUp
)

Sink = Callable[[TableEvent], None]
"""Where the table sends each event (the journal); called before any display changes."""


def is_secret(event: TableEvent) -> bool:
    """True for events that carry hidden cards (the secure topic only, never INFO logs):
    hole cards, burns, and an irregularity that names a card (it may be a hole card)."""
    return type(event).secret or (isinstance(event, Irregularity) and bool(event.cards))
