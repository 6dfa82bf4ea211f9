"""A hand's dispute timeline (issue 21): every input the table took for the hand, in the
order it took them, each with what it became and what came of it, built from the table's
journal as the bridge stored it (:class:`~host_bridge.models.EventRecord`).

The table journals each input *before* it applies it (:mod:`controller.events.inputs`): a
card read at a reader (``card_read``, its card on ``secure/cards`` only), a key or a tap
(``input`` with the intent it became), a shot clock's ruling (``input`` from the clock).
The table takes one input at a time, so an input's outcome is what the journal holds after
it up to the next input: the events it caused (``accepted``), a ``rejected`` with its rule
id and reason (``rejected``), or nothing (``none``: a first hole card waiting for the
rest, a key that did nothing). A change a host command made (it carries a ``command_id``)
is the host's, not the input's, and ends the input's outcome.

Which events are the hand's: from the input that started it (the last input before its
``hand_started``, unless the previous hand ended after that input) to the event that ended
it (``hand_ended``, ``hand_voided`` or ``misdeal``), or to the newest event stored while it
is in play. Inputs after the hand ended belong to the next hand's timeline or to none.

Cards: a read's card is shown only to the roles that may see every hole card of a finished
hand (:data:`host_bridge.ohh.HOLE_CARD_ROLES`: of the roles that read the timeline,
``director`` and ``admin``) and only once the hand is over (CARD-4: hole cards stay face
down during the hand). ``floor`` sees the reader, the seat and the time of every read but
never the card: the repo's rule for hole cards (the OHH export and the PHH route give
``floor`` the public copy) is that only those roles see unshown cards, and a read is a
hole card as often as not. Nothing here logs a card.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Final, Literal

from pydantic import BaseModel, Field
from sqlalchemy import select
from sqlalchemy.orm import Session

from controller.events import (
    ActionAccepted,
    ActionCorrected,
    ActionHeld,
    ActionsUndone,
    BoardDealt,
    ButtonPlaced,
    CardBurned,
    CardRead,
    Change,
    ColourUpStepUndone,
    HandEnded,
    HandShown,
    HandStarted,
    HandVoided,
    HoleDealt,
    InputTaken,
    Irregularity,
    JsonScalar,
    MisdealDeclared,
    PotAwarded,
    PublicEvent,
    Rejected,
    SeatNodeBack,
    ShotClockReport,
)
from controller.sync.messages import EventMessage
from host_bridge.card_reads import UNREAD, cards_read
from host_bridge.models import EventRecord, Hand
from host_bridge.ohh import HOLE_CARD_ROLES, safe_name
from host_bridge.settings import Role

#: the roles that read a hand's timeline: ``floor`` and up (``viewer`` and ``broadcast``
#: are not the floor's staff: 403)
TIMELINE_ROLES: Final = frozenset({Role.FLOOR, Role.DIRECTOR, Role.ADMIN})
#: of those, the roles that see which card each read was, once the hand is over
CARD_ROLES: Final = TIMELINE_ROLES & HOLE_CARD_ROLES
MAX_EVENTS: Final = 5000  # a hand's events at most (a long hand has a few hundred)
_HAND_OVER: Final = ("hand_ended", "hand_voided", "misdeal")
_INPUT: Final = "input"

Source = Literal["reader", "keypad", "tablet", "clock", "node", "host", "table"]
Category = Literal["input", "read", "refusal", "correction", "undo", "prompt", "misdeal",
                   "action", "deal", "result", "other"]
Outcome = Literal["accepted", "rejected", "none"]
EXPORTS: Final = ("csv", "txt", "json")
Export = Literal["csv", "txt", "json"]


class TimelineEntry(BaseModel):
    """One event of the hand's journal, in seq order."""

    seq: int = Field(description="the table's seq of the event")
    ts: float = Field(description="when the table sent it (its wall clock, epoch seconds)")
    at: float | None = Field(description="the table's clock (monotonic seconds) when it took "
                             "the input: differences between inputs are exact; null for "
                             "an event that is not an input")
    source: Source = Field(description="where it came from: the input's own source; an "
                           "event an input caused has its input's; host: a floor command; "
                           "table: the table's own doing")
    kind: str = Field(description="the event's kind in the table's vocabulary")
    category: Category
    what: str = Field(description="what happened, in words")
    intent: str | None = Field(default=None, description="an input: the intent it became")
    fields: dict[str, JsonScalar] = Field(default_factory=dict,
                                          description="an input: the intent's fields")
    reader: str | None = None
    seat: int | None = None
    card: str | None = Field(default=None, description="a read's card: only for director "
                             "and admin, and only once the hand is over")
    outcome: Outcome | None = Field(default=None, description="an input: accepted (events "
                                    "followed), rejected (with rule and reason), none "
                                    "(nothing followed)")
    rule: str | None = Field(default=None, description="the rule id of a refusal, a prompt, "
                             "a misdeal, a ruling or a live-rule action")
    reason: str | None = None
    caused_by: int | None = Field(default=None,
                                  description="the seq of the input this event came of")
    results: list[int] = Field(default_factory=list,
                               description="an input: the seqs of the events it caused")


