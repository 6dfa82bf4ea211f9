"""The wire format, defined once (DESIGN.md, Wire format): pydantic v2 models that the
table and the host bridge both import.

Every payload is JSON with ``schema``, ``table``, ``boot``, ``seq`` and ``ts``. For what the
table sends, ``boot`` is the controller's boot id and ``seq`` the table's event counter,
strictly increasing across boots (an event keeps the boot and seq it was journaled with,
so a resend is byte-for-byte the original). For what the host sends, they are the host's.

Hole cards never appear in a public model: :class:`HoleCardsDealt` is what the table hands
the journal, and the outbox splits it into a public :class:`HoleDealt` (who, how many) on
``event`` and a :class:`SecureCards` on ``secure/cards``, both with the same seq.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Final, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from controller.sync.errors import MessageRejected

SCHEMA_VERSION: Final = 1

_Id = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.:-]+$")]
_Card = Annotated[str, Field(pattern=r"^[2-9TJQKA][cdhs]$")]
_Chips = Annotated[int, Field(ge=0)]
_Seat = Annotated[int, Field(ge=1, le=10)]
_Count = Annotated[int, Field(ge=0)]

JsonScalar = str | int | float | bool | None


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)


# ---------------------------------------------------------------------------- events
class HandStarted(_Frozen):
    """A hand began; ``seats`` in position order, ``stacks`` before the forced bets."""

    kind: Literal["hand_started"] = "hand_started"
    hand_no: Annotated[int, Field(ge=1)]
    seats: tuple[_Seat, ...]
    stacks: tuple[_Chips, ...]
    small_blind: _Chips = 0
    big_blind: _Chips = 0


class HoleDealt(_Frozen):
    """A player received hole cards (public: how many, never which)."""

    kind: Literal["hole_dealt"] = "hole_dealt"
    hand_no: Annotated[int, Field(ge=1)]
    player: _Count
    count: _Count


class ActionAccepted(_Frozen):
    """A betting or showdown action the rules accepted; shown cards are public."""

    kind: Literal["action"] = "action"
    hand_no: Annotated[int, Field(ge=1)]
    player: _Count
    action: Literal["fold", "check", "call", "bet_raise", "show", "muck"]
    amount: _Chips | None = None  # call: chips put in; bet_raise: the total bet to
    cards: tuple[_Card, ...] = ()


class BoardDealt(_Frozen):
    """Community cards: the flop, the turn or the river."""

    kind: Literal["board"] = "board"
    hand_no: Annotated[int, Field(ge=1)]
    cards: tuple[_Card, ...]


class PotAwarded(_Frozen):
    """One pot after rake, with each winner's share ``(player, chips)`` (POT-2, POT-5)."""

    kind: Literal["pot_awarded"] = "pot_awarded"
    hand_no: Annotated[int, Field(ge=1)]
    amount: _Chips
    shares: tuple[tuple[_Count, _Chips], ...]


class HandEnded(_Frozen):
    """The hand is settled; ``stacks`` after it, in the positions of :class:`HandStarted`."""

    kind: Literal["hand_ended"] = "hand_ended"
    hand_no: Annotated[int, Field(ge=1)]
    stacks: tuple[_Chips, ...]
    rake: _Chips = 0


class HandVoided(_Frozen):
    """The hand in progress is void and every stack is back to its start (CRASH-1, DEAL-8)."""

    kind: Literal["hand_voided"] = "hand_voided"
    hand_no: Annotated[int, Field(ge=1)]
    stacks: tuple[_Chips, ...]
    reason: str


TableChange = Literal[
    "paused", "resumed", "level_set", "clock_called", "hand_for_hand",
    "colour_up_scheduled", "player_seated", "player_removed", "player_moved", "table_closed",
]


class TableChanged(_Frozen):
    """A change to the table outside a hand, usually the effect of a host command."""

    kind: Literal["table_changed"] = "table_changed"
    change: TableChange
    seat: _Seat | None = None
    player: _Id | None = None
    stack: _Chips | None = None
    level: Annotated[int, Field(ge=1)] | None = None
    to_table: _Id | None = None
    on: bool | None = None
    command_id: _Id | None = None


EventBody = Annotated[
    HandStarted | HoleDealt | ActionAccepted | BoardDealt | PotAwarded | HandEnded
    | HandVoided | TableChanged,
    Field(discriminator="kind"),
]


class HoleCardsDealt(_Frozen):
    """What the table reports when it deals hole cards: secret, never public as is."""

    hand_no: Annotated[int, Field(ge=1)]
    player: _Count
    cards: tuple[_Card | None, ...]  # None: a card nobody read

    def public(self) -> HoleDealt:
        """The public face of this event: who got how many cards."""
        return HoleDealt(hand_no=self.hand_no, player=self.player, count=len(self.cards))


TableEvent = HandStarted | HoleDealt | ActionAccepted | BoardDealt | PotAwarded | HandEnded \
    | HandVoided | TableChanged | HoleCardsDealt


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
    """``table/{id}/secure/cards``: the hole cards of the event with the same seq."""

    hand_no: Annotated[int, Field(ge=1)]
    player: _Count
    cards: tuple[_Card | None, ...]


class SeatView(_Frozen):
    """One occupied seat in the public snapshot."""

    seat: _Seat
    player: _Id
    stack: _Chips


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


class ScheduleColourUp(_Frozen):
    """Colour up the smallest chips when ``at_level`` begins."""

    name: Literal["colour_up"] = "colour_up"
    at_level: Annotated[int, Field(ge=1, le=1000)]


class SeatPlayer(_Frozen):
    """Seat a player with a stack."""

    name: Literal["seat_player"] = "seat_player"
    seat: _Seat
    player: _Id
    stack: Annotated[int, Field(gt=0)]


class RemovePlayer(_Frozen):
    """Remove the player in a seat (busted or gone)."""

    name: Literal["remove_player"] = "remove_player"
    seat: _Seat


class MovePlayer(_Frozen):
    """Move the player in a seat out to another table (balancing)."""

    name: Literal["move_player"] = "move_player"
    seat: _Seat
    to_table: _Id


class CloseTable(_Frozen):
    """Close the table (breaking it)."""

    name: Literal["close_table"] = "close_table"


Command = Annotated[
    Pause | Resume | SetLevel | CallClock | HandForHand | ScheduleColourUp | SeatPlayer
    | RemovePlayer | MovePlayer | CloseTable,
    Field(discriminator="name"),
]
COMMAND_NAMES: Final = frozenset({
    "pause", "resume", "set_level", "call_clock", "hand_for_hand", "colour_up",
    "seat_player", "remove_player", "move_player", "close_table",
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

