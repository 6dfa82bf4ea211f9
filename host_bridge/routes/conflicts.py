"""A table's conflicting payloads (issue 17): what came for a seq that already held another
payload, kept for audit. Any role reads them (the floor alert links here); the payload of a
``secure/cards`` conflict holds hole cards, so only the ``broadcast`` role gets it."""

from __future__ import annotations

from fastapi import APIRouter
from sqlalchemy import select

from host_bridge.deps import Reader, SessionDep
from host_bridge.models import SeqConflict
from host_bridge.routes.tables import AUTH, NOT_FOUND, TableId, table_or_404
from host_bridge.schemas import ConflictPublic, ConflictsPublic
from host_bridge.settings import Role

router = APIRouter(prefix="/tables", tags=["tables"])

_ASKED = ("the table was asked to resend this seq and has not resent the stored payload "
          "yet (a repeat of the conflicting one is counted but proves nothing: whoever sent "
          "it once can send it again)")
_EARLIER = "the table was asked about this seq for an earlier conflicting payload"
_STORED = ("the table's resend matches the stored payload: the conflicting one was not the "
           "table's; check who else can publish on its topics")


@router.get("/{table_id}/conflicts", responses={**AUTH, **NOT_FOUND})
def read_conflicts(table_id: TableId, session: SessionDep, who: Reader) -> ConflictsPublic:
    """The table's conflicting payloads, newest first, each with what the table's resend of
    that seq showed. Any role; a ``secure/cards`` payload only for ``broadcast``."""
    table = table_or_404(session, table_id)
    rows = session.scalars(select(SeqConflict).where(SeqConflict.table_id == table.id)
                           .order_by(SeqConflict.last_at.desc(), SeqConflict.id.desc())).all()
    cards_ok = who.role is Role.BROADCAST
    data = [ConflictPublic(
        seq=r.seq, topic="secure/cards" if r.topic == "secure/cards" else "event",
        boot=r.boot, stored_boot=r.stored_boot, stored_hash=r.stored_hash,
        payload_hash=r.payload_hash,
        payload=r.payload if r.topic == "event" or cards_ok else None,
        first_at=r.first_at, last_at=r.last_at, count=r.count,
        confirm_asked_at=r.confirm_asked_at,
        verdict="stored" if r.verdict == "stored" else None,
        finding=_STORED if r.verdict == "stored" else _ASKED if r.confirm_asked_at is not None
        else _EARLIER) for r in rows]
    return ConflictsPublic(table_id=table.id, data=data, count=len(data))
