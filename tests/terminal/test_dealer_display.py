"""The dealer's display beside the keypad: it follows the desk (what is keyed, the reply
with its rule id, the prompt's numbered choices), redraws once for a burst of changes, and
its frames render to PNG through the mock's luma dummy device (docs/frames)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

from controller.table.lights import Level
from controller.terminal.keypad import run_dealer_display

from .rig import keypad_table

FRAMES = Path(__file__).resolve().parents[2] / "docs" / "frames"
SEATS = {1: 10_000, 2: 10_000, 3: 10_000}


class CountingDisplay:
    """A DealerDisplay that counts the frames it is asked to draw."""

    def __init__(self) -> None:
        self.lines: tuple[str, ...] = ()
        self.drawn = 0

    def show(self, lines: Sequence[str]) -> None:
        self.lines = tuple(lines)
        self.drawn += 1

    def close(self) -> None:
        pass


def test_a_burst_of_changes_is_one_redraw_showing_the_last(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with keypad_table(tmp_path, SEATS, levels=(Level(50, 100),)) as rig:
            display = CountingDisplay()
            task = asyncio.create_task(run_dealer_display(rig.desk, display, refresh_s=60))
            await rig.drawn()
            assert display.drawn == 1 and display.lines[3] == "> "
            for n in range(50):  # fifty changes before the loop turns once
                rig.desk.keying(str(n))
            await rig.drawn()
            assert display.drawn == 2 and display.lines[3] == "> 49"
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    asyncio.run(scenario())


def test_dealer_display_frames_render_to_png(tmp_path: Path) -> None:
    async def scenario() -> dict[str, Path]:
        out: dict[str, Path] = {}
        async with keypad_table(tmp_path, SEATS, levels=(Level(50, 100),)) as rig:
            await rig.keys("1 button deal")
            await rig.deal({2: "AhKh", 3: "2c3d", 1: "9s9d"})
            await rig.keys("2.5 bb")
            assert rig.shown[3] == "> 2.5 BB"
            out["dealer_display_keying.png"] = rig.hw.save_frame("dealer", tmp_path / "a.png")
            await rig.keys("clear 150 bet")
            assert rig.shown[4:] == ("BET-4: a raise must", "be to between 200 and")
            out["dealer_display_refused.png"] = rig.hw.save_frame("dealer", tmp_path / "b.png")
            await rig.keys("150 chips")
            assert rig.shown[:2] == ("! LIVE-7 choice", "1 raise to 200 2 fold")
            out["dealer_display_prompt.png"] = rig.hw.save_frame("dealer", tmp_path / "c.png")
        return out

    out = asyncio.run(scenario())
    sizes = {png.stat().st_size for png in out.values()}
    assert len(sizes) == 3 and min(sizes) > 100  # three different frames
    FRAMES.mkdir(parents=True, exist_ok=True)
    for name, png in out.items():
        target = FRAMES / name
        if not target.exists():  # a reference frame for people; tests never overwrite it
            target.write_bytes(png.read_bytes())
