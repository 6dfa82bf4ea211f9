"""The floor page's tournament strip (issue 20) in headless Chromium, with a real
tournament: the director's room over contract tables (:class:`LocalFloor`, as in
``tests/director``), created on the bridge's hand clock and started over REST. The strip
shows the level, the time left counting down live, the blinds and ante in force and the
next level's, the break and its colour-up, the players left of the entries, the average
stack, the prize pool and the next pay jump; the tables' cards show the host's level and
blinds, the section filter picks the tournament's tables, the seat box stays within the
table's nine seats.

Time: the bridge and the director share a ``ManualClock``; the browser's clock is
Playwright's (``page.clock``), moved with it. Nothing sleeps. When the hand clock jumps
past the level's end, the director's task (which looks at its clock at least every 5 s)
starts level 2: that wait is the director's, bounded, not a sleep of the test's.
"""

from __future__ import annotations

import asyncio
import json
import re
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from host_bridge.app import create_app
from host_bridge.director.options import TournamentOptions
from host_bridge.director.service import TournamentDirector
from host_bridge.settings import Role
from tests.bridge.conftest import TOKENS, ManualClock, make_settings
from tests.bridge.test_dashboard import (
    WAIT_S,
    RunningBridge,
    browser,
    card,
    expect,
    need_websockets,
)
from tests.bridge.test_floor_page import DESKTOP, page_for
from tests.director.floortables import LocalFloor

__all__ = ["browser", "expect"]  # the fixtures, shared with test_dashboard.py

TABLES = ["T1", "T2", "T3"]  # the tournament's; T4 deals no tournament
PLAYERS = 20
LEVEL_S = 1200.0  # twenty minutes a level
BUY_IN = 10_000  # cents


