"""The shot clock in virtual time: countdown, signals, pauses, rulings, ties, restore."""

from __future__ import annotations

import json

import pytest

from controller.clocks import (
    ClockError,
    ShotClock,
    ShotClockConfig,
    Street,
    StructureError,
    call_timing,
)
from controller.clocks.events import (
    ActionTiming,
    ClockCalled,
    ClockMode,
    CountdownTick,
    PauseReason,
    Ruling,
    SecondsLeft,
    ShotClockEvent,
    ShotClockExpired,
    ShotClockPaused,
    ShotClockResumed,
    ShotClockStarted,
    ShotClockStopped,
    SignalKind,
)

T0 = 1000.0


def run(clock: ShotClock, until: float) -> list[ShotClockEvent]:
    """Poll at every deadline up to ``until``, as the runner would."""
    events: list[ShotClockEvent] = []
    while (d := clock.next_deadline()) is not None and d <= until:
        events += clock.poll(d)
    events += clock.poll(until)
    return events


def ticks(events: list[ShotClockEvent]) -> list[tuple[int, SignalKind]]:
    return [(e.seconds_left, e.signal) for e in events if isinstance(e, CountdownTick)]


def test_start_shows_the_configured_seconds_per_street() -> None:
    clock = ShotClock(ShotClockConfig(30, per_street={Street.RIVER: 45}))
    assert clock.start(1, T0) == [ShotClockStarted(1, 30, ClockMode.ACTION)]
    clock.acted(T0 + 1)
    assert clock.start(2, T0 + 1, street=Street.RIVER) == [ShotClockStarted(2, 45,
                                                                             ClockMode.ACTION)]
    assert clock.deadline == T0 + 46


def test_final_ten_seconds_beep_each_second_with_signals_at_3_and_0() -> None:
    clock = ShotClock(ShotClockConfig(30))
    clock.start(4, T0, can_check=True)
    events = run(clock, T0 + 30)
    quiet = [e.seconds_left for e in events if isinstance(e, SecondsLeft)]
    assert quiet == list(range(29, 10, -1))
    expected = [(k, SignalKind.BEEP) for k in range(10, -1, -1)]
    expected[7] = (3, SignalKind.WARNING)
    expected[10] = (0, SignalKind.FINAL)
    assert ticks(events) == expected
    assert not any(isinstance(e, ShotClockExpired) for e in events)  # 0 is still the player's


def test_signal_seconds_are_configurable() -> None:
    config = ShotClockConfig(20, countdown_s=5, signals={5: SignalKind.WARNING})
    clock = ShotClock(config)
    clock.start(1, T0)
    got = ticks(run(clock, T0 + 20))
    assert got[0] == (5, SignalKind.WARNING)
    assert [k for k, _ in got] == [5, 4, 3, 2, 1, 0]
    assert all(s is SignalKind.BEEP for _, s in got[1:])


def test_clock_9_expiry_checks_when_a_check_is_possible() -> None:
    clock = ShotClock(ShotClockConfig(30))
    clock.start(4, T0, can_check=True)
    events = run(clock, T0 + 31)
    assert events[-1] == ShotClockExpired(4, Ruling.CHECK, "CLOCK-9")
    assert not clock.active and clock.next_deadline() is None


def test_clock_9_expiry_folds_a_player_facing_a_bet() -> None:
    clock = ShotClock(ShotClockConfig(30))
    clock.start(4, T0, can_check=False)
    assert run(clock, T0 + 31)[-1] == ShotClockExpired(4, Ruling.FOLD, "CLOCK-9")


def test_clock_3_tie_goes_to_the_player() -> None:
    clock = ShotClock(ShotClockConfig(30))
    clock.start(4, T0)
    assert ticks(run(clock, T0 + 30))[-1] == (0, SignalKind.FINAL)  # 0 shows at the deadline
    events = clock.acted(T0 + 30)
    assert events == [ShotClockStopped(4, ActionTiming.TIE_TO_PLAYER)]


def test_clock_3_tie_goes_to_the_player_even_after_the_expiry_was_reported() -> None:
    """The timer fired first, the key carries the same instant: the player gets it."""
    clock = ShotClock(ShotClockConfig(30, tie_window_s=0.2))
    clock.start(4, T0)
    assert run(clock, T0 + 30.5)[-1].ruling is Ruling.FOLD  # type: ignore[union-attr]
    assert clock.acted(T0 + 30.2) == [ShotClockStopped(4, ActionTiming.TIE_TO_PLAYER)]


def test_action_after_the_instant_is_late_and_the_ruling_stands() -> None:
    clock = ShotClock(ShotClockConfig(30))
    clock.start(4, T0)
    events = clock.acted(T0 + 30.001)  # never polled: the expiry comes first
    assert events == [ShotClockExpired(4, Ruling.FOLD, "CLOCK-9"),
                      ShotClockStopped(4, ActionTiming.LATE)]


def test_pause_for_an_all_in_count_resumes_with_the_time_left() -> None:
    clock = ShotClock(ShotClockConfig(30))
    clock.start(2, T0)
    run(clock, T0 + 12.5)
    assert clock.pause(T0 + 12.5, PauseReason.ALL_IN_COUNT) == [
        ShotClockPaused(2, 18, PauseReason.ALL_IN_COUNT)]
    assert clock.next_deadline() is None
    assert run(clock, T0 + 500) == []  # no time passes while paused
    assert clock.resume(T0 + 500, PauseReason.ALL_IN_COUNT) == [ShotClockResumed(2, 18)]
    assert clock.deadline == pytest.approx(T0 + 500 + 17.5)


