"""Schemathesis over the published OpenAPI schema: no input, valid or not, makes the bridge
answer 5xx. The fake broker always replies and the table is online, so the command path's
documented 503/504 cannot occur either.

Schemathesis' pytest plugin (``@schema.parametrize`` on a fixture) does not run under
pytest 9, so each operation's strategy is driven by Hypothesis directly.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
import schemathesis
from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error

from host_bridge.app import create_app
from host_bridge.settings import Role
from tests.bridge.conftest import ManualClock, auth, make_settings
from tests.bridge.tablesim import FakeBroker

OPERATIONS = [
    ("GET", "/api/v1/tables"), ("GET", "/api/v1/tables/{table_id}"),
    ("GET", "/api/v1/tables/{table_id}/hole-cards"), ("GET", "/api/v1/tables/{table_id}/hands"),
    ("GET", "/api/v1/tables/{table_id}/conflicts"),  # issue 17
    ("GET", "/api/v1/tables/{table_id}/hands/{hand_no}"),
    ("GET", "/api/v1/tables/{table_id}/hands/{hand_no}/phh"),
    ("POST", "/api/v1/tables/{table_id}/commands"), ("GET", "/api/v1/audit"),
    # the houses and the rake ledger (issue 18)
    ("GET", "/api/v1/houses"), ("POST", "/api/v1/tables/{table_id}/house"),
    ("GET", "/api/v1/rake"),
    # the tournament director (issue 9)
    ("GET", "/api/v1/director/whoami"),
    ("GET", "/api/v1/director/tournaments"), ("POST", "/api/v1/director/tournaments"),
    ("GET", "/api/v1/director/tournaments/{tid}"),
    ("POST", "/api/v1/director/tournaments/{tid}/players"),
    ("POST", "/api/v1/director/tournaments/{tid}/start"),
    ("GET", "/api/v1/director/tournaments/{tid}/balancing"),
    ("POST", "/api/v1/director/tournaments/{tid}/balancing"),
    ("GET", "/api/v1/director/tournaments/{tid}/hand-for-hand"),
    ("GET", "/api/v1/director/tournaments/{tid}/places"),
    ("POST", "/api/v1/director/tournaments/{tid}/last-hands"),
    ("POST", "/api/v1/director/tournaments/{tid}/players/{player}/rebuy"),
    ("POST", "/api/v1/director/tournaments/{tid}/players/{player}/add-on"),
    # the director's money (issue 19)
    ("POST", "/api/v1/director/tournaments/{tid}/players/{player}/re-entry"),
    ("POST", "/api/v1/director/tournaments/{tid}/players/{player}/surrender"),
    ("GET", "/api/v1/director/tournaments/{tid}/deal"),
    ("POST", "/api/v1/director/tournaments/{tid}/deal"),
    ("GET", "/api/v1/director/tournaments/{tid}/bounties"),
    ("GET", "/api/v1/director/tournaments/{tid}/payouts"),
    # the floor's discipline (issue 19)
    ("GET", "/api/v1/director/tournaments/{tid}/floor"),
    ("POST", "/api/v1/director/tournaments/{tid}/penalties"),
    ("GET", "/api/v1/director/tournaments/{tid}/cancellation"),
    ("POST", "/api/v1/director/tournaments/{tid}/cancellation"),
    ("DELETE", "/api/v1/director/tournaments/{tid}/players/{player}"),
    ("GET", "/api/v1/director/tournaments/{tid}/log"),
    ("GET", "/api/v1/director/tournaments/{tid}/move-slips"),
    ("POST", "/api/v1/director/sit-and-go"),
    # the players' clock screen (issue 19): public, no token
    ("GET", "/api/v1/public/tournaments"), ("GET", "/api/v1/public/tournaments/{tid}/clock"),
    # the cash room (issue 19)
    ("GET", "/api/v1/cash/games"), ("POST", "/api/v1/cash/games"),
    ("GET", "/api/v1/cash/games/{game_id}"),
    ("POST", "/api/v1/cash/games/{game_id}/waiting"),
    ("DELETE", "/api/v1/cash/games/{game_id}/waiting/{player}"),
    ("POST", "/api/v1/cash/games/{game_id}/call"), ("POST", "/api/v1/cash/games/{game_id}/seat"),
    ("POST", "/api/v1/cash/games/{game_id}/removals"),
    ("POST", "/api/v1/cash/games/{game_id}/tables"),
    ("PUT", "/api/v1/cash/players/{player}/options"),
    # the floor page (issue 20)
    ("GET", "/api/v1/alerts"), ("POST", "/api/v1/alerts/{alert_id}/ack"),
    ("GET", "/api/v1/floor/summary"),
    # hand histories out, the dispute timeline and the broadcast view (issue 21)
    ("GET", "/api/v1/tables/{table_id}/hands/{hand_no}/ohh"),
    ("GET", "/api/v1/tables/{table_id}/ohh"),
    ("GET", "/api/v1/director/tournaments/{tid}/ohh"),
    ("GET", "/api/v1/director/tournaments/{tid}/summary.ohh"),
    ("GET", "/api/v1/players/{player}/ohh"),
    ("GET", "/api/v1/tables/{table_id}/hands/{hand_no}/timeline"),
    ("GET", "/api/v1/tables/{table_id}/hands/{hand_no}/timeline.{export}"),
    ("GET", "/api/v1/broadcast/tables/{table_id}"),
]
EXAMPLES = 30


@pytest.fixture(scope="module")
def fuzzed_app(played_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[FastAPI]:
    """One app for the whole fuzz run, on a copy of the played store."""
    path = tmp_path_factory.mktemp("fuzz")
    shutil.copy(played_db, path / "bridge.db")
    broker = FakeBroker()
    app = create_app(make_settings(path), publisher=broker, clock=ManualClock())
    broker.deliver = app.state.bridge.receive
    with TestClient(app):  # run the lifespan
        yield app


def test_the_fuzzed_operations_are_all_of_the_schema(fuzzed_app: FastAPI) -> None:
    paths = fuzzed_app.openapi()["paths"]
    assert sorted((m.upper(), p) for p, ops in paths.items() for m in ops) == sorted(OPERATIONS)


@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE],
                         ids=["valid", "invalid"])
@pytest.mark.parametrize(("method", "path"), OPERATIONS, ids=[f"{m} {p}" for m, p in OPERATIONS])
def test_no_input_gives_a_server_error(fuzzed_app: FastAPI, method: str, path: str,
                                       mode: GenerationMode) -> None:
    schema = schemathesis.openapi.from_asgi("/openapi.json", fuzzed_app)
    operation = schema[path][method]
    # the role that passes the route's check, so the fuzz reaches the handler
    role = Role.BROADCAST if path.endswith("/hole-cards") else Role.ADMIN

    @given(case=operation.as_strategy(generation_mode=mode), data=st.data())
    @settings(max_examples=EXAMPLES, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    def run(case: schemathesis.Case, data: st.DataObject) -> None:  # type: ignore[type-arg]
        if mode is GenerationMode.POSITIVE and data.draw(st.booleans(), "existing table"):
            params = case.path_parameters or {}
            params.update({k: v for k, v in (("table_id", "t1"), ("hand_no", 1)) if k in params})
        case.call_and_validate(headers=auth(role), checks=[not_a_server_error])

    run()
