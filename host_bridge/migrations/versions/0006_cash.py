"""The cash room (issue 19): its games and model, one JSON row rewritten after every change
(``host_bridge.cash_room.CashRecord``).

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    op.create_table(
        "cash_room",
        sa.Column("id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("body", sa.JSON(), nullable=False),
        sa.Column("at", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_cash_room")),
    )


def downgrade() -> None:
    """Revert this revision."""
    op.drop_table("cash_room")
