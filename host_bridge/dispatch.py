"""The command path: audit row, publish to ``table/{id}/cmd``, wait for the reply.

Every command is written to the audit log (who, what, when) before it is sent; the row is
completed with the table's reply, or marked ``timeout`` / ``unsent``; a command the bridge
does not send (the table is offline) is written as ``refused``. A reply that arrives
after the timeout is still written to its row (``late``).

A client may name the command itself (``command_id``) to retry one that timed out: the
same id with the same command is sent again under its audit row, and the table answers it
once (the second time from its journal); the same id with another command is refused
here, naming the id, and nothing is sent (:class:`CommandIdReused`). A table that knows
the id from elsewhere refuses it the same way, and that reply is returned as it is.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from controller.events import Command
from controller.sync.messages import CommandMessage, ReplyMessage
from controller.sync.topics import Topics
from host_bridge.ingest import Publisher, PublishFailed
from host_bridge.models import AuditEntry

log = logging.getLogger(__name__)


class CommandTimeout(Exception):
    """The table did not reply in time; the command may still be carried out."""


class CommandUnsent(Exception):
    """The command could not be handed to the broker."""


class CommandIdReused(Exception):
    """The client's command_id names another command, or one still waiting; nothing sent."""


def _now() -> datetime:
    return datetime.now(UTC)


class CommandDesk:
    """Sends commands to tables and matches their replies by ``command_id``."""

    def __init__(self, sessions: sessionmaker[Session], publisher: Publisher, site: str, *,
                 host_boot: str, timeout_s: float,
                 clock: Callable[[], float] = time.time) -> None:
        self._sessions = sessions
        self.publisher = publisher
        self._site = site
        self._boot = host_boot
        self._timeout = timeout_s
        self._clock = clock
        self._seq = 0
        self._pending: dict[str, asyncio.Future[ReplyMessage]] = {}

    def _audit(self, command_id: str, **values: object) -> None:
        with self._sessions() as session, session.begin():
            row = session.scalar(select(AuditEntry).where(AuditEntry.command_id == command_id))
            if row is not None:
                for key, value in values.items():
                    setattr(row, key, value)

    def _record(self, table_id: str, command: Command, actor: str, role: str, outcome: str,
                reply: dict[str, object] | None = None, command_id: str | None = None) -> str:
        body = command.model_dump(mode="json")
        if command_id is None:
            command_id = uuid.uuid4().hex
        elif command_id in self._pending:
            raise CommandIdReused(f"command {command_id} is still waiting for its reply; "
                                  "wait for it before sending it again")
        with self._sessions() as session, session.begin():
            row = session.scalar(select(AuditEntry).where(AuditEntry.command_id == command_id))
            if row is not None:
                if (row.table_id, row.body) != (table_id, body):
                    raise CommandIdReused(
                        f"command_id {command_id} was already used for {row.command} to "
                        f"table {row.table_id}; nothing was sent: send {command.name} with a "
                        "new command_id (or none)")
                row.outcome, row.answered_at = outcome, None  # a retry: the same row
                return command_id
            session.add(AuditEntry(at=_now(), actor=actor, role=role, table_id=table_id,
                                   command_id=command_id, command=command.name,
                                   body=body, outcome=outcome,
                                   reply=reply, answered_at=_now() if reply else None))
        return command_id

    def refuse(self, table_id: str, command: Command, *, actor: str, role: str,
               reason: str) -> str:
        """Audit a command the bridge did not send (the table is offline); its id."""
        log.info("%s (%s) sent %s to table %s, not sent: %s", actor, role, command.name,
                 table_id, reason)
        return self._record(table_id, command, actor, role, "refused", {"error": reason})

    async def send(self, table_id: str, command: Command, *, actor: str, role: str,
                   command_id: str | None = None) -> tuple[str, ReplyMessage]:
        """Send ``command`` (as ``command_id`` when given: a retry) and return
        ``(command_id, reply)``; raises :class:`CommandTimeout`, :class:`CommandUnsent` or
        :class:`CommandIdReused`."""
        command_id = self._record(table_id, command, actor, role, "sent",
                                  command_id=command_id)
        log.info("%s (%s) sends %s to table %s as %s", actor, role, command.name, table_id,
                 command_id)
        self._seq += 1
        message = CommandMessage(table=table_id, boot=self._boot, seq=self._seq,
                                 ts=self._clock(), command_id=command_id, command=command)
        future: asyncio.Future[ReplyMessage] = asyncio.get_running_loop().create_future()
        self._pending[command_id] = future
        try:
            try:
                await self.publisher.publish(Topics(self._site, table_id).cmd,
                                             message.to_wire(), 1, False)
            except PublishFailed as exc:
                self._audit(command_id, outcome="unsent", answered_at=_now(),
                            reply={"error": str(exc)})
                raise CommandUnsent(str(exc)) from None
            try:
                reply = await asyncio.wait_for(future, self._timeout)
            except TimeoutError:
                self._audit(command_id, outcome="timeout", answered_at=_now())
                raise CommandTimeout(
                    f"table {table_id} did not reply to {command.name} ({command_id}) within "
                    f"{self._timeout:g} s; it may still carry it out: check the table's "
                    "state before sending it again") from None
        finally:
            self._pending.pop(command_id, None)
        self._audit(command_id, outcome=reply.status, answered_at=_now(),
                    reply=reply.model_dump(mode="json", include={"status", "data", "error"}))
        return command_id, reply

    def resolve(self, reply: ReplyMessage) -> bool:
        """Hand a table's reply to the request waiting for it; a late reply is written to
        the audit row. False when no command of this bridge has that id."""
        if reply.command_id is None:
            log.warning("table %s could not read a command: %s", reply.table, reply.error)
            return False
        future = self._pending.get(reply.command_id)
        if future is not None and not future.done():
            future.set_result(reply)
            return True
        with self._sessions() as session, session.begin():
            row = session.scalar(select(AuditEntry).where(
                AuditEntry.command_id == reply.command_id))
            if row is None:
                return False
            row.outcome = "late" if row.outcome == "timeout" else row.outcome
            row.reply = reply.model_dump(mode="json", include={"status", "data", "error"})
        return True
