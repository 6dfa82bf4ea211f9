"""The command desk: host commands in, replies out, each command run at most once.

A command is checked in this order, and a failure at any step gets a ``reply`` with a clear
``error`` and changes nothing: the payload is JSON of the right schema version, it names a
known command with valid arguments, it is for this table, and the table's current state
allows it (:class:`CommandTable` decides, raising :class:`CommandRefused`). A command_id
already answered is answered again from memory, or from the journal after a restart, when
the command is the same (a retry: the digest of its canonical JSON matches the one kept
with the reply); the same id with another command is refused, naming the id, and nothing
is done or recorded, so the original reply stays the id's answer. The events a command
causes and its reply (with that digest) are journaled in one transaction, so a crash can
never leave a command half done or done without its answer on record.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

from controller.events import Command, JournalEvent, JsonScalar
from controller.sync.errors import CommandRefused, JournalError, MessageRejected
from controller.sync.messages import CommandMessage, ReplyMessage, parse_message
from controller.sync.outbox import Outbox

log = logging.getLogger(__name__)


def command_digest(command: Command) -> str:
    """The SHA-256 of ``command``'s canonical JSON (defaults filled in, keys sorted): two
    payloads that mean the same command have the same digest."""
    canonical = json.dumps(command.model_dump(mode="json"), sort_keys=True,
                           separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()


class CommandTable(Protocol):
    """What the live table implements to take the host's commands."""

    def perform(self, command: Command, command_id: str
                ) -> tuple[Mapping[str, JsonScalar], Sequence[JournalEvent]]:
        """Check ``command`` against the current state and return the reply data and the
        events that carry it out (journaled by the desk, then applied by the table as it
        applies any journaled event). Raise :class:`CommandRefused` with the reason if the
        state forbids it; never change anything before returning."""
        ...


class CommandDesk:
    """Answers each host command once, from the table or from memory."""

    def __init__(self, outbox: Outbox, table: CommandTable, *, remember: int = 1024,
                 clock: Callable[[], float] = time.time) -> None:
        self._outbox = outbox
        self._table = table
        self._memory: OrderedDict[str, tuple[bytes, str | None]] = OrderedDict()
        self._remember = remember
        self._clock = clock
        self.performed = 0  # commands the table actually ran (tests count repeats)

    def _reply(self, command_id: str | None, seq: int, *, data: Mapping[str, JsonScalar]
               | None = None, error: str | None = None) -> bytes:
        return ReplyMessage(table=self._outbox.table, boot=self._outbox.boot, seq=seq,
                            ts=self._clock(), command_id=command_id,
                            status="error" if error is not None else "ok",
                            data=None if data is None else dict(data), error=error).to_wire()

    def _keep(self, command_id: str, reply: bytes, digest: str | None) -> bytes:
        self._memory[command_id] = (reply, digest)
        self._memory.move_to_end(command_id)
        while len(self._memory) > self._remember:
            self._memory.popitem(last=False)
        return reply

    async def handle(self, payload: bytes) -> bytes:
        """The reply payload for one ``cmd`` payload (which may be anything at all)."""
        try:
            message = parse_message(CommandMessage, payload)
        except MessageRejected as exc:
            log.info("command rejected: %s", exc.reason)
            return self._reply(exc.command_id, self._outbox.last_seq, error=exc.reason)
        cid = message.command_id
        if message.table != self._outbox.table:
            return self._reply(cid, self._outbox.last_seq, error=(
                f"command for table {message.table} reached table {self._outbox.table}"))
        digest = command_digest(message.command)
        known = self._memory.get(cid)
        if known is None:
            journal = self._outbox.journal
            try:
                stored = await self._outbox.run(journal.reply_for, cid)
                if stored is not None:
                    known = (stored, await self._outbox.run(journal.digest_for, cid))
            except JournalError as exc:  # cannot tell whether it ran: run nothing
                return self._reply(cid, self._outbox.last_seq, error=str(exc))
        if known is not None:
            reply, kept = known
            if kept is not None and kept != digest:
                log.warning("command %s reused for another command (%s): refused", cid,
                            message.command.name)
                return self._reply(cid, self._outbox.last_seq, error=(
                    f"command_id {cid} was already used for another command; nothing was "
                    f"done: send {message.command.name} with a new command_id"))
            log.info("command %s repeated: answered from memory", cid)
            return self._keep(cid, reply, kept)
        return await self._perform(cid, message.command, digest)

    async def _perform(self, cid: str, command: Command, digest: str) -> bytes:
        outbox = self._outbox
        try:
            data, events = self._table.perform(command, cid)
        except CommandRefused as exc:
            reply = self._reply(cid, outbox.last_seq, error=exc.reason)
            await outbox.run(outbox.journal.record_reply, cid, reply, digest)
            return self._keep(cid, reply, digest)
        self.performed += 1
        ts = self._clock()

        def build(seq: int) -> bytes:
            return ReplyMessage(table=outbox.table, boot=outbox.boot, seq=seq, ts=ts,
                                command_id=cid, status="ok", data=dict(data)).to_wire()

        try:
            if events:
                parcels = await outbox.run(
                    lambda: outbox.journal.append(events, reply=(cid, build), digest=digest))
                outbox.accept(parcels)
                reply = build(parcels[-1].seq)
            else:
                reply = build(outbox.last_seq)
                await outbox.run(outbox.journal.record_reply, cid, reply, digest)
        except JournalError as exc:  # nothing happened: the host may send it again
            log.warning("command %s not journaled: %s", cid, exc)
            return self._reply(cid, outbox.last_seq,
                               error=f"the table could not carry it out: {exc}")
        log.info("command %s (%s) done", cid, command.name)
        return self._keep(cid, reply, digest)
