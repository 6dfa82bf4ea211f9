"""The README's tablet screenshot: a tournament hand in progress on the flop, drawn by the
page in Chromium at the Pi touchscreen's 1280x800, every step of the hand tapped on the
page or placed at the mock readers. Written to docs/tablet.png only when asked
(``PITBOSS_SCREENSHOTS=1``), so a test run leaves the checkout as it was; otherwise to the
test's temporary folder. The test also holds the page to its layout: nothing drawn off
the screen, no two seats overlapping, every button at least 44 px tall.
"""

from __future__ import annotations

import os
from pathlib import Path

from controller.chiprace import ChipSet
from controller.clocks.timebank import ExtensionChips
from controller.rules.config import LIVE_TOURNAMENT
from controller.table.colour_up import ColourUpSettings
from controller.table.lights import Level

from .tablet_station import TabletPage, on_tablet

DOCS = Path(__file__).resolve().parents[2] / "docs" / "tablet.png"
NAMES = {1: "A.Ortiz", 2: "B.Cole", 4: "C.Park", 5: "D.Rao", 7: "E.Stone", 8: "F.Lin",
         10: "G.Hale"}  # player ids: no spaces
CHIPS = ChipSet.of({100: "black", 500: "purple", 1000: "yellow", 5000: "orange",
                    25000: "grey"})  # a tournament's chips at 200/400
STACKS = {1: 48_200, 2: 31_650, 4: 62_400, 5: 27_900, 7: 55_100, 8: 40_750, 10: 36_300}


def test_tablet_screenshot_of_a_hand_in_progress(tmp_path: Path) -> None:
    out = DOCS if os.environ.get("PITBOSS_SCREENSHOTS") == "1" else tmp_path / "tablet.png"
    extensions = ExtensionChips(30, {"day1": 2})
    extensions.enter_stage("day1", list(NAMES.values()))

    async def hand(t: TabletPage) -> None:
        await t.tap("deal")
        await t.deal({7: "AsKs", 8: "QdQc", 10: "7h2c", 1: "JhJs", 2: "9c8c", 4: "Ad5d",
                      5: "6h6d"})  # from the small blind, left of the button
        await t.bet("1200")  # seat 10, first after the big blind
        for verb in ("fold", "call", "fold", "call", "fold", "call"):  # seats 1 to 8
            await t.tap(verb)
        await t.street("2d", "Th7d3c")
        await t.tap("check")  # the big blind
        await t.bet("2400")  # seat 10
        await t.tap("call")  # seat 2: seat 5 is next, facing 2,400
        await t.shows("#street", "Flop")
        boxes = await t.page.eval_on_selector_all(
            ".seat:not(.seat-empty), button:not([hidden])",
            "nodes => nodes.filter(n => n.offsetParent).map(n => {"
            " const r = n.getBoundingClientRect();"
            " return [n.className, r.left, r.top, r.right, r.bottom]; })")
        seats = [b for b in boxes if str(b[0]).startswith("seat")]
        for name, left, top, right, bottom in boxes:
            assert left >= 0 and top >= 0 and right <= 1280 and bottom <= 800, name
            assert bottom - top >= 44 or "chip" in name, name  # a finger's touch target
        for i, a in enumerate(seats):
            for b in seats[i + 1:]:
                assert a[3] <= b[1] or b[3] <= a[1] or a[4] <= b[2] or b[4] <= a[2], (a, b)
        await t.page.screenshot(path=str(out))

    on_tablet(tmp_path, STACKS, hand, names=NAMES, button=5, tournament=True,
              profile=LIVE_TOURNAMENT, levels=(Level(200, 400, 400, 1200),),
              extensions=extensions, colour_up=ColourUpSettings(chip_set=CHIPS))
    assert out.stat().st_size > 20_000