class TournamentFloor(RunningBridge):
    """A bridge on a hand clock over four contract tables; Sunday runs at three."""

    def __init__(self, tmp: Path) -> None:
        self.floor = LocalFloor([*TABLES, "T4"], seed=2)
        self.clock = ManualClock()
        super().__init__(create_app(make_settings(tmp, command_timeout_s=5.0),
                                    publisher=self.floor, clock=self.clock))
        self.floor.connect(self.bridge.receive)
        for message in self.floor.status_messages():
            self.bridge.ingest.take(*message)

    def __enter__(self) -> TournamentFloor:
        super().__enter__()
        options = TournamentOptions(
            name="Sunday", tables=dict.fromkeys(TABLES, 9), seed=4, buy_in=BUY_IN,
            players=tuple(f"p{i:02d}" for i in range(PLAYERS)), starting_stack=5_000,
            level_seconds=LEVEL_S, breaks=((2, 600.0, (25,)),))
        room = self.app.state.director_room
        self.director: TournamentDirector = asyncio.run_coroutine_threadsafe(
            room.create(options, clock=self.clock), self.loop).result(WAIT_S)
        request = urllib.request.Request(
            f"{self.url}/api/v1/director/tournaments/{self.director.id}/start", data=b"{}",
            method="POST", headers={"Authorization": f"Bearer {TOKENS[Role.DIRECTOR]}",
                                    "Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=WAIT_S) as response:
            assert json.loads(response.read())["stage"] == "running"
        return self


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TournamentFloor]:
    need_websockets()
    with TournamentFloor(tmp_path_factory.mktemp("floor-tournament")) as running:
        yield running


def minutes(left: float) -> re.Pattern[str]:
    """A countdown showing ``left`` seconds, or up to ten seconds less (the browser's
    clock runs on while the test looks)."""
    shown = [f"{int(s) // 60}:{int(s) % 60:02d}" for s in range(int(left) - 10, int(left) + 1)]
    return re.compile("^(" + "|".join(shown) + ")$")


def test_the_strip_shows_the_hosts_tournament_and_counts_down_with_its_clock(
        browser: Any, served: TournamentFloor, expect: Any) -> None:
    structure = served.director.level_clock.structure
    one, two = structure.level(1), structure.level(2)
    context = browser.new_context(viewport=DESKTOP)
    context.clock.install()  # the browser's clock, moved below with the bridge's
    page = context.new_page()
    page.goto(f"{served.url}/dashboard/")
    page.get_by_label("Access token").fill(TOKENS[Role.FLOOR])
    page.get_by_role("button", name="Sign in").click()
    page.locator("li.table-card").nth(3).wait_for()
    strip = page.locator("#strip article.tourney")

    def fact(key: str) -> Any:
        return strip.locator(f'[data-fact="{key}"] dd')

    def blinds(level: Any) -> str:
        ante = f" · ante {level.ante:,}" if level.ante else ""
        return f"{level.small_blind:,} / {level.big_blind:,}{ante}"

    expect(strip.get_by_role("heading", name="Sunday")).to_be_visible()
    expect(fact("level")).to_have_text("1")
    expect(fact("blinds")).to_have_text(blinds(one))
    expect(fact("next")).to_have_text(f"L2 · {blinds(two)}")
    expect(fact("time-left")).to_have_text(minutes(LEVEL_S))
    expect(fact("break-in")).to_have_text(minutes(2 * LEVEL_S))
    expect(fact("players")).to_have_text(f"{PLAYERS} / {PLAYERS}")
    expect(fact("average")).to_have_text("5,000")
    expect(fact("prize-pool")).to_have_text(f"${PLAYERS * BUY_IN // 100:,}")  # cents
    third = served.director.model.prizes()[2]  # the house table pays 3 places of 20
    assert (served.director.model.places_paid(), third) == (3, 44_440)
    expect(fact("next-payout")).to_have_text("3rd $444.40 · 17 to go")  # cents shown
    expect(strip.locator(".badge.colour")).to_have_text(
        "COLOUR-UP OF THE 25 CHIPS AT THE BREAK AFTER LEVEL 2")
    # the cards: the host's level and blinds at each of its tables
    for wire in TABLES:
        expect(card(page, wire).locator('dd[data-fact="level"]')).to_have_text("1")
        expect(card(page, wire).locator('dd[data-fact="blinds"]')).to_have_text(blinds(one))

    # a minute passes on both clocks: the strip counts it down on its own
    served.clock.now += 60
    page.clock.run_for(60_000)
    expect(fact("time-left")).to_have_text(minutes(LEVEL_S - 60))
    expect(fact("break-in")).to_have_text(minutes(2 * LEVEL_S - 60))
    # the bridge's clock rules: five more minutes there, twenty seconds here, and the
    # strip's next read of the summary (every 20 s) shows the bridge's time left
    served.clock.now += 300
    page.clock.run_for(20_000)
    expect(fact("time-left")).to_have_text(minutes(LEVEL_S - 360))

    # the level runs out on the host: level 2 on the strip and on every card
    served.clock.now += LEVEL_S - 360 + 1
    page.clock.run_for(1_000)
    expect(fact("level")).to_have_text("2", timeout=15_000)  # the director's next look
    expect(fact("blinds")).to_have_text(blinds(two))
    expect(fact("time-left")).to_have_text(minutes(LEVEL_S - 1))
    for wire in TABLES:
        expect(card(page, wire).locator('dd[data-fact="blinds"]')).to_have_text(blinds(two))
    context.close()


def test_the_section_filter_picks_the_tournaments_tables_and_seats_stay_within_nine(
        browser: Any, served: TournamentFloor, expect: Any) -> None:
    page = page_for(browser, served, Role.FLOOR, DESKTOP)
    names = page.locator("#grid > li.table-card h3")
    expect(names).to_have_count(4)
    page.get_by_label("Section").select_option("Sunday")
    expect(names).to_have_text([f"Table {w}" for w in TABLES])
    page.get_by_label("Section").select_option("")
    expect(names).to_have_count(4)
    t1 = served.floor.tables["T1"]
    taken = set(t1.seats)
    card(page, "T1").get_by_role("button", name="Table T1").click()
    seats = page.locator("#detail").get_by_label("Seat", exact=True).locator("option")
    expect(seats).to_have_text([f"Seat {n}" for n in range(1, 10) if n not in taken])
    page.context.close()
