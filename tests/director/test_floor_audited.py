"""A whole tournament through a real Mosquitto with real table processes, run by the
director through the REST API and then audited (issue 19).

Two ``pitboss table run --profile virtual --tournament`` processes (virtual dealer and
bots, the rules engine, their journals and MQTT links) and the bridge with its director
(in-process, its own MQTT link) meet at a private Mosquitto. The director does what a
tournament director does, only through the REST routes: creates a progressive-knockout
event with re-entry, registers the players, starts it, re-enters the first bust, gives a
seated player a hands penalty (PEN-1/4); once the final table plays, the floor pauses it
and lets it deal hand by hand to two or three players, previews an ICM chop and confirms
it (TOURN-29). The bots call all-ins freely, so now and then one hand takes four players
to one and there is no chop to make: that evening is audited as it ended (a winner) and
a fresh one is played, on fresh tables and a fresh bridge.

Then the audit, from what the bridge serves and stored: places 1..N each once (the chop's
players sharing 1..n), prizes adding up to the pool (buy-ins and the re-entry, bounties
aside), bounties paid adding up to the bounty money, every chip accounted for from the
tables' own events (:mod:`tests.director.chipaudit`), the penalty served by the table
(its ``penalty_served`` events), and every action a person took journaled with who took
it.
"""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import select

from host_bridge.app import create_app
from host_bridge.demo.game import structure_toml
from host_bridge.demo.tables import TableSpec
from host_bridge.director.journal import DirectorRecord
from host_bridge.director.options import STRUCTURES
from host_bridge.models import EventRecord
from host_bridge.settings import Role
from tests.bridge.conftest import auth, make_settings
from tests.bridge.tablesim import SITE
from tests.director.chipaudit import ChipAudit
from tests.sync.conftest import Mosquitto

API = "/api/v1"
URL = f"{API}/director/tournaments"
D, V = auth(Role.DIRECTOR), auth(Role.VIEWER)
DIRECTOR = {"name": "director-1", "role": "director"}
SEATS = 8  # two tables of eight: the final table forms at eight players left
PLAYERS = [f"p{i:02d}" for i in range(15)]  # 15 and a re-entry: 16 entries, two paid
START, BUY_IN, FEE, BOUNTY = 10_000, 10_000, 1_000, 2_000
LEVEL_S = 4.0  # the director's levels, in real seconds; the tables follow its SyncClock
WAIT_S = 90.0  # an upper bound for a slow, shared machine, not a budget
#: what a person did, journaled with ``by`` (the tables' reports and the clock are not)
ACTIONS = ("create", "register", "start", "re_enter", "penalty", "deal")


def until(check: Callable[[], Any], what: str, tables: list[subprocess.Popen[bytes]],
          within: float = WAIT_S) -> Any:
    """Poll ``check()`` until it gives something true; fail saying ``what`` was awaited
    (and which table process failed, if one did: a table broken by the director closes
    and exits 0)."""
    deadline = time.monotonic() + within
    while not (found := check()):
        failed = [(p.pid, p.returncode) for p in tables if p.poll() not in (None, 0)]
        assert not failed, f"a table process failed: {failed}"
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(0.03)
    return found


@contextmanager
def table_processes(tmp: Path, port: int, tables: list[str]
                    ) -> Iterator[list[subprocess.Popen[bytes]]]:
    """One controller process per table, stopped (SIGKILL by pid) if still running."""
    levels, _ = STRUCTURES["turbo"]
    structure = tmp / "structure.toml"
    # the director's levels, as the demo gives them its tables; no break (no colour-up)
    text = structure_toml(levels, LEVEL_S, (99, 60.0, ())).split("[[breaks]]")[0]
    structure.write_text(text)
    procs = []
    for wire in tables:
        spec = TableSpec(table=wire, broker=f"127.0.0.1:{port}", db=tmp / f"{wire}.db",
                         site=SITE, extra=("--autoplay", "0", "--tournament", "--structure",
                                           str(structure), "--speed", "1", "--pace", "0.01",
                                           "--seed", f"audit-{wire}"))
        with (tmp / f"{wire}.log").open("wb") as log:
            procs.append(subprocess.Popen(spec.command(), stdin=subprocess.DEVNULL,
                                          stdout=log, stderr=subprocess.STDOUT))
    try:
        yield procs
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
            p.wait(10)


