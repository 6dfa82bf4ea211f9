"""The store: engine, sessions, and the schema brought up to date by Alembic on start.

SQLite by default (the file is created on first start, in WAL mode, foreign keys on);
PostgreSQL when ``database_url`` says ``postgresql+psycopg://...``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.exc import ArgumentError, NoSuchModuleError, OperationalError
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.pool import StaticPool

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
_BEGIN = "pitboss_sqlite_begin"  # execution option: how a SQLite transaction begins
#: A SQLite file's connection pool (kept, overflow). Every page and REST route that is a
#: plain function runs on the server's worker threads (40 at once), each holding one
#: connection while it reads; the event loop (the director, the alert board, the feed's
#: pages), the ingest thread and the command desk hold one each besides. The default pool
#: (5 + 10) made the sixteenth wait and fail after 30 s ("QueuePool limit of size 5
#: overflow 10 reached") when pages and the director were busy together; a SQLite
#: connection is an open file, so the pool covers every thread that can hold one.
SQLITE_POOL = (8, 56)


class StoreError(Exception):
    """The store could not be opened or migrated; the message says what to check."""


def make_engine(url: str) -> Engine:
    """An engine for ``url``; an in-memory SQLite is shared by every session."""
    kwargs: dict[str, Any] = {}
    is_sqlite = url.startswith("sqlite")
    if is_sqlite:
        kwargs["connect_args"] = {"check_same_thread": False}
        if url in ("sqlite://", "sqlite:///:memory:"):
            kwargs["poolclass"] = StaticPool
        else:  # see SQLITE_POOL
            kwargs["pool_size"], kwargs["max_overflow"] = SQLITE_POOL
    try:
        engine = create_engine(url, **kwargs)
    except (ArgumentError, NoSuchModuleError) as exc:
        raise StoreError(f"database_url {url.split('@')[-1]!r} is not usable: {exc}; use "
                         "sqlite:///path.db or postgresql+psycopg://user@host/db") from None
    if is_sqlite:
        event.listen(engine, "connect", _sqlite_pragmas)
        event.listen(engine, "begin", _sqlite_begin)
    return engine


def _sqlite_begin(connection: Connection) -> None:
    mode = connection.get_execution_options().get(_BEGIN, "")
    connection.exec_driver_sql(f"BEGIN {mode}".strip())


def writer_sessions(sessions: sessionmaker[Session]) -> sessionmaker[Session]:
    """Sessions like ``sessions`` whose SQLite transactions begin IMMEDIATE: they take the
    write lock first (waiting for it up to busy_timeout). The bridge's ingest (on its own
    thread) and command desk write through these: a deferred transaction that reads and
    then writes fails at once ("database is locked") when another connection committed in
    between. Plain sessions (the API's reads) stay deferred and never wait for a writer."""
    bind = sessions.kw.get("bind")
    if not isinstance(bind, Engine) or bind.dialect.name != "sqlite":
        return sessions
    return sessionmaker(bind.execution_options(**{_BEGIN: "IMMEDIATE"}),
                        **{k: v for k, v in sessions.kw.items() if k != "bind"})


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    # the driver's own transaction handling would let a SAVEPOINT open (and its RELEASE
    # commit) a transaction of its own: turn it off and BEGIN ourselves (see the "begin"
    # listener), so a batch is one transaction and a savepoint only a savepoint
    dbapi_connection.isolation_level = None
    cur = dbapi_connection.cursor()
    cur.execute("PRAGMA foreign_keys=ON")
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA busy_timeout=5000")
    cur.close()


def alembic_config(engine: Engine) -> Config:
    """An Alembic config pointed at the bridge's migrations and ``engine``."""
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.attributes["engine"] = engine
    return cfg


def migrate(engine: Engine) -> None:
    """Create or upgrade the schema to the newest revision."""
    try:
        command.upgrade(alembic_config(engine), "head")
    except OperationalError as exc:
        raise StoreError(f"cannot migrate the store at {engine.url!r}: {exc.orig}; check the "
                         "path or the server and the user's rights") from None


def session_factory(engine: Engine) -> sessionmaker[Session]:
    """Sessions that keep loaded values after commit."""
    return sessionmaker(engine, expire_on_commit=False)


@contextmanager
def transaction(sessions: sessionmaker[Session]) -> Iterator[Session]:
    """A session committed on success and rolled back on error."""
    with sessions() as session, session.begin():
        yield session
