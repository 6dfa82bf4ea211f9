"""Shared fixtures. ``../shared`` (rulebook, hand histories) sits beside the project in CI;
tests that need it skip with a clear reason where it is absent (a user's own clone)."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[2] / "shared"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The ``../shared`` folder; skips the test where it is absent."""
    if not SHARED.is_dir():
        pytest.skip(f"{SHARED} is absent: this test reads the shared hand histories (CI has them)")
    return SHARED