def status(client: TestClient, tid: str) -> dict[str, Any]:
    r = client.get(f"{URL}/{tid}", headers=V)
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


def post(client: TestClient, path: str, body: Any = None) -> dict[str, Any]:
    r = client.post(path, json=body, headers=D)
    assert r.status_code in (200, 201), f"POST {path}: {r.status_code} {r.text}"
    out: dict[str, Any] = r.json()
    return out


def seated(s: dict[str, Any]) -> dict[str, tuple[str, int]]:
    """Each seated player's table and stack."""
    return {p["player"]: (t["table"], p["stack"]) for t in s["tables"] if not t["closed"]
            for p in t["players"]}


def stored(client: TestClient, kind: str) -> list[tuple[str, dict[str, Any]]]:
    """The tables' events of ``kind`` the bridge stored, with their table."""
    app: Any = client.app
    with app.state.sessions() as session:
        rows = session.execute(select(EventRecord.table_id, EventRecord.payload).where(
            EventRecord.kind == kind).order_by(EventRecord.id)).all()
    return [(t, json.loads(p)["event"]) for t, p in rows]


# -- the director's evening, through REST ---------------------------------------------------
def open_tournament(client: TestClient, procs: list[subprocess.Popen[bytes]],
                    tables: list[str]) -> str:
    def online() -> bool:
        known = client.get(f"{API}/tables", headers=V).json()["data"]
        return {t["id"] for t in known if t["online"]} >= set(tables)

    until(online, "both tables online", procs)
    tid: str = post(client, URL, {
        "name": "Audited PKO", "tables": dict.fromkeys(tables, SEATS), "structure": "turbo",
        "level_minutes": LEVEL_S / 60, "starting_stack": START, "buy_in": BUY_IN,
        "fee": FEE, "bounty": BOUNTY, "progressive": [5_000, 5_000], "re_entry": True,
        "max_entries": 2, "late_registration_levels": 18, "auto_balance": True,
        "seed": 19})["id"]
    for player in PLAYERS:  # registered one by one at the desk
        post(client, f"{URL}/{tid}/players", {"player": player})
    started = post(client, f"{URL}/{tid}/start")
    assert started["stage"] == "running" and started["entries"] == len(PLAYERS)
    return tid


def re_enter_first_bust(client: TestClient, tid: str, procs: list[Any]) -> str:
    """TOURN-4/6: the first player out buys a new entry, seated with a full stack."""
    places = until(lambda: status(client, tid)["places"], "a first bust", procs)
    bust = places[0]["player"]

    def re_entered() -> dict[str, Any] | None:
        """The re-entry, or None while no seat is open outside the blinds and the button
        (TOURN-4: refused with that rule; the floor waits for the next hand)."""
        r = client.post(f"{URL}/{tid}/players/{bust}/re-entry", headers=D)
        if r.status_code == 409 and r.headers.get("X-Rule") == "TOURN-4":
            return None
        assert r.status_code == 200, f"re-entry: {r.status_code} {r.text}"
        out: dict[str, Any] = r.json()
        return out

    after = until(re_entered, f"{bust}'s re-entry seated", procs)
    assert after["entries"] == len(PLAYERS) + 1
    assert after["prize_pool"] == (len(PLAYERS) + 1) * (BUY_IN - BOUNTY)  # bounties aside
    assert seated(after)[bust][1] == START  # the table seated the new entry, full stack
    return str(bust)


