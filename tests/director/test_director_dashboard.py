"""The director's page in a real browser (Debian's Chromium via Playwright) against a
running bridge whose tables are contract tables in-process
(:class:`~tests.director.floortables.LocalFloor`): registration and the seat draw shown,
a balancing suggestion confirmed with a click and carried out by the tables, places and
payouts listed; several tournaments listed, one chosen (``?t=<id>``), another created while
one runs. Saves a screenshot (the test's folder; ``docs/director.png`` when
``PITBOSS_SCREENSHOTS=1``). Fails, saying so, without Chromium, Playwright or a WebSocket library.
"""

from __future__ import annotations

import asyncio
import json
import os
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from host_bridge.app import create_app
from host_bridge.settings import Role
from tests.bridge.conftest import TOKENS, make_settings
from tests.bridge.test_dashboard import WAIT_S, RunningBridge, browser, expect, need_websockets
from tests.director.floortables import LocalFloor

__all__ = ["browser", "expect"]  # fixtures from the floor dashboard's tests
DOCS_SCREENSHOT = Path(__file__).resolve().parents[2] / "docs" / "director.png"
TABLES = {"T1": 9, "T2": 9, "T3": 9, "T4": 9}


class DirectorBridge(RunningBridge):
    """A running bridge with four contract tables that deal only when told to."""

    def __init__(self, tmp: Path) -> None:
        self.floor = LocalFloor(list(TABLES), seed=2)
        super().__init__(create_app(make_settings(tmp, command_timeout_s=5.0),
                                    publisher=self.floor))
        self.floor.connect(self.bridge.receive)
        for message in self.floor.status_messages():
            self.bridge.ingest.take(*message)

    def post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        request = urllib.request.Request(
            f"{self.url}/api/v1{path}", data=json.dumps(body).encode(), method="POST",
            headers={"Authorization": f"Bearer {TOKENS[Role.DIRECTOR]}",
                     "Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=WAIT_S) as response:
            out: dict[str, Any] = json.loads(response.read())
            return out

    def play(self, table: str) -> None:
        """One hand at ``table`` (all-in: someone busts), on the server's loop."""
        assert asyncio.run_coroutine_threadsafe(self.floor.tables[table].play_now(),
                                                self.loop).result(WAIT_S)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[DirectorBridge]:
    need_websockets()
    with DirectorBridge(tmp_path) as running:
        yield running


def test_the_director_confirms_a_suggested_move_on_the_page(
        browser: Any, served: DirectorBridge, expect: Any, tmp_path: Path) -> None:
    served.post("/director/tournaments", {
        "name": "Sunday 200", "tables": TABLES, "players": [f"p{i:02d}" for i in range(32)],
        "starting_stack": 5000, "buy_in": 20_000, "fee": 2_000, "seed": 4})
    page = browser.new_context(viewport={"width": 1500, "height": 1100}).new_page()
    page.goto(f"{served.url}/dashboard/director.html")
    page.get_by_label("Access token").fill(TOKENS[Role.DIRECTOR])
    page.get_by_role("button", name="Sign in").click()
    expect(page.locator("#t-who")).to_have_text("Signed in as director")
    expect(page.locator("#t-registered")).to_contain_text("32 registered")
    page.get_by_role("button", name="Start: draw seats").click()  # TOURN-2 seat draw
    expect(page.locator("#t-log")).to_contain_text("Seats drawn")
    expect(page.locator("li.t-card li")).to_have_count(32)  # 8 a table
    short = "T1"
    while len(served.floor.tables[short].seats) > 5:
        served.play(short)
    expect(page.locator("#t-moves li").first).to_be_visible()  # TOURN-19 suggested
    expect(page.locator("#t-moves")).to_contain_text(f"→ table {short}")
    expect(page.locator("#t-moves")).to_contain_text("balance (TOURN-19)")
    expect(page.locator(f'li.t-card[data-table="{short}"]')).to_have_class("t-card short")
    mover = page.locator("#t-moves li").first.get_attribute("data-player")
    for _ in range(3):  # a hand reported after the page's last poll makes the floor newer
        said = page.locator("#t-log li")
        before = said.count()
        page.get_by_role("button", name="Confirm moves").click()
        expect(said).to_have_count(before + 1)
        if "Moves carried out" in said.first.inner_text():
            break
        assert "Refused: the floor changed" in said.first.inner_text()
        page.wait_for_timeout(1500)  # the next poll shows the suggestions as they are now
    expect(page.locator("#t-log")).to_contain_text("Moves carried out")
    expect(page.locator("#t-balanced")).to_have_text("The tables are balanced.")
    expect(page.locator(f'li.t-card[data-table="{short}"]')).to_contain_text(str(mover))
    assert mover in {p for p, _ in served.floor.tables[short].seats.values()}
    expect(page.locator("#t-places tr").last).to_contain_text("32")  # the first one out
    expect(page.locator("#t-h4h-status")).to_have_text("Off.")
    shot = (DOCS_SCREENSHOT if os.environ.get("PITBOSS_SCREENSHOTS") == "1"
            else tmp_path / "director.png")
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000
    page.context.close()


def quiet_page(browser: Any, served: DirectorBridge, expect: Any, role: Role) -> Any:
    """A tournament of three registered, and the director's page signed in as ``role``."""
    served.post("/director/tournaments", {"name": "Quiet", "tables": TABLES,
                                          "players": ["ana", "ben", "cleo"]})
    page = browser.new_page()
    page.goto(f"{served.url}/dashboard/director.html")
    page.get_by_label("Access token").fill(TOKENS[role])
    page.get_by_role("button", name="Sign in").click()
    expect(page.locator("#t-who")).to_have_text(f"Signed in as {role.value}")
    return page


def test_a_viewer_sees_the_tournament_and_no_action(
        browser: Any, served: DirectorBridge, expect: Any) -> None:
    page = quiet_page(browser, served, expect, Role.VIEWER)
    expect(page.locator("#t-registered")).to_contain_text("3 registered")
    expect(page.get_by_role("button", name="Start: draw seats")).to_be_hidden()
    expect(page.get_by_role("button", name="Register")).to_be_hidden()
    page.context.close()


def test_the_page_lists_the_tournaments_and_creates_another_while_one_runs(
        browser: Any, served: DirectorBridge, expect: Any) -> None:
    alpha = served.post("/director/tournaments", {
        "name": "Alpha", "tables": {"T1": 9, "T2": 9}, "seed": 4,
        "players": [f"a{i:02d}" for i in range(12)]})["id"]
    served.post(f"/director/tournaments/{alpha}/start", {})
    page = browser.new_page()
    page.goto(f"{served.url}/dashboard/director.html")
    page.get_by_label("Access token").fill(TOKENS[Role.DIRECTOR])
    page.get_by_role("button", name="Sign in").click()
    expect(page.locator("#t-summary")).to_contain_text("Alpha · running")
    page.get_by_text("New tournament", exact=True).click()
    page.get_by_label("Tournament name", exact=True).fill("Bravo")
    page.get_by_label("Tables (id:seats)", exact=True).fill("T3:9, T4:8")
    page.get_by_label("Players", exact=True).fill("ben, cleo, dan")
    page.get_by_role("button", name="Create tournament").click()
    expect(page.locator("#t-log")).to_contain_text("Created Bravo")
    expect(page.locator("#t-list li")).to_have_count(2)
    expect(page.locator("#t-summary")).to_contain_text("Bravo · registering")
    expect(page.locator("#t-registered")).to_contain_text("3 registered")
    expect(page.locator("li.t-card")).to_have_count(2)
    expect(page.locator('li.t-card[data-table="T4"]')).to_contain_text("0/8")
    bravo = page.locator('#t-list a[aria-current="page"]').get_attribute("data-tid")
    assert bravo and bravo != alpha and page.url.endswith(f"?t={bravo}")
    page.locator(f'#t-list a[data-tid="{alpha}"]').click()
    expect(page.locator("#t-summary")).to_contain_text("Alpha · running")
    expect(page.locator('li.t-card[data-table="T1"]')).to_be_visible()
    expect(page.locator('li.t-card[data-table="T3"]')).to_have_count(0)
    expect(page.locator("li.t-card li")).to_have_count(12)
    assert page.url.endswith(f"?t={alpha}")
    page.goto(f"{served.url}/dashboard/director.html?t={bravo}")  # a link to one
    expect(page.locator("#t-summary")).to_contain_text("Bravo · registering")
    page.goto(f"{served.url}/dashboard/director.html?t=nosuch")
    expect(page.locator("#t-error")).to_contain_text("No tournament nosuch")
    expect(page.locator("#t-list li")).to_have_count(2)
    page.context.close()


def test_a_token_the_bridge_stops_taking_signs_the_page_out_and_says_why(
        browser: Any, served: DirectorBridge, expect: Any) -> None:
    page = quiet_page(browser, served, expect, Role.DIRECTOR)
    # the bridge no longer takes the token (a restart with new tokens): the next poll
    page.route("**/api/v1/**", lambda route: route.fulfill(
        status=401, content_type="application/json", body='{"detail": "unknown token"}'))
    expect(page.locator("#t-sign-in-error")).to_have_text("That token is not recognised.")
    expect(page.get_by_label("Access token")).to_be_visible()
    expect(page.locator("#t-board")).to_be_hidden()
    expect(page.locator("#t-who")).to_be_hidden()  # not "Signed in as director" beside it
    assert page.evaluate("sessionStorage.getItem('pitboss.token')") is None
    page.context.close()
