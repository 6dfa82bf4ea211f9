"""What the API takes and returns (Base/Create/Public families, as in the FastAPI full-stack
template). Nothing here can carry a hole card except :class:`HoleCardsPublic`, which only the
``broadcast`` role is ever given."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from controller.events import Command, JsonScalar, PublicState
from controller.events.state import PublicHand, Stakes


class Message(BaseModel):
    """An error or a notice: what went wrong and what to do."""

    detail: str


class SeatPublic(BaseModel):
    """One occupied seat."""

    seat: int
    player: str
    stack: int


class TableBase(BaseModel):
    """A table as the floor sees it."""

    id: str
    online: bool
    level: int
    paused: bool
    hand_for_hand: bool
    colour_up_at_level: int | None
    clock_on_seat: int | None
    closed: bool
    hand_no: int
    hand_in_progress: bool


class TablePublic(TableBase):
    """A table with its seats and how far the bridge has stored its events."""

    acked_seq: int
    seats: list[SeatPublic]
    hand: PublicHand | None = Field(
        None, description="the hand in play as the table's rules engine sees it: stage, "
        "board, pots, each player's stack and bet, the seat to act, the amount to call, the "
        "raise limits and the legal moves (from the table's retained state)")
    stakes: Stakes | None = Field(
        None, description="the blinds and antes in force: those of the table's last hand "
        "started (from its retained state)")
    reported: PublicState | None = Field(
        None, description="the table's own retained snapshot (table/{id}/state), as of the "
        "last one received; the fields above but hand and stakes are the bridge's, from the "
        "events it applied")


class TablesPublic(BaseModel):
    """Every table."""

    data: list[TablePublic]
    count: int


class HandPublic(BaseModel):
    """One hand's public record."""

    table_id: str
    hand_no: int
    status: Literal["in_progress", "ended", "voided"]
    seats: list[int]
    start_stacks: list[int]
    end_stacks: list[int] | None
    small_blind: int
    big_blind: int
    board: list[str]
    rake: int
    phh_available: bool
    phh_error: str | None


class HandsPublic(BaseModel):
    """The hands of a table, newest first."""

    data: list[HandPublic]
    count: int


class CommandCreate(BaseModel):
    """A command for a table; ``command.name`` says which."""

    model_config = ConfigDict(extra="forbid")

    command: Command


class CommandPublic(BaseModel):
    """The table's reply to a command."""

    command_id: str
    table_id: str
    status: Literal["ok", "error"]
    data: dict[str, JsonScalar] | None = None
    error: str | None = None


class AuditEntryPublic(BaseModel):
    """One row of the audit log."""

    model_config = ConfigDict(from_attributes=True)

    id: int
    at: datetime
    actor: str
    role: str
    table_id: str
    command_id: str
    command: str
    body: dict[str, object]
    outcome: str
    reply: dict[str, object] | None
    answered_at: datetime | None


class AuditPublic(BaseModel):
    """Audit rows, newest first."""

    data: list[AuditEntryPublic]
    count: int


class HoleCardsPublic(BaseModel):
    """One player's hole cards (``null`` for a card the table could not read)."""

    hand_no: int
    player: int = Field(description="position in the hand, 0-based as in the events")
    seat: int | None
    cards: list[str | None]


class HoleCardsView(BaseModel):
    """The hole cards of a table's latest hand that the delay has released."""

    table_id: str
    hand_no: int
    hand_over: bool
    released: list[HoleCardsPublic]
    withheld: int = Field(description="players whose cards are still inside the delay")
