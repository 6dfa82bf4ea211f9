"""The floor's discipline on the director's page in a real browser (Playwright, as
:mod:`tests.director.test_director_dashboard`): a penalty given from the page reaches the
model and is listed (PEN-1/4), the cancellation preview names its rule (CANCEL-2)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from host_bridge.settings import Role
from tests.bridge.conftest import TOKENS
from tests.bridge.test_dashboard import browser, expect, need_websockets
from tests.director.test_director_dashboard import TABLES, DirectorBridge

__all__ = ["browser", "expect"]


@pytest.fixture
def served(tmp_path: Path) -> Iterator[DirectorBridge]:
    need_websockets()
    with DirectorBridge(tmp_path) as running:
        yield running


def test_pen_1_a_penalty_and_the_cancel_2_preview_on_the_director_page(
        browser: Any, served: DirectorBridge, expect: Any) -> None:
    made = served.post("/director/tournaments", {
        "name": "Discipline", "tables": TABLES, "players": [f"p{i:02d}" for i in range(16)],
        "starting_stack": 5000, "buy_in": 10_000, "fee": 1_000, "seed": 4})
    served.post(f"/director/tournaments/{made['id']}/start", {})
    page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    page.goto(f"{served.url}/dashboard/director.html?t={made['id']}")
    page.get_by_label("Access token").fill(TOKENS[Role.DIRECTOR])
    page.get_by_role("button", name="Sign in").click()
    expect(page.locator("#t-who")).to_have_text("Signed in as director")
    form = page.locator("#f-penalty-form")
    form.get_by_label("Player").fill("p03")
    form.get_by_label("Penalty").select_option("hands")
    form.get_by_label("Count").fill("2")
    form.get_by_role("button", name="Give penalty").click()
    expect(page.locator("#f-penalties")).to_contain_text("p03: 2 hands to serve")
    page.get_by_role("button", name="Preview cancellation").click()
    expect(page.locator("#f-preview-rule")).to_contain_text("CANCEL-2")
    expect(page.locator("#f-preview tr")).to_have_count(16)
    page.context.close()
