"""The live table feeds the journal and the host (issue 7): the virtual table (the real
``Table`` on mock hardware, with bots and a dealer) plays through :class:`TableJournal`
into a real journal and a real Mosquitto, and a test host receives every event exactly
once, in order, with hole and burn cards on ``secure/cards`` only."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from controller.app import TableCommands, TableJournal, restore
from controller.events import (
    ActionAccepted,
    BoardDealt,
    HandEnded,
    HandStarted,
    HoleDealt,
    MisdealDeclared,
    PublicEvent,
)
from controller.rules.actions import DealBoard, DealHole, Fold
from controller.rules.cards import Card
from controller.rules.hand import Hand
from controller.sync.commands import CommandDesk
from controller.sync.journal import Journal
from controller.sync.link import LinkSettings, TableLink
from controller.sync.messages import EventMessage, SecureCards, parse_message
from controller.sync.outbox import Outbox
from controller.table.table import Stage
from controller.table.virtual import VirtualTable
from tests.sync.conftest import Mosquitto
from tests.sync.floor import FloorRecorder
from tests.sync.harness import GUARD


@dataclass
class LiveTable:
    """A virtual table wired as ``controller.app`` wires it, with its host."""

    vt: VirtualTable
    journal: Journal
    outbox: Outbox
    host: FloorRecorder

    async def synced(self) -> None:
        """Until the host has applied everything the table journaled."""
        async with asyncio.timeout(GUARD):
            await self.host.until(
                lambda: self.host.tables.get("t1") is not None
                and self.host.tables["t1"].contiguous == self.outbox.last_seq)

    def events(self) -> list[tuple[int, PublicEvent]]:
        return [(p.seq, parse_message(EventMessage, p.public).event)
                for p in self.journal.parcels(0, limit=10**9)]


@asynccontextmanager
async def live_table(db: Path, port: int, seed: int = 7) -> AsyncIterator[LiveTable]:
    journal = Journal(db, table="t1")
    try:
        async with Outbox(journal) as outbox, FloorRecorder(port) as host:
            sink = TableJournal(outbox)
            vt = VirtualTable(6, seed=seed, sink=sink)  # seating goes to the journal
            sink.table = vt.table
            desk = CommandDesk(outbox, TableCommands(vt.table, sink))
            async with TableLink(LinkSettings(site="test", port=port), outbox, desk) as link:
                async with asyncio.timeout(GUARD):
                    await link.connected.wait()  # subscribed to cmd before the host sends
                yield LiveTable(vt, journal, outbox, host)
    finally:
        journal.close()


async def play(live: LiveTable, hands: int) -> None:
    for _ in range(hands):
        assert live.vt.play_hand()
        await asyncio.sleep(0)  # the link publishes between hands, as in controller.app


def test_live_table_events_reach_the_host_once_in_order(broker: Mosquitto,
                                                        tmp_path: Path) -> None:
    async def scenario() -> None:
        async with live_table(tmp_path / "t1.db", broker.port) as live:
            await play(live, 12)
            await live.synced()
            rec = live.host.tables["t1"]
            stored = {p.seq: p for p in live.journal.parcels(0, limit=10**9)}
            assert rec.applied == list(range(1, live.journal.last_seq + 1))
            assert rec.conflicts == []
            assert all(rec.events[s] == p.public for s, p in stored.items())
            assert rec.state == live.journal.state  # the host's fold = the table's
            table_stacks = {s.number: s.stack for s in live.vt.table.roster.occupied()}
            assert {v.seat: v.stack for v in rec.state.seats} == table_stacks
            assert rec.state.hand_no == live.vt.table.hand_no == 12
            async with asyncio.timeout(GUARD):  # secure parts can trail their events
                await live.host.until(lambda: set(rec.secure) == {
                    s for s, p in stored.items() if p.secure})

    asyncio.run(scenario())


def test_card_8_hole_and_burn_cards_travel_only_on_the_secure_topic(
        broker: Mosquitto, tmp_path: Path) -> None:
    async def scenario() -> None:
        async with live_table(tmp_path / "t1.db", broker.port, seed=11) as live:
            await play(live, 8)
            await live.synced()
            rec = live.host.tables["t1"]
            async with asyncio.timeout(GUARD):
                await live.host.until(lambda: len(rec.secure) == sum(
                    1 for p in live.journal.parcels(0, limit=10**9) if p.secure))
            hidden: dict[int, set[str]] = {}  # hand -> hole and burn cards
            read: set[str] = set()  # the cards the readers read (board cards among them)
            for payload in rec.secure.values():
                cards = parse_message(SecureCards, payload)
                if cards.what == "read":  # its public face, card_read, names no card
                    read.update(c for c in cards.cards if c is not None)
                    continue
                hidden.setdefault(cards.hand_no, set()).update(
                    c for c in cards.cards if c is not None)
            kinds = {e.kind for _, e in live.events()}
            assert {"hole_dealt", "burn", "card_read"} <= kinds
            assert read & {c for cards in hidden.values() for c in cards}  # hole cards read
            for payload in rec.events.values():
                event = parse_message(EventMessage, payload).event
                if event.kind == "card_read":  # where and when, never which card
                    assert not any(f'"{c}"'.encode() in payload for c in read)
            shown: dict[int, set[str]] = {}
            for _, event in live.events():
                if isinstance(event, ActionAccepted) and event.action == "show":
                    shown.setdefault(event.hand_no, set()).update(event.cards)
            for payload in rec.events.values():
                event = parse_message(EventMessage, payload).event
                hand_no = getattr(event, "hand_no", 0)
                secret = hidden.get(hand_no, set()) - shown.get(hand_no, set())
                assert not any(f'"{c}"'.encode() in payload for c in secret), event.kind
            assert not any(f'"{c}"'.encode() in live.host.states["t1"]
                           for cards in hidden.values() for c in cards)

    asyncio.run(scenario())


def test_hand_started_config_and_log_replay_to_the_table_result(
        broker: Mosquitto, tmp_path: Path) -> None:
    """What the bridge needs for PHH: HandStarted.config plus the hand's events (hole
    cards from the secure topic) replay in the engine to the stacks the table settled."""
    async def scenario() -> None:
        async with live_table(tmp_path / "t1.db", broker.port, seed=5) as live:
            await play(live, 10)
            secure = {p.seq: parse_message(SecureCards, p.secure)
                      for p in live.journal.parcels(0, limit=10**9) if p.secure}
            hand: Hand | None = None
            replayed = 0
            for seq, event in live.events():
                if isinstance(event, HandStarted):
                    assert event.config is not None and event.button is not None
                    hand = Hand(event.config.config(event.stacks))
                elif hand is not None and isinstance(event, HoleDealt):
                    hand.apply(DealHole(event.player, tuple(
                        None if c is None else Card.parse(c) for c in secure[seq].cards)))
                elif hand is not None and isinstance(event, BoardDealt):
                    hand.apply(DealBoard(tuple(Card.parse(c) for c in event.cards)))
                elif hand is not None and isinstance(event, ActionAccepted):
                    hand.apply(event.rules_action())
                elif hand is not None and isinstance(event, HandEnded):
                    assert hand.is_complete
                    assert tuple(hand.stacks) == event.stacks
                    replayed += 1
                    hand = None
            assert replayed == 10

    asyncio.run(scenario())


def deal_holes(vt: VirtualTable, order: list[int]) -> None:
    t = vt.table
    assert t.reads is not None
    for _ in range(t.reads.per_seat):
        for seat in t.reads.dealt:
            vt.place(f"seat{seat}", order.pop())


def test_undo_correction_and_misdeal_live_25_travel_and_fold(broker: Mosquitto,
                                                             tmp_path: Path) -> None:
    async def scenario() -> None:
        async with live_table(tmp_path / "t1.db", broker.port, seed=3) as live:
            vt, t = live.vt, live.vt.table
            await play(live, 2)
            before = {v.seat: v.stack for v in live.journal.state.seats}
            order = list(range(52))
            random.Random(1).shuffle(order)
            vt.press("deal")
            assert t.stage is Stage.DEALING
            deal_holes(vt, order)
            dealt = len(t.reads.dealt) if t.reads else 0
            assert len(live.journal.state.hand_log) == dealt
            hand = t.hand
            assert hand is not None and hand.actor is not None
            actor = hand.actor
            assert t.call()
            assert len(live.journal.state.hand_log) == dealt + 1
            assert t.undo(1, "the dealer keyed the wrong seat")  # DEAL-6
            assert len(live.journal.state.hand_log) == dealt
            assert t.call()
            assert t.correct(dealt, Fold(actor), "the player folded, not called")
            entry = live.journal.state.hand_log[dealt]
            assert isinstance(entry, ActionAccepted) and entry.action == "fold"
            started = live.journal.state.start_stacks
            layout = live.journal.state.layout
            assert t.misdeal("a card was exposed in the deal", "LIVE-25")
            state = live.journal.state
            assert not state.hand_in_progress and state.redeal
            assert {v.seat: v.stack for v in state.seats} == before  # bets went back
            vt._gather()
            assert vt.play_hand()  # dealt again: the same layout, blinds where they were
            kinds = [(s, e) for s, e in live.events()]
            misdeal = next(e for _, e in kinds if isinstance(e, MisdealDeclared))
            assert misdeal.stacks == started and misdeal.rule == "LIVE-25"
            redealt = [e for _, e in kinds if isinstance(e, HandStarted)][-1]
            assert layout is not None
            assert (redealt.button, redealt.seats) == (layout.button, layout.seats)
            assert {"actions_undone", "action_corrected"} <= {e.kind for _, e in kinds}
            await live.synced()
            assert live.host.tables["t1"].state == live.journal.state

    asyncio.run(scenario())


def test_host_commands_on_the_live_table(broker: Mosquitto, tmp_path: Path) -> None:
    async def scenario() -> None:
        async with live_table(tmp_path / "t1.db", broker.port) as live:
            host, t = live.host, live.vt.table
            await play(live, 1)
            reply = await host.command("t1", "c-h4h", {"name": "hand_for_hand", "on": True})
            assert reply["status"] == "ok" and live.journal.state.hand_for_hand  # TOURN-22
            reply = await host.command("t1", "c-h4h2", {"name": "hand_for_hand", "on": True})
            assert reply["status"] == "error" and "hand-for-hand is already on" in reply["error"]
            reply = await host.command("t1", "c-h4h3", {"name": "hand_for_hand", "on": False})
            assert reply["status"] == "ok" and not live.journal.state.hand_for_hand
            reply = await host.command("t1", "c-pause", {"name": "pause"})
            assert reply["status"] == "ok" and live.journal.state.paused
            reply = await host.command("t1", "c-pause2", {"name": "pause"})
            assert reply["status"] == "error"
            reply = await host.command("t1", "c-resume", {"name": "resume"})
            assert reply["status"] == "ok" and not live.journal.state.paused
            reply = await host.command("t1", "c-out", {"name": "remove_player", "seat": 6})
            assert reply["status"] == "ok"
            assert 6 not in {s.number for s in t.roster.occupied()}
            reply = await host.command("t1", "c-in", {"name": "seat_player", "seat": 6,
                                                      "player": "ann", "stack": 5000})
            assert reply["status"] == "ok" and t.roster[6].player == "ann"
            reply = await host.command("t1", "c-dup", {"name": "seat_player", "seat": 6,
                                                       "player": "bob", "stack": 5000})
            assert reply["status"] == "error"
            reply = await host.command("t1", "c-move", {"name": "move_player", "seat": 6,
                                                        "to_table": "t2"})
            assert reply["status"] == "ok"
            await live.synced()
            moved = [json.loads(p) for p in host.tables["t1"].events.values()
                     if b"player_moved" in p]
            assert moved and moved[0]["event"]["command_id"] == "c-move"
            assert host.tables["t1"].state == live.journal.state

    asyncio.run(scenario())


def test_crash_1_restore_puts_the_table_where_the_journal_is(tmp_path: Path) -> None:
    """Start-up after a crash: a new table restored from the journal's state (the hand cut
    short voided first) has the seats, stacks, hand number and button of the journal, and
    deals the voided hand again with the same layout."""
    async def scenario() -> None:
        journal = Journal(tmp_path / "t1.db", table="t1")
        try:
            async with Outbox(journal) as outbox:
                sink = TableJournal(outbox)
                vt = VirtualTable(6, seed=9, sink=sink)
                sink.table = vt.table
                for _ in range(5):
                    vt.play_hand()
                vt.press("deal")  # hand 6 starts ... and the controller dies
                assert journal.state.hand_in_progress
                layout = journal.state.layout
                voided = journal.void_open_hand("restart (CRASH-1)")
                assert voided is not None
                outbox.accept([voided])
                with sink.muted():  # its bots sit down: the journal has them already
                    again = VirtualTable(6, seed=10, sink=sink)
                sink.table = again.table
                restore(again.table, journal.state, sink)
                assert again.table.hand_no == 6
                assert dict(again.table.roster.stacks()) == {
                    v.seat: v.stack for v in journal.state.seats}
                assert again.table.redeal is not None
                assert again.play_hand()
                redealt = [e for p in journal.parcels(0, limit=10**9)
                           if isinstance(e := parse_message(EventMessage, p.public).event,
                                         HandStarted)][-1]
                assert layout is not None and redealt.hand_no == 7
                assert (redealt.button, redealt.seats) == (layout.button, layout.seats)
        finally:
            journal.close()

    asyncio.run(scenario())
