"""The live rules and the dealer's repairs on the tablet in Chromium: chips pushed in one
motion (the 50% rule, LIVE-7; an oversized chip, LIVE-8), a misdeal (LIVE-25), an undo
and a correction, and bad input refused with its rule id and nothing changed (a bet below
the minimum, a key out of turn, an amount over the stack, a tap on a stale screen), and
the sign-in form refusing a wrong token. Every action is a tap on the page or a card at a
mock reader (tablet_station.py).

Fails without ``/usr/bin/chromium`` or the ``playwright`` package, saying so (tests/needs.py).
"""

from __future__ import annotations

from pathlib import Path

from controller.events import (
    ActionAccepted,
    ActionCorrected,
    ActionsUndone,
    MisdealDeclared,
)
from controller.table.lights import Level

from .tablet_station import WAIT_MS, TabletPage, need_chromium, on_tablet

SEATS = {1: 10_000, 2: 10_000, 3: 10_000}
LEVELS = (Level(50, 100),)
HANDS = {1: "AsKs", 2: "QdQc", 3: "7h2c"}  # button on seat 3: it acts first preflop


async def deal(t: TabletPage) -> None:
    await t.tap("deal")
    await t.deal(HANDS)
    await t.shows("#turn-who", "Seat 3 · p3 to act")


def state_of(t: TabletPage) -> tuple[object, ...]:
    """What a refused tap must leave as it was: the public state (stacks, bets, the
    hand's log, whose turn) and the table's stage and prompts."""
    return (t.station.state.model_dump_json(), t.station.table.stage,
            len(t.station.table.prompts))


def test_live_7_chips_beyond_half_a_raise_are_a_full_raise_on_the_tablet(
        tmp_path: Path) -> None:
    async def half(t: TabletPage) -> None:
        await deal(t)
        await t.bet("1000")
        await t.shows("#turn-who", "Seat 1 · p1 to act")
        await t.shows('.chip[data-chip="500"] .chip-value', "500")
        for _ in range(3):
            await t.locator('.chip[data-chip="500"]').click()
        await t.shows("#push-sum", "500 + 500 + 500 = 1,500")
        await t.shows('[data-verb="chips"]', "Push 1,500")
        # one motion, 950 to call: 550 beyond it is at least half the last raise of 900
        # (LIVE-9: without one 500 chip, 1,000 still covers the call: not a call)
        await t.tap("chips")
        await t.shows("#prompt-rule", "LIVE-7")
        await t.expect(t.locator("#prompt-text")).to_contain_text("full raise to 1900")
        await t.expect(t.locator("#entry-box")).to_be_hidden()  # the prompt comes first
        options = await t.locator("#prompt-choices [data-option]").evaluate_all(
            "nodes => nodes.map(n => n.dataset.option)")
        assert options == ["raise_to_1900", "fold"]  # cash: folding is allowed (002)
        await t.choose("raise_to_1900")
        await t.bet_is(1, "1,900")
        await t.stack_is(1, "8,100")
        await t.shows("#turn-who", "Seat 2 · p2 to act")
        raised = t.station.last(ActionAccepted)
        assert (raised.action, raised.amount) == ("bet_raise", 1900)

    on_tablet(tmp_path, SEATS, half, button=3, levels=LEVELS)


def test_live_8_one_oversized_chip_facing_a_bet_is_a_call_on_the_tablet(
        tmp_path: Path) -> None:
    async def oversized(t: TabletPage) -> None:
        await deal(t)
        await t.bet("1000")
        await t.push(5000)  # one 5,000 chip, nothing said
        await t.bet_is(1, "1,000")
        await t.stack_is(1, "9,000")
        await t.said("Chips")
        called = t.station.last(ActionAccepted)
        assert (called.action, called.amount, called.rule) == ("call", 950, "LIVE-8")

    on_tablet(tmp_path, SEATS, oversized, button=3, levels=LEVELS)


def test_live_25_misdeal_then_deal_6_undo_on_the_tablet(tmp_path: Path) -> None:
    async def repairs(t: TabletPage) -> None:
        await t.tap("deal")
        await t.placed("seat1", "As")
        assert set(await t.buttons()) >= {"misdeal", "undo"}
        await t.tap("misdeal")  # LIVE-25: during the deal
        await t.shows("#street", "Between hands")
        for seat in SEATS:
            await t.stack_is(seat, "10,000")  # the blinds go back
        assert t.station.last(MisdealDeclared).stacks == (10_000, 10_000, 10_000)
        t.station.dealer.gather()  # the cards back to the shuffle
        await t.settled()
        await deal(t)  # the same layout again: the button acts first
        await t.tap("call")
        await t.shows("#turn-who", "Seat 1 · p1 to act")
        await t.bet_is(3, "100")
        await t.tap("undo")
        await t.shows("#turn-who", "Seat 3 · p3 to act")
        await t.stack_is(3, "10,000")
        await t.expect(t.locator('.bet[data-seat="3"]')).to_have_count(0)
        undone = t.station.last(ActionsUndone)
        assert [a.action for a in undone.actions] == ["call"]

    on_tablet(tmp_path, SEATS, repairs, button=3, levels=LEVELS)


