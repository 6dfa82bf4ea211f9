"""The dealer's, the floor's and the devices' inputs to the live table, as typed intents.

Every input reaches the table as one of these (DESIGN.md data flow 2-3): a card read at a
reader, a key on the dealer's keypad or a tap on the tablet, a host command. The table
hands each to :meth:`controller.table.table.Table.submit`, the one path in; it accepts
(with the events it journaled) or refuses with the rule id and a reason, and nothing
changes on a refusal. The virtual dealer and its bots send exactly these, as a dealer's
terminal does: no caller reaches into the table another way.

Seats are the table's seat numbers; ``seat=None`` means the player to act (or the next
to show). Amounts are chips in the smallest unit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from controller.clocks.house import House
from controller.events import InputSource
from controller.rules.live import Decision, Declaration


# ---------------------------------------------------------------- where an input came from
@dataclass(frozen=True, slots=True)
class Origin:
    """Where an intent came from, for the journal's audit of inputs (``input`` events):
    ``source`` one of ``reader``, ``keypad``, ``tablet``, ``clock``, ``node``; ``what``
    the input in words (the keys pressed, the tap). An intent submitted without an origin
    (the host's commands, the virtual dealer's own calls) is not journaled as an input."""

    source: InputSource
    what: str = ""


# ---------------------------------------------------------------- cards and devices
@dataclass(frozen=True, slots=True)
class CardPlaced:
    """A card's tag became a stable read at ``reader`` (``seat3``, ``board1``, ``muck``,
    ``deck``, ``player3``)."""

    reader: str
    uid: bytes


@dataclass(frozen=True, slots=True)
class CardLifted:
    """A card's tag left ``reader``."""

    reader: str
    uid: bytes


@dataclass(frozen=True, slots=True)
class SeatNodeLost:
    """Seat ``seat``'s node stopped answering: its readers and ring are dark."""

    seat: int


@dataclass(frozen=True, slots=True)
class SeatNodeBack:
    """Seat ``seat``'s node answers again."""

    seat: int


# ---------------------------------------------------------------- the hand
@dataclass(frozen=True, slots=True)
class Deal:
    """The dealer's first shuffle is done: start the next hand (DEAL-4). ``straddle``:
    the seat that put out a straddle before the deal (STRADDLE-1..4: the first player
    left of the big blind, or under ``mississippi`` the button); None: no straddle."""

    straddle: int | None = None


@dataclass(frozen=True, slots=True)
class Fold:
    seat: int | None = None


@dataclass(frozen=True, slots=True)
class Check:
    seat: int | None = None


@dataclass(frozen=True, slots=True)
class Call:
    seat: int | None = None


@dataclass(frozen=True, slots=True)
class RaiseTo:
    """A bet or raise to a total of ``to`` for the round (LIVE-3: verbal and binding).
    ``exact``: the amount the dealer keyed at the terminal is the bet itself, so one the
    engine would not take (below the minimum, over the stack or the limit) is refused
    rather than brought up to the minimum as a stated raise is (LIVE-4)."""

    to: int
    seat: int | None = None
    exact: bool = False


@dataclass(frozen=True, slots=True)
class ChipsPushed:
    """The chips a player pushed in one motion (the total, or each chip's value: LIVE-8,
    LIVE-9) and what they said, if anything; the live rules (LIVE-1..14) say what it
    means."""

    chips: int | tuple[int, ...]
    seat: int | None = None
    said: Declaration | None = None


@dataclass(frozen=True, slots=True)
class Show:
    """The next hand in the showdown order (or ``seat``'s) is tabled (SHOW-6)."""

    seat: int | None = None


@dataclass(frozen=True, slots=True)
class Muck:
    """The next player in the showdown order (or ``seat``) gives up the claim (SHOW-10)."""

    seat: int | None = None
    source: str = "console"


@dataclass(frozen=True, slots=True)
class Confirm:
    """The dealer pushes the next pot to its winners (POT-2)."""


@dataclass(frozen=True, slots=True)
class Undo:
    """Take back the last ``count`` actions of this street, before the next card (DEAL-6)."""

    count: int = 1
    reason: str = ""


@dataclass(frozen=True, slots=True)
class Correct:
    """The floor replaces action ``index`` of the hand's log; the hand is replayed."""

    index: int
    action: Decision
    reason: str


@dataclass(frozen=True, slots=True)
class Choose:
    """The dealer or floor answers the latest open prompt that offers ``option``; the
    ``misdeal`` option is also the dealer's misdeal key (LIVE-25)."""

    option: str


@dataclass(frozen=True, slots=True)
class DeclareMisdeal:
    """Void the hand in play (the floor, or a crash: CRASH-1): bets go back, the same
    positions are dealt again (LIVE-25)."""

    reason: str
    rule: str | None = "LIVE-25"


# ---------------------------------------------------------------- clocks
@dataclass(frozen=True, slots=True)
class CallClock:
    """The clock is called on the player to act (CLOCK-1/2); ``caller``: dealer or floor."""

    seat: int | None = None
    caller: str = "dealer"


@dataclass(frozen=True, slots=True)
class UseTimeBank:
    """The player at ``seat``, on the clock, spends a time-bank extension chip."""

    seat: int


@dataclass(frozen=True, slots=True)
class CountAllIn:
    """The dealer counts an all-in (``on``) or is done: the player's clock waits."""

    on: bool = True


@dataclass(frozen=True, slots=True)
class Pause:
    """The floor stops (``on``) or restarts the table's clocks."""

    on: bool = True


