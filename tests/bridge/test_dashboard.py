"""The floor dashboard in a real browser: a uvicorn server on a loopback port, fed by
virtual tables that answer commands the way a table does (an event, then the reply), and
headless Chromium (Debian's, driven by Playwright) signing in, watching and commanding.

The virtual tables report their public state as a table does: after each event, the
journal's fold of it (:func:`controller.sync.ledger.fold`), so the hand in play the page
shows (whose turn, the amount to call, the raise limits, the board, the pots) is the rules
engine's, as at a real table. One more test runs the whole path: a real controller
(``controller.sync.soak_node``) playing hands over a real Mosquitto into the bridge's MQTT
link, its turns, calls and raises on the page checked against the actions the table then
took, paused and seen to die.

Fails, saying so, when ``/usr/bin/chromium``, the ``playwright`` package or a WebSocket library for
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
from collections import Counter
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any, Self

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from controller.events import (
    TABLE_EVENTS,
    ActionAccepted,
    BoardDealt,
    ClockCalled,
    ColourUpScheduled,
    GameSetup,
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
from controller.rules.actions import Action
from controller.rules.cards import parse_cards
from controller.rules.config import Variant
from controller.rules.game import GameConfig
from controller.rules.hand import Hand
from controller.sync.messages import (
    CommandMessage,
    ReplyMessage,
)
from controller.sync.topics import Topics
from host_bridge.app import create_app
from host_bridge.bridge import Bridge
from host_bridge.settings import Role
from tests.bridge.conftest import TOKENS, make_settings
from tests.bridge.reporting import (
    Reading,
    ReportingWire,
    check_turns,
    turn_of_engine,
    turn_on_page,
    turns_seen,
)
from tests.bridge.tablesim import SITE
from tests.needs import missing, need_module
from tests.sync.conftest import Mosquitto, start_node

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
# The README's screenshot: written there only when asked (PITBOSS_SCREENSHOTS=1), so a test
# run leaves the checkout as it was; otherwise it goes to the test's temporary folder.
DOCS_SCREENSHOT = Path(__file__).resolve().parents[2] / "docs" / "dashboard.png"
DOCS_HAND_SCREENSHOT = DOCS_SCREENSHOT.with_name("dashboard_hand.png")
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
        self.wires = {table: ReportingWire(table) for table in FLOOR}
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
        for out in (wire.event(event), wire.reported(),
                    (Topics(SITE, message.table).reply, reply.to_wire())):
            loop.call_soon(later, out)


class RunningBridge:
    """A bridge app served by uvicorn on its own loop in a thread."""

    def __init__(self, app: FastAPI) -> None:
        import uvicorn

        self.app = app
        self.bridge: Bridge = app.state.bridge
        # TCP named so asyncio sets TCP_NODELAY on what it accepts (host_bridge/demo/floor.py)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
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

    def report(self, wire: ReportingWire, *events: PublicEvent) -> None:
        """A table's events, then its public state after them (as a table sends them)."""
        for event in events:
            self.send(wire.event(event))
        self.send(wire.reported())

    def deal(self, wire: ReportingWire, hand_no: int, players: int) -> None:
        """Everyone's hole cards, then the state."""
        for player in range(players):
            for message in wire.hole(hand_no, player):
                self.send(message)
        self.send(wire.reported())


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
            self.bridge.ingest.take(*wire.reported())
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

    # live: a hand starts at t1 (an older table's hand_started, without its game setup:
    # No-Limit at its blinds); nobody acts before the cards are out, then under the gun
    wire = served.floor.wires["t1"]
    served.report(wire, HandStarted(hand_no=1, seats=(1, 2, 3, 4, 5, 6),
                                    stacks=tuple(10_500 + 500 * i for i in range(6)),
                                    small_blind=50, big_blind=100))
    t1 = card(page, "t1")
    expect(t1.locator('dd[data-fact="blinds"]')).to_have_text("50 / 100")
    expect(t1.locator('[data-hand="to-act"]')).to_have_text("dealing")
    expect(t1.locator("li.seat.to-act")).to_have_count(0)
    served.deal(wire, 1, 6)
    expect(t1.locator("li.seat.to-act")).to_have_attribute("data-seat", "3")
    expect(t1.locator('[data-hand="to-call"]')).to_have_text("100")
    expect(t1.locator('[data-hand="raise-to"]')).to_have_text("200 – 11,500")
    served.report(wire, ActionAccepted(hand_no=1, player=2, action="fold"))
    expect(t1.locator("li.seat.to-act")).to_have_attribute("data-seat", "4")
    expect(t1.locator("li.seat.to-act")).to_contain_text("to act")
    expect(t1.locator('li.seat[data-seat="3"]')).to_have_class("seat folded")
    expect(t1.locator('[data-hand="last"]')).to_have_text("Last: Seat 3 folds")

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
    # hand-for-hand is floor-wide (TOURN-22): the director page switches it for every
    # table, so the table view says so and offers no switch of its own (issue 20)
    expect(detail.locator("#h4h-note")).to_contain_text("floor-wide")
    expect(detail.get_by_role("button", name="Start hand-for-hand")).to_have_count(0)
    detail.get_by_role("button", name="Close table…").click()  # asks before it sends
    expect(detail.get_by_role("button", name="Yes, close table t2")).to_be_visible()
    assert [c.command.name for c in served.floor.commands if c.table == "t2"] == [
        "set_level", "seat_player"]
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


