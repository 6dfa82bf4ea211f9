"""Shared fixtures. ``../shared`` (rulebook, hand histories) sits beside the project in CI;
tests that need it skip with a clear reason where it is absent (a user's own clone)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.needs import missing, shared_absent
from tests.sync.conftest import MOSQUITTO, Mosquitto

SHARED = Path(__file__).resolve().parents[2] / "shared"

pytest_plugins = ("tests.hil",)  # `pytest --hil PROFILE`: the contract suite on a real table


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The ``../shared`` folder; skips the test where it is absent (fails under CI)."""
    if not SHARED.is_dir():
        shared_absent(f"{SHARED} is absent: this test reads the shared hand histories (CI "
                      "has them)")
    return SHARED


@pytest.fixture
def mosquitto(tmp_path: Path) -> Iterator[Mosquitto]:
    """A private Mosquitto on a free loopback port, stopped after the test (Debian's
    package; CI installs it)."""
    if MOSQUITTO is None:
        missing("mosquitto is not installed (Debian: apt-get install -y mosquitto)")
    broker = Mosquitto(tmp_path / "broker")
    broker.start()
    try:
        yield broker
    finally:
        broker.stop()
