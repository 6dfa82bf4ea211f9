"""The floor page, alert-first (issue 20), in headless Chromium (Debian's, through
Playwright): the alert list on top (most severe first, live from the feed, acknowledged
through the page), table cards sorted and filtered with closed tables out of the grid, the
table view with the hand in progress and the commands that ask before they cost, and the
tablet layout.

Every alert here is the bridge's own board (:mod:`host_bridge.alerts`) reacting to what
the tables put on the wire, as ``tests/bridge/test_alerts.py`` drives it over REST: no
stub. The tables are the virtual floor of ``test_dashboard.py`` (t2 two players short, t3
offline, t4 silent) and t5, closed; the bridge runs on a hand clock (``ManualClock``), so
the age of an alert is what the test made it. The module's tests share that floor, in file
order. ``test_floor_page_tournament.py`` has the tournament strip,
``test_floor_page_compact.py`` the 200-table view. Screenshots go to docs/ only when asked
(``PITBOSS_SCREENSHOTS=1``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from controller.events import (
    ActionAccepted,
    BoardDealt,
    ClockCalled,
    GameSetup,
    HandStarted,
    Irregularity,
    ShotClockReport,
    TableClosed,
)
from controller.rules.actions import Action
from controller.rules.cards import parse_cards
from controller.rules.config import Variant
from controller.rules.game import GameConfig
from controller.rules.hand import Hand
from host_bridge.app import create_app
from host_bridge.models import AlertAck
from host_bridge.settings import Role
from tests.bridge.conftest import TOKENS, ManualClock, make_settings
from tests.bridge.reporting import ReportingWire
from tests.bridge.test_dashboard import (
    FLOOR,
    PLAYERS,
    RunningBridge,
    VirtualFloor,
    browser,
    card,
    expect,
    need_websockets,
)
from tests.bridge.test_dashboard_seat_nodes import lost

__all__ = ["browser", "expect"]  # the fixtures, shared with test_dashboard.py

DOCS = Path(__file__).resolve().parents[2] / "docs"
DESKTOP = {"width": 1440, "height": 900}
TABLET = {"width": 768, "height": 1024}
START = 5000.0  # the bridge's hand clock when the standard alerts are raised
OFFLINE_ACTION = "Check the table's power and network; it reconnects by itself"


def shot_path(name: str, tmp: Path) -> Path:
    """docs/<name> when screenshots are asked for, else the test's temporary folder."""
    return DOCS / name if os.environ.get("PITBOSS_SCREENSHOTS") == "1" else tmp / name


class AlertingFloor(RunningBridge):
    """The virtual floor on a hand clock, t5 closed, and three alerts the board raised
    from the tables' own reports: t3 offline (high), seat 3's node at t1 not answering
    (medium), the clock called on seat 2 at t2 (low); then 75 s pass."""

    def __init__(self, tmp: Path) -> None:
        self.floor = VirtualFloor()
        self.clock = ManualClock(START)
        super().__init__(create_app(make_settings(tmp, command_timeout_s=1.0),
                                    publisher=self.floor, clock=self.clock))
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
        wire = self.floor.wires["t5"] = ReportingWire("t5")
        for message in (wire.status(True), wire.seat(1, "zed-t5", 9_000),
                        wire.event(TableClosed()), wire.reported()):
            self.bridge.ingest.take(*message)
        self.board = self.app.state.alert_board
        self.board.refresh()  # t3's offline alert, raised at START (not at the first tick)

    def __enter__(self) -> AlertingFloor:
        super().__enter__()
        self.report(self.floor.wires["t1"], lost(3))
        self.report(self.floor.wires["t2"], ClockCalled(seat=2))
        self.clock.now = START + 75
        return self


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AlertingFloor]:
    need_websockets()
    with AlertingFloor(tmp_path_factory.mktemp("floor-page")) as running:
        yield running


def page_for(browser: Any, served: RunningBridge, role: Role, viewport: dict[str, int],
             tables: int = 4) -> Any:
    """A page signed in as ``role`` at ``viewport``, its open tables on the grid."""
    page = browser.new_context(viewport=viewport).new_page()
    page.goto(f"{served.url}/dashboard/")
    page.get_by_label("Access token").fill(TOKENS[role])
    page.get_by_role("button", name="Sign in").click()
    page.get_by_text(f"Signed in as {role.value}").wait_for()
    page.locator("li.table-card").nth(tables - 1).wait_for()
    return page


