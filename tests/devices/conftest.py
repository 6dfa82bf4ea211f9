"""Device tests: mock hardware by default; ``pytest --hil PROFILE`` (``tests/hil.py``) runs
the contract suite against the hardware a profile describes, with a ``person`` at the
terminal doing what a test needs done at the table."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.hil import Terminal


class Person:
    """Who does what a contract test needs done at the table.

    A test passes ``mock=`` when the part is a mock (the mock run, and ``--hil virtual``):
    the mock's hands do it, or the mock's own state answers. Otherwise, under ``--hil``,
    a person at the terminal is asked and waited for; without ``--hil`` there is nobody,
    and the test fails saying so (a real part in the mock run is a bug in the test)."""

    def __init__(self, terminal: Terminal | None) -> None:
        self.terminal = terminal
        self.asked: list[str] = []  # what a person was asked, in order

    def _terminal(self, what: str) -> Terminal:
        if self.terminal is None:
            pytest.fail(f"nobody can {what}: this part is not a mock (run with --hil PROFILE)")
        self.asked.append(what)
        return self.terminal

    def do(self, text: str, mock: Callable[[], object] | None = None) -> None:
        """Get ``text`` done ("place test card 1 on reader seat3 (...)")."""
        if mock is not None:
            mock()
            return
        self._terminal(text).wait(text)

    def sees(self, question: str, mock: Callable[[], bool] | None = None) -> bool:
        """The answer to a yes/no question about what the table shows."""
        if mock is not None:
            return mock()
        return self._terminal(question).ask(question)


@pytest.fixture
def person(request: pytest.FixtureRequest, hil_profile: str | None) -> Person:
    return Person(Terminal(request.config) if hil_profile is not None else None)
