"""The floor page shows what the live feed tells it without reading the table again (issue
20, point 5: an update on screen p99 < 150 ms with 200 tables), in headless Chromium: a
stack correction, a player seated and a pause reach the card from the feed while every
read of that table over REST is held unanswered; the reads the page still makes to check
its cards against the store (after the feed's "stored" items) are coalesced, a burst of
them being one or two reads, not one each; and a read answered late, older than what the
feed has shown since, does not roll the card back (the page folds the newer changes on
top of it, by seq).

The floor is ``test_dashboard.py``'s virtual one (t1 six players, t2 four, t3 offline,
t4 five), on a bridge of this module's own. Same skips as ``test_dashboard.py``.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import pytest

from controller.events import (
    HandEnded,
    HandStarted,
    Paused,
    PlayerSeated,
    SeatAdjustment,
    StackAdjusted,
)
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

WAIT_S = 30.0  # an upper bound for a busy machine, not a budget
BURST = 20  # "stored" items for one table in a burst


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[VirtualBridge]:
    need_websockets()
    with VirtualBridge(tmp_path_factory.mktemp("floor-feed")) as running:
        yield running


def stack_of(page: Any, table: str, seat: int) -> Any:
    return card(page, table).locator(f'li.seat[data-seat="{seat}"] .stack')


def correction(seat: int, before: int, after: int) -> StackAdjusted:
    return StackAdjusted(reason="correction", seats=(SeatAdjustment(seat=seat, before=before,
                                                                    after=after),))


def reads_of(page: Any, table: str) -> list[str]:
    """Every read of ``table`` over REST the page asks for from now on (its URLs)."""
    asked: list[str] = []
    url = re.compile(rf"/api/v1/tables/{table}$")
    page.on("request", lambda r: asked.append(r.url) if url.search(r.url) else None)
    return asked


def live(page: Any) -> None:
    """The feed is live and its hello's read of the floor is answered and shown."""
    page.locator("#link[data-kind=live]").wait_for()
    page.wait_for_timeout(700)  # past the hello's reads and any reconciliation they ask


def until(page: Any, done: Any, what: str) -> None:
    """Let the page run until ``done()`` (the route handlers run meanwhile)."""
    deadline = time.monotonic() + WAIT_S
    while not done():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        page.wait_for_timeout(25)


def test_a_stack_correction_a_seating_and_a_pause_show_from_the_feed_with_no_read(
        browser: Any, served: VirtualBridge, expect: Any) -> None:
    page = signed_in(browser, served, Role.FLOOR)
    live(page)
    held: list[Any] = []
    answered: list[str] = []
    t1 = re.compile(r"/api/v1/tables/t1$")

    def hold(route: Any) -> None:  # never answered while it is routed
        held.append(route)

    page.route(t1, hold)
    page.on("requestfinished", lambda r: answered.append(r.url)
            if r.url.endswith("/api/v1/tables/t1") else None)
    wire = served.floor.wires["t1"]
    served.report(wire, correction(2, 11_000, 123_456))
    expect(stack_of(page, "t1", 2)).to_have_text("123,456")
    served.report(wire, PlayerSeated(seat=7, player="kim-t1", stack=7_000), Paused())
    expect(card(page, "t1").locator("li.seat")).to_have_count(7)
    expect(stack_of(page, "t1", 7)).to_have_text("7,000")
    expect(card(page, "t1").locator(".badge.paused")).to_have_text("PAUSED")
    assert answered == [], answered  # every read of t1 is still held: the feed did it
    # the store is the truth: once the held reads go through, the card is the same
    page.unroute(t1, hold)
    for route in held:
        route.continue_()
    page.wait_for_timeout(500)
    expect(stack_of(page, "t1", 2)).to_have_text("123,456")
    expect(card(page, "t1").locator("li.seat")).to_have_count(7)
    page.context.close()