def test_alerts_come_first_most_severe_first_and_follow_the_feed(
        browser: Any, served: AlertingFloor, expect: Any, tmp_path: Path) -> None:
    page = page_for(browser, served, Role.FLOOR, DESKTOP)
    alerts = page.locator("#alert-list li.alert")
    expect(alerts).to_have_count(3)
    expect(alerts.locator(".sev")).to_have_text(["HIGH", "MEDIUM", "LOW"])
    expect(alerts.locator(".alert-table")).to_have_text(["t3", "t1", "t2"])
    first = alerts.first
    expect(first.locator(".alert-text")).to_have_text(
        "offline: the table has lost its link to the bridge")
    expect(first.locator(".alert-action")).to_have_text(OFFLINE_ACTION)
    expect(first.locator("time.since")).to_have_text("1 min ago")  # by the bridge's clock
    expect(alerts.nth(1).locator(".alert-text")).to_contain_text("seat node 3 not answering")
    expect(alerts.nth(2).locator(".alert-text")).to_have_text(
        "the clock is called on seat 2 (CLOCK-1)")
    expect(page.locator("#alerts-count")).to_have_text("3 open · 1 high")
    # the list is above the tables, and the cards carry their alert's colour
    assert page.locator("#alerts").bounding_box()["y"] < page.locator("#grid").bounding_box()["y"]
    expect(card(page, "t1")).to_have_attribute("data-attention", "medium")
    expect(card(page, "t1").locator(".card-alert")).to_contain_text("seat node 3")
    expect(card(page, "t4")).to_have_attribute("data-attention", "none")

    # live: the dealer's screen at t4 waits for the floor (a prompt between hands)
    t4 = served.floor.wires["t4"]
    served.report(t4, Irregularity(hand_no=0, what="too_few", seat=2,
                                   reason="seat 2 has one card"))
    expect(alerts).to_have_count(4)
    expect(first.locator(".alert-text")).to_have_text(
        "too few: seat 2: seat 2 has one card")  # the newest high one first
    expect(first.locator("time.since")).to_have_text("just now")
    expect(card(page, "t4")).to_have_attribute("data-attention", "high")
    expect(page.locator("#grid > li.table-card h3")).to_have_text(
        ["Table t3", "Table t4", "Table t1", "Table t2"])  # high, high, medium, low
    page.screenshot(path=str(shot_path("floor_alerts.png", tmp_path)))
    # the next hand is dealt: the prompt was resolved, and the alert goes
    served.report(t4, HandStarted(hand_no=1, seats=(1, 2, 3, 4, 5),
                                  stacks=tuple(10_000 + 500 * s for s in range(1, 6))))
    expect(alerts).to_have_count(3)
    expect(card(page, "t4")).to_have_attribute("data-attention", "none")
    # a click on its table opens the table view, with the table's alerts
    first.locator(".alert-table").click()
    detail = page.locator("#detail")
    expect(detail.get_by_role("heading", name="Table t3")).to_be_visible()
    expect(detail.locator("ul.detail-alerts li")).to_contain_text([OFFLINE_ACTION])
    page.context.close()


def test_the_floor_acknowledges_an_alert_on_the_page_and_a_viewer_cannot(
        browser: Any, served: AlertingFloor, expect: Any) -> None:
    page = page_for(browser, served, Role.FLOOR, DESKTOP)
    row = page.locator('#alert-list li[data-alert="offline:t3"]')
    row.get_by_role("button", name="Acknowledge").click()
    expect(row).to_have_class("alert sev-high acked")  # dimmed, still listed
    expect(row.locator(".acked")).to_contain_text("Acknowledged by floor-1")
    expect(row.get_by_role("button", name="Acknowledge")).to_have_count(0)
    expect(page.locator("#alert-list li.alert").last).to_have_attribute(
        "data-alert", "offline:t3")  # below the open ones
    expect(page.locator("#alerts-count")).to_have_text("2 open · 1 acknowledged")
    with served.app.state.sessions() as session:  # journaled: who, when, which alert
        acks = [(a.alert_id, a.actor, a.role, a.at) for a in session.scalars(select(AlertAck))]
    assert acks == [("offline:t3", "floor-1", "floor", START + 75)]

    viewer = page_for(browser, served, Role.VIEWER, DESKTOP)
    expect(viewer.locator("#alert-list li.alert")).to_have_count(3)
    expect(viewer.locator('#alert-list li[data-alert="offline:t3"] .acked')).to_contain_text(
        "Acknowledged by floor-1")
    expect(viewer.get_by_role("button", name="Acknowledge")).to_have_count(0)
    page.context.close()
    viewer.context.close()