@dataclass(frozen=True, slots=True)
class NextLevel:
    """The floor moves the level on; it applies from the next hand (LEVEL-1)."""


@dataclass(frozen=True, slots=True)
class SyncClock:
    """The host's level clock, the authority: level, time left, on a break or not."""

    level: int
    seconds_left: float
    on_break: bool = False


# ---------------------------------------------------------------- seats and the deck
@dataclass(frozen=True, slots=True)
class TakeSeat:
    """A player sits down; one moved from another table brings ``extension_chips`` and
    ``penalty_hands`` still to serve (PEN-5, TOURN-32). ``buy_in``: the stack is a new
    buy-in, which a cash house's limits bound (CASH-2/7/8); False for chips the player
    already had at this table (a restart seats the journal's players again)."""

    seat: int
    player: str
    stack: int
    extension_chips: int | None = None
    penalty_hands: int | None = None
    buy_in: bool = True


@dataclass(frozen=True, slots=True)
class LeaveSeat:
    seat: int


@dataclass(frozen=True, slots=True)
class AddChips:
    """A rebuy or add-on the floor sold (TOURN-10..12), between hands."""

    seat: int
    player: str
    chips: int
    reason: str


@dataclass(frozen=True, slots=True)
class SitOut:
    seat: int


@dataclass(frozen=True, slots=True)
class ComeBack:
    seat: int


@dataclass(frozen=True, slots=True)
class AssignSeat:
    """The floor's seat assignment, checked when the player card is read."""

    card_uid: bytes
    player: str
    seat: int


@dataclass(frozen=True, slots=True)
class PlaceButton:
    """Where the button starts: a random player in cash (BTN-1), the draw in a
    tournament (BTN-4); only before the table's first hand."""

    seat: int


@dataclass(frozen=True, slots=True)
class NewGame:
    """A fresh start (a new table or event): the next hand is a first hand."""


@dataclass(frozen=True, slots=True)
class BeginEnrolment:
    """Read a new deck at the deck reader, card by card in ``order`` (2c 2d ... As), to
    be saved as ``name`` (None: ``deck-<version>``; a saved deck's name enrols it again)."""

    order: Sequence[int] | None = None
    name: str | None = None


@dataclass(frozen=True, slots=True)
class FinishEnrolment:
    pass


@dataclass(frozen=True, slots=True)
class ChooseDeck:
    """Play with the saved deck ``name`` from the next hand (a deck change between
    hands)."""

    name: str


# ---------------------------------------------------------------- the floor
@dataclass(frozen=True, slots=True)
class SetHouse:
    """Play ``house`` from the next hand (the host's ``set_house``, or the table's first
    boot journaling the house it was built with): refused during a hand (LEVEL-1) and
    for a house of the other kind (a cash house on a tournament table: TOURN-1)."""

    house: House


@dataclass(frozen=True, slots=True)
class SetHandForHand:
    """TOURN-22: the floor turns hand-for-hand on or off."""

    on: bool


@dataclass(frozen=True, slots=True)
class ReleaseHand:
    """TOURN-22: hand-for-hand, the floor lets exactly one more hand be dealt."""


@dataclass(frozen=True, slots=True)
class StartColourUp:
    """A colour-up now (the dealer's key): ``leaving`` defaults to the lowest chip."""

    leaving: tuple[int, ...] = ()
    trigger: str = "dealer"


@dataclass(frozen=True, slots=True)
class ScheduleColourUp:
    """The floor's colour-up of the lowest chips before the first hand of ``level``."""

    level: int


@dataclass(frozen=True, slots=True)
class CountColourUp:
    """The dealer keyed in ``seat``'s leaving chips during a colour-up: how many (one
    denomination leaving) or each denomination's count (CHIPRACE-1)."""

    seat: int
    chips: int | tuple[tuple[int, int], ...]


@dataclass(frozen=True, slots=True)
class KeyRaceCard:
    """The dealer keys in a race card the seat's reader did not read (CHIPRACE-6)."""

    seat: int
    card: str | int


@dataclass(frozen=True, slots=True)
class CancelColourUp:
    """Call the colour-up off before the stacks are confirmed; nothing changes."""

    reason: str


@dataclass(frozen=True, slots=True)
class Key:
    """A key of the dealer's console by name (``deal``, ``undo``, ``misdeal``, ``pause``,
    ``call_clock``, ``next_level``, ``count``, ``colour_up``): what it means depends on
    where the table is, as on the physical keypad."""

    name: str


HandIntent = (Deal | Fold | Check | Call | RaiseTo | ChipsPushed | Show | Muck | Confirm
              | Undo | Correct | Choose | DeclareMisdeal)
ClockIntent = CallClock | UseTimeBank | CountAllIn | Pause | NextLevel | SyncClock
SeatIntent = (TakeSeat | LeaveSeat | AddChips | SitOut | ComeBack | AssignSeat | PlaceButton
              | NewGame | BeginEnrolment | FinishEnrolment | ChooseDeck)
FloorIntent = (SetHouse | SetHandForHand | ReleaseHand | StartColourUp | ScheduleColourUp
               | CountColourUp | KeyRaceCard | CancelColourUp)
DeviceIntent = CardPlaced | CardLifted | SeatNodeLost | SeatNodeBack | Key
Intent = HandIntent | ClockIntent | SeatIntent | FloorIntent | DeviceIntent
"""Everything the table takes in."""
