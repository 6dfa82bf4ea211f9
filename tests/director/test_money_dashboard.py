"""The director's money on the director's page in a real browser (issue 19, TOURN-29): a
deal previewed by ICM, its amounts shown, confirmed with a click; the tournament ends and
the page lists who was paid what, and who made the deal."""

from __future__ import annotations

import json
import re
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from host_bridge.settings import Role
from tests.bridge.conftest import TOKENS
from tests.bridge.test_dashboard import WAIT_S, browser, expect, need_websockets
from tests.director.test_director_dashboard import TABLES, DirectorBridge

__all__ = ["browser", "expect"]  # fixtures from the floor dashboard's tests


@pytest.fixture
def served(tmp_path: Path) -> Iterator[DirectorBridge]:
    need_websockets()
    with DirectorBridge(tmp_path) as running:
        yield running


def get(served: DirectorBridge, path: str) -> Any:
    request = urllib.request.Request(f"{served.url}/api/v1{path}", headers={
        "Authorization": f"Bearer {TOKENS[Role.DIRECTOR]}"})
    with urllib.request.urlopen(request, timeout=WAIT_S) as response:
        return json.loads(response.read())


def test_tourn_29_the_director_previews_an_icm_deal_and_confirms_it_on_the_page(
        browser: Any, served: DirectorBridge, expect: Any) -> None:
    created = served.post("/director/tournaments", {
        "name": "Deal night", "tables": TABLES, "players": [f"p{i:02d}" for i in range(16)],
        "starting_stack": 5000, "buy_in": 10_000, "seed": 4})
    tid = created["id"]
    served.post(f"/director/tournaments/{tid}/start", {})
    plan = get(served, f"/director/tournaments/{tid}/deal?method=icm")
    page = browser.new_context(viewport={"width": 1400, "height": 1400}).new_page()
    page.goto(f"{served.url}/dashboard/director.html?t={tid}")
    page.get_by_label("Access token").fill(TOKENS[Role.DIRECTOR])
    page.get_by_role("button", name="Sign in").click()
    expect(page.locator("#t-who")).to_have_text("Signed in as director")
    expect(page.locator("#m-prize-table")).to_contain_text("1. $")
    page.get_by_label("Deal method").select_option("icm")
    page.get_by_role("button", name="Preview deal").click()
    expect(page.locator("#m-deal-preview tr")).to_have_count(16)
    first = plan["players"][0]
    amount = f"${first['amount'] / 100:,.2f}"
    expect(page.locator(f"#m-deal-preview tr[data-player='{first['player']}']")
           ).to_contain_text(amount)
    assert get(served, f"/director/tournaments/{tid}")["stage"] == "running"  # only shown
    page.get_by_role("button", name="Confirm deal").click()
    expect(page.locator("#t-log")).to_contain_text("Deal made")
    expect(page.locator("#m-deal-made")).to_contain_text("ICM")
    expect(page.locator("#m-deal-made")).to_contain_text("director-1")
    expect(page.locator(f"#m-paid tr[data-player='{first['player']}']")
           ).to_contain_text(amount)
    expect(page.locator("#m-paid tr")).to_have_count(16)
    status = get(served, f"/director/tournaments/{tid}")
    assert status["stage"] == "finished"
    prizes = {p["player"]: p["prize"] for p in status["places"]}
    assert prizes == {p["player"]: p["amount"] for p in plan["players"]}
    page.context.close()


def test_tourn_10_12_a_rebuy_and_the_add_on_from_the_page_reach_the_table(
        browser: Any, served: DirectorBridge, expect: Any) -> None:
    """The Rebuy and Add-on buttons: the player's rebuy at the table in level 1 (TOURN-10),
    the add-on refused with TOURN-12 before the break and taken in it."""
    start = 5_000
    created = served.post("/director/tournaments", {
        "name": "Rebuy night", "tables": TABLES, "players": [f"p{i:02d}" for i in range(12)],
        "starting_stack": start, "buy_in": 10_000, "seed": 6, "rebuy_levels": 2,
        "rebuy_fee": 1_000, "add_on": True, "level_minutes": 5 / 60,
        "breaks": [{"after_level": 2, "minutes": 30}]})
    tid = created["id"]
    served.post(f"/director/tournaments/{tid}/start", {})
    page = browser.new_context(viewport={"width": 1400, "height": 1400}).new_page()
    page.goto(f"{served.url}/dashboard/director.html?t={tid}")
    page.get_by_label("Access token").fill(TOKENS[Role.DIRECTOR])
    page.get_by_role("button", name="Sign in").click()
    expect(page.locator("#t-who")).to_have_text("Signed in as director")

    def stack(player: str) -> int:
        status = get(served, f"/director/tournaments/{tid}")
        return int(next(p["stack"] for t in status["tables"] for p in t["players"]
                    if p["player"] == player))

    page.locator("#m-player").fill("p03")
    page.get_by_role("button", name="Rebuy").click()
    expect(page.locator("#t-log")).to_contain_text("Rebuy for p03: the table has the chips.")
    assert stack("p03") == 2 * start
    assert ("p03", 2 * start) in [s for table in served.floor.tables.values()
                                  for s in table.seats.values()]
    page.locator("#m-player").fill("p05")
    page.get_by_role("button", name="Add-on").click()  # level 1 or 2: no add-on yet
    expect(page.locator("#t-log")).to_contain_text("TOURN-12")
    assert stack("p05") == start
    expect(page.locator("#t-facts")).to_contain_text(re.compile(r"Clock\s*break \d"),
                                                     timeout=20_000)  # after level 2
    page.get_by_role("button", name="Add-on").click()
    expect(page.locator("#t-log")).to_contain_text("Add-on for p05: the table has the chips.")
    assert stack("p05") == 2 * start
    page.context.close()
