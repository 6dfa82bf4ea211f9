"""A missing tool fails a test unless the developer asked to skip such tests (never in CI);
an absent ../shared skips, except in CI."""

from __future__ import annotations

import pytest

from tests.needs import SKIP_MISSING, STRICT, missing, need_module, shared_absent


@pytest.fixture
def plain(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """A developer's machine: neither variable set."""
    monkeypatch.delenv(STRICT, raising=False)
    monkeypatch.delenv(SKIP_MISSING, raising=False)
    return monkeypatch


def test_a_missing_tool_fails_the_test_saying_how_to_install_it(
        plain: pytest.MonkeyPatch) -> None:
    with pytest.raises(pytest.fail.Exception, match=f"install it \\(or run with {SKIP_MISSING}"):
        missing("the thing is not installed: install it")
    with pytest.raises(pytest.fail.Exception, match="no such module"):
        need_module("pitboss_no_such_module", "no such module")
    assert need_module("json", "the standard library").dumps([]) == "[]"


def test_a_developer_may_ask_to_skip_what_needs_a_missing_tool(
        plain: pytest.MonkeyPatch) -> None:
    plain.setenv(SKIP_MISSING, "1")
    with pytest.raises(pytest.skip.Exception, match="install it"):
        missing("the thing is not installed: install it")


def test_ci_fails_a_missing_tool_even_when_skipping_is_asked_for(
        plain: pytest.MonkeyPatch) -> None:
    plain.setenv(SKIP_MISSING, "1")
    plain.setenv(STRICT, "1")
    with pytest.raises(pytest.fail.Exception, match="meant to have everything"):
        missing("the thing is not installed: install it")


def test_an_absent_shared_folder_skips_on_a_users_clone_and_fails_in_ci(
        plain: pytest.MonkeyPatch) -> None:
    with pytest.raises(pytest.skip.Exception, match="is absent"):
        shared_absent("../shared is absent")
    plain.setenv(STRICT, "1")
    with pytest.raises(pytest.fail.Exception, match="meant to be here"):
        shared_absent("../shared is absent")
