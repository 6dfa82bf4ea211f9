"""Open Hand History at the bridge (issue 21), through the paths its users take: the REST
downloads of one hand, a table's UTC day, a tournament, a player's own hands and a
tournament's summary, each checked against host_bridge/ohh_schema.json (written from the
OHH 1.4.7 specification) with ``jsonschema``; ``pitboss replay`` reading a downloaded day
in a subprocess; and the floor and director pages' download buttons in Chromium.

One store is built once for the module: cash table c1 (no house: amounts in XPM) plays
two hands on 2025-03-14 (a showdown where one player mucks, SHOW-*; a hand won before the
flop) and one on 2025-03-15 (UTC), and has a fourth in progress; tournament table T1,
a contract table (:class:`~tests.director.floortables.LocalFloor`), seats three entrants by
the director's draw and plays two engine hands in which two of them bust, so the
tournament finishes with places. The REST tests read it through one app; the browser
tests serve a copy with uvicorn.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from jsonschema import Draft202012Validator

from controller.events import GameSetup, HandStarted, PlayerBusted, PlayerSeated
from controller.rules.cards import parse_cards
from controller.rules.config import LIVE_TOURNAMENT, Variant
from controller.rules.game import GameConfig
from controller.rules.hand import Hand
from controller.sync.ledger import fold
from host_bridge.app import create_app
from host_bridge.ohh import HOLE_CARD_ROLES
from host_bridge.settings import Role
from tests.bridge.conftest import TOKENS, ManualClock, auth, make_settings
from tests.bridge.reporting import ReportingWire
from tests.bridge.tablesim import WireTable
from tests.bridge.test_dashboard import RunningBridge, browser, expect, need_websockets
from tests.director.floortables import LocalFloor

__all__ = ["browser", "expect"]  # the floor dashboard's tests' fixtures

ROOT = Path(__file__).resolve().parents[2]
VALIDATOR = Draft202012Validator(json.loads(
    (ROOT / "host_bridge" / "ohh_schema.json").read_text(encoding="utf-8")))
OTS_VALIDATOR = Draft202012Validator({"$schema": VALIDATOR.schema["$schema"],
                                      "$defs": VALIDATOR.schema["$defs"],
                                      "$ref": "#/$defs/ots_file"})
API = "/api/v1"
DAY1, DAY2 = "2025-03-14", "2025-03-15"
DAY1_TS = datetime(2025, 3, 14, 20, 0, tzinfo=UTC).timestamp()
DAY2_TS = datetime(2025, 3, 15, 0, 30, tzinfo=UTC).timestamp()
CASH, TOURNEY_TABLE = "c1", "T1"
CASH_PLAYERS = ("ana", "ben", "cleo")  # seats 1..3
ENTRANTS = ["p1", "p2", "p3"]
HOLES = ("AsKs", "7c2d", "QhQd")  # by position in the cash hands: SB, BB, button
EVERY_ROLE = tuple(Role)
PUBLIC_ROLES = tuple(r for r in Role if r not in HOLE_CARD_ROLES)


# ------------------------------------------------------------------------- the hands
def cash_hand(stacks: tuple[int, ...], *, showdown: bool) -> Hand:
    """Blinds 5/10; the button raises to 30. With ``showdown`` both blinds call, it is
    checked down and the small blind shows AsKs, the big blind mucks 7c2d (SHOW-*) and
    the button shows QhQd and wins; else both blinds fold."""
    hand = Hand(GameConfig(variant=Variant.NT, stacks=stacks, small_blind=5, big_blind=10))
    for player, cards in enumerate(HOLES):
        hand.deal_hole(player, parse_cards(cards))
    hand.bet_or_raise_to(30, 2)
    if not showdown:
        hand.fold(0)
        hand.fold(1)
        return hand
    hand.call(0)
    hand.call(1)
    for board in ("2h5c9s", "Td", "3h"):
        hand.deal_board(parse_cards(board))
        for _ in range(3):
            hand.check()
    hand.show(0)
    hand.muck(1)
    hand.show(2)
    assert hand.is_complete and hand.shown == [True, False, True]
    return hand


def all_in_hand(stacks: tuple[int, ...], blinds: tuple[int, int], holes: tuple[str, ...],
                caller: int) -> Hand:
    """A tournament hand: the last player in position order moves all in, ``caller``
    calls, any other folds."""
    hand = Hand(GameConfig(variant=Variant.NT, stacks=stacks, small_blind=blinds[0],
                           big_blind=blinds[1]), LIVE_TOURNAMENT)
    for player, cards in enumerate(holes):
        hand.deal_hole(player, parse_cards(cards))
    last = len(stacks) - 1
    hand.bet_or_raise_to(stacks[last], last)
    while hand.actor is not None:
        hand.call() if hand.actor == caller else hand.fold()
    for board in ("2h5c9s", "Td", "3h"):
        if hand.is_complete:
            break
        hand.deal_board(parse_cards(board))
    while not hand.is_complete:
        hand.show()
    return hand


def positioned(messages: list[tuple[str, bytes]], hand: Hand, **fields: object
               ) -> list[tuple[str, bytes]]:
    """A hand's messages with its hand_started carrying ``fields`` (button, blinds'
    seats, level) and the tournament's rules, as a tournament table reports them."""
    topic, payload = messages[0]
    body = json.loads(payload)
    body["event"].update(fields, config=GameSetup.of(hand.config, LIVE_TOURNAMENT)
                         .model_dump(mode="json"))
    return [(topic, json.dumps(body).encode()), *messages[1:]]


