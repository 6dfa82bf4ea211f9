"""The broadcast overlay page (issue 21 item 4) in headless Chromium (Debian's, through
Playwright): ``/overlay?table=t1#token=...`` served by a running bridge whose clock the
tests move by hand, following ``WS /api/v1/broadcast/tables/t1/feed``.

Table t1 plays a four-handed hand to the turn: ana AsKs folds preflop; ben 7c2d, cleo QhQd
and dev JcTc see 2h 5c 9s Td; on the turn cleo bets 150, dev calls and ben is to act. Its
messages reach the bridge at 6000; the broadcast runs ``hole_card_delay_s`` (30 s) behind.
Every number the page draws is checked against ``GET /api/v1/broadcast/tables/t1`` at the
same moment, and the facts of the hand against the hand itself. Fails, saying so,
where Chromium, Playwright or uvicorn's WebSocket library is missing, as the dashboard's
browser tests are. The screenshot goes to docs/overlay.png only with PITBOSS_SCREENSHOTS=1.
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import re
import urllib.request
from collections.abc import Iterator
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from rich.console import Console

from controller.rules.cards import parse_cards
from controller.rules.config import Variant
from controller.rules.game import GameConfig
from controller.rules.hand import Hand
from host_bridge.app import create_app
from host_bridge.demo.broker import BrokerAddress
from host_bridge.demo.floor import DemoRun
from host_bridge.demo.options import DemoOptions
from host_bridge.deps import principal_for
from host_bridge.live import QUEUE_LIMIT
from host_bridge.settings import Role
from tests.bridge.conftest import TOKENS, ManualClock, make_settings
from tests.bridge.tablesim import FakeBroker, WireTable
from tests.bridge.test_dashboard import RunningBridge, browser, expect, need_websockets

__all__ = ["browser", "expect"]  # the dashboard tests' fixtures: Debian's Chromium, headless

DOCS_SCREENSHOT = Path(__file__).resolve().parents[2] / "docs" / "overlay.png"
DELAY = 30.0  # make_settings' hole_card_delay_s
ARRIVED = 6000.0  # when the hand's messages reach the bridge
SEATS = {1: "ana", 2: "ben", 3: "cleo", 4: "dev"}
HOLES = {"ana": ["As", "Ks"], "ben": ["7c", "2d"], "cleo": ["Qh", "Qd"], "dev": ["Jc", "Tc"]}
BOARD = ["2h", "5c", "9s", "Td"]
OUTS = {"ben": {"7d", "7h", "7s", "2c", "2s"}, "dev": {"Jd", "Jh", "Js", "Th", "Ts"}}
TRANSPARENT = "rgba(0, 0, 0, 0)"
SLOW_S = 20_000  # ms: an upper bound for a reconnect on a slow CI machine, not a budget


def turn_bet_hand() -> Hand:
    """Four-handed, blinds 5/10, positions 0-3 at seats 1-4 (position 0 the small blind),
    played to the turn with ben (position 1) to act on cleo's bet and dev's call."""
    hand = Hand(GameConfig(variant=Variant.NT, stacks=(1000, 1200, 1500, 800),
                           small_blind=5, big_blind=10))
    for position, name in enumerate(SEATS.values()):
        hand.deal_hole(position, parse_cards("".join(HOLES[name])))
    hand.bet_or_raise_to(30, 2)
    hand.call(3)
    hand.fold(0)
    hand.call(1)
    hand.deal_board(parse_cards("".join(BOARD[:3])))
    hand.check(1)
    hand.bet_or_raise_to(60, 2)
    hand.call(3)
    hand.call(1)
    hand.deal_board(parse_cards(BOARD[3]))
    hand.check(1)
    hand.bet_or_raise_to(150, 2)
    hand.call(3)
    return hand


class OverlayBridge(RunningBridge):
    """A bridge serving on a loopback port, on a clock the test moves, fed by table t1."""

    def __init__(self, tmp: Path) -> None:
        self.clock = ManualClock()
        super().__init__(create_app(make_settings(tmp), publisher=FakeBroker(),
                                    clock=self.clock))
        self.wire = WireTable()

    def seat_players(self) -> None:
        for seat, name in SEATS.items():
            self.send(self.wire.seat(seat, name, 2000))

    def play(self, at: float) -> None:
        """The hand's messages (events and hole cards) to ben's turn, arriving at ``at``."""
        self.clock.now = at
        messages = self.wire.hand(1, tuple(SEATS), turn_bet_hand(), with_config=True)
        for message in messages[:-1]:  # the last is a hand_ended: the hand goes on
            self.send(message)

    def rest_view(self) -> dict[str, Any]:
        """``GET /api/v1/broadcast/tables/t1`` now, as the broadcast role."""
        request = urllib.request.Request(f"{self.url}/api/v1/broadcast/tables/t1", headers={
            "Authorization": f"Bearer {TOKENS[Role.BROADCAST]}"})
        with urllib.request.urlopen(request, timeout=30) as response:
            body: dict[str, Any] = json.load(response)
        return body

    def fall_behind(self) -> None:
        """Fill every feed subscriber's queue on the server's loop, so the feed drops them
        as it drops one that fell 1,000 items behind: the overlay's socket is closed."""

        async def flood() -> None:
            for _ in range(QUEUE_LIMIT):
                self.bridge.feed.publish({"type": "noise", "table": "elsewhere"})

        asyncio.run_coroutine_threadsafe(flood(), self.loop).result(30)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[OverlayBridge]:
    need_websockets()
    with OverlayBridge(tmp_path) as running:
        yield running


