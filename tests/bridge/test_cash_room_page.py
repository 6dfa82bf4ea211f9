"""The cash page in headless Chromium (issue 19, item 4): ``/cash`` signs in like the floor
page; the floor creates a game of a shipped house at a table, puts a player on the waiting
list, calls them and seats them: a buy-in below the house's limits is refused naming
CASH-8 and nothing is sent, then the virtual table receives ``seat_player`` and its
``player_seated`` puts the player on the table's card. A viewer sees the room but no
buttons. Same bridge, browser and skips as ``test_dashboard.py``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from host_bridge.settings import Role
from tests.bridge.conftest import TOKENS
from tests.bridge.test_dashboard import VirtualBridge, browser, expect, need_websockets

__all__ = ["browser", "expect"]  # the fixtures, shared with test_dashboard.py


@pytest.fixture
def served(tmp_path: Path) -> Iterator[VirtualBridge]:
    """The virtual floor: t1 online with six players seated."""
    need_websockets()
    with VirtualBridge(tmp_path) as running:
        yield running


def signed_in(browser: Any, served: VirtualBridge, role: Role) -> Any:
    page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    page.goto(f"{served.url}/cash")
    page.get_by_label("Access token").fill(TOKENS[role])
    page.get_by_role("button", name="Sign in").click()
    page.get_by_text(f"Signed in as {role.value}").wait_for()
    return page


def test_the_floor_joins_calls_and_seats_a_player_from_the_cash_page(
        browser: Any, served: VirtualBridge, expect: Any, tmp_path: Path) -> None:
    page = signed_in(browser, served, Role.FLOOR)
    expect(page.locator("#c-none")).to_be_visible()
    page.get_by_label("House").select_option("casino-nlhe")
    page.get_by_label("Tables").fill("t1")
    page.get_by_role("button", name="Create game").click()
    game = page.locator('li.c-game[data-game="casino-nlhe"]')
    t1 = game.locator('li.c-table[data-table="t1"]')
    expect(t1.locator("strong")).to_have_text("Table t1 · 6/10")
    expect(game.locator('dd[data-fact="buy-in"]')).to_have_text("2,000 – 10,000 kr (CASH-8)")
    expect(game.locator('dd[data-fact="rake today"]')).to_have_text("0 kr")

    game.get_by_label("Player id").fill("zoe")
    game.get_by_role("button", name="Join list").click()
    expect(game.locator(".c-waiting li")).to_have_text(["zoeRemove zoe from the list"])
    game.get_by_role("button", name="Call next").click()
    called = game.locator('.c-called li[data-player="zoe"]')
    expect(called).to_contain_text("zoe → table t1 seat 7")

    called.get_by_label("Buy-in").fill("1000")  # below the casino's 2,000 kr
    called.get_by_role("button", name="Seat zoe").click()
    expect(page.get_by_role("log")).to_contain_text("(CASH-8)")
    assert [c.command.name for c in served.floor.commands] == []

    called.get_by_label("Buy-in").fill("5000")
    called.get_by_role("button", name="Seat zoe").click()
    expect(page.get_by_role("log")).to_contain_text("Seated zoe at table t1 seat 7 with 5,000.")
    expect(t1.locator("strong")).to_have_text("Table t1 · 7/10")
    expect(t1.locator('li[data-seat="7"]')).to_have_text("zoe 5,000 kr")
    [sent] = served.floor.commands
    assert (sent.table, sent.command.model_dump()) == (
        "t1", {"name": "seat_player", "seat": 7, "player": "zoe", "stack": 5000})
    shot = tmp_path / "cash.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000
    page.context.close()

    viewer = signed_in(browser, served, Role.VIEWER)
    game = viewer.locator('li.c-game[data-game="casino-nlhe"]')
    expect(game.locator('li.c-table[data-table="t1"] strong')).to_have_text("Table t1 · 7/10")
    expect(game.get_by_role("button", name="Call next")).to_be_hidden()
    expect(viewer.get_by_role("button", name="Create game")).to_be_hidden()
    viewer.context.close()


def test_a_token_the_bridge_stops_taking_signs_the_cash_page_out(
        browser: Any, served: VirtualBridge, expect: Any) -> None:
    page = signed_in(browser, served, Role.FLOOR)
    expect(page.locator("#c-none")).to_be_visible()
    page.route("**/api/v1/**", lambda route: route.fulfill(
        status=401, content_type="application/json", body='{"detail": "unknown token"}'))
    expect(page.locator("#c-sign-in-error")).to_have_text("That token is not recognised.")
    expect(page.locator("#c-board")).to_be_hidden()
    expect(page.locator("#c-who")).to_be_hidden()
    assert page.evaluate("sessionStorage.getItem('pitboss.token')") is None
    page.context.close()
