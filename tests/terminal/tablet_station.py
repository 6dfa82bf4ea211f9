"""A table with its dealer's tablet served on a loopback port, and Debian's Chromium on
the page, all on one event loop: the table, the journal, uvicorn and Playwright's async
driver take turns, so a card placed at a mock reader and a tap on the page never race
inside the table.

Setting the table up (seats, the deck, the levels, the variant, the chips) is Python, as
the floor and the build do it; every action of a hand goes through the page or a card
placement at the mock readers (:attr:`TabletStation.dealer`). Nothing waits by sleeping:
a step waits for what the page shows (:meth:`TabletPage.settled`: no tap on its way and
the page drawing the table's current screen).
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from controller.app import open_desk
from controller.devices.mock import MockTable
from controller.devices.profile import load_profile
from controller.events import PublicState
from controller.sync.journal import Journal
from controller.sync.outbox import Outbox
from controller.table.table import Table
from controller.terminal.desk import Desk
from controller.terminal.screen import Screen
from controller.terminal.tablet import serve_tablet, tablet_token
from tests.needs import missing, need_module
from tests.table.conftest import DECKMAP, Dealer

from .rig import Recording

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
WAIT_MS = 20_000  # an upper bound for a slow CI machine, not a budget
E = TypeVar("E")


@dataclass
class TabletStation:
    """One journaled table on the virtual profile, its desk, and the tablet serving it."""

    table: Table
    hw: MockTable
    desk: Desk
    sink: Recording
    dealer: Dealer
    url: str
    token: str
    token_file: Path

    @property
    def state(self) -> PublicState:
        return self.sink.outbox.state

    def screen(self) -> Screen:
        return self.desk.screen()

    def of(self, kind: type[E]) -> list[E]:
        return [e for e in self.sink.events if isinstance(e, kind)]

    def last(self, kind: type[E]) -> E:
        found = self.of(kind)
        assert found, f"no {kind.__name__} among {[type(e).__name__ for e in self.sink.events]}"
        return found[-1]

    def stacks(self) -> dict[int, int]:
        """Each seat's stack as the journal's public state has it."""
        return {s.seat: s.stack for s in self.screen().seats}


@dataclass
class JournaledTable:
    """A table on the virtual profile's mock hardware, journaled, with its desk."""

    table: Table
    hw: MockTable
    desk: Desk
    sink: Recording
    dealer: Dealer


@contextlib.asynccontextmanager
async def journaled_table(tmp_path: Path, seats: dict[int, int], *, button: int | None = None,
                          names: dict[int, str] | None = None, **table: Any
                          ) -> AsyncIterator[JournaledTable]:
    """A table with ``seats`` (seat: stack; players ``p<seat>`` unless ``names`` says) on
    the known test deck, journaled as on the Pi. ``button``: where the button starts (set
    up in Python; None: the dealer places it)."""
    journal = Journal(tmp_path / "table.db", table="T1")
    try:
        async with Outbox(journal) as outbox:
            hw = MockTable(load_profile("virtual"))
            try:
                sink = Recording(outbox)
                t = Table(hw, sink=sink, deck=table.pop("deck", DECKMAP), **table)
                for seat, stack in seats.items():
                    assert t.take_seat(seat, (names or {}).get(seat, f"p{seat}"), stack)
                if button is not None:
                    assert t.set_button(button)
                yield JournaledTable(t, hw, open_desk(t, sink), sink, Dealer(t, hw))
            finally:
                hw.close()
    finally:
        journal.close()


@contextlib.asynccontextmanager
async def tablet_station(tmp_path: Path, seats: dict[int, int], **table: Any
                         ) -> AsyncIterator[TabletStation]:
    """:func:`journaled_table` with its tablet served by :func:`serve_tablet` on a free
    loopback port, the token made in ``tmp_path/tablet.token``."""
    async with journaled_table(tmp_path, seats, **table) as rig:
        token_file = tmp_path / "tablet.token"
        token = tablet_token(token_file)
        port: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        server = asyncio.create_task(serve_tablet(rig.desk, host="127.0.0.1", port=0,
                                                  token=token, ready=port.set_result),
                                     name="tablet")
        try:
            either: set[asyncio.Future[Any]] = {server, port}
            await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
            if server.done():
                server.result()  # it failed to start: say why
            yield TabletStation(rig.table, rig.hw, rig.desk, rig.sink, rig.dealer,
                                f"http://127.0.0.1:{port.result()}", token, token_file)
        finally:
            server.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await server