def penalise(client: TestClient, tid: str, procs: list[Any], spare: str) -> str:
    """PEN-1/4: two hands to sit out for the biggest stack (not ``spare``); the table
    deals them in and kills their hand, reporting ``penalty_served`` down to 0."""
    now = seated(status(client, tid))
    player = max((p for p in now if p != spare), key=lambda p: now[p][1])
    floor = post(client, f"{URL}/{tid}/penalties",
                 {"player": player, "penalty": "hands", "count": 2, "reason": "abuse"})
    assert {"player": player, "hands_left": 2} in [
        {k: p[k] for k in ("player", "hands_left")} for p in floor["penalties"]]

    def served() -> list[int]:
        left = [e["hands_left"] for _, e in stored(client, "penalty_served")
                if e["player"] == player]
        return left if left and left[-1] == 0 else []

    assert until(served, f"{player} served the penalty", procs) == [1, 0]
    return player


def command(client: TestClient, wire: str, name: str) -> bool:
    """The floor's ``pause`` or ``resume`` to a table (a paused table deals no hand);
    False if the table says it is paused (or running) already, or closed (the hand
    left a winner)."""
    r = client.post(f"{API}/tables/{wire}/commands", json={"command": {"name": name}},
                    headers=D)
    assert r.status_code == 200, r.text
    reply = r.json()
    assert reply["status"] == "ok" or any(
        word in reply["error"] for word in ("already", "closed")), reply
    return bool(reply["status"] == "ok")


def table(s: dict[str, Any], wire: str) -> dict[str, Any]:
    """One table of the tournament's status."""
    found: dict[str, Any] = next(t for t in s["tables"] if t["table"] == wire)
    return found


def between_hands(client: TestClient, tid: str, procs: list[Any]) -> dict[str, Any]:
    def idle() -> dict[str, Any] | None:
        now = status(client, tid)
        return None if any(t["in_hand"] for t in now["tables"]) else now

    found: dict[str, Any] = until(idle, "the hand in play ended", procs)
    return found


def dealing(client: TestClient, tid: str, wire: str, hands: int) -> Callable[[], bool]:
    """Whether ``wire`` has begun a hand after its ``hands``-th."""
    def check() -> bool:
        t = table(status(client, tid), wire)
        return bool(t["in_hand"] or t["hands"] > hands)
    return check


def down_to_three(client: TestClient, tid: str, procs: list[Any]) -> dict[str, Any]:
    """Once the final table plays, the floor pauses it and lets it deal one hand at a
    time until two or three are left (or a hand leaves a winner)."""
    def final_table() -> dict[str, Any] | None:
        now = status(client, tid)
        live = [t for t in now["tables"] if t["players"] and not t["closed"]]
        if now["stage"] != "running" or (len(live) == 1 and not live[0]["paused"]):
            return now  # (the director holds it while it seats the final table)
        return None

    s: dict[str, Any] = until(final_table, "the final table", procs)
    if s["stage"] != "running":
        return s
    (wire,) = (t["table"] for t in s["tables"] if t["players"] and not t["closed"])
    until(lambda: command(client, wire, "pause"), "the final table paused", procs)
    s = between_hands(client, tid, procs)
    while s["players_left"] > 3 and s["stage"] == "running":
        hands = table(s, wire)["hands"]
        assert command(client, wire, "resume")
        until(dealing(client, tid, wire, hands), "the next hand", procs)
        command(client, wire, "pause")  # the table stops after this hand
        s = between_hands(client, tid, procs)
    return s


def chop(client: TestClient, tid: str, procs: list[Any]) -> dict[str, int] | None:
    """TOURN-29: with two or three players left and their table paused, the floor shows
    the ICM chop and confirms it. None: one hand took the field from four (or more) to
    one, so there was no chop to make (these bots call all-ins freely: about one hand in
    five that busts anyone at four players busts three)."""
    s = down_to_three(client, tid, procs)
    if s["stage"] == "finished":
        assert s["players_left"] == 1 and s["winner"] is not None
        return None
    r = client.get(f"{URL}/{tid}/deal", params={"method": "icm"}, headers=D)
    assert r.status_code == 200, r.text
    preview = r.json()
    amounts = {p["player"]: p["amount"] for p in preview["players"]}
    assert len(amounts) == s["players_left"] and sum(amounts.values()) == preview["pool"]
    assert len(preview["prizes"]) == len(amounts) and preview["prizes"][1] > 0  # 2 paid
    done = post(client, f"{URL}/{tid}/deal", {"method": "icm", "amounts": amounts})
    assert done["stage"] == "finished"
    return amounts


