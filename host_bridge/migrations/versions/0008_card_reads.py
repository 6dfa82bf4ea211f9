"""The cards the tables' readers read (issue 21, the dispute timeline): the secret half of
each ``card_read`` event (``host_bridge.models.CardReadRecord``).

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "card_reads",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("table_id", sa.String(length=64), nullable=False),
        sa.Column("seq", sa.BigInteger(), nullable=False),
        sa.Column("hand_no", sa.Integer(), nullable=False),
        sa.Column("card", sa.String(length=2), nullable=False),
        sa.Column("received_at", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(
            ["table_id"], ["poker_tables.id"], name=op.f("fk_card_reads_table_id_poker_tables")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_card_reads")),
        sa.UniqueConstraint("table_id", "seq", name=op.f("uq_card_reads_table_id")),
    )


def downgrade() -> None:
    """Revert this revision."""
    op.drop_table("card_reads")
