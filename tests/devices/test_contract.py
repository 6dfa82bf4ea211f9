"""One contract for every backend. Without ``--hil`` the readers run over the mock, the
MFRC522 and PN532 drivers over fake chips, and seat nodes over a mock link; the table
parts over each shipped profile on the mock backend. With ``--hil PROFILE`` the same
tests run on the table the profile describes: the readers are one of each kind the
profile has, the test cards' UIDs are learnt by reading them, and a ``person`` at the
terminal places the cards, presses the keys and says what the lights and displays show.
``--hil virtual`` is that run on the mock: the mock's hands do what the person would.

A --hil table with seat nodes has its seat-node lines opened once for the session
(``seatlines.SeatLinesThread``; ``--hil-seat-ports DIR`` for simulated nodes). Under
``--hil-backend mock`` the Pi's own parts are mocks standing in for parts that are not
there: a test of one is skipped, saying so; the seat nodes' tests run over their lines."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from typing import NoReturn

import pytest

from controller.devices.backends import open_devices
from controller.devices.commissioning_bench import key_where, light_where, reader_where
from controller.devices.debounce import CardWatch
from controller.devices.errors import DeviceError
from controller.devices.events import (
    CardArrived,
    CardEvent,
    CardLeft,
    DeviceEvent,
    KeyPressed,
    KeyReleased,
)
from controller.devices.hardware import ChipReader, TableHardware
from controller.devices.interfaces import (
    BEEP_WARNING,
    BlindsFrame,
    CardReader,
    Colour,
    LightMode,
    LightState,
    ShotClockFrame,
)
from controller.devices.mfrc522 import MFRC522
from controller.devices.mock import MockCardReader, MockSeatNodeLink, MockTable, VirtualClock
from controller.devices.pn532 import PN532
from controller.devices.profile import load_profile
from controller.devices.seatlines import SeatLinesThread, ThreadSeatLink, seat_ports
from controller.devices.seatnodes import SeatNodeReader, SeatNodeRing
from controller.devices.specs import Profile

from .conftest import Person
from .fakes import FakeMFRC522, FakePN532

A = bytes.fromhex("04a1b2c3d4e5f6")
B = bytes.fromhex("deadbeef")
TEST_CARDS = {1: A, 2: B}  # the mock's test cards; under --hil, learnt by reading them
LEARN_S = 15.0  # how long a placed card has to be read before the test gives up
MAX_TAGS = {"mfrc522": 5, "pn532": 2}  # tags one scan can report (others: no limit)


@dataclass
class ReaderRig:
    reader: CardReader
    where: str  # how the person finds the reader: its kind and bus
    place: Callable[[bytes], None] | None  # the mock's hands; None: a person's
    lift: Callable[[bytes], None] | None
    max_tags: int
    learn: bool = False  # the cards' UIDs are learnt by reading them (--hil)


def _mock() -> ReaderRig:
    r = MockCardReader("seat1")
    return ReaderRig(r, "mock", r.place, r.lift, 99)


def _mfrc522() -> ReaderRig:
    chip = FakeMFRC522()
    return ReaderRig(ChipReader("seat1", MFRC522(chip)), "fake MFRC522", chip.place, chip.lift, 5)


def _pn532() -> ReaderRig:
    chip = FakePN532()
    return ReaderRig(ChipReader("seat1", PN532(chip)), "fake PN532", chip.place, chip.lift, 2)


def _seatnode() -> ReaderRig:
    link = MockSeatNodeLink()
    held: list[bytes] = []

    def place(uid: bytes) -> None:
        held.append(uid)
        link.report(3, "cards", held)

    def lift(uid: bytes) -> None:
        held.remove(uid)
        link.report(3, "cards", held)

    reader = SeatNodeReader("seat1", link, 3, "cards")
    return ReaderRig(reader, "mock seat-node link", place, lift, 99)


READER_RIGS = {"mock": _mock, "mfrc522": _mfrc522, "pn532": _pn532, "seatnode": _seatnode}
TABLE_PROFILES = ["virtual", "tournament-10", "sixmax-pi"]
HIL = "hil-"  # the parameter id prefix of what runs on the --hil table


def hil_readers(profile: Profile) -> list[str]:
    """The first reader of each kind the profile has: the readers --hil tests."""
    first: dict[str, str] = {}
    for name, spec in profile.readers.items():
        first.setdefault(spec.kind, name)
    return list(first.values())


# the tests that need a reader reporting several tags at once: run on those readers only
MULTI_TAG_TESTS = frozenset({"test_reader_contract_two_cards_at_one_reader_both_arrive"})


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    hil: str | None = metafunc.config.getoption("--hil")
    if "rig" in metafunc.fixturenames:
        if hil is None:  # every mock rig reports several tags (MAX_TAGS >= 2)
            rigs = list(READER_RIGS)
        else:
            profile = load_profile(hil)
            several = metafunc.function.__name__ in MULTI_TAG_TESTS
            rigs = [HIL + name for name in hil_readers(profile)
                    if not several or profile.readers[name].multi_tag]
        metafunc.parametrize("rig", rigs, indirect=True)
    if "table" in metafunc.fixturenames:
        tables = TABLE_PROFILES if hil is None else [HIL + hil]
        metafunc.parametrize("table", tables, indirect=True)


class HilTable:
    """The --hil table, opened for each test that needs it: the profile on its backend (or
    ``--hil-backend``'s), over its seat-node lines, which are opened once for the session
    (a ``SeatLinesThread``: the lines are asyncio, these tests block while a person acts).

    A table that cannot be opened fails the test in one line (a person asked for this
    table: its absence is not a pass); so do seat nodes that do not answer."""

    def __init__(self, profile_name: str, backend: str | None, ports_dir: str | None) -> None:
        self.name = profile_name
        self.profile = load_profile(profile_name)
        self.backend = backend
        self.seat_ports = ports_dir
        # mocks built in place of the profile's own parts: not the table's, so not tested
        self.stand_ins = backend is not None and backend != self.profile.backend
        self.paths = {p.port: p.path for p in seat_ports(self.profile, ports_dir)}
        self.lines: SeatLinesThread | None = None
        self._broken: str | None = None  # why the lines did not open (not retried)
        self._seams: dict[int, ThreadSeatLink] = {}

    def _fail(self, why: str) -> NoReturn:
        pytest.fail(f"--hil {self.name}: the table cannot be opened: {why}")

    def _open_lines(self) -> SeatLinesThread | None:
        if self._broken is not None:
            self._fail(self._broken)
        if self.lines is not None or not self.paths:
            return self.lines
        try:
            self.lines = SeatLinesThread(self.profile, directory=self.seat_ports).__enter__()
        except DeviceError as exc:
            self._broken = str(exc)
            self._fail(self._broken)
        silent = self.lines.silent()
        if silent:
            self._broken = ("seat node(s) " + ", ".join(f"{n} on {p}" for n, p in silent)
                            + " did not answer: check their power, cable and firmware "
                            f"(`pitboss hardware check {self.name}` names each)")
            self._fail(self._broken)
        return self.lines

    def open(self) -> TableHardware:
        if self.seat_ports is not None and not self.paths:
            self._fail(f"--hil-seat-ports {self.seat_ports}: profile {self.profile.name} has "
                       "no seat nodes; leave the option out")
        lines = self._open_lines()
        seam = None if lines is None else lines.seam()
        try:
            if seam is None:
                hw = open_devices(self.profile, backend=self.backend)
            else:  # in real time, as `pitboss table run` runs it
                hw = open_devices(self.profile, backend=self.backend, clock=time.monotonic,
                                  seat_link=seam)
        except DeviceError as exc:
            why = str(exc)
            if seam is not None:  # the seat nodes opened; a part of the Pi's did not
                seam.detach()
                if self.backend is None:
                    why += ("; on a bench with seat nodes only, --hil-backend mock tests "
                            "them alone")
            self._fail(why)
        if seam is not None:
            self._seams[id(hw)] = seam
        return hw

    def close(self, hw: TableHardware) -> None:
        hw.close()
        seam = self._seams.pop(id(hw), None)
        if seam is not None:
            seam.detach()  # the next test's table has the lines to itself

    def stand_in(self, what: str) -> None:
        """A mock is playing ``what``: under --hil-backend it stands in for a part that is
        not there, and the test is skipped; on a mock profile (--hil virtual) it is the
        dry run, and the mock's hands act."""
        if self.stand_ins:
            pytest.skip(f"{what}: a mock stands in for it under --hil-backend "
                        f"{self.backend}, so it is not tested here; test it on the table, "
                        "without --hil-backend")

    def shut(self) -> None:
        if self.lines is not None:
            self.lines.__exit__(None, None, None)
            self.lines = None


@pytest.fixture(scope="session")
def hil_table(hil_profile: str | None, hil_backend: str | None,
              hil_seat_ports: str | None) -> Iterator[HilTable | None]:
    if hil_profile is None:
        yield None
        return
    table = HilTable(hil_profile, hil_backend, hil_seat_ports)
    yield table
    table.shut()


@pytest.fixture
def rig(request: pytest.FixtureRequest, hil_table: HilTable | None) -> Iterator[ReaderRig]:
    name: str = request.param
    if not name.startswith(HIL):
        yield READER_RIGS[name]()
        return
    assert hil_table is not None
    hw = hil_table.open()
    try:
        reader = hw.reader(name.removeprefix(HIL))
        spec = hw.profile.readers[reader.name]
        where = reader_where(spec, hil_table.paths.get(spec.port or ""))
        mock = reader if isinstance(reader, MockCardReader) else None
        if mock is not None:
            hil_table.stand_in(f"reader {reader.name} ({reader_where(spec)})")
        yield ReaderRig(reader, where, None if mock is None else mock.place,
                        None if mock is None else mock.lift, MAX_TAGS.get(spec.kind, 99),
                        learn=True)
    finally:
        hil_table.close(hw)


class Cards:
    """The test cards at one rig's reader, placed by the mock's hands or by a person.

    Under --hil a card's UID is whatever card the person holds: it is learnt by reading
    the reader until a new tag shows, so the tests assert on the cards actually there."""

    def __init__(self, rig: ReaderRig, person: Person) -> None:
        self.rig = rig
        self.person = person
        self.uids: dict[int, bytes] = {}
        self.name = rig.reader.name

    def place(self, card: int) -> bytes:
        rig, uid = self.rig, TEST_CARDS[card]
        before = rig.reader.scan() if rig.learn else frozenset()
        hands = rig.place
        self.person.do(f"Place test card {card} on reader {self.name} ({rig.where})",
                       None if hands is None else lambda: hands(uid))
        self.uids[card] = self._learn(card, before) if rig.learn else uid
        return self.uids[card]

    def _learn(self, card: int, before: frozenset[bytes]) -> bytes:
        known = before | set(self.uids.values())
        deadline = time.monotonic() + LEARN_S
        while time.monotonic() < deadline:
            new = self.rig.reader.scan() - known
            if new:
                return min(new)
            time.sleep(0.02)
        pytest.fail(f"reader {self.name} ({self.rig.where}) did not read test card {card} "
                    f"in {LEARN_S:g} s: is the card on the antenna?")

    def lift(self, card: int) -> None:
        uid, hands = self.uids[card], self.rig.lift
        self.person.do(f"Take test card {card} off reader {self.name}",
                       None if hands is None else lambda: hands(uid))
        if self.rig.learn:
            self._gone(card, uid)

    def _gone(self, card: int, uid: bytes) -> None:
        """Under --hil, until the reader no longer reads the card: a person presses Enter
        as the card leaves the antenna, a seat node reports it gone after its own
        debounce (firmware/debounce.py)."""
        deadline = time.monotonic() + LEARN_S
        while uid in self.rig.reader.scan():
            if time.monotonic() > deadline:
                pytest.fail(f"reader {self.name} ({self.rig.where}) still reads test card "
                            f"{card} {LEARN_S:g} s after it was to be taken off")
            time.sleep(0.02)


@pytest.fixture
def cards(rig: ReaderRig, person: Person) -> Cards:
    return Cards(rig, person)


class Watched:
    def __init__(self, rig: ReaderRig) -> None:
        self.clock = VirtualClock()
        self.events: list[CardEvent] = []
        self.name = rig.reader.name
        self.watch = CardWatch(
            {self.name: rig.reader}, self.events.append, clock=self.clock, stable_s=0.03
        )

    def run_for(self, seconds: float) -> list[CardEvent]:
        start = len(self.events)
        end = self.clock.now + seconds
        self.watch.step()
        while self.clock.now < end - 1e-9:
            self.clock.advance(0.005)
            self.watch.step()
        return self.events[start:]


def test_reader_contract_empty_antenna_scans_empty(rig: ReaderRig, person: Person) -> None:
    if rig.learn and rig.place is None:
        person.do(f"Make sure no card lies on reader {rig.reader.name} ({rig.where})")
    assert rig.reader.scan() == frozenset()


def test_reader_contract_card_arrives_after_the_stable_time_not_before(
    rig: ReaderRig, cards: Cards
) -> None:
    w = Watched(rig)
    uid = cards.place(1)
    if getattr(rig.reader, "debounced", False):  # a seat node reports stable reads only:
        assert w.run_for(0.005) == [CardArrived(w.name, uid)]  # no second stable time
        cards.lift(1)
        return
    assert w.run_for(0.025) == []
    assert w.run_for(0.01) == [CardArrived(w.name, uid)]
    cards.lift(1)


def test_reader_contract_card_leaves_after_500_ms_missing(rig: ReaderRig, cards: Cards) -> None:
    w = Watched(rig)
    uid = cards.place(1)
    w.run_for(0.05)
    cards.lift(1)
    assert w.run_for(0.49) == []
    assert w.run_for(0.05) == [CardLeft(w.name, uid)]  # polled readers: + one poll


def test_reader_contract_two_cards_at_one_reader_both_arrive(
    rig: ReaderRig, cards: Cards
) -> None:
    assert rig.reader.multi_tag and rig.max_tags >= 2  # chosen so (MULTI_TAG_TESTS)
    w = Watched(rig)
    first = cards.place(1)
    second = cards.place(2)
    assert set(w.run_for(0.05)) == {CardArrived(w.name, first), CardArrived(w.name, second)}
    cards.lift(1)
    cards.lift(2)


# ------------------------------------------------------------------ the whole table
@pytest.fixture
def table(request: pytest.FixtureRequest, hil_table: HilTable | None
          ) -> Iterator[TableHardware]:
    name: str = request.param
    if not name.startswith(HIL):
        hw: TableHardware = MockTable(load_profile(name))
        yield hw
        hw.close()
        return
    assert hil_table is not None
    hw = hil_table.open()
    yield hw
    hil_table.close(hw)


def mock_of(table: TableHardware) -> MockTable | None:
    return table if isinstance(table, MockTable) else None


class Hands:
    """Whose hands act on a part of the table: the mock's (returned), or a person's
    (None). A mock standing in for a --hil table's part skips the test (``HilTable``)."""

    def __init__(self, table: TableHardware, hil: HilTable | None) -> None:
        self.table = table
        self.hil = hil

    def __call__(self, what: str, *, real: bool = False) -> MockTable | None:
        mock = mock_of(self.table)
        if mock is None or real:
            return None
        if self.hil is not None:
            self.hil.stand_in(what)
        return mock


@pytest.fixture
def hands(table: TableHardware, hil_table: HilTable | None) -> Hands:
    return Hands(table, hil_table)


def events_until(table: TableHardware, done: Callable[[list[DeviceEvent]], bool],
                 seconds: float = 5.0) -> list[DeviceEvent]:
    """The table's events until ``done`` holds of them (virtual time on the mock)."""
    got: list[DeviceEvent] = []
    deadline = time.monotonic() + seconds
    mock = mock_of(table)
    while not done(got) and time.monotonic() < deadline:
        if mock is not None:
            got += mock.advance(0.05)
        else:
            got += table.poll()
            time.sleep(0.01)
    return got


def test_table_contract_has_a_reader_and_light_per_seat(table: TableHardware) -> None:
    for seat in range(1, table.profile.seat_count + 1):
        assert table.reader(f"seat{seat}").name == f"seat{seat}"
        assert table.reader(f"player{seat}").name == f"player{seat}"
        assert table.light(seat).state == LightState.off()


def test_table_contract_key_press_is_an_event(table: TableHardware, person: Person,
                                              hands: Hands) -> None:
    key, pin = next(iter(table.profile.keys.items()))
    mock = hands(f"the dealer key '{key}' ({key_where(pin)})")

    def tap() -> None:
        assert mock is not None
        mock.drive_key_press(key)
        mock.drive_key_release(key)

    person.do(f"Press and release the dealer key '{key}' ({key_where(pin)})",
              None if mock is None else tap)
    got = events_until(table, lambda got: KeyReleased(key) in got)
    assert KeyPressed(key) in got, got
    assert got.index(KeyPressed(key)) < got.index(KeyReleased(key))


def test_table_contract_a_held_key_reads_pressed(table: TableHardware, person: Person,
                                                 hands: Hands) -> None:
    key, pin = next(iter(table.profile.keys.items()))
    mock = hands(f"the dealer key '{key}' ({key_where(pin)})")
    person.do(f"Hold the dealer key '{key}' ({key_where(pin)}) down",
              None if mock is None else lambda: mock.drive_key_press(key))
    assert table.keys.is_pressed(key)
    person.do(f"Let go of the key '{key}'",
              None if mock is None else lambda: mock.drive_key_release(key))
    assert not table.keys.is_pressed(key)


def _looks(state: LightState, coloured: bool) -> str:
    how = {LightMode.OFF: "off", LightMode.ON: "on", LightMode.BLINK: "blinking"}[state.mode]
    if coloured and state.mode != LightMode.OFF:
        return f"{how} ({state.colour.name.lower()})"
    return how


def _shows(mock: MockTable, seat: int, state: LightState) -> bool:
    try:
        mock.assert_light(seat, state)
    except AssertionError:
        return False
    return True


def test_table_contract_lights_take_each_state(table: TableHardware, person: Person,
                                               hands: Hands) -> None:
    spec = table.profile.seats[0].light
    coloured = spec.kind == "seatnode_ring"
    # a seat node's ring over real lines is the node's, even when the rest is mocked
    mock = hands(f"seat 1's light ({light_where(spec)})",
                 real=isinstance(table.light(1), SeatNodeRing))
    for state in (LightState.on(Colour.GREEN), LightState.blink(Colour.RED), LightState.off()):
        table.set_light(1, state)
        assert table.light(1).state == state
        shown = None if mock is None else partial(_shows, mock, 1, state)
        assert person.sees(f"Is seat 1's light {_looks(state, coloured)}?", shown)


def test_table_contract_displays_keep_what_they_show(
    table: TableHardware, person: Person, hands: Hands
) -> None:
    mock = hands("the blinds display and the shot clock")
    frame = BlindsFrame(level=3, small_blind=100, big_blind=200, ante=25, button_seat=4)
    table.blinds.show(frame)
    assert table.blinds.frame == frame
    assert person.sees("Does the blinds display read LEVEL 3, BTN 4, 100/200 and ANTE 25?",
                       None if mock is None else lambda: mock.frame("blinds").getbbox()
                       is not None)
    clock = ShotClockFrame.seconds(9, Colour.RED, blink=True)
    table.shot_clock.show(clock)
    table.shot_clock.refresh(table.clock())
    assert table.shot_clock.frame == clock
    assert person.sees("Does the shot clock show 9, blinking?",
                       None if mock is None else lambda: mock.shot_clock.frame == clock)


def test_table_contract_buzzer_plays_a_pattern(table: TableHardware, person: Person,
                                               hands: Hands) -> None:
    mock = hands("the buzzer")
    table.buzzer.beep(BEEP_WARNING)

    def beeped() -> bool:
        assert mock is not None
        return list(mock.buzzer.played) == [BEEP_WARNING]  # type: ignore[attr-defined]

    assert person.sees("Did the buzzer just beep twice?", None if mock is None else beeped)
    table.buzzer.silence()


def test_table_contract_unknown_seat_names_the_range(table: TableHardware) -> None:
    with pytest.raises(KeyError, match=rf"seats 1..{table.profile.seat_count}"):
        table.light(99)
