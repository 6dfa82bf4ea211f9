"""The mock backend: a full backend, shipped in the package, gpiozero-style.

Registered as ``"mock"`` in ``backends`` (``open_devices(profile, backend="mock")``, and
the backend of ``hardware/virtual.toml``). ``MockTable(profile)`` is a ``TableHardware``
whose readers are ``MockCardReader``s, whose GPIO parts (keys, LEDs, buzzer) run on
gpiozero's ``MockFactory`` with the profile's own pin numbers, whose displays render into
``luma.core``'s dummy device, and whose time is a ``VirtualClock``. Tests ``drive_*`` it
and ``assert_*`` what it did::

    table = MockTable(load_profile("virtual"))
    table.drive_card_placed("seat3", bytes.fromhex("04a1b2c3d4e5f6"))
    assert table.advance(0.05) == [CardArrived("seat3", ...)]
    table.assert_light(3, LightState.on())
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from gpiozero.pins.mock import MockFactory, MockPin, MockPWMPin

from .displays import LumaBlindsDisplay, LumaDealerDisplay, LumaShotClock
from .errors import UnknownDeviceError
from .events import DeviceEvent
from .hardware import RealBackend
from .interfaces import (
    BeepPattern,
    BlindsFrame,
    CardReader,
    Clock,
    Colour,
    LightState,
    Listener,
    SeatLight,
    SeatNodeLink,
    ShotClockFrame,
)
from .specs import DisplaySpec, LightSpec, Profile, ReaderSpec
from .stand_ins import (
    MockBuzzer,
    MockCardReader,
    MockSeatLight,
    mock_blinds_display,
    mock_dealer_display,
    mock_shot_clock,
)
from .table_hardware import TableHardware

__all__ = [
    "MockBackend",
    "MockBuzzer",
    "MockCardReader",
    "MockSeatLight",
    "MockSeatNodeLink",
    "MockTable",
    "VirtualClock",
    "mock_blinds_display",
    "mock_shot_clock",
]


class VirtualClock:
    """A monotonic clock that moves only when told to."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError("a monotonic clock cannot go back")
        self.now += seconds


class MockSeatNodeLink:
    """A stand-in seat-node link: tests set what each node reads; rings are remembered."""

    def __init__(self) -> None:
        self._tags: dict[tuple[int, str], frozenset[bytes]] = {}
        self._listeners: list[Listener] = []
        self._status: list[Callable[[int, bool], None]] = []
        self.lights: dict[int, LightState] = {}

    def subscribe_status(self, listener: Callable[[int, bool], None]) -> Callable[[], None]:
        self._status.append(listener)
        return lambda: self._status.remove(listener)

    def report_status(self, node: int, online: bool) -> None:
        """As if node ``node`` said hello (``online``) or missed its heartbeats."""
        for listener in list(self._status):
            listener(node, online)

    def tags(self, node: int, slot: str) -> frozenset[bytes]:
        return self._tags.get((node, slot), frozenset())

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def set_light(self, node: int, state: LightState) -> None:
        self.lights[node] = state

    def report(self, node: int, slot: str, uids: Iterable[bytes]) -> None:
        """As if node ``node`` sent a frame saying it reads ``uids`` at ``slot``."""
        self._tags[(node, slot)] = frozenset(uids)
        for listener in list(self._listeners):
            listener()


class MockBackend(RealBackend):
    """Every chip, display and seat node is a mock; GPIO parts run on a ``MockFactory``."""

    name = "mock"

    def __init__(
        self, *, pin_factory: MockFactory | None = None, seat_link: SeatNodeLink | None = None
    ) -> None:
        """Given a ``seat_link`` (real seat-node lines: ``seatlines.SeatLines``), a
        profile's ``seatnode`` readers and rings are the real ones over it, and only the
        Pi's own parts are mocks (``pitboss table run --backend mock``); without one they
        are mocks too, driven through a ``MockSeatNodeLink``."""
        self.seat_nodes_real = seat_link is not None
        super().__init__(
            pin_factory=pin_factory or MockFactory(pin_class=MockPWMPin),
            seat_link=seat_link or MockSeatNodeLink(),
        )

    def reader(self, spec: ReaderSpec) -> CardReader:
        if spec.kind == "seatnode" and self.seat_nodes_real:
            return super().reader(spec)
        return MockCardReader(spec.name, multi_tag=spec.multi_tag)

    def light(self, seat: int, spec: LightSpec) -> SeatLight:
        if spec.kind in ("led", "pwm_led") or (
            spec.kind == "seatnode_ring" and self.seat_nodes_real
        ):
            return super().light(seat, spec)
        return MockSeatLight()

    def blinds(self, spec: DisplaySpec) -> LumaBlindsDisplay:
        return mock_blinds_display()

    def shot_clock(self, spec: DisplaySpec) -> LumaShotClock:
        return mock_shot_clock()

    def dealer_display(self, spec: DisplaySpec) -> LumaDealerDisplay:
        return mock_dealer_display()

    def build(self, profile: Profile, clock: Clock | None = None) -> MockTable:
        """A ``MockTable`` over this backend's parts (on a new ``VirtualClock`` by default)."""
        return MockTable(profile, clock=clock, backend=self)


