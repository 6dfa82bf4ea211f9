"""The one vocabulary, end to end (DESIGN.md: "One event vocabulary, typed end to end"):
every kind of :data:`controller.events.TableEvent` is

(a) produced by a table path: a real ``Table`` on the mock hardware, wired to the journal
    as ``controller.app`` wires it (:class:`TableJournal`: the table emits the models, the
    journal stores them), driven by the virtual dealer, by the dealer's intents and by the
    host's commands through the command desk; nothing a table cannot produce yet
    (:data:`NOT_PRODUCED_YET` is empty and must stay justified if it is not);
(b) stored by the bridge: every journaled payload (public and ``secure/cards``) ingested
    into the bridge's store, applied in seq order, acknowledged;
(c) shown: pushed on the live feed, and either named by the dashboard's JavaScript or in
    :data:`DASHBOARD_IGNORES`, with the reason.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from pydantic import TypeAdapter
from sqlalchemy import select

from controller.app import TableCommands, TableJournal, recover, restore
from controller.chiprace import ChipSet
from controller.clocks.shot_clock import ShotClockConfig
from controller.clocks.structure import Break, Structure
from controller.clocks.structure import Level as Lv
from controller.devices.mock import MockTable
from controller.devices.profile import load_profile
from controller.events import KINDS, CallClock, Command, PublicEvent, SetHouse
from controller.rules.actions import Fold
from controller.rules.config import LIVE_CASH
from controller.sync.journal import Journal, Parcel
from controller.sync.messages import EventMessage, parse_message
from controller.sync.outbox import Outbox
from controller.sync.topics import Topics
from controller.table import intents as i
from controller.table.colour_up import ColourUpSettings
from controller.table.lights import Level
from controller.table.table import Table
from controller.table.virtual import VirtualTable
from host_bridge.app import create_app
from host_bridge.models import EventRecord, PokerTable
from tests.bridge.conftest import make_settings
from tests.bridge.tablesim import SITE, FakeBroker
from tests.table.conftest import DECKMAP, Dealer

COMMANDS: TypeAdapter[Command] = TypeAdapter(Command)
ROOT = Path(__file__).resolve().parents[2]
DASHBOARD = ROOT / "host_bridge" / "dashboard"

#: kinds no table path produces yet (each with the reason); none today
NOT_PRODUCED_YET: dict[str, str] = {}

#: kinds the floor dashboard knowingly does not react to (the feed still carries them; the
#: table's row is reloaded from the store on each ``stored`` item after a change)
DASHBOARD_IGNORES: dict[str, str] = {
    "hole_dealt": "the floor never shows hole cards; the count adds nothing to the row",
    "burn": "a burn card is face down",
    "actions_undone": "the next action shows who is to act",
    "action_corrected": "the next action shows who is to act",
    "action_held": "an out-of-turn action binds or not when the turn comes",
    "hand_shown": "the hand's PHH (hands page) shows what was tabled",
    "pot_awarded": "hand_ended carries the stacks after the hand",
    "presence": "the floor page shows seats, not who is standing by them",
    "checked_in": "the floor page shows seats, not check-ins",
    "shot_clock": "the shot clock is the table's display",
    "deck": "the deck is the dealer's",
    "rejected": "a refusal changed nothing; the dealer's terminal shows it (the store keeps "
                "it for the dispute timeline)",
    "colour_up_started": "the colour-up's stack_adjusted reloads the table's seats",
    "chips_counted": "a colour-up step: its stack_adjusted reloads the table's seats",
    "race_card_dealt": "a colour-up step: its stack_adjusted reloads the table's seats",
    "race_dealt_again": "a colour-up step: its stack_adjusted reloads the table's seats",
    "race_chips_awarded": "a colour-up step: its stack_adjusted reloads the table's seats",
    "colour_up_step_undone": "a colour-up step: its stack_adjusted reloads the table's seats",
    "colour_up_cancelled": "a colour-up called off changed no stack",
    "button_placed": "the first hand's hand_started shows the button on the table's row",
    "rake_taken": "the rake section reads the ledger again on the hand_ended item, once "
                  "the hand (its rake) is stored",
    "sat_out": "a table's card shows its seats and stacks: sitting out changes neither",
    "came_back": "a table's card shows its seats and stacks: coming back changes neither",
    "penalty_served": "the killed hand's hand_started and hand_ended show on the card",
    "hand_released": "the released hand's hand_started shows on the card",
    "input": "an input is for audit: the hand's dispute timeline page shows it",
    "card_read": "a read is for audit: the hand's dispute timeline page shows it",
}

S = Structure("vocabulary", (Lv(1, 100, 200, 0, 200, 600.0), Lv(2, 200, 400, 50, 400, 600.0),
                             Lv(3, 300, 600, 75, 600, 600.0)),
              breaks=(Break(2, 300.0, colour_up=(25,)),))


@dataclass
class Played:
    """One table's journal after a scenario: what went out, as the link sends it."""

    table: str
    parcels: list[Parcel]

    def events(self) -> list[PublicEvent]:
        return [parse_message(EventMessage, p.public).event for p in self.parcels]

    def kinds(self) -> set[str]:
        return {e.kind for e in self.events()}

    def messages(self) -> Iterator[tuple[str, bytes]]:
        topics = Topics(SITE, self.table)
        for p in self.parcels:
            yield topics.event, p.public
            if p.secure is not None:
                yield topics.secure_cards, p.secure


