"""What a test needs from the machine (a broker, a browser, Node...) and from beside the
checkout (``../shared``).

A missing tool fails the test, saying how to install it: a test that cannot run is a gap,
not a pass. ``bash scripts/test.sh`` installs the tools first where it may
(scripts/system-deps.sh). A developer who knowingly lacks one can ask for the tests that
need it to be skipped instead, by name: ``PITBOSS_TESTS_SKIP_MISSING=1``.

``../shared`` is absent from a user's own clone (it is the project's, not the product's):
the tests that read it skip there, saying so. Where everything is meant to be present
(``PITBOSS_TESTS_NEED_ALL=1``, set by ``.ci/run``) nothing skips: both fail instead."""

from __future__ import annotations

import importlib
import os
from types import ModuleType
from typing import NoReturn

import pytest

STRICT = "PITBOSS_TESTS_NEED_ALL"  # CI: everything is here, nothing may skip
SKIP_MISSING = "PITBOSS_TESTS_SKIP_MISSING"  # a developer's choice: skip what lacks a tool


def _set(name: str) -> bool:
    return os.environ.get(name) == "1"


def missing(reason: str) -> NoReturn:
    """The tool this test needs is missing (``reason`` says how to install it): the test
    fails, or skips if the developer asked for that (and this is not CI)."""
    if _set(SKIP_MISSING) and not _set(STRICT):
        pytest.skip(f"{reason} ({SKIP_MISSING}=1)", allow_module_level=True)
    pytest.fail(f"{reason} (or run with {SKIP_MISSING}=1 to skip the tests that need it)"
                + (f"; {STRICT}=1: this machine is meant to have everything"
                   if _set(STRICT) else ""), pytrace=False)


def shared_absent(reason: str) -> NoReturn:
    """``../shared`` is not beside the checkout (a user's own clone): the test skips with
    ``reason``; under CI, where it always is, it fails."""
    if _set(STRICT):
        pytest.fail(f"{reason} ({STRICT}=1: ../shared is meant to be here)", pytrace=False)
    pytest.skip(reason, allow_module_level=True)


def need_module(name: str, reason: str) -> ModuleType:
    """Import ``name``, or :func:`missing` with ``reason``."""
    try:
        return importlib.import_module(name)
    except ImportError:
        missing(reason)
