"""The floor's alert acknowledgements (issue 20): who acknowledged which alert and when,
and when its condition cleared (``host_bridge.models.AlertAck``).

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "alert_acks",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("alert_id", sa.String(length=128), nullable=False),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("table_id", sa.String(length=64), nullable=True),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("since", sa.Float(), nullable=False),
        sa.Column("actor", sa.String(length=64), nullable=False),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("at", sa.Float(), nullable=False),
        sa.Column("cleared_at", sa.Float(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_alert_acks")),
    )
    with op.batch_alter_table("alert_acks", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_alert_acks_alert_id"), ["alert_id"],
                              unique=False)


def downgrade() -> None:
    """Revert this revision."""
    with op.batch_alter_table("alert_acks", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_alert_acks_alert_id"))
    op.drop_table("alert_acks")
