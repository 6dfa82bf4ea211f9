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

The deck (CARD-1): a new deck is enrolled under a name and saved in the table's
:class:`~controller.table.deck.DeckLibrary`; the house changes decks between hands by
choosing a saved one (CARD-6). Each goes to the journal as a ``DeckReport`` with the name,
version and digest, never the UID map.

The count at the end of the hand: as the dealer gathers the cards (from the awarding of
the pots on) and passes them over the deck reader, they are counted; when every card is
back the table says so at once (a ``checked`` report, complete). At the next deal a count
that is short (a card missing, read twice, foreign or unknown) is journaled as counts only
and **stops the deal** with an alert: the buzzer, and a prompt naming the missing cards
on the dealer's screen only (``cards``: never journaled, never logged), with the choice to
deal anyway (the floor's call) or stop. A card room does not deal with a card missing: it
may be on the floor, or in someone's sleeve; the dealer finds it and counts the deck again
(the count starts over), or the floor decides to play on. A deal with no count taken is
not checked (the table cannot tell a count from no count until a card is read).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Protocol

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
from controller.rules.cards import DECK, Card

from .base import Choice, Stage
from .deck import (
    DeckCheck,
    DeckCount,
    DeckLibrary,
    DeckMap,
    DeckMapError,
    Elsewhere,
    Enrolment,
    not_a_card_tag,
    not_a_deck_name,
)
from .ports import Action, HandView, Refuse, Sink
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


class Alerts(Protocol):
    """Prompts on the dealer's screen (the hand in play's: one list of open prompts)."""

    def prompt(self, kind: str, reason: str, rule: str | None, seat: int | None,
               options: Sequence[tuple[Choice, Action]], cards: tuple[Card, ...] = ()
               ) -> None: ...

    def drop_prompts(self, kind: str, seat: int | None = None) -> None: ...


DEAL_ANYWAY = Choice("deal_anyway", "deal with the deck as it is (the floor's call)",
                     "CARD-1")
STOP = Choice("stop", "no deal: find the cards, count the whole deck again at the deck "
              "reader, then deal", "CARD-1")
_COUNTING = (Stage.IDLE, Stage.AWARDING)  # the hand's play is over: cards are gathered


class SeatsAndDeck:
    """The table's seats and its deck between hands (see the module docstring)."""

    def __init__(self, *, roster: Roster, view: HandView, emit: Sink, reject: Refuse,
                 alerts: Alerts, tournament: bool, extensions: ExtensionChips | None,
                 snapshot: Callable[[], ClockSnapshot | None], deck: DeckMap | None,
                 decks: DeckLibrary | None, beep: Callable[[], None], grant: int = 0
                 ) -> None:
        """``grant``: the extension chips a player sitting down anew is given (the
        house's per-player count; one moved from another table brings their own)."""
        self.roster = roster
        self.beep = beep
        self.view = view
        self.emit = emit
        self.reject = reject
        self.alerts = alerts
        self.tournament = tournament
        self.extensions = extensions
        self.grant = grant
        self.snapshot = snapshot
        self.deck = deck
        self.decks = decks
        self.enrolment: Enrolment | None = None
        self.count: DeckCount | None = None
        self.checked: DeckCheck | None = None  # the last count, for the dealer's screen
        self.short = False  # the last count was short: no deal until a full count
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
        elif bank is not None and self.grant:  # a newcomer: the house's count (CLOCK-1)
            bank.carry_in(player, self.grant)
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
    def foreign(self, uid: bytes) -> tuple[str, Card] | None:
        """The other saved deck a tag read during play belongs to, and its card there
        (None: no other deck's, an unknown tag)."""
        return self._elsewhere(self.deck.name if self.deck is not None else None)(uid)

    def _elsewhere(self, besides: str | None) -> Elsewhere:
        """Which saved deck other than ``besides`` a tag belongs to."""
        decks = self.decks

        def owner(uid: bytes) -> tuple[str, Card] | None:
            found = decks.owner(uid) if decks is not None else None
            return None if found is None or found[0] == besides else found

        return owner

    def _not_a_card(self, uid: bytes) -> str | None:
        """Why the tag at the deck reader is no playing card (CARD-1), when that can be
        told: a player card the floor assigned, or a tag of another kind."""
        if uid in self.roster.assignments:
            return "that is a player card, not a playing card: keep it off the deck reader"
        return not_a_card_tag(uid)

    def deck_read(self, uid: bytes) -> None:
        """A card at the deck reader: the next card of an enrolment, or the count of the
        cards gathered after a hand (CARD-1)."""
        if self.enrolment is not None:
            why = self._not_a_card(uid) or self.enrolment.read(uid)
            if why is not None:  # the enrolment goes on
                self.reject(why, "CARD-1", "deck")
            return
        deck = self.deck
        if self.stage not in _COUNTING or deck is None:
            return
        why = self._not_a_card(uid)
        if why is not None:
            self.reject(f"not counted: {why}", "CARD-1", "deck")
            return
        if self.count is None:
            self.count = DeckCount(deck, self._elsewhere(deck.name))
        count = self.count
        count.read(uid)
        if count.complete and not count.reported:  # every card is back: say so
            count.reported = True
            self.checked = count.result()
            self._report(self.checked)

    def count_line(self) -> str | None:
        """The count for the dealer's screen, cards by name (None: no count under way)."""
        count = self.count
        if self.enrolment is None and count is not None and count.reads:
            if count.complete:
                return "deck complete: 52 cards"
            found = count.result()
            extra = DeckCheck(False, (), found.duplicated, found.unknown, found.foreign)
            return f"counted {count.counted}/52" + (f"; {extra.text}" if extra.text else "")
        if self.short and self.checked is not None:
            return f"count the deck again: {self.checked.text}"
        return None

    def _report(self, checked: DeckCheck) -> None:
        deck = self.deck
        self.emit(DeckReport(
            what="checked", complete=checked.complete, missing=len(checked.missing),
            duplicated=len(checked.duplicated), unknown=len(checked.unknown),
            foreign=len(checked.foreign), name=deck.name if deck else None,
            version=deck.version if deck else None))

    def count_at_deal(self, deal_anyway: Callable[[], object]) -> bool:
        """The deal key: the count taken since the last hand is journaled (counts only;
        a complete one was already, when it completed); a short count stops the deal
        with the missing-card alert (see the module docstring). False: no deal."""
        count, self.count = self.count, None
        if count is not None and count.reads:
            self.checked = checked = count.result()
            if not (checked.complete and count.reported):
                self._report(checked)
            self.short = not checked.complete
        if not self.short or self.checked is None:
            return True
        checked = self.checked
        self.alerts.drop_prompts("deck_count")
        found = [f"{n} {what}" for n, what in (
            (len(checked.missing), "missing"), (len(checked.duplicated), "read twice"),
            (len(checked.foreign), "of another deck"), (len(checked.unknown), "unknown"))
            if n]

        def anyway() -> None:
            self.short = False
            deal_anyway()

        self.alerts.prompt(  # CARD-1: the missing cards by name, on the dealer's screen only
            "deck_count", f"the deck count is short ({', '.join(found)}): find the cards "
            "and count the deck again, or deal anyway", "CARD-1", None,
            [(DEAL_ANYWAY, anyway), (STOP, _nothing)], cards=checked.missing)
        return self.reject("no deal: the deck count is short; find the cards and count "
                           "the deck again, or choose deal anyway", "CARD-1", "deal")

    def begin_enrolment(self, order: Sequence[int] | None = None,
                        name: str | None = None) -> bool:
        """Read a new deck at the deck reader one card at a time: 2c 2d 2h 2s 3c ... As,
        or in the ``order`` the dealer states; saved as ``name`` (default ``deck-<n>``,
        the version; the name of a saved deck enrols that deck again, replacing its map)."""
        if not self.between_hands("enrolling a deck"):
            return False
        version = max(self.decks.next_version() - 1 if self.decks else 0,
                      self.deck.version if self.deck else 0)
        if name is None:
            name = f"deck-{version + 1}"
            taken = self.decks.names() if self.decks else ()
            n = 1
            while name in taken:
                n += 1
                name = f"deck-{version + 1}-{n}"
        why = not_a_deck_name(name)
        if why is not None:
            return self.reject(why, "CARD-1", "deck")
        try:
            self.enrolment = Enrolment(version, DECK if order is None else order, name=name,
                                       elsewhere=self._elsewhere(name))
        except ValueError as exc:
            return self.reject(str(exc), "CARD-1", "deck")
        return True

    def finish_enrolment(self) -> bool:
        """The 52 cards are read: the deck is saved, journaled and put in play."""
        if self.enrolment is None:
            return self.reject("no deck is being enrolled: begin one with ENROL", None,
                               "deck")
        try:
            deck = self.enrolment.finish()
        except ValueError as exc:
            return self.reject(str(exc), "CARD-1", "deck")
        if self.decks is not None:
            try:
                self.decks.save(deck)
                self.decks.put_in_play(deck.name or "")
            except (OSError, DeckMapError) as exc:
                return self.reject(f"the deck could not be saved ({exc}): check the deck "
                                   "library's disk, then finish again", "CARD-1", "deck")
        else:
            log.warning("deck %r is in play but not saved: this table has no deck library",
                        deck.name)
        self._put_in_play(deck)
        self.emit(DeckReport(what="enrolled", name=deck.name, version=deck.version,
                             digest=deck.digest))
        return True

    def choose_deck(self, name: str) -> bool:
        """Play with the saved deck ``name`` from the next hand (CARD-6: the house changes
        decks, between hands only)."""
        if self.enrolment is not None:
            return self.reject("a deck is being enrolled: finish it first, then choose a "
                               "deck", "CARD-6", "deck")
        if self.stage is not Stage.IDLE:
            return self.reject(f"a deck change waits until the hand is over ({self.stage})",
                               "CARD-6", "deck")
        decks = self.decks
        if decks is None:
            return self.reject("this table has no deck library: enrol a deck at the deck "
                               "reader", "CARD-6", "deck")
        if self.deck is not None and self.deck.name == name:
            return self.reject(f"deck {name!r} is already in play", "CARD-6", "deck")
        try:
            deck = decks.load(name)
            decks.put_in_play(name)
        except (OSError, DeckMapError) as exc:
            return self.reject(str(exc), "CARD-6", "deck")
        self._put_in_play(deck)
        self.emit(DeckReport(what="chosen", name=name, version=deck.version,
                             digest=deck.digest))
        return True

    def _put_in_play(self, deck: DeckMap) -> None:
        """A new deck: the enrolment is over, a count of the old one means nothing now."""
        self.deck = deck
        self.enrolment = None
        self.count = None
        self.checked = None
        self.short = False
        self.alerts.drop_prompts("deck_count")


def _nothing() -> None:
    """Stop: no deal; the dealer finds the cards and counts the deck again."""
