"""The floor model: what an applied table event changes in the store (tables, seats,
players, stacks, levels, hands and their PHH, the house each table plays).

:mod:`host_bridge.ingest` decides *when* an event is applied (once, in seq order, with its
hole cards); this module says *what* applying it does (:func:`apply_event`, one ``case``
per kind). The kinds in :data:`LOG_ONLY` do not change the floor model (the event log
holds them); :func:`changes_floor` says which do.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Final, assert_never, cast

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

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
from host_bridge.hand_history import (
    HAND_LOG_KINDS,
    HandHistoryUnavailable,
    HandLogEvent,
    export_hand,
)
from host_bridge.models import (
    EventRecord,
    Hand,
    HoleCards,
    LevelRecord,
    Player,
    PokerTable,
    Seat,
    StackRecord,
)

log = logging.getLogger(__name__)

FeedItem = dict[str, Any]

#: session.info key: (table, hand_no) -> the open Hand rows of the batch's tables
OPEN_HANDS = "pitboss.open_hands"
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


def changes_floor(event: PublicEvent) -> bool:
    """Whether applying ``event`` changes the floor model (not one of :data:`LOG_ONLY`)."""
    return not isinstance(event, LOG_ONLY)


@dataclass(slots=True)
class HandLog:
    """A hand's events (those its PHH is rebuilt from) and its hole cards by seq, as the
    ingest applied them; saves reading them back from the store at the export."""

    hand_no: int
    events: list[tuple[int, HandLogEvent]]
    holes: dict[int, list[str | None]]


def table_row(session: Session, table_id: str) -> PokerTable:
    """The table's row, created (and flushed) at its first sight."""
    table = session.get(PokerTable, table_id)
    if table is None:
        table = PokerTable(id=table_id, online=False, acked_seq=0, level=1, paused=False,
                           hand_for_hand=False, closed=False, hand_no=0,
                           hand_in_progress=False)
        session.add(table)
        session.flush()
    return table


def apply_event(session: Session, table: PokerTable, message: EventMessage, seq: int,
                feed: list[FeedItem], log_: HandLog | None = None) -> None:
    """Apply one event to the floor model (those of :data:`LOG_ONLY` change nothing); a
    ``hand_ended`` feed item (the hand's PHH is ready) goes to ``feed``. ``log_``: the
    hand as applied so far, if the caller kept it whole (else the export reads it from the
    store)."""
    event, ts = message.event, message.ts
    match event:
        # -- the hand
        case HandStarted():
            _start_hand(session, table, message, event, seq)
        case BoardDealt(hand_no=hand_no, cards=cards):
            hand = _hand(session, table.id, hand_no)
            if hand is not None:
                hand.board = [*hand.board, *cards]
        case RakeTaken(hand_no=hand_no, rake=rake):  # journaled just before hand_ended
            hand = _hand(session, table.id, hand_no)
            if hand is not None:
                hand.rake = rake
        case HandEnded() | HandVoided() | MisdealDeclared():
            _end_hand(session, table, message, event, seq, feed, log_)
        # -- the seats
        case PlayerSeated():
            _seat(session, table, event, seq, ts)
            session.flush()  # seats and players are looked up by key (session.get) later on
        case PlayerRemoved(seat=seat) | PlayerMoved(seat=seat) | PlayerBusted(seat=seat):
            session.execute(delete(Seat).where(Seat.table_id == table.id, Seat.seat == seat))
            session.flush()
        case StackAdjusted():  # a colour-up, rebuy, add-on, correction
            for adjusted in event.seats:
                seat_row = session.get(Seat, (table.id, adjusted.seat))
                if seat_row is None:
                    log.warning("table %s: stack of empty seat %d adjusted at seq %d",
                                table.id, adjusted.seat, seq)
                    continue
                seat_row.stack = adjusted.after
                session.add(StackRecord(table_id=table.id, seq=seq, seat=adjusted.seat,
                                        player_id=seat_row.player_id, chips=adjusted.after,
                                        hand_no=None))
        # -- the clocks
        case Paused() | Resumed():
            table.paused = isinstance(event, Paused)
        case LevelSet(level=level):
            _level(session, table, level, seq, ts)
        case ClockSynced(level=level) | BreakStarted(level=level) | BreakEnded(level=level):
            if level != table.level:  # the host's clock moved the table
                _level(session, table, level, seq, ts)
        case ClockCalled(seat=seat):
            table.clock_on_seat = seat
        # -- the floor
        case HandForHandSet(on=on):
            table.hand_for_hand = on
        case ColourUpScheduled(level=level):
            table.colour_up_at_level = level
        case TableClosed():
            table.closed = True
        case HouseSet(house=house):  # the house from the next hand on (issue 18)
            table.house = house.model_dump(mode="json")
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


def _start_hand(session: Session, table: PokerTable, message: EventMessage,
                event: HandStarted, seq: int) -> None:
    old = _hand(session, table.id, event.hand_no)
    if old is not None:  # the table started this hand again: the new start stands
        session.delete(old)
        session.flush()
    started = Hand(table_id=table.id, hand_no=event.hand_no, boot=message.boot,
                   status="in_progress", seats=list(event.seats),
                   start_stacks=list(event.stacks), end_stacks=None,
                   small_blind=event.small_blind, big_blind=event.big_blind, board=[],
                   rake=0, first_seq=seq, started_ts=message.ts,
                   unit=table.house.get("unit") if table.house else None)
    session.add(started)
    if OPEN_HANDS in session.info:
        session.info[OPEN_HANDS][(table.id, event.hand_no)] = started
    table.hand_no = event.hand_no
    table.hand_in_progress = True


