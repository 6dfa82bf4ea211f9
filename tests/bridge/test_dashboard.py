"""The floor dashboard in a real browser: a uvicorn server on a loopback port, fed by
virtual tables that answer commands the way a table does (an event, then the reply), and
headless Chromium (Debian's, driven by Playwright) signing in, watching and commanding.

One more test runs the whole path: a real controller (``controller.sync.soak_node``) playing
hands over a real Mosquitto into the bridge's MQTT link, followed, paused and seen to die.

Skipped when ``/usr/bin/chromium``, the ``playwright`` package or a WebSocket library for
uvicorn (``websockets``) is missing; the last test also needs ``mosquitto``.
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
import shutil
import socket
import threading
import time
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any, Self

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from controller.events import (
    TABLE_EVENTS,
    ActionAccepted,
    ClockCalled,
    ColourUpScheduled,
    HandForHandSet,
    HandStarted,
    LevelSet,
    Paused,
    PlayerMoved,
    PlayerRemoved,
    PlayerSeated,
    PublicEvent,
    Resumed,
    TableClosed,
)
from controller.sync.messages import CommandMessage, ReplyMessage
from controller.sync.topics import Topics
from host_bridge.app import create_app
from host_bridge.bridge import Bridge
from host_bridge.settings import Role
from tests.bridge.conftest import TOKENS, make_settings
from tests.bridge.tablesim import SITE, WireTable
from tests.needs import missing, need_module
from tests.sync.conftest import Mosquitto, start_node

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
# The README's screenshot: written there only when asked (PITBOSS_SCREENSHOTS=1), so a test
# run leaves the checkout as it was; otherwise it goes to the test's temporary folder.
DOCS_SCREENSHOT = Path(__file__).resolve().parents[2] / "docs" / "dashboard.png"
PLAYERS = ["ana", "ben", "cleo", "dev", "eli", "fay", "gus", "hal", "ivy", "jon"]
FLOOR = {"t1": (6, True), "t2": (4, True), "t3": (6, False), "t4": (5, True)}
SILENT = "t4"  # this table never answers a command
WAIT_S = 60.0  # an upper bound for slow CI machines, not a budget

# the effect of each command on a table, as the controller reports it
CHANGES: dict[str, type[PublicEvent]] = {
    "pause": Paused, "resume": Resumed, "set_level": LevelSet, "call_clock": ClockCalled,
    "hand_for_hand": HandForHandSet, "colour_up": ColourUpScheduled,
    "seat_player": PlayerSeated, "remove_player": PlayerRemoved, "move_player": PlayerMoved,
    "close_table": TableClosed}


class VirtualFloor:
    """Tables behind a fake broker: a command is carried out (its change event, e.g.
    ``paused``, with the table's next seq) and answered ``ok``; the silent table answers
    nothing."""

    def __init__(self) -> None:
        self.wires = {table: WireTable(table=table) for table in FLOOR}
        self.deliver: Callable[[str, bytes], Coroutine[Any, Any, Any]] | None = None
        self.commands: list[CommandMessage] = []
        self.tasks: set[asyncio.Future[Any]] = set()

    async def publish(self, topic: str, payload: bytes, qos: int, retain: bool) -> None:
        """Take a command addressed to one of the tables; ignore acks."""
        if not topic.endswith("/cmd") or self.deliver is None:
            return
        message = CommandMessage.model_validate_json(payload)
        self.commands.append(message)
        if message.table == SILENT:
            return
        command = message.command.model_dump()
        fields = {k: v for k, v in command.items() if k in ("seat", "player", "stack",
                                                             "level", "to_table", "on")}
        if command["name"] == "colour_up":
            fields["level"] = command["at_level"]
        if command["name"] in ("remove_player", "move_player"):  # who sits there
            fields["player"] = f"{PLAYERS[fields['seat'] - 1]}-{message.table}"
        kind = CHANGES[command["name"]].model_fields["kind"].default
        event = TABLE_EVENTS.validate_python(
            {"kind": kind, "command_id": message.command_id, **fields})
        reply = ReplyMessage(table=message.table, boot="boot-1", seq=0, ts=0.0,
                             command_id=message.command_id, status="ok",
                             data={"change": event.kind})
        deliver, wire = self.deliver, self.wires[message.table]

        def later(out: tuple[str, bytes]) -> None:  # after this publish, as a broker would
            task = asyncio.ensure_future(deliver(*out))
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)

        loop = asyncio.get_running_loop()
        for out in (wire.event(event), (Topics(SITE, message.table).reply, reply.to_wire())):
            loop.call_soon(later, out)


class RunningBridge:
    """A bridge app served by uvicorn on its own loop in a thread."""

    def __init__(self, app: FastAPI) -> None:
        import uvicorn

        self.app = app
        self.bridge: Bridge = app.state.bridge
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on",
                                                    ws="auto"))
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self._serve, name="dashboard-bridge",
                                       daemon=True)

    def _serve(self) -> None:
        self.loop.run_until_complete(self.server.serve(sockets=[self.sock]))

    def __enter__(self) -> Self:
        self.thread.start()
        ready = threading.Event()
        while self.thread.is_alive() and not ready.wait(0.02):
            if self.server.started:
                ready.set()
        assert self.server.started, "the bridge did not start serving"
        return self

    def __exit__(self, *_exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(WAIT_S)
        self.sock.close()
        self.loop.close()

    def send(self, message: tuple[str, bytes]) -> None:
        """Deliver one table message to the bridge, on the server's loop."""
        asyncio.run_coroutine_threadsafe(self.bridge.receive(*message),
                                         self.loop).result(WAIT_S)


class VirtualBridge(RunningBridge):
    """A running bridge whose tables are a :class:`VirtualFloor`."""

    def __init__(self, tmp: Path) -> None:
        self.floor = VirtualFloor()
        super().__init__(create_app(make_settings(tmp, command_timeout_s=1.0),
                                    publisher=self.floor))
        self.floor.deliver = self.bridge.receive
        for table, (players, online) in FLOOR.items():
            wire = self.floor.wires[table]
            self.bridge.ingest.take(*wire.status(True))
            for seat in range(1, players + 1):
                self.bridge.ingest.take(*wire.seat(seat, f"{PLAYERS[seat - 1]}-{table}",
                                                   10_000 + 500 * seat))
            if not online:
                self.bridge.ingest.take(*wire.status(False))


def need_websockets() -> None:
    if not any(importlib.util.find_spec(m) for m in ("websockets", "wsproto")):
        missing("uvicorn serves no WebSocket without the websockets package")


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[VirtualBridge]:
    """The bridge, serving, with four tables: t2 two players short, t3 offline."""
    need_websockets()
    with VirtualBridge(tmp_path_factory.mktemp("dashboard")) as running:
        yield running


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's Chromium, headless, through Playwright."""
    if not CHROMIUM.exists() or shutil.which(str(CHROMIUM)) is None:
        missing("no /usr/bin/chromium: apt-get install chromium")
    sync_api = need_module("playwright.sync_api", "the playwright package is not installed")
    with sync_api.sync_playwright() as driver:
        chromium = driver.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def expect() -> Any:
    """Playwright's auto-waiting assertions."""
    return need_module("playwright.sync_api", "the playwright package is not installed").expect


def signed_in(browser: Any, served: RunningBridge, role: Role, tables: int = len(FLOOR)
              ) -> Any:
    """A page at the dashboard, signed in as ``role``, its floor shown."""
    context = browser.new_context(viewport={"width": 1600, "height": 1000})
    page = context.new_page()
    page.goto(f"{served.url}/dashboard/")
    page.get_by_label("Access token").fill(TOKENS[role])
    page.get_by_role("button", name="Sign in").click()
    page.get_by_text(f"Signed in as {role.value}").wait_for()
    page.locator("li.table-card").nth(tables - 1).wait_for()
    return page


def card(page: Any, table: str) -> Any:
    return page.locator(f'li.table-card[data-table="{table}"]')


def test_the_bridge_serves_the_dashboard_with_a_strict_policy(tmp_path: Path) -> None:
    with TestClient(create_app(make_settings(tmp_path))) as client:
        assert client.get("/", follow_redirects=False).headers["location"] == "/dashboard/"
        page = client.get("/dashboard/")
        assert page.status_code == 200 and "Access token" in page.text
        assert "script-src 'self'" in page.headers["content-security-policy"]
        assert client.get("/dashboard/app.js").headers["content-type"].startswith(
            "text/javascript")
        assert "/dashboard/" not in str(client.get("/openapi.json").json()["paths"])


def test_a_wrong_token_is_refused_on_the_sign_in_form(browser: Any, served: VirtualBridge,
                                                      expect: Any) -> None:
    page = browser.new_page()
    page.goto(f"{served.url}/dashboard/")
    page.get_by_label("Access token").fill("not-a-token-of-this-bridge")
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("alert")).to_contain_text("not recognised")
    expect(page.locator("#board")).to_be_hidden()
    page.context.close()


