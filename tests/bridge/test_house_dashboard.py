"""The house on the floor page, in headless Chromium (issue 18): each table's card shows
the label of the house it plays (from its journal's ``house_set``), and the table view's
House control sends the chosen shipped house as ``set_house`` after a confirmation; the
virtual table takes it (its ``house_set``, then the reply) and the card follows, or
refuses it during a hand (LEVEL-1) and the page shows why. Same bridge, browser and skips
as ``test_dashboard.py``."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.clocks.house import load_house, parse_house
from controller.events import HouseSet, HouseView
from controller.sync.messages import CommandMessage, ReplyMessage
from controller.sync.topics import Topics
from host_bridge.app import create_app
from host_bridge.settings import DEFAULT_HOUSES_DIR, Role
from tests.bridge.conftest import make_settings
from tests.bridge.tablesim import SITE, WireTable
from tests.bridge.test_dashboard import (
    DOCS_SCREENSHOT,
    FLOOR,
    PLAYERS,
    RunningBridge,
    VirtualFloor,
    browser,
    card,
    expect,
    need_websockets,
    signed_in,
)
from tests.bridge.test_rake_ledger import DAY, raked_hand

__all__ = ["browser", "expect"]  # the fixtures, shared with test_dashboard.py

BUSY = "t2"  # this table is in a hand: it refuses a house change (LEVEL-1)
NOON = DAY.replace(hour=12).timestamp()  # the bridge's clock: its rake ledger's today
DOCS_HOUSE_SCREENSHOT = DOCS_SCREENSHOT.with_name("dashboard_house.png")


def house_set(text: str) -> HouseSet:
    """The house_set a table journals when it takes the house file ``text``."""
    house = parse_house(text)
    view = HouseView.model_validate({"name": house.name, "game": house.variant.value,
                                     "kind": house.kind, "unit": house.unit,
                                     "label": house.label})
    return HouseSet(hand_no=0, house=view, text=text)


class HouseFloor(VirtualFloor):
    """The virtual floor, whose tables also answer ``set_house``: the busy table refuses it
    (LEVEL-1), the others journal the house (``house_set``) and reply ``ok``."""

    async def publish(self, topic: str, payload: bytes, qos: int, retain: bool) -> None:
        """A set_house is answered here; every other command as the virtual floor does."""
        if not topic.endswith("/cmd") or self.deliver is None:
            return
        message = CommandMessage.model_validate_json(payload)
        if message.command.name != "set_house":
            await super().publish(topic, payload, qos, retain)
            return
        self.commands.append(message)
        out: list[tuple[str, bytes]] = []
        if message.table == BUSY:
            reply = ReplyMessage(table=BUSY, boot="boot-1", seq=0, ts=0.0,
                                 command_id=message.command_id, status="error",
                                 error="hand 3 is in play: the house changes only between "
                                 "hands (LEVEL-1)")
        else:
            wire = self.wires[message.table]
            text = message.command.model_dump()["text"]
            out.append(WireTable.event(wire, house_set(text)))  # the journal, not the fold
            reply = ReplyMessage(table=message.table, boot="boot-1", seq=0, ts=0.0,
                                 command_id=message.command_id, status="ok",
                                 data={"change": "house_set"})
        out.append((Topics(SITE, message.table).reply, reply.to_wire()))
        deliver = self.deliver

        def later(item: tuple[str, bytes]) -> None:  # after this publish, as a broker would
            task = asyncio.ensure_future(deliver(*item))
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)

        for item in out:
            asyncio.get_running_loop().call_soon(later, item)


class HouseBridge(RunningBridge):
    """A running bridge whose tables are a :class:`HouseFloor`; t1 plays the casino's
    NLHE house from the start, the others have named none."""

    def __init__(self, tmp: Path) -> None:
        self.floor = HouseFloor()
        super().__init__(create_app(make_settings(tmp, command_timeout_s=5.0),
                                    publisher=self.floor, clock=lambda: NOON))
        self.floor.deliver = self.bridge.receive
        casino = (DEFAULT_HOUSES_DIR / "casino-nlhe.toml").read_text(encoding="utf-8")
        for table, (players, _online) in FLOOR.items():
            wire = self.floor.wires[table]
            self.bridge.ingest.take(*wire.status(True))
            if table == "t1":
                self.bridge.ingest.take(*WireTable.event(wire, house_set(casino)))
            for seat in range(1, players + 1):
                self.bridge.ingest.take(*wire.seat(seat, f"{PLAYERS[seat - 1]}-{table}",
                                                   10_000 + 500 * seat))
            self.bridge.ingest.take(*wire.reported())


@pytest.fixture
def served(tmp_path: Path) -> Iterator[HouseBridge]:
    need_websockets()
    with HouseBridge(tmp_path) as running:
        yield running


def test_the_floor_sees_each_house_and_changes_one_from_the_table_view(
        browser: Any, served: HouseBridge, expect: Any, tmp_path: Path) -> None:
    casino = load_house(DEFAULT_HOUSES_DIR / "casino-nlhe.toml")
    plo = load_house(DEFAULT_HOUSES_DIR / "casino-plo.toml")
    page = signed_in(browser, served, Role.FLOOR)
    t1, t2 = card(page, "t1"), card(page, "t2")
    expect(t1.locator(".house")).to_have_text(casino.label)
    expect(t2.locator(".house")).to_have_text("No house named")
    expect(page.locator("#rake")).to_contain_text("No hand has ended today.")

    # t1 takes the casino's PLO: chosen, confirmed, sent, journaled, shown
    t1.get_by_role("button", name="Table t1").click()
    detail = page.locator("#detail")
    expect(detail.locator(".house")).to_have_text(casino.label)
    detail.locator("#house-choice").select_option("casino-plo")
    detail.get_by_role("button", name="Change house…").click()  # asks before it sends
    confirm = detail.get_by_role("button", name=f"Yes, play {plo.name} at table t1")
    expect(confirm).to_be_visible()
    assert [c.command.name for c in served.floor.commands] == []
    confirm.click()
    expect(detail.get_by_role("log")).to_contain_text(
        f"Table t1 plays {plo.name} from the next hand — {plo.label}")
    expect(t1.locator(".house")).to_have_text(plo.label)
    [sent] = served.floor.commands
    assert (sent.table, sent.command.model_dump()) == ("t1", {"name": "set_house",
                                                             "text": plo.text})

    # t2 is in a hand: the table refuses, the page says why, the card stays as it was
    t2.get_by_role("button", name="Table t2").click()
    detail.locator("#house-choice").select_option("casino-plo")
    detail.get_by_role("button", name="Change house…").click()
    detail.get_by_role("button", name=f"Yes, play {plo.name} at table t2").click()
    expect(detail.locator("#house-error")).to_contain_text(
        f"table 't2' refused the house '{plo.name}': hand 3 is in play")
    expect(detail.locator("#house-error")).to_contain_text("(LEVEL-1)")
    expect(t2.locator(".house")).to_have_text("No house named")
    assert [(c.table, c.command.name) for c in served.floor.commands] == [
        ("t1", "set_house"), ("t2", "set_house")]

    # a raked hand ends at t3 (no house named): today's rake follows
    wire = served.floor.wires["t3"]
    wire.ts = NOON
    for message in WireTable.hand(wire, 1, (1, 2, 3), raked_hand()):
        served.send(message)
    row = page.locator('#rake tbody tr[data-table="t3"]')
    expect(row.locator("td")).to_have_text(["1", "1", "20 unit"])
    expect(page.locator("#rake tfoot")).to_contain_text("20 unit")
    shot = (DOCS_HOUSE_SCREENSHOT if os.environ.get("PITBOSS_SCREENSHOTS") == "1"
            else tmp_path / "dashboard_house.png")
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000
    page.context.close()
