"""The store: created and migrated on first start, the models equal to the migrations, and
the same bridge on a real PostgreSQL (Debian's packages) where one is installed."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from fastapi.testclient import TestClient
from sqlalchemy import Engine, inspect, select, update

from host_bridge.app import create_app
from host_bridge.db import StoreError, make_engine, migrate, session_factory
from host_bridge.models import Base, EventRecord, Player, PokerTable
from host_bridge.settings import Role
from tests.bridge.conftest import auth, make_settings, seat_and_play
from tests.bridge.tablesim import WireTable


def model_drift(engine: Engine) -> list[object]:
    """What Alembic would change to make the migrated schema match the models."""
    with engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        return list(compare_metadata(context, Base.metadata))


def test_the_migrations_create_exactly_the_models_sqlite(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'm.db'}")
    migrate(engine)
    assert model_drift(engine) == []


def test_the_store_is_created_on_first_start_and_kept_on_the_next(tmp_path: Path) -> None:
    db = tmp_path / "floor" / "bridge.db"
    db.parent.mkdir()
    settings = make_settings(tmp_path, database_url=f"sqlite:///{db}")
    app = create_app(settings)
    assert db.exists()
    assert "alembic_version" in inspect(app.state.engine).get_table_names()
    seat_and_play(app.state.bridge)
    app.state.engine.dispose()
    again = create_app(settings)  # a restart: migrations are a no-op, the data stays
    with TestClient(again) as client:
        body = client.get("/api/v1/tables/t1", headers=auth(Role.VIEWER)).json()
    assert [s["stack"] for s in body["seats"]] == [995, 970, 1035]


def test_an_unusable_database_url_says_what_to_use() -> None:
    with pytest.raises(StoreError, match=r"sqlite:///path\.db or postgresql"):
        make_engine("nosuchdb://x")


def test_an_unreachable_sqlite_path_says_what_to_check(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'missing-dir' / 'x.db'}")
    with pytest.raises(StoreError, match="check the path"):
        migrate(engine)


def test_the_bridge_runs_on_postgresql(tmp_path: Path, postgres_url: str) -> None:
    app = create_app(make_settings(tmp_path, database_url=postgres_url))
    assert model_drift(app.state.engine) == []
    seat_and_play(app.state.bridge)
    with TestClient(app) as client:
        body = client.get("/api/v1/tables/t1", headers=auth(Role.VIEWER)).json()
        assert [s["stack"] for s in body["seats"]] == [995, 970, 1035]
        phh = client.get("/api/v1/tables/t1/hands/1/phh", headers=auth(Role.BROADCAST))
        assert phh.status_code == 200 and '"d dh p1 AsKs"' in phh.text
        r = client.post("/api/v1/tables/t1/commands", headers=auth(Role.FLOOR),
                        json={"command": {"name": "pause"}})
        assert r.status_code == 503  # no broker here; the audit row is written all the same
        audit = client.get("/api/v1/audit", headers=auth(Role.ADMIN)).json()
        assert audit["data"][0]["outcome"] == "unsent"
    app.state.engine.dispose()


def test_a_savepoint_on_sqlite_stays_inside_the_batch_transaction(tmp_path: Path) -> None:
    # the sqlite3 driver would otherwise open a transaction at SAVEPOINT and commit it at
    # RELEASE: each message of a batch its own commit, and the batch not atomic
    engine = make_engine(f"sqlite:///{tmp_path / 's.db'}")
    migrate(engine)
    sessions = session_factory(engine)
    with sessions() as session, session.begin():
        with session.begin_nested():
            session.add(Player(id="p1", first_seen_ts=1.0))
        raw = session.connection().connection.dbapi_connection
        assert raw is not None and raw.in_transaction
        session.rollback()
    with sessions() as session:
        assert session.get(Player, "p1") is None  # the outer rollback undid the savepoint


def test_a_table_whose_seq_passes_2_to_the_31_keeps_storing_on_postgresql(
        tmp_path: Path, postgres_url: str) -> None:
    """A seq is 1..2^63-1 (issue 17): a long-lived table's events past PostgreSQL's 32-bit
    INTEGER are stored and acked like any others (migration 0004: the seq columns are
    BIGINT)."""
    settings = make_settings(tmp_path, database_url=postgres_url)
    first = create_app(settings)
    wire = WireTable()
    for topic, payload in (wire.status(True), wire.seat(1, "a", 1000)):
        first.state.bridge.ingest.take(topic, payload)
    near = 2**31 - 2  # as if the table had sent that many events already
    with first.state.engine.begin() as connection:
        connection.execute(update(PokerTable).where(PokerTable.id == "t1")
                           .values(acked_seq=near))
    first.state.engine.dispose()
    second = create_app(settings)  # the bridge restarts: the cursor is read from the store
    wire.seq = itertools.count(near + 1)
    for seat in (2, 3, 4):
        second.state.bridge.ingest.take(*wire.seat(seat, f"p{seat}", 1000))
    with second.state.engine.connect() as connection:
        stored = connection.execute(select(EventRecord.seq).where(
            EventRecord.table_id == "t1").order_by(EventRecord.seq)).scalars().all()
        acked = connection.execute(select(PokerTable.acked_seq).where(
            PokerTable.id == "t1")).scalar_one()
    assert stored[-3:] == [2**31 - 1, 2**31, 2**31 + 1] and acked == 2**31 + 1
    second.state.engine.dispose()
