"""The clock panel on the mock table: digits, colours, blinking, beeps, seat lights, blinds."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from pathlib import Path

import pytest

from controller.clocks import LevelClock, ShotClock, ShotClockConfig, call_timing
from controller.clocks.events import ClockEvent, PauseReason
from controller.clocks.structure import structure
from controller.devices.interfaces import (
    BEEP_EXPIRED,
    BEEP_SHORT,
    BEEP_WARNING,
    BlindsFrame,
    Colour,
    LightState,
)
from controller.devices.mock import MockTable
from controller.devices.profile import load_profile
from controller.table.clock_panel import ClockPanel


@pytest.fixture
def table() -> MockTable:
    return MockTable(load_profile("virtual"))


def drive(table: MockTable, panel: ClockPanel, clock: ShotClock | LevelClock,
          seconds: float) -> list[ClockEvent]:
    """Advance the mock's virtual clock, waking at each deadline as the runner would."""
    end = table.virtual_clock.now + seconds
    got: list[ClockEvent] = []
    while (d := clock.next_deadline()) is not None and d <= end:
        table.virtual_clock.advance(d - table.virtual_clock.now)
        got += clock.poll(d)
    table.virtual_clock.advance(end - table.virtual_clock.now)
    got += clock.poll(end)
    for event in got:
        panel.handle(event)
    return got


def show(panel: ClockPanel, events: Sequence[ClockEvent]) -> None:
    for event in events:
        panel.handle(event)


def test_countdown_on_display_buzzer_and_seat_light(table: MockTable) -> None:
    panel = ClockPanel.for_table(table)
    clock = ShotClock(ShotClockConfig(30))
    show(panel, clock.start(4, table.clock(), can_check=True))
    table.assert_shot_clock("30", Colour.GREEN, blink=False)
    drive(table, panel, clock, 19.5)
    table.assert_shot_clock("11", Colour.GREEN, blink=False)
    table.assert_beeped()  # quiet before the final ten seconds
    drive(table, panel, clock, 0.5)
    table.assert_shot_clock("10", Colour.AMBER, blink=True)
    table.assert_light(4, LightState.blink(Colour.AMBER))
    table.assert_beeped(BEEP_SHORT)
    drive(table, panel, clock, 7)
    table.assert_shot_clock("3", Colour.RED, blink=True)
    table.assert_light(4, LightState.blink(Colour.RED))
    table.assert_beeped(*[BEEP_SHORT] * 7, BEEP_WARNING)
    drive(table, panel, clock, 3.01)
    table.assert_beeped(*[BEEP_SHORT] * 7, BEEP_WARNING, BEEP_SHORT, BEEP_SHORT, BEEP_EXPIRED)
    table.assert_shot_clock("0", Colour.RED, blink=False)
    table.assert_light(4, LightState.on(Colour.RED))


def test_acting_blanks_the_clock_and_hands_the_light_back(table: MockTable) -> None:
    released: list[int] = []
    panel = ClockPanel.for_table(table, release_light=released.append)
    clock = ShotClock(ShotClockConfig(30))
    show(panel, clock.start(2, table.clock()))
    drive(table, panel, clock, 25)
    show(panel, clock.acted(table.clock()))
    table.assert_shot_clock("", blink=False)
    assert released == [2]


def test_pause_shows_the_time_left_in_blue(table: MockTable) -> None:
    panel = ClockPanel.for_table(table)
    clock = ShotClock(ShotClockConfig(30))
    show(panel, clock.start(2, table.clock()))
    drive(table, panel, clock, 22.2)
    show(panel, clock.pause(table.clock(), PauseReason.ALL_IN_COUNT))
    table.assert_shot_clock("8", Colour.BLUE, blink=False)
    drive(table, panel, clock, 100)
    table.assert_shot_clock("8", Colour.BLUE, blink=False)
    show(panel, clock.resume(table.clock(), PauseReason.ALL_IN_COUNT))
    table.assert_shot_clock("8", Colour.GREEN)


def test_clock_call_shows_the_call_time_in_amber(table: MockTable) -> None:
    panel = ClockPanel.for_table(table)
    clock = ShotClock(ShotClockConfig(action_s=None))
    show(panel, clock.start(6, table.clock()))
    table.assert_shot_clock("", blink=False)
    show(panel, clock.call_clock(table.clock(), call_timing("60+10")))
    table.assert_shot_clock("70", Colour.AMBER)
    table.assert_light(6, LightState.on(Colour.AMBER))


def test_blinds_display_follows_the_level_clock(table: MockTable) -> None:
    panel = ClockPanel.for_table(table)
    level = LevelClock(structure([(25, 50, 0), (50, 100, 10)], level_minutes=1))
    show(panel, level.start(table.clock()))
    table.assert_blinds(BlindsFrame(1, 25, 50, 0, None, 60))
    drive(table, panel, level, 45)
    table.assert_blinds(BlindsFrame(1, 25, 50, 0, None, 15))
    drive(table, panel, level, 15)
    table.assert_blinds(BlindsFrame(2, 50, 100, 10, None, 60))


def render_frames(out: Path) -> list[Path]:
    """Render the shot clock at a few moments of a countdown (also used for docs/frames)."""
    out.mkdir(parents=True, exist_ok=True)
    table = MockTable(load_profile("virtual"))
    panel = ClockPanel.for_table(table)
    clock = ShotClock(ShotClockConfig(30))
    show(panel, clock.start(3, table.clock()))
    paths = [table.save_frame("shot_clock", out / "shot_clock_30_thinking.png")]
    drive(table, panel, clock, 20)
    paths.append(table.save_frame("shot_clock", out / "shot_clock_10_countdown.png"))
    drive(table, panel, clock, 7)
    paths.append(table.save_frame("shot_clock", out / "shot_clock_3_warning.png"))
    show(panel, clock.pause(table.clock(), PauseReason.FLOOR))
    paths.append(table.save_frame("shot_clock", out / "shot_clock_3_paused.png"))
    show(panel, clock.resume(table.clock(), PauseReason.FLOOR))
    drive(table, panel, clock, 3.5)
    paths.append(table.save_frame("shot_clock", out / "shot_clock_0_expired.png"))
    return paths


def test_rendered_frames_differ(tmp_path: Path) -> None:
    from PIL import Image, ImageChops

    images = [Image.open(p).convert("RGB") for p in render_frames(tmp_path)]
    for a, b in itertools.pairwise(images):
        assert ImageChops.difference(a, b).getbbox() is not None
    colours = [{c for _, c in img.getcolors(1 << 16)} for img in images]  # type: ignore[union-attr]
    assert Colour.GREEN.value in colours[0] and Colour.AMBER.value in colours[1]
    assert Colour.RED.value in colours[2] and Colour.BLUE.value in colours[3]