def test_the_floor_sees_the_engines_turn_call_and_raise_in_a_hand_with_antes(
        browser: Any, served: VirtualBridge, expect: Any, tmp_path: Path) -> None:
    """Under the gun is all-in for the ante: the engine passes over that seat. (The page's
    old count of the blinds, without antes, sent the turn there.) Every turn, amount to
    call and raise limit on the page is the engine's, as the table's state reports it."""
    wire = served.floor.wires["t9"] = ReportingWire("t9")
    served.send(wire.status(True))
    stacks = {1: 5_000, 2: 5_000, 3: 5_000, 4: 10, 5: 5_000, 6: 5_000}
    for seat, stack in stacks.items():
        served.send(wire.seat(seat, f"{PLAYERS[seat - 1]}-t9", stack))
    served.send(wire.reported())
    page = signed_in(browser, served, Role.FLOOR, tables=len(FLOOR) + 1)
    order = (2, 3, 4, 5, 6, 1)  # left of the button (seat 1): the blinds at 2 and 3
    config = GameConfig(Variant.NT, tuple(stacks[s] for s in order), 50, 100,
                        antes=(10,) * 6)
    engine = Hand(config)
    served.report(wire, HandStarted(
        hand_no=1, seats=order, stacks=config.stacks, small_blind=50, big_blind=100,
        ante=10, button=1, small_blind_seat=2, big_blind_seat=3, level=1,
        config=GameSetup.of(config)))
    for player in range(6):
        engine.deal_hole(player, (None, None))
    served.deal(wire, 1, 6)
    t9 = card(page, "t9")
    hand = t9.locator(".hand")

    def expect_turn(seat: int, call: str, raise_to: str) -> None:
        expect(t9.locator("li.seat.to-act")).to_have_attribute("data-seat", str(seat))
        expect(hand.locator('[data-hand="to-call"]')).to_have_text(call)
        expect(hand.locator('[data-hand="raise-to"]')).to_have_text(raise_to)
        assert turn_on_page(t9) == turn_of_engine(engine, order)

    def did(action: Action) -> None:
        served.report(wire, ActionAccepted.of(1, action))

    expect(t9.locator('dd[data-fact="blinds"]')).to_have_text("50 / 100 · ante 10")
    expect_turn(5, "100", "200 – 4,990")  # seat 4 is all-in: the ante took its 10 chips
    expect(t9.locator('li.seat[data-seat="4"] .tag.all-in')).to_have_text("all-in")
    expect(hand.locator('[data-hand="pots"]')).to_have_text("main 60")
    did(engine.bet_or_raise_to(300))
    expect_turn(6, "300", "500 – 4,990")
    expect(t9.locator('[data-hand="last"]')).to_have_text("Last: Seat 5 bets or raises to 300")
    did(engine.call())
    did(engine.fold())  # the button
    expect_turn(2, "250", "500 – 4,990")  # the small blind: 50 in already
    did(engine.fold())
    expect_turn(3, "200", "500 – 4,990")  # the big blind
    did(engine.call())
    expect(hand.locator('[data-hand="to-act"]')).to_have_text("dealing the board")
    expect(t9.locator("li.seat.to-act")).to_have_count(0)
    flop = parse_cards("Ah7d2c")
    engine.deal_board(flop)
    served.report(wire, BoardDealt(hand_no=1, cards=("Ah", "7d", "2c"), street="flop"))
    expect_turn(3, "0", "100 – 4,690")  # the big blind opens the flop: a bet of 100 up
    expect(hand.locator('[data-hand="board"]')).to_have_text("A♥ 7♦ 2♣")
    expect(hand.locator('[data-hand="pots"]')).to_have_text("main 60 · side 950")
    did(engine.bet_or_raise_to(400))
    expect_turn(5, "400", "800 – 4,690")
    shot = (DOCS_HAND_SCREENSHOT if os.environ.get("PITBOSS_SCREENSHOTS") == "1"
            else tmp_path / "dashboard_hand.png")
    t9.get_by_role("button", name="Table t9").click()
    expect(page.locator("#detail tr.to-act")).to_have_attribute("data-seat", "5")
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000
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
            # the page's seat to act, amount to call and raise limits, read as the table
            # plays, were what the table's rules then let that seat do
            deadline = time.monotonic() + WAIT_S
            seen: list[Reading] = []
            checked: Counter[str] = Counter()
            while sum(checked.values()) < 40 or checked["call"] < 5:
                assert time.monotonic() < deadline, f"gave up: {checked} checked"
                for _ in range(40):
                    seen += [t for t in turns_seen(page) if t not in seen[-1:]]
                    page.wait_for_timeout(25)
                checked = check_turns(served.bridge, seen)

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