def test_a_burst_of_stored_items_is_one_or_two_reads_of_the_table(
        browser: Any, served: VirtualBridge, expect: Any) -> None:
    page = signed_in(browser, served, Role.FLOOR)
    live(page)
    asked = reads_of(page, "t2")
    wire = served.floor.wires["t2"]
    stack = 11_000  # seat 1 of t2: 10,000 + 500 a seat
    for n in range(BURST):  # each event its own batch: a "stored" item each
        served.report(wire, correction(1, stack, stack := 200_000 + n))
        time.sleep(0.02)
    expect(stack_of(page, "t2", 1)).to_have_text(f"{stack:,}")
    page.wait_for_timeout(2_500)  # past the longest wait of a read after "stored"
    assert 1 <= len(asked) <= 2, asked
    expect(stack_of(page, "t2", 1)).to_have_text(f"{stack:,}")
    page.context.close()


def test_a_read_answered_late_does_not_roll_a_newer_stack_back(
        browser: Any, served: VirtualBridge, expect: Any) -> None:
    page = signed_in(browser, served, Role.FLOOR)
    live(page)
    # every text seat 1's stack at t4 shows, in order (each DOM change, before its paint)
    page.evaluate("""() => {
      const shown = window.__shown = [];
      const now = () => { const el = document.querySelector(
        'li.table-card[data-table="t4"] li.seat[data-seat="1"] .stack');
        const text = el ? el.textContent : null;
        if (shown[shown.length - 1] !== text) shown.push(text); };
      now();
      new MutationObserver(now).observe(document.getElementById("grid"),
        { subtree: true, childList: true, characterData: true });
    }""")
    late: list[tuple[Any, Any]] = []  # (route, its answer as the store had it then)
    holding = [True]

    def hold(route: Any) -> None:
        if holding[0]:
            late.append((route, route.fetch()))
        else:
            route.continue_()

    page.route(re.compile(r"/api/v1/tables/t4$"), hold)
    finished: list[str] = []
    page.on("requestfinished", lambda r: finished.append(r.url)
            if r.url.endswith("/api/v1/tables/t4") else None)
    wire = served.floor.wires["t4"]
    served.report(wire, correction(1, 10_500, 111_111))
    expect(stack_of(page, "t4", 1)).to_have_text("111,111")  # from the feed
    until(page, lambda: late, "the page's read of t4 after its stored item")
    holding[0] = False
    served.report(wire, correction(1, 111_111, 222_222))  # newer than the held answer
    expect(stack_of(page, "t4", 1)).to_have_text("222,222")
    route, answer = late[0]
    assert answer.json()["seats"][0]["stack"] == 111_111  # the read is older than the card
    route.fulfill(response=answer)
    until(page, lambda: len(finished) >= 2, "the held read and the one asked after it")
    page.wait_for_timeout(200)  # a frame or more after the last answer
    expect(stack_of(page, "t4", 1)).to_have_text("222,222")
    shown = page.evaluate("() => window.__shown")
    assert shown[-1] == "222,222" and "111,111" not in shown[shown.index("222,222"):], shown
    page.context.close()


def test_the_page_reads_the_table_when_it_cannot_fold_a_hands_end(
        browser: Any, served: VirtualBridge, expect: Any) -> None:
    """A hand's end whose seats the page cannot tell (it did not see the hand start, and
    the table sent no state with the hand in it): the store's stacks, from a read."""
    wire = served.floor.wires["t3"]  # six players, 10,500 to 13,000
    served.send(wire.event(HandStarted(hand_no=1, seats=(1, 2), stacks=(10_500, 11_000))))
    page = signed_in(browser, served, Role.FLOOR)
    live(page)
    asked = reads_of(page, "t3")
    served.send(wire.event(HandEnded(hand_no=1, stacks=(10_000, 11_500))))
    expect(stack_of(page, "t3", 1)).to_have_text("10,000")
    expect(stack_of(page, "t3", 2)).to_have_text("11,500")
    assert asked, "the card changed with no read"
    page.context.close()