class TimelinePublic(BaseModel):
    """A hand's dispute timeline."""

    table_id: str
    hand_no: int
    status: str = Field(description="in_progress, ended or voided")
    first_seq: int = Field(description="the first seq of the timeline (the input that "
                           "started the hand, or its hand_started)")
    last_seq: int | None = Field(description="the last seq shown (null: none stored)")
    cards_shown: bool = Field(description="whether the reads' cards are given")
    cards_note: str = Field(description="why the reads' cards are given or not")
    truncated: bool = Field(False, description=f"more than {MAX_EVENTS} events: cut there")
    count: int
    entries: list[TimelineEntry]


# ---------------------------------------------------------------- building it
def may_see_cards(role: Role, hand: Hand) -> bool:
    """Whether ``role`` sees the reads' cards of ``hand``: a role that sees every hole card
    of a finished hand, once the hand is over (CARD-4)."""
    return role in CARD_ROLES and hand.status != "in_progress"


def cards_note(role: Role, hand: Hand) -> str:
    """Why the reads' cards are shown or not, in words."""
    if may_see_cards(role, hand):
        return "each read's card is shown: the hand is over and this role sees hole cards"
    if role in CARD_ROLES:
        return "the cards read are withheld while the hand is in play (CARD-4)"
    return (f"the cards read are withheld from the {role.value} role: only director and "
            "admin see them, once the hand is over")


def _opening_seq(session: Session, hand: Hand) -> int:
    """The seq the timeline starts at: the input that started the hand, if the previous
    hand did not end after it; else the hand's ``hand_started``."""
    first = hand.first_seq
    opening = session.scalar(select(EventRecord.seq).where(
        EventRecord.table_id == hand.table_id, EventRecord.seq < first,
        EventRecord.kind == _INPUT).order_by(EventRecord.seq.desc()).limit(1))
    if opening is None:
        return first
    ended_since = session.scalar(select(EventRecord.seq).where(
        EventRecord.table_id == hand.table_id, EventRecord.seq > opening,
        EventRecord.seq < first, EventRecord.kind.in_(_HAND_OVER)).limit(1))
    return first if ended_since is not None else opening


def build_timeline(session: Session, hand: Hand, role: Role) -> TimelinePublic:
    """``hand``'s timeline as ``role`` may see it (see the module docstring)."""
    start = _opening_seq(session, hand)
    query = select(EventRecord.seq, EventRecord.payload).where(
        EventRecord.table_id == hand.table_id, EventRecord.seq >= start)
    if hand.last_seq is not None:
        query = query.where(EventRecord.seq <= hand.last_seq)
    rows = session.execute(query.order_by(EventRecord.seq).limit(MAX_EVENTS + 1)).all()
    truncated = len(rows) > MAX_EVENTS
    stored = [(seq, EventMessage.model_validate_json(payload)) for seq, payload in
              rows[:MAX_EVENTS]]
    shown = may_see_cards(role, hand)
    cards = cards_read(session, hand.table_id, (seq for seq, m in stored
                                                if isinstance(m.event, CardRead))
                       ) if shown else {}
    entries = entries_of(((seq, m.ts, m.event) for seq, m in stored), cards)
    return TimelinePublic(
        table_id=hand.table_id, hand_no=hand.hand_no, status=hand.status, first_seq=start,
        last_seq=entries[-1].seq if entries else None, cards_shown=shown,
        cards_note=cards_note(role, hand), truncated=truncated, count=len(entries),
        entries=entries)