def test_a_correction_picked_from_the_hands_log_on_the_tablet(tmp_path: Path) -> None:
    async def correct(t: TabletPage) -> None:
        await deal(t)
        await t.tap("call")
        await t.tap("correct")  # opens the hand's log over the table
        line = t.locator('.log-line[data-index="3"]')
        await t.expect(line).to_contain_text("Seat 3")
        await t.expect(line).to_contain_text("Call 100")
        await line.click()
        await t.key("clear")
        await t.key("300")  # the amount on the pad, beside the sheet
        await t.shows('[data-correction="bet"]', "Bet/raise to 300")
        await t.locator('[data-correction="bet"]').click()
        await t.settled()
        await t.expect(t.locator("#sheet")).to_be_hidden()
        await t.bet_is(3, "300")
        await t.shows("#to-call", "250")
        fixed = t.station.last(ActionCorrected)
        assert (fixed.index, fixed.old.action, fixed.new.action, fixed.new.amount) == (
            3, "call", "bet_raise", 300)

    on_tablet(tmp_path, SEATS, correct, button=3, levels=LEVELS)


def test_bad_input_is_refused_with_the_rule_and_changes_nothing(tmp_path: Path) -> None:
    async def refused(t: TabletPage) -> None:
        await deal(t)
        before = state_of(t)
        await t.bet("150")  # BET-4: below the minimum raise to 200
        await t.said("a raise must be to between 200 and 10000, not 150", "BET-4")
        await t.bet("20000")  # more than the 10,000 in front of seat 3
        await t.said("not 20000", "BET-6")
        await t.seat(1)  # a key out of turn: the clock on a player not to act
        await t.shows("#turn-note", "Seat 1 is not to act: an action now is out of turn.")
        await t.tap("call_clock")
        await t.said("seat 1 is not to act: seat 3 is", "CLOCK-1")
        assert state_of(t) == before
        await t.stack_is(3, "10,000")
        await t.shows("#turn-who", "Seat 3 · p3 to act")

        # a tap on a stale screen: this tablet lost its stream, another terminal acted
        await t.page.route("**/api/stream", lambda route: route.abort())
        await t.page.reload()
        await t.expect(t.locator("#link")).to_have_attribute("data-state", "lost")
        other = await t.page.context.new_page()
        await other.goto(t.station.url)
        await other.locator('.actions [data-verb="call"]').click()
        await t.expect(other.locator("#turn-who")).to_have_text("Seat 1 · p1 to act")
        moved = state_of(t)
        await t.shows("#turn-who", "Seat 3 · p3 to act")  # still the old screen
        await t.page.locator('.actions [data-verb="fold"]').click()
        await t.page.wait_for_function("() => !document.body.classList.contains('busy')",
                                       timeout=WAIT_MS)
        await t.said("the table moved on since this screen was drawn")
        await t.shows("#turn-who", "Seat 1 · p1 to act")  # redrawn from the answer
        assert state_of(t) == moved
        assert t.station.last(ActionAccepted).action == "call"  # the fold never happened

    on_tablet(tmp_path, SEATS, refused, button=3, levels=LEVELS)


def test_the_sign_in_form_refuses_a_wrong_token(tmp_path: Path) -> None:
    api = need_chromium()

    async def wrong(t: TabletPage) -> None:
        await t.page.goto(f"{t.station.url}/")
        await api.expect(t.page.get_by_role("heading")).to_have_text("Dealer's tablet")
        await t.page.get_by_label("Table token").fill("not-this-tables-token")
        await t.page.get_by_role("button", name="Sign in").click()
        await api.expect(t.page.get_by_role("alert")).to_contain_text(
            "not this table's token")
        await api.expect(t.page.locator("#seats")).to_have_count(0)
        await t.page.get_by_label("Table token").fill(t.station.token)
        await t.page.get_by_role("button", name="Sign in").click()
        await api.expect(t.page.locator("#link")).to_have_attribute("data-state", "live")
        await api.expect(t.page.locator('.seat[data-seat="2"] .seat-name')).to_have_text("p2")

    on_tablet(tmp_path, SEATS, wrong, sign=False, levels=LEVELS)
