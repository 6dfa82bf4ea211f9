"""Properties of the shot clock under random pauses and irregular polling (Hypothesis)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from controller.clocks import ShotClock, ShotClockConfig
from controller.clocks.events import (
    CountdownTick,
    PauseReason,
    SecondsLeft,
    ShotClockEvent,
    ShotClockExpired,
)

Op = tuple[str, float]
ops = st.lists(st.one_of(
    st.tuples(st.just("wait"), st.floats(0.0, 7.0)),
    st.tuples(st.just("pause"), st.sampled_from([0.0, 1.0])),
    st.tuples(st.just("resume"), st.sampled_from([0.0, 1.0])),
), max_size=40)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 40), ops)
def test_clock_runs_only_unpaused_and_expires_once_after_its_time(action_s: int,
                                                                  program: list[Op]) -> None:
    reasons = [PauseReason.ALL_IN_COUNT, PauseReason.FLOOR]
    clock = ShotClock(ShotClockConfig(action_s))
    now, ran = 0.0, 0.0  # ran: unpaused time the model says has passed
    paused: set[PauseReason] = set()
    events: list[ShotClockEvent] = list(clock.start(1, now))
    for op, arg in program:
        if op == "wait":
            before = len(events)
            end = now + arg
            while (d := clock.next_deadline()) is not None and d <= end:
                events += clock.poll(d)
            events += clock.poll(end)
            if paused:
                assert len(events) == before  # nothing happens while paused
            else:
                ran += arg
            now = end
        elif op == "pause":
            paused.add(reasons[int(arg)])
            events += clock.pause(now, reasons[int(arg)])
        else:
            paused.discard(reasons[int(arg)])
            events += clock.resume(now, reasons[int(arg)])
        expired = [e for e in events if isinstance(e, ShotClockExpired)]
        assert len(expired) <= 1
        if ran > action_s + 1e-6:
            assert expired, f"ran {ran} s of a {action_s} s clock without expiring"
        if expired:
            assert ran >= action_s - 1e-6, "expired before its time"
    shown = [e.seconds_left for e in events if isinstance(e, (SecondsLeft, CountdownTick))]
    assert shown == sorted(shown, reverse=True) and len(set(shown)) == len(shown)
    assert all(0 <= s < action_s for s in shown)
