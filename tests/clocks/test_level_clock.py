"""The level clock in virtual time: LEVEL-1, breaks, LEVEL-3 synchronised breaks, LEVEL-6,
floor pauses, host authority and restore."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.clocks import ClockError, LevelClock, Phase, Structure, load_structure
from controller.clocks.events import (
    BreakDue,
    BreakEnded,
    BreakStarted,
    ColourUpDue,
    LevelEvent,
    LevelReconciled,
    LevelStarted,
    LevelTick,
    SyncChanged,
)
from controller.clocks.structure import Break, structure

T0 = 100.0
ROWS = [(25, 50, 0), (50, 100, 0), (75, 150, 25), (100, 200, 25)]


def run(clock: LevelClock, until: float) -> list[tuple[float, LevelEvent]]:
    """Poll at every deadline up to ``until``; each event with the time it was reported."""
    out: list[tuple[float, LevelEvent]] = []
    while (d := clock.next_deadline()) is not None and d <= until:
        out += [(d, e) for e in clock.poll(d)]
    out += [(until, e) for e in clock.poll(until)]
    return out


def starts(events: list[tuple[float, LevelEvent]]) -> list[tuple[float, int]]:
    return [(t, e.number) for t, e in events if isinstance(e, LevelStarted)]


def test_levels_follow_each_other_at_their_exact_times() -> None:
    clock = LevelClock(structure(ROWS, level_minutes=20))
    first = clock.start(T0)
    assert first[0] == LevelStarted(1, 25, 50, 0, 0, 1200)
    assert starts(run(clock, T0 + 3 * 1200)) == [(T0 + 1200, 2), (T0 + 2400, 3), (T0 + 3600, 4)]


def test_level_1_example_1_a_hand_plays_at_the_level_of_its_shuffle() -> None:
    # level 3 ends at "10:00:00" = T0 + 3600 s
    clock = LevelClock(structure(ROWS, level_minutes=20))
    clock.start(T0)
    run(clock, T0 + 3598)
    assert clock.hand_started(T0 + 3598).number == 3  # shuffled at 09:59:58
    run(clock, T0 + 3600.5)
    assert clock.level.number == 4  # the clock moved on; the hand in play keeps level 3
    clock.hand_ended(T0 + 3630)
    assert clock.hand_started(T0 + 3601 + 30).number == 4


def test_level_1_hand_started_catches_up_without_a_poll() -> None:
    clock = LevelClock(structure(ROWS, level_minutes=20))
    clock.start(T0)
    assert clock.hand_started(T0 + 1201).number == 2  # the LevelStarted waits for poll
    assert clock.next_deadline() == T0 + 1201
    assert any(isinstance(e, LevelStarted) and e.number == 2 for e in clock.poll(T0 + 1201))


def test_level_6_last_level_stays() -> None:
    clock = LevelClock(structure(ROWS[:2], level_minutes=10))
    clock.start(T0)
    events = run(clock, T0 + 5000)
    assert starts(events) == [(T0 + 600, 2)]
    assert clock.level.number == 2 and clock.seconds_left(T0 + 5000) == 0
    assert clock.next_deadline() is None


def test_break_with_colour_up_calls_the_hook_and_no_hand_may_start() -> None:
    seen: list[ColourUpDue] = []
    s = structure(ROWS, level_minutes=20, breaks=[Break(2, 600, colour_up=(25,))])
    clock = LevelClock(s, on_colour_up=seen.append)
    clock.start(T0)
    events = [e for _, e in run(clock, T0 + 2400)]
    assert BreakStarted(2, 600, False) in events and ColourUpDue(2, (25,)) in events
    assert seen == [ColourUpDue(2, (25,))]
    assert clock.on_break
    with pytest.raises(ClockError, match="break"):
        clock.hand_started(T0 + 2500)
    after = run(clock, T0 + 3000)
    assert (T0 + 3000, BreakEnded(2, 3)) in after
    assert starts(after) == [(T0 + 3000, 3)]


def test_level_ticks_count_whole_seconds_and_coalesce() -> None:
    clock = LevelClock(structure(ROWS, level_minutes=1))
    events = [(T0, e) for e in clock.start(T0)] + run(clock, T0 + 5)
    ticks = [e.seconds_left for _, e in events if isinstance(e, LevelTick)]
    assert ticks == [60, 59, 58, 57, 56, 55]
    assert clock.poll(T0 + 30.5) == [LevelTick(1, 30, False)]


# -- LEVEL-3
def wall(h: int, m: int) -> float:
    return h * 3600 + m * 60


def test_level_3_example_1_breaks_at_55_past_each_hour() -> None:
    s = load_structure("level_minutes = 20\nlevels = [[10, 20], [20, 40], [30, 60], [40, 80],"
                       " [50, 100], [60, 120], [80, 160], [100, 200], [150, 300]]\n"
                       "[sync_breaks]\nminute = 55\nminutes = 5\n")
    offset = wall(7, 25) - T0  # starts at 07:25
    clock = LevelClock(s, wall_offset=offset)
    clock.start(T0)
    events = run(clock, T0 + wall(3, 0))
    breaks = [t + offset for t, e in events if isinstance(e, BreakStarted)]
    assert breaks == [wall(7, 55), wall(8, 55), wall(9, 55)]
    ends = [t + offset for t, e in events if isinstance(e, BreakEnded)]
    assert ends == [wall(8, 0), wall(9, 0), wall(10, 0)]


def test_level_3_example_2_no_break_in_the_first_level() -> None:
    s = load_structure("level_minutes = 10\nlevels = [[10, 20], [20, 40], [30, 60], [40, 80],"
                       " [50, 100], [60, 120], [80, 160], [100, 200]]\n[sync_breaks]\n")
    offset = wall(7, 50) - T0  # 07:50, 10-minute levels
    clock = LevelClock(s, wall_offset=offset)
    clock.start(T0)
    events = run(clock, T0 + wall(1, 10))
    breaks = [t + offset for t, e in events if isinstance(e, BreakStarted)]
    assert breaks == [wall(8, 55)]


def test_level_3_break_waits_for_the_hand_in_play_and_holds_the_level_time() -> None:
    s = load_structure("level_minutes = 20\nlevels = [[10, 20], [20, 40], [30, 60]]\n"
                       "[sync_breaks]\n")
    clock = LevelClock(s, wall_offset=wall(7, 25) - T0)
    clock.start(T0)
    run(clock, T0 + wall(0, 29))  # 07:54, level 2 (since 07:45)
    clock.hand_started(T0 + wall(0, 29))
    events = run(clock, T0 + wall(0, 31))  # 07:56: due, the hand still plays
    assert [e for _, e in events if isinstance(e, BreakDue)] == [BreakDue(2)]
    assert clock.phase is Phase.BREAK_DUE and clock.next_deadline() is None
    assert clock.seconds_left(T0 + wall(0, 31)) == 600  # level 2 stopped at 07:55
    ended = clock.hand_ended(T0 + wall(0, 32))  # 07:57
    assert BreakStarted(2, 300, True) in ended
    after = run(clock, T0 + wall(0, 37) + 1)  # the break ends 08:02, level 2 resumes
    assert (T0 + wall(0, 37), BreakEnded(2, 2)) in after
    assert clock.level.number == 2
    assert clock.seconds_left(T0 + wall(0, 37) + 1) == 599


def test_level_3_needs_the_wall_clock() -> None:
    s = load_structure("level_minutes = 20\nlevels = [[10, 20]]\n[sync_breaks]\n")
    with pytest.raises(ClockError, match="wall"):
        LevelClock(s)


# -- floor, host, journal
def test_floor_pause_resumes_with_the_time_left() -> None:
    clock = LevelClock(structure(ROWS, level_minutes=20))
    clock.start(T0)
    clock.pause(T0 + 100)
    assert run(clock, T0 + 10_000) == []
    clock.resume(T0 + 10_000)
    assert starts(run(clock, T0 + 12_000)) == [(T0 + 10_000 + 1100, 2)]


def test_host_lost_counts_on_then_reconciles_to_the_host() -> None:
    host = LevelClock(structure(ROWS, level_minutes=20))
    table = LevelClock(structure(ROWS, level_minutes=20))
    host.start(T0)
    table.start(T0 + 3)  # the table started 3 s late
    assert SyncChanged(False) in table.host_lost(T0 + 10)
    assert not table.synced
    run(table, T0 + 1300)
    run(host, T0 + 1300)
    events = table.host_update(host.state(T0 + 1300), T0 + 1300)
    assert LevelReconciled(pytest.approx(-3)) in events  # type: ignore[arg-type]
    assert SyncChanged(True) in events and table.synced
    assert table.seconds_left(T0 + 1300) == pytest.approx(host.seconds_left(T0 + 1300))


def test_host_update_moves_the_table_to_the_hosts_level() -> None:
    host = LevelClock(structure(ROWS, level_minutes=20))
    table = LevelClock(structure(ROWS, level_minutes=20))
    host.start(T0)
    table.start(T0 + 100)
    run(host, T0 + 1250)
    events = table.host_update(host.state(T0 + 1250), T0 + 1250)
    assert any(isinstance(e, LevelStarted) and e.number == 2 for e in events)


def test_restore_from_the_journal_keeps_the_remaining_time() -> None:
    s = structure(ROWS, level_minutes=20, breaks=[Break(1, 300)])
    clock = LevelClock(s)
    clock.start(T0)
    run(clock, T0 + 1250)  # 50 s into the break
    saved = json.loads(json.dumps(clock.state(T0 + 1250)))
    fresh = LevelClock(s)
    fresh.restore(saved, now=7.0)
    assert fresh.on_break and fresh.seconds_left(7.0) == 250
    assert starts(run(fresh, 7.0 + 250)) == [(257.0, 2)]


def test_restore_with_elapsed_downtime_catches_up() -> None:
    clock = LevelClock(structure(ROWS, level_minutes=20))
    clock.start(T0)
    saved = clock.state(T0 + 1000)
    fresh = LevelClock(structure(ROWS, level_minutes=20))
    fresh.restore(saved, now=5.0, elapsed_since=400)
    assert starts(run(fresh, 5.0)) == [(5.0 + 200 - 400, 2)]  # when it began, this epoch
    assert fresh.seconds_left(5.0) == pytest.approx(1000)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0.001, 400), min_size=1, max_size=80))
def test_no_drift_however_late_the_clock_is_polled(gaps: list[float]) -> None:
    """Level boundaries come from the structure, not from when polls happen: a clock
    polled at random late instants agrees with one polled at every deadline."""
    s = Structure("x", structure(ROWS, level_minutes=5).levels, (Break(2, 120),))
    exact, late = LevelClock(s), LevelClock(s)
    exact.start(T0)
    late.start(T0)
    now = T0
    for gap in gaps:
        now += gap
        late.poll(now)
        run(exact, now)
        assert (late.level.number, late.phase) == (exact.level.number, exact.phase)
        assert late.seconds_left(now) == exact.seconds_left(now)
    boundaries = [T0 + 300, T0 + 600, T0 + 720, T0 + 1020, T0 + 1320]
    if now > T0 + 1320:
        assert late.level.number == 4 and late.seconds_left(now) == 0
    else:
        past = sum(1 for b in boundaries if b <= now)
        assert late.level.number == [1, 2, 2, 3, 4, 4][past]


def test_the_floor_moves_the_level_on_with_its_full_time() -> None:
    clock = LevelClock(structure(ROWS, level_minutes=20,
                                 breaks=(Break(2, 600),)))
    clock.start(T0)
    events = clock.next_level(T0 + 100)
    assert [e for e in events if isinstance(e, LevelStarted)] == [
        LevelStarted(2, 50, 100, 0, 0, 1200)]
    assert clock.seconds_left(T0 + 100) == 1200
    run(clock, T0 + 100 + 1200)  # level 2 ends: the break after it
    assert clock.phase is Phase.BREAK
    events = clock.next_level(T0 + 1400)  # the floor cuts the break short
    assert BreakEnded(2, 3) in events
    assert clock.number == 3 and clock.phase is Phase.LEVEL
    clock.next_level(T0 + 1500)
    with pytest.raises(ClockError) as err:  # LEVEL-6: the last level stays
        clock.next_level(T0 + 1600)
    assert err.value.rule == "LEVEL-6"


def test_next_level_on_a_paused_clock_stays_paused_with_the_full_time() -> None:
    clock = LevelClock(structure(ROWS, level_minutes=20))
    clock.start(T0)
    clock.pause(T0 + 10)
    clock.next_level(T0 + 20)
    assert clock.paused and clock.number == 2
    assert clock.seconds_left(T0 + 500) == 1200
    with pytest.raises(ClockError):
        LevelClock(structure(ROWS, level_minutes=20)).next_level(T0)
