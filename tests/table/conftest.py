"""A table on the virtual profile's mock hardware, a known deck, and a test dealer."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from controller.devices.mock import MockTable
from controller.devices.profile import load_profile
from controller.events import HandStarted, JournalEvent, ShotClockReport
from controller.rules.cards import DECK, Card
from controller.rules.config import LIVE_CASH, RulesProfile, Variant
from controller.table.deck import DeckMap
from controller.table.lights import Level
from controller.table.table import Table

UIDS = [bytes([0x04, 0xC0, i, 0x11, 0x22, 0x33, 0x44]) for i in range(52)]
DECKMAP = DeckMap.from_order(UIDS)


def uid(card: str) -> bytes:
    return UIDS[Card.parse(card)]


class Dealer:
    """Places cards by name at the mock readers and lets them become stable reads."""

    def __init__(self, table: Table, hw: MockTable) -> None:
        self.table = table
        self.hw = hw
        self.placed: list[tuple[str, bytes]] = []

    def step(self, seconds: float = 0.031) -> None:
        for event in self.hw.advance(seconds, step=seconds):
            self.table.handle(event, refresh=False)
        self.table.tick()

    def place(self, reader: str, card: str | bytes) -> None:
        tag = card if isinstance(card, bytes) else uid(card)
        self.hw.drive_card_placed(reader, tag)
        self.placed.append((reader, tag))
        self.step()

    def lift(self, reader: str, card: str) -> None:
        self.hw.drive_card_lifted(reader, uid(card))
        self.step(0.51)

    def press(self, key: str) -> None:
        self.hw.drive_key_press(key)
        self.hw.drive_key_release(key)
        self.step(0.0)

    def deal(self, hands: dict[int, str]) -> None:
        """Hole cards one at a time clockwise from the first seat in ``hands``' order."""
        per = len(next(iter(hands.values()))) // 2
        for k in range(per):
            for seat, cards in hands.items():
                self.place(f"seat{seat}", cards[2 * k : 2 * k + 2])

    def street(self, burn: str, cards: str) -> None:
        self.place("muck", burn)
        for i in range(0, len(cards), 2):
            self.place("board1", cards[i : i + 2])

    def muck_hand(self, seat: int) -> None:
        r = self.table.reads
        assert r is not None
        for card in r.hole[seat]:
            self.hw.drive_card_lifted(f"seat{seat}", UIDS[card])
            self.place("muck", DECK[card].__str__())

    def gather(self) -> None:
        for reader, tag in self.placed:
            self.hw.drive_card_lifted(reader, tag)
        self.placed.clear()
        self.step(0.51)


class Rig:
    """A table, its hardware, its dealer and the events it emitted."""

    def __init__(self, *, seats: dict[int, int], button: int, profile: RulesProfile = LIVE_CASH,
                 levels: tuple[Level, ...] = (Level(5, 10),), tournament: bool = False,
                 variant: Variant = Variant.NT, deck: DeckMap | None = DECKMAP,
                 **table: Any) -> None:
        self.hw = MockTable(load_profile("virtual"))
        self.events: list[JournalEvent] = []
        self.table = Table(self.hw, sink=self.events.append, levels=levels, deck=deck,
                           profile=profile, tournament=tournament, variant=variant, **table)
        for seat, stack in seats.items():
            self.table.take_seat(seat, f"player{seat}", stack)
        self.table.set_button(button)
        self.dealer = Dealer(self.table, self.hw)

    def of(self, kind: type) -> list:  # type: ignore[type-arg]
        return [e for e in self.events if isinstance(e, kind)]

    def last(self, kind: type) -> object:
        found = self.of(kind)
        assert found, f"no {kind.__name__} among {[type(e).__name__ for e in self.events]}"
        return found[-1]

    def start(self) -> None:
        self.dealer.press("deal")

    def rulings(self) -> list[ShotClockReport]:
        """The shot clock's rulings on expiry (CLOCK-3, CLOCK-9), not its extensions."""
        return [e for e in self.of(ShotClockReport) if e.what == "ruled"]

    def seat_of(self, player: int) -> int:
        """The seat of position ``player`` in the last hand started (the events of a hand
        name positions, as the engine and PHH do; ``HandStarted.seats`` maps them)."""
        started = self.last(HandStarted)
        assert isinstance(started, HandStarted)
        return started.seats[player]

    def seat_to_act(self) -> int | None:
        hand = self.table.hand
        if hand is None or hand.actor is None:
            return None
        return self.table.seat_of(hand.actor)


@pytest.fixture
def rig3() -> Iterator[Rig]:
    """Three players, seats 1, 3, 5, 1,000 each, blinds 5/10, button on seat 5:
    seat 1 posts the SB, seat 3 the BB, seat 5 (the button) acts first preflop."""
    rig = Rig(seats={1: 1000, 3: 1000, 5: 1000}, button=5)
    yield rig
    rig.hw.close()