class TabletPage:
    """The tablet page in Chromium, signed in, with the steps a dealer takes on it."""

    def __init__(self, page: Any, station: TabletStation, expect: Any) -> None:
        self.page = page
        self.station = station
        self.expect = expect

    async def settled(self) -> None:
        """No tap is on its way and the page draws the table's screen as it is now."""
        await self.page.wait_for_function("() => !document.body.classList.contains('busy')",
                                          timeout=WAIT_MS)
        await self.expect(self.page.locator("body")).to_have_attribute(
            "data-turn", self.station.screen().turn, timeout=WAIT_MS)

    async def tap(self, verb: str) -> None:
        """Tap the button of ``verb`` (only drawn when the table offers it), and wait for
        the table's answer on the page."""
        button = self.page.locator(f'.actions [data-verb="{verb}"], .tools [data-verb="{verb}"], '
                                   f'.tray [data-verb="{verb}"]')
        await button.click(timeout=WAIT_MS)
        await self.settled()

    async def push(self, *chips: int) -> None:
        """Tap each chip pushed in one motion on the chip tray, then Push."""
        for chip in chips:
            await self.page.locator(f'.chip[data-chip="{chip}"]').click(timeout=WAIT_MS)
        await self.tap("chips")

    async def key(self, text: str) -> None:
        """Key ``text`` on the number pad (digits, ``.``, ``00``, ``back``, ``clear``)."""
        for k in (["00"] if text == "00" else [text] if text in ("back", "clear")
                  else list(text)):
            await self.page.locator(f'[data-key="{k}"]').click(timeout=WAIT_MS)

    async def bet(self, amount: str) -> None:
        """Clear the entry, key ``amount`` and tap the bet button."""
        await self.key("clear")
        await self.key(amount)
        await self.tap("bet")

    async def seat(self, number: int) -> None:
        """Tap a seat (it is selected for the next seat's command)."""
        await self.page.locator(f'.seat[data-seat="{number}"]').click(timeout=WAIT_MS)

    async def choose(self, option: str) -> None:
        await self.page.locator(f'#prompt-choices [data-option="{option}"]').click(
            timeout=WAIT_MS)
        await self.settled()

    async def placed(self, reader: str, card: str) -> None:
        """A card placed at a mock reader, then the page showing what it changed."""
        self.station.dealer.place(reader, card)
        await self.settled()

    async def deal(self, hands: dict[int, str]) -> None:
        self.station.dealer.deal(hands)
        await self.settled()

    async def street(self, burn: str, cards: str) -> None:
        self.station.dealer.street(burn, cards)
        await self.settled()

    def locator(self, selector: str) -> Any:
        return self.page.locator(selector)

    def seat_box(self, number: int) -> Any:
        return self.page.locator(f'.seat[data-seat="{number}"]')

    async def shows(self, selector: str, text: str) -> None:
        await self.expect(self.page.locator(selector)).to_have_text(text, timeout=WAIT_MS)

    async def stack_is(self, seat: int, text: str) -> None:
        await self.shows(f'.seat[data-seat="{seat}"] .seat-stack', text)

    async def bet_is(self, seat: int, text: str) -> None:
        await self.shows(f'.bet[data-seat="{seat}"] .bet-amount', text)

    async def said(self, text: str, rule: str | None = None) -> None:
        """The message line shows ``text`` (and the rule id pill, or none)."""
        await self.expect(self.page.locator("#message-text")).to_contain_text(
            text, ignore_case=True, timeout=WAIT_MS)
        pill = self.page.locator("#message-rule")
        if rule is None:
            await self.expect(pill).to_be_hidden(timeout=WAIT_MS)
        else:
            await self.expect(pill).to_have_text(rule, timeout=WAIT_MS)

    async def buttons(self) -> list[str]:
        """The verbs of the action and tool buttons drawn now."""
        found: list[str] = await self.page.eval_on_selector_all(
            ".actions [data-verb], .tools [data-verb]",
            "nodes => nodes.filter(n => !n.hidden).map(n => n.dataset.verb)")
        return found


def need_chromium() -> Any:
    """Playwright's async API, or :func:`missing` when the browser or package is absent."""
    if not CHROMIUM.exists() or shutil.which(str(CHROMIUM)) is None:
        missing("no /usr/bin/chromium: apt-get install chromium")
    return need_module("playwright.async_api", "the playwright package is not installed")


async def sign_in(page: Any, station: TabletStation, expect: Any) -> None:
    """The dealer's way in: the sign-in form with the table's token, then the page live."""
    await page.goto(f"{station.url}/")
    await page.get_by_label("Table token").fill(station.token)
    await page.get_by_role("button", name="Sign in").click()
    await expect(page.locator("#link")).to_have_attribute("data-state", "live",
                                                          timeout=WAIT_MS)


def on_tablet(tmp_path: Path, seats: dict[int, int],
              scenario: Callable[[TabletPage], Awaitable[None]], *,
              viewport: tuple[int, int] = (1280, 800), sign: bool = True,
              **table: Any) -> None:
    """Run ``scenario`` on a signed-in tablet page of a fresh station (one event loop)."""
    api = need_chromium()
    api.expect.set_options(timeout=WAIT_MS)

    async def main() -> None:
        async with tablet_station(tmp_path, seats, **table) as station, \
                api.async_playwright() as driver:
            browser = await driver.chromium.launch(executable_path=str(CHROMIUM),
                                                   args=CHROMIUM_ARGS)
            try:
                context = await browser.new_context(viewport={"width": viewport[0],
                                                              "height": viewport[1]})
                page = await context.new_page()
                if sign:
                    await sign_in(page, station, api.expect)
                    tablet = TabletPage(page, station, api.expect)
                    await tablet.settled()
                else:
                    tablet = TabletPage(page, station, api.expect)
                await scenario(tablet)
            finally:
                await browser.close()

    asyncio.run(main())