def test_cards_sort_and_filter_and_closed_tables_leave_the_grid(
        browser: Any, served: AlertingFloor, expect: Any) -> None:
    page = page_for(browser, served, Role.FLOOR, DESKTOP)
    names = page.locator("#grid > li.table-card h3")
    # needs attention first: offline (t3), the medium alert (t1), the low (t2), then t4
    expect(names).to_have_text(["Table t3", "Table t1", "Table t2", "Table t4"])
    expect(card(page, "t5")).to_have_count(0)  # closed: out of the grid, counted
    expect(page.locator("#show-closed")).to_have_text("Show closed (1)")
    expect(page.locator("#shown")).to_have_text("4 of 4 shown")
    page.get_by_label("Sort").select_option("id")
    expect(names).to_have_text(["Table t1", "Table t2", "Table t3", "Table t4"])
    page.get_by_label("Sort").select_option("players")
    expect(names).to_have_text(["Table t2", "Table t4", "Table t1", "Table t3"])
    page.get_by_label("Show", exact=True).select_option("short")
    expect(names).to_have_text(["Table t2"])
    page.get_by_label("Show", exact=True).select_option("attention")
    expect(names).to_have_text(["Table t2", "Table t1", "Table t3"])  # not t4: nothing wrong
    page.get_by_label("Show", exact=True).select_option("all")
    page.locator("#show-closed").click()
    expect(names).to_have_text(["Table t5", "Table t2", "Table t4", "Table t1", "Table t3"])
    expect(card(page, "t5").locator(".badge.closed")).to_have_text("CLOSED")
    expect(page.locator("#show-closed")).to_have_text("Hide closed (1)")
    # the choice is the floor person's, kept for the next visit of this browser
    page.reload()  # (the token is kept for the tab: signed in again at once)
    expect(page.get_by_label("Sort")).to_have_value("players")
    expect(names).to_have_count(5)
    page.context.close()


def test_the_table_view_shows_the_hand_in_progress_and_its_recent_events(
        browser: Any, served: AlertingFloor, expect: Any, tmp_path: Path) -> None:
    page = page_for(browser, served, Role.FLOOR, DESKTOP)
    wire = served.floor.wires["t1"]
    card(page, "t1").get_by_role("button", name="Table t1").click()
    detail = page.locator("#detail")
    expect(detail.get_by_role("heading", name="Table t1")).to_be_visible()
    order = (2, 3, 4, 5, 6, 1)  # left of the button (seat 1): the blinds at 2 and 3
    config = GameConfig(Variant.NT, tuple(10_000 + 500 * s for s in order), 50, 100)
    engine = Hand(config)
    served.report(wire, HandStarted(
        hand_no=1, seats=order, stacks=config.stacks, small_blind=50, big_blind=100,
        button=1, small_blind_seat=2, big_blind_seat=3, level=1, config=GameSetup.of(config)))
    for player in range(6):
        engine.deal_hole(player, (None, None))
    served.deal(wire, 1, 6)

    def did(action: Action) -> None:
        served.report(wire, ActionAccepted.of(1, action))

    did(engine.bet_or_raise_to(300))  # seat 4
    did(engine.call())  # seat 5
    for _ in range(3):  # seats 6, 1 and the small blind
        did(engine.fold())
    did(engine.call())  # the big blind
    engine.deal_board(parse_cards("Ah7d2c"))
    served.report(wire, BoardDealt(hand_no=1, cards=("Ah", "7d", "2c"), street="flop"))
    did(engine.check())  # the big blind checks to the raiser
    served.report(wire, ShotClockReport(hand_no=1, seat=4, what="extension", seconds=30,
                                        chips_left=1))
    hand = detail.locator(".hand")
    expect(hand.locator('[data-hand="board"]')).to_have_text("A♥ 7♦ 2♣")
    expect(hand.locator('[data-hand="pots"]')).to_have_text("main 950")
    expect(hand.locator('[data-hand="to-act"]')).to_have_text("Seat 4")
    assert engine.actor is not None and order[engine.actor] == 4  # the engine's turn
    expect(hand.locator('[data-hand="to-call"]')).to_have_text(str(engine.call_amount))
    expect(detail.locator("tr.to-act")).to_have_attribute("data-seat", "4")
    shot = detail.locator('[data-hand="shot-clock"]')
    expect(shot).to_have_text("Seat 4 used a time bank (+30 s, 1 chip left)")
    served.report(wire, ClockCalled(seat=4, seconds=60, caller="floor"))
    expect(shot).to_have_text("Clock called on seat 4")
    recent = detail.locator("ol.recent li")
    expect(recent.first).to_contain_text("Clock called on seat 4")
    expect(detail.locator("ol.recent")).to_contain_text("flop A♥ 7♦ 2♣")
    expect(detail.locator("ol.recent")).to_contain_text("Seat 4 bets or raises to 300")
    expect(detail.locator("ol.recent")).to_contain_text("Hand #1 started")
    # the clock call is an alert too, below the seat node's (low after medium)
    expect(detail.locator("ul.detail-alerts li")).to_have_count(2)
    expect(detail.locator("ul.detail-alerts li").last).to_contain_text(
        "the clock is called on seat 4")
    detail.screenshot(path=str(shot_path("floor_table_view.png", tmp_path)))
    page.context.close()


