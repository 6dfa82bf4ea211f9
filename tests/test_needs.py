"""A missing tool fails a test, always; an absent ../shared skips, except in CI."""

from __future__ import annotations

import pytest

from tests.needs import STRICT, missing, need_module, shared_absent


@pytest.fixture
def plain(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """A developer's machine: CI's variable not set."""
    monkeypatch.delenv(STRICT, raising=False)
    return monkeypatch


def test_a_missing_tool_fails_the_test_saying_how_to_install_it(
        plain: pytest.MonkeyPatch) -> None:
    with pytest.raises(pytest.fail.Exception, match=r"install it \(bash scripts/test\.sh"):
        missing("the thing is not installed: install it")
    with pytest.raises(pytest.fail.Exception, match="no such module"):
        need_module("pitboss_no_such_module", "no such module")
    assert need_module("json", "the standard library").dumps([]) == "[]"


def test_a_missing_tool_fails_in_ci_too(plain: pytest.MonkeyPatch) -> None:
    plain.setenv(STRICT, "1")
    with pytest.raises(pytest.fail.Exception, match="install it"):
        missing("the thing is not installed: install it")


def test_an_absent_shared_folder_skips_on_a_users_clone_and_fails_in_ci(
        plain: pytest.MonkeyPatch) -> None:
    with pytest.raises(pytest.skip.Exception, match="is absent"):
        shared_absent("../shared is absent")
    plain.setenv(STRICT, "1")
    with pytest.raises(pytest.fail.Exception, match="meant to be here"):
        shared_absent("../shared is absent")