ATTEMPTS = 4  # a fresh evening when the bots leave no chop to make (see chop())


def evening(tmp: Path, port: int, tables: list[str]) -> tuple[int, dict[str, int] | None]:
    """One tournament on fresh tables and a fresh bridge, driven and audited: its hands
    and the chop (None: a hand left a winner before the chop could be made)."""
    tmp.mkdir()
    app = create_app(make_settings(tmp, mqtt_port=port, command_timeout_s=15.0),
                     connect=True)
    with TestClient(app) as client, table_processes(tmp, port, tables) as procs:
        tid = open_tournament(client, procs, tables)
        again = re_enter_first_bust(client, tid, procs)
        punished = penalise(client, tid, procs, spare=again)
        deal = chop(client, tid, procs)
        until(lambda: all(p.poll() is not None for p in procs),
              "the tables closed at the end", procs)
        assert [p.returncode for p in procs] == [0, 0]
        hands = audit(client, tid, deal)
        journal_checked(client, tid, again, punished, deal is not None)
    return hands, deal


def test_tourn_29_a_pko_with_a_re_entry_a_penalty_and_a_chop_audited_end_to_end(
        tmp_path: Path, mosquitto: Mosquitto) -> None:
    began = time.perf_counter()
    for n in range(1, ATTEMPTS + 1):  # every evening is audited, chop or not
        hands, deal = evening(tmp_path / f"evening{n}", mosquitto.port,
                              [f"T{2 * n - 1}", f"T{2 * n}"])
        print(f"\nevening {n}: {hands} hands, "
              f"{'a chop among ' + str(len(deal)) if deal else 'a winner before the chop'}"
              f", {time.perf_counter() - began:.1f} s")
        if deal is not None:
            return
    raise AssertionError(f"{ATTEMPTS} evenings ended without a chop to make")


# -- the audit -----------------------------------------------------------------------------
def audit(client: TestClient, tid: str, dealt: dict[str, int] | None) -> int:
    """Places, prizes, bounties and chips add up; the hands played. ``dealt``: the chop
    (None: a winner, alone at place 1)."""
    s = status(client, tid)
    deal = dealt or {s["winner"]: s["prizes"][0]}
    entries = len(PLAYERS) + 1
    assert s["stage"] == "finished" and s["entries"] == entries and s["anomalies"] == []
    places = client.get(f"{URL}/{tid}/places", headers=V).json()["places"]
    assert len({p["entry"] for p in places}) == len(places) == entries  # each entry once
    spans = sorted((p["place"], p["place_to"]) for p in places)
    covered = [n for best, worst in set(spans) for n in range(best, worst + 1)]
    assert sorted(covered) == list(range(1, entries + 1))  # 1..N, shared spans once
    assert spans.count((1, len(deal))) == len(deal)  # the chop's players share 1..n

    pay = client.get(f"{URL}/{tid}/payouts", headers=V).json()
    assert pay["prize_pool"] == entries * (BUY_IN - BOUNTY)  # fees and bounties aside
    assert sum(p["prize"] for p in pay["paid"]) == pay["prize_pool"]
    made = None if dealt is None else {"method": "icm", "by": "director-1",
                                       "role": "director", "amounts": dealt}
    assert pay["deal"] == made
    chopped = [p for p in pay["paid"] if (p["place"], p["place_to"]) == (1, len(deal))]
    assert {p["player"]: p["prize"] for p in chopped} == deal  # a re-entry's first: out
    bounties = client.get(f"{URL}/{tid}/bounties", headers=V).json()
    assert sum(p["bounties"] for p in pay["paid"]) + bounties["residue"] == entries * BOUNTY
    assert sum(r["knockouts"] for r in bounties["players"]) >= entries - len(deal)

    chips = ChipAudit.of(stored_events(client))
    assert chips.problems == []
    issued = entries * START  # the starting stacks and the re-entry's
    assert chips.final_total == issued == chips.seated - chips.left
    assert sorted(chips.final) == sorted(deal)  # the chop's players hold every chip
    assert chips.hands == s["figures"]["hands"] > 0  # the director heard every hand
    return chips.hands


