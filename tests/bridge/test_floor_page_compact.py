"""The floor page's compact view (issue 20) with 200 tables, in headless Chromium: a
1920x1080 screen shows at least 50 tables at once, each tile its players of its seats,
its level and what is wrong; the tables that need a person come first (a table that goes
offline moves up, live), the sort and the filters work at this size, and closed tables
stay out of the grid until asked for.

The floor: c1..c200 on the wire behind the virtual floor of ``test_dashboard.py``, nine
players at most tables, six at every tenth (short-handed), c13 and c113 offline (the
board's real ``table_offline`` alerts), c7, c77 and c177 closed. Same skips as
``test_dashboard.py``. ``docs/floor_compact.png`` only when ``PITBOSS_SCREENSHOTS=1``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.events import TableClosed
from host_bridge.app import create_app
from host_bridge.settings import Role
from tests.bridge.conftest import ManualClock, make_settings
from tests.bridge.reporting import ReportingWire
from tests.bridge.test_dashboard import (
    RunningBridge,
    VirtualFloor,
    browser,
    card,
    expect,
    need_websockets,
)
from tests.bridge.test_floor_page import page_for, shot_path

__all__ = ["browser", "expect"]  # the fixtures, shared with test_dashboard.py

SCREEN = {"width": 1920, "height": 1080}
TABLES = [f"c{n}" for n in range(1, 201)]
SHORT = [f"c{n}" for n in range(10, 201, 10)]  # six players: three fewer than the fullest
OFFLINE = ["c13", "c113"]
CLOSED = ["c7", "c77", "c177"]
OPEN = len(TABLES) - len(CLOSED)


class BigFloor(RunningBridge):
    """A bridge that 200 tables report to (stored in one batch before it serves)."""

    def __init__(self, tmp: Path) -> None:
        self.floor = VirtualFloor()
        super().__init__(create_app(make_settings(tmp), publisher=self.floor,
                                    clock=ManualClock()))
        self.floor.deliver = self.bridge.receive
        messages: list[tuple[str, bytes]] = []
        for table in TABLES:
            wire = self.floor.wires[table] = ReportingWire(table)
            players = 1 if table in CLOSED else 6 if table in SHORT else 9
            messages.append(wire.status(True))
            messages += [wire.seat(s, f"p{s}-{table}", 10_000) for s in range(1, players + 1)]
            if table in CLOSED:
                messages.append(wire.event(TableClosed()))
            messages.append(wire.reported())
            if table in OFFLINE:
                messages.append(wire.status(False))
        self.bridge.ingest.take_many(messages)
        self.app.state.alert_board.refresh()


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BigFloor]:
    need_websockets()
    with BigFloor(tmp_path_factory.mktemp("floor-compact")) as running:
        yield running


def inside_the_screen(page: Any) -> int:
    """How many table tiles lie wholly inside the viewport."""
    found: int = page.evaluate("""() => [...document.querySelectorAll('#grid > li.table-card')]
        .filter((el) => { const r = el.getBoundingClientRect();
          return r.width > 0 && r.top >= 0 && r.left >= 0
            && r.bottom <= innerHeight && r.right <= innerWidth; }).length""")
    return found


def first_tiles(page: Any, count: int) -> Any:
    """The names on the grid's first ``count`` tiles (for an auto-waiting expect)."""
    return page.locator(f"#grid > li.table-card:nth-child(-n+{count}) .tile-id")


def last_tiles(page: Any, count: int) -> Any:
    return page.locator(f"#grid > li.table-card:nth-last-child(-n+{count}) .tile-id")


def test_a_1080p_screen_shows_at_least_50_of_200_tables_in_compact_view(
        browser: Any, served: BigFloor, expect: Any, tmp_path: Path) -> None:
    page = page_for(browser, served, Role.FLOOR, SCREEN, tables=OPEN)
    tiles = page.locator("#grid > li.table-card")
    expect(tiles).to_have_count(OPEN)  # the closed three are out of the grid
    full = inside_the_screen(page)
    page.get_by_label("Compact").check()
    expect(page.locator("#grid")).to_have_class("grid compact")
    expect(tiles.first.locator("button.tile")).to_be_visible()
    shown = inside_the_screen(page)
    assert shown >= 50, f"only {shown} tables wholly on a 1920x1080 screen"
    assert shown > 3 * full  # the compact view is what makes it fit
    # the alerts above the grid, the offline tables first on it, red
    expect(page.locator("#alert-list li.alert")).to_have_count(2)
    expect(first_tiles(page, 2)).to_have_text(OFFLINE)
    expect(card(page, "c13")).to_have_attribute("data-attention", "high")
    expect(card(page, "c13").locator(".tile-status")).to_have_text("OFFLINE")
    # a tile: its players of its seats, the level in force, what is wrong
    c10 = card(page, "c10")
    expect(c10.locator(".tile-players")).to_have_text("6/10")
    expect(c10.locator(".tile-status")).to_have_text("SHORT −3")
    expect(card(page, "c11").locator(".tile-players")).to_have_text("9/10")
    expect(card(page, "c11").locator(".tile-level")).to_contain_text("L1")
    page.screenshot(path=str(shot_path("floor_compact.png", tmp_path)))
    # live: a table that goes offline moves up among the ones that need a person
    served.send(served.floor.wires["c50"].status(False))
    expect(page.locator("#alert-list li.alert")).to_have_count(3)
    expect(card(page, "c50").locator(".tile-status")).to_have_text("OFFLINE")
    expect(first_tiles(page, 3)).to_have_text(["c13", "c50", "c113"])
    # a tile opens the table view
    card(page, "c50").locator("button.tile").click()
    expect(page.locator("#detail").get_by_role("heading", name="Table c50")).to_be_visible()
    served.send(served.floor.wires["c50"].status(True))
    expect(page.locator("#alert-list li.alert")).to_have_count(2)
    page.context.close()


def test_compact_view_sorts_filters_and_keeps_closed_tables_out(
        browser: Any, served: BigFloor, expect: Any) -> None:
    page = page_for(browser, served, Role.VIEWER, SCREEN, tables=OPEN)
    page.get_by_label("Compact").check()
    tiles = page.locator("#grid > li.table-card")
    expect(page.locator("#show-closed")).to_have_text(f"Show closed ({len(CLOSED)})")
    for table in CLOSED:
        expect(card(page, table)).to_have_count(0)
    page.get_by_label("Sort").select_option("id")
    expect(tiles).to_have_count(OPEN)
    expect(first_tiles(page, 8)).to_have_text(["c1", "c2", "c3", "c4", "c5", "c6", "c8", "c9"])
    page.get_by_label("Sort").select_option("players")
    expect(first_tiles(page, len(SHORT))).to_have_text(SHORT)  # six players, by number
    page.get_by_label("Show", exact=True).select_option("short")
    expect(tiles).to_have_count(len(SHORT))
    expect(page.locator("#shown")).to_have_text(f"{len(SHORT)} of {OPEN} shown")
    page.get_by_label("Show", exact=True).select_option("attention")
    expect(tiles).to_have_count(len(SHORT) + len(OFFLINE))
    page.get_by_label("Sort").select_option("attention")
    expect(first_tiles(page, 3)).to_have_text([*OFFLINE, "c10"])
    page.get_by_label("Show", exact=True).select_option("all")
    page.locator("#show-closed").click()
    expect(tiles).to_have_count(len(TABLES))
    expect(card(page, "c77").locator(".tile-status")).to_have_text("CLOSED")
    expect(last_tiles(page, len(CLOSED))).to_have_text(CLOSED)  # need nobody: last
    page.context.close()
