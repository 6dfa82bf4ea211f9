"""The MQTT plumbing of the wire format (DESIGN.md, Wire format): the envelopes that carry
the vocabulary of :mod:`controller.events` on each topic, and the functions that parse an
inbound payload into them.

Every payload is JSON with ``schema``, ``table``, ``boot``, ``seq`` and ``ts``. For what the
table sends, ``boot`` is the controller's boot id and ``seq`` the table's event counter,
strictly increasing across boots (an event keeps the boot and seq it was journaled with,
so a resend is byte-for-byte the original). For what the host sends, they are the host's.

Hole and burn cards never appear in a public model, nor the card a reader read: the secret
events (:class:`~controller.events.HoleCardsDealt`, :class:`~controller.events.BurnedCard`,
:class:`~controller.events.CardSeen`) are
what the table hands the journal, and the journal splits each into a public face on
``event`` and a :class:`SecureCards` on ``secure/cards``, both with the same seq.

``schema`` is 2: version 2 split version 1's ``table_changed`` into one kind per change
(:mod:`controller.events.union` has the versioning rules); a payload of another version
is refused with that reason before its fields are looked at.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Final, Literal, TypeVar

from pydantic import BaseModel, Field, TypeAdapter, ValidationError

from controller.events import (
    COMMAND_NAMES,
    BurnedCard,
    CardSeen,
    Command,
    Frozen,
    HoleCardsDealt,
    JsonScalar,
    PublicState,
    SecretEvent,
    TableEvent,
)
from controller.events.base import CardText, Count, Id
from controller.sync.errors import MessageRejected

__all__ = [
    "SCHEMA_VERSION", "SEQ_MAX", "AckMessage", "CommandMessage", "Envelope", "EventMessage",
    "HostAck", "HostStatusMessage", "ReplyMessage", "ResendRequest", "SecureCards", "Seq",
    "SeqOrZero", "StateMessage", "StatusMessage", "parse_host_ack", "parse_message",
]

SCHEMA_VERSION: Final = 2
#: the largest seq on the wire (a signed 64-bit integer: what the journal and the stores
#: keep); anything above, below 1 on an event, or below 0 elsewhere is refused
SEQ_MAX: Final = 2**63 - 1
#: an event's seq: 1..2^63-1 (DESIGN, Wire format)
Seq = Annotated[int, Field(ge=1, le=SEQ_MAX)]
#: the seq of a message that is not an event (a status, a state, a reply, an ack): the last
#: event's seq, 0 before the first
SeqOrZero = Annotated[int, Field(ge=0, le=SEQ_MAX)]
_CHANGES: Final = {1: "version 2 split table_changed into one kind per change"}


# ---------------------------------------------------------------------------- envelopes
class Envelope(Frozen):
    """The fields every payload carries."""

    schema_version: Literal[2] = Field(default=SCHEMA_VERSION, alias="schema")
    table: Id
    boot: Id
    seq: SeqOrZero
    ts: float

    def to_wire(self) -> bytes:
        """The JSON payload, compact, with the wire names."""
        return self.model_dump_json(by_alias=True).encode()


class EventMessage(Envelope):
    """``table/{id}/event``: one accepted event."""

    seq: Seq
    event: TableEvent


class SecureCards(Envelope):
    """``table/{id}/secure/cards``: the hidden cards of the event with the same seq: a
    player's hole cards (``what`` "hole", of a ``hole_dealt``), a burn card ("burn", of a
    ``burn``) or the card a reader read ("read", of a ``card_read``); ``player`` is None
    but for hole cards."""

    seq: Seq
    hand_no: Annotated[int, Field(ge=1)]
    player: Count | None = None
    cards: tuple[CardText | None, ...]
    what: Literal["hole", "burn", "read"] = "hole"

    @classmethod
    def of(cls, event: SecretEvent, *, table: str, boot: str, seq: int,
           ts: float) -> SecureCards:
        """The secure payload of a secret event."""
        match event:
            case HoleCardsDealt():
                return cls(table=table, boot=boot, seq=seq, ts=ts, hand_no=event.hand_no,
                           player=event.player, cards=event.cards)
            case BurnedCard():
                return cls(table=table, boot=boot, seq=seq, ts=ts, hand_no=event.hand_no,
                           cards=(event.card,), what="burn")
            case CardSeen():
                return cls(table=table, boot=boot, seq=seq, ts=ts, hand_no=event.hand_no,
                           cards=(event.card,), what="read")


class StateMessage(Envelope):
    """``table/{id}/state`` (retained): the public snapshot as of ``seq``."""

    state: PublicState


class StatusMessage(Envelope):
    """``table/{id}/status`` (retained): ``online``, or ``offline`` (also the Will)."""

    status: Literal["online", "offline"]


# ---------------------------------------------------------------------------- commands
class CommandMessage(Envelope):
    """``table/{id}/cmd``: a command from the host, identified by ``command_id``."""

    command_id: Id
    command: Command


class ReplyMessage(Envelope):
    """``table/{id}/reply``: ``{command_id, status, data|error}``; ``command_id`` is None
    only when the command was too malformed to carry one."""

    command_id: Id | None
    status: Literal["ok", "error"]
    data: dict[str, JsonScalar] | None = None
    error: str | None = None


class AckMessage(Envelope):
    """``host/ack/{id}``: the host has stored every event up to ``acked`` (contiguous)."""

    kind: Literal["ack"] = "ack"
    acked: SeqOrZero


class ResendRequest(Envelope):
    """``host/ack/{id}``: the host saw a gap and asks for ``from_seq..to_seq`` again."""

    kind: Literal["resend"] = "resend"
    from_seq: Seq
    to_seq: Seq


class HostStatusMessage(Envelope):
    """``host/status`` (retained): ``{online, ts}``; ``table`` is ``*``."""

    table: Literal["*"] = "*"
    online: bool


HostAck = Annotated[AckMessage | ResendRequest, Field(discriminator="kind")]
_ACK_ADAPTER: Final[TypeAdapter[AckMessage | ResendRequest]] = TypeAdapter(HostAck)

_ID_ADAPTER: Final[TypeAdapter[str]] = TypeAdapter(Id)

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


def _unsupported(schema: object) -> str:
    why = _CHANGES.get(schema) if isinstance(schema, int) else None
    return (f"schema version {schema!r} is not supported; this side speaks "
            f"{SCHEMA_VERSION}" + (f" ({why}): upgrade the sender" if why else ""))


def parse_message(model: type[M], payload: bytes) -> M:
    """Decode one inbound payload as ``model``; :class:`MessageRejected` says why not.

    The schema version is checked first, so a newer host gets a clear answer rather than
    a list of field errors.
    """
    data = _load_object(payload)
    command_id = _command_id_of(data)
    schema = data.get("schema")
    if schema != SCHEMA_VERSION:
        raise MessageRejected(_unsupported(schema), command_id)
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
        raise MessageRejected(_unsupported(data.get("schema")))
    try:
        return _ACK_ADAPTER.validate_python(data)
    except ValidationError as exc:
        raise MessageRejected(f"malformed host ack: {_explain(exc)}") from None

