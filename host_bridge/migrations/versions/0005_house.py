"""The house a table plays (issue 18): the house in force on each table (``house``, from
its last ``house_set``) and the unit each hand was played in (``hands.unit``, for the rake
ledger). Both are nullable: tables and hands stored before stay as they were.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Apply this revision."""
    with op.batch_alter_table("poker_tables") as batch:
        batch.add_column(sa.Column("house", sa.JSON(), nullable=True))
    with op.batch_alter_table("hands") as batch:
        batch.add_column(sa.Column("unit", sa.String(length=8), nullable=True))


def downgrade() -> None:
    """Revert this revision."""
    with op.batch_alter_table("hands") as batch:
        batch.drop_column("unit")
    with op.batch_alter_table("poker_tables") as batch:
        batch.drop_column("house")