@contextmanager
def journaled(db: Path, table: str) -> Iterator[tuple[Journal, Outbox, TableJournal]]:
    """A journal and its outbox with the live table's sink, as ``controller.app`` wires
    them (no link: what is journaled is what would go out)."""
    journal = Journal(db, table=table)
    loop = asyncio.new_event_loop()
    try:
        outbox = loop.run_until_complete(Outbox(journal).__aenter__())
        try:
            yield journal, outbox, TableJournal(outbox)
        finally:
            loop.run_until_complete(outbox.__aexit__(None, None, None))
    finally:
        loop.close()
        journal.close()


def parcels(db: Path, table: str) -> Played:
    journal = Journal(db, table=table)
    try:
        return Played(table, journal.parcels(0, limit=10**9))
    finally:
        journal.close()


# ---------------------------------------------------------------------------- the tables
def cash_hands(tmp: Path) -> Played:
    """The virtual dealer deals 25 hands at a cash table with a shot clock that some bots
    think past (CLOCK-9); bots leave and others sit down between hands."""
    with journaled(tmp / "cash.db", "cash") as (_, outbox, sink):
        vt = VirtualTable(4, seed=3, sink=sink, shot_clock=ShotClockConfig(action_s=10.0),
                          slow=0.3, pace=1.0)
        for _ in range(25):
            assert vt.play_hand()
        # the floor changes the house between hands (set_house); its rake is journaled
        house = (ROOT / "deploy" / "houses" / "casino-nlhe.toml").read_text(encoding="utf-8")
        reply, events = TableCommands(vt.table, sink).perform(SetHouse(text=house), "h1")
        assert reply["change"] == "house_set" and events
        outbox.record_now(events)  # as the command desk does, with its reply
        for _ in range(3):
            assert vt.play_hand()
    return parcels(tmp / "cash.db", "cash")


