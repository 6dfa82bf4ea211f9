"""The live feed (WebSocket): public events as they are applied, never hole cards; a
socket without a valid token is closed with the reason."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from host_bridge.bridge import Bridge
from host_bridge.settings import Role
from tests.bridge.conftest import TOKENS, auth
from tests.bridge.tablesim import WireTable, showdown_hand

URL = "/api/v1/feed"


def test_the_feed_streams_applied_events_in_seq_order_without_hole_cards(
        client: TestClient, bridge: Bridge) -> None:
    wire = WireTable()
    status = wire.status(True)
    messages = [wire.seat(seat, name, 1000) for seat, name in ((1, "a"), (2, "b"), (3, "c"))]
    messages += wire.hand(1, (1, 2, 3), showdown_hand())
    with client.websocket_connect(URL, headers=auth(Role.VIEWER)) as ws:
        assert ws.receive_json() == {"type": "hello", "role": "viewer"}
        # the status, then the events in the worst order: each applied only when contiguous
        for topic, payload in [status, *reversed(messages)]:
            client.portal.call(bridge.receive, topic, payload)  # type: ignore[union-attr]
        frames: list[dict[str, Any]] = []
        while not frames or frames[-1].get("type") != "hand_ended":
            frames.append(json.loads(ws.receive_text()))
            assert "AsKs" not in json.dumps(frames[-1]) and "Ks" not in json.dumps(frames[-1])
    seqs = [f["seq"] for f in frames if f["type"] == "event"]
    assert seqs == sorted(seqs) == list(range(1, len(seqs) + 1))
    assert frames[0] == {"type": "status", "table": "t1", "online": True, "ts": 1001.0}


def test_a_browser_may_send_the_token_as_the_first_frame(client: TestClient) -> None:
    with client.websocket_connect(URL) as ws:
        ws.send_text(json.dumps({"token": TOKENS[Role.BROADCAST]}))
        assert ws.receive_json() == {"type": "hello", "role": "broadcast"}


@pytest.mark.parametrize("first", ['{"token": "nope"}', "not json", '["token"]'])
def test_a_bad_token_closes_the_socket_with_4401_and_the_reason(client: TestClient,
                                                                first: str) -> None:
    with client.websocket_connect(URL) as ws:
        ws.send_text(first)
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_text()
    assert closed.value.code == 4401
    assert "bearer token" in closed.value.reason


def test_the_feed_is_not_in_the_http_schema(app: FastAPI) -> None:
    assert URL not in app.openapi()["paths"]


def test_a_closed_socket_ends_its_subscription(client: TestClient, bridge: Bridge) -> None:
    with client.websocket_connect(URL, headers=auth(Role.VIEWER)) as ws:
        ws.receive_json()
        assert bridge.feed.subscribers == 1
    # the server side notices the close on its own; poll the portal until it has
    for _ in range(1000):
        if client.portal.call(lambda: bridge.feed.subscribers) == 0:  # type: ignore[union-attr]
            break
    assert bridge.feed.subscribers == 0


def test_a_page_that_leaves_before_signing_in_ends_quietly(client: TestClient,
                                                          bridge: Bridge) -> None:
    """A browser closing the page while the feed waits for its token: no error, no
    subscription left (the app's exception would surface here, in the test client)."""
    with client.websocket_connect(URL) as ws:
        ws.close()
    with client.websocket_connect(URL, headers=auth(Role.VIEWER)) as ws:
        assert json.loads(ws.receive_text())["type"] == "hello"  # the feed still serves
    assert bridge.feed.subscribers == 0
