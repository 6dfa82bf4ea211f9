"""What the API takes and returns (Base/Create/Public families, as in the FastAPI full-stack
template). Nothing here can carry a hole card except :class:`HoleCardsPublic`, which only the
``broadcast`` role is ever given."""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from controller.events import HOUSE_TEXT_MAX, Command, HouseView, JsonScalar, PublicState
from controller.events.base import Id
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
    online: bool | None = Field(description="true or false as the table last said (its "
                                "retained status; its Will says false); null (unknown) while "
                                "the bridge's own broker connection is down, and after it is "
                                "back until the table's status is heard again")
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
    conflicts: int = Field(
        0, description="payloads the table's topics carried for a seq that already held "
        "another one (a floor alert; GET /api/v1/tables/{id}/conflicts lists them)")
    house: HouseView | None = Field(
        None, description="the house the table plays (its last house_set: name, game, "
        "kind, unit and the one-line label: game, stakes, rake, straddles); null until the "
        "table names one")


class BrokerLinkPublic(BaseModel):
    """The bridge's own broker connection: while it is down, no table's state is known."""

    connected: bool
    lost_at: datetime | None = Field(None, description="since when it is down (UTC)")


class TablesPublic(BaseModel):
    """Every table, and the bridge's broker connection (null when no broker is set up)."""

    data: list[TablePublic]
    count: int
    broker: BrokerLinkPublic | None = None


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
    command_id: Id | None = Field(
        None, description="to retry a command that got no reply, the command_id it was "
        "sent with: the table carries it out once; an id already used for another command "
        "is refused with the reason. Left out, the bridge makes a new one")


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


class ConflictPublic(BaseModel):
    """A payload that came for a seq that already held another one: the first stands; this
    one is kept for audit (issue 17)."""

    seq: int
    topic: Literal["event", "secure/cards"]
    boot: str = Field(description="the boot id the conflicting payload named")
    stored_boot: str | None
    stored_hash: str = Field(description="sha256 of the payload that stands")
    payload_hash: str = Field(description="sha256 of the conflicting payload (of its cards "
                              "for secure/cards)")
    payload: str | None = Field(description="the conflicting payload; null for a "
                                "secure/cards one unless the role may see hole cards")
    first_at: float
    last_at: float
    count: int = Field(description="how many times it came")
    confirm_asked_at: float | None = Field(description="when the table was asked to resend "
                                           "that seq (once per seq)")
    verdict: Literal["stored"] | None = Field(description="``stored`` once the table "
                                              "resent the stored payload for that seq")
    finding: str = Field(description="what the table's resend showed, in words")


class ConflictsPublic(BaseModel):
    """A table's conflicting payloads, newest first."""

    table_id: str
    data: list[ConflictPublic]
    count: int


class HouseFilePublic(BaseModel):
    """One shipped house file: what it plays, or why it cannot be played."""

    file: str = Field(description="the file's stem: what POST /tables/{id}/house takes")
    name: str | None = Field(default=None)
    kind: Literal["cash", "tournament"] | None = Field(default=None)
    unit: str | None = Field(default=None)
    label: str | None = Field(default=None, description="game, stakes, rake, straddles")
    error: str | None = Field(default=None, description="why the file cannot be played (its field, "
                              "line and rule); the other fields are null then")


class HousesPublic(BaseModel):
    """The shipped houses (the bridge's ``houses_dir``), by file name."""

    directory: str
    data: list[HouseFilePublic]
    count: int
    problem: str | None = Field(default=None, description="why the directory could not be read")


HouseName = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.-]+$")]


class HouseChange(BaseModel):
    """Play another house at a table: a shipped house by file stem, or a house file's text
    (exactly one of the two)."""

    model_config = ConfigDict(extra="forbid")

    house: HouseName | None = Field(default=None, description="a shipped house, e.g. casino-plo "
                                    "(GET /api/v1/houses)")
    text: Annotated[str, Field(min_length=1, max_length=HOUSE_TEXT_MAX)] | None = Field(
        None, description="a whole house file (TOML)")
    command_id: Annotated[str, Field(min_length=1, max_length=64,
                                     pattern=r"^[A-Za-z0-9_.:-]+$")] | None = Field(
        None, description="to retry a change that got no reply, the command_id it was sent "
        "with (as for POST /tables/{id}/commands)")

    @model_validator(mode="after")
    def _one_of(self) -> HouseChange:
        if (self.house is None) == (self.text is None):
            raise ValueError("send either house (a shipped house's file name, see GET "
                             "/api/v1/houses) or text (a house file's TOML), not both")
        return self


class HouseChangePublic(BaseModel):
    """The table took the house: it plays it from the next hand on (its house_set event)."""

    command_id: str
    table_id: str
    status: Literal["ok"]
    data: dict[str, JsonScalar] | None = None
    house: HouseView


class HouseRefusalPublic(BaseModel):
    """Why a house was not sent or not taken."""

    detail: str
    field: str | None = Field(default=None)
    line: int | None = Field(default=None)
    rule: str | None = Field(default=None)
    houses: list[str] | None = Field(default=None, description="the shipped houses (a 404)")
    command_id: str | None = Field(default=None, description="the command the table refused (409)")


class RakeRow(BaseModel):
    """One table's rake on one day (UTC), in one unit."""

    table_id: str
    day: date
    hands: int = Field(description="hands ended that day (voided hands are not counted)")
    raked_hands: int = Field(description="those with a rake above 0")
    rake: int = Field(description="the rake taken, in whole units")
    unit: str = Field(description="kr, cent or chip as the house in force named it; "
                      "'unit' where the table had named no house")


class RakePublic(BaseModel):
    """The rake ledger of one day: per table, and the totals per unit."""

    day: date
    data: list[RakeRow]
    totals: dict[str, int] = Field(description="the day's rake per unit")
