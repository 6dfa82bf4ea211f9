"""Every director action is journaled with who took it (issue 19), and the floor's log
(``GET /api/v1/director/tournaments/{tid}/log``) lists those decisions in order with who
and when: through the bridge's REST API, contract tables behind it in-process
(:class:`~tests.director.floortables.LocalFloor`); a bridge restart keeps them, and a
journal written before the field existed still replays. On the director's page (a real
browser) the last decisions show with who took them, and the rebuy button reaches the
table; that test saves the page mid-tournament (``docs/director.png`` when
``PITBOSS_SCREENSHOTS=1``)."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy.orm import Session, sessionmaker

from host_bridge.app import create_app
from host_bridge.db import make_engine
from host_bridge.director.journal import DirectorJournal, DirectorRecord, Register
from host_bridge.models import Base
from host_bridge.settings import Role
from tests.bridge.conftest import TOKENS, auth, make_settings
from tests.director.test_director_api import make_app
from tests.director.test_director_dashboard import (
    DOCS_SCREENSHOT,
    DirectorBridge,
    browser,
    expect,
    served,
)
from tests.director.test_director_dashboard import (
    TABLES as FOUR_TABLES,
)

__all__ = ["browser", "expect", "served"]  # fixtures of the director page's tests

URL = "/api/v1/director/tournaments"
TABLES = {"T1": 9, "T2": 9}
D, A = auth(Role.DIRECTOR), auth(Role.ADMIN)


def create(client: TestClient, **kw: Any) -> str:
    body: dict[str, Any] = {"name": "Actors", "tables": TABLES, "players": ["p00", "p01"],
                            "starting_stack": 5000, "buy_in": 10_000, "seed": 4,
                            "auto_balance": False}
    body.update(kw)
    r = client.post(URL, json=body, headers=D)
    assert r.status_code == 201, r.text
    return f"{URL}/{r.json()['id']}"


def log(client: TestClient, one: str, role: Role = Role.FLOOR, **params: Any
        ) -> list[dict[str, Any]]:
    r = client.get(f"{one}/log", headers=auth(role), params=params)
    assert r.status_code == 200, r.text
    entries: list[dict[str, Any]] = r.json()
    return entries


def who(entries: list[dict[str, Any]]) -> list[tuple[str, str | None]]:
    """(kind, the grant name that took it) of each decision, in order."""
    return [(e["kind"], e["by"]["name"] if e["by"] else None) for e in entries]


def test_every_action_through_rest_is_logged_with_who_took_it_and_a_restart_keeps_it(
        tmp_path: Path) -> None:
    app, floor = make_app(tmp_path)
    with TestClient(app) as client:
        one = create(client, level_minutes=10, late_registration_levels=2, rebuy_levels=2)
        steps = [("players", {"player": "zoe"}, A), ("start", {}, D),
                 ("players", {"player": "late"}, A),  # a late entry (TOURN-4)
                 ("players/p00/rebuy", {}, D),
                 ("balancing", {}, A),  # four players on two tables: the redraw (TOURN-28)
                 ("last-hands", {"card": 3}, D)]  # 10 minutes left: TOURN-27 allows it
        for path, body, headers in steps:
            r = client.post(f"{one}/{path}", json=body, headers=headers)
            assert r.status_code in (200, 201), (path, r.text)
        entries = log(client, one)
        for role in (Role.VIEWER, Role.BROADCAST):  # the floor's log is not public
            assert client.get(f"{one}/log", headers=auth(role)).status_code == 403
        assert client.get(f"{URL}/nosuch/log", headers=D).status_code == 404
    assert who(entries) == [
        ("create", "director-1"), ("register", "director-1"), ("register", "director-1"),
        ("register", "admin-1"), ("start", "director-1"), ("register", "admin-1"),
        ("buy", "director-1"), ("floor", "admin-1"), ("last_hands", "director-1")]
    assert [e["by"]["role"] for e in entries][3:6] == ["admin", "director", "admin"]
    assert [e["seq"] for e in entries] == sorted(e["seq"] for e in entries)  # in order
    assert entries[0]["at"] <= entries[-1]["at"] <= time.time()
    assert entries[3]["what"] == "registered zoe" and "p00" in entries[6]["what"]
    assert "TOURN-28" in entries[7]["what"] and "TOURN-27" in entries[8]["what"]
    app.state.engine.dispose()
    again = create_app(make_settings(tmp_path, command_timeout_s=5.0), publisher=floor)
    floor.connect(again.state.bridge.receive)
    with TestClient(again) as client:
        assert log(client, one, Role.ADMIN) == entries  # the journal keeps them
        assert who(log(client, one, Role.DIRECTOR, last=2)) == who(entries)[-2:]
        after = log(client, one, after=entries[5]["seq"])
        assert who(after) == who(entries)[6:]


def test_the_add_on_is_logged_with_who_sold_it(tmp_path: Path) -> None:
    app, _ = make_app(tmp_path)
    with TestClient(app) as client:
        one = create(client, players=[f"p{i:02d}" for i in range(6)], add_on=True,
                     level_minutes=1 / 60, breaks=[{"after_level": 2, "minutes": 30}])
        assert client.post(f"{one}/start", headers=D).status_code == 200
        deadline = time.monotonic() + 10.0
        status = client.get(one, headers=D).json()
        while not status["on_break"] and time.monotonic() < deadline:
            time.sleep(0.05)
            status = client.get(one, headers=D).json()
        r = client.post(f"{one}/players/p03/add-on", headers=A)
        assert r.status_code == 200, r.text
        bought = [e for e in log(client, one) if e["kind"] == "buy"]
    assert [(e["by"], e["what"]) for e in bought] == [
        ({"name": "admin-1", "role": "admin"}, "add-on for p03 (TOURN-12)")]


def test_a_journal_written_before_the_actor_field_still_replays(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'old.db'}")
    Base.metadata.create_all(engine)
    sessions = sessionmaker(engine, expire_on_commit=False)
    with Session(engine) as session, session.begin():  # a row as an older bridge wrote it
        session.add(DirectorRecord(tournament="old", seq=1, kind="register",
                                   body={"player": "ana"}, at=1.0))
    journal = DirectorJournal(sessions)
    replayed = [j.entry for j in journal.replay("old")]
    assert replayed == [Register(player="ana")]
    assert isinstance(replayed[0], Register) and replayed[0].by is None
    assert [j.entry for j in journal.decisions("old")] == replayed
    engine.dispose()


def test_the_page_shows_the_last_decisions_with_who_took_them_mid_tournament(
        browser: Any, served: DirectorBridge, expect: Any, tmp_path: Path) -> None:
    tid = served.post("/director/tournaments", {
        "name": "Sunday 200", "tables": FOUR_TABLES, "seed": 4, "late_registration_levels": 2,
        "players": [f"p{i:02d}" for i in range(32)], "starting_stack": 5000,
        "buy_in": 20_000, "fee": 2_000})["id"]
    page = browser.new_context(viewport={"width": 1500, "height": 1100}).new_page()
    page.goto(f"{served.url}/dashboard/director.html")
    page.get_by_label("Access token").fill(TOKENS[Role.DIRECTOR])
    page.get_by_role("button", name="Sign in").click()
    page.get_by_role("button", name="Start: draw seats").click()
    expect(page.locator("li.t-card li")).to_have_count(32)
    while len(served.floor.tables["T1"].seats) > 5:  # all-in hands: players bust there
        served.play("T1")
    page.get_by_label("Player id").fill("zoe")
    page.get_by_role("button", name="Register").click()  # a late entry (TOURN-4)
    expect(page.locator("#t-log")).to_contain_text("Registered zoe", timeout=15_000)  # seated first
    assert "zoe" in {p for t in served.floor.tables.values() for p, _ in t.seats.values()}
    served.post(f"/director/tournaments/{tid}/penalties",
                {"player": "p20", "penalty": "warning", "reason": "slow play"})
    shown = page.locator("#t-decisions-list li")
    expect(shown.first).to_contain_text("penalty for p20: warning")  # newest first
    expect(page.locator("#t-decisions-list")).to_contain_text(
        "registered zoe by director-1 (director)")
    expect(page.locator("#t-decisions-list")).to_contain_text("started: the seat draw")
    expect(page.locator("#t-places tr").first).to_be_visible()  # those out, placed
    expect(page.locator("#t-prizes")).to_contain_text("Prizes: $")
    shot = (DOCS_SCREENSHOT if os.environ.get("PITBOSS_SCREENSHOTS") == "1"
            else tmp_path / "director.png")
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000
    page.context.close()
