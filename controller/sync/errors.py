"""The sync room's exception tree: vendor errors (sqlite3, aiomqtt, pydantic) become these
at the boundary, each naming what went wrong in the table's terms."""

from __future__ import annotations


class SyncError(Exception):
    """Base of every error the sync room raises."""


class JournalError(SyncError):
    """The journal could not be read or written; nothing was accepted."""


class MessageRejected(SyncError):
    """An inbound payload that is not a valid message for this table."""

    def __init__(self, reason: str, command_id: str | None = None) -> None:
        self.reason = reason
        self.command_id = command_id
        super().__init__(reason)


class CommandRefused(SyncError):
    """A well-formed command that the table's current state forbids; nothing changed."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


class LinkDown(SyncError):
    """The broker connection failed or was lost; the link reconnects with backoff."""