def entries_of(events: Iterable[tuple[int, float, PublicEvent]],
               cards: dict[int, str]) -> list[TimelineEntry]:
    """The entries of ``events`` (seq, ts, event) in seq order, each caused event tied to
    the input before it; ``cards`` the reads' cards to show, by seq."""
    entries: list[TimelineEntry] = []
    seats: tuple[int, ...] = ()
    opened: TimelineEntry | None = None  # the input whose outcome is being collected
    for seq, ts, event in events:
        if isinstance(event, HandStarted):
            seats = event.seats
        entry = _entry(seq, ts, event, seats, cards)
        if entry.category in ("input", "read"):
            opened = entry
        elif isinstance(event, Change) and event.command_id is not None:
            entry.source, opened = "host", None  # a floor command's doing, not the input's
        elif opened is not None:
            entry.source, entry.caused_by = opened.source, opened.seq
            opened.results.append(seq)
            if isinstance(event, Rejected) and opened.outcome != "accepted":
                opened.outcome, opened.rule, opened.reason = "rejected", event.rule, event.reason
            elif not isinstance(event, Rejected):
                opened.outcome, opened.rule, opened.reason = "accepted", None, None
        entries.append(entry)
    return entries


def _seat_of(player: int, seats: Sequence[int]) -> str:
    """A player (position in the hand) as the seat they sit in."""
    return f"seat {seats[player]}" if 0 <= player < len(seats) else f"player {player}"


def _move(action: ActionAccepted, seats: Sequence[int]) -> str:
    who = _seat_of(action.player, seats)
    match action.action:
        case "bet_raise":
            return f"{who} bets/raises to {action.amount}"
        case "call":
            return f"{who} calls {action.amount}"
        case "show":
            return f"{who} shows {' '.join(action.cards)}"
        case "kill":
            return f"{who}'s hand is killed"
        case other:
            return f"{who} {other}s" if other != "muck" else f"{who} mucks"


def _entry(seq: int, ts: float, event: PublicEvent, seats: Sequence[int],
           cards: dict[int, str]) -> TimelineEntry:
    """One event as an entry, its words from its typed fields (never a hidden card)."""
    category: Category = "other"
    match event:
        case InputTaken():
            return TimelineEntry(
                seq=seq, ts=ts, kind=event.kind, source=event.source, at=event.at,
                category="input",
                what=event.what, intent=event.intent or None, fields=dict(event.fields),
                reader=event.reader, seat=event.seat, outcome="none")
        case CardRead():
            card = cards.get(seq)
            said = "" if card is None or card == UNREAD else f": {card}"
            where = f"seat {event.seat}" if event.seat else "the table"
            return TimelineEntry(
                seq=seq, ts=ts, kind=event.kind, source="reader", at=event.at,
                category="read",
                what=f"card read at {where} (reader {event.reader}){said}",
                reader=event.reader,
                seat=event.seat, card=None if card == UNREAD else card, outcome="none")
        case Rejected():  # nothing changed; the rule that refused it
            category, what = "refusal", f"refused: {event.reason}"
        case ActionAccepted():
            category, what = "action", _move(event, seats)
        case ActionsUndone():  # DEAL-6: the dealer took back the street's last actions
            category = "undo"
            what = "undone: " + "; ".join(_move(a, seats) for a in event.actions)
            what += f" ({event.reason})" if event.reason else ""
        case ColourUpStepUndone():
            category, what = "undo", "the colour-up's last step undone"
        case ActionCorrected():
            category = "correction"
            what = (f"log entry #{event.index} corrected: {_move(event.old, seats)} -> "
                    f"{_move(event.new, seats)}")
            what += f" ({event.reason})" if event.reason else ""
            if event.replayed:
                what += f"; {len(event.replayed)} later entries replayed"
        case ActionHeld():  # LIVE-12
            category = "prompt"
            what = (f"seat {event.seat}'s {event.what} out of turn "
                    f"{'released' if event.released else 'held'}")
        case Irregularity():
            category = "prompt"
            what = f"prompt: {event.reason}"
            if event.choices:
                what += f" (choices: {', '.join(event.choices)})"
        case MisdealDeclared():  # LIVE-25
            category, what = "misdeal", f"misdeal: {event.reason}"
        case HandVoided():  # CRASH-1, DEAL-8
            category, what = "misdeal", f"hand void: {event.reason}"
        case HandStarted():
            category = "deal"
            what = (f"hand {event.hand_no} started: seats {', '.join(map(str, event.seats))}"
                    f", blinds {event.small_blind}/{event.big_blind}"
                    + (f", button seat {event.button}" if event.button else ""))
        case HoleDealt():
            category, what = "deal", f"{_seat_of(event.player, seats)} dealt {event.count} cards"
        case BoardDealt():
            category, what = "deal", f"{event.street or 'board'}: {' '.join(event.cards)}"
        case CardBurned():  # CARD-8; the card itself is never shown
            category, what = "deal", "a card burned"
        case HandShown():
            category = "result"
            what = f"{_seat_of(event.player, seats)} shows {' '.join(event.cards)}"
            what += f", {event.description}" if event.description else ""
        case PotAwarded():
            category = "result"
            pot = f"side pot {event.pot}" if event.pot else "main pot"
            what = f"{pot} of {event.amount} to " + ", ".join(
                f"{_seat_of(p, seats)} ({chips})" for p, chips in event.shares)
        case HandEnded():
            category, what = "result", f"hand {event.hand_no} ended, rake {event.rake}"
        case ShotClockReport():
            what = (f"shot clock, seat {event.seat}: "
                    + (f"ruled {event.ruling}" if event.what == "ruled"
                       else f"extension of {event.seconds:g} s"))
        case ButtonPlaced():
            what = f"button placed at seat {event.seat}"
        case SeatNodeBack():
            what = f"seat {event.seat}'s node answers again"
        case _:
            what = event.kind.replace("_", " ")
    seat, rule, reason = (getattr(event, name, None) for name in ("seat", "rule", "reason"))
    return TimelineEntry(seq=seq, ts=ts, kind=event.kind, source="table", at=None,
                         category=category, what=what,
                         seat=seat if isinstance(seat, int) else None,
                         rule=rule if isinstance(rule, str) else None,
                         reason=reason if isinstance(reason, str) and reason else None)


