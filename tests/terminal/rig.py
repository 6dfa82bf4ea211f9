"""A live table driven only through its dealer's keypad (a fake evdev device read by the
real reader and sequencer) and card placements at the mock readers, journaled as on the
table, with the dealer's display redrawn by its own task.

Setting the table up (seats, the deck, the levels, the variant) is Python, as the floor
and the build do it; every action of a hand goes through ``keys()`` or the card dealer.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from controller.app import TableJournal, open_desk
from controller.devices.mock import MockTable
from controller.devices.profile import load_profile
from controller.events import JournalEvent
from controller.sync.journal import Journal
from controller.sync.outbox import Outbox
from controller.table.table import Table
from controller.terminal.desk import Desk
from controller.terminal.keymap import KeyMap, load_keymap
from controller.terminal.keypad import run_dealer_display, run_keypad
from tests.table.conftest import DECKMAP, Dealer

from .fakes import FakeInputs, FakeKeypad

PATH = "/dev/input/by-id/usb-Genovation_ControlPad_CP48-event-kbd"
WORDS = {"+": "plus", ".": "dot"}
E = TypeVar("E")


class Recording(TableJournal):
    """The table's journal sink, keeping the events for the test to read."""

    def __init__(self, outbox: Outbox) -> None:
        super().__init__(outbox)
        self.events: list[JournalEvent] = []

    def __call__(self, event: JournalEvent) -> None:
        self.events.append(event)
        super().__call__(event)


@dataclass
class KeypadTable:
    table: Table
    hw: MockTable
    desk: Desk
    sink: Recording
    inputs: FakeInputs
    pad: FakeKeypad
    keymap: KeyMap
    dealer: Dealer
    keypad_task: asyncio.Task[None]

    async def keys(self, text: str) -> None:
        """Press keys by name: ``"3 seat 2.5 bb bet"``; a number is typed digit by digit
        (``00`` and ``000`` are their own keys), ``+`` and ``.`` are the plus and the
        decimal point. Returns once the reader has handled every press and the display
        task has drawn."""
        for word in text.split():
            if word in ("00", "000"):
                keys = [word]
            elif any(ch.isdigit() for ch in word):
                keys = ["dot" if ch == "." else ch for ch in word]
            else:
                keys = [WORDS.get(word, word)]
            for key in keys:
                self.pad.press(self.keymap.code_of(key))
        await self.pad.settle()
        await self.drawn()

    async def deal(self, hands: dict[int, str]) -> None:
        """Hole cards placed at the seat readers, one at a time clockwise."""
        self.dealer.deal(hands)
        await self.drawn()

    async def street(self, burn: str, cards: str) -> None:
        """A burn card at the muck reader, then the street at the board reader."""
        self.dealer.street(burn, cards)
        await self.drawn()

    async def drawn(self) -> None:
        for _ in range(3):  # the display task wakes on the desk's change
            await asyncio.sleep(0)
        if self.keypad_task.done():
            self.keypad_task.result()  # a reader that died says why

    @property
    def shown(self) -> tuple[str, ...]:
        """What the dealer's display shows (its last frame's lines)."""
        display = self.hw.dealer_display
        assert display is not None
        return display.lines

    @property
    def said(self) -> str:
        """The desk's last reply, as the display's message line has it."""
        reply = self.desk.reply
        assert reply is not None
        return reply.line

    def of(self, kind: type[E]) -> list[E]:
        return [e for e in self.sink.events if isinstance(e, kind)]

    def last(self, kind: type[E]) -> E:
        found = self.of(kind)
        assert found, f"no {kind.__name__} among {[type(e).__name__ for e in self.sink.events]}"
        return found[-1]

    def stacks(self) -> dict[int, int]:
        """Each seat's stack as the journal's public state has it (the dealer's screen)."""
        return {s.seat: s.stack for s in self.desk.screen().seats}


@contextlib.asynccontextmanager
async def keypad_table(tmp_path: Path, seats: dict[int, int], **table: Any
                       ) -> AsyncIterator[KeypadTable]:
    """A journaled table on the virtual profile with the fake keypad plugged in and read
    by ``run_keypad``, and the dealer's display task running."""
    profile = load_profile("virtual")
    assert profile.keypad is not None
    keymap = load_keymap(profile.keypad.map)
    journal = Journal(tmp_path / "table.db", table="T1")
    async with Outbox(journal) as outbox:
        hw = MockTable(profile)
        sink = Recording(outbox)
        table.setdefault("deck", DECKMAP)
        t = Table(hw, sink=sink, **table)
        desk = open_desk(t, sink)
        for seat, stack in seats.items():
            assert t.take_seat(seat, f"player{seat}", stack)
        inputs = FakeInputs()
        pad = inputs.plug(PATH)
        assert hw.dealer_display is not None
        reader = asyncio.create_task(
            run_keypad(desk, PATH, keymap, opener=inputs.open, retry_s=0.01), name="keypad")
        display = asyncio.create_task(run_dealer_display(desk, hw.dealer_display),
                                      name="dealer-display")
        rig = KeypadTable(t, hw, desk, sink, inputs, pad, keymap, Dealer(t, hw), reader)
        await rig.drawn()
        try:
            yield rig
        finally:
            for task in (reader, display):
                task.cancel()
            for task in (reader, display):
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            hw.close()
    journal.close()
