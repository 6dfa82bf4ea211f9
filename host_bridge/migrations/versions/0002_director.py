"""The tournament director's journal: every input it acted on, in order (issue 9).

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "director_log",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("tournament", sa.String(length=64), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("body", sa.JSON(), nullable=False),
        sa.Column("at", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_director_log")),
        sa.UniqueConstraint("tournament", "seq", name=op.f("uq_director_log_tournament")),
    )
    with op.batch_alter_table("director_log", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_director_log_tournament"), ["tournament"],
                              unique=False)


def downgrade() -> None:
    """Revert this revision."""
    with op.batch_alter_table("director_log", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_director_log_tournament"))
    op.drop_table("director_log")
