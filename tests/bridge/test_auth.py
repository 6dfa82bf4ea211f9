"""Roles and tokens: every route admits exactly its roles; 401 and 403 say what is wrong;
bad input is a 422 that names the field.

A request that may change the store (a write its role is admitted to) gets an app of its
own on a fresh copy of the played store; the rest (every read, and every request refused
at the door: 401, 403, 422) share one app for the module, since none of them changes
anything (each app takes ~0.3 s to start: ~300 requests here)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from host_bridge.settings import BridgeSettings, Role
from tests.bridge.conftest import ManualClock, auth, copy_played, make_app
from tests.bridge.tablesim import FakeBroker

EVERYONE = frozenset(Role)
PAUSE = {"command": {"name": "pause"}}
SET_LEVEL = {"command": {"name": "set_level", "level": 4}}
DIRECTORS = frozenset({Role.DIRECTOR, Role.ADMIN})
FLOOR_ROLES = frozenset({Role.FLOOR, Role.DIRECTOR, Role.ADMIN})

# (method, url, body, roles admitted)
ROUTES: list[tuple[str, str, dict[str, Any] | None, frozenset[Role]]] = [
    ("GET", "/api/v1/tables", None, EVERYONE),
    ("GET", "/api/v1/tables/t1", None, EVERYONE),
    ("GET", "/api/v1/tables/t1/hands", None, EVERYONE),
    ("GET", "/api/v1/tables/t1/hands/1", None, EVERYONE),
    ("GET", "/api/v1/tables/t1/hands/1/phh", None, EVERYONE),
    ("GET", "/api/v1/tables/t1/hole-cards", None, frozenset({Role.BROADCAST})),
    # a conflicting payload for a stored seq (issue 17): every role reads; the cards of a
    # secure/cards one are shown to the broadcast role only (tests/bridge/test_seq_guard.py)
    ("GET", "/api/v1/tables/t1/conflicts", None, EVERYONE),
    ("POST", "/api/v1/tables/t1/commands", PAUSE,
     frozenset({Role.FLOOR, Role.DIRECTOR, Role.ADMIN})),
    ("POST", "/api/v1/tables/t1/commands", SET_LEVEL, frozenset({Role.DIRECTOR, Role.ADMIN})),
    ("GET", "/api/v1/audit", None, frozenset({Role.DIRECTOR, Role.ADMIN})),
    # the houses and the rake ledger (issue 18): the floor's roles change a house, read rake
    ("GET", "/api/v1/houses", None, EVERYONE),
    ("POST", "/api/v1/tables/t1/house", {"house": "casino-plo"},
     frozenset({Role.FLOOR, Role.DIRECTOR, Role.ADMIN})),
    ("GET", "/api/v1/rake", None, frozenset({Role.FLOOR, Role.DIRECTOR, Role.ADMIN})),
    # the tournament director (issue 9): every role reads, director and admin act
    ("GET", "/api/v1/director/whoami", None, EVERYONE),
    ("GET", "/api/v1/director/tournaments", None, EVERYONE),
    ("GET", "/api/v1/director/tournaments/nosuch", None, EVERYONE),
    ("GET", "/api/v1/director/tournaments/nosuch/balancing", None, EVERYONE),
    ("GET", "/api/v1/director/tournaments/nosuch/hand-for-hand", None, EVERYONE),
    ("GET", "/api/v1/director/tournaments/nosuch/places", None, EVERYONE),
    ("POST", "/api/v1/director/tournaments", {"name": "Sunday", "tables": {"t1": 9},
                                              "players": ["ana", "ben"]}, DIRECTORS),
    ("POST", "/api/v1/director/tournaments/nosuch/players", {"player": "cleo"}, DIRECTORS),
    ("POST", "/api/v1/director/tournaments/nosuch/start", None, DIRECTORS),
    ("POST", "/api/v1/director/tournaments/nosuch/balancing", {}, DIRECTORS),
    ("POST", "/api/v1/director/tournaments/nosuch/last-hands", {}, DIRECTORS),
    ("POST", "/api/v1/director/tournaments/nosuch/players/ana/rebuy", None, DIRECTORS),
    ("POST", "/api/v1/director/tournaments/nosuch/players/ana/add-on", None, DIRECTORS),
    # the director's money (issue 19): re-entry, surrender, deals act; bounties, payouts read
    ("POST", "/api/v1/director/tournaments/nosuch/players/ana/re-entry", None, DIRECTORS),
    ("POST", "/api/v1/director/tournaments/nosuch/players/ana/surrender", {"chips": 100},
     DIRECTORS),
    ("GET", "/api/v1/director/tournaments/nosuch/deal", None, DIRECTORS),
    ("POST", "/api/v1/director/tournaments/nosuch/deal",
     {"method": "icm", "amounts": {"ana": 600, "ben": 400}}, DIRECTORS),
    ("GET", "/api/v1/director/tournaments/nosuch/bounties", None, EVERYONE),
    ("GET", "/api/v1/director/tournaments/nosuch/payouts", None, EVERYONE),
    # the floor's discipline (issue 19): penalties, cancel, sit & go act; the rest read
    ("GET", "/api/v1/director/tournaments/nosuch/floor", None, EVERYONE),
    ("POST", "/api/v1/director/tournaments/nosuch/penalties",
     {"player": "ana", "penalty": "warning"}, DIRECTORS),
    ("GET", "/api/v1/director/tournaments/nosuch/cancellation", None, EVERYONE),
    ("POST", "/api/v1/director/tournaments/nosuch/cancellation", {}, DIRECTORS),
    ("DELETE", "/api/v1/director/tournaments/nosuch/players/ana", None, DIRECTORS),
    ("GET", "/api/v1/director/tournaments/nosuch/log", None, FLOOR_ROLES),
    ("GET", "/api/v1/director/tournaments/nosuch/move-slips", None, EVERYONE),
    ("POST", "/api/v1/director/sit-and-go", {"buy_in": 1000, "table": "t1"}, DIRECTORS),
    # the cash room (issue 19): every role reads, the floor's roles act
    ("GET", "/api/v1/cash/games", None, EVERYONE),
    ("GET", "/api/v1/cash/games/nogame", None, EVERYONE),
    ("POST", "/api/v1/cash/games", {"house": "casino-nlhe", "tables": ["t1"]}, FLOOR_ROLES),
    ("POST", "/api/v1/cash/games/nogame/waiting", {"player": "cleo"}, FLOOR_ROLES),
    ("DELETE", "/api/v1/cash/games/nogame/waiting/ben", None, FLOOR_ROLES),
    ("POST", "/api/v1/cash/games/nogame/call", None, FLOOR_ROLES),
    ("POST", "/api/v1/cash/games/nogame/seat", {"player": "ben", "stack": 5000}, FLOOR_ROLES),
    ("POST", "/api/v1/cash/games/nogame/removals", {"player": "a", "table_id": "t1"},
     FLOOR_ROLES),
    ("POST", "/api/v1/cash/games/nogame/tables", {"table_id": "t1"}, FLOOR_ROLES),
    ("PUT", "/api/v1/cash/players/ana/options", {"auto_top_up": True}, FLOOR_ROLES),
    # the floor page (issue 20): every role reads the alerts and the summary, the floor acks
    ("GET", "/api/v1/alerts", None, EVERYONE),
    ("POST", "/api/v1/alerts/offline:t1/ack", None, FLOOR_ROLES),
    ("GET", "/api/v1/floor/summary", None, EVERYONE),
    # hand histories out (issue 21): OHH for every reader (hole cards by role, in
    # tests/bridge/test_ohh_routes.py), a player's own file for the roles that see cards;
    # the dispute timeline for the floor and up; the broadcast view for broadcast only
    ("GET", "/api/v1/tables/t1/hands/1/ohh", None, EVERYONE),
    ("GET", "/api/v1/tables/t1/ohh", None, EVERYONE),
    ("GET", "/api/v1/director/tournaments/nosuch/ohh", None, EVERYONE),
    ("GET", "/api/v1/director/tournaments/nosuch/summary.ohh", None, EVERYONE),
    ("GET", "/api/v1/players/a/ohh", None,
     frozenset({Role.BROADCAST, Role.DIRECTOR, Role.ADMIN})),
    ("GET", "/api/v1/tables/t1/hands/1/timeline", None, FLOOR_ROLES),
    ("GET", "/api/v1/tables/t1/hands/1/timeline.csv", None, FLOOR_ROLES),
    ("GET", "/api/v1/broadcast/tables/t1", None, frozenset({Role.BROADCAST})),
]
# what an admitted role gets when it is not a plain 200: created, or no such tournament
ADMITTED = {("POST", "/api/v1/director/tournaments"): 201,
            ("POST", "/api/v1/director/sit-and-go"): 201,  # over table t1
            **{(m, u): 404 for m, u, _, _ in ROUTES if "/tournaments/nosuch" in u},
            ("POST", "/api/v1/cash/games"): 201,  # and no cash game "nogame":
            **{(m, u): 404 for m, u, _, _ in ROUTES if "/games/nogame" in u},
            ("POST", "/api/v1/alerts/offline:t1/ack"): 404}  # t1 is online: no such alert

# Public on purpose, outside the matrix (issue 19): the players' clock screen hangs in the
# room with no one to sign it in; read-only, nothing private (tests/director/test_clock_screen.py)
PUBLIC = [("GET", "/api/v1/public/tournaments"),
          ("GET", "/api/v1/public/tournaments/{tid}/clock")]


READS = [r for r in ROUTES if r[0] == "GET"]
WRITES = [r for r in ROUTES if r[0] != "GET"]


def _ids(routes: list[tuple[str, str, dict[str, Any] | None, frozenset[Role]]]) -> list[str]:
    return [f"{m} {u} {b['command']['name'] if b and 'command' in b else ''}".strip()
            for m, u, b, _ in routes]


@pytest.fixture
def settings(played: BridgeSettings) -> BridgeSettings:
    """Every test here starts with table t1 online and one finished hand."""
    return played


@pytest.fixture(scope="module")
def reader(tmp_path_factory: pytest.TempPathFactory, played_db: Path) -> Iterator[TestClient]:
    """A client on one app for the module, on the played store: for requests that change
    nothing."""
    settings = copy_played(played_db, tmp_path_factory.mktemp("auth-reads"))
    with TestClient(make_app(settings, FakeBroker(), ManualClock())) as client:
        yield client


def test_the_matrix_covers_every_route_of_the_schema(reader: TestClient) -> None:
    paths = reader.get("/openapi.json").json()["paths"]
    schema_routes = {(m.upper(), p) for p, ops in paths.items() for m in ops}
    covered = {(m, url.replace("t1", "{table_id}").replace("hands/1", "hands/{hand_no}")
                .replace("players/ana/", "players/{player}/")
                .replace("tournaments/nosuch", "tournaments/{tid}")
                .replace("games/nogame", "games/{game_id}")
                .replace("waiting/ben", "waiting/{player}")
                .replace("alerts/offline:{table_id}", "alerts/{alert_id}")
                .replace("timeline.csv", "timeline.{export}")
                .replace("players/a/ohh", "players/{player}/ohh")
                .removesuffix("players/ana") + ("players/{player}" if url.endswith("players/ana")
                                                 else ""))
               for m, url, _, _ in ROUTES}
    assert schema_routes == covered | set(PUBLIC)


@pytest.mark.parametrize(("method", "url"), PUBLIC)
def test_the_public_routes_need_no_token(reader: TestClient, method: str, url: str) -> None:
    r = reader.request(method, url.replace("{tid}", "nosuch"))
    assert r.status_code in (200, 404), r.text  # never 401: no token is asked for


@pytest.mark.parametrize(("method", "url", "body", "roles"), READS, ids=_ids(READS))
@pytest.mark.parametrize("role", list(Role), ids=[r.value for r in Role])
def test_each_read_admits_exactly_its_roles(reader: TestClient, method: str,
                                            url: str, body: dict[str, Any] | None,
                                            roles: frozenset[Role], role: Role) -> None:
    admits_exactly(reader, method, url, body, roles, role)


@pytest.mark.parametrize(("method", "url", "body", "roles"), WRITES, ids=_ids(WRITES))
@pytest.mark.parametrize("role", list(Role), ids=[r.value for r in Role])
def test_each_write_admits_exactly_its_roles(request: pytest.FixtureRequest, reader: TestClient,
                                             method: str, url: str, body: dict[str, Any] | None,
                                             roles: frozenset[Role], role: Role) -> None:
    # an admitted write changes the store: an app of its own; a refused one changes nothing
    client = request.getfixturevalue("client") if role in roles else reader
    admits_exactly(client, method, url, body, roles, role)


def admits_exactly(client: TestClient, method: str, url: str, body: dict[str, Any] | None,
                   roles: frozenset[Role], role: Role) -> None:
    """``role`` gets the route's answer if it is one of ``roles``, else a 403 saying why."""
    r = client.request(method, url, json=body, headers=auth(role))
    if role in roles:
        assert r.status_code == ADMITTED.get((method, url), 200), r.text
    else:
        assert r.status_code == 403, r.text
        detail = r.json()["detail"]
        assert detail.startswith(f"role {role.value!r} may not ")
        assert "this needs one of: " in detail


