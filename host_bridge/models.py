"""The floor model in the store (SQLAlchemy 2, typed): tables, seats, players, stacks,
levels, hands with their PHH, the event log, the hole cards, and the audit log.

Hole cards live in :class:`HoleCards` and in :attr:`Hand.phh` only, the cards the readers
read in :class:`CardReadRecord` only; every other column is public. The migrations in
``host_bridge/migrations`` must match these models (a test runs Alembic's comparison).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}
ID = 64  # wire ids are at most 64 characters


class Base(DeclarativeBase):
    """The declarative base; constraint names are fixed so migrations are stable."""

    metadata = MetaData(naming_convention=NAMING)


class PokerTable(Base):
    """One table on the floor, as its events and status left it."""

    __tablename__ = "poker_tables"

    id: Mapped[str] = mapped_column(String(ID), primary_key=True)
    online: Mapped[bool] = mapped_column(Boolean, default=False)
    status_at: Mapped[float | None] = mapped_column(Float)  # the status message's ts
    boot: Mapped[str | None] = mapped_column(String(ID))  # boot of the last event stored
    acked_seq: Mapped[int] = mapped_column(BigInteger, default=0)  # highest contiguous seq
    level: Mapped[int] = mapped_column(Integer, default=1)
    paused: Mapped[bool] = mapped_column(Boolean, default=False)
    hand_for_hand: Mapped[bool] = mapped_column(Boolean, default=False)
    colour_up_at_level: Mapped[int | None] = mapped_column(Integer)
    clock_on_seat: Mapped[int | None] = mapped_column(Integer)
    closed: Mapped[bool] = mapped_column(Boolean, default=False)
    hand_no: Mapped[int] = mapped_column(Integer, default=0)
    hand_in_progress: Mapped[bool] = mapped_column(Boolean, default=False)
    last_event_ts: Mapped[float | None] = mapped_column(Float)
    snapshot: Mapped[str | None] = mapped_column(Text)  # the table's retained state (JSON)
    # the house in force, as its last house_set named it (HouseView: name, game, kind, unit,
    # label); None until the table journals one (issue 18)
    house: Mapped[dict[str, str] | None] = mapped_column(JSON)


class Player(Base):
    """A player the floor has seen, by the id the tables use."""

    __tablename__ = "players"

    id: Mapped[str] = mapped_column(String(ID), primary_key=True)
    first_seen_ts: Mapped[float] = mapped_column(Float)


class Seat(Base):
    """One occupied seat: who sits there and the chips in front of them."""

    __tablename__ = "seats"

    table_id: Mapped[str] = mapped_column(ForeignKey("poker_tables.id"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id"))
    stack: Mapped[int] = mapped_column(Integer)


class StackRecord(Base):
    """A player's stack at a moment: seated, after a hand, or voided back."""

    __tablename__ = "stacks"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("poker_tables.id"), index=True)
    seq: Mapped[int] = mapped_column(BigInteger)
    seat: Mapped[int] = mapped_column(Integer)
    player_id: Mapped[str | None] = mapped_column(String(ID))
    chips: Mapped[int] = mapped_column(Integer)
    hand_no: Mapped[int | None] = mapped_column(Integer)


class LevelRecord(Base):
    """A table moving to a blind level."""

    __tablename__ = "levels"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("poker_tables.id"), index=True)
    seq: Mapped[int] = mapped_column(BigInteger)
    level: Mapped[int] = mapped_column(Integer)
    ts: Mapped[float] = mapped_column(Float)