def test_floor_pause_and_all_in_count_must_both_lift() -> None:
    clock = ShotClock(ShotClockConfig(30))
    clock.start(2, T0)
    assert clock.pause(T0 + 1, PauseReason.FLOOR) == [SecondsLeft(2, 29),
                                                       ShotClockPaused(2, 29, PauseReason.FLOOR)]
    clock.pause(T0 + 2, PauseReason.ALL_IN_COUNT)
    assert clock.resume(T0 + 3, PauseReason.ALL_IN_COUNT) == []
    assert clock.paused
    assert clock.resume(T0 + 10, PauseReason.FLOOR) == [ShotClockResumed(2, 29)]
    assert clock.seconds_left(T0 + 10) == pytest.approx(29)


def test_floor_pause_holds_across_players() -> None:
    clock = ShotClock(ShotClockConfig(30))
    clock.pause(T0, PauseReason.FLOOR)
    clock.start(5, T0)
    assert clock.next_deadline() is None
    clock.resume(T0 + 60, PauseReason.FLOOR)
    assert clock.deadline == T0 + 90


def test_clock_1_call_50_plus_10_then_dead_hand_clock_3() -> None:
    clock = ShotClock(ShotClockConfig(action_s=None))  # no per-action clock, live default
    assert clock.start(7, T0) == [ShotClockStarted(7, None, ClockMode.ACTION)]
    assert clock.next_deadline() is None
    assert clock.call_clock(T0 + 120, call_timing("50+10")) == [
        ClockCalled(7, 50, 10, "CLOCK-1")]
    events = run(clock, T0 + 181)
    assert [k for k, _ in ticks(events)] == list(range(10, -1, -1))
    assert events[-1] == ShotClockExpired(7, Ruling.DEAD_HAND, "CLOCK-3")
    assert clock.state()["mode"] == "called"


def test_clock_1_call_25_plus_5_counts_down_five_seconds() -> None:
    clock = ShotClock(ShotClockConfig(action_s=None))
    clock.start(7, T0)
    clock.call_clock(T0, call_timing("50+10", level_minutes=20))
    events = run(clock, T0 + 31)
    assert ticks(events) == [(5, SignalKind.BEEP), (4, SignalKind.BEEP),
                             (3, SignalKind.WARNING), (2, SignalKind.BEEP),
                             (1, SignalKind.BEEP), (0, SignalKind.FINAL)]
    assert events[-1].ruling is Ruling.DEAD_HAND  # type: ignore[union-attr]
    assert clock.state()["remaining"] == 0


def test_clock_call_replaces_a_running_shot_clock_and_cannot_repeat() -> None:
    clock = ShotClock(ShotClockConfig(30))
    clock.start(1, T0)
    clock.call_clock(T0 + 5, call_timing("60+10"))
    assert clock.deadline == T0 + 75
    with pytest.raises(ClockError, match="already called"):
        clock.call_clock(T0 + 6, call_timing("60+10"))


def test_clock_call_needs_a_player_on_the_clock() -> None:
    with pytest.raises(ClockError):
        ShotClock().call_clock(T0, call_timing("60+10"))


def test_missed_seconds_are_coalesced_into_one_tick() -> None:
    clock = ShotClock(ShotClockConfig(30))
    clock.start(1, T0)
    events = clock.poll(T0 + 25.5)
    assert events == [CountdownTick(1, 5, SignalKind.BEEP)]


def test_pause_at_the_deadline_reports_the_expiry_not_a_pause() -> None:
    clock = ShotClock(ShotClockConfig(30))
    clock.start(2, T0)
    events = clock.pause(T0 + 31, PauseReason.ALL_IN_COUNT)
    assert events[-1] == ShotClockExpired(2, Ruling.FOLD, "CLOCK-9")


def test_start_while_a_player_is_on_the_clock_is_refused() -> None:
    clock = ShotClock()
    clock.start(1, T0)
    with pytest.raises(ClockError, match="still on the clock"):
        clock.start(2, T0)


def test_state_is_json_and_restore_keeps_the_time_left() -> None:
    clock = ShotClock(ShotClockConfig(30))
    clock.start(3, T0, can_check=True, player="p3")
    run(clock, T0 + 22.25)
    saved = json.loads(json.dumps(clock.state(T0 + 22.25)))
    fresh = ShotClock(ShotClockConfig(30))
    fresh.restore(saved, now=5.0)  # a new boot: a new monotonic epoch
    assert fresh.seat == 3 and fresh.deadline == pytest.approx(5.0 + 7.75)
    events = run(fresh, 5.0 + 8)
    assert [k for k, _ in ticks(events)] == [7, 6, 5, 4, 3, 2, 1, 0]
    assert events[-1] == ShotClockExpired(3, Ruling.CHECK, "CLOCK-9")


def test_restore_of_a_paused_clock_stays_paused() -> None:
    clock = ShotClock(ShotClockConfig(30))
    clock.start(3, T0)
    clock.pause(T0 + 10, PauseReason.FLOOR)
    fresh = ShotClock(ShotClockConfig(30))
    fresh.restore(clock.state(), now=1.0)
    assert fresh.paused and fresh.next_deadline() is None
    fresh.resume(2.0, PauseReason.FLOOR)
    assert fresh.deadline == pytest.approx(22.0)


@pytest.mark.parametrize("bad", [
    dict(action_s=0), dict(countdown_s=-1), dict(signals={11: SignalKind.WARNING}),
    dict(tie_window_s=-0.1), dict(per_street={Street.FLOP: -5})])
def test_config_is_validated(bad: dict[str, object]) -> None:
    with pytest.raises(StructureError):
        ShotClockConfig(**bad)  # type: ignore[arg-type]
