"""While the bridge's own broker connection is down, the floor does not know whether any
table is online: the API says ``online: null`` with ``broker.connected: false`` and the
page shows a banner and grey cards; when the broker is back, each table is online (or
offline) again as its retained status is heard (issue 17, item 7). A real Mosquitto is
stopped and started again under a running bridge with a real table controller
(``controller.sync.soak_node``) and headless Chromium watching the page.

Fails, saying so, when Mosquitto, ``/usr/bin/chromium``, the ``playwright`` package or a WebSocket
library for uvicorn is missing."""

from __future__ import annotations

import re
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from host_bridge.app import create_app
from host_bridge.settings import Role
from tests.bridge.conftest import auth, make_settings
from tests.bridge.tablesim import SITE
from tests.bridge.test_dashboard import (
    CHROMIUM,
    CHROMIUM_ARGS,
    RunningBridge,
    card,
    need_websockets,
    signed_in,
)
from tests.needs import missing, need_module
from tests.sync.conftest import Mosquitto, start_node

WAIT_S = 60.0  # an upper bound for slow CI machines, not a budget


@pytest.fixture
def chromium() -> Iterator[Any]:
    """Debian's Chromium, headless, through Playwright."""
    if not CHROMIUM.exists() or shutil.which(str(CHROMIUM)) is None:
        missing("no /usr/bin/chromium: apt-get install chromium")
    sync_api = need_module("playwright.sync_api", "the playwright package is not installed")
    with sync_api.sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield browser
        browser.close()


def wait_for(what: str, predicate: Callable[[], bool]) -> None:
    deadline = time.monotonic() + WAIT_S
    while not predicate():
        if time.monotonic() > deadline:
            pytest.fail(f"gave up waiting for {what}")
        time.sleep(0.05)


def test_tables_are_unknown_while_the_bridge_has_lost_the_broker_and_back_as_they_report(
        chromium: Any, tmp_path: Path, mosquitto: Mosquitto) -> None:
    need_websockets()
    expect = need_module("playwright.sync_api", "the playwright package is missing").expect
    node = None
    try:
        app = create_app(make_settings(tmp_path, mqtt_port=mosquitto.port), connect=True)
        with RunningBridge(app) as served:
            def tables() -> dict[str, Any]:
                body: dict[str, Any] = httpx2.get(f"{served.url}/api/v1/tables",
                                                 headers=auth(Role.VIEWER)).json()
                return body

            def online() -> Any:
                data = tables()["data"]
                return data[0]["online"] if data else "no table"

            node = start_node(tmp_path / "table.db", mosquitto.port, "--site", SITE,
                              "--hands", "1")
            wait_for("the table online", lambda: online() is True)
            assert tables()["broker"] == {"connected": True, "lost_at": None}
            page = signed_in(chromium, served, Role.FLOOR, tables=1)
            t1 = card(page, "t1")
            banner = page.locator("#broker-lost")
            expect(t1).to_have_class(re.compile(r"\bonline\b"))
            expect(banner).to_be_hidden()

            mosquitto.stop()
            wait_for("the bridge to say it lost the broker",
                     lambda: tables()["broker"]["connected"] is False)
            body = tables()
            assert body["data"][0]["online"] is None and body["broker"]["lost_at"]
            one = httpx2.get(f"{served.url}/api/v1/tables/t1", headers=auth(Role.VIEWER))
            assert one.json()["online"] is None
            expect(banner).to_be_visible(timeout=WAIT_S * 1000)
            expect(banner).to_have_text(re.compile(
                r"^The bridge has lost the broker: tables' states unknown since \d\d:\d\d$"))
            expect(t1).to_have_class(re.compile(r"\bunknown\b"))
            expect(t1.locator(".badge.unknown")).to_have_text("UNKNOWN")
            expect(t1.locator(".badge.offline")).to_have_count(0)

            mosquitto.start()
            wait_for("the table online again", lambda: online() is True)
            assert tables()["broker"] == {"connected": True, "lost_at": None}
            expect(banner).to_be_hidden(timeout=WAIT_S * 1000)
            expect(t1).to_have_class(re.compile(r"\bonline\b"), timeout=WAIT_S * 1000)
            expect(t1.locator(".badge.unknown")).to_have_count(0)
            page.context.close()
    finally:
        if node is not None and node.poll() is None:
            node.kill()
            node.communicate(timeout=WAIT_S)
