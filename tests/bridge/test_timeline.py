"""A hand's dispute timeline (issue 21, item 2), from a table's real path: the dealer's keys
through the fake evdev keypad and the desk, the hole cards placed at the mock seat readers,
the live table journaling each input before it applies it (``input``, ``card_read`` with its
card on ``secure/cards``), the journal's parcels taken by the bridge's ingest as the MQTT
link delivers them (the secure half first). Then ``GET .../hands/{n}/timeline``: in seq
order, the refusal carrying BET-4 and LIVE-25, the undo (DEAL-6) and the correction; who
may read it (``floor`` and up) and who sees the cards read (``director``, ``admin``, once
the hand is over: CARD-4); the files match the JSON; and the page in Debian's Chromium."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from controller.events import InputTaken, Paused
from controller.sync.topics import Topics
from controller.table.lights import Level
from host_bridge.app import create_app
from host_bridge.bridge import Bridge
from host_bridge.settings import Role
from host_bridge.timeline import COLUMNS, TimelineEntry, entries_of, row_of
from tests.bridge.conftest import TOKENS, auth, make_settings
from tests.bridge.tablesim import SITE
from tests.bridge.test_dashboard import RunningBridge, browser, expect, need_websockets
from tests.terminal.rig import keypad_table

__all__ = ["browser", "expect"]  # the fixtures, shared with test_dashboard.py

TABLE = "T1"  # the rig's journal's table id
URL = f"/api/v1/tables/{TABLE}/hands/1/timeline"
SEATS = {1: 10_000, 2: 10_000, 3: 10_000}
HANDS = {2: "AhKh", 3: "2c3d", 1: "9s9d"}  # dealt one card a seat at a time, from seat 2
READS = [(2, "Ah"), (3, "2c"), (1, "9s"), (2, "Kh"), (3, "3d"), (1, "9d")]
DOCS_SCREENSHOT = Path(__file__).resolve().parents[2] / "docs" / "timeline.png"
Message = tuple[str, bytes]


async def _play(tmp: Path) -> list[Message]:
    """One hand at a keypad table, every action keyed; the journal's messages, in seq
    order, each secure half before its event (as the table's MQTT link sends them)."""
    async with keypad_table(tmp, SEATS, levels=(Level(50, 100),)) as rig:
        await rig.keys("1 button deal")
        await rig.deal(HANDS)
        await rig.keys("150 bet")  # BET-4: a raise to at least 200; nothing changes
        await rig.keys("call")  # seat 1 calls
        await rig.keys("undo")  # DEAL-6: taken back
        await rig.keys("call call")  # seats 1 and 2 call
        wrong = next(line for line in rig.desk.screen().log
                     if line.seat == 1 and line.action == "call")
        await rig.keys(f"{wrong.index} correct fold")  # seat 1 had folded
        await rig.keys("misdeal")  # LIVE-25: too late, refused
        await rig.keys("fold")  # the big blind folds: seat 2 wins
        await rig.keys("deal")  # the dealer pushes the pot: the hand ends
        parcels = rig.sink.outbox.journal.parcels(0, limit=10**6)
    topics = Topics(SITE, TABLE)
    messages: list[Message] = []
    for parcel in parcels:
        if parcel.secure is not None:
            messages.append((topics.secure_cards, parcel.secure))
        messages.append((topics.event, parcel.public))
    return messages


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> list[Message]:
    """The hand's messages, played once for the module."""
    return asyncio.run(_play(tmp_path_factory.mktemp("table")))


def _kinds(messages: list[Message]) -> list[tuple[int, str]]:
    """(seq, kind) of each event message."""
    return [(body["seq"], body["event"]["kind"]) for topic, payload in messages
            if topic.endswith("/event") and (body := json.loads(payload))]


def _ingest(bridge: Bridge, messages: list[Message]) -> None:
    for message in messages:
        bridge.ingest.take(*message)


@pytest.fixture
def stored(app: FastAPI, played: list[Message]) -> list[Message]:
    """The hand stored at the test's bridge."""
    _ingest(app.state.bridge, played)
    return played


def _get(client: TestClient, role: Role, url: str = URL) -> Any:
    response = client.get(url, headers=auth(role))
    assert response.status_code == 200, response.text
    return response.json()


# ---------------------------------------------------------------- the timeline
def test_the_timeline_holds_reads_keys_a_bet_4_refusal_the_undo_and_correction_in_order(
        client: TestClient, stored: list[Message]) -> None:
    body = _get(client, Role.FLOOR)
    entries = body["entries"]
    kinds = _kinds(stored)
    started = next(seq for seq, kind in kinds if kind == "hand_started")
    ended = next(seq for seq, kind in kinds if kind == "hand_ended")
    opening = entries[0]  # the DEAL key that started the hand, not the BUTTON before it
    assert (opening["kind"], opening["what"], opening["source"]) == ("input", "keys: deal",
                                                                     "keypad")
    assert started in opening["results"] and opening["outcome"] == "accepted"
    # every event of the journal from that key to the hand's end, in seq order, once
    assert [(e["seq"], e["kind"]) for e in entries] == [
        (seq, kind) for seq, kind in kinds if opening["seq"] <= seq <= ended]
    assert body["first_seq"] == opening["seq"] and body["last_seq"] == ended
    assert body["status"] == "ended" and body["count"] == len(entries)

    reads = [e for e in entries if e["kind"] == "card_read"]
    assert [(e["seat"], e["reader"], e["source"]) for e in reads] == [
        (seat, f"seat{seat}", "reader") for seat, _ in READS]
    assert [e["at"] for e in reads] == sorted(e["at"] for e in reads)  # the table's clock
    assert all(e["card"] is None and "seat" in e["what"] for e in reads)  # floor: no card

    def keyed(what: str) -> dict[str, Any]:
        return next(e for e in entries if e["what"] == what)

    bet = keyed("keys: 1 5 0 bet")
    assert (bet["intent"], bet["fields"]["to"], bet["outcome"], bet["rule"]) == (
        "RaiseTo", 150, "rejected", "BET-4")
    assert "200" in bet["reason"]
    [refusal] = [e for e in entries if e["caused_by"] == bet["seq"]]
    assert (refusal["kind"], refusal["category"], refusal["rule"]) == ("rejected", "refusal",
                                                                       "BET-4")
    undo = keyed("keys: undo")
    [undone] = [e for e in entries if e["seq"] in undo["results"]]
    assert undone["category"] == "undo"
    assert undone["what"].startswith("undone: seat 1 calls 100")
    fix = next(e for e in entries if e["intent"] == "Correct")
    [corrected] = [e for e in entries if e["seq"] in fix["results"]]
    assert corrected["category"] == "correction"
    assert corrected["what"].startswith(
        f"log entry #{fix['fields']['index']} corrected: seat 1 calls 100 -> seat 1 folds")
    misdeal = keyed("keys: misdeal")
    assert (misdeal["outcome"], misdeal["rule"]) == ("rejected", "LIVE-25")
    # the order the dealer keyed them in
    assert bet["seq"] < undo["seq"] < fix["seq"] < misdeal["seq"] < ended
    assert entries[-1]["kind"] == "hand_ended" and entries[-1]["category"] == "result"
    # every caused event follows its input, with the input's source
    for e in entries:
        if e["caused_by"] is not None:
            cause = next(c for c in entries if c["seq"] == e["caused_by"])
            assert cause["seq"] < e["seq"] and e["source"] == cause["source"]
            assert e["seq"] in cause["results"]


def test_a_floor_command_in_the_middle_is_the_hosts_and_not_the_inputs_outcome() -> None:
    key = InputTaken(hand_no=1, source="keypad", what="keys: call", at=3.0, intent="Call")
    entries = entries_of([(10, 1.0, key), (11, 1.1, Paused(command_id="c-1"))], {})
    assert [(e.source, e.caused_by) for e in entries] == [("keypad", None), ("host", None)]
    assert (entries[0].outcome, entries[0].results) == ("none", [])


# ---------------------------------------------------------------- who reads it
@pytest.mark.parametrize("role", [Role.VIEWER, Role.BROADCAST])
def test_a_role_below_the_floor_gets_403_and_nothing(client: TestClient,
                                                     stored: list[Message],
                                                     role: Role) -> None:
    for url in (URL, f"{URL}.csv", f"{URL}?format=txt",
                "/api/v1/tables/nope/hands/1/timeline"):  # 403 before saying what exists
        response = client.get(url, headers=auth(role))
        assert response.status_code == 403, url
        assert set(response.json()) == {"detail"} and "floor" in response.json()["detail"]
        assert "keys" not in response.text
    assert client.get(URL).status_code == 401


def test_card_4_reads_show_their_card_to_director_and_admin_once_the_hand_is_over(
        client: TestClient, app: FastAPI, played: list[Message]) -> None:
    ended = next(seq for seq, kind in _kinds(played) if kind == "hand_ended")
    cut = next(i for i, (topic, payload) in enumerate(played)
               if topic.endswith("/event") and json.loads(payload)["seq"] == ended)
    _ingest(app.state.bridge, played[:cut])  # the hand in play
    for role in (Role.FLOOR, Role.DIRECTOR, Role.ADMIN):
        body = _get(client, role)
        assert body["status"] == "in_progress" and not body["cards_shown"]
        reads = [e for e in body["entries"] if e["kind"] == "card_read"]
        assert [(e["card"], e["what"]) for e in reads] == [
            (None, f"card read at seat {seat} (reader seat{seat})") for seat, _ in READS]
    assert "in play" in _get(client, Role.DIRECTOR)["cards_note"]

    _ingest(app.state.bridge, played[cut:])  # the hand is over
    for role, shown in ((Role.FLOOR, False), (Role.DIRECTOR, True), (Role.ADMIN, True)):
        body = _get(client, role)
        reads = [e for e in body["entries"] if e["kind"] == "card_read"]
        assert body["cards_shown"] is shown
        assert [(e["seat"], e["card"]) for e in reads] == (
            READS if shown else [(seat, None) for seat, _ in READS])
        if shown:
            assert reads[0]["what"].endswith(": Ah")
    assert "floor role" in _get(client, Role.FLOOR)["cards_note"]


def test_an_unknown_table_or_hand_is_a_404_with_a_sentence(client: TestClient,
                                                           stored: list[Message]) -> None:
    table = client.get("/api/v1/tables/T9/hands/1/timeline", headers=auth(Role.FLOOR))
    assert table.status_code == 404 and "no table 'T9'" in table.json()["detail"]
    hand = client.get(f"/api/v1/tables/{TABLE}/hands/7/timeline.csv",
                      headers=auth(Role.FLOOR))
    assert hand.status_code == 404 and "has no hand 7" in hand.json()["detail"]
    bad = client.get(f"{URL}?format=pdf", headers=auth(Role.FLOOR))
    assert bad.status_code == 422


# ---------------------------------------------------------------- the files
def test_the_export_files_hold_what_the_json_holds(client: TestClient,
                                                   stored: list[Message]) -> None:
    body = _get(client, Role.DIRECTOR)
    response = client.get(f"{URL}.csv", headers=auth(Role.DIRECTOR))
    assert response.headers["content-type"].startswith("text/csv")
    assert response.headers["content-disposition"] == (
        'attachment; filename="T1-1-timeline.csv"')
    rows = list(csv.DictReader(io.StringIO(response.text)))
    assert tuple(rows[0]) == COLUMNS
    assert rows == [row_of(TimelineEntry.model_validate(e)) for e in body["entries"]]
    assert [(r["seq"], r["what"], r["outcome"], r["rule"], r["card"]) for r in rows] == [
        (str(e["seq"]), e["what"], e["outcome"] or "", e["rule"] or "", e["card"] or "")
        for e in body["entries"]]
    same = client.get(f"{URL}?format=csv", headers=auth(Role.DIRECTOR))
    assert same.text == response.text and "attachment" in same.headers["content-disposition"]

    as_json = client.get(f"{URL}.json", headers=auth(Role.DIRECTOR))
    assert as_json.headers["content-disposition"].endswith('"T1-1-timeline.json"')
    assert json.loads(as_json.text) == body

    text = client.get(f"{URL}?format=txt", headers=auth(Role.DIRECTOR))
    assert text.headers["content-disposition"].endswith('"T1-1-timeline.txt"')
    lines = text.text.splitlines()
    assert lines[0].startswith("Dispute timeline: table T1, hand 1 (ended)")
    entry_lines = lines[3:]
    assert [int(line.split()[0]) for line in entry_lines] == [e["seq"] for e in body["entries"]]
    assert any("keys: 1 5 0 bet [RaiseTo]  => REFUSED BET-4: a raise must be" in line
               for line in entry_lines)


# ---------------------------------------------------------------- the page
@pytest.fixture
def served(tmp_path: Path, played: list[Message]) -> Iterator[RunningBridge]:
    """A bridge serving the page, the hand stored."""
    need_websockets()
    app = create_app(make_settings(tmp_path))
    _ingest(app.state.bridge, played)
    with RunningBridge(app) as running:
        yield running


def test_the_page_lists_the_hand_with_its_refusal_and_downloads_the_file(
        browser: Any, served: RunningBridge, expect: Any, tmp_path: Path) -> None:
    page = browser.new_context(viewport={"width": 1280, "height": 900},
                               accept_downloads=True).new_page()
    page.goto(f"{served.url}/dashboard/timeline.html?table={TABLE}&hand=1")
    page.get_by_label("Access token").fill(TOKENS[Role.FLOOR])
    page.get_by_role("button", name="Sign in").click()
    page.get_by_text("Signed in as floor").wait_for()
    expect(page.get_by_role("heading", name="Table T1 · hand 1")).to_be_visible()
    entries = httpx2.get(served.url + URL, headers=auth(Role.FLOOR)).json()["entries"]
    rows = page.locator("#t-entries > li")
    expect(rows).to_have_count(len(entries))
    assert [int(s) for s in rows.evaluate_all("rs => rs.map(r => r.dataset.seq)")] == [
        e["seq"] for e in entries]
    bet = page.locator("li.t-entry.refused", has_text="keys: 1 5 0 bet")
    expect(bet.locator(".t-outcome .rule")).to_have_text("BET-4")
    expect(bet).to_have_css("background-color", "rgb(58, 28, 28)")  # highlighted
    expect(page.locator("li.t-entry.refused", has_text="keys: misdeal")
           .locator(".rule")).to_have_text("LIVE-25")
    expect(page.locator("li.t-entry.undo")).to_contain_text("undone: seat 1 calls 100")
    expect(page.locator("li.t-entry.correction")).to_contain_text("seat 1 folds")
    expect(page.locator("#t-cards")).to_contain_text("withheld from the floor role")
    expect(page.locator(".t-card")).to_have_count(0)

    with page.expect_download() as info:
        page.get_by_role("button", name="Download").click()
    download = info.value
    assert download.suggested_filename == "T1-1-timeline.csv"
    saved = tmp_path / "saved.csv"
    download.save_as(str(saved))
    assert saved.read_bytes() == httpx2.get(f"{served.url}{URL}.csv",
                                           headers=auth(Role.FLOOR)).content

    shot = (DOCS_SCREENSHOT if os.environ.get("PITBOSS_SCREENSHOTS") == "1"
            else tmp_path / "timeline.png")
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000
    page.context.close()

    viewer = browser.new_page()  # a viewer signs in, and is told why there is nothing
    viewer.goto(f"{served.url}/dashboard/timeline.html?table={TABLE}&hand=1")
    viewer.get_by_label("Access token").fill(TOKENS[Role.VIEWER])
    viewer.get_by_role("button", name="Sign in").click()
    expect(viewer.locator("#t-error")).to_contain_text(
        "role 'viewer' may not read a hand's dispute timeline")
    expect(viewer.locator("#t-entries > li")).to_have_count(0)
    expect(viewer.get_by_role("button", name="Download")).to_be_disabled()
    viewer.context.close()
