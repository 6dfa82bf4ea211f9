"""One contract for every backend. Without ``--hil`` the readers run over the mock, the
MFRC522 and PN532 drivers over fake chips, and seat nodes over a mock link; the table
parts over each shipped profile on the mock backend. With ``--hil PROFILE`` the same
tests run on the real hardware; what a test needs and the rig lacks is skipped."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pytest

from controller.devices.backends import open_devices
from controller.devices.debounce import CardWatch
from controller.devices.errors import DeviceError
from controller.devices.events import CardArrived, CardEvent, CardLeft, KeyPressed
from controller.devices.hardware import ChipReader, TableHardware
from controller.devices.interfaces import (
    BEEP_WARNING,
    BlindsFrame,
    CardReader,
    Colour,
    LightState,
    ShotClockFrame,
)
from controller.devices.mfrc522 import MFRC522
from controller.devices.mock import MockCardReader, MockSeatNodeLink, MockTable, VirtualClock
from controller.devices.pn532 import PN532
from controller.devices.profile import load_profile
from controller.devices.seatnodes import SeatNodeReader

from .fakes import FakeMFRC522, FakePN532

A = bytes.fromhex("04a1b2c3d4e5f6")
B = bytes.fromhex("deadbeef")


@dataclass
class ReaderRig:
    reader: CardReader
    place: Callable[[bytes], None] | None  # None on real hardware: nobody to place cards
    lift: Callable[[bytes], None] | None
    max_tags: int


def _mock() -> ReaderRig:
    r = MockCardReader("seat1")
    return ReaderRig(r, r.place, r.lift, 99)


def _mfrc522() -> ReaderRig:
    chip = FakeMFRC522()
    return ReaderRig(ChipReader("seat1", MFRC522(chip)), chip.place, chip.lift, 5)


def _pn532() -> ReaderRig:
    chip = FakePN532()
    return ReaderRig(ChipReader("seat1", PN532(chip)), chip.place, chip.lift, 2)


def _seatnode() -> ReaderRig:
    link = MockSeatNodeLink()
    held: list[bytes] = []

    def place(uid: bytes) -> None:
        held.append(uid)
        link.report(3, "cards", held)

    def lift(uid: bytes) -> None:
        held.remove(uid)
        link.report(3, "cards", held)

    return ReaderRig(SeatNodeReader("seat1", link, 3, "cards"), place, lift, 99)


READER_RIGS = {"mock": _mock, "mfrc522": _mfrc522, "pn532": _pn532, "seatnode": _seatnode}


@pytest.fixture(params=list(READER_RIGS))
def rig(request: pytest.FixtureRequest, hil_profile: str | None) -> ReaderRig:
    if hil_profile is not None:
        pytest.skip("reader rigs over fakes are for the mock run; --hil uses the table rig")
    return READER_RIGS[request.param]()


class Watched:
    def __init__(self, rig: ReaderRig) -> None:
        self.clock = VirtualClock()
        self.events: list[CardEvent] = []
        self.watch = CardWatch(
            {"seat1": rig.reader}, self.events.append, clock=self.clock, stable_s=0.03
        )

    def run_for(self, seconds: float) -> list[CardEvent]:
        start = len(self.events)
        end = self.clock.now + seconds
        self.watch.step()
        while self.clock.now < end - 1e-9:
            self.clock.advance(0.005)
            self.watch.step()
        return self.events[start:]


def _needs_hands(rig: ReaderRig) -> tuple[Callable[[bytes], None], Callable[[bytes], None]]:
    if rig.place is None or rig.lift is None:
        pytest.skip("needs someone to place cards")
    return rig.place, rig.lift


def test_reader_contract_empty_antenna_scans_empty(rig: ReaderRig) -> None:
    assert rig.reader.scan() == frozenset()


def test_reader_contract_card_arrives_after_the_stable_time_not_before(rig: ReaderRig) -> None:
    place, _ = _needs_hands(rig)
    w = Watched(rig)
    place(A)
    assert w.run_for(0.025) == []
    assert w.run_for(0.01) == [CardArrived("seat1", A)]


def test_reader_contract_card_leaves_after_500_ms_missing(rig: ReaderRig) -> None:
    place, lift = _needs_hands(rig)
    w = Watched(rig)
    place(A)
    w.run_for(0.05)
    lift(A)
    assert w.run_for(0.49) == []
    assert w.run_for(0.05) == [CardLeft("seat1", A)]  # polled readers: + one poll


def test_reader_contract_two_cards_at_one_reader_both_arrive(rig: ReaderRig) -> None:
    place, _ = _needs_hands(rig)
    if not rig.reader.multi_tag or rig.max_tags < 2:
        pytest.skip("single-tag reader")
    w = Watched(rig)
    place(A)
    place(B)
    assert set(w.run_for(0.05)) == {CardArrived("seat1", A), CardArrived("seat1", B)}


# ------------------------------------------------------------------ the whole table
@pytest.fixture(params=["virtual", "tournament-10", "sixmax-pi"])
def table(request: pytest.FixtureRequest, hil_profile: str | None) -> Iterator[TableHardware]:
    if hil_profile is None:
        hw: TableHardware = MockTable(load_profile(request.param))
    else:
        if request.param != "virtual":
            pytest.skip("under --hil, the table rig is the profile given")
        try:
            hw = open_devices(load_profile(hil_profile))
        except (DeviceError, ImportError, OSError) as exc:
            pytest.skip(f"hardware absent: {exc}")
    yield hw
    hw.close()


def test_table_contract_has_a_reader_and_light_per_seat(table: TableHardware) -> None:
    for seat in range(1, table.profile.seat_count + 1):
        assert table.reader(f"seat{seat}").name == f"seat{seat}"
        assert table.reader(f"player{seat}").name == f"player{seat}"
        assert table.light(seat).state == LightState.off()


def test_table_contract_key_press_is_an_event(table: TableHardware) -> None:
    if not isinstance(table, MockTable):
        pytest.skip("needs someone to press a key")
    table.drive_key_press("deal")
    assert KeyPressed("deal") in table.poll()
    assert table.keys.is_pressed("deal")


def test_table_contract_lights_take_each_state(table: TableHardware) -> None:
    for state in (LightState.on(Colour.GREEN), LightState.blink(Colour.RED), LightState.off()):
        table.set_light(1, state)
        assert table.light(1).state == state
        if isinstance(table, MockTable):
            table.assert_light(1, state)


def test_table_contract_displays_keep_what_they_show(table: TableHardware) -> None:
    frame = BlindsFrame(level=3, small_blind=100, big_blind=200, ante=25, button_seat=4)
    table.blinds.show(frame)
    assert table.blinds.frame == frame
    clock = ShotClockFrame.seconds(9, Colour.RED, blink=True)
    table.shot_clock.show(clock)
    assert table.shot_clock.frame == clock


def test_table_contract_buzzer_plays_a_pattern(table: TableHardware) -> None:
    table.buzzer.beep(BEEP_WARNING)
    if isinstance(table, MockTable):
        table.assert_beeped(BEEP_WARNING)
    table.buzzer.silence()


def test_table_contract_unknown_seat_names_the_range(table: TableHardware) -> None:
    with pytest.raises(KeyError, match=rf"seats 1..{table.profile.seat_count}"):
        table.light(99)