class MockTable(TableHardware):
    """The table on mock hardware, in virtual time, with drive_*/assert_* helpers."""

    def __init__(
        self,
        profile: Profile,
        *,
        clock: Clock | None = None,
        pin_factory: MockFactory | None = None,
        backend: MockBackend | None = None,
    ) -> None:
        """``clock`` defaults to a new ``VirtualClock``; pass ``loop.time`` to run live."""
        self.virtual_clock = clock if isinstance(clock, VirtualClock) else VirtualClock()
        self.backend = backend or MockBackend(pin_factory=pin_factory)
        super().__init__(profile, clock=clock or self.virtual_clock, **self.backend.parts(profile))

    @property
    def pin_factory(self) -> MockFactory:
        factory: MockFactory = self.backend.pin_factory
        return factory

    # -- drive
    def mock_reader(self, name: str) -> MockCardReader:
        reader = self.reader(name)
        assert isinstance(reader, MockCardReader)
        return reader

    def drive_card_placed(self, reader: str, uid: bytes) -> None:
        self.mock_reader(reader).place(uid)

    def drive_card_lifted(self, reader: str, uid: bytes) -> None:
        self.mock_reader(reader).lift(uid)

    def _key_pin(self, key: str) -> MockPin:
        if key not in self.profile.keys:
            raise UnknownDeviceError(
                f"no dealer key {key!r}; this table has {', '.join(self.profile.keys)}"
            )
        pin: MockPin = self.pin_factory.pin(self.profile.keys[key])
        return pin

    def drive_node_status(self, seat: int, online: bool) -> None:
        """As if the seat node at ``seat`` came online or missed its heartbeats."""
        link = self.backend.seat_link
        assert isinstance(link, MockSeatNodeLink)
        link.report_status(seat, online)

    def drive_key_press(self, key: str) -> None:
        self._key_pin(key).drive_low()

    def drive_key_release(self, key: str) -> None:
        self._key_pin(key).drive_high()

    def advance(self, seconds: float, *, step: float = 0.005) -> list[DeviceEvent]:
        """Move virtual time forward in small steps, polling; return every event on the way."""
        events = self.poll()
        end = self.virtual_clock.now + seconds
        while self.virtual_clock.now < end - 1e-12:
            self.virtual_clock.advance(min(step, end - self.virtual_clock.now))
            events += self.poll()
        return events

    def forget_history(self) -> None:
        """Drop what the mock parts have recorded so far (GPIO pin states, seat-light
        history, beeps), so that a long run stays flat in memory; assertions about
        earlier activity are lost."""
        for pin in list(self.pin_factory.pins.values()):
            if isinstance(pin, MockPin):
                pin.clear_states()
        for light in self.lights.values():
            if isinstance(light, MockSeatLight):
                light.history.clear()
        if isinstance(self.buzzer, MockBuzzer):
            self.buzzer.played.clear()

    # -- assert
    def assert_light(self, seat: int, expected: LightState) -> None:
        light = self.light(seat)
        got = light.state
        assert got == expected, f"seat {seat} light is {got}, expected {expected}"
        if hasattr(light, "device"):  # a GPIO LED: check the pin too
            lit = bool(light.device.value)
            want = expected.mode.value != "off"
            assert lit == want, f"seat {seat} LED pin is {'on' if lit else 'off'}"

    def assert_blinds(self, expected: BlindsFrame) -> None:
        got = self.blinds.frame
        assert got == expected, f"blinds display shows {got}, expected {expected}"

    def assert_shot_clock(
        self, text: str, colour: Colour | None = None, blink: bool | None = None
    ) -> None:
        frame: ShotClockFrame = self.shot_clock.frame
        assert frame.text == text, f"shot clock shows {frame.text!r}, expected {text!r}"
        if colour is not None:
            assert frame.colour is colour, f"shot clock is {frame.colour.name}, not {colour.name}"
        if blink is not None:
            assert frame.blink is blink, f"shot clock blink is {frame.blink}, expected {blink}"

    def assert_beeped(self, *patterns: BeepPattern) -> None:
        played = list(self.buzzer.played)  # type: ignore[attr-defined]
        assert played == list(patterns), f"buzzer played {[p.name for p in played]}"

    def frame(self, display: str) -> Any:
        """The last image a display showed (a PIL image), ``blinds``, ``shot_clock`` or
        ``dealer``."""
        device = {"blinds": self.blinds, "shot_clock": self.shot_clock,
                  "dealer": self.dealer_display}[display]
        return device.device.image  # type: ignore[attr-defined]

    def save_frame(self, display: str, path: str | Path) -> Path:
        """Save a display's last frame as PNG (scaled up 4x so a person can read it)."""
        image = self.frame(display)
        if image is None:
            raise ValueError(f"the {display} display has shown nothing yet")
        out = Path(path)
        image.resize((image.width * 4, image.height * 4)).save(out)
        return out