def host_commands(tmp: Path) -> Played:
    """A tournament table run by the host: every command through the command desk's
    path (the table carries it out, its events are journaled with their command id)."""
    with journaled(tmp / "host.db", "host") as (journal, outbox, sink):
        with sink.muted():
            vt = VirtualTable(0, seed=4, sink=sink, tournament=True, structure=S,
                              shot_clock=ShotClockConfig(action_s=30.0))
        restore(vt.table, journal.state, sink)
        commands = TableCommands(vt.table, sink)
        ids = iter(range(1, 1000))

        def send(name: str, **args: Any) -> None:
            command = COMMANDS.validate_python({"name": name, **args})
            reply, events = commands.perform(command, f"c{next(ids)}")  # refused: raises
            assert events and reply["change"] in {e.kind for e in events}
            outbox.record_now(events)  # as the command desk does, with its reply

        send("seat_player", seat=1, player="ann", stack=300)
        send("seat_player", seat=2, player="bob", stack=40_000)
        send("seat_player", seat=5, player="cy", stack=40_000, penalty_hands=1)  # PEN-5
        send("seat_player", seat=8, player="dee", stack=40_000)
        send("sync_clock", level=1, seconds_left=500.0)
        send("pause")
        send("resume")
        send("colour_up", at_level=3)
        send("add_chips", seat=2, player="bob", chips=1_000, reason="add_on")  # TOURN-12

        def call_the_clock() -> None:
            hand = vt.table.hand
            assert hand is not None and hand.actor is not None
            _, events = commands.perform(CallClock(seat=vt.table.seat_of(hand.actor)), "clk")
            outbox.record_now(events)

        assert vt.play_hand(during=call_the_clock)
        send("hand_for_hand", on=True)
        send("next_hand")
        assert vt.play_hand()
        send("hand_for_hand", on=False)
        send("set_level", level=2)
        send("sync_clock", level=2, seconds_left=120.0, on_break=True)  # the host's break
        vt.advance(121.0)  # it ends on the table's clock
        assert vt.play_hand()  # the dealer runs the break's colour-up first (CHIPRACE-*)
        for _ in range(60):  # ann's 300 chips do not last (if she is still in)
            if not any(v.player == "ann" for v in journal.state.seats):
                break
            assert vt.play_hand()
        send("move_player", seat=8, to_table="t9")
        send("remove_player", seat=5)
        send("close_table")
    return parcels(tmp / "host.db", "host")


def dealer_at_the_table(tmp: Path) -> Played:
    """The dealer's intents and the readers: sitting out, a player card, a misdeal, an
    out-of-turn call, an undo, the floor's correction, a card where none belongs."""
    hw = MockTable(load_profile("virtual"))
    with journaled(tmp / "dealer.db", "dealer") as (_, _, sink):
        t = Table(hw, sink=sink, levels=(Level(5, 10),), deck=DECKMAP, profile=LIVE_CASH)
        dealer = Dealer(t, hw)
        for seat in (1, 3, 5):
            assert t.submit(i.TakeSeat(seat, f"p{seat}", 1_000))
        assert t.submit(i.SitOut(3)) and t.submit(i.ComeBack(3))
        assert t.submit(i.AssignSeat(b"card-of-p1", "p1", 1))
        hw.drive_card_placed("player1", b"card-of-p1")  # checked in, present (DEAL-5)
        dealer.step()
        assert t.submit(i.PlaceButton(5))
        dealer.press("deal")
        dealer.deal({1: "As", 3: "Qd", 5: "7h"})
        dealer.place("seat1", "Ks")
        dealer.place("board1", "Qc")  # meant for seat 3, turned up (CARD-5): the prompt
        assert t.submit(i.DeclareMisdeal("a card was exposed in the deal"))  # LIVE-25
        dealer.gather()
        dealer.press("deal")
        dealer.deal({1: "AsKs", 3: "QdQc", 5: "7h2c"})
        assert t.submit(i.Call(seat=1))  # out of turn: held (LIVE-12); then released
        assert t.submit(i.Call())
        assert t.submit(i.Call())
        assert t.submit(i.Undo(1, "seat 1 had not called"))  # DEAL-6
        hand = t.hand
        assert hand is not None
        assert t.submit(i.Correct(len(hand.log) - 1, Fold(2), "the button had folded"))
        dealer.place("seat3", bytes(7))  # a card the deck map does not know
        hw.drive_node_status(5, online=False)  # seat 5's node is unplugged: the prompt
        dealer.step()
        hw.drive_node_status(5, online=True)  # and plugged back: seat_node_back
        dealer.step()
    return parcels(tmp / "dealer.db", "dealer")