# ---------------------------------------------------------------- the files
COLUMNS: Final = ("seq", "time_utc", "ts", "at", "source", "kind", "category", "what",
                  "intent", "fields", "reader", "seat", "card", "outcome", "rule", "reason",
                  "caused_by", "results")


def utc_time(ts: float) -> str:
    """A wall-clock time as ISO 8601 UTC with milliseconds."""
    return datetime.fromtimestamp(ts, UTC).isoformat(timespec="milliseconds").replace(
        "+00:00", "Z")


def row_of(entry: TimelineEntry) -> dict[str, str]:
    """An entry as one CSV row of text (empty for none)."""
    values: dict[str, object] = entry.model_dump()
    values["time_utc"] = utc_time(entry.ts)
    values["fields"] = json.dumps(entry.fields, sort_keys=True) if entry.fields else ""
    values["results"] = " ".join(map(str, entry.results))
    return {c: "" if values[c] is None else _cell(values[c]) for c in COLUMNS}


def _cell(value: object) -> str:
    """A cell's text; text a spreadsheet would run as a formula gets a leading quote."""
    text = repr(value) if isinstance(value, float) else str(value)
    if isinstance(value, str) and text[:1] in ("=", "+", "-", "@"):
        return "'" + text
    return text


def timeline_file(timeline: TimelinePublic, export: Export) -> str:
    """The timeline as a file to attach to a ruling: CSV (one row an entry), text (one
    line an entry, a header naming the hand) or JSON (the route's body)."""
    if export == "json":
        return timeline.model_dump_json(indent=2) + "\n"
    if export == "csv":
        out = io.StringIO()
        writer = csv.DictWriter(out, COLUMNS, lineterminator="\r\n")
        writer.writeheader()
        writer.writerows(row_of(e) for e in timeline.entries)
        return out.getvalue()
    lines = [f"Dispute timeline: table {timeline.table_id}, hand {timeline.hand_no} "
             f"({timeline.status}), seq {timeline.first_seq} to {timeline.last_seq}",
             f"Cards: {timeline.cards_note}", ""]
    for e in timeline.entries:
        verdict = ""
        if e.outcome == "rejected":
            verdict = f"  => REFUSED {e.rule or '(no rule)'}: {e.reason}"
        elif e.outcome == "accepted":
            verdict = f"  => accepted (seq {', '.join(map(str, e.results))})"
        lead = "   " if e.caused_by is not None else ""
        clock = f"{e.at:10.3f}" if e.at is not None else " " * 10
        intent = f" [{e.intent}]" if e.intent else ""
        lines.append(f"{e.seq:>6} {utc_time(e.ts)} {clock} {e.source:<7} {lead}{e.what}"
                     f"{intent}{verdict}")
    return "\n".join(lines) + "\n"


def file_name(table_id: str, hand_no: int, export: Export) -> str:
    """The download's name: ``{table}-{hand}-timeline.{ext}`` (ASCII)."""
    return f"{safe_name(table_id)}-{hand_no}-timeline.{export}"
