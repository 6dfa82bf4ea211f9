"""What the floor's alert board keeps of each table's events (issue 20): a
:class:`TableWatch` per table, folded from the typed events the bridge stored, in seq order.

The table tells the floor what happens, not when a prompt on the dealer's screen is
answered, so a watch decides when a condition is over from what the table does next:

* a prompt (an ``irregularity``) opened during a hand is over when that hand ends, is void
  or is misdealt (the table drops its prompts then); one opened between hands when the
  next hand starts or the colour-up it came from ends; a ``choice`` prompt (how to read
  a bet) when the next action is accepted;
* a seat node is back with ``seat_node_back``;
* a reader's fault (a card read at two readers, a tag not of the deck in play) lasts to
  the end of the hand; a short deck count until a complete count, a deck enrolled or
  chosen, or the next hand (the floor's "deal anyway");
* the clock called on a seat until that seat acts, its shot clock rules or the hand ends;
  a shot clock's ruling until the hand ends;
* a pause until ``resumed``; a colour-up until its ``stack_adjusted`` or its cancel; the
  table's own break until ``break_ended``; everything once the table is closed.

Each condition keeps when it began (``at``: the bridge's clock when the event was heard,
or the table's own time when the watch is rebuilt from the store). Pure: no I/O.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from statistics import median

from controller.events import (
    SEAT_NODE_OFFLINE,
    ActionAccepted,
    BreakEnded,
    BreakStarted,
    ClockCalled,
    ClockSynced,
    ColourUpCancelled,
    ColourUpStarted,
    DeckReport,
    HandEnded,
    HandStarted,
    HandVoided,
    Irregularity,
    MisdealDeclared,
    Paused,
    PublicEvent,
    Resumed,
    SeatNodeBack,
    ShotClockReport,
    StackAdjusted,
    TableClosed,
)

#: prompts that say a device is at fault, not the play: the board shows them as faults
DEVICE_PROMPTS = frozenset({"two_readers", "foreign_card", "deck_count"})
#: hands kept per table for its median hand time
DURATIONS = 25
#: the median counts once a table has played this many hands here
MEDIAN_AFTER = 5

WhoSent = Callable[[str], str | None]
"""Who sent the host command with this id ("floor-1 (floor)"); None if unknown."""


@dataclass(slots=True)
class Prompt:
    """A prompt on the dealer's screen, as its ``irregularity`` said."""

    hand_no: int
    what: str
    reason: str
    rule: str | None
    seat: int | None
    in_hand: bool  # opened during a hand (over with it), else between hands
    at: float


@dataclass(slots=True)
class OpenHand:
    """The hand in play: its seats in position order, when it began here (``at``) and by
    the table's own clock (``ts``, for its length)."""

    hand_no: int
    seats: tuple[int, ...]
    at: float
    ts: float


@dataclass(slots=True)
class Since:
    """A condition with a one-line description and when it began."""

    text: str
    at: float


