"""The firmware in the loop: ``tournament-10`` with its ten seat nodes running the real
``firmware/`` on MicroPython (the WebAssembly build under node, reading simulated MFRC522
chips at register level) behind pseudo-terminals, through a real Mosquitto to the bridge.

The controller runs as ``pitboss table run --profile tournament-10 --backend mock
--seat-ports DIR`` runs it (the runner's own ``run_table``; the Pi-attached board, muck and
deck readers are mocks, the seat nodes real serial lines). The floor seats the players
through the bridge's command route; the dealer enrols a deck at the deck reader and deals
hands: hole cards placed at the simulated nodes' readers, the board and burns at the mock
readers, every dealer action keyed on the dealer's keypad (a fake evdev device read by
the real reader). The bridge stores the hands with the hole cards the nodes read. A node
unplugged during the run shows on the floor and comes back. The last test runs the issue's
"done when" line as a technician would: two commands, as subprocesses.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import re
import shutil
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
from fastapi.testclient import TestClient

from controller.app import TableJournal, open_desk
from controller.devices.mock import MockTable
from controller.devices.seatlines import SeatLines
from controller.events import DeckReport, HandEnded, HandShown, HandStarted, PublicEvent
from controller.rules.cards import DECK, Card
from controller.sync.messages import EventMessage, parse_message
from controller.table.base import Stage
from controller.table.deck import DeckLibrary
from controller.table.table import Table
from controller.table_runner import RunOptions, run_table
from controller.terminal.desk import Desk
from controller.terminal.keymap import KeyMap, load_keymap
from controller.terminal.keypad import run_keypad
from host_bridge.app import create_app
from host_bridge.settings import Role
from tests.bridge.conftest import auth, make_settings
from tests.bridge.tablesim import SITE
from tests.firmware.simnodes import PACKAGE, SimulatorProcess
from tests.needs import missing
from tests.sync.conftest import ROOT, Mosquitto
from tests.table.conftest import DECKMAP, UIDS
from tests.terminal.fakes import FakeInputs, FakeKeypad

GUARD = 60.0  # seconds before a stuck wait fails (not a budget: a shared, loaded machine)
PAD = "/dev/input/by-id/dealer-keypad"
WORDS = {"+": "plus", ".": "dot"}
PLAYERS = {2: "ann", 5: "bob", 9: "cy"}
STACK = 10_000


def need_simulator() -> None:
    if shutil.which("node") is None or not (PACKAGE / "micropython.mjs").is_file():
        missing("node or the MicroPython npm package is absent (run `npm ci` in "
                "tests/firmware/mpy): the simulated seat nodes run on it")


def uid(card: str) -> bytes:
    return UIDS[Card.parse(card)]


async def until(check: Callable[[], bool], what: str, guard: float = GUARD) -> None:
    try:
        async with asyncio.timeout(guard):
            while not check():
                await asyncio.sleep(0.01)
    except TimeoutError:
        raise AssertionError(f"gave up waiting for {what}") from None


@dataclass
class Loop:
    """The table in the loop: the simulated nodes, the controller's table and hardware,
    the dealer's desk and keypad, and the floor's bridge."""

    sim: SimulatorProcess
    table: Table
    hw: MockTable
    sink: TableJournal
    desk: Desk
    pad: FakeKeypad
    keymap: KeyMap
    floor: TestClient
    placed: list[tuple[str, bytes]]

    # ---------------------------------------------------------------- the dealer's hands
    async def keys(self, text: str) -> None:
        """Dealer keys by name on the keypad, as tests/terminal's rig presses them."""
        for word in text.split():
            if word in ("00", "000"):
                names = [word]
            elif any(ch.isdigit() for ch in word):
                names = ["dot" if ch == "." else ch for ch in word]
            else:
                names = [WORDS.get(word, word)]
            for name in names:
                self.pad.press(self.keymap.code_of(name))
        await self.pad.settle()
        await asyncio.sleep(0)

    def events(self) -> list[PublicEvent]:
        return [parse_message(EventMessage, p.public).event
                for p in self.sink.outbox.journal.parcels(0, limit=10**6)]

    async def hole(self, seat: int, index: int, card: str) -> None:
        """A hole card placed on seat ``seat``'s node, at its reader ``index``."""
        tag = uid(card)
        await self.sim.send(f"place {seat} {index} {tag.hex()}")
        self.placed.append((f"node {seat} {index}", tag))
        await until(lambda: tag in self.hw.present(f"seat{seat}"),
                    f"{card} at seat {seat}'s node to reach the table")

    async def deal(self, hands: dict[int, str]) -> None:
        """Hole cards one at a time clockwise, from the first seat of ``hands``."""
        for k in range(2):
            for seat, cards in hands.items():
                await self.hole(seat, k, cards[2 * k: 2 * k + 2])
        await until(lambda: self.state_hand() is not None
                    and self.state_hand().to_act is not None,
                    "the deal to end and the betting to start")

    def state_hand(self) -> Any:
        return self.sink.outbox.state.hand

    async def at(self, reader: str, card: str) -> None:
        """A card at one of the Pi's (mock) readers: board, muck, deck."""
        tag = uid(card)
        self.hw.drive_card_placed(reader, tag)
        self.placed.append((reader, tag))
        await until(lambda: tag in self.hw.present(reader), f"{card} at {reader}")

    async def street(self, burn: str, cards: str, first: int) -> None:
        """The burn at the muck, then the street's cards at board readers ``first``...."""
        board = len(self.sink.outbox.state.hand.board)  # type: ignore[union-attr]
        await self.at("muck", burn)
        for i in range(0, len(cards), 2):
            await self.at(f"board{first + i // 2}", cards[i: i + 2])
        want = board + len(cards) // 2
        await until(lambda: self.state_hand() is not None
                    and len(self.state_hand().board) == want, f"the board to show {cards}")

    async def gather(self) -> None:
        """Every card off every reader: the nodes' and the Pi's."""
        for where, tag in self.placed:
            if where.startswith("node "):
                _, seat, index = where.split()
                await self.sim.send(f"lift {seat} {index}")
            else:
                self.hw.drive_card_lifted(where, tag)
        self.placed.clear()
        readers = list(self.hw.readers)
        await until(lambda: not any(self.hw.present(r) for r in readers),
                    "the cards to leave every reader")

    async def to_idle(self) -> None:
        """The dealer's deal key until the hand is settled (shows, the pot pushed)."""
        for _ in range(6):
            if self.desk.screen().stage == Stage.IDLE:
                return
            await self.keys("deal")
        raise AssertionError(f"the hand did not end: {self.desk.screen().stage}")

    # ---------------------------------------------------------------- the floor
    async def api(self, method: str, path: str, role: Role = Role.VIEWER, **kw: Any) -> Any:
        response = await asyncio.to_thread(self.floor.request, method, f"/api/v1{path}",
                                           headers=auth(role), **kw)
        assert response.status_code == 200, response.text
        return response.json() if "json" in response.headers["content-type"] else \
            response.text

    async def floor_sees(self, check: Callable[[dict[str, Any]], bool], what: str) -> None:
        async def seen() -> None:
            while True:
                response = await asyncio.to_thread(self.floor.get, "/api/v1/tables/T1",
                                                   headers=auth(Role.VIEWER))
                if response.status_code == 200 and check(response.json()):
                    return
                await asyncio.sleep(0.05)

        try:
            async with asyncio.timeout(GUARD):
                await seen()
        except TimeoutError:
            raise AssertionError(f"the floor never saw {what}") from None


