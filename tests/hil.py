"""``pytest --hil PROFILE``: the device contract suite on the table a profile describes.

A pytest plugin (``tests/conftest.py`` loads it), so that the option exists wherever
pytest is started: an option added in ``tests/devices/conftest.py`` is unknown to a run
started from the checkout's root. Under ``--hil`` only the hardware suite
(``HIL_SUITE``) is collected, since the rest of the tests never touch a device and a
person waiting at the table should not wait for them; the person is asked for what a
test needs (a card placed, a key pressed, a light looked at) on the terminal, with
pytest's capture suspended while they answer.

``pytest --hil virtual`` is the dry run: the virtual profile is all mocks, so every
request goes to the mock's hands instead of a person, along the same code path.

A table with seat nodes has its seat-node lines opened for the run (as ``pitboss table
run`` opens them). On the bench, ``--hil-seat-ports DIR`` opens them under DIR instead of
where the profile says (the simulated nodes of ``pitboss hardware simulate PROFILE --dir
DIR``), and ``--hil-backend mock`` builds the Pi's own parts (SPI/I2C readers, GPIO keys,
displays) as mocks while the seat nodes stay on their serial lines: those mocks stand in
for parts that are not there, so their tests are skipped, each saying so in one line.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

HIL_SUITE = ("tests/devices/test_contract.py",)
ROOT = Path(__file__).resolve().parents[1]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--hil",
        metavar="PROFILE",
        default=None,
        help="run the device contract suite (tests/devices/test_contract.py) on the table "
        "PROFILE describes (a name in hardware/ or a path), asking a person at the terminal "
        "to place cards and press keys; 'virtual' is a dry run on the mock",
    )
    parser.addoption(
        "--hil-seat-ports",
        metavar="DIR",
        default=None,
        help="with --hil: open the profile's seat-node ports under DIR by their base names "
        "(/dev/pitboss-seat3 -> DIR/pitboss-seat3), e.g. the simulated nodes of "
        "`pitboss hardware simulate PROFILE --dir DIR`",
    )
    parser.addoption(
        "--hil-backend",
        metavar="NAME",
        default=None,
        help="with --hil: build the table on this device backend instead of the profile's "
        "('mock': the Pi's own parts are mocks, and their tests skip; the seat nodes stay "
        "on their serial lines)",
    )


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("--hil") is None:
        for option in ("--hil-seat-ports", "--hil-backend"):
            if config.getoption(option) is not None:
                raise pytest.UsageError(f"{option} goes with --hil PROFILE")


def pytest_report_header(config: pytest.Config) -> str | None:
    profile = config.getoption("--hil")
    if profile is None:
        return None
    backend = config.getoption("--hil-backend")
    ports = config.getoption("--hil-seat-ports")
    return (f"hil: table {profile}"
            + (f", on the {backend} backend" if backend else "")
            + (f", seat-node ports under {ports}" if ports else ""))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--hil") is None:
        return
    keep: list[pytest.Item] = []
    drop: list[pytest.Item] = []
    for item in items:
        rel = Path(str(item.path)).resolve().relative_to(ROOT).as_posix()
        (keep if rel in HIL_SUITE else drop).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


@pytest.fixture(scope="session")
def hil_profile(request: pytest.FixtureRequest) -> str | None:
    """The profile given to ``--hil``, or None (the mock run)."""
    value: str | None = request.config.getoption("--hil")
    return value


@pytest.fixture(scope="session")
def hil_seat_ports(request: pytest.FixtureRequest) -> str | None:
    """``--hil-seat-ports DIR``: where the seat-node ports are opened (None: the profile's)."""
    value: str | None = request.config.getoption("--hil-seat-ports")
    return value


@pytest.fixture(scope="session")
def hil_backend(request: pytest.FixtureRequest) -> str | None:
    """``--hil-backend NAME``: the backend the table is built on (None: the profile's)."""
    value: str | None = request.config.getoption("--hil-backend")
    return value


class Terminal:
    """The person at the terminal, reached past pytest's capture (stdin included)."""

    def __init__(self, config: pytest.Config) -> None:
        self.capture = config.pluginmanager.getplugin("capturemanager")

    def _suspended(self, fn: Callable[[], str]) -> str:
        if self.capture is not None:
            self.capture.suspend_global_capture(in_=True)
        try:
            return fn()
        finally:
            if self.capture is not None:
                self.capture.resume_global_capture()

    def wait(self, text: str) -> None:
        """Say ``text`` and wait for Enter."""
        try:
            self._suspended(lambda: input(f"\n>>> {text}, then press Enter "))
        except EOFError:
            pytest.fail(f"--hil needs a person at the terminal to: {text} (stdin is closed)")

    def ask(self, question: str) -> bool:
        """A yes/no question, asked until answered."""
        while True:
            try:
                answer = self._suspended(lambda: input(f"\n>>> {question} [y/n] "))
            except EOFError:
                pytest.fail(f"--hil needs a person at the terminal to answer: {question}")
            word = answer.strip().lower()
            if word in ("y", "yes", "n", "no"):
                return word.startswith("y")