@dataclass(slots=True)
class TableWatch:
    """One table's conditions, as its events left them."""

    table: str
    paused: Since | None = None  # text: who paused it ("" when unknown)
    closed: bool = False
    on_break: Since | None = None  # the table's own break (text: after which level)
    colour_up: Since | None = None
    hand: OpenHand | None = None
    durations: deque[float] = field(default_factory=lambda: deque(maxlen=DURATIONS))
    prompts: list[Prompt] = field(default_factory=list)
    clock_on: tuple[int, float] | None = None  # (seat, at)
    shot: Since | None = None
    nodes: dict[int, float] = field(default_factory=dict)  # seat -> since
    faults: dict[str, Since] = field(default_factory=dict)  # "deck", "reader:<name>"

    # -- reading ---------------------------------------------------------------------------
    def median_hand_s(self) -> float | None:
        """The table's median hand length (its own clock), once it has played enough."""
        return median(self.durations) if len(self.durations) >= MEDIAN_AFTER else None

    # -- folding -----------------------------------------------------------------------------
    def fold(self, event: PublicEvent, ts: float, at: float, who: WhoSent) -> None:
        """Apply one stored event (``ts``: the table's time of it; ``at``: when the board
        heard it)."""
        match event:
            case HandStarted(hand_no=n, seats=seats):
                self.hand = OpenHand(n, tuple(seats), at, ts)
                self.prompts = [p for p in self.prompts if p.in_hand and p.hand_no >= n]
                self.clock_on = self.shot = None
                self.faults.clear()  # a reader's fault, or a short deck dealt anyway
            case HandEnded(hand_no=n):
                if self.hand is not None and self.hand.hand_no == n:
                    self.durations.append(max(0.0, ts - self.hand.ts))
                self._hand_over(n)
            case HandVoided(hand_no=n) | MisdealDeclared(hand_no=n):
                self._hand_over(n)
            case ActionAccepted(player=player):
                self._acted(player)
            case ClockCalled(seat=seat):
                self.clock_on = (seat, at)
            case ShotClockReport(what="ruled", seat=seat, ruling=ruling, rule=rule):
                ruled = f"ruled {ruling}" if ruling else "ruled"
                self.shot = Since(f"seat {seat}'s time ran out: {ruled}"
                                  + (f" ({rule})" if rule else ""), at)
                if self.clock_on is not None and self.clock_on[0] == seat:
                    self.clock_on = None
            case Irregularity():
                self._irregularity(event, at)
            case SeatNodeBack(seat=seat):
                self.nodes.pop(seat, None)
            case DeckReport():
                self._deck(event, at)
            case Paused(command_id=command_id):
                by = who(command_id) if command_id else None
                self.paused = Since(by or "", at)
            case Resumed():
                self.paused = None
            case BreakStarted(level=level):
                self.on_break = Since(f"after level {level}", at)
            case ClockSynced(on_break=True, level=level):
                if self.on_break is None:
                    self.on_break = Since(f"after level {level}", at)
            case BreakEnded() | ClockSynced():
                self.on_break = None
            case ColourUpStarted():
                self.colour_up = Since("", at)
            case ColourUpCancelled() | StackAdjusted(reason="colour_up"):
                self.colour_up = None
                self.prompts = [p for p in self.prompts if p.in_hand]
            case TableClosed():
                self._close()
            case _:
                pass  # nothing the floor is alerted to

    def _hand_over(self, hand_no: int) -> None:
        self.hand = None
        self.prompts = [p for p in self.prompts if not (p.in_hand and p.hand_no <= hand_no)]
        self.clock_on = self.shot = None
        for key in [k for k in self.faults if k.startswith("reader:")]:
            del self.faults[key]

    def _acted(self, player: int) -> None:
        hand = self.hand
        seat = hand.seats[player] if hand is not None and player < len(hand.seats) else None
        if self.clock_on is not None and self.clock_on[0] == seat:
            self.clock_on = None
        self.prompts = [p for p in self.prompts if p.what != "choice"]

    def _irregularity(self, event: Irregularity, at: float) -> None:
        if event.what == SEAT_NODE_OFFLINE and event.seat is not None:
            self.nodes.setdefault(event.seat, at)
            return
        rule = f" ({event.rule})" if event.rule else ""
        if event.what in DEVICE_PROMPTS:
            key = "deck" if event.what == "deck_count" else f"reader:{event.seat or '?'}"
            self.faults.setdefault(key, Since(f"{event.reason}{rule}", at))
            return
        hand = self.hand
        in_hand = hand is not None and event.hand_no == hand.hand_no
        self.prompts.append(Prompt(event.hand_no, event.what, event.reason, event.rule,
                                   event.seat, in_hand, at))

    def _deck(self, event: DeckReport, at: float) -> None:
        match event.what:
            case "checked" if event.complete is False:
                found = [f"{n} {what}" for n, what in (
                    (event.missing, "missing"), (event.duplicated, "read twice"),
                    (event.foreign, "of another deck"), (event.unknown, "unknown"))
                    if n] or ["incomplete"]
                self.faults["deck"] = Since(f"the deck count is short: {', '.join(found)} "
                                            "(CARD-1)", at)
            case "checked" | "enrolled" | "chosen":
                self.faults.pop("deck", None)
            case "unknown_card":
                self.faults.setdefault(f"reader:{event.reader}", Since(
                    f"reader {event.reader} read a tag that is no card of the deck in play "
                    "(CARD-1)", at))
            case "foreign_card":
                self.faults.setdefault(f"reader:{event.reader}", Since(
                    f"reader {event.reader} read a card of deck {event.name} (CARD-1)", at))

    def _close(self) -> None:
        self.closed = True
        self.paused = self.on_break = self.colour_up = self.shot = None
        self.hand = self.clock_on = None
        self.prompts.clear()
        self.nodes.clear()
        self.faults.clear()