@contextlib.asynccontextmanager
async def in_the_loop(tmp: Path, broker: Mosquitto) -> AsyncIterator[Loop]:
    """The bridge on the broker, ten simulated nodes, the controller and its keypad."""
    ports = tmp / "ports"
    app = create_app(make_settings(tmp, mqtt_port=broker.port), connect=True)
    with TestClient(app) as floor:
        async with SimulatorProcess("tournament-10", ports) as sim:
            got: dict[str, Any] = {}
            inputs = FakeInputs()
            pad = inputs.plug(PAD)

            def attach(table: Table, sink: TableJournal) -> None:
                desk = open_desk(table, sink)
                profile = table.hardware.profile
                assert profile.keypad is not None  # tournament-10's dealer-48 keypad
                keymap = load_keymap(profile.keypad.map)
                got.update(table=table, sink=sink, desk=desk, keymap=keymap,
                           keypad=asyncio.create_task(run_keypad(desk, PAD, keymap,
                                                                 opener=inputs.open)))

            options = RunOptions(backend="mock", seat_ports=str(ports), table_ready=attach)
            run = asyncio.create_task(run_table(
                "tournament-10", site=SITE, table_id="T1", broker=f"127.0.0.1:{broker.port}",
                db_path=tmp / "t1.db", options=options), name="controller")
            try:
                await until(lambda: "table" in got or run.done(), "the controller to start")
                if run.done():
                    run.result()  # it failed: say why
                hw = got["table"].hardware
                assert isinstance(hw, MockTable)
                yield Loop(sim, got["table"], hw, got["sink"], got["desk"], pad,
                           got["keymap"], floor, [])
            finally:
                run.cancel()
                if "keypad" in got:
                    got["keypad"].cancel()
                await asyncio.gather(run, *([got["keypad"]] if "keypad" in got else []),
                                     return_exceptions=True)