class Hand(Base):
    """One hand at a table; ``phh`` holds the full history once it ended (hole cards in
    it), ``phh_public`` the same with unshown hole cards masked."""

    __tablename__ = "hands"
    __table_args__ = (UniqueConstraint("table_id", "hand_no"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("poker_tables.id"), index=True)
    hand_no: Mapped[int] = mapped_column(Integer)
    boot: Mapped[str] = mapped_column(String(ID))
    status: Mapped[str] = mapped_column(String(16))  # in_progress, ended, voided
    seats: Mapped[list[int]] = mapped_column(JSON)
    start_stacks: Mapped[list[int]] = mapped_column(JSON)
    end_stacks: Mapped[list[int] | None] = mapped_column(JSON)
    small_blind: Mapped[int] = mapped_column(Integer)
    big_blind: Mapped[int] = mapped_column(Integer)
    board: Mapped[list[str]] = mapped_column(JSON)
    rake: Mapped[int] = mapped_column(Integer, default=0)
    # the unit of the house in force when the hand started (kr, cent, chip): the rake
    # ledger's unit; None when the table had named no house (issue 18)
    unit: Mapped[str | None] = mapped_column(String(8))
    first_seq: Mapped[int] = mapped_column(BigInteger)
    last_seq: Mapped[int | None] = mapped_column(BigInteger)
    started_ts: Mapped[float] = mapped_column(Float)
    ended_ts: Mapped[float | None] = mapped_column(Float)
    phh: Mapped[str | None] = mapped_column(Text)
    phh_public: Mapped[str | None] = mapped_column(Text)
    phh_error: Mapped[str | None] = mapped_column(Text)  # why no PHH could be written


class EventRecord(Base):
    """One event as the table sent it (public payload), stored once per (table, seq)."""

    __tablename__ = "events"
    __table_args__ = (UniqueConstraint("table_id", "seq"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("poker_tables.id"))
    boot: Mapped[str] = mapped_column(String(ID))
    seq: Mapped[int] = mapped_column(BigInteger)
    kind: Mapped[str] = mapped_column(String(32))
    ts: Mapped[float] = mapped_column(Float)
    payload: Mapped[str] = mapped_column(Text)
    applied: Mapped[bool] = mapped_column(Boolean, default=False)
    received_at: Mapped[float] = mapped_column(Float)


class HoleCards(Base):
    """The secret half of a ``hole_dealt`` event (``secure/cards``, same seq)."""

    __tablename__ = "hole_cards"
    __table_args__ = (UniqueConstraint("table_id", "seq"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("poker_tables.id"))
    seq: Mapped[int] = mapped_column(BigInteger)
    hand_no: Mapped[int] = mapped_column(Integer)
    player: Mapped[int] = mapped_column(Integer)
    cards: Mapped[list[str | None]] = mapped_column(JSON)
    received_at: Mapped[float] = mapped_column(Float)


class CardReadRecord(Base):
    """The secret half of a ``card_read`` event (``secure/cards``, ``what`` "read", same
    seq): which card a table's reader read. Secret like :class:`HoleCards`: only the
    dispute timeline shows it, to the roles it lets see cards."""

    __tablename__ = "card_reads"
    __table_args__ = (UniqueConstraint("table_id", "seq"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("poker_tables.id"))
    seq: Mapped[int] = mapped_column(BigInteger)
    hand_no: Mapped[int] = mapped_column(Integer)
    card: Mapped[str] = mapped_column(String(2))
    received_at: Mapped[float] = mapped_column(Float)


class AuditEntry(Base):
    """One command a person sent to a table, who sent it, and how the table answered."""

    __tablename__ = "audit_log"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    actor: Mapped[str] = mapped_column(String(64))
    role: Mapped[str] = mapped_column(String(16))
    table_id: Mapped[str] = mapped_column(String(ID), index=True)
    command_id: Mapped[str] = mapped_column(String(ID), unique=True)
    command: Mapped[str] = mapped_column(String(32))
    body: Mapped[dict[str, object]] = mapped_column(JSON)
    outcome: Mapped[str] = mapped_column(String(16))  # sent, ok, error, timeout, unsent
    reply: Mapped[dict[str, object] | None] = mapped_column(JSON)
    answered_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class SeqConflict(Base):
    """A payload a table's topic carried for a seq that already held another one (issue 17):
    kept for audit, whichever was first stands. ``payload`` is the conflicting payload as
    the bridge parsed it (a ``secure/cards`` one holds hole cards: shown to the card role
    only); ``count`` how many times it came; ``confirm_asked_at`` when the table was asked
    to resend that seq (once per seq); ``verdict`` is ``stored`` once the table resent the
    stored payload (the conflicting one was not the table's)."""

    __tablename__ = "seq_conflicts"
    __table_args__ = (UniqueConstraint("table_id", "seq", "topic", "payload_hash"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(String(ID), index=True)
    seq: Mapped[int] = mapped_column(BigInteger)
    topic: Mapped[str] = mapped_column(String(16))  # event, secure/cards
    boot: Mapped[str] = mapped_column(String(ID))  # the conflicting payload's boot
    stored_boot: Mapped[str | None] = mapped_column(String(ID))
    stored_hash: Mapped[str] = mapped_column(String(64))  # sha256 of the stored payload
    payload_hash: Mapped[str] = mapped_column(String(64))  # sha256 of the conflicting one
    payload: Mapped[str] = mapped_column(Text)
    first_at: Mapped[float] = mapped_column(Float)
    last_at: Mapped[float] = mapped_column(Float)
    count: Mapped[int] = mapped_column(Integer, default=1)
    confirm_asked_at: Mapped[float | None] = mapped_column(Float)
    verdict: Mapped[str | None] = mapped_column(String(16))


class AlertAck(Base):
    """A floor alert acknowledged (issue 20): which alert (its stable ``alert_id``, kind,
    table and what it said), who acknowledged it and when (the bridge's clock); and when its
    condition cleared (None while it lasts: a restarted bridge shows it acknowledged)."""

    __tablename__ = "alert_acks"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    alert_id: Mapped[str] = mapped_column(String(128), index=True)
    kind: Mapped[str] = mapped_column(String(32))
    table_id: Mapped[str | None] = mapped_column(String(ID))
    text: Mapped[str] = mapped_column(Text)
    since: Mapped[float] = mapped_column(Float)  # when the alert was raised
    actor: Mapped[str] = mapped_column(String(64))
    role: Mapped[str] = mapped_column(String(16))
    at: Mapped[float] = mapped_column(Float)
    cleared_at: Mapped[float | None] = mapped_column(Float)
