"""The floor model: what an applied table event changes in the store (tables, seats,
players, stacks, levels, hands and their PHH, the house each table plays).

:mod:`host_bridge.ingest` decides *when* an event is applied (once, in seq order, with its
hole cards); this module says *what* applying it does (:func:`apply_event`, one ``case``
per kind). The kinds in :data:`LOG_ONLY` do not change the floor model (the event log
holds them); :func:`changes_floor` says which do. The rows it changes are plain values in
a :class:`~host_bridge.floor_rows.FloorRows`, read and written in bulk once per batch.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Final, assert_never, cast

from sqlalchemy import select

from controller.events import (
    ActionAccepted,
    ActionCorrected,
    ActionHeld,
    ActionsUndone,
    BoardDealt,
    BreakEnded,
    BreakStarted,
    ButtonPlaced,
    CameBack,
    CardBurned,
    CardRead,
    ChipsCounted,
    ClockCalled,
    ClockSynced,
    ColourUpCancelled,
    ColourUpScheduled,
    ColourUpStarted,
    ColourUpStepUndone,
    DeckReport,
    HandEnded,
    HandForHandSet,
    HandReleased,
    HandShown,
    HandStarted,
    HandVoided,
    HoleDealt,
    HouseSet,
    InputTaken,
    Irregularity,
    LevelSet,
    MisdealDeclared,
    Paused,
    PenaltyServed,
    PlayerBusted,
    PlayerCheckedIn,
    PlayerMoved,
    PlayerRemoved,
    PlayerSeated,
    PotAwarded,
    PublicEvent,
    RaceCardDealt,
    RaceChipsAwarded,
    RaceDealtAgain,
    RakeTaken,
    Rejected,
    Resumed,
    SatOut,
    SeatNodeBack,
    SeatPresence,
    ShotClockReport,
    StackAdjusted,
    TableClosed,
)
from controller.sync.messages import EventMessage
from host_bridge.floor_rows import FloorRows, Row
from host_bridge.hand_history import (
    HAND_LOG_KINDS,
    HandHistoryUnavailable,
    HandLogEvent,
    export_hand,
)
from host_bridge.models import EventRecord, HoleCards

log = logging.getLogger(__name__)

FeedItem = dict[str, Any]

#: events that change nothing in the floor model but the table's cursor (the event log
#: holds them; the feed shows them)
LOG_ONLY: Final = (HoleDealt, ActionAccepted, CardBurned, ActionsUndone, ActionCorrected,
                   ActionHeld, HandShown, PotAwarded, Irregularity, SatOut, CameBack,
                   PenaltyServed, SeatPresence, PlayerCheckedIn, ShotClockReport,
                   HandReleased, DeckReport, Rejected, ColourUpStarted, ChipsCounted,
                   RaceCardDealt, RaceDealtAgain, RaceChipsAwarded, ColourUpStepUndone,
                   ColourUpCancelled, SeatNodeBack, ButtonPlaced, InputTaken, CardRead)
#: events that end the hand in progress
HAND_OVER: Final = (HandEnded, HandVoided, MisdealDeclared)


_LOG_ONLY_TYPES: Final = frozenset(LOG_ONLY)  # events are final classes: one set lookup


def changes_floor(event: PublicEvent) -> bool:
    """Whether applying ``event`` changes the floor model (not one of :data:`LOG_ONLY`)."""
    return type(event) not in _LOG_ONLY_TYPES


@dataclass(slots=True)
class HandLog:
    """A hand's events (those its PHH is rebuilt from) and its hole cards by seq, as the
    ingest applied them; saves reading them back from the store at the export."""

    hand_no: int
    events: list[tuple[int, HandLogEvent]]
    holes: dict[int, list[str | None]]


def apply_event(rows: FloorRows, table_id: str, message: EventMessage, seq: int,
                feed: list[FeedItem], log_: HandLog | None = None) -> None:
    """Apply one event to the floor model (those of :data:`LOG_ONLY` change nothing); a
    ``hand_ended`` feed item (the hand's PHH is ready) goes to ``feed``. ``log_``: the
    hand as applied so far, if the caller kept it whole (else the export reads it from the
    store)."""
    event, ts = message.event, message.ts
    table = rows.table(table_id)
    match event:
        # -- the hand
        case HandStarted():
            _start_hand(rows, table, message, event, seq)
        case BoardDealt(hand_no=hand_no, cards=cards):
            hand = rows.hand(table_id, hand_no)
            if hand is not None:
                hand["board"] = [*hand["board"], *cards]
        case RakeTaken(hand_no=hand_no, rake=rake):  # journaled just before hand_ended
            hand = rows.hand(table_id, hand_no)
            if hand is not None:
                hand["rake"] = rake
        case HandEnded() | HandVoided() | MisdealDeclared():
            _end_hand(rows, table, message, event, seq, feed, log_)
        # -- the seats
        case PlayerSeated():
            rows.ensure_player(event.player, ts)
            rows.seats(table_id)[event.seat] = (event.player, event.stack)
            rows.record_stack(table_id, seq, event.seat, event.player, event.stack, None)
        case PlayerRemoved(seat=seat) | PlayerMoved(seat=seat) | PlayerBusted(seat=seat):
            rows.seats(table_id).pop(seat, None)
        case StackAdjusted():  # a colour-up, rebuy, add-on, correction
            seats = rows.seats(table_id)
            for adjusted in event.seats:
                taken = seats.get(adjusted.seat)
                if taken is None:
                    log.warning("table %s: stack of empty seat %d adjusted at seq %d",
                                table_id, adjusted.seat, seq)
                    continue
                seats[adjusted.seat] = (taken[0], adjusted.after)
                rows.record_stack(table_id, seq, adjusted.seat, taken[0], adjusted.after,
                                  None)
        # -- the clocks
        case Paused() | Resumed():
            table["paused"] = isinstance(event, Paused)
        case LevelSet(level=level):
            _level(rows, table, level, seq, ts)
        case ClockSynced(level=level) | BreakStarted(level=level) | BreakEnded(level=level):
            if level != table["level"]:  # the host's clock moved the table
                _level(rows, table, level, seq, ts)
        case ClockCalled(seat=seat):
            table["clock_on_seat"] = seat
        # -- the floor
        case HandForHandSet(on=on):
            table["hand_for_hand"] = on
        case ColourUpScheduled(level=level):
            table["colour_up_at_level"] = level
        case TableClosed():
            table["closed"] = True
        case HouseSet(house=house):  # the house from the next hand on (issue 18)
            table["house"] = house.model_dump(mode="json")
        case HoleDealt() | ActionAccepted() | CardBurned() | ActionsUndone() \
                | ActionCorrected() | ActionHeld() | HandShown() | PotAwarded() \
                | Irregularity() | SatOut() | CameBack() | PenaltyServed() | SeatPresence() \
                | PlayerCheckedIn() | ShotClockReport() | HandReleased() | DeckReport() \
                | Rejected() | ColourUpStarted() | ChipsCounted() | RaceCardDealt() \
                | RaceDealtAgain() | RaceChipsAwarded() | ColourUpStepUndone() \
                | ColourUpCancelled() | SeatNodeBack() | ButtonPlaced() | InputTaken() \
                | CardRead():
            pass  # LOG_ONLY: the event log already holds what the floor keeps of these
        case _:
            assert_never(event)


def _start_hand(rows: FloorRows, table: Row, message: EventMessage, event: HandStarted,
                seq: int) -> None:
    house = table["house"]
    rows.add_hand({
        "table_id": table["id"], "hand_no": event.hand_no, "boot": message.boot,
        "status": "in_progress", "seats": list(event.seats),
        "start_stacks": list(event.stacks), "end_stacks": None,
        "small_blind": event.small_blind, "big_blind": event.big_blind, "board": [],
        "rake": 0, "unit": house.get("unit") if house else None, "first_seq": seq,
        "last_seq": None, "started_ts": message.ts, "ended_ts": None, "phh": None,
        "phh_public": None, "phh_error": None})
    table["hand_no"] = event.hand_no
    table["hand_in_progress"] = True


def _level(rows: FloorRows, table: Row, level: int, seq: int, ts: float) -> None:
    table["level"] = level
    rows.record_level(table["id"], seq, level, ts)


def _end_hand(rows: FloorRows, table: Row, message: EventMessage,
              event: HandEnded | HandVoided | MisdealDeclared, seq: int,
              feed: list[FeedItem], log_: HandLog | None) -> None:
    table_id = table["id"]
    hand = rows.hand(table_id, event.hand_no)
    table["hand_in_progress"] = False
    table["clock_on_seat"] = None
    if hand is None:
        log.warning("table %s: hand %d ended but never started here", table_id,
                    event.hand_no)
        return
    hand["end_stacks"] = list(event.stacks)
    hand["last_seq"] = seq
    hand["ended_ts"] = message.ts
    seats = rows.seats(table_id)
    for seat_no, chips in zip(hand["seats"], event.stacks, strict=False):
        taken = seats.get(seat_no)
        if taken is not None:
            seats[seat_no] = (taken[0], chips)
        rows.record_stack(table_id, seq, seat_no, taken[0] if taken else None, chips,
                          event.hand_no)
    if isinstance(event, HandEnded):
        hand["status"] = "ended"
        hand["rake"] = event.rake or hand["rake"]  # else the rake_taken's, if one came
        _export(rows, table_id, hand, log_)
        feed.append({"type": "hand_ended", "table": table_id, "hand_no": event.hand_no})
    else:  # a void hand (CRASH-1, DEAL-8) or a misdeal (LIVE-25): no history to export
        hand["status"] = "voided"
        what = "a misdeal" if isinstance(event, MisdealDeclared) else "void"
        hand["phh_error"] = f"the hand was declared {what} ({event.reason}): it has no PHH"


def _hand_log(rows: FloorRows, table_id: str, hand: Row) -> HandLog:
    """The hand's events and hole cards, read back from the store."""
    conn = rows.connection()
    hand_no = hand["hand_no"]
    found = conn.execute(select(EventRecord.seq, EventRecord.payload).where(
        EventRecord.table_id == table_id, EventRecord.seq >= hand["first_seq"],
        EventRecord.seq <= (hand["last_seq"] or hand["first_seq"]),
        EventRecord.kind.in_(HAND_LOG_KINDS)).order_by(EventRecord.seq)).all()
    events: list[tuple[int, HandLogEvent]] = []
    for row in found:
        ev = EventMessage.model_validate_json(row.payload).event
        if getattr(ev, "hand_no", None) == hand_no:
            events.append((row.seq, cast(HandLogEvent, ev)))
    holes = {h.seq: h.cards for h in conn.execute(select(HoleCards.seq, HoleCards.cards)
                                                  .where(HoleCards.table_id == table_id,
                                                         HoleCards.hand_no == hand_no))}
    return HandLog(hand_no, events, holes)


def _export(rows: FloorRows, table_id: str, hand: Row, log_: HandLog | None) -> None:
    if log_ is None or log_.hand_no != hand["hand_no"] or not log_.events or \
            log_.events[0][0] != hand["first_seq"]:
        log_ = _hand_log(rows, table_id, hand)
    seats = rows.seats(table_id)
    players = [taken[0] if (taken := seats.get(seat_no)) else f"seat {seat_no}"
               for seat_no in hand["seats"]]
    try:
        export = export_hand(log_.events, log_.holes, hand["end_stacks"] or [], players)
    except HandHistoryUnavailable as exc:
        hand["phh_error"] = str(exc)
        log.warning("table %s: no PHH for hand %d: %s", table_id, hand["hand_no"], exc)
        return
    except Exception as exc:  # an engine bug must not stop the table's events
        hand["phh_error"] = f"the export failed: {exc!r}"
        log.exception("table %s: the PHH export of hand %d failed", table_id,
                      hand["hand_no"])
        return
    hand["phh"], hand["phh_public"], hand["phh_error"] = export.full, export.public, None
