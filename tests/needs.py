"""What a test needs from the machine (a broker, a browser, Node...) and from beside the
checkout (``../shared``).

A missing tool fails the test, saying how to install it: a test that cannot run is a gap,
not a pass, and nothing turns that into a skip. ``bash scripts/test.sh`` installs the tools
first where it may (scripts/system-deps.sh).

``../shared`` is absent from a user's own clone (it is the project's, not the product's):
the tests that read it skip there, saying so (the one skip: the project's brief asks for
it). Where everything is meant to be present (``PITBOSS_TESTS_NEED_ALL=1``, set by
``.ci/run``) it fails instead."""

from __future__ import annotations

import importlib
import os
from types import ModuleType
from typing import NoReturn

import pytest

STRICT = "PITBOSS_TESTS_NEED_ALL"  # CI: everything is here, nothing may skip


def missing(reason: str) -> NoReturn:
    """The tool this test needs is missing (``reason`` says how to install it): the test
    fails."""
    pytest.fail(f"{reason} (bash scripts/test.sh installs the Debian packages the tests "
                "use; PITBOSS_EXTRAS=test source scripts/venv.sh the Python ones)",
                pytrace=False)


def shared_absent(reason: str) -> NoReturn:
    """``../shared`` is not beside the checkout (a user's own clone): the test skips with
    ``reason``; under CI, where it always is, it fails."""
    if os.environ.get(STRICT) == "1":
        pytest.fail(f"{reason} ({STRICT}=1: ../shared is meant to be here)", pytrace=False)
    pytest.skip(reason, allow_module_level=True)


def need_module(name: str, reason: str) -> ModuleType:
    """Import ``name``, or :func:`missing` with ``reason``."""
    try:
        return importlib.import_module(name)
    except ImportError:
        missing(reason)