def open_overlay(browser: Any, served: OverlayBridge, *, table: str = "t1",
                 role: Role | None = Role.BROADCAST) -> tuple[Any, list[str]]:
    """A 1920x1080 page at the overlay; the console errors it logs (a CSP refusal too)."""
    page = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    fragment = f"#token={TOKENS[role]}" if role is not None else ""
    page.goto(f"{served.url}/overlay?table={table}{fragment}")
    return page, errors


def pct(share: float) -> str:
    """A share as the page shows it: JavaScript's ``toFixed(1)`` of the percentage (which
    rounds a tie up, where Python's format rounds it to even)."""
    return f"{Decimal(share * 100).quantize(Decimal('0.1'), ROUND_HALF_UP)}%"


def cards_of(locator: Any) -> list[str]:
    found: list[str] = locator.evaluate_all("els => els.map(e => e.dataset.card)")
    return found


def test_the_overlay_draws_the_hand_only_after_the_delay_with_the_bridges_numbers(
        browser: Any, served: OverlayBridge, expect: Any, tmp_path: Path) -> None:
    served.seat_players()
    served.play(at=ARRIVED)
    served.clock.now = ARRIVED + DELAY - 1  # the hand is at the table, not on air yet
    page, errors = open_overlay(browser, served)
    status = page.locator("#o-status")
    expect(status).to_have_text("Waiting for a hand at table t1: the overlay runs 30 s "
                                "behind the table")
    assert page.locator(".o-card, [data-card], li.o-player").count() == 0
    assert not any(c in page.content() for cards in HOLES.values() for c in cards)
    # a browser source: nothing of the page hides the video under it
    assert page.evaluate("[document.documentElement, document.body].map("
                         "e => getComputedStyle(e).backgroundColor)") == [TRANSPARENT] * 2

    served.clock.now = ARRIVED + DELAY  # on air: the stream looks again by itself
    rows = page.locator("li.o-player")
    expect(rows).to_have_count(4)
    expect(page.locator("li.o-player .o-card.face")).to_have_count(8)
    expect(status).to_be_hidden()
    view = served.rest_view()
    hand = view["hand"]
    # the facts of the hand, as the bridge has them
    assert hand["board"] == BOARD and hand["street"] == "turn" and hand["to_act"] == 2
    assert hand["pot_total"] == 5 + 3 * 30 + 3 * 60 + 2 * 150
    seen = {p["player"]: p for p in hand["players"]}
    assert {n: p["cards"] for n, p in seen.items()} == HOLES
    assert seen["ana"]["folded"] and seen["ana"]["equity"] is None
    assert {n: set(seen[n]["equity"]["outs"]) for n in OUTS} == OUTS
    assert seen["cleo"]["equity"]["outs"] == []

    # ... and as the page draws them
    assert [r.get_attribute("data-player") for r in rows.all()] == list(SEATS.values())
    for name, player in seen.items():
        row = page.locator(f'li.o-player[data-player="{name}"]')
        assert cards_of(row.locator(".o-hole .o-card.face")) == player["cards"]
        expect(row.locator('[data-field="stack"]')).to_have_text(f"{player['stack']:,}")
        bet = row.locator('[data-field="bet"]')
        if player["bet"]:
            expect(bet).to_have_text(f"{player['bet']:,}")
        else:
            expect(bet).to_have_count(0)
        equity = player["equity"]
        if equity is None:
            expect(row.locator('[data-field="win"]')).to_have_count(0)
            continue
        expect(row.locator('[data-field="win"]')).to_have_text(pct(equity["win"]))
        expect(row.locator('[data-field="tie"]')).to_have_text(pct(equity["tie"]))
        assert sorted(cards_of(row.locator(".o-outs .o-out"))) == sorted(equity["outs"])
    assert (seen["cleo"]["bet"], seen["dev"]["bet"], seen["ben"]["bet"]) == (150, 150, 0)
    expect(page.locator("li.o-player.to-act")).to_have_attribute("data-player", "ben")
    expect(page.locator(".o-outs")).to_have_count(2)  # ben and dev are behind on the turn

    # the folded player: still drawn, cards and all, greyed out
    ana = page.locator('li.o-player[data-player="ana"]')
    expect(ana).to_have_class(re.compile(r"\bfolded\b"))
    expect(ana).to_contain_text("FOLD")
    greyed = "e => [getComputedStyle(e).filter, getComputedStyle(e.firstElementChild).opacity]"
    assert ana.evaluate(greyed) == ["grayscale(1)", "0.45"]
    for name in ("ben", "cleo", "dev"):
        assert page.locator(f'li.o-player[data-player="{name}"]').evaluate(greyed) == [
            "none", "1"]

    assert cards_of(page.locator("#o-board .o-card.face")) == BOARD
    expect(page.locator("#o-board .o-slot")).to_have_count(1)  # the river to come
    expect(page.locator('#o-pot [data-field="pot"]')).to_have_text(f"{hand['pot_total']:,}")
    expect(page.locator("#o-street")).to_have_text("Turn")
    expect(page.locator("#o-info")).to_contain_text("Hand #1")
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == TRANSPARENT

    shot = (DOCS_SCREENSHOT if os.environ.get("PITBOSS_SCREENSHOTS") == "1"
            else tmp_path / "overlay.png")
    page.screenshot(path=str(shot), omit_background=True)  # as a browser source gets it
    assert shot.stat().st_size > 20_000  # a picture of the hand, not an empty page
    assert errors == []  # nothing refused by the page's content security policy
    page.context.close()


