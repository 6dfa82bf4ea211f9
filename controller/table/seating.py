"""Seats and the deck between hands: players sit down, leave, sit out and come back; a new
deck is enrolled card by card and the deck is counted at the shuffle (CARD-1).

What follows a player moved from another table (PEN-5, TOURN-32), as the host sends it
with the seat: their time-bank extension chips (given to the table's
:class:`~controller.clocks.timebank.ExtensionChips`) and the hands of a penalty still to
serve. A penalised player sits out: in a tournament they are dealt in, their blinds and
antes are posted and the hand is killed (BLIND-7, PEN-4 [conv]); every hand played to its
end while they are seated counts, dealt in or not (PEN-4), a misdeal's hand does not (it
is dealt again, LIVE-25). Each count is journaled (``PenaltyServed``); at 0 the player
comes back (``CameBack``) and plays from the next hand. The dealer cannot bring them back
earlier.

The deck's reports go out as counts (``DeckReport``); the count at the shuffle names its
cards on the dealer's screen only (:attr:`SeatsAndDeck.checked`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from pathlib import Path

from pydantic import TypeAdapter, ValidationError

from controller.clocks.timebank import ExtensionChips
from controller.events import (
    CameBack,
    ClockSnapshot,
    DeckReport,
    PenaltyServed,
    PlayerCheckedIn,
    PlayerRemoved,
    PlayerSeated,
    SatOut,
    SeatAdjustment,
    SeatPresence,
    StackAdjusted,
)
from controller.events.base import Id
from controller.rules.cards import DECK

from .base import Stage
from .deck import DeckCheck, DeckCount, DeckMap, Enrolment
from .ports import HandView, Refuse, Sink
from .seats import Roster, SeatError, SeatState

log = logging.getLogger("pitboss.table")
_PLAYER_ID: TypeAdapter[str] = TypeAdapter(Id)


def not_a_player_id(player: str) -> str | None:
    """Why ``player`` cannot name a player in the journal (None: it can)."""
    try:
        _PLAYER_ID.validate_python(player)
    except ValidationError:
        return (f"{player!r} is not a player id: 1 to 64 letters, digits and _ . : - "
                "(the floor's id for the player)")
    return None


class SeatsAndDeck:
    """The table's seats and its deck between hands (see the module docstring)."""

    def __init__(self, *, roster: Roster, view: HandView, emit: Sink, reject: Refuse,
                 tournament: bool, extensions: ExtensionChips | None,
                 snapshot: Callable[[], ClockSnapshot | None], deck: DeckMap | None,
                 deck_path: Path | None, beep: Callable[[], None]) -> None:
        self.roster = roster
        self.beep = beep
        self.view = view
        self.emit = emit
        self.reject = reject
        self.tournament = tournament
        self.extensions = extensions
        self.snapshot = snapshot
        self.deck = deck
        self.deck_path = deck_path
        self.enrolment: Enrolment | None = None
        self.count: DeckCount | None = None
        self.checked: DeckCheck | None = None  # the last count, for the dealer's screen
        self.penalties: dict[str, int] = {}  # PEN-4/5: player -> hands still to serve

    @property
    def stage(self) -> Stage:
        return self.view.stage

    @property
    def hand_no(self) -> int:
        return self.view.hand_no

    # ================================================================ seats
    def between_hands(self, what: str) -> bool:
        if self.stage not in (Stage.IDLE, Stage.ENROLLING):
            return self.reject(f"{what} waits until the hand is over", None, "seats")
        return True

    def take_seat(self, seat: int, player: str, stack: int, *,
                  extension_chips: int | None = None, penalty_hands: int | None = None
                  ) -> bool:
        """A player sits down; one moved from another table brings ``extension_chips``
        (None: the table's default for a newcomer) and ``penalty_hands`` still to serve
        (PEN-5, TOURN-32; see the module docstring)."""
        if not self.between_hands("taking a seat"):
            return False
        if (extension_chips or 0) < 0 or (penalty_hands or 0) < 0:
            return self.reject(f"a player brings 0 or more extension chips and penalty "
                               f"hands, not {extension_chips} and {penalty_hands}",
                               "PEN-5", "seats")
        why = not_a_player_id(player)
        if why is not None:
            return self.reject(why, None, "seats")
        try:
            self.roster.take(seat, player, stack)
        except SeatError as exc:
            return self.reject(str(exc), None, "seats")
        penalty = penalty_hands or 0
        self.penalties.pop(player, None)
        if penalty:  # PEN-4: sits out (dealt in and killed in a tournament, BLIND-7)
            self.roster.sit_out(seat)
            self.penalties[player] = penalty
        bank, carried = self.extensions, extension_chips
        if carried is not None and bank is None:
            log.warning("player %s brought %d extension chips, but this table has no time "
                        "bank: give the table ExtensionChips to honour them", player, carried)
            carried = None
        elif carried is not None and bank is not None:
            bank.carry_in(player, carried)
        self.emit(PlayerSeated(seat=seat, player=player, stack=stack, extension_chips=carried,
                               penalty_hands=penalty or None,
                               clock=None if carried is None else self.snapshot()))
        return True

    def leave_seat(self, seat: int) -> bool:
        if not self.between_hands("leaving"):
            return False
        try:
            left = self.roster.leave(seat)
        except SeatError as exc:
            return self.reject(str(exc), None, "seats")
        self.penalties.pop(left.player, None)  # a move: the host carries it (PEN-5)
        self.emit(PlayerRemoved(seat=seat, player=left.player, stack=left.stack))
        return True

    def add_chips(self, seat: int, player: str, chips: int, reason: str) -> bool:
        """A rebuy or add-on the floor sold (TOURN-10..12; the host decides who may buy):
        ``chips`` go onto the stack of ``player`` at ``seat``, between hands only (TOURN-11:
        bought chips are in play from the next hand), never during a colour-up
        (CHIPRACE-1), never to an empty seat or to someone else."""
        rule = "TOURN-12" if reason == "add_on" else "TOURN-11"
        what = "an add-on" if reason == "add_on" else "a rebuy"
        if reason not in ("rebuy", "add_on"):
            return self.reject(f"chips are added for a rebuy or an add-on, not {reason!r}",
                               "TOURN-10", "seats")
        if not self.tournament:
            return self.reject(f"{what} is a tournament purchase and this is a cash table",
                               "TOURN-10", "seats")
        if self.stage is Stage.COLOUR_UP:
            return self.reject(f"a colour-up is under way: {what} waits until it is done "
                               "(CHIPRACE-1)", "CHIPRACE-1", "seats")
        if self.stage not in (Stage.IDLE, Stage.ENROLLING):
            return self.reject(f"hand {self.hand_no} is in play: {what} is added between "
                               f"hands ({rule}); send it again when the hand is over", rule,
                               "seats")
        if chips <= 0:
            return self.reject(f"{what} adds chips, not {chips}", rule, "seats")
        try:
            s = self.roster[seat]
        except SeatError as exc:
            return self.reject(str(exc), None, "seats")
        if s.state is SeatState.EMPTY:
            return self.reject(f"seat {seat} is empty: a busted player is seated again with "
                               f"seat_player, not given {what}", rule, "seats")
        if s.player != player:
            return self.reject(f"seat {seat} is {s.player}'s, not {player}'s: check the "
                               "seat before adding chips", rule, "seats")
        before = s.stack
        s.stack += chips
        self.emit(StackAdjusted(  # one seat's rebuy or add-on
            reason="add_on" if reason == "add_on" else "rebuy",
            seats=(SeatAdjustment(seat=seat, before=before, after=s.stack),)))
        return True

    def serve_penalties(self, redealt: bool) -> None:
        """PEN-4: a hand is over. Every seated player serving a penalty counts it (a
        misdeal's hand, ``redealt``, is dealt again and does not count); at 0 they play
        again."""
        if redealt:
            return
        for s in self.roster.occupied():
            left = self.penalties.get(s.player, 0) - 1
            if left < 0:
                continue
            self.emit(PenaltyServed(seat=s.number, player=s.player, hands_left=left,
                                    hand_no=self.hand_no))
            if left:
                self.penalties[s.player] = left
                continue
            del self.penalties[s.player]
            if s.state is SeatState.SITTING_OUT:
                self.roster.come_back(s.number)
                self.emit(CameBack(seat=s.number))

    def sit_out(self, seat: int) -> bool:
        try:
            self.roster.sit_out(seat)
        except SeatError as exc:
            return self.reject(str(exc), None, "seats")
        self.emit(SatOut(seat=seat))
        return True

    def come_back(self, seat: int) -> bool:
        owed = self.penalties.get(self.roster.seats[seat].player, 0) \
            if seat in self.roster.seats else 0
        if owed:
            return self.reject(f"seat {seat} is serving a penalty: {owed} more hands "
                               "before they play again", "PEN-4", "seats")
        try:
            self.roster.come_back(seat)
        except SeatError as exc:
            return self.reject(str(exc), None, "seats")
        self.emit(CameBack(seat=seat))
        return True

    def assign(self, card_uid: bytes, player: str, seat: int) -> bool:
        """The floor's seat assignment, checked when the player card is read."""
        why = not_a_player_id(player)
        if why is not None:
            return self.reject(why, None, "seats")
        try:
            self.roster.assign(card_uid, player, seat)
        except SeatError as exc:
            return self.reject(str(exc), None, "seats")
        return True

    # ================================================================ player cards
    def player_card(self, seat: int, uid: bytes) -> None:
        """A player card was read at ``seat``'s player reader: checked in, or the wrong
        seat (``assigned`` elsewhere: the buzzer sounds); a card the floor assigned to
        nobody is refused."""
        if uid not in self.roster.assignments:
            self.reject(f"the player card at seat {seat} is not assigned to anyone: the "
                        "floor assigns it first", None, "player_card")
            return
        player, assigned = self.roster.check_in(seat, uid)
        self.emit(PlayerCheckedIn(seat=seat, player=player, assigned=assigned))
        if assigned == seat:
            self.emit(SeatPresence(seat=seat, present=True))
        else:
            self.beep()

    def player_card_left(self, seat: int) -> None:
        """The player card left ``seat``'s reader: the player is away (DEAL-5)."""
        s = self.roster[seat]
        if s.checked_in and s.present:
            s.present = False
            self.emit(SeatPresence(seat=seat, present=False))

    # ================================================================ deck
    def deck_read(self, uid: bytes) -> None:
        """A card at the deck reader: the next card of an enrolment, or the count at the
        shuffle between hands (CARD-1)."""
        if self.enrolment is not None:
            why = self.enrolment.read(uid)
            if why is not None:
                self.reject(why, "CARD-1", "deck")
            return
        if self.stage is Stage.IDLE and self.deck is not None:
            if self.count is None:
                self.count = DeckCount(self.deck)
            self.count.read(uid)

    def begin_enrolment(self, order: Sequence[int] | None = None) -> bool:
        """Read a new deck at the deck reader one card at a time: 2c 2d 2h 2s 3c ... As,
        or in the ``order`` the dealer states."""
        if not self.between_hands("enrolling a deck"):
            return False
        try:
            self.enrolment = Enrolment(self.deck.version if self.deck else 0,
                                       DECK if order is None else order)
        except ValueError as exc:
            return self.reject(str(exc), "CARD-1", "deck")
        return True

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
        self.emit(DeckReport(what="enrolled", version=deck.version, digest=deck.digest))
        return True

    def finish_count(self) -> None:
        if self.count is None or not self.count.reads:
            self.count = None
            return
        self.checked = checked = self.count.result()
        self.count = None
        self.emit(DeckReport(what="checked", complete=checked.complete,
                             missing=len(checked.missing), duplicated=len(checked.duplicated),
                             unknown=len(checked.unknown)))

