"""The dealer console's keys beyond dealing (issue 4), and a seat node that stops answering."""

from __future__ import annotations

from controller.devices.events import SeatNodeOffline, SeatNodeOnline
from controller.events import Irregularity, Rejected

from .conftest import Rig

HANDS = {1: "AsKs", 3: "QdQc", 5: "7h2c"}


def _dealt(rig: Rig) -> Rig:
    rig.start()
    rig.dealer.deal(HANDS)
    return rig


def _left(rig: Rig) -> float:
    shot = rig.table.clocks.shot
    assert shot is not None and shot.deadline is not None
    return shot.deadline - rig.table.clock()


def test_an_unknown_key_is_rejected_with_its_name(rig3: Rig) -> None:
    rig3.table.key("shuffle_twice")
    rejected = rig3.last(Rejected)
    assert isinstance(rejected, Rejected) and "'shuffle_twice'" in rejected.reason


def test_clock_the_count_key_holds_the_shot_clock_until_pressed_again() -> None:
    rig = Rig(seats={1: 1000, 3: 1000, 5: 300}, button=5)
    t = _dealt(rig).table
    t.raise_to(300)  # the button is all-in; the small blind asks for a count
    before = _left(rig)
    t.key("count")
    rig.dealer.step(120.0)
    assert not rig.rulings() and rig.seat_to_act() == 1
    t.key("count")  # the count is done: the clock runs on with the time that was left
    assert abs(_left(rig) - before) < 1e-6
    rig.dealer.step(before + 0.001)
    assert rig.rulings()


def test_a_seat_node_going_offline_is_shown_to_the_dealer_and_cleared_when_back(
        rig3: Rig) -> None:
    rig3.table.handle(SeatNodeOffline(3))
    shown = rig3.last(Irregularity)
    assert isinstance(shown, Irregularity)
    assert (shown.what, shown.seat) == ("seat_node_offline", 3)
    assert "continue" in shown.choices
    assert any(p.seat == 3 for p in rig3.table.prompts)
    rig3.table.handle(SeatNodeOnline(3))
    assert not any(p.kind == "seat_node_offline" for p in rig3.table.prompts)


def test_the_dealer_carries_on_past_an_offline_seat_node(rig3: Rig) -> None:
    rig3.table.handle(SeatNodeOffline(5))
    assert rig3.table.resolve("continue")
    assert not rig3.table.prompts
    _dealt(rig3)
    assert rig3.seat_to_act() == 5  # the hand was dealt and plays on