def stored_events(client: TestClient) -> list[tuple[str, str, dict[str, Any]]]:
    app: Any = client.app
    with app.state.sessions() as session:
        rows = session.execute(select(EventRecord.table_id, EventRecord.kind,
                                      EventRecord.payload)
                               .order_by(EventRecord.table_id, EventRecord.seq)).all()
    return [(t, k, json.loads(p)["event"]) for t, k, p in rows]


def journal_checked(client: TestClient, tid: str, again: str, punished: str,
                    dealt: bool) -> None:
    """Every action a person took is journaled with who took it (and on whom)."""
    app: Any = client.app
    with app.state.sessions() as session:
        rows = session.execute(select(DirectorRecord.kind, DirectorRecord.body).where(
            DirectorRecord.tournament == tid).order_by(DirectorRecord.seq)).all()
    acts = [(kind, body) for kind, body in rows if kind in ACTIONS]
    kinds = [k for k, _ in acts]
    assert kinds.count("register") == len(PLAYERS) and kinds.count("create") == 1
    assert kinds.count("start") == 1 and kinds.count("deal") == int(dealt)
    assert [b["player"] for k, b in acts if k == "re_enter"] == [again]
    assert [(b["player"], b["count"]) for k, b in acts if k == "penalty"] == [(punished, 2)]
    unsigned = [(k, b.get("player")) for k, b in acts if b.get("by") != DIRECTOR]
    assert unsigned == [], f"journaled without the director who did it: {unsigned}"


def test_the_chip_audit_finds_a_chip_made_or_lost_and_a_stack_that_moved_wrong() -> None:
    """The audit above can fail: a hand that makes a chip, a move that carries the wrong
    stack, each is reported; a clean run adds up."""
    rows: list[tuple[str, str, dict[str, Any]]] = [
        ("T1", "player_seated", {"seat": 1, "player": "a", "stack": 100}),
        ("T1", "player_seated", {"seat": 2, "player": "b", "stack": 100}),
        ("T1", "player_seated", {"seat": 3, "player": "c", "stack": 100}),
        ("T1", "hand_started", {"hand_no": 1, "seats": [1, 2, 3], "stacks": [100, 100, 100]}),
        ("T1", "hand_ended", {"hand_no": 1, "stacks": [200, 0, 100]}),
        ("T1", "player_busted", {"seat": 2, "player": "b", "hand_no": 1}),
        ("T1", "player_moved", {"seat": 3, "player": "c", "stack": 100, "to_table": "T2"}),
        ("T2", "player_seated", {"seat": 5, "player": "c", "stack": 100})]
    clean = ChipAudit.of(rows)
    assert clean.problems == [] and clean.final == {"a": 200, "c": 100}
    assert clean.seated - clean.left == clean.final_total == 300 and clean.hands == 1
    made = list(rows)
    made[4] = ("T1", "hand_ended", {"hand_no": 1, "stacks": [201, 0, 100]})
    assert ChipAudit.of(made).problems == ["T1: hand 1 ended with 301 chips of 300"]
    moved = list(rows)
    moved[6] = ("T1", "player_moved", {"seat": 3, "player": "c", "stack": 90, "to_table": "T2"})
    assert len(ChipAudit.of(moved).problems) == 1