def test_floor_sees_the_floor_live_and_pauses_a_table(browser: Any, served: VirtualBridge,
                                                      expect: Any, tmp_path: Path) -> None:
    page = signed_in(browser, served, Role.FLOOR)
    # the grid: t2 is two players short of the fullest tables, t3 is offline
    expect(card(page, "t2")).to_have_class("table-card online short")
    expect(card(page, "t2").locator(".badge.short")).to_have_text("SHORT −2")
    expect(card(page, "t3")).to_contain_text("OFFLINE")
    expect(card(page, "t3")).to_have_class("table-card offline")
    expect(card(page, "t4")).not_to_contain_text("SHORT")
    expect(card(page, "t1").locator("li.seat")).to_have_count(6)
    expect(card(page, "t1")).to_contain_text("cleo-t1")

    # live: a hand starts at t1 and UTG folds; the next seat is to act
    wire = served.floor.wires["t1"]
    served.send(wire.event(HandStarted(hand_no=1, seats=(1, 2, 3, 4, 5, 6),
                                       stacks=tuple(10_500 + 500 * i for i in range(6)),
                                       small_blind=50, big_blind=100)))
    t1 = card(page, "t1")
    expect(t1.locator("li.seat.to-act")).to_have_attribute("data-seat", "3")
    expect(t1.locator('dd[data-fact="blinds"]')).to_have_text("50 / 100")
    served.send(wire.event(ActionAccepted(hand_no=1, player=2, action="fold")))
    expect(t1.locator("li.seat.to-act")).to_have_attribute("data-seat", "4")
    expect(t1.locator("li.seat.to-act")).to_contain_text("to act")

    # the detail view, with floor's commands only
    t1.get_by_role("button", name="Table t1").click()
    detail = page.locator("#detail")
    expect(detail.get_by_role("heading", name="Table t1")).to_be_visible()
    expect(detail.get_by_role("button", name="Set level")).to_be_hidden()
    expect(detail.get_by_role("button", name="Close table…")).to_have_count(0)
    expect(detail.get_by_role("button", name="Start hand-for-hand")).to_have_count(0)

    detail.get_by_role("button", name="Pause").click()
    expect(detail.get_by_role("log")).to_contain_text("Table t1 did pause — change: paused")
    expect(t1.locator(".badge.paused")).to_have_text("PAUSED")
    expect(detail.get_by_role("button", name="Resume")).to_be_visible()
    detail.locator('tr[data-seat="4"]').get_by_role("button", name="Call clock").click()
    expect(t1.locator('li.seat[data-seat="4"] .tag.clock')).to_have_text("clock")
    assert [(c.table, c.command.name) for c in served.floor.commands][-2:] == [
        ("t1", "pause"), ("t1", "call_clock")]

    # a table that never answers: the page says so, and what to do
    card(page, "t4").get_by_role("button", name="Table t4").click()
    page.locator("#detail").get_by_role("button", name="Pause").click()
    expect(page.locator("#replies li").first).to_contain_text(
        "No reply: table t4 did not reply to pause")
    card(page, "t1").get_by_role("button", name="Table t1").click()
    expect(card(page, "t1")).to_have_class("table-card online paused selected")
    shot = (DOCS_SCREENSHOT if os.environ.get("PITBOSS_SCREENSHOTS") == "1"
            else tmp_path / "dashboard.png")
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000  # a real picture of the floor, not an empty page
    page.context.close()