def _level(session: Session, table: PokerTable, level: int, seq: int, ts: float) -> None:
    table.level = level
    session.add(LevelRecord(table_id=table.id, seq=seq, level=level, ts=ts))


def _seat(session: Session, table: PokerTable, event: PlayerSeated, seq: int,
          ts: float) -> None:
    if session.get(Player, event.player) is None:
        session.add(Player(id=event.player, first_seen_ts=ts))
        session.flush()
    seat = session.get(Seat, (table.id, event.seat))
    if seat is None:
        session.add(Seat(table_id=table.id, seat=event.seat, player_id=event.player,
                         stack=event.stack))
    else:
        seat.player_id, seat.stack = event.player, event.stack
    session.add(StackRecord(table_id=table.id, seq=seq, seat=event.seat,
                            player_id=event.player, chips=event.stack, hand_no=None))


def _end_hand(session: Session, table: PokerTable, message: EventMessage,
              event: HandEnded | HandVoided | MisdealDeclared, seq: int,
              feed: list[FeedItem], log_: HandLog | None) -> None:
    hand = _hand(session, table.id, event.hand_no)
    table.hand_in_progress = False
    table.clock_on_seat = None
    if hand is None:
        log.warning("table %s: hand %d ended but never started here", table.id,
                    event.hand_no)
        return
    hand.end_stacks = list(event.stacks)
    hand.last_seq = seq
    hand.ended_ts = message.ts
    _settle(session, table, hand, seq)
    if isinstance(event, HandEnded):
        hand.status = "ended"
        hand.rake = event.rake or hand.rake  # else the rake_taken's, if one came
        _export(session, table, hand, log_)
        feed.append({"type": "hand_ended", "table": table.id, "hand_no": hand.hand_no})
    else:  # a void hand (CRASH-1, DEAL-8) or a misdeal (LIVE-25): no history to export
        hand.status = "voided"
        what = "a misdeal" if isinstance(event, MisdealDeclared) else "void"
        hand.phh_error = f"the hand was declared {what} ({event.reason}): it has no PHH"


def _hand(session: Session, table_id: str, hand_no: int) -> Hand | None:
    known = session.info.get(OPEN_HANDS, {}).get((table_id, hand_no))
    if known is not None:
        return cast(Hand, known)
    return session.scalar(select(Hand).where(Hand.table_id == table_id,
                                             Hand.hand_no == hand_no))


def _settle(session: Session, table: PokerTable, hand: Hand, seq: int) -> None:
    for seat_no, chips in zip(hand.seats, hand.end_stacks or [], strict=False):
        seat = session.get(Seat, (table.id, seat_no))
        if seat is not None:
            seat.stack = chips
        session.add(StackRecord(table_id=table.id, seq=seq, seat=seat_no,
                                player_id=seat.player_id if seat else None, chips=chips,
                                hand_no=hand.hand_no))


def _hand_log(session: Session, table: PokerTable, hand: Hand) -> HandLog:
    """The hand's events and hole cards, read back from the store."""
    rows = session.execute(select(EventRecord.seq, EventRecord.payload).where(
        EventRecord.table_id == table.id, EventRecord.seq >= hand.first_seq,
        EventRecord.seq <= (hand.last_seq or hand.first_seq),
        EventRecord.kind.in_(HAND_LOG_KINDS)).order_by(EventRecord.seq)).all()
    events: list[tuple[int, HandLogEvent]] = []
    for row in rows:
        ev = EventMessage.model_validate_json(row.payload).event
        if getattr(ev, "hand_no", None) == hand.hand_no:
            events.append((row.seq, cast(HandLogEvent, ev)))
    holes = {h.seq: h.cards for h in session.execute(select(HoleCards.seq, HoleCards.cards)
                                                     .where(HoleCards.table_id == table.id,
                                                            HoleCards.hand_no == hand.hand_no))}
    return HandLog(hand.hand_no, events, holes)


def _export(session: Session, table: PokerTable, hand: Hand, log_: HandLog | None) -> None:
    if log_ is None or log_.hand_no != hand.hand_no or not log_.events or \
            log_.events[0][0] != hand.first_seq:
        log_ = _hand_log(session, table, hand)
    events, holes = log_.events, log_.holes
    players = []
    for seat_no in hand.seats:
        seat = session.get(Seat, (table.id, seat_no))
        players.append(seat.player_id if seat else f"seat {seat_no}")
    try:
        export = export_hand(events, holes, hand.end_stacks or [], players)
    except HandHistoryUnavailable as exc:
        hand.phh_error = str(exc)
        log.warning("table %s: no PHH for hand %d: %s", table.id, hand.hand_no, exc)
        return
    except Exception as exc:  # an engine bug must not stop the table's events
        hand.phh_error = f"the export failed: {exc!r}"
        log.exception("table %s: the PHH export of hand %d failed", table.id, hand.hand_no)
        return
    hand.phh, hand.phh_public, hand.phh_error = export.full, export.public, None
