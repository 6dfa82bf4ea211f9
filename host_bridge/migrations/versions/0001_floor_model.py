"""The floor model: tables, seats, players, stacks, levels, hands (with PHH), the event log,
hole cards and the audit log.

Revision ID: 0001
Revises: (none)
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "audit_log",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("actor", sa.String(length=64), nullable=False),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("table_id", sa.String(length=64), nullable=False),
        sa.Column("command_id", sa.String(length=64), nullable=False),
        sa.Column("command", sa.String(length=32), nullable=False),
        sa.Column("body", sa.JSON(), nullable=False),
        sa.Column("outcome", sa.String(length=16), nullable=False),
        sa.Column("reply", sa.JSON(), nullable=True),
        sa.Column("answered_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_audit_log")),
        sa.UniqueConstraint("command_id", name=op.f("uq_audit_log_command_id")),
    )
    with op.batch_alter_table("audit_log", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_audit_log_table_id"), ["table_id"], unique=False)

    op.create_table(
        "players",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("first_seen_ts", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_players")),
    )
    op.create_table(
        "poker_tables",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("online", sa.Boolean(), nullable=False),
        sa.Column("status_at", sa.Float(), nullable=True),
        sa.Column("boot", sa.String(length=64), nullable=True),
        sa.Column("acked_seq", sa.Integer(), nullable=False),
        sa.Column("level", sa.Integer(), nullable=False),
        sa.Column("paused", sa.Boolean(), nullable=False),
        sa.Column("hand_for_hand", sa.Boolean(), nullable=False),
        sa.Column("colour_up_at_level", sa.Integer(), nullable=True),
        sa.Column("clock_on_seat", sa.Integer(), nullable=True),
        sa.Column("closed", sa.Boolean(), nullable=False),
        sa.Column("hand_no", sa.Integer(), nullable=False),
        sa.Column("hand_in_progress", sa.Boolean(), nullable=False),
        sa.Column("last_event_ts", sa.Float(), nullable=True),
        sa.Column("snapshot", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_poker_tables")),
    )
    op.create_table(
        "events",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("table_id", sa.String(length=64), nullable=False),
        sa.Column("boot", sa.String(length=64), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("ts", sa.Float(), nullable=False),
        sa.Column("payload", sa.Text(), nullable=False),
        sa.Column("applied", sa.Boolean(), nullable=False),
        sa.Column("received_at", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(
            ["table_id"], ["poker_tables.id"], name=op.f("fk_events_table_id_poker_tables")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_events")),
        sa.UniqueConstraint("table_id", "seq", name=op.f("uq_events_table_id")),
    )
    op.create_table(
        "hands",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("table_id", sa.String(length=64), nullable=False),
        sa.Column("hand_no", sa.Integer(), nullable=False),
        sa.Column("boot", sa.String(length=64), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("seats", sa.JSON(), nullable=False),
        sa.Column("start_stacks", sa.JSON(), nullable=False),
        sa.Column("end_stacks", sa.JSON(), nullable=True),
        sa.Column("small_blind", sa.Integer(), nullable=False),
        sa.Column("big_blind", sa.Integer(), nullable=False),
        sa.Column("board", sa.JSON(), nullable=False),
        sa.Column("rake", sa.Integer(), nullable=False),
        sa.Column("first_seq", sa.Integer(), nullable=False),
        sa.Column("last_seq", sa.Integer(), nullable=True),
        sa.Column("started_ts", sa.Float(), nullable=False),
        sa.Column("ended_ts", sa.Float(), nullable=True),
        sa.Column("phh", sa.Text(), nullable=True),
        sa.Column("phh_public", sa.Text(), nullable=True),
        sa.Column("phh_error", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(
            ["table_id"], ["poker_tables.id"], name=op.f("fk_hands_table_id_poker_tables")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_hands")),
        sa.UniqueConstraint("table_id", "hand_no", name=op.f("uq_hands_table_id")),
    )
    with op.batch_alter_table("hands", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_hands_table_id"), ["table_id"], unique=False)

    op.create_table(
        "hole_cards",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("table_id", sa.String(length=64), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("hand_no", sa.Integer(), nullable=False),
        sa.Column("player", sa.Integer(), nullable=False),
        sa.Column("cards", sa.JSON(), nullable=False),
        sa.Column("received_at", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(
            ["table_id"], ["poker_tables.id"], name=op.f("fk_hole_cards_table_id_poker_tables")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_hole_cards")),
        sa.UniqueConstraint("table_id", "seq", name=op.f("uq_hole_cards_table_id")),
    )
    op.create_table(
        "levels",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("table_id", sa.String(length=64), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("level", sa.Integer(), nullable=False),
        sa.Column("ts", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(
            ["table_id"], ["poker_tables.id"], name=op.f("fk_levels_table_id_poker_tables")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_levels")),
    )
    with op.batch_alter_table("levels", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_levels_table_id"), ["table_id"], unique=False)

    op.create_table(
        "seats",
        sa.Column("table_id", sa.String(length=64), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.String(length=64), nullable=False),
        sa.Column("stack", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_seats_player_id_players")
        ),
        sa.ForeignKeyConstraint(
            ["table_id"], ["poker_tables.id"], name=op.f("fk_seats_table_id_poker_tables")
        ),
        sa.PrimaryKeyConstraint("table_id", "seat", name=op.f("pk_seats")),
    )
    op.create_table(
        "stacks",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("table_id", sa.String(length=64), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.String(length=64), nullable=True),
        sa.Column("chips", sa.Integer(), nullable=False),
        sa.Column("hand_no", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(
            ["table_id"], ["poker_tables.id"], name=op.f("fk_stacks_table_id_poker_tables")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_stacks")),
    )
    with op.batch_alter_table("stacks", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_stacks_table_id"), ["table_id"], unique=False)


def downgrade() -> None:
    """Revert this revision."""
    with op.batch_alter_table("stacks", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_stacks_table_id"))

    op.drop_table("stacks")
    op.drop_table("seats")
    with op.batch_alter_table("levels", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_levels_table_id"))

    op.drop_table("levels")
    op.drop_table("hole_cards")
    with op.batch_alter_table("hands", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_hands_table_id"))

    op.drop_table("hands")
    op.drop_table("events")
    op.drop_table("poker_tables")
    op.drop_table("players")
    with op.batch_alter_table("audit_log", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_audit_log_table_id"))

    op.drop_table("audit_log")
