"""Seats and the deck between hands: players sit down, leave, sit out and come back; a new
deck is enrolled card by card and the deck is counted at the shuffle (CARD-1)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from controller.rules.cards import DECK

from .base import Stage, console
from .deck import DeckCount, DeckMap, Enrolment
from .events import CameBack, DeckChecked, DeckEnrolled, SatOut, SeatLeft, SeatTaken, TableEvent
from .seats import Roster, SeatError

if TYPE_CHECKING:
    from .timing import TableClocks


class SeatsAndDeck:
    """The table's seat and deck inputs (a part of :class:`~controller.table.table.Table`)."""

    roster: Roster
    stage: Stage
    deck: DeckMap | None
    deck_path: Path | None
    enrolment: Enrolment | None
    count: DeckCount | None
    clocks: TableClocks
    _depth: int
    _quiet: bool

    if TYPE_CHECKING:
        def reject(self, reason: str, rule: str | None = None, source: str = "") -> bool: ...

        def emit(self, event: TableEvent) -> None: ...

        def refresh(self) -> None: ...

    # ================================================================ seats
    def _between_hands(self, what: str) -> bool:
        if self.stage not in (Stage.IDLE, Stage.ENROLLING):
            return self.reject(f"{what} waits until the hand is over", None, "seats")
        return True

    @console
    def take_seat(self, seat: int, player: str, stack: int) -> bool:
        if not self._between_hands("taking a seat"):
            return False
        try:
            self.roster.take(seat, player, stack)
        except SeatError as exc:
            return self.reject(str(exc), None, "seats")
        self.emit(SeatTaken(seat, player, stack))
        return True

    @console
    def leave_seat(self, seat: int) -> bool:
        if not self._between_hands("leaving"):
            return False
        try:
            left = self.roster.leave(seat)
        except SeatError as exc:
            return self.reject(str(exc), None, "seats")
        self.emit(SeatLeft(seat, left.player, left.stack))
        return True

    @console
    def sit_out(self, seat: int) -> bool:
        try:
            self.roster.sit_out(seat)
        except SeatError as exc:
            return self.reject(str(exc), None, "seats")
        self.emit(SatOut(seat))
        return True

    @console
    def come_back(self, seat: int) -> bool:
        try:
            self.roster.come_back(seat)
        except SeatError as exc:
            return self.reject(str(exc), None, "seats")
        self.emit(CameBack(seat))
        return True

    def assign(self, card_uid: bytes, player: str, seat: int) -> bool:
        """The floor's seat assignment, checked when the player card is read."""
        try:
            self.roster.assign(card_uid, player, seat)
        except SeatError as exc:
            return self.reject(str(exc), None, "seats")
        return True

    # ================================================================ deck
    @console
    def begin_enrolment(self, order: Sequence[int] | None = None) -> bool:
        """Read a new deck at the deck reader one card at a time: 2c 2d 2h 2s 3c ... As,
        or in the ``order`` the dealer states."""
        if not self._between_hands("enrolling a deck"):
            return False
        try:
            self.enrolment = Enrolment(self.deck.version if self.deck else 0,
                                       DECK if order is None else order)
        except ValueError as exc:
            return self.reject(str(exc), "CARD-1", "deck")
        self.stage = Stage.ENROLLING
        return True

    @console
    def finish_enrolment(self) -> bool:
        if self.enrolment is None:
            return self.reject("no deck is being enrolled", None, "deck")
        try:
            deck = self.enrolment.finish()
        except ValueError as exc:
            return self.reject(str(exc), "CARD-1", "deck")
        if self.deck_path is not None:
            deck.save(self.deck_path)
        self.deck = deck
        self.enrolment = None
        self.stage = Stage.IDLE
        self.emit(DeckEnrolled(deck.version, deck.digest))
        return True

    def _finish_count(self) -> None:
        if self.count is None or not self.count.reads:
            self.count = None
            return
        complete, missing, twice, unknown = self.count.result()
        self.count = None
        self.emit(DeckChecked(complete, missing, twice, unknown))

