"""Backends by name: the registry finds the mock and the real backend, refuses a name it
does not know with the names it does, and the device layer has no import circles (the real
backend never imports the mock, not even lazily)."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from controller.devices import backends
from controller.devices.backends import backend_factory, names, open_devices, register
from controller.devices.errors import DeviceError, ProfileError, UnknownBackendError
from controller.devices.events import CardArrived
from controller.devices.hardware import RealBackend
from controller.devices.interfaces import Clock
from controller.devices.mock import MockBackend, MockCardReader, MockTable, VirtualClock
from controller.devices.profile import PROFILE_DIR, load_profile, parse_profile
from controller.devices.specs import Profile
from controller.devices.table_hardware import TableHardware

ROOT = Path(__file__).resolve().parents[2]
DEVICES = ROOT / "controller" / "devices"
VIRTUAL = (PROFILE_DIR / "virtual.toml").read_text()
UID = bytes.fromhex("04a1b2c3")


@pytest.fixture
def registry() -> Iterator[None]:
    """Leave the registry as it was: tests may register backends of their own."""
    saved = dict(backends._registry)
    yield
    backends._registry.clear()
    backends._registry.update(saved)


# ------------------------------------------------------------------ by name
def test_the_mock_and_the_real_backend_are_registered_by_name() -> None:
    assert {"mock", "real"} <= set(names())
    assert backend_factory("mock") is MockBackend
    assert backend_factory("real") is RealBackend


def test_the_mock_backend_found_by_name_builds_a_mock_table_of_any_profile() -> None:
    table = open_devices(load_profile("sixmax-pi"), backend="mock")
    try:
        assert isinstance(table, MockTable)
        assert table.profile.seat_count == 6
        assert isinstance(table.reader("seat1"), MockCardReader)  # an MFRC522 in the profile
        assert isinstance(table.clock, VirtualClock)
        table.drive_card_placed("seat1", UID)
        assert table.advance(0.05) == [CardArrived("seat1", UID)]
    finally:
        table.close()


def test_the_virtual_profile_names_the_mock_backend_and_gets_it_without_being_told() -> None:
    profile = load_profile("virtual")
    assert profile.backend == "mock"
    assert load_profile("sixmax-pi").backend == "real"  # the default: a profile for the Pi
    table = open_devices(profile)
    try:
        assert isinstance(table, MockTable)
    finally:
        table.close()


def test_the_caller_passes_options_to_the_backend_it_names() -> None:
    """The real backend over seat nodes and mock pins: options go to its factory."""
    factory = MockFactory(pin_class=MockPWMPin)
    clock = VirtualClock(5.0)
    profile = load_profile("virtual")
    table = open_devices(profile, backend="real", pin_factory=factory, clock=clock)
    try:
        assert type(table) is TableHardware  # the real backend, not a MockTable
        assert table.clock is clock
        factory.pin(profile.keys["deal"]).drive_low()
        assert table.keys.is_pressed("deal")
    finally:
        table.close()


def test_an_unknown_backend_name_is_refused_with_the_known_names() -> None:
    with pytest.raises(UnknownBackendError) as err:
        open_devices(load_profile("virtual"), backend="hil")
    assert str(err.value) == "no device backend is named 'hil': choose one of mock, real"
    assert isinstance(err.value, DeviceError)


def test_a_profile_naming_an_unknown_backend_fails_on_its_line_with_the_known_names() -> None:
    text = VIRTUAL.replace('backend = "mock"', 'backend = "hil"')
    with pytest.raises(ProfileError) as err:
        parse_profile(text, "v.toml")
    line = next(i for i, s in enumerate(text.splitlines(), 1) if s.startswith("backend ="))
    assert err.value.line == line
    assert str(err.value) == (
        f"v.toml:{line}: [table] `backend` = 'hil' is not valid. Fix: use one of mock, real"
    )


class RecordingBackend:
    """A backend of a test's own: it builds the mock table and says what it was given."""

    built: ClassVar[list[tuple[str, dict[str, Any]]]] = []

    def __init__(self, **options: Any) -> None:
        self.options = options

    def build(self, profile: Profile, clock: Clock | None = None) -> TableHardware:
        RecordingBackend.built.append((profile.name, self.options))
        return MockBackend().build(profile, clock)


def test_a_backend_registers_itself_and_is_then_found_by_name(registry: None) -> None:
    register("recording", RecordingBackend)
    assert "recording" in names()
    table = open_devices(load_profile("sixmax-pi"), backend="recording", seat_link=None)
    table.close()
    assert RecordingBackend.built[-1] == ("sixmax-pi", {"seat_link": None})
    with pytest.raises(ValueError, match="already registered as 'recording'"):
        register("recording", MockBackend)
    backends.unregister("recording")
    with pytest.raises(UnknownBackendError, match=r"choose one of mock, real$"):
        backend_factory("recording")


def test_a_backend_named_by_module_path_is_imported_when_first_asked_for(registry: None) -> None:
    register("mock-again", "controller.devices.mock:MockBackend")
    assert backend_factory("mock-again") is MockBackend


# ------------------------------------------------------------------ no circles
def _imports(path: Path) -> Iterator[str]:
    """Every module ``path`` imports, anywhere in the file (functions, TYPE_CHECKING),
    as absolute names; ``from . import x`` gives ``package.x``."""
    package = "controller.devices"
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{parent}.{base}" if base else parent
            yield base
            yield from (f"{base}.{a.name}" for a in node.names)


def _strings(path: Path) -> Iterator[str]:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield node.value


def test_the_real_backend_never_imports_the_mock() -> None:
    hardware = DEVICES / "hardware.py"
    imported = set(_imports(hardware))
    assert "controller.devices.stand_ins" in imported  # the walk sees relative imports
    assert "controller.devices.mock" not in imported
    assert not [s for s in _strings(hardware) if "devices.mock" in s]  # nor by importlib


def test_importing_and_using_the_real_backend_loads_no_mock_module() -> None:
    code = (
        "import sys\n"
        "from gpiozero.pins.mock import MockFactory\n"
        "from controller.devices.hardware import RealBackend\n"
        "from controller.devices.profile import load_profile\n"
        "RealBackend(pin_factory=MockFactory()).build(load_profile('virtual')).close()\n"
        "print('controller.devices.mock' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


def test_the_registry_imports_no_backend() -> None:
    imported = set(_imports(DEVICES / "backends.py"))
    assert not imported & {"controller.devices.hardware", "controller.devices.mock"}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Each cycle found by a depth-first walk (enough to prove there are none)."""
    found: list[list[str]] = []
    state: dict[str, int] = {}  # 1: on the path, 2: done
    path: list[str] = []

    def visit(m: str) -> None:
        state[m] = 1
        path.append(m)
        for n in sorted(graph[m]):
            if state.get(n) == 1:
                found.append([*path[path.index(n) :], n])
            elif n not in state:
                visit(n)
        path.pop()
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m)
    return found


def test_the_device_layer_has_no_import_circles_counting_lazy_and_typing_imports() -> None:
    modules = {f"controller.devices.{p.stem}": p for p in DEVICES.glob("*.py")}
    modules["controller.devices"] = modules.pop("controller.devices.__init__")
    graph = {
        m: {i for i in _imports(p) if i in modules and i != m} for m, p in modules.items()
    }
    assert graph["controller.devices.profile"] >= {"controller.devices.sharing"}
    assert _cycles(graph) == []
