"""The players' clock screen (issue 19): the public clock route and its page.

The route is read without a token, for a tournament created and started through the
director's REST routes over contract tables (:class:`~tests.director.floortables.LocalFloor`,
as the director's route tests), and carries nothing private. The clock face's break and
pause are checked on a director whose host clock the test moves. The page runs in Debian's
Chromium at 1920x1080: level, blinds and a countdown that goes down, PAUSED once the
director stops the clock (TOURN-27's last hands), and a screenshot (the test's folder;
``docs/clock_screen.png`` when ``PITBOSS_SCREENSHOTS=1``).
"""

from __future__ import annotations

import json
import os
import random
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from controller.clocks.level_clock import Phase
from host_bridge.app import create_app
from host_bridge.director.options import STANDARD, TournamentOptions
from host_bridge.director.service import TournamentDirector
from host_bridge.routes.clock import clock_face
from host_bridge.settings import Role
from tests.bridge.conftest import TOKENS, auth, make_settings
from tests.bridge.test_dashboard import WAIT_S, browser, expect, need_websockets
from tests.director.floortables import LocalFloor
from tests.director.test_director_dashboard import DirectorBridge

__all__ = ["browser", "expect"]  # fixtures from the floor dashboard's tests
DIRECTOR = "/api/v1/director/tournaments"
PUBLIC = "/api/v1/public/tournaments"
DOCS_SCREENSHOT = Path(__file__).resolve().parents[2] / "docs" / "clock_screen.png"
TABLES = {"T1": 9, "T2": 9, "T3": 9, "T4": 9}
PLAYERS = [f"p{i:02d}" for i in range(30)]
# every key the clock may carry, at any depth: a new one must be judged public first
PUBLIC_KEYS = {
    "id", "name", "stage", "state", "level", "seconds_left", "counting", "server_time", "rate",
    "paused", "on_break", "break_seconds_left", "next_level", "seconds_to_break",
    "players_left", "entries", "average_stack", "prize_pool", "places_paid", "payouts",
    "winner", "small_blind", "big_blind", "ante", "big_blind_ante", "minutes", "place",
    "amount"}


# -- the route, over the director's REST routes -----------------------------------------------
@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    """A bridge whose publisher is a floor of contract tables, every table online."""
    floor = LocalFloor(list(TABLES), seed=2)
    app = create_app(make_settings(tmp_path, command_timeout_s=5.0), publisher=floor)
    floor.connect(app.state.bridge.receive)
    for message in floor.status_messages():
        app.state.bridge.ingest.take(*message)
    with TestClient(app) as running:
        yield running


def started(client: TestClient, **kw: Any) -> str:
    """A tournament created and started through the director's routes; its id."""
    body = {"name": "Sunday 200", "tables": TABLES, "players": PLAYERS,
            "starting_stack": 5000, "buy_in": 10_000, "seed": 4} | kw
    r = client.post(DIRECTOR, json=body, headers=auth(Role.DIRECTOR))
    assert r.status_code == 201, r.text
    tid: str = r.json()["id"]
    r = client.post(f"{DIRECTOR}/{tid}/start", headers=auth(Role.DIRECTOR))
    assert r.status_code == 200, r.text
    return tid


def keys(value: Any) -> set[str]:
    """Every key of every object in a JSON value."""
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in keys(v)}
    return set()


def test_the_clock_of_a_running_tournament_is_read_without_a_token(
        client: TestClient) -> None:
    tid = started(client)
    r = client.get(f"{PUBLIC}/{tid}/clock")  # no Authorization header at all
    assert r.status_code == 200, r.text
    face = r.json()
    assert (face["id"], face["name"], face["stage"], face["state"]) == (
        tid, "Sunday 200", "running", "running")
    assert face["level"] == {"level": 1, "small_blind": STANDARD[0][0],
                             "big_blind": STANDARD[0][1], "ante": 0, "big_blind_ante": 0,
                             "minutes": 20.0}
    assert face["next_level"]["level"] == 2
    assert face["next_level"]["big_blind"] == STANDARD[1][1]
    assert 0 < face["seconds_left"] <= 20 * 60 and face["counting"] is True
    assert face["paused"] is False and face["on_break"] is False
    assert face["break_seconds_left"] is None
    assert face["seconds_to_break"] is None  # no break in this structure
    assert face["server_time"] > 1_600_000_000  # the wall clock, for the page's re-sync
    assert face["rate"] == 1.0  # the host's own clock: a second a second
    assert (face["players_left"], face["entries"], face["average_stack"]) == (30, 30, 5000)
    assert face["prize_pool"] == 30 * 10_000
    assert face["places_paid"] == len(face["payouts"]) == 4  # the house table, up to 32
    assert [p["place"] for p in face["payouts"]] == [1, 2, 3, 4]
    assert sum(p["amount"] for p in face["payouts"]) == face["prize_pool"]
    assert face["winner"] is None