def colour_up_disputed(tmp: Path) -> Played:
    """A refusal, then a colour-up the dealer steps back in, deals again and calls off:
    every step journaled for the floor's dispute timeline (CHIPRACE-1, -6)."""
    hw = MockTable(load_profile("virtual"))
    chips = ChipSet.of({25: "green", 100: "black", 500: "purple", 1000: "yellow"})
    with journaled(tmp / "race.db", "race") as (journal, _, sink):
        t = Table(hw, sink=sink, levels=(Level(100, 200),), deck=DECKMAP, tournament=True,
                  colour_up=ColourUpSettings(chip_set=chips))
        dealer = Dealer(t, hw)
        stacks = {1: 1175, 3: 1075, 5: 1050}
        for seat, stack in stacks.items():
            assert t.submit(i.TakeSeat(seat, f"p{seat}", stack))
        assert not t.submit(i.Call())  # no hand: refused, with the rule (BET-1)
        assert t.submit(i.StartColourUp())  # the dealer's colour-up key: T25 leaves
        assert t.submit(i.CountColourUp(1, 7))
        dealer.press("undo")  # the count is taken back
        for seat, n in {1: 7, 3: 3, 5: 2}.items():
            assert t.submit(i.CountColourUp(seat, n))
        dealer.place("seat1", "As")
        dealer.press("misdeal")  # the race is dealt again
        assert t.submit(i.CancelColourUp("the floor calls the colour-up off"))
        assert {v.seat: v.stack for v in journal.state.seats} == stacks
    return parcels(tmp / "race.db", "race")


def crashed_mid_hand(tmp: Path) -> Played:
    """The controller dies during a hand; the next start voids it (CRASH-1)."""
    class Crash(Exception):
        pass

    def crash() -> None:
        raise Crash

    with journaled(tmp / "crash.db", "crash") as (_, _, sink):
        vt = VirtualTable(3, seed=5, sink=sink)
        with pytest.raises(Crash):
            vt.play_hand(during=crash)
    journal = Journal(tmp / "crash.db", table="crash")
    try:
        assert recover(journal)  # what controller.table_runner does at start
    finally:
        journal.close()
    return parcels(tmp / "crash.db", "crash")


SCENARIOS: tuple[Callable[[Path], Played], ...] = (
    cash_hands, host_commands, dealer_at_the_table, colour_up_disputed, crashed_mid_hand)


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> list[Played]:
    tmp = tmp_path_factory.mktemp("vocabulary")
    return [scenario(tmp) for scenario in SCENARIOS]


# ---------------------------------------------------------------------------- the proofs
def test_every_kind_is_produced_by_a_table_path(played: list[Played]) -> None:
    produced = set().union(*(p.kinds() for p in played))
    assert produced <= KINDS
    assert not set(NOT_PRODUCED_YET) & produced, "produced now: take it off the list"
    assert KINDS - produced == set(NOT_PRODUCED_YET)


def test_every_kind_is_stored_by_the_bridge_and_pushed_on_the_feed(
        played: list[Played], tmp_path: Path) -> None:
    app = create_app(make_settings(tmp_path), publisher=FakeBroker())
    bridge = app.state.bridge
    feed: set[str] = set()
    observed: list[PublicEvent] = []
    bridge.observers.append(lambda stored: observed.extend(m.event for m in stored))
    for table in played:
        result = asyncio.run(bridge.store_many(list(table.messages())))
        assert not result.rejected
        feed |= {item["event"]["kind"] for item in result.feed if item["type"] == "event"}
    with bridge.ingest._sessions() as session:
        stored = set(session.scalars(select(EventRecord.kind).where(EventRecord.applied)))
        acked = {t.id: t.acked_seq for t in session.scalars(select(PokerTable))}
    assert acked == {p.table: p.parcels[-1].seq for p in played}  # all applied, in order
    assert stored == feed == {e.kind for e in observed} == KINDS - set(NOT_PRODUCED_YET)


def test_every_kind_is_shown_on_the_dashboard_or_knowingly_ignored() -> None:
    script = (DASHBOARD / "app.js").read_text()  # the floor page's one script
    named = set(re.findall(r'"([a-z_]+)"', script)) & KINDS
    assert set(DASHBOARD_IGNORES) <= KINDS
    assert not named & set(DASHBOARD_IGNORES), "shown now: take it off the ignore list"
    assert KINDS - named == set(DASHBOARD_IGNORES)


def test_the_dashboard_no_longer_waits_for_table_changed() -> None:
    script = (DASHBOARD / "app.js").read_text()
    assert "table_changed" not in script
    assert json.dumps("player_seated") in script