@pytest.mark.parametrize(("method", "url", "body", "roles"), ROUTES)
def test_missing_or_unknown_tokens_get_401_saying_which(reader: TestClient, method: str,
                                                        url: str, body: dict[str, Any] | None,
                                                        roles: frozenset[Role]) -> None:
    missing = reader.request(method, url, json=body)
    assert missing.status_code == 401
    assert missing.headers["www-authenticate"] == "Bearer"
    assert missing.json()["detail"].startswith("missing bearer token")
    wrong = reader.request(method, url, json=body,
                           headers={"Authorization": "Bearer not-a-token-we-know-of"})
    assert wrong.status_code == 401
    assert wrong.json()["detail"].startswith("bearer token not recognised")
    basic = reader.request(method, url, json=body, headers={"Authorization": "Basic eDp5"})
    assert basic.status_code == 401
    assert "is not a bearer token" in basic.json()["detail"]


def test_floor_may_not_send_director_commands_and_is_told_who_may(reader: TestClient) -> None:
    for name, extra in (("set_level", {"level": 2}), ("hand_for_hand", {"on": True}),
                        ("colour_up", {"at_level": 5}), ("close_table", {})):
        r = reader.post("/api/v1/tables/t1/commands", headers=auth(Role.FLOOR),
                        json={"command": {"name": name, **extra}})
        assert r.status_code == 403
        assert r.json()["detail"] == (f"role 'floor' may not send {name}; this needs one of: "
                                      "admin, director")


