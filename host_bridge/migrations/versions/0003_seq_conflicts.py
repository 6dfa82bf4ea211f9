"""Conflicting payloads for a stored seq, kept for audit (issue 17).

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "seq_conflicts",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("table_id", sa.String(length=64), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("topic", sa.String(length=16), nullable=False),
        sa.Column("boot", sa.String(length=64), nullable=False),
        sa.Column("stored_boot", sa.String(length=64), nullable=True),
        sa.Column("stored_hash", sa.String(length=64), nullable=False),
        sa.Column("payload_hash", sa.String(length=64), nullable=False),
        sa.Column("payload", sa.Text(), nullable=False),
        sa.Column("first_at", sa.Float(), nullable=False),
        sa.Column("last_at", sa.Float(), nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.Column("confirm_asked_at", sa.Float(), nullable=True),
        sa.Column("verdict", sa.String(length=16), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_seq_conflicts")),
        sa.UniqueConstraint("table_id", "seq", "topic", "payload_hash",
                            name=op.f("uq_seq_conflicts_table_id")),
    )
    with op.batch_alter_table("seq_conflicts", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_seq_conflicts_table_id"), ["table_id"],
                              unique=False)


def downgrade() -> None:
    """Revert this revision."""
    with op.batch_alter_table("seq_conflicts", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_seq_conflicts_table_id"))
    op.drop_table("seq_conflicts")
