"""HostClock, pure (issue 5): the host's sync adopted, the timeout as a pollable deadline,
a snapshot and its restore across a restart (downtime counted unless paused)."""

from __future__ import annotations

import pytest

from controller.clocks.errors import ClockError
from controller.clocks.events import BreakStarted, LevelStarted, SyncChanged
from controller.clocks.host_clock import HostClock, snapshot
from controller.clocks.level_clock import LevelClock, Phase
from controller.clocks.structure import Break, SyncBreaks, structure

ROWS = [(100, 200, 0), (200, 400, 25), (300, 600, 50)]
T0 = 5000.0


def host_clock(*breaks: Break, timeout_s: float = 90.0) -> HostClock:
    level = LevelClock(structure(ROWS, level_minutes=10, breaks=breaks))
    level.start(T0)
    return HostClock(level, timeout_s=timeout_s)


def test_a_clock_the_host_never_synced_never_times_out() -> None:
    hc = host_clock()
    assert hc.next_deadline() is None
    assert hc.poll(T0 + 10_000) == [] and not hc.unsynced


def test_level_1_the_sync_timeout_is_a_deadline_and_the_next_sync_reconciles() -> None:
    hc = host_clock(timeout_s=90.0)
    hc.adopt(1, 550.0, False, T0 + 10)  # the table was 40 s behind the host
    assert hc.last_offset_s == pytest.approx(-40.0)
    assert hc.next_deadline() == T0 + 100
    assert hc.poll(T0 + 99.9) == []
    assert SyncChanged(False) in hc.poll(T0 + 100) and hc.unsynced
    assert hc.next_deadline() is None  # once unsynced, nothing more to wake for
    events = hc.adopt(1, 470.0, False, T0 + 100)  # the table says 460: 10 s ahead
    assert SyncChanged(True) in events and not hc.unsynced
    assert hc.last_offset_s == pytest.approx(10.0)
    assert hc.level.seconds_left(T0 + 100) == pytest.approx(470.0)


def test_level_2_the_host_moves_the_table_on_and_into_a_break() -> None:
    hc = host_clock(Break(2, 300.0, colour_up=(25,)))
    events = hc.adopt(2, 100.0, False, T0 + 30)
    assert any(isinstance(e, LevelStarted) and e.number == 2 for e in events)
    hc.adopt(2, 250.0, True, T0 + 40)
    assert hc.level.phase is Phase.BREAK and hc.level.seconds_left(T0 + 40) == 250.0
    events = hc.level.poll(T0 + 290.5)
    assert any(isinstance(e, LevelStarted) and e.number == 3 for e in events)


def test_level_2_a_sync_outside_the_structure_is_refused() -> None:
    with pytest.raises(ClockError, match=r"levels 1\.\.3"):
        host_clock().adopt(4, 10.0, False, T0)


def test_a_snapshot_restores_with_the_downtime_counted_and_unsynced() -> None:
    hc = host_clock(Break(1, 300.0))
    hc.adopt(1, 500.0, False, T0)
    snap = snapshot(hc.level, T0 + 100, at=1_000_000.0, host=hc.host)
    assert (snap.level, snap.phase, snap.seconds_left, snap.host) == (1, "level", 400.0, True)
    again = host_clock(Break(1, 300.0))
    events = again.restored(snap, now=50.0, wall_now=1_000_000.0 + 450.0)
    assert again.unsynced  # until the host syncs again
    assert any(isinstance(e, BreakStarted) for e in events)  # level 1 ran out meanwhile
    assert again.level.phase is Phase.BREAK
    assert again.level.seconds_left(50.0) == pytest.approx(300.0 - 50.0)


def test_a_paused_snapshot_does_not_count_the_downtime() -> None:
    hc = host_clock()
    hc.level.pause(T0 + 200)
    snap = snapshot(hc.level, T0 + 300, at=1_000_000.0)
    again = host_clock()
    again.restored(snap, now=0.0, wall_now=1_000_000.0 + 9_999.0)
    assert again.level.paused and again.level.seconds_left(0.0) == pytest.approx(400.0)
    assert not again.unsynced  # the host never ran it


def test_level_3_a_synchronised_break_due_at_the_crash_starts_on_restart() -> None:
    s = structure(ROWS, level_minutes=10)
    s = type(s)(s.name, s.levels, sync_breaks=SyncBreaks(55, 300.0))
    level = LevelClock(s, wall_offset=0.0)
    level.start(2400.0)  # wall 00:40 local (offset 0)
    level.poll(3001.0)  # level 2
    level.hand_started(3100.0)
    level.poll(3300.0)  # 00:55: due, the hand goes on
    assert level.phase is Phase.BREAK_DUE
    snap = snapshot(level, 3300.0, at=3300.0)
    again = LevelClock(s, wall_offset=0.0)
    again.start(10.0)
    events = HostClock(again).restored(snap, now=10.0, wall_now=3300.0)
    assert again.phase is Phase.BREAK and any(isinstance(e, BreakStarted) for e in events)