def test_another_roles_token_is_refused_with_no_card_then_the_sign_in_form_works(
        browser: Any, served: OverlayBridge, expect: Any) -> None:
    served.seat_players()
    served.play(at=ARRIVED)
    served.clock.now = ARRIVED + 10 * DELAY  # long on air
    page, _errors = open_overlay(browser, served, role=Role.VIEWER)
    status = page.locator("#o-status")
    expect(status).to_contain_text("Refused: role 'viewer' may not see the broadcast view")
    expect(status).to_contain_text("needs a token with the broadcast role")
    expect(page.locator("#o-sign-in")).to_be_visible()
    assert page.locator(".o-card, [data-card], li.o-player").count() == 0
    assert not any(c in page.content() for cards in HOLES.values() for c in cards)

    page.get_by_label("Broadcast token").fill(TOKENS[Role.BROADCAST])
    page.get_by_role("button", name="Show the overlay").click()
    expect(page.locator("li.o-player .o-card.face")).to_have_count(8)
    expect(page.locator("#o-sign-in")).to_be_hidden()
    page.context.close()


def test_without_a_token_the_page_asks_for_one_and_draws_nothing(
        browser: Any, served: OverlayBridge, expect: Any) -> None:
    served.seat_players()
    served.play(at=ARRIVED)
    served.clock.now = ARRIVED + DELAY
    page, _errors = open_overlay(browser, served, role=None)
    expect(page.locator("#o-sign-in")).to_be_visible()
    expect(page.locator("#o-status")).to_have_text(
        "Sign in with a broadcast token to show the overlay.")
    assert page.locator(".o-card").count() == 0
    page.get_by_label("Broadcast token").fill("not-a-token-of-this-bridge")
    page.get_by_role("button", name="Show the overlay").click()
    expect(page.locator("#o-status")).to_contain_text(
        "The bridge does not recognise this token")
    expect(page.locator("#o-sign-in")).to_be_visible()
    assert page.locator(".o-card").count() == 0
    page.context.close()


def test_an_unknown_table_is_said_and_tried_again_until_it_reports(
        browser: Any, served: OverlayBridge, expect: Any) -> None:
    page, _errors = open_overlay(browser, served)
    status = page.locator("#o-status")
    expect(status).to_contain_text("Unknown table t1: no table 't1' has reported to this "
                                   "bridge. Trying again in")
    served.seat_players()  # the table reports: a later try gets in
    expect(status).to_have_text("Waiting for a hand at table t1: the overlay runs 30 s "
                                "behind the table", timeout=SLOW_S)
    page.context.close()


def test_a_dropped_socket_is_said_and_reconnected(browser: Any, served: OverlayBridge,
                                                  expect: Any) -> None:
    served.seat_players()
    served.play(at=ARRIVED)
    served.clock.now = ARRIVED + DELAY
    page, _errors = open_overlay(browser, served)
    status = page.locator("#o-status")
    expect(page.locator("li.o-player .o-card.face")).to_have_count(8)
    served.fall_behind()  # the bridge closes the stream (1013, fell behind)
    expect(status).to_have_text("Connection to the bridge lost (fell behind; reconnect); "
                                "reconnecting in 1 s.")
    expect(page.locator("li.o-player .o-card.face")).to_have_count(8)  # kept meanwhile
    expect(status).to_be_hidden(timeout=SLOW_S)  # a view came on a new socket
    assert served.bridge.feed.subscribers == 1
    page.context.close()


def test_the_demos_overlay_address_signs_in_as_the_broadcast_role(tmp_path: Path) -> None:
    """``pitboss demo`` prints ``overlay: .../overlay?table=T1#token=...``: its token is
    one the demo's bridge grants the broadcast role (another role would be refused)."""
    run = DemoRun(DemoOptions(tables=3, players=12), console=Console(file=io.StringIO()))
    run.base = "http://127.0.0.1:8123"
    address = urlsplit(run.overlay())
    assert (address.path, address.query) == ("/overlay", "table=T1")
    token = parse_qs(address.fragment)["token"][0]
    settings = run.settings(tmp_path, BrokerAddress("127.0.0.1", 1883, "given"), 8123)
    assert principal_for(settings, token).role is Role.BROADCAST
    assert principal_for(settings, run.viewer_token).role is Role.VIEWER