def test_tablet_shows_alerts_and_cards_without_sideways_scrolling(
        browser: Any, served: AlertingFloor, expect: Any, tmp_path: Path) -> None:
    page = page_for(browser, served, Role.FLOOR, TABLET)
    alerts = page.locator("#alert-list li.alert")
    expect(alerts).to_have_count(4)  # t1's clock call joined the three
    expect(alerts.first).to_be_in_viewport()
    for i in range(4):  # each alert's text and action fit the width
        box = alerts.nth(i).bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= TABLET["width"]
    assert page.evaluate("document.documentElement.scrollWidth") <= TABLET["width"]
    page.screenshot(path=str(shot_path("floor_tablet.png", tmp_path)))
    # the table view takes the screen; Back returns to the floor
    page.locator('#alert-list li[data-alert="offline:t3"] .alert-table').click()
    expect(page.locator("#detail").get_by_role("heading", name="Table t3")).to_be_in_viewport()
    expect(page.locator("#grid")).to_be_hidden()
    assert page.evaluate("document.documentElement.scrollWidth") <= TABLET["width"]
    page.get_by_role("button", name="Back to the floor").click()
    expect(page.locator("#grid")).to_be_visible()
    expect(page.locator("#detail")).to_be_hidden()
    page.context.close()


def test_remove_move_and_close_ask_first_and_seats_stay_within_the_table(
        browser: Any, served: AlertingFloor, expect: Any) -> None:
    page = page_for(browser, served, Role.DIRECTOR, DESKTOP)
    card(page, "t2").get_by_role("button", name="Table t2").click()
    detail = page.locator("#detail")
    # t2's size is not reported (no house): ten seats, four taken, so seats 5 to 10
    expect(detail.get_by_label("Seat", exact=True).locator("option")).to_have_text(
        [f"Seat {n}" for n in range(5, 11)])

    def sent() -> list[str]:
        return [c.command.name for c in served.floor.commands if c.table == "t2"]

    before = sent()
    row = detail.locator('tr[data-seat="2"]')
    row.get_by_role("button", name="Remove…").click()
    expect(row.get_by_role("button", name="Yes, remove ben-t2")).to_be_visible()
    row.get_by_role("button", name="Cancel").click()
    expect(row.get_by_role("button", name="Remove…")).to_be_visible()
    assert sent() == before  # nothing went to the table
    row.get_by_role("button", name="Remove…").click()
    row.get_by_role("button", name="Yes, remove ben-t2").click()
    expect(detail.get_by_role("log")).to_contain_text("Table t2 did remove_player (seat 2)")
    expect(detail.locator('tr[data-seat="2"]')).to_have_count(0)
    row = detail.locator('tr[data-seat="3"]')
    row.get_by_label("to table").select_option("t1")
    row.get_by_role("button", name="Move…", exact=True).click()
    assert sent() == [*before, "remove_player"]
    row.get_by_role("button", name="Yes, move cleo-t2 to table t1").click()
    expect(detail.get_by_role("log")).to_contain_text("Table t2 did move_player")
    detail.get_by_role("button", name="Close table…").click()
    expect(detail.get_by_role("button", name="Yes, close table t2")).to_be_visible()
    page.keyboard.press("Escape")  # changed their mind
    expect(detail.get_by_role("button", name="Close table…")).to_be_visible()
    assert sent() == [*before, "remove_player", "move_player"]
    page.context.close()