def test_tournament_10_plays_hands_from_simulated_seat_nodes_to_the_bridge(
        tmp_path: Path, mosquitto: Mosquitto) -> None:
    need_simulator()

    async def scenario() -> None:
        async with in_the_loop(tmp_path, mosquitto) as t:
            lines = t.hw.backend.seat_link
            assert isinstance(lines, SeatLines)  # the runner opened the profile's ports
            assert lines.online() == tuple(range(1, 11))
            assert set(lines.firmware.values()) == {(0, 1, 0)}
            await t.floor_sees(lambda table: table["online"], "the table online")
            for seat, player in PLAYERS.items():  # the floor seats them (its command route)
                reply = await t.api("POST", "/tables/T1/commands", Role.FLOOR, json={
                    "command": {"name": "seat_player", "seat": seat, "player": player,
                                "stack": STACK}})
                assert reply["status"] == "ok", reply

            # CARD-1: a new deck enrolled at the deck reader, card by card in deck order
            await t.keys("enrol")
            assert t.desk.screen().stage == Stage.ENROLLING
            for card in DECK:
                await t.at("deck", str(card))
            await t.keys("enrol")
            enrolled = [e for e in t.events() if isinstance(e, DeckReport)]
            assert [e.what for e in enrolled] == ["enrolled"], t.desk.reply
            await t.gather()

            # hand 1: the button on seat 2; called and checked down, two hands shown
            await t.keys("2 button deal")
            await t.deal({5: "AhKh", 9: "2c3d", 2: "9s9d"})
            assert t.state_hand().to_act == 2  # the button acts first three-handed
            mark = len(t.sim.lines)
            await t.sim.expect(r"^ring 2 2 ", since=0)  # seat 2's ring lit: its turn
            await t.keys("call call check")
            await t.sim.expect(r"^ring 2 [01] ", since=mark)  # and dark again after
            await t.street("Qc", "3h4h5s", first=1)
            await t.keys("check check check")
            await t.street("8h", "Jc", first=4)
            await t.keys("check check check")
            await t.street("Jd", "Qd", first=5)
            await t.keys("check check check")
            await t.to_idle()
            shown = {e.cards for e in t.events() if isinstance(e, HandShown)}
            assert ("9s", "9d") in shown  # the nines the node at seat 2 read
            await t.gather()

            # hand 2: the button moves to seat 5 and raises; both blinds fold
            await t.keys("deal")
            await t.deal({9: "KsKd", 2: "7c2d", 5: "8c3s"})
            await t.keys("3 bb bet fold fold")
            await t.to_idle()
            await t.gather()

            ended = [e for e in t.events() if isinstance(e, HandEnded)]
            starts = [e for e in t.events() if isinstance(e, HandStarted)]
            assert [e.hand_no for e in ended] == [1, 2] and len(starts) == 2
            stacks = {v.seat: v.stack for v in t.sink.outbox.state.seats}
            # the nines win hand 1's 300 (AhKh ace high, 2c3d a pair of threes); the
            # button takes hand 2's blinds
            assert stacks == {2: STACK + 200 - 100, 5: STACK - 100 + 150, 9: STACK - 100 - 50}

            # the floor: both hands stored with their history, hole cards from the nodes
            await t.floor_sees(lambda table: table["hand_no"] == 2
                               and not table["hand_in_progress"], "both hands stored")
            hands = await t.api("GET", "/tables/T1/hands")
            assert sorted((h["hand_no"], h["status"], h["phh_error"]) for h in hands["data"]) \
                == [(1, "ended", None), (2, "ended", None)]
            phh = await t.api("GET", "/tables/T1/hands/1/phh", Role.BROADCAST)
            assert "9s9d" in phh and "AhKh" in phh and "2c3d" in phh
            table = await t.api("GET", "/tables/T1")
            assert {s["seat"]: s["stack"] for s in table["seats"]} == stacks

            # a node unplugged in the run: the floor sees it, then sees it come back
            await t.sim.send("unplug 7")
            await t.floor_sees(lambda table: (table["reported"] or {}).get(
                "seat_nodes_offline") == [7], "seat 7's node offline")
            await t.sim.send("plug 7")
            await t.floor_sees(lambda table: (table["reported"] or {}).get(
                "seat_nodes_offline") == [], "seat 7's node back")
            assert lines.online() == tuple(range(1, 11))

    asyncio.run(scenario())


