"""The wire format, defined once (DESIGN.md, Wire format): pydantic v2 models that the
table and the host bridge both import.

Every payload is JSON with ``schema``, ``table``, ``boot``, ``seq`` and ``ts``. For what the
table sends, ``boot`` is the controller's boot id and ``seq`` the table's event counter,
strictly increasing across boots (an event keeps the boot and seq it was journaled with,
so a resend is byte-for-byte the original). For what the host sends, they are the host's.

Hole and burn cards never appear in a public model: :class:`HoleCardsDealt` and
:class:`BurnedCard` are what the table hands the journal, and the journal splits each into
a public face (:class:`HoleDealt`: who, how many; :class:`CardBurned`) on ``event`` and a
:class:`SecureCards` on ``secure/cards``, both with the same seq.

The event kinds are defined in :mod:`controller.sync.events` (with the schema-version
rules) and re-exported here.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Final, Literal, TypeVar

from pydantic import (
    BaseModel,
    Field,
    SerializerFunctionWrapHandler,
    TypeAdapter,
    ValidationError,
    model_serializer,
)

from controller.sync.errors import MessageRejected
from controller.sync.events import (
    ActionAccepted,
    ActionCorrected,
    ActionHeld,
    ActionsUndone,
    BoardDealt,
    BurnedCard,
    CardBurned,
    ClockSnapshot,
    DeckReport,
    EventBody,
    GameSetup,
    HandEnded,
    HandShown,
    HandStarted,
    HandStep,
    HandVoided,
    HoleCardsDealt,
    HoleDealt,
    Irregularity,
    MisdealDeclared,
    PlayerCheckedIn,
    PotAwarded,
    PublicEvent,
    SeatAdjustment,
    SeatPresence,
    SecretEvent,
    ShotClockReport,
    StackAdjusted,
    StackReason,
    TableChange,
    TableChanged,
)
from controller.sync.events import CardText as _Card
from controller.sync.events import Chips as _Chips
from controller.sync.events import Count as _Count
from controller.sync.events import Frozen as _Frozen
from controller.sync.events import Id as _Id
from controller.sync.events import SeatNo as _Seat

__all__ = [
    "COMMAND_NAMES", "SCHEMA_VERSION", "AckMessage", "ActionAccepted", "ActionCorrected",
    "ActionHeld", "ActionsUndone", "AddChips", "BoardDealt", "BurnedCard", "CallClock",
    "CardBurned",
    "ClockSnapshot", "CloseTable", "Command", "CommandMessage", "DeckReport", "Envelope",
    "EventBody",
    "EventMessage", "GameSetup", "HandEnded", "HandForHand", "HandLayout", "HandShown",
    "HandStarted", "HandStep", "HandVoided", "HoleCardsDealt", "HoleDealt", "HostAck",
    "HostStatusMessage", "Irregularity", "JsonScalar", "MessageRejected", "MisdealDeclared",
    "MovePlayer", "NextHand", "Pause", "PlayerCheckedIn", "PotAwarded", "PublicEvent",
    "PublicState", "RemovePlayer", "ReplyMessage", "ResendRequest", "Resume",
    "ScheduleColourUp", "SeatAdjustment", "SeatPlayer", "SeatPresence", "SeatView",
    "SecretEvent", "SecureCards", "SetLevel", "ShotClockReport", "StackAdjusted",
    "StackReason", "StateMessage", "StatusMessage", "SyncClock", "TableChange",
    "TableChanged", "TableEvent", "parse_host_ack", "parse_message",
]

SCHEMA_VERSION: Final = 1

JsonScalar = str | int | float | bool | None


# ---------------------------------------------------------------------------- events
# The event kinds live in controller.sync.events; these names are the wire format's API.
TableEvent = PublicEvent | SecretEvent
"""What the table hands the journal: a public event, or a secret one it splits."""


# ---------------------------------------------------------------------------- envelopes
class Envelope(_Frozen):
    """The fields every payload carries."""

    schema_version: Literal[1] = Field(default=SCHEMA_VERSION, alias="schema")
    table: _Id
    boot: _Id
    seq: _Count
    ts: float

    def to_wire(self) -> bytes:
        """The JSON payload, compact, with the wire names."""
        return self.model_dump_json(by_alias=True).encode()


class EventMessage(Envelope):
    """``table/{id}/event``: one accepted event."""

    event: EventBody


class SecureCards(Envelope):
    """``table/{id}/secure/cards``: the hidden cards of the event with the same seq: a
    player's hole cards (``what`` "hole", of a ``hole_dealt``) or a burn card ("burn",
    of a ``burn``; ``player`` is None)."""

    hand_no: Annotated[int, Field(ge=1)]
    player: _Count | None = None
    cards: tuple[_Card | None, ...]
    what: Literal["hole", "burn"] = "hole"

    @classmethod
    def of(cls, event: SecretEvent, *, table: str, boot: str, seq: int,
           ts: float) -> SecureCards:
        """The secure payload of a secret event."""
        if isinstance(event, HoleCardsDealt):
            return cls(table=table, boot=boot, seq=seq, ts=ts, hand_no=event.hand_no,
                       player=event.player, cards=event.cards)
        return cls(table=table, boot=boot, seq=seq, ts=ts, hand_no=event.hand_no,
                   cards=(event.card,), what="burn")


class SeatView(_Frozen):
    """One occupied seat in the public snapshot."""

    seat: _Seat
    player: _Id
    stack: _Chips
    sitting_out: bool = False
    penalty_hands: _Count = 0  # PEN-4/5: hands still to sit out (dealt in, killed)


class HandLayout(_Frozen):
    """Where the button and blinds were in the last hand started (BTN-1..7)."""

    button: _Seat
    small_blind: _Seat | None
    big_blind: _Seat
    seats: tuple[_Seat, ...]  # dealt, in position order


class PublicState(_Frozen):
    """What anyone may see about the table: no field can hold a hole card."""

    seats: tuple[SeatView, ...] = ()
    level: Annotated[int, Field(ge=1)] = 1
    paused: bool = False
    hand_for_hand: bool = False
    colour_up_at_level: Annotated[int, Field(ge=1)] | None = None
    clock_on_seat: _Seat | None = None
    closed: bool = False
    hand_no: _Count = 0  # the last hand started
    hand_in_progress: bool = False
    start_stacks: tuple[_Chips, ...] = ()  # of the hand in progress, by position
    hand_seats: tuple[_Seat, ...] = ()
    hand_log: tuple[HandStep, ...] = ()  # the hand in progress: its engine log, in public
    layout: HandLayout | None = None  # of the last hand started
    redeal: bool = False  # that hand was void (misdeal, CRASH-1): the same layout again
    clock: ClockSnapshot | None = None  # the clocks as last journaled (issue 5: restart)


class StateMessage(Envelope):
    """``table/{id}/state`` (retained): the public snapshot as of ``seq``."""

    state: PublicState


class StatusMessage(Envelope):
    """``table/{id}/status`` (retained): ``online``, or ``offline`` (also the Will)."""

    status: Literal["online", "offline"]


# ---------------------------------------------------------------------------- commands
class Pause(_Frozen):
    """Pause the table (the clocks stop)."""

    name: Literal["pause"] = "pause"


class Resume(_Frozen):
    """Resume a paused table."""

    name: Literal["resume"] = "resume"


class SetLevel(_Frozen):
    """Move the table to a blind level."""

    name: Literal["set_level"] = "set_level"
    level: Annotated[int, Field(ge=1, le=1000)]


class CallClock(_Frozen):
    """Call the clock on the player in a seat."""

    name: Literal["call_clock"] = "call_clock"
    seat: _Seat


class HandForHand(_Frozen):
    """Start (``on``) or stop hand-for-hand play."""

    name: Literal["hand_for_hand"] = "hand_for_hand"
    on: bool


class NextHand(_Frozen):
    """Hand-for-hand: deal the next hand now (every table at once, TOURN-*)."""

    name: Literal["next_hand"] = "next_hand"


class SyncClock(_Frozen):
    """The host's tournament level clock (the authority, issue 5): the table adopts
    ``level`` with ``seconds_left`` in it (on a break when ``on_break``) and counts on its
    own until the next sync; a table that hears none for a while shows it is unsynced."""

    name: Literal["sync_clock"] = "sync_clock"
    level: Annotated[int, Field(ge=1, le=1000)]
    seconds_left: Annotated[float, Field(ge=0, le=86_400)]
    on_break: bool = False


class ScheduleColourUp(_Frozen):
    """Colour up the smallest chips when ``at_level`` begins."""

    name: Literal["colour_up"] = "colour_up"
    at_level: Annotated[int, Field(ge=1, le=1000)]


class SeatPlayer(_Frozen):
    """Seat a player with a stack. A player moved from another table brings what follows
    them (PEN-5, TOURN-32): ``extension_chips``, the time-bank chips they hold (None: the
    table's default for a newcomer), and ``penalty_hands``, the hands of a penalty still to
    serve (an orbit penalty converted to hands by the director, PEN-2; None or 0: none)."""

    name: Literal["seat_player"] = "seat_player"
    seat: _Seat
    player: _Id
    stack: Annotated[int, Field(gt=0)]
    extension_chips: Annotated[int, Field(ge=0, le=1000)] | None = None
    penalty_hands: Annotated[int, Field(ge=0, le=10_000)] | None = None

    @model_serializer(mode="wrap")
    def _without_nothing_carried(self, handler: SerializerFunctionWrapHandler) -> Any:
        """Nothing carried, nothing sent: a table built before these fields (which refuses
        unknown ones) still takes an ordinary seat command."""
        data = handler(self)
        if isinstance(data, dict):
            for key in ("extension_chips", "penalty_hands"):
                if data.get(key) is None:
                    data.pop(key, None)
        return data


class RemovePlayer(_Frozen):
    """Remove the player in a seat (busted or gone)."""

    name: Literal["remove_player"] = "remove_player"
    seat: _Seat


class MovePlayer(_Frozen):
    """Move the player in a seat out to another table (balancing)."""

    name: Literal["move_player"] = "move_player"
    seat: _Seat
    to_table: _Id


class AddChips(_Frozen):
    """A rebuy or add-on bought on the floor (TOURN-10..12): add ``chips`` to the stack of
    ``player`` in ``seat``, between hands. The table answers with ``stack_adjusted``
    (``reason`` "rebuy" or "add_on") carrying the command id; it refuses during a hand,
    for an empty seat, or when someone else sits there."""

    name: Literal["add_chips"] = "add_chips"
    seat: _Seat
    player: _Id
    chips: Annotated[int, Field(gt=0, le=10**9)]
    reason: Literal["rebuy", "add_on"]


class CloseTable(_Frozen):
    """Close the table (breaking it)."""

    name: Literal["close_table"] = "close_table"


Command = Annotated[
    Pause | Resume | SetLevel | CallClock | HandForHand | NextHand | SyncClock
    | ScheduleColourUp | SeatPlayer | RemovePlayer | MovePlayer | AddChips | CloseTable,
    Field(discriminator="name"),
]
COMMAND_NAMES: Final = frozenset({
    "pause", "resume", "set_level", "call_clock", "hand_for_hand", "next_hand", "sync_clock",
    "colour_up",
    "seat_player", "remove_player", "move_player", "add_chips", "close_table",
})


class CommandMessage(Envelope):
    """``table/{id}/cmd``: a command from the host, identified by ``command_id``."""

    command_id: _Id
    command: Command


class ReplyMessage(Envelope):
    """``table/{id}/reply``: ``{command_id, status, data|error}``; ``command_id`` is None
    only when the command was too malformed to carry one."""

    command_id: _Id | None
    status: Literal["ok", "error"]
    data: dict[str, JsonScalar] | None = None
    error: str | None = None


class AckMessage(Envelope):
    """``host/ack/{id}``: the host has stored every event up to ``acked`` (contiguous)."""

    kind: Literal["ack"] = "ack"
    acked: _Count


class ResendRequest(Envelope):
    """``host/ack/{id}``: the host saw a gap and asks for ``from_seq..to_seq`` again."""

    kind: Literal["resend"] = "resend"
    from_seq: Annotated[int, Field(ge=1)]
    to_seq: Annotated[int, Field(ge=1)]


class HostStatusMessage(Envelope):
    """``host/status`` (retained): ``{online, ts}``; ``table`` is ``*``."""

    table: Literal["*"] = "*"
    online: bool


HostAck = Annotated[AckMessage | ResendRequest, Field(discriminator="kind")]
_ACK_ADAPTER: Final[TypeAdapter[AckMessage | ResendRequest]] = TypeAdapter(HostAck)

_ID_ADAPTER: Final[TypeAdapter[str]] = TypeAdapter(_Id)

M = TypeVar("M", bound=BaseModel)


def _load_object(payload: bytes) -> dict[str, Any]:
    try:
        data = json.loads(payload)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        raise MessageRejected("payload is not JSON") from None
    if not isinstance(data, dict):
        raise MessageRejected("payload is not a JSON object")
    return data


def _command_id_of(data: dict[str, Any]) -> str | None:
    cid = data.get("command_id")
    try:
        return _ID_ADAPTER.validate_python(cid) if isinstance(cid, str) else None
    except ValidationError:
        return None


def _explain(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors()[:3]:
        where = ".".join(str(p) for p in err["loc"]) or "payload"
        parts.append(f"{where}: {err['msg']}")
    return "; ".join(parts)


def parse_message(model: type[M], payload: bytes) -> M:
    """Decode one inbound payload as ``model``; :class:`MessageRejected` says why not.

    The schema version is checked first, so a newer host gets a clear answer rather than
    a list of field errors.
    """
    data = _load_object(payload)
    command_id = _command_id_of(data)
    schema = data.get("schema")
    if schema != SCHEMA_VERSION:
        raise MessageRejected(f"schema version {schema!r} is not supported; this table "
                              f"speaks {SCHEMA_VERSION}", command_id)
    if model is CommandMessage:
        command = data.get("command")
        name = command.get("name") if isinstance(command, dict) else None
        if isinstance(name, str) and name not in COMMAND_NAMES:
            raise MessageRejected(f"unknown command {name[:40]!r}; known: "
                                  f"{', '.join(sorted(COMMAND_NAMES))}", command_id)
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise MessageRejected(f"malformed {model.__name__}: {_explain(exc)}",
                              command_id) from None


def parse_host_ack(payload: bytes) -> AckMessage | ResendRequest:
    """Decode a ``host/ack/{id}`` payload: an ack or a resend request."""
    data = _load_object(payload)
    if data.get("schema") != SCHEMA_VERSION:
        raise MessageRejected(f"schema version {data.get('schema')!r} is not supported")
    try:
        return _ACK_ADAPTER.validate_python(data)
    except ValidationError as exc:
        raise MessageRejected(f"malformed host ack: {_explain(exc)}") from None