@dataclass
class Built:
    """The store's file and what the tests compare the exports with."""

    db: Path
    tid: str
    places: list[dict[str, Any]]  # the director's places, as its route lists them
    seats: dict[str, int]  # tournament player -> seat at T1


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    """The module's store (see the module's notes), built once."""
    path = tmp_path_factory.mktemp("ohh")
    floor = LocalFloor([TOURNEY_TABLE], seed=3)
    app = create_app(make_settings(path), publisher=floor,
                     clock=ManualClock(DAY2_TS + 3600))
    bridge = app.state.bridge
    floor.connect(bridge.receive)
    with TestClient(app) as client:
        portal = client.portal
        assert portal is not None

        def send(messages: list[tuple[str, bytes]]) -> None:
            for message in messages:  # on the app's loop: the director observes them
                portal.call(bridge.receive, *message)

        # the cash table: hands 1 and 2 on DAY1, hand 3 on DAY2, hand 4 still in play
        wire = WireTable(table=CASH)
        send([wire.status(True), *(wire.seat(s, p, 1000)
                                   for s, p in enumerate(CASH_PLAYERS, 1))])
        stacks: tuple[int, ...] = (1000, 1000, 1000)
        for hand_no, ts, showdown in ((1, DAY1_TS, True), (2, DAY1_TS + 600, False),
                                      (3, DAY2_TS, True)):
            wire.ts = ts
            played = cash_hand(stacks, showdown=showdown)
            send(wire.hand(hand_no, (1, 2, 3), played, with_config=True))
            stacks = tuple(played.stacks)
        # hand 4 in play, and the state the table reports of it (its ledger folded from
        # the seats as they are now)
        reporting = ReportingWire(CASH)
        reporting.seq, reporting.ts = wire.seq, wire.ts
        for s, (p, stack) in enumerate(zip(CASH_PLAYERS, stacks, strict=True), 1):
            reporting.ledger = fold(reporting.ledger, PlayerSeated(seat=s, player=p,
                                                                   stack=stack))
        send([reporting.event(HandStarted(hand_no=4, seats=(1, 2, 3), stacks=stacks,
                                          small_blind=5, big_blind=10))])
        for player in range(3):
            send(reporting.hole(4, player))
        send([reporting.reported()])

        # the tournament: three entrants at T1, two hands, two busted
        send(floor.status_messages())
        d = auth(Role.DIRECTOR)
        r = client.post(f"{API}/director/tournaments", headers=d, json={
            "name": "Friday OHH", "tables": {TOURNEY_TABLE: 9}, "players": ENTRANTS,
            "starting_stack": 5000, "buy_in": 10_000, "fee": 1_000, "seed": 4})
        assert r.status_code == 201, r.text
        tid = r.json()["id"]
        r = client.post(f"{API}/director/tournaments/{tid}/start", headers=d)
        assert r.status_code == 200, r.text
        blinds = (r.json()["blinds"]["small_blind"], r.json()["blinds"]["big_blind"])
        table = floor.tables[TOURNEY_TABLE]
        seat_of = {p: s for s, (p, _) in table.seats.items()}
        twire = WireTable(table=TOURNEY_TABLE, boot=table.boot, seq=table.seq,
                          ts=DAY2_TS + 1800)
        sa, sb, sc = sorted(table.seats)  # SB, BB, button
        first = all_in_hand((5000, 5000, 5000), blinds, ("QhQd", "7c6d", "AsKs"), 1)
        assert first.stacks[1] == 0
        send(positioned(twire.hand(1, (sa, sb, sc), first), first,
                        button=sc, small_blind_seat=sa, big_blind_seat=sb, level=1))
        send([twire.event(PlayerBusted(seat=sb, player=table.seats[sb][0], hand_no=1))])
        # heads-up: the button (sa) posts the small blind and acts first (BTN-3)
        second = all_in_hand((first.stacks[2], first.stacks[0]), blinds, ("AsAd", "7c6d"), 0)
        assert second.stacks[1] == 0
        send(positioned(twire.hand(2, (sc, sa), second), second,
                        button=sa, small_blind_seat=sa, big_blind_seat=sc, level=1))
        send([twire.event(PlayerBusted(seat=sa, player=table.seats[sa][0], hand_no=2))])
        r = client.get(f"{API}/director/tournaments/{tid}/places", headers=d)
        assert r.status_code == 200, r.text
        places = r.json()["places"]
        assert len(places) == 3, r.json()  # the tournament is over
    app.state.engine.dispose()
    return Built(path / "bridge.db", tid, places, seat_of)


