"""The floor page's tests' table side: a virtual table that reports its public state as
the controller does (the journal's fold, so the hand in play is the rules engine's), and
readings of the seat to act, the amount to call and the raise limits on the page, checked
against the engine or against what the table did next."""

from __future__ import annotations

import contextlib
from collections import Counter
from typing import Any

from sqlalchemy import select

from controller.events import ActionAccepted, BoardDealt, HandStarted, HoleDealt, PublicState
from controller.rules.hand import Hand
from controller.sync.errors import JournalError
from controller.sync.ledger import fold
from controller.sync.messages import EventMessage, SecureCards, StateMessage
from host_bridge.bridge import Bridge
from host_bridge.models import EventRecord
from tests.bridge.tablesim import WireTable

Turn = tuple[int | None, int | None, int | None, int | None]
Reading = tuple[int, int, int, int | None, int | None]


class ReportingWire(WireTable):
    """A table's messages that also carry its public state, as the controller's journal
    folds it (:func:`controller.sync.ledger.fold`: the hand in play is the engine's)."""

    def __init__(self, table: str) -> None:
        super().__init__(table=table)
        self.ledger = PublicState()
        self.last_seq = 0

    def _env(self, seq: int | None = None) -> dict[str, Any]:
        env = super()._env(seq)
        if seq is None:
            self.last_seq = env["seq"]
        return env

    def event(self, body: Any) -> tuple[str, bytes]:
        """One event with the next seq, folded into the table's state (one the ledger
        refuses, e.g. a player removed in a hand, leaves the state as it was)."""
        with contextlib.suppress(JournalError):
            self.ledger = fold(self.ledger, body)
        return super().event(body)

    def hole(self, hand_no: int, player: int) -> list[tuple[str, bytes]]:
        """A player's hole cards dealt: the public event and its secure half (same seq)."""
        env = self._env()
        event = HoleDealt(hand_no=hand_no, player=player, count=2)
        self.ledger = fold(self.ledger, event)
        return [(self.topics.event, EventMessage(**env, event=event).to_wire()),
                (self.topics.secure_cards, SecureCards(**env, hand_no=hand_no, player=player,
                                                       cards=("2c", "2d")).to_wire())]

    def reported(self) -> tuple[str, bytes]:
        """The retained state as of the last event, as the table publishes it."""
        return self.topics.state, StateMessage(table=self.table, boot=self.boot,
                                               seq=self.last_seq, ts=self.ts,
                                               state=self.ledger).to_wire()


def turn_on_page(table: Any) -> Turn:
    """The seat to act, the amount to call and the raise limits a table's card shows."""
    seat = table.locator("li.seat.to-act")
    numbers = [int(n.replace(",", "")) for n in
               table.locator('[data-hand="raise-to"]').inner_text().split(" – ") if n != "–"]
    call = table.locator('[data-hand="to-call"]').inner_text()
    return (int(seat.get_attribute("data-seat")) if seat.count() else None,
            None if call == "–" else int(call.replace(",", "")),
            numbers[0] if numbers else None, numbers[-1] if numbers else None)


def turn_of_engine(hand: Hand, seats: tuple[int, ...]) -> Turn:
    """The same, from the rules engine playing the hand (positions as seats)."""
    if hand.actor is None:
        return None, None, None, None
    return seats[hand.actor], hand.call_amount, hand.min_raise_to, hand.max_raise_to


def turns_seen(page: Any) -> list[Reading]:
    """What t1's card shows as one reading: the state's seq, the seat to act, the amount to
    call and the raise limits (none without a seat to act or a state from the feed)."""
    got = page.evaluate("""() => {
        const card = document.querySelector('li.table-card[data-table="t1"]');
        const hand = card && card.querySelector('.hand');
        const seat = card && card.querySelector('li.seat.to-act');
        if (!hand || !hand.dataset.seq || !seat) return null;
        const text = (key) => hand.querySelector(`[data-hand="${key}"]`).textContent;
        return [Number(hand.dataset.seq), Number(seat.dataset.seat), text("to-call"),
                text("raise-to")];
    }""")
    if got is None:
        return []
    seq, seat, call, raise_to = got
    limits = [int(n.replace(",", "")) for n in raise_to.split(" – ") if n != "–"]
    return [(seq, seat, int(call.replace(",", "")), limits[0] if limits else None,
             limits[-1] if limits else None)]


def check_turns(bridge: Bridge, seen: list[Reading]) -> Counter[str]:
    """Each reading against what the table did next (its rules engine chose who acted and
    what a call cost): the next action of the hand after the reading's seq was by the seat
    shown; a call put in the amount shown, a raise went to a limit shown, a check had
    nothing to call. Returns how many of each were checked (readings whose next action is
    not stored yet wait)."""
    with bridge.ingest._sessions() as session:
        rows = session.execute(select(EventRecord.seq, EventRecord.payload).where(
            EventRecord.table_id == "t1").order_by(EventRecord.seq)).all()
    events = [(seq, EventMessage.model_validate_json(payload).event) for seq, payload in rows]
    checked: Counter[str] = Counter()
    for reading in seen:
        seq, seat, call, low, high = reading
        started = [e for s, e in events if s <= seq and isinstance(e, HandStarted)][-1]
        after = [e for s, e in events if s > seq and isinstance(
            e, ActionAccepted | BoardDealt | HoleDealt | HandStarted)]
        if not after:
            continue
        nxt = after[0]
        assert isinstance(nxt, ActionAccepted) and nxt.hand_no == started.hand_no, (
            f"the page showed seat {seat} to act at seq {seq}, but the table went on with "
            f"{nxt}")
        assert started.seats[nxt.player] == seat, (reading, nxt)
        if nxt.action == "call":
            assert nxt.amount == call, (reading, nxt)
        elif nxt.action == "bet_raise":
            assert nxt.amount in (low, high), (reading, nxt)
        elif nxt.action == "check":
            assert call == 0, (reading, nxt)
        checked[nxt.action] += 1
    return checked