# ------------------------------------------------------------------ "done when", as typed
def test_done_when_simulate_then_table_run_boots_ready_with_ten_nodes_seen_by_the_bridge(
        tmp_path: Path, mosquitto: Mosquitto) -> None:
    need_simulator()
    ports = tmp_path / "ports"
    decks = tmp_path / "decks"  # the house's deck, enrolled before (CARD-1)
    DeckLibrary(decks).save(dataclasses.replace(DECKMAP, name="house-red"))
    app = create_app(make_settings(tmp_path, mqtt_port=mosquitto.port), connect=True)
    simulate = subprocess.Popen(
        [sys.executable, "-m", "controller.cli", "hardware", "simulate", "tournament-10",
         "--dir", str(ports)], cwd=ROOT, text=True, stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    table: subprocess.Popen[str] | None = None
    try:
        assert simulate.stdout is not None and simulate.stdin is not None
        hellos = []
        for line in simulate.stdout:
            if line.startswith("hello "):
                hellos.append(line.split()[2])  # each node's firmware version
            if line.startswith("READY"):
                break
        assert hellos == ["0.1.0"] * 10, hellos
        with TestClient(app) as floor:
            table = subprocess.Popen(
                [sys.executable, "-m", "controller.cli", "table", "run", "--profile",
                 "tournament-10", "--backend", "mock", "--seat-ports", str(ports),
                 "--table", "T1", "--db", str(tmp_path / "t1.db"), "--site", SITE,
                 "--broker", f"127.0.0.1:{mosquitto.port}", "--tablet", "127.0.0.1:0",
                 "--decks", str(decks)], cwd=ROOT, text=True,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            assert table.stdout is not None
            first = table.stdout.readline()
            assert first.strip() == "SEATNODES online=10/10 offline=- firmware=0.1.0", first
            assert re.match(r"READY boot=\S+ last_seq=0 hand_no=0$", table.stdout.readline())
            deadline = time.monotonic() + GUARD
            while True:  # the bridge sees the table: online, its state retained
                seen = floor.get("/api/v1/tables/T1", headers=auth(Role.VIEWER))
                if seen.status_code == 200 and seen.json()["online"] \
                        and seen.json()["reported"] is not None:
                    break
                assert time.monotonic() < deadline, "the bridge never saw table T1 online"
                time.sleep(0.05)
            assert seen.json()["reported"]["seat_nodes_offline"] == []
            said = table.stdout.readline()
            tablet = re.match(r"TABLET (http://\S+) token=(\S+)$", said)
            assert tablet is not None, f"the table did not serve its tablet page: {said!r}"
            play_a_hand_from_the_tablet(floor, simulate.stdin, tablet[1],
                                        Path(tablet[2]).read_text().strip())
    finally:
        if simulate.stdin is not None and simulate.poll() is None:
            with contextlib.suppress(OSError):
                simulate.stdin.write("quit\n")  # the simulator's own way out
                simulate.stdin.flush()
        for proc in (table, simulate):
            if proc is not None and proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()


def play_a_hand_from_the_tablet(floor: TestClient, sim: Any, url: str, token: str) -> None:
    """The dealer at the running table's tablet (its HTTP API, as the page calls it): the
    saved deck chosen, the button placed, the hand dealt from cards placed at the
    simulated seat nodes, two folds; the bridge stores the hand."""
    for seat, player in PLAYERS.items():  # the floor seats the players (its command route)
        reply = floor.post("/api/v1/tables/T1/commands", headers=auth(Role.FLOOR), json={
            "command": {"name": "seat_player", "seat": seat, "player": player,
                        "stack": STACK}})
        assert reply.status_code == 200 and reply.json()["status"] == "ok", reply.text
    with httpx2.Client(base_url=url, headers={"Authorization": f"Bearer {token}"},
                      timeout=GUARD) as tablet:

        def tap(verb: str, **fields: Any) -> dict[str, Any]:
            turn = tablet.get("/api/screen").json()["turn"]
            answer = tablet.post("/api/command", json={"verb": verb, "turn": turn, **fields})
            assert answer.status_code == 200, answer.text
            body: dict[str, Any] = answer.json()
            return body

        def screen_until(check: Callable[[dict[str, Any]], bool], what: str) -> None:
            deadline = time.monotonic() + GUARD
            while not check(tablet.get("/api/screen").json()):
                assert time.monotonic() < deadline, f"the tablet never showed {what}"
                time.sleep(0.02)

        assert tablet.get("/api/screen", headers={"Authorization": "Bearer wrong"}
                          ).status_code == 401
        screen_until(lambda s: len(s["seats"]) == 3, "the three players seated")
        assert tap("deck", name="house-red")["reply"]["accepted"]
        assert tap("button", seat=2)["reply"]["accepted"]
        assert tap("deal")["reply"]["accepted"]
        for k in range(2):  # hole cards at the simulated nodes, clockwise from the SB
            for seat, cards in {5: "AhKh", 9: "2c3d", 2: "9s9d"}.items():
                tag = uid(cards[2 * k: 2 * k + 2])
                sim.write(f"place {seat} {k} {tag.hex()}\n")
                sim.flush()
        screen_until(lambda s: s["to_act"] == 2, "the button to act")
        below = tap("bet", amount=150)  # below the minimum raise: refused, nothing changes
        assert below["reply"]["accepted"] is False and below["reply"]["rule"] == "BET-4"
        assert tap("fold")["reply"]["accepted"]
        assert tap("fold")["reply"]["accepted"]  # the small blind: the big blind wins
        screen_until(lambda s: s["stage"] == "awarding", "the pot to push")
        assert tap("deal")["reply"]["accepted"]  # the dealer pushes it (POT-2)
        screen_until(lambda s: s["stage"] == "idle" and s["hand_no"] == 1, "the hand over")
    deadline = time.monotonic() + GUARD
    while True:  # the bridge stored the hand
        hands = floor.get("/api/v1/tables/T1/hands", headers=auth(Role.VIEWER))
        if hands.status_code == 200 and [(h["hand_no"], h["status"])
                                         for h in hands.json()["data"]] == [(1, "ended")]:
            break
        assert time.monotonic() < deadline, "the bridge never stored the tablet's hand"
        time.sleep(0.05)
