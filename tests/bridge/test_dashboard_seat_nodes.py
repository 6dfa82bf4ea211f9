"""The floor's table card shows a seat node that stopped answering, in headless Chromium:
the table's ``irregularity`` ``seat_node_offline`` puts a badge on the card at once (from
the live feed), a page opened afterwards shows it too (the table's retained state,
``seat_nodes_offline``), and ``seat_node_back`` takes it off. Same bridge, browser and
skips as ``test_dashboard.py``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.events import Irregularity, SeatNodeBack
from host_bridge.settings import Role
from tests.bridge.test_dashboard import (
    VirtualBridge,
    browser,
    card,
    expect,
    need_websockets,
    signed_in,
)

__all__ = ["browser", "expect"]  # the fixtures, shared with test_dashboard.py


@pytest.fixture
def served(tmp_path: Path) -> Iterator[VirtualBridge]:
    need_websockets()
    with VirtualBridge(tmp_path) as running:
        yield running


def lost(seat: int) -> Irregularity:
    """What the table journals when seat ``seat``'s node stops answering."""
    return Irregularity(hand_no=0, what="seat_node_offline", seat=seat, choices=("continue",),
                        reason=f"seat {seat}'s node is not answering: its cards are not read "
                        "and its lights are dark; check its cable, or carry on and key its "
                        "cards in")


def test_a_seat_node_offline_is_a_badge_on_the_table_card_until_it_is_back(
        browser: Any, served: VirtualBridge, expect: Any) -> None:
    page = signed_in(browser, served, Role.VIEWER)
    t1 = card(page, "t1")
    expect(t1.locator(".badge.node-offline")).to_have_count(0)
    wire = served.floor.wires["t1"]
    served.report(wire, lost(3))
    expect(t1.locator(".badge.node-offline")).to_have_text("SEAT 3 NODE OFFLINE")
    expect(card(page, "t2").locator(".badge.node-offline")).to_have_count(0)

    later = signed_in(browser, served, Role.VIEWER)  # a page opened now: from the store
    expect(card(later, "t1").locator(".badge.node-offline")).to_have_text(
        "SEAT 3 NODE OFFLINE")

    served.report(wire, lost(8))
    expect(t1.locator(".badge.node-offline")).to_have_text(
        ["SEAT 3 NODE OFFLINE", "SEAT 8 NODE OFFLINE"])
    served.report(wire, SeatNodeBack(hand_no=0, seat=3))
    expect(t1.locator(".badge.node-offline")).to_have_text(["SEAT 8 NODE OFFLINE"])
    expect(card(later, "t1").locator(".badge.node-offline")).to_have_text(
        ["SEAT 8 NODE OFFLINE"])
    served.report(wire, SeatNodeBack(hand_no=0, seat=8))
    expect(t1.locator(".badge.node-offline")).to_have_count(0)
    page.context.close()
    later.context.close()
