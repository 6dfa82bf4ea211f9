"""The dashboard while ``pitboss demo`` runs, in headless Chromium (Debian's, through
Playwright): signed in with the token the demo printed, every table of the tournament on
the floor grid with its players. The README's screenshot (docs/demo.png) is written only
when asked (PITBOSS_SCREENSHOTS=1); otherwise it goes to the test's temporary folder.

Fails, saying so, where /usr/bin/chromium, playwright or mosquitto is missing.
"""

from __future__ import annotations

import os
import re
import signal
from pathlib import Path
from typing import Any

from tests.bridge.test_dashboard import browser, need_websockets
from tests.demo.conftest import ROOT, WAIT_S, hands_ended, open_tables, start_demo, wait_for
from tests.needs import need_module
from tests.sync.conftest import Mosquitto, free_port

__all__ = ["browser"]  # the floor dashboard tests' fixture: Debian's Chromium, headless

DOCS_SCREENSHOT = ROOT / "docs" / "demo.png"
TABLES = 4



def test_the_dashboard_shows_the_demo_floor(mosquitto: Mosquitto, browser: Any,
                                            tmp_path: Path) -> None:
    need_websockets()
    expect = need_module("playwright.sync_api", "the playwright package is not installed").expect
    port = free_port()
    data = tmp_path / "floor"
    # clocks at 5x: the first table breaks well after the page is up
    demo = start_demo("--headless", "--tables", str(TABLES), "--players", "24", "--speed",
                      "5", "--broker", f"127.0.0.1:{mosquitto.port}", "--port", str(port),
                      "--data", str(data))
    try:
        assert demo.stdout is not None
        head = "".join(demo.stdout.readline() for _ in range(3))
        token = re.search(r"director token (\S+)", head)
        assert token is not None, head
        wait_for(lambda: len(hands_ended(data / "bridge.db")) == TABLES,
                 "a hand stored at every table", demo)
        page = browser.new_context(viewport={"width": 1600, "height": 1000}).new_page()
        page.goto(f"http://127.0.0.1:{port}/dashboard/")
        page.get_by_label("Access token").fill(token.group(1))
        page.get_by_role("button", name="Sign in").click()
        page.get_by_text("Signed in as director").wait_for()
        # a card for every table the bridge holds open: all of them, unless one was
        # broken already (a closed table leaves the grid; the bots bust players fast, and
        # on a slow machine the first break can come before the page is up)
        cards = page.locator("li.table-card")
        wait_for(lambda: sorted(cards.evaluate_all("cs => cs.map((c) => c.dataset.table)"))
                 == open_tables(data / "bridge.db"), "a card for every open table", demo)
        assert len(open_tables(data / "bridge.db")) >= TABLES - 1
        # players on the grid (a table may already be broken: the bots bust players fast)
        expect(page.locator("li.table-card li.seat").first).to_be_visible(
            timeout=WAIT_S * 1000)
        assert page.locator("li.table-card li.seat").count() >= 2
        page.wait_for_timeout(1500)  # a few more hands: stacks apart, someone to act
        shot = (DOCS_SCREENSHOT if os.environ.get("PITBOSS_SCREENSHOTS") == "1"
                else tmp_path / "demo.png")
        page.screenshot(path=str(shot), full_page=True)
        assert shot.stat().st_size > 10_000  # a picture of the floor, not an empty page
        page.context.close()
        os.killpg(demo.pid, signal.SIGINT)
        out, _ = demo.communicate(timeout=WAIT_S)
        assert demo.returncode == 0, out
    finally:
        if demo.poll() is None:
            os.killpg(demo.pid, signal.SIGKILL)
            demo.communicate()
