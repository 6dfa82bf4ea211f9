"""Debouncing in virtual time: stable reads arrive, flicker does not, 500 ms to leave."""

from __future__ import annotations

import pytest

from controller.devices.debounce import CardDebouncer
from controller.devices.events import CardArrived, CardLeft
from controller.devices.mock import VirtualClock

A = bytes.fromhex("04a1b2c3d4e5f6")
B = bytes.fromhex("04a1b2c3d4e5f7")


@pytest.fixture
def clock() -> VirtualClock:
    return VirtualClock()


def test_card_arrives_only_after_reads_spanning_the_stable_time(clock: VirtualClock) -> None:
    deb = CardDebouncer("seat1", clock, stable_s=0.03)
    assert deb.observe([A]) == []
    clock.advance(0.029)
    assert deb.observe([A]) == []
    clock.advance(0.001)
    assert deb.observe([A]) == [CardArrived("seat1", A)]
    assert deb.observe([A]) == []  # once only


def test_a_read_missed_before_the_stable_time_restarts_it(clock: VirtualClock) -> None:
    deb = CardDebouncer("seat1", clock, stable_s=0.03)
    deb.observe([A])
    clock.advance(0.02)
    deb.observe([])
    clock.advance(0.02)
    assert deb.observe([A]) == []  # 40 ms since the first read, but not stable
    clock.advance(0.03)
    assert deb.observe([A]) == [CardArrived("seat1", A)]


def test_card_leaves_after_missing_for_the_default_500_ms_not_before(clock: VirtualClock) -> None:
    deb = CardDebouncer("seat1", clock, stable_s=0)
    assert deb.observe([A]) == [CardArrived("seat1", A)]
    clock.advance(1)
    assert deb.observe([]) == []
    clock.advance(0.499)
    assert deb.expire() == []
    assert deb.present == {A}
    clock.advance(0.001)
    assert deb.expire() == [CardLeft("seat1", A)]
    assert deb.present == frozenset()


def test_a_dropout_shorter_than_the_gone_time_reports_nothing(clock: VirtualClock) -> None:
    deb = CardDebouncer("seat1", clock, stable_s=0, gone_s=0.5)
    deb.observe([A])
    for _ in range(20):  # 400 ms of failed reads
        clock.advance(0.02)
        assert deb.observe([]) == []
    clock.advance(0.02)
    assert deb.observe([A]) == []
    clock.advance(0.49)
    assert deb.observe([]) == []  # the missing time started again


def test_gone_time_is_configurable(clock: VirtualClock) -> None:
    deb = CardDebouncer("muck", clock, stable_s=0, gone_s=0.1)
    deb.observe([A])
    deb.observe([])
    clock.advance(0.1)
    assert deb.expire() == [CardLeft("muck", A)]


def test_several_tags_at_one_reader_are_reported_each(clock: VirtualClock) -> None:
    deb = CardDebouncer("board1", clock, stable_s=0.01)
    deb.observe([A, B])
    clock.advance(0.01)
    assert set(deb.observe([A, B])) == {CardArrived("board1", A), CardArrived("board1", B)}
    deb.observe([B])
    clock.advance(0.5)
    assert deb.observe([B]) == [CardLeft("board1", A)]


def test_next_deadline_is_when_the_next_event_comes_due(clock: VirtualClock) -> None:
    deb = CardDebouncer("seat1", clock, stable_s=0.03, gone_s=0.5)
    assert deb.next_deadline() is None
    deb.observe([A])
    assert deb.next_deadline() == pytest.approx(clock.now + 0.03)
    clock.advance(0.03)
    deb.observe([A])
    assert deb.next_deadline() is None
    deb.observe([])
    assert deb.next_deadline() == pytest.approx(clock.now + 0.5)


def test_negative_stable_time_is_refused(clock: VirtualClock) -> None:
    with pytest.raises(ValueError, match="stable_s must be >= 0"):
        CardDebouncer("seat1", clock, stable_s=-1)