@pytest.mark.parametrize(("body", "field"), [
    ({"command": {"name": "set_level", "level": 0}}, "body field command.set_level.level"),
    ({"command": {"name": "call_clock"}}, "body field command.call_clock.seat"),
    ({"command": {"name": "seat_player", "seat": 11, "player": "x", "stack": 5}},
     "body field command.seat_player.seat"),
    ({"command": {"name": "launch"}}, "body field command"),
    ({}, "body field command"),
])
def test_bad_command_input_is_422_naming_the_field(reader: TestClient, body: dict[str, Any],
                                                   field: str) -> None:
    r = reader.post("/api/v1/tables/t1/commands", headers=auth(Role.ADMIN), json=body)
    assert r.status_code == 422
    assert field in [e["field"] for e in r.json()["detail"]]
    assert r.json()["message"].startswith(f"invalid input: {field}")


def test_bad_path_and_query_values_are_422_naming_the_field(reader: TestClient) -> None:
    r = reader.get("/api/v1/tables/t1/hands/0", headers=auth(Role.VIEWER))
    assert r.status_code == 422 and r.json()["detail"][0]["field"] == "path field hand_no"
    r = reader.get("/api/v1/tables/bad%20id", headers=auth(Role.VIEWER))
    assert r.status_code == 422 and r.json()["detail"][0]["field"] == "path field table_id"
    r = reader.get("/api/v1/audit?limit=0", headers=auth(Role.ADMIN))
    assert r.status_code == 422 and r.json()["detail"][0]["field"] == "query field limit"


def test_unknown_table_is_404_saying_so(reader: TestClient) -> None:
    r = reader.get("/api/v1/tables/nowhere", headers=auth(Role.VIEWER))
    assert r.status_code == 404
    assert r.json()["detail"].startswith("no table 'nowhere' has reported to this bridge")
