"""A missing tool skips a test on a developer's machine and fails it in CI."""

from __future__ import annotations

import pytest

from tests.needs import STRICT, missing, need_module


def test_a_missing_tool_skips_where_the_machine_may_lack_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(STRICT, raising=False)
    with pytest.raises(pytest.skip.Exception, match="install it"):
        missing("the thing is not installed: install it")


def test_a_missing_tool_fails_where_everything_is_meant_to_be_installed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(STRICT, "1")
    with pytest.raises(pytest.fail.Exception, match="meant to have everything"):
        need_module("pitboss_no_such_module", "no such module")
    assert need_module("json", "the standard library").dumps([]) == "[]"