def test_the_clock_carries_nothing_private(client: TestClient) -> None:
    tid = started(client)
    r = client.get(f"{PUBLIC}/{tid}/clock")
    assert keys(r.json()) <= PUBLIC_KEYS, keys(r.json()) - PUBLIC_KEYS
    for private in ("hole_cards", "cards", "stack", "seat", "player", "players", "tables",
                    "registered", "places", "figures", "anomalies", "suggestions"):
        assert private not in keys(r.json())
    assert not any(f'"{p}"' in r.text for p in PLAYERS)  # no player is named


def test_the_public_list_names_each_tournament_and_an_unknown_id_is_404(
        client: TestClient) -> None:
    tid = started(client)
    r = client.get(PUBLIC)
    assert r.status_code == 200
    assert r.json() == [{"id": tid, "name": "Sunday 200", "stage": "running"}]
    assert client.get(PUBLIC, params={"stage": "running"}).json() == r.json()
    assert client.get(PUBLIC, params={"stage": "finished"}).json() == []
    assert client.get(PUBLIC, params={"stage": "over"}).status_code == 422
    r = client.get(f"{PUBLIC}/no-such-tournament/clock")
    assert r.status_code == 404
    assert "no-such-tournament" in r.json()["detail"]
    assert PUBLIC in r.json()["detail"]  # where to find the ids


def test_the_page_is_served_without_a_token(client: TestClient) -> None:
    for path in ("/clock", "/clock/anything"):
        r = client.get(path)
        assert r.status_code == 200 and 'id="c-timer"' in r.text
        assert "script-src 'self'" in r.headers["content-security-policy"]


