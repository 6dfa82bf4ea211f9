"""Commands to a table, each answered with the table's reply or a timeout; the audit log.

The ``floor`` role runs the table day to day (pause/resume, call the clock, seat, move and
remove players, change the house: issue 18); level changes, hand-for-hand, colour-ups and
closing a table are the ``director``'s (and ``admin``'s).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, HTTPException, Query, status
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from controller.events import Command, SetHouse
from controller.sync.messages import ReplyMessage
from host_bridge.bridge import Bridge
from host_bridge.deps import AUDITORS, Auditor, BridgeDep, Commander, Principal, SessionDep
from host_bridge.dispatch import CommandIdReused, CommandTimeout, CommandUnsent
from host_bridge.houses import check_house_text
from host_bridge.models import AuditEntry
from host_bridge.routes.tables import AUTH, NOT_FOUND, TableId, table_or_404
from host_bridge.schemas import (
    AuditEntryPublic,
    AuditPublic,
    CommandCreate,
    CommandPublic,
    Message,
)
from host_bridge.settings import Role

router = APIRouter(tags=["commands"])

FLOOR_COMMANDS = frozenset({"pause", "resume", "call_clock", "seat_player", "remove_player",
                            "move_player", "set_house"})


@router.post("/tables/{table_id}/commands", responses={
    **AUTH, **NOT_FOUND,
    409: {"model": Message, "description": "the table is offline, or command_id names "
          "another command; nothing was sent"},
    503: {"model": Message, "description": "no broker connection; nothing was sent"},
    504: {"model": Message, "description": "the table did not reply in time"}})
async def send_command(table_id: TableId, body: CommandCreate, session: SessionDep,
                       bridge: BridgeDep, who: Commander) -> CommandPublic:
    """Send a command to a table and return its reply (``status`` ``ok`` or ``error``).
    Roles: ``floor`` for pause, resume, call_clock, seat_player, remove_player,
    move_player, set_house (its text checked first, as POST /tables/{id}/house does);
    ``director`` and ``admin`` for every command."""
    name = body.command.name
    if who.role is Role.FLOOR and name not in FLOOR_COMMANDS:
        allowed = ", ".join(sorted(r.value for r in AUDITORS))
        raise HTTPException(status.HTTP_403_FORBIDDEN,
                            f"role 'floor' may not send {name}; this needs one of: {allowed}")
    if isinstance(body.command, SetHouse):  # checked here first, as POST .../house does
        check_house_text(body.command.text, "the command's text")
    command_id, reply = await deliver(table_id, body.command, session, bridge, who,
                                      body.command_id)
    return CommandPublic(command_id=command_id, table_id=table_id, status=reply.status,
                         data=reply.data, error=reply.error)


async def deliver(table_id: str, command: Command, session: Session, bridge: Bridge,
                  who: Principal, command_id: str | None = None) -> tuple[str, ReplyMessage]:
    """Send ``command`` to a table that is online and return ``(command_id, reply)``: the
    one path every table command takes (audit row, publish, the reply matched by id).
    Raises the HTTP error that says why it was not sent or not answered."""
    name = command.name
    table = table_or_404(session, table_id)
    if not table.online:
        reason = (f"table {table_id!r} is offline, so {name} was not sent; wait for it to "
                  f"come back online (GET /api/v1/tables/{table_id})")
        bridge.desk.refuse(table_id, command, actor=who.name, role=who.role.value,
                           reason=reason)
        raise HTTPException(status.HTTP_409_CONFLICT, reason)
    session.close()  # the wait can be long; the desk opens its own sessions
    try:
        return await bridge.desk.send(table_id, command, actor=who.name,
                                      role=who.role.value, command_id=command_id)
    except CommandIdReused as exc:
        raise HTTPException(status.HTTP_409_CONFLICT, str(exc)) from None
    except CommandTimeout as exc:
        raise HTTPException(status.HTTP_504_GATEWAY_TIMEOUT, str(exc)) from None
    except CommandUnsent as exc:
        raise HTTPException(status.HTTP_503_SERVICE_UNAVAILABLE,
                            f"{name} was not sent to table {table_id!r}: {exc}") from None


@router.get("/audit", responses=AUTH)
def read_audit(session: SessionDep, _who: Auditor,
               table_id: Annotated[str | None, Query(min_length=1, max_length=64,
                                                     pattern=r"^[A-Za-z0-9_.:-]+$")] = None,
               limit: Annotated[int, Query(ge=1, le=500)] = 100,
               offset: Annotated[int, Query(ge=0, le=2**31 - 1)] = 0) -> AuditPublic:
    """Every command sent, who sent it, when, and the table's answer; newest first.
    Roles: ``director``, ``admin``."""
    query = select(AuditEntry)
    count_query = select(func.count()).select_from(AuditEntry)
    if table_id is not None:
        query = query.where(AuditEntry.table_id == table_id)
        count_query = count_query.where(AuditEntry.table_id == table_id)
    rows = session.scalars(query.order_by(AuditEntry.id.desc()).limit(limit)
                           .offset(offset)).all()
    return AuditPublic(data=[AuditEntryPublic.model_validate(r) for r in rows],
                       count=session.scalar(count_query) or 0)
