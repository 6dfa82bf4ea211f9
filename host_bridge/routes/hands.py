"""Hands of a table, and a finished hand as PHH (hole cards only for ``broadcast``)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, HTTPException, Path, Query, status
from fastapi.responses import PlainTextResponse
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from host_bridge.deps import Reader, SessionDep
from host_bridge.models import Hand
from host_bridge.routes.tables import AUTH, NOT_FOUND, TableId, table_or_404
from host_bridge.schemas import HandPublic, HandsPublic, Message
from host_bridge.settings import Role

router = APIRouter(prefix="/tables/{table_id}/hands", tags=["hands"])

HandNo = Annotated[int, Path(ge=1, le=2**31 - 1, description="the hand number at that table")]


def hand_public(hand: Hand) -> HandPublic:
    """A hand row as the API shows it."""
    return HandPublic(
        table_id=hand.table_id, hand_no=hand.hand_no,
        status=hand.status,  # type: ignore[arg-type]  # written by ingest from the 3 values
        seats=hand.seats, start_stacks=hand.start_stacks, end_stacks=hand.end_stacks,
        small_blind=hand.small_blind, big_blind=hand.big_blind, board=hand.board,
        rake=hand.rake, phh_available=hand.phh is not None, phh_error=hand.phh_error)


def hand_or_404(session: Session, table_id: str, hand_no: int) -> Hand:
    """The hand, or a 404 naming what is missing."""
    table_or_404(session, table_id)
    hand = session.scalar(select(Hand).where(Hand.table_id == table_id,
                                             Hand.hand_no == hand_no))
    if hand is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND,
                            f"table {table_id!r} has no hand {hand_no} at this bridge; list "
                            f"its hands at GET /api/v1/tables/{table_id}/hands")
    return hand


@router.get("", responses={**AUTH, **NOT_FOUND})
def list_hands(table_id: TableId, session: SessionDep, _who: Reader,
               limit: Annotated[int, Query(ge=1, le=500)] = 50,
               offset: Annotated[int, Query(ge=0, le=2**31 - 1)] = 0) -> HandsPublic:
    """A table's hands, newest first. Any role."""
    table_or_404(session, table_id)
    where = Hand.table_id == table_id
    count = session.scalar(select(func.count()).select_from(Hand).where(where)) or 0
    hands = session.scalars(select(Hand).where(where).order_by(Hand.hand_no.desc())
                            .limit(limit).offset(offset)).all()
    return HandsPublic(data=[hand_public(h) for h in hands], count=count)


@router.get("/{hand_no}", responses={**AUTH, **NOT_FOUND})
def read_hand(table_id: TableId, hand_no: HandNo, session: SessionDep,
              _who: Reader) -> HandPublic:
    """One hand's public record. Any role."""
    return hand_public(hand_or_404(session, table_id, hand_no))


@router.get("/{hand_no}/phh", response_class=PlainTextResponse,
            responses={**AUTH, **NOT_FOUND,
                       200: {"content": {"text/plain": {}},
                             "description": "the hand as PHH (TOML)"},
                       409: {"model": Message, "description": "no PHH for this hand"}})
def read_hand_phh(table_id: TableId, hand_no: HandNo, session: SessionDep,
                  who: Reader) -> PlainTextResponse:
    """A finished hand as PHH. Hole cards nobody showed appear as ``??`` except for the
    ``broadcast`` role (the hand is over, so no delay applies). Any role."""
    hand = hand_or_404(session, table_id, hand_no)
    if hand.status != "ended":
        raise HTTPException(status.HTTP_409_CONFLICT,
                            f"hand {hand_no} at table {table_id!r} is {hand.status}: only a "
                            "finished hand has a PHH")
    text = hand.phh if who.role is Role.BROADCAST else hand.phh_public
    if text is None:
        raise HTTPException(status.HTTP_409_CONFLICT,
                            f"hand {hand_no} at table {table_id!r} has no PHH: "
                            f"{hand.phh_error or 'it was not exported'}")
    return PlainTextResponse(text, media_type="text/plain; charset=utf-8")