def test_a_director_sets_the_level_and_seats_a_player(browser: Any, served: VirtualBridge,
                                                      expect: Any) -> None:
    page = signed_in(browser, served, Role.DIRECTOR)
    t2 = card(page, "t2")
    t2.get_by_role("button", name="Table t2").click()
    detail = page.locator("#detail")
    detail.get_by_label("Level", exact=True).fill("5")
    detail.get_by_role("button", name="Set level").click()
    expect(t2.locator('dd[data-fact="level"]')).to_have_text("5")
    detail.get_by_label("Seat", exact=True).select_option("7")
    detail.get_by_label("Player id").fill("zoe")
    detail.get_by_label("Stack").fill("12000")
    detail.get_by_role("button", name="Seat player").click()
    expect(t2.locator('li.seat[data-seat="7"]')).to_contain_text("zoe")
    expect(t2.locator('li.seat[data-seat="7"]')).to_contain_text("12,000")
    detail.get_by_role("button", name="Start hand-for-hand").click()
    expect(t2.locator(".badge.h4h")).to_have_text("HAND-FOR-HAND")
    expect(detail.get_by_role("button", name="Stop hand-for-hand")).to_be_visible()
    detail.get_by_role("button", name="Close table…").click()  # asks before it sends
    expect(detail.get_by_role("button", name="Yes, close table t2")).to_be_visible()
    assert [c.command.name for c in served.floor.commands if c.table == "t2"] == [
        "set_level", "seat_player", "hand_for_hand"]
    page.context.close()


