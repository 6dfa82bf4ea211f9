"""What a test needs from the machine (a broker, a browser, Node...). On a developer's
machine a missing tool skips the test with how to install it; where the environment says
everything is installed (``PITBOSS_TESTS_NEED_ALL=1``, set by ``.ci/run``) it fails
instead, so a skip can never hide a gap in CI."""

from __future__ import annotations

import importlib
import os
from types import ModuleType
from typing import NoReturn

import pytest

STRICT = "PITBOSS_TESTS_NEED_ALL"


def missing(reason: str) -> NoReturn:
    """The test cannot run here because of ``reason``: skip, or fail under CI."""
    if os.environ.get(STRICT) == "1":
        pytest.fail(f"{reason} ({STRICT}=1: this machine is meant to have everything)")
    pytest.skip(reason, allow_module_level=True)


def need_module(name: str, reason: str) -> ModuleType:
    """Import ``name``, or :func:`missing` with ``reason``."""
    try:
        return importlib.import_module(name)
    except ImportError:
        missing(reason)
