"""Alembic environment: the engine comes from :func:`host_bridge.db.alembic_config` (the
bridge migrates itself on start), or from ``sqlalchemy.url`` when run by hand."""

from __future__ import annotations

from alembic import context
from sqlalchemy import Engine, create_engine

from host_bridge.models import Base

config = context.config
target_metadata = Base.metadata


def _engine() -> Engine:
    engine = config.attributes.get("engine")
    if isinstance(engine, Engine):
        return engine
    url = config.get_main_option("sqlalchemy.url")
    if not url:
        raise RuntimeError("no database: run the bridge (it migrates on start) or set "
                           "sqlalchemy.url")
    return create_engine(url)


def run_migrations_online() -> None:
    """Run the migrations on a live connection."""
    engine = _engine()
    with engine.connect() as connection:
        context.configure(connection=connection, target_metadata=target_metadata,
                          render_as_batch=connection.dialect.name == "sqlite",
                          compare_type=True)
        with context.begin_transaction():
            context.run_migrations()


if context.is_offline_mode():
    raise RuntimeError("offline (SQL script) migrations are not supported; run online")
run_migrations_online()
