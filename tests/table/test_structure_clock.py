"""The table on a tournament Structure (issue 5): levels with antes and the big blind ante,
breaks that block the deal (a colour-up break announced with its denominations),
synchronised breaks at :55 (LEVEL-3), the host's clock adopted, UNSYNCED after the timeout,
and the shot clock after an undo. All in the mock's virtual time."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from controller.clocks.structure import Break, Structure, SyncBreaks
from controller.clocks.structure import Level as Lv
from controller.clocks.timebank import Caller
from controller.devices.interfaces import BlindsFrame
from controller.events import (
    BreakEnded,
    BreakStarted,
    ClockSynced,
    HandStarted,
    LevelSet,
    Rejected,
)
from controller.rules.config import LIVE_TOURNAMENT
from controller.table.lights import Level

from .conftest import Rig

HANDS = {1: "AsKs", 3: "QdQc", 5: "7h2c"}


def bare(event: object) -> object:
    """A level or break event without its clock snapshot (journaled with each one; the
    snapshot's figures are another test's business), after checking it has one."""
    assert isinstance(event, LevelSet | BreakStarted | BreakEnded) and event.clock is not None
    return event.model_copy(update={"clock": None})


def level_set(level: int, small_blind: int, big_blind: int, ante: int) -> LevelSet:
    return LevelSet(level=level, small_blind=small_blind, big_blind=big_blind, ante=ante)


def structure(*breaks: Break, sync: SyncBreaks | None = None, minutes: float = 10
              ) -> Structure:
    s = 60.0 * minutes
    return Structure("test", (Lv(1, 100, 200, 0, 200, s), Lv(2, 200, 400, 50, 400, s),
                              Lv(3, 300, 600, 75, 600, s), Lv(4, 400, 800, 100, 800, s)),
                     breaks=tuple(breaks), sync_breaks=sync)


def rig(s: Structure, **kw: object) -> Rig:
    return Rig(seats={2: 20_000, 4: 20_000, 7: 20_000}, button=7, levels=(), structure=s,
               profile=LIVE_TOURNAMENT, tournament=True, shot_clock=None, **kw)


def end_hand(r: Rig) -> None:
    """The hand in play is voided (the quickest way back to the deal key)."""
    assert r.table.misdeal("the floor voids the hand", None)
    r.dealer.gather()


def frame(r: Rig) -> BlindsFrame:
    f = r.hw.blinds.frame
    assert f is not None
    return f


# ---------------------------------------------------------------- levels
def test_level_1_the_structures_next_level_and_its_antes_apply_from_the_next_hand() -> None:
    r = rig(structure())
    r.dealer.step(599.0)
    r.start()  # the deal key one second before level 1 ends
    r.dealer.step(2.0)
    assert bare(r.last(LevelSet)) == level_set(2, 200, 400, 50)
    hand = r.table.hand
    assert hand is not None and (hand.config.big_blind, hand.config.antes) == (200, ())
    assert hand.config.big_blind_ante == 200
    end_hand(r)
    r.start()
    hand = r.table.hand
    assert hand is not None and hand.config.big_blind == 400
    assert hand.config.antes == (50, 50, 50) and hand.config.big_blind_ante == 400  # ANTE-1
    started = r.of(HandStarted)[-1]
    assert (started.small_blind, started.big_blind) == (200, 400)


def test_level_2_plain_levels_still_run_the_table() -> None:
    r = Rig(seats={1: 1000, 3: 1000}, button=3, levels=(Level(5, 10),))
    assert r.table.structure is None and r.table.clocks.level is None
    r.start()
    assert r.table.hand is not None and r.table.hand.config.big_blind == 10


# ---------------------------------------------------------------- breaks
def test_level_2_a_break_blocks_the_deal_and_shows_its_time_on_the_blinds_display() -> None:
    r = rig(structure(Break(1, 300.0)))
    r.dealer.step(600.5)
    assert bare(r.last(BreakStarted)) == BreakStarted(level=1, seconds=300.0, colour_up=())
    assert frame(r).on_break and frame(r).seconds_left == 300
    r.start()
    rejected = r.last(Rejected)
    assert isinstance(rejected, Rejected) and "break" in rejected.reason
    assert r.table.hand is None
    r.dealer.step(100.0)
    assert frame(r).seconds_left == 200 and frame(r).on_break
    r.dealer.step(200.0)
    assert bare(r.last(BreakEnded)) == BreakEnded(level=1)
    assert bare(r.last(LevelSet)) == level_set(2, 200, 400, 50)
    assert not frame(r).on_break and frame(r).level == 2
    r.start()
    assert r.table.hand is not None and r.table.hand.config.big_blind == 400


def test_chiprace_1_a_colour_up_break_is_announced_with_the_denominations_leaving() -> None:
    r = rig(structure(Break(2, 900.0, colour_up=(25, 100))))
    r.dealer.step(1200.5)
    started = r.last(BreakStarted)
    assert bare(started) == BreakStarted(level=2, seconds=900.0, colour_up=(25, 100))
    assert started.clock.phase == "break" and started.clock.seconds_left == pytest.approx(899.5)


def local(hour: int, minute: int) -> float:
    """Epoch seconds of a local wall-clock time (LEVEL-3 counts local minutes)."""
    return dt.datetime(2026, 11, 22, hour, minute).timestamp()


def test_level_3_a_synchronised_break_at_55_is_skipped_in_level_1() -> None:
    """EXAMPLE LEVEL-3/2: start at 07:50 with 10-minute levels: no break at 07:55 (level 1);
    the first is at 08:55, and it waits for the hand in play."""
    start = local(7, 50)
    holder: list[Rig] = []
    r = rig(structure(sync=SyncBreaks(55, 300.0)),
            wall_clock=lambda: start + (holder[0].hw.clock() - 1000.0 if holder else 0.0))
    holder.append(r)
    assert r.hw.clock() == 1000.0 and r.table.clocks.wall() == start  # the mock's start
    r.dealer.step(5 * 60 + 10.0)  # 07:55:10
    assert not r.of(BreakStarted) and r.table.level_no == 1
    r.dealer.step(59 * 60 + 30.0)  # 08:54:40, in the last level, 4 (LEVEL-6)
    r.start()
    r.dealer.step(60.0)  # 08:55:40: the break is due, the hand in play goes on
    assert not r.of(BreakStarted) and frame(r).level == 4
    end_hand(r)  # the hand ends: the break starts
    started = r.last(BreakStarted)
    assert isinstance(started, BreakStarted) and started.seconds == 300.0
    assert frame(r).on_break
    r.start()
    assert r.table.hand is None


# ---------------------------------------------------------------- the host's clock
def test_level_1_the_hosts_clock_is_adopted_and_the_difference_journaled() -> None:
    r = rig(structure())
    r.dealer.step(100.0)  # the table: level 1, 500 s left
    assert r.table.sync_clock(2, 400.0)  # the host: level 2, 400 s left
    synced = r.last(ClockSynced)
    assert isinstance(synced, ClockSynced) and synced.level == 2 and not synced.on_break
    assert synced.offset_s == pytest.approx(100.0 - 800.0)  # the table was 700 s behind
    assert synced.clock is not None and synced.clock.host and synced.clock.level == 2
    assert bare(r.last(LevelSet)) == level_set(2, 200, 400, 50)
    assert r.table.seconds_left() == pytest.approx(400.0)
    assert frame(r).seconds_left == 400 and not frame(r).unsynced


def test_level_1_unsynced_after_the_timeout_the_table_counts_on_then_reconciles() -> None:
    r = rig(structure(), host_timeout_s=90.0)
    r.table.sync_clock(1, 500.0)
    r.dealer.step(89.0)
    assert not frame(r).unsynced
    r.dealer.step(2.0)  # 91 s without the host
    assert frame(r).unsynced and frame(r).seconds_left == 409  # it counts on alone
    r.dealer.step(100.0)
    assert frame(r).seconds_left == 309
    assert r.table.sync_clock(1, 319.0)  # the host: the table ran 10 s ahead
    synced = r.last(ClockSynced)
    assert isinstance(synced, ClockSynced) and synced.offset_s == pytest.approx(10.0)
    assert not frame(r).unsynced and frame(r).seconds_left == 319


def test_level_2_the_host_can_put_the_table_on_a_break() -> None:
    r = rig(structure(Break(1, 300.0, colour_up=(25,))))
    r.dealer.step(50.0)
    assert r.table.sync_clock(1, 120.0, on_break=True)
    assert bare(r.last(BreakStarted)) == BreakStarted(level=1, seconds=300.0, colour_up=(25,))
    assert frame(r).on_break and frame(r).seconds_left == 120
    r.dealer.step(121.0)
    assert bare(r.last(BreakEnded)) == BreakEnded(level=1) and r.table.level_no == 2


def test_a_cash_table_is_never_unsynced_and_refuses_the_hosts_clock() -> None:
    r = Rig(seats={1: 1000, 3: 1000}, button=3, levels=(Level(5, 10),))
    r.dealer.step(1000.0)
    assert not frame(r).unsynced
    assert not r.table.sync_clock(3, 100.0)
    assert "not on a clock" in r.last(Rejected).reason  # type: ignore[attr-defined]


def test_a_sync_beyond_the_tables_structure_is_refused_with_the_reason() -> None:
    r = rig(structure())
    assert not r.table.sync_clock(9, 100.0)
    rejected = r.last(Rejected)
    assert isinstance(rejected, Rejected) and rejected.rule == "LEVEL-2"
    assert r.table.level_no == 1


def test_break_and_unsynced_frames_render_to_png(tmp_path: Path) -> None:
    r = rig(structure(Break(1, 300.0)))
    r.table.sync_clock(1, 10.0)
    r.dealer.step(100.0)
    assert frame(r).unsynced and frame(r).on_break
    path = r.hw.save_frame("blinds", tmp_path / "break_unsynced.png")
    assert path.exists() and path.stat().st_size > 0


# ---------------------------------------------------------------- undo and the shot clock
def shot_rig() -> Rig:
    r = Rig(seats={1: 1000, 3: 1000, 5: 1000}, button=5)
    r.start()
    r.dealer.deal(HANDS)
    return r


def shot_left(r: Rig) -> float:
    shot = r.table.clocks.shot
    assert shot is not None
    left = shot.seconds_left(r.table.clock())
    assert left is not None
    return left


def test_clock_3_after_an_undo_the_player_has_the_time_left_when_they_acted() -> None:
    r = shot_rig()
    r.dealer.step(12.0)  # the button thinks 12 s, then calls
    assert r.table.call()
    r.dealer.step(20.0)  # the small blind thinks; the dealer takes the call back
    assert r.table.undo(1, "the call was keyed by mistake")
    assert r.seat_to_act() == 5
    assert shot_left(r) == pytest.approx(18.0, abs=1e-6)  # not a fresh 30 s
    r.hw.assert_shot_clock("18", r.table.clocks.panel.style.thinking, blink=False)


def test_clock_3_an_undo_does_not_take_a_player_out_of_a_called_clock() -> None:
    r = shot_rig()
    assert r.table.call_clock(5, caller=Caller.DEALER.value)
    r.dealer.step(40.0)
    assert r.table.call()
    assert r.table.undo(1, "taken back")
    shot = r.table.clocks.shot
    assert shot is not None and shot.mode.value == "called" and r.seat_to_act() == 5
    assert shot_left(r) == pytest.approx(70.0 - 40.0, abs=1e-6)  # cash 60+10 (CLOCK-1)
    r.dealer.step(30.5)
    assert r.table.hand is not None and r.table.hand.folded[r.table.position_of(5) or 0]


def test_level_2_a_virtual_tournament_plays_through_levels_and_a_colour_up_break() -> None:
    from controller.table.virtual import VirtualTable

    s = Structure("fast", (Lv(1, 50, 100, 0, 100, 60.0), Lv(2, 100, 200, 25, 200, 60.0),
                           Lv(3, 200, 400, 50, 400, 60.0)), breaks=(Break(1, 30.0, (25,)),))
    vt = VirtualTable(4, seed=1, tournament=True, structure=s, pace=2.0)
    summary = vt.play_hands(30)  # each hand's chips are checked
    assert summary.hands == 30
    assert (vt.counts["BreakStarted"], vt.counts["BreakEnded"]) == (1, 1)
    assert vt.counts["LevelSet"] == 2 and vt.table.level_no == 3