# -- the face on a host clock the test moves --------------------------------------------------
class Moved:
    """The host's monotonic clock, moved by the test."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def running(now: Moved) -> TournamentDirector:
    """A started tournament of 10-minute levels with a 5-minute break after level 2."""
    options = TournamentOptions(name="Moved", tables={"T1": 9, "T2": 9},
                                players=tuple(f"q{i}" for i in range(16)), level_seconds=600,
                                breaks=((2, 300, ()),))
    director = TournamentDirector.create(options, None, clock=now, wall=lambda: 1.7e9)
    director.model.start(random.Random(0))  # what the director's Start input does
    director.level_clock.start(now())
    return director


def test_the_face_counts_to_the_break_then_shows_the_break_and_the_level_after() -> None:
    now = Moved()
    director = running(now)
    now.now += 100
    face = clock_face(director)
    assert (face.state, face.level.level, face.seconds_left) == ("running", 1, 500)
    assert face.seconds_to_break == 500 + 600  # the rest of level 1, then all of level 2
    now.now += 500 + 600 + 60
    director.level_clock.poll(now())  # the director's task polls its clock
    assert director.level_clock.phase is Phase.BREAK
    face = clock_face(director)
    assert (face.state, face.on_break, face.counting) == ("break", True, True)
    assert face.level.level == 2 and face.break_seconds_left == face.seconds_left == 240
    assert face.next_level is not None and face.next_level.level == 3
    assert face.next_level.ante == STANDARD[2][2]
    assert face.seconds_to_break is None  # the only break is this one


def test_a_paused_clock_stands_still_on_the_face() -> None:
    now = Moved()
    director = running(now)
    now.now += 30
    director.level_clock.pause(now())
    now.now += 120
    face = clock_face(director)
    assert (face.state, face.paused, face.counting) == ("paused", True, False)
    assert face.seconds_left == 570 and face.seconds_to_break == 570 + 600


# -- the page in a browser ----------------------------------------------------------------------
@pytest.fixture
def served(tmp_path: Path) -> Iterator[DirectorBridge]:
    need_websockets()
    with DirectorBridge(tmp_path) as running_bridge:
        yield running_bridge


def post(served: DirectorBridge, path: str, body: dict[str, Any] | None = None
         ) -> dict[str, Any]:
    request = urllib.request.Request(
        f"{served.url}{path}", data=json.dumps(body or {}).encode(), method="POST",
        headers={"Authorization": f"Bearer {TOKENS[Role.DIRECTOR]}",
                 "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=WAIT_S) as response:
        out: dict[str, Any] = json.loads(response.read())
        return out


def seconds(text: str) -> int:
    minutes, secs = text.split(":")
    return 60 * int(minutes) + int(secs)


def test_the_big_screen_counts_down_and_shows_paused(
        browser: Any, served: DirectorBridge, expect: Any, tmp_path: Path) -> None:
    tid = post(served, DIRECTOR, {
        "name": "Sunday 200", "tables": TABLES, "players": PLAYERS, "starting_stack": 5000,
        "buy_in": 20_000, "seed": 4, "level_minutes": 10,
        "breaks": [{"after_level": 2, "minutes": 10}]})["id"]
    post(served, f"{DIRECTOR}/{tid}/start")
    page = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
    page.goto(f"{served.url}/clock")  # the list to pick from, no sign-in
    page.get_by_role("link", name="Sunday 200").click()
    expect(page.locator("#c-label")).to_have_text("Level 1")
    expect(page.locator("#c-blinds")).to_have_text(f"{STANDARD[0][0]} / {STANDARD[0][1]}")
    expect(page.locator("#c-next")).to_have_text(f"{STANDARD[1][0]} / {STANDARD[1][1]}")
    expect(page.locator("#c-players")).to_have_text("30 / 30")
    expect(page.locator("#c-payouts tr")).to_have_count(4)
    timer = page.locator("#c-timer")
    first = timer.inner_text()
    expect(timer).not_to_have_text(first, timeout=WAIT_S * 1000)  # it ticks by itself
    assert 0 < seconds(timer.inner_text()) < seconds(first) <= 10 * 60
    expect(page.locator("#c-banner")).to_be_hidden()
    shot = (DOCS_SCREENSHOT if os.environ.get("PITBOSS_SCREENSHOTS") == "1"
            else tmp_path / "clock_screen.png")
    page.screenshot(path=str(shot))
    assert shot.stat().st_size > 10_000
    post(served, f"{DIRECTOR}/{tid}/last-hands", {"card": 3})  # TOURN-27: the clock stops
    expect(page.locator("#c-banner")).to_have_text("PAUSED", timeout=WAIT_S * 1000)
    stopped = timer.inner_text()
    page.reload()  # a fresh read of a stopped clock shows the same time
    expect(page.locator("#c-banner")).to_have_text("PAUSED")
    expect(timer).to_have_text(stopped)
    page.context.close()


def test_the_big_screen_shows_the_break_and_the_blinds_after_it(
        browser: Any, served: DirectorBridge, expect: Any) -> None:
    tid = post(served, DIRECTOR, {
        "name": "Turbo", "tables": {"T1": 9, "T2": 9}, "players": PLAYERS[:18],
        "level_minutes": 0.02, "breaks": [{"after_level": 1, "minutes": 15}]})["id"]
    post(served, f"{DIRECTOR}/{tid}/start")  # level 1 lasts 1.2 s, then the break
    page = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
    page.goto(f"{served.url}/clock/{tid}")
    expect(page.locator("#c-label")).to_have_text("Break", timeout=WAIT_S * 1000)
    assert 14 * 60 < seconds(page.locator("#c-timer").inner_text()) <= 15 * 60
    expect(page.locator("#c-blinds")).to_have_text(f"{STANDARD[1][0]} / {STANDARD[1][1]}")
    expect(page.locator("#c-antes")).to_have_text("Level 2 after the break")
    expect(page.locator("#c-banner")).to_be_hidden()
    page.context.close()


def test_a_fast_tournament_clock_says_how_fast_so_the_screen_counts_with_it() -> None:
    """The demo runs its tournament clock ``speed`` times as fast: the face says so, and
    the page counts down that fast between two reads (clock.js ``elapsed``)."""
    from types import SimpleNamespace

    from host_bridge.demo.game import TournamentClock
    from host_bridge.routes.clock import _rate

    assert _rate(SimpleNamespace(clock=TournamentClock(20.0))) == 20.0  # type: ignore[arg-type]
    assert _rate(SimpleNamespace(clock=lambda: 0.0)) == 1.0  # type: ignore[arg-type]