def test_a_viewer_sees_the_floor_and_no_command(browser: Any, served: VirtualBridge,
                                                expect: Any) -> None:
    page = signed_in(browser, served, Role.VIEWER)
    card(page, "t1").get_by_role("button", name="Table t1").click()
    detail = page.locator("#detail")
    expect(detail.get_by_role("heading", name="Table t1")).to_be_visible()
    expect(detail.locator("table.seat-table tbody tr")).to_have_count(6)
    expect(page.locator("#commands")).to_be_hidden()
    expect(detail.locator("button.cmd")).to_have_count(0)
    expect(detail.get_by_role("button", name="Pause")).to_have_count(0)
    page.context.close()


def test_a_real_table_over_mosquitto_is_followed_paused_and_seen_to_die(
        browser: Any, expect: Any, tmp_path: Path, mosquitto: Mosquitto) -> None:
    """The whole path: a controller (``controller.sync.soak_node``) playing hands over a
    real Mosquitto, the bridge's MQTT link, the page."""
    need_websockets()
    broker = mosquitto
    node = None
    try:
        app = create_app(make_settings(tmp_path, mqtt_port=broker.port, command_timeout_s=20),
                         connect=True)
        with RunningBridge(app) as served:
            node = start_node(tmp_path / "table.db", broker.port, "--site", SITE,
                              "--pace", "0.01")
            page = signed_in(browser, served, Role.FLOOR, tables=1)
            t1 = card(page, "t1")
            expect(t1.locator("li.seat")).to_have_count(6)
            expect(t1.locator("li.seat.to-act")).to_have_count(1)
            # the page's "to act" named the player the table's rules let act, every time
            deadline = time.monotonic() + WAIT_S
            while page.evaluate("state.turnsSeen") < 40:
                assert time.monotonic() < deadline, "gave up waiting for 40 actions"
                page.wait_for_timeout(50)
            assert page.evaluate("state.turnsMissed") == 0

            t1.get_by_role("button", name="Table t1").click()
            detail = page.locator("#detail")
            detail.get_by_role("button", name="Pause").click()
            expect(detail.get_by_role("log")).to_contain_text("Table t1 did pause")
            expect(t1.locator(".badge.paused")).to_have_text("PAUSED")
            detail.get_by_role("button", name="Resume").click()
            expect(detail.get_by_role("log")).to_contain_text("Table t1 did resume")
            expect(t1.locator(".badge.paused")).to_have_count(0)

            node.kill()  # no goodbye: the broker publishes the table's Will
            node.communicate(timeout=WAIT_S)
            expect(t1).to_contain_text("OFFLINE", timeout=WAIT_S * 1000)
            expect(detail.get_by_role("button", name="Pause")).to_be_disabled()
            page.context.close()
    finally:
        if node is not None and node.poll() is None:
            node.kill()
            node.communicate(timeout=WAIT_S)
