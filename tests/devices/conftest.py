"""Device tests: mock hardware by default; ``pytest --hil PROFILE`` runs the contract suite
against the real hardware a profile describes, skipping where a device is absent."""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--hil",
        metavar="PROFILE",
        default=None,
        help="run tests/devices against real hardware described by PROFILE "
        "(a name in hardware/ or a path); without it, against the mock backend",
    )


@pytest.fixture(scope="session")
def hil_profile(request: pytest.FixtureRequest) -> str | None:
    value: str | None = request.config.getoption("--hil")
    return value