def copy_store(built: Built, to: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        source = built.db.with_name(built.db.name + suffix)
        if source.exists():
            shutil.copy(source, to / f"bridge.db{suffix}")



@pytest.fixture(scope="module")
def client(built: Built, tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """The REST tests' bridge, on a copy of the store; its clock on DAY2 ("today")."""
    path = tmp_path_factory.mktemp("rest")
    copy_store(built, path)
    with TestClient(create_app(make_settings(path), clock=ManualClock(DAY2_TS + 3600))) as c:
        yield c


# ------------------------------------------------------------------------- reading
def get(client: TestClient, url: str, role: Role = Role.DIRECTOR) -> Any:
    return client.get(API + url, headers=auth(role))


def docs(response: Any, filename: str) -> list[dict[str, Any]]:
    """The ``ohh`` objects of a download, each checked against the schema; the file
    holds one ``{"ohh": ...}`` per line with a blank line between, as many as
    ``X-OHH-Hands`` says, and is named ``filename``."""
    assert response.status_code == 200, response.text
    assert response.headers["content-disposition"] == f'attachment; filename="{filename}"'
    text = response.text
    if response.headers["content-type"] == "application/json":
        lines = [text]  # one hand: a JSON document
    else:
        assert text.endswith("\n\n") and "\n\n\n" not in text
        lines = text[:-2].split("\n\n")
        assert all("\n" not in line for line in lines)
    out = []
    for line in lines:
        wrapped = json.loads(line)
        VALIDATOR.validate(wrapped)
        out.append(wrapped["ohh"])
    assert len(out) == int(response.headers["X-OHH-Hands"])
    assert response.headers["X-OHH-Skipped"] == "0"
    return out


def by_name(doc: dict[str, Any], action: str) -> dict[str, list[str]]:
    """Player name -> the cards of their ``action`` (Dealt Cards, Shows Cards)."""
    names = {p["id"]: p["name"] for p in doc["players"]}
    return {names[a["player_id"]]: a["cards"] for r in doc["rounds"] for a in r["actions"]
            if a["action"] == action}


def hole_cards_in(doc: dict[str, Any]) -> set[str]:
    """Every card written in a player's action (dealt or shown), board cards aside."""
    return {c for r in doc["rounds"] for a in r["actions"] for c in a.get("cards", ())}


def hand_nos(found: list[dict[str, Any]]) -> list[str]:
    return [d["game_number"] for d in found]


ALL = {"ana": ["As", "Ks"], "ben": ["7c", "2d"], "cleo": ["Qh", "Qd"]}
SHOWN = {"ana": ["As", "Ks"], "cleo": ["Qh", "Qd"]}  # ben mucked (SHOW-*)


# ------------------------------------------------------------------------- REST
@pytest.mark.parametrize("role", EVERY_ROLE, ids=lambda r: r.value)
def test_card_4_show_10_pot_3_every_hole_card_only_for_the_card_roles_else_the_shown(
        client: TestClient, role: Role) -> None:
    (hand,) = docs(get(client, f"/tables/{CASH}/hands/1/ohh", role), "c1-1.ohh")
    assert hand["game_number"] == "c1-1" and hand["tournament"] is False
    assert hand["flags"] == ["Observed"] and "hero_player_id" not in hand
    assert by_name(hand, "Shows Cards") == SHOWN  # shown at the showdown: public
    mucked = [a for r in hand["rounds"] for a in r["actions"] if a["action"] == "Mucks Cards"]
    assert [a["player_id"] for a in mucked] == [1]
    if role in HOLE_CARD_ROLES:
        assert by_name(hand, "Dealt Cards") == ALL
    else:  # CARD-4: the mucked 7c2d stays secret from viewer and floor
        assert by_name(hand, "Dealt Cards") == {}
        assert hole_cards_in(hand) == {"As", "Ks", "Qh", "Qd"}
    (folded,) = docs(get(client, f"/tables/{CASH}/hands/2/ohh", role), "c1-2.ohh")
    assert by_name(folded, "Shows Cards") == {}  # won before the flop: nothing shown
    assert hole_cards_in(folded) == (
        {c for cards in ALL.values() for c in cards} if role in HOLE_CARD_ROLES else set())
    # POT-3: the 20 nobody called goes back to cleo, written as a pot of its own
    assert [(p["amount"], [(w["player_id"], w["win_amount"]) for w in p["player_wins"]])
            for p in folded["pots"]] == [(25, [(2, 25)]), (20, [(2, 20)])]


def test_card_4_show_3_a_players_own_file_has_their_cards_as_hero_and_no_one_elses(
        client: TestClient) -> None:
    found = docs(get(client, "/players/ben/ohh", Role.BROADCAST), "ben.ohh")
    assert hand_nos(found) == ["c1-1", "c1-2", "c1-3"]  # both days, in order
    for hand in found:
        assert hand["players"][hand["hero_player_id"]]["name"] == "ben"
        assert "flags" not in hand  # a hero's copy is not Observed
        assert by_name(hand, "Dealt Cards") == {"ben": ["7c", "2d"]}
    assert by_name(found[0], "Shows Cards") == SHOWN
    assert hole_cards_in(found[1]) == {"7c", "2d"}  # nobody showed: nobody else's cards
    one_day = docs(get(client, f"/players/ben/ohh?day={DAY1}", Role.ADMIN), "ben.ohh")
    assert hand_nos(one_day) == ["c1-1", "c1-2"] and one_day == found[:2]
    # a tournament player: the winner's own hands, p3's folded QhQd never in them
    mine = docs(get(client, "/players/p1/ohh", Role.DIRECTOR), "p1.ohh")
    assert hand_nos(mine) == ["T1-1", "T1-2"]
    assert all(h["players"][h["hero_player_id"]]["name"] == "p1" for h in mine)
    assert by_name(mine[0], "Dealt Cards") == {"p1": ["As", "Ks"]}
    assert by_name(mine[0], "Shows Cards") == {"p1": ["As", "Ks"], "p2": ["7c", "6d"]}
    assert "Qh" not in hole_cards_in(mine[0]) and "Qd" not in hole_cards_in(mine[0])


def test_a_tables_day_holds_exactly_the_hands_that_started_on_that_utc_day(
        client: TestClient) -> None:
    first = docs(get(client, f"/tables/{CASH}/ohh?day={DAY1}", Role.FLOOR),
                 f"c1-{DAY1}.ohh")
    assert hand_nos(first) == ["c1-1", "c1-2"]
    assert all(h["start_date_utc"].startswith(DAY1) for h in first)
    second = docs(get(client, f"/tables/{CASH}/ohh?day={DAY2}", Role.FLOOR),
                  f"c1-{DAY2}.ohh")
    assert hand_nos(second) == ["c1-3"]  # 00:30 UTC; hand 4 is still in play
    assert second[0]["start_date_utc"].startswith(DAY2)
    today = get(client, f"/tables/{CASH}/ohh", Role.FLOOR)  # the bridge's clock: DAY2
    assert docs(today, f"c1-{DAY2}.ohh") == second
    # the floor's copy of a day is each hand's public copy
    assert first == [docs(get(client, f"/tables/{CASH}/hands/{n}/ohh", Role.FLOOR),
                          f"c1-{n}.ohh")[0] for n in (1, 2)]
    r = get(client, f"/tables/{CASH}/ohh?day=2025-03-13")
    assert r.status_code == 404
    assert r.json()["detail"] == "table 'c1' on 2025-03-13 has no finished hand to export"
    for bad in ("2025-02-30", "yesterday"):
        r = get(client, f"/tables/{CASH}/ohh?day={bad}")
        assert r.status_code == 422 and "day" in r.json()["message"], r.text


def test_a_tournaments_file_holds_its_own_tables_hands_in_chips(
        client: TestClient, built: Built) -> None:
    found = docs(get(client, f"/director/tournaments/{built.tid}/ohh", Role.VIEWER),
                 f"{built.tid}.ohh")
    assert hand_nos(found) == ["T1-1", "T1-2"]  # not the cash table's
    for hand in found:
        assert hand["tournament"] is True and hand["table_name"] == TOURNEY_TABLE
        assert hand["tournament_info"]["tournament_number"] == built.tid
        assert hand["tournament_info"]["name"] == "Friday OHH"
        assert hand["tournament_info"]["initial_stack"] == 5000
        assert hand["table_size"] == 9
    # the table's button and seats, the amounts in chips
    first, second = found
    assert first["dealer_seat"] == built.seats["p1"]
    assert [(p["name"], p["seat"], p["starting_stack"]) for p in first["players"]] == [
        (n, built.seats[n], 5000) for n in ("p3", "p2", "p1")]
    assert second["dealer_seat"] == built.seats["p3"]  # heads-up: the button posts the SB
    assert [p["name"] for p in second["players"]] == ["p1", "p3"]
    assert [w["win_amount"] for w in second["pots"][0]["player_wins"]] == [
        2 * second["players"][1]["starting_stack"]]
    # CARD-4: the viewer sees the all-in hands tabled (SHOW-3), never p3's folded cards
    assert by_name(first, "Dealt Cards") == {}
    assert by_name(first, "Shows Cards") == {"p1": ["As", "Ks"], "p2": ["7c", "6d"]}
    full = docs(get(client, f"/director/tournaments/{built.tid}/ohh", Role.DIRECTOR),
                f"{built.tid}.ohh")
    assert by_name(full[0], "Dealt Cards")["p3"] == ["Qh", "Qd"]
    # the cash table's hands are no tournament's
    (cash,) = docs(get(client, f"/tables/{CASH}/hands/3/ohh"), "c1-3.ohh")
    assert cash["tournament"] is False and "tournament_info" not in cash


def test_the_tournament_summary_places_and_prizes_are_the_directors(
        client: TestClient, built: Built) -> None:
    r = get(client, f"/director/tournaments/{built.tid}/summary.ohh", Role.VIEWER)
    assert r.status_code == 200, r.text
    assert r.headers["content-disposition"] == f'attachment; filename="{built.tid}.ots"'
    assert "X-OHH-Hands" not in r.headers  # a summary, no hand in it
    wrapped = r.json()
    OTS_VALIDATOR.validate(wrapped)
    ots = wrapped["ots"]
    assert ots["tournament_number"] == built.tid and ots["player_count"] == 3
    assert ots["end_date_utc"] is not None  # finished
    assert ots["buyin_amount"] == 100 and ots["fee_amount"] == 10  # euros
    got = [(f["player_name"], f["finish_position"], f["prize"])
           for f in ots["tournament_finishes_and_winnings"]]
    assert got == [(p["player"], p["place"], p["prize"] / 100) for p in
                   sorted(built.places, key=lambda p: p["place"])]
    assert got[0][0] == "p1" and not any(f["still_playing"]
                                         for f in ots["tournament_finishes_and_winnings"])
    assert ots["prize_pool"] == sum(prize for *_, prize in got) == 300


@pytest.mark.parametrize(("url", "code", "sentence"), [
    (f"/tables/{CASH}/hands/99/ohh", 404, "table 'c1' has no hand 99"),
    ("/tables/nosuch/hands/1/ohh", 404, "no table 'nosuch'"),
    ("/tables/nosuch/ohh", 404, "no table 'nosuch'"),
    ("/director/tournaments/nosuch/ohh", 404, "no tournament 'nosuch'"),
    ("/director/tournaments/nosuch/summary.ohh", 404, "no tournament 'nosuch'"),
    ("/players/zoe/ohh", 404, "player 'zoe' has no finished hand to export"),
    ("/players/ben/ohh?day=2025-02-30", 422, "day"),
    (f"/tables/{CASH}/hands/4/ohh", 409,
     "hand 4 at table 'c1' has no OHH: it is in_progress: only a finished hand has one"),
])
def test_what_cannot_be_exported_is_said_in_a_sentence(
        client: TestClient, url: str, code: int, sentence: str) -> None:
    r = get(client, url)
    assert r.status_code == code, r.text
    said = r.json().get("detail") if code != 422 else r.json()["message"]
    assert sentence in said, said


# ------------------------------------------------------------------------- CLI
def test_pitboss_replay_reads_a_downloaded_day_back_to_the_stored_stacks(
        client: TestClient, tmp_path: Path) -> None:
    files = []
    for role in (Role.DIRECTOR, Role.VIEWER):  # every card, and the public copy
        r = get(client, f"/tables/{CASH}/ohh?day={DAY1}", role)
        assert r.status_code == 200
        files.append(tmp_path / f"c1-{role.value}.ohh")
        files[-1].write_bytes(r.content)
    done = subprocess.run([sys.executable, "-m", "controller.cli", "replay",
                           *map(str, files), "--json"], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    stored = [get(client, f"/tables/{CASH}/hands/{n}").json()["end_stacks"] for n in (1, 2)]
    assert [(line["source"], line["ok"], line["finishing_stacks"]) for line in lines] == [
        (f"{f}#{i}", True, stacks) for f in files for i, stacks in enumerate(stored, 1)]


# ------------------------------------------------------------------------- Chromium
@pytest.fixture(scope="module")
def served(built: Built, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A copy of the store served by uvicorn, for the pages."""
    need_websockets()
    path = tmp_path_factory.mktemp("served")
    copy_store(built, path)
    with RunningBridge(create_app(make_settings(path))) as running:
        yield running


def signed_in(browser: Any, served: Any, page_path: str, role: Role) -> Any:
    page = browser.new_context(accept_downloads=True).new_page()
    page.goto(f"{served.url}/dashboard/{page_path}")
    page.get_by_label("Access token").fill(TOKENS[role])
    page.get_by_role("button", name="Sign in").click()
    return page


def downloaded(page: Any, click: Any) -> tuple[str, bytes]:
    """What a click saves: the file's suggested name and its bytes."""
    with page.expect_download() as info:
        click()
    download = info.value
    return download.suggested_filename, Path(download.path()).read_bytes()


def test_the_floor_page_saves_the_last_finished_hand_as_the_routes_ohh(
        browser: Any, expect: Any, served: Any, client: TestClient) -> None:
    page = signed_in(browser, served, "", Role.FLOOR)
    table = page.locator(f'li.table-card[data-table="{CASH}"]')
    button = table.get_by_role("button", name="Hand #3 as OHH")  # hand 4 is in play
    expect(button).to_be_visible()
    name, body = downloaded(page, button.click)
    assert name == "c1-3.ohh"
    route = get(client, f"/tables/{CASH}/hands/3/ohh", Role.FLOOR)
    assert body == route.content  # the floor's copy: no card but those shown (CARD-4)
    VALIDATOR.validate(json.loads(body))
    expect(table.locator(".ohh-error")).to_have_count(0)
    page.context.close()


def test_the_table_view_lists_every_finished_hand_with_its_ohh_and_its_timeline(
        browser: Any, expect: Any, served: Any, client: TestClient) -> None:
    """Any finished hand, not only the last: the table view's Hands list (issue 21)."""
    page = signed_in(browser, served, "", Role.FLOOR)
    page.locator(f'li.table-card[data-table="{CASH}"]').get_by_role(
        "button", name=f"Table {CASH}").click()
    hands = page.locator("#detail ol.hand-list li")
    expect(hands).to_have_count(3)  # hand 4 is in play: not listed
    expect(hands.locator(".hand-no")).to_have_text(["Hand #3", "Hand #2", "Hand #1"])
    first = hands.nth(2)
    name, body = downloaded(page, first.get_by_role("button", name="OHH").click)
    assert name == f"{CASH}-1.ohh"
    assert body == get(client, f"/tables/{CASH}/hands/1/ohh", Role.FLOOR).content
    VALIDATOR.validate(json.loads(body))
    expect(first.get_by_role("link", name="Timeline")).to_have_attribute(
        "href", f"timeline.html?table={CASH}&hand=1")
    page.context.close()
    viewer = signed_in(browser, served, "", Role.VIEWER)  # the timeline is the floor's
    viewer.locator(f'li.table-card[data-table="{CASH}"]').get_by_role(
        "button", name=f"Table {CASH}").click()
    expect(viewer.locator("#detail ol.hand-list li")).to_have_count(3)
    expect(viewer.locator("#detail ol.hand-list").get_by_role("link")).to_have_count(0)
    viewer.context.close()


def test_the_director_page_saves_the_tournaments_hands_and_summary(
        browser: Any, expect: Any, served: Any, client: TestClient, built: Built) -> None:
    page = signed_in(browser, served, "director.html", Role.DIRECTOR)
    expect(page.locator("#t-who")).to_have_text("Signed in as director")
    expect(page.locator("#t-places tr")).to_have_count(3)
    name, body = downloaded(page, page.locator("#t-ohh").click)
    assert name == f"{built.tid}.ohh"
    route = get(client, f"/director/tournaments/{built.tid}/ohh", Role.DIRECTOR)
    assert body == route.content
    assert len(docs(route, name)) == 2
    name, body = downloaded(page, page.locator("#t-ots").click)
    assert name == f"{built.tid}.ots"
    assert body == get(client, f"/director/tournaments/{built.tid}/summary.ohh").content
    OTS_VALIDATOR.validate(json.loads(body))
    expect(page.locator("#t-error")).to_have_text("")
    page.context.close()
