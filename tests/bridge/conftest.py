"""Fixtures for the bridge tests: settings with one token per role, an app on a fresh
SQLite file, a fake broker, a hand clock the tests move by hand, and a private PostgreSQL
from Debian's packages (a test needing a missing one fails, saying so)."""

from __future__ import annotations

import atexit
import functools
import glob
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from pydantic import SecretStr
from sqlalchemy import create_engine

from host_bridge.app import create_app
from host_bridge.bridge import Bridge
from host_bridge.db import migrate
from host_bridge.settings import BridgeSettings, Role, TokenGrant
from tests.bridge.tablesim import SITE, FakeBroker, WireTable, showdown_hand
from tests.needs import missing, need_module

TOKENS = {role: f"token-for-{role.value}-0123456789" for role in Role}


def auth(role: Role) -> dict[str, str]:
    """The Authorization header of the test token with ``role``."""
    return {"Authorization": f"Bearer {TOKENS[role]}"}


@dataclass
class ManualClock:
    """Time that moves only when a test says so."""

    now: float = 5000.0

    def __call__(self) -> float:
        return self.now


@functools.cache
def _migrated_store() -> Path:
    """An empty store at the newest revision, made once per test process (the migrations
    take ~150 ms; ``create_app`` then finds nothing to do). ``tests/bridge/test_store.py``
    runs them on empty stores itself."""
    folder = tempfile.mkdtemp(prefix="pitboss-store-")
    atexit.register(shutil.rmtree, folder, True)
    template = Path(folder) / "bridge.db"
    engine = create_engine(f"sqlite:///{template}")  # rollback journal: one file
    migrate(engine)
    engine.dispose()
    return template


def make_settings(tmp_path: Path, **overrides: object) -> BridgeSettings:
    """Settings for one test: its own SQLite file (new: empty, at the newest revision),
    a token per role."""
    store = tmp_path / "bridge.db"
    if "database_url" not in overrides and not store.exists():
        shutil.copyfile(_migrated_store(), store)
    values: dict[str, object] = {
        "database_url": f"sqlite:///{store}", "site": SITE,
        "command_timeout_s": 5.0, "hole_card_delay_s": 30.0,
        "tokens": tuple(TokenGrant(name=f"{role.value}-1", role=role, token=SecretStr(token))
                        for role, token in TOKENS.items()),
    }
    values.update(overrides)
    return BridgeSettings.model_validate(values)


@pytest.fixture
def clock() -> ManualClock:
    """The app's clock."""
    return ManualClock()


@pytest.fixture
def broker() -> FakeBroker:
    """The fake publisher."""
    return FakeBroker()


@pytest.fixture
def settings(tmp_path: Path) -> BridgeSettings:
    """Default test settings."""
    return make_settings(tmp_path)


def make_app(settings: BridgeSettings, broker: FakeBroker, clock: ManualClock) -> FastAPI:
    """The app on ``settings``' store, wired to the fake broker, on ``clock``."""
    application = create_app(settings, publisher=broker, clock=clock)
    broker.deliver = application.state.bridge.receive
    return application


@pytest.fixture
def app(settings: BridgeSettings, broker: FakeBroker, clock: ManualClock) -> FastAPI:
    """The app, its store migrated, wired to the fake broker."""
    return make_app(settings, broker, clock)


@pytest.fixture
def bridge(app: FastAPI) -> Bridge:
    """The app's bridge core."""
    core: Bridge = app.state.bridge
    return core


@pytest.fixture
def client(app: FastAPI) -> Iterator[TestClient]:
    """An HTTP client on the app."""
    with TestClient(app) as test_client:
        yield test_client


def seat_and_play(bridge: Bridge) -> None:
    """Table t1 online, three players seated, one finished hand (the showdown hand)."""
    wire = WireTable()
    messages = [wire.status(True)]
    messages += [wire.seat(seat, name, 1000) for seat, name in ((1, "a"), (2, "b"), (3, "c"))]
    messages += wire.hand(1, (1, 2, 3), showdown_hand())
    for topic, payload in messages:
        bridge.ingest.take(topic, payload)


@pytest.fixture(scope="session")
def played_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store with :func:`seat_and_play` done, built once; tests copy it."""
    path = tmp_path_factory.mktemp("played")
    app = create_app(make_settings(path))
    seat_and_play(app.state.bridge)
    app.state.engine.dispose()
    return path / "bridge.db"


def copy_played(played_db: Path, folder: Path) -> BridgeSettings:
    """Settings on a fresh copy of the played store, in ``folder``."""
    for suffix in ("", "-wal", "-shm"):
        source = played_db.with_name(played_db.name + suffix)
        if source.exists():
            shutil.copy(source, folder / f"bridge.db{suffix}")
    return make_settings(folder)


@pytest.fixture
def played(tmp_path: Path, played_db: Path) -> BridgeSettings:
    """Settings on a fresh copy of the played store."""
    return copy_played(played_db, tmp_path)


# ---------------------------------------------------------------------------- PostgreSQL
def _pg_bin() -> Path | None:
    for candidate in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if os.path.exists(os.path.join(candidate, "initdb")):
            return Path(candidate)
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _run(argv: list[str]) -> None:
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode:
        raise RuntimeError(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr}")


@pytest.fixture
def postgres_url() -> Iterator[str]:
    """A throwaway PostgreSQL cluster on a free loopback port (a test needing it fails,
    saying so, where the Debian packages or the psycopg driver are missing)."""
    pg = _pg_bin()
    if pg is None:
        missing("PostgreSQL is not installed (Debian: apt-get install -y postgresql)")
    need_module("psycopg", "the psycopg driver is not installed "
                        "(pip install 'psycopg[binary]')")
    # outside pytest's tmp dir: that one is private to root, and initdb refuses to run as
    # root, so as root the cluster runs as the postgres user
    root = Path(tempfile.mkdtemp(prefix="pitboss-pg-"))
    as_user: list[str] = []
    if os.geteuid() == 0:
        as_user = ["runuser", "-u", "postgres", "--"]
        shutil.chown(root, "postgres")
    data = root / "data"
    port = _free_port()
    try:
        _run([*as_user, str(pg / "initdb"), "-D", str(data), "-U", "bridge", "--auth=trust",
              "-E", "UTF8"])
        _run([*as_user, str(pg / "pg_ctl"), "-D", str(data), "-w", "-l", str(root / "pg.log"),
              "-o", f"-p {port} -k {root} -c listen_addresses=127.0.0.1", "start"])
        try:
            _run([*as_user, str(pg / "createdb"), "-h", "127.0.0.1", "-p", str(port), "-U",
                  "bridge", "pitboss"])
            yield f"postgresql+psycopg://bridge@127.0.0.1:{port}/pitboss"
        finally:
            _run([*as_user, str(pg / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"])
    finally:
        shutil.rmtree(root, ignore_errors=True)
