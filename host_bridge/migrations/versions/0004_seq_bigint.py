"""Seqs as 64-bit integers (issue 17: a table's seq is 1..2^63-1; PostgreSQL's INTEGER
stops at 2^31-1, so a long-lived table's events would stop storing there). SQLite's
INTEGER is already 64-bit; the column types change there too, so the schema matches the
models on both.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

#: (table, column, nullable) of every seq column
SEQ_COLUMNS = (
    ("poker_tables", "acked_seq", False),
    ("stacks", "seq", False),
    ("levels", "seq", False),
    ("hands", "first_seq", False),
    ("hands", "last_seq", True),
    ("events", "seq", False),
    ("hole_cards", "seq", False),
    ("seq_conflicts", "seq", False),
)


def _retype(old: type[sa.types.TypeEngine[int]], new: type[sa.types.TypeEngine[int]]
            ) -> None:
    tables: dict[str, list[tuple[str, bool]]] = {}
    for table, column, nullable in SEQ_COLUMNS:
        tables.setdefault(table, []).append((column, nullable))
    for table, columns in tables.items():
        with op.batch_alter_table(table) as batch:  # SQLite: the table is copied
            for column, nullable in columns:
                batch.alter_column(column, type_=new(), existing_type=old(),
                                   existing_nullable=nullable)


def upgrade() -> None:
    """Apply this revision."""
    _retype(sa.Integer, sa.BigInteger)


def downgrade() -> None:
    """Revert this revision."""
    _retype(sa.BigInteger, sa.Integer)
