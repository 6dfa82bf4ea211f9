"""Tables and their public state; hole cards for the ``broadcast`` role after the delay."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Path, status
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from controller.events import HouseView, PublicState
from host_bridge.deps import BridgeDep, Broadcaster, Reader, SessionDep, SettingsDep
from host_bridge.models import Hand, HoleCards, PokerTable, Seat, SeqConflict
from host_bridge.schemas import (
    BrokerLinkPublic,
    HoleCardsPublic,
    HoleCardsView,
    Message,
    SeatPublic,
    TablePublic,
    TablesPublic,
)

router = APIRouter(prefix="/tables", tags=["tables"])

TableId = Annotated[str, Path(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.:-]+$",
                              description="the table's id, as the table reports it")]
Responses = dict[int | str, dict[str, Any]]
NOT_FOUND: Responses = {404: {"model": Message, "description": "no such table"}}
AUTH: Responses = {401: {"model": Message, "description": "missing or unknown token"},
                   403: {"model": Message, "description": "the token's role may not do this"}}


def table_or_404(session: Session, table_id: str) -> PokerTable:
    """The table, or a 404 saying that it never reported."""
    table = session.get(PokerTable, table_id)
    if table is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND,
                            f"no table {table_id!r} has reported to this bridge; list the "
                            "tables at GET /api/v1/tables")
    return table


def table_public(session: Session, table: PokerTable, online: bool | None = None, *,
                 seats: Sequence[Seat] | None = None, conflicts: int | None = None
                 ) -> TablePublic:
    """A table row as the API shows it; ``online`` as the bridge knows it
    (:meth:`~host_bridge.bridge.Bridge.table_online`); ``seats`` (in seat order) and
    ``conflicts`` if the caller read them already (for many tables at once)."""
    if seats is None:
        seats = session.scalars(select(Seat).where(Seat.table_id == table.id)
                                .order_by(Seat.seat)).all()
    if conflicts is None:
        conflicts = session.scalar(select(func.count()).select_from(SeqConflict).where(
            SeqConflict.table_id == table.id)) or 0  # a floor alert (#17)
    reported = PublicState.model_validate_json(table.snapshot) if table.snapshot else None
    return TablePublic(
        id=table.id, online=online, level=table.level, paused=table.paused,
        hand_for_hand=table.hand_for_hand, colour_up_at_level=table.colour_up_at_level,
        clock_on_seat=table.clock_on_seat, closed=table.closed, hand_no=table.hand_no,
        hand_in_progress=table.hand_in_progress, acked_seq=table.acked_seq,
        seats=[SeatPublic(seat=s.seat, player=s.player_id, stack=s.stack) for s in seats],
        hand=reported.hand if reported else None,
        stakes=reported.stakes if reported else None, reported=reported,
        house=HouseView.model_validate(table.house) if table.house
        else reported.house if reported else None,  # the journal's house_set, else the state
        conflicts=conflicts)


@router.get("", responses=AUTH)
def list_tables(session: SessionDep, bridge: BridgeDep, _who: Reader) -> TablesPublic:
    """Every table that has reported, with its public state, and the bridge's broker
    connection (while it is down, every table's ``online`` is null). Any role."""
    tables = session.scalars(select(PokerTable).order_by(PokerTable.id)).all()
    seats: dict[str, list[Seat]] = {}
    for seat in session.scalars(select(Seat).order_by(Seat.table_id, Seat.seat)):
        seats.setdefault(seat.table_id, []).append(seat)
    conflicts: dict[str, int] = {
        table_id: count for table_id, count in session.execute(
            select(SeqConflict.table_id, func.count()).group_by(SeqConflict.table_id))}
    data = [table_public(session, t, bridge.table_online(t.id, t.online),
                         seats=seats.get(t.id, []), conflicts=conflicts.get(t.id, 0))
            for t in tables]  # three queries, whatever the number of tables
    broker = None if bridge.broker_connected is None else BrokerLinkPublic(
        connected=bridge.broker_connected, lost_at=None if bridge.broker_lost_at is None
        else datetime.fromtimestamp(bridge.broker_lost_at, UTC))
    return TablesPublic(data=data, count=len(data), broker=broker)


@router.get("/{table_id}", responses={**AUTH, **NOT_FOUND})
def read_table(table_id: TableId, session: SessionDep, bridge: BridgeDep,
               _who: Reader) -> TablePublic:
    """One table's public state (``online`` null while the bridge's broker connection is
    down). Any role."""
    table = table_or_404(session, table_id)
    return table_public(session, table, bridge.table_online(table.id, table.online))


@router.get("/{table_id}/hole-cards", responses={**AUTH, **NOT_FOUND})
def read_hole_cards(table_id: TableId, session: SessionDep, settings: SettingsDep,
                    bridge: BridgeDep, _who: Broadcaster) -> HoleCardsView:
    """The hole cards of the table's latest hand: each player's once the configured delay
    has passed since they were dealt, all of them once the hand is over. Only the
    ``broadcast`` role."""
    table = table_or_404(session, table_id)
    hand = session.scalar(select(Hand).where(Hand.table_id == table.id)
                          .order_by(Hand.hand_no.desc()).limit(1))
    if hand is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND,
                            f"table {table_id!r} has not started a hand yet")
    over = hand.status != "in_progress"
    now = bridge.clock()
    released, withheld = [], 0
    rows = session.scalars(select(HoleCards).where(
        HoleCards.table_id == table.id, HoleCards.hand_no == hand.hand_no,
        HoleCards.seq >= hand.first_seq).order_by(HoleCards.seq)).all()
    for row in rows:
        if over or now - row.received_at >= settings.hole_card_delay_s:
            seat = hand.seats[row.player] if row.player < len(hand.seats) else None
            released.append(HoleCardsPublic(hand_no=row.hand_no, player=row.player, seat=seat,
                                            cards=list(row.cards)))
        else:
            withheld += 1
    return HoleCardsView(table_id=table.id, hand_no=hand.hand_no, hand_over=over,
                         released=released, withheld=withheld)
