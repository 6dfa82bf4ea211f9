"""A finished hand as PHH, the same text the rules engine exports for that hand; hole
cards only for ``broadcast``, and in a live hand only after the configured delay."""

from __future__ import annotations

from fastapi.testclient import TestClient

from controller.events import PublicState, SeatView
from controller.rules import phh
from controller.rules.replay import history_from_hand
from host_bridge.bridge import Bridge
from host_bridge.settings import Role
from tests.bridge.conftest import ManualClock, auth
from tests.bridge.tablesim import WireTable, showdown_hand

PLAYERS = (("alice", 1), ("bob", 2), ("carol", 3))


def play(bridge: Bridge, *, finish: bool = True) -> list[tuple[str, bytes]]:
    """Seat three players and play the showdown hand (all of it, or up to the flop)."""
    wire = WireTable()
    messages = [wire.seat(seat, name, 1000) for name, seat in PLAYERS]
    hand = wire.hand(1, (1, 2, 3), showdown_hand())
    messages += hand if finish else hand[:11]  # up to the flop
    for topic, payload in messages:
        bridge.ingest.take(topic, payload)
    return messages


def test_phh_of_a_finished_hand_for_broadcast_is_the_engines_export(
        client: TestClient, bridge: Bridge) -> None:
    play(bridge)
    expected = phh.dumps(history_from_hand(showdown_hand(), players=["alice", "bob", "carol"]))
    r = client.get("/api/v1/tables/t1/hands/1/phh", headers=auth(Role.BROADCAST))
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("text/plain")
    assert r.text == expected
    assert phh.loads(r.text)[0].finishing_stacks == (995, 970, 1035)


def test_phh_for_other_roles_masks_hole_cards_nobody_showed(client: TestClient,
                                                            bridge: Bridge) -> None:
    play(bridge)
    for role in (Role.VIEWER, Role.FLOOR, Role.DIRECTOR, Role.ADMIN):
        r = client.get("/api/v1/tables/t1/hands/1/phh", headers=auth(role))
        assert r.status_code == 200, r.text
        assert "AsKs" not in r.text  # player 1 folded: never shown
        assert '"d dh p1 ????"' in r.text
        assert '"p2 sm 7c2d"' in r.text and '"p3 sm QhQd"' in r.text  # shown at showdown


def test_hand_record_and_phh_of_a_hand_in_progress(client: TestClient, bridge: Bridge) -> None:
    play(bridge, finish=False)
    r = client.get("/api/v1/tables/t1/hands/1", headers=auth(Role.VIEWER))
    assert r.status_code == 200
    assert r.json()["status"] == "in_progress" and r.json()["board"] == ["2h", "5c", "9s"]
    r = client.get("/api/v1/tables/t1/hands/1/phh", headers=auth(Role.BROADCAST))
    assert r.status_code == 409
    assert "only a finished hand has a PHH" in r.json()["detail"]
    assert client.get("/api/v1/tables/t1/hands/2", headers=auth(Role.VIEWER)).status_code == 404


def test_hole_cards_are_withheld_until_the_delay_passes(client: TestClient, bridge: Bridge,
                                                        clock: ManualClock) -> None:
    play(bridge, finish=False)
    url = "/api/v1/tables/t1/hole-cards"
    r = client.get(url, headers=auth(Role.BROADCAST))
    assert r.status_code == 200
    assert r.json()["released"] == [] and r.json()["withheld"] == 3
    clock.now += 29.9
    assert client.get(url, headers=auth(Role.BROADCAST)).json()["withheld"] == 3
    clock.now += 0.1  # the configured 30 s
    body = client.get(url, headers=auth(Role.BROADCAST)).json()
    assert body["withheld"] == 0
    assert [(c["seat"], c["cards"]) for c in body["released"]] == [
        (1, ["As", "Ks"]), (2, ["7c", "2d"]), (3, ["Qh", "Qd"])]


def test_hole_cards_are_released_when_the_hand_ends(client: TestClient,
                                                    bridge: Bridge) -> None:
    play(bridge)
    body = client.get("/api/v1/tables/t1/hole-cards", headers=auth(Role.BROADCAST)).json()
    assert body["hand_over"] and body["withheld"] == 0 and len(body["released"]) == 3


def test_hole_cards_are_refused_to_every_role_but_broadcast(client: TestClient,
                                                            bridge: Bridge,
                                                            clock: ManualClock) -> None:
    play(bridge)
    clock.now += 3600
    for role in (Role.VIEWER, Role.FLOOR, Role.DIRECTOR, Role.ADMIN):
        r = client.get("/api/v1/tables/t1/hole-cards", headers=auth(role))
        assert r.status_code == 403
        assert r.json()["detail"] == (f"role {role.value!r} may not see hole cards; this needs "
                                      "one of: broadcast")


def test_no_public_route_carries_a_hole_card(client: TestClient, bridge: Bridge) -> None:
    play(bridge, finish=False)
    for url in ("/api/v1/tables", "/api/v1/tables/t1", "/api/v1/tables/t1/hands",
                "/api/v1/tables/t1/hands/1"):
        for role in Role:
            text = client.get(url, headers=auth(role)).text
            assert "Ks" not in text and "Qd" not in text, (url, role)


def test_table_state_after_a_hand(client: TestClient, bridge: Bridge) -> None:
    play(bridge)
    body = client.get("/api/v1/tables/t1", headers=auth(Role.VIEWER)).json()
    assert body["reported"] is None  # the table has not published a snapshot yet
    bridge.ingest.take(*WireTable().state(PublicState(level=2, hand_no=1, seats=(
        SeatView(seat=1, player="alice", stack=995),))))
    body = client.get("/api/v1/tables/t1", headers=auth(Role.VIEWER)).json()
    assert body["reported"]["level"] == 2 and body["reported"]["seats"][0]["stack"] == 995
    assert [(s["seat"], s["player"], s["stack"]) for s in body["seats"]] == [
        (1, "alice", 995), (2, "bob", 970), (3, "carol", 1035)]
    assert body["hand_no"] == 1 and not body["hand_in_progress"]
    hands = client.get("/api/v1/tables/t1/hands", headers=auth(Role.VIEWER)).json()
    assert hands["count"] == 1 and hands["data"][0]["phh_available"]


def test_a_hand_whose_events_do_not_replay_has_no_phh_and_says_why(client: TestClient,
                                                                   bridge: Bridge) -> None:
    hand = showdown_hand()
    hand.stacks[0] += 5  # the table reports stacks the actions cannot produce
    hand.stacks[2] -= 5
    wire = WireTable()
    for topic, payload in [wire.seat(seat, name, 1000) for name, seat in PLAYERS] + \
            wire.hand(1, (1, 2, 3), hand):
        bridge.ingest.take(topic, payload)
    r = client.get("/api/v1/tables/t1/hands/1/phh", headers=auth(Role.VIEWER))
    assert r.status_code == 409
    assert r.json()["detail"] == (
        "hand 1 at table 't1' has no PHH: hand 1: the replay ends with stacks "
        "[995, 970, 1035], the table reported [1000, 970, 1030]")
