"""Card reads -> what they mean for the hand: hole cards, burns, board, folds, misdeals.

Readers: ``seatN`` (hole cards at seat N), ``playerN`` (the player card at seat N),
``boardN``, ``muck`` and ``deck`` (see ``hardware/*.toml``). A tag is mapped to a card with
the deck map; an unknown tag is reported and never guessed.

Irregularities are shown to the dealer as :class:`~controller.table.events.Irregularity`
prompts with the rule and the choices the rules allow; the read that caused one is not
given to the engine.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from controller.devices.interfaces import BEEP_ERROR
from controller.rules.actions import Kill
from controller.rules.cards import Card
from controller.rules.errors import RulesError
from controller.rules.hand import Hand, Phase

from . import betting, showdown
from .base import CONTINUE, MISDEAL, Stage
from .dealing import BOARD_COUNTS, STREET_NAMES
from .deck import DeckCount
from .events import (
    BoardDealt,
    CardBurned,
    Choice,
    HoleCardsDealt,
    PlayerCheckedIn,
    PresenceChanged,
    UnknownCard,
    WrongSeat,
)

if TYPE_CHECKING:
    from .table import Table

def _nothing() -> None:
    """The dealer puts it right by hand: nothing changes in the hand."""


KILL = Choice("kill_hand", "the hand is dead: it folds in turn, its chips stay in", "LIVE-17")


def card_left(table: Table, reader: str, uid: bytes) -> None:
    if table.where.get(uid) == reader:
        del table.where[uid]
    seat = table.player_reader.get(reader)
    if seat is not None:
        s = table.roster[seat]
        if s.checked_in and s.present:
            s.present = False
            table.emit(PresenceChanged(seat, False))


def card_arrived(table: Table, reader: str, uid: bytes) -> None:

    seat = table.player_reader.get(reader)
    if seat is not None:
        _player_card(table, seat, uid)
        return
    if reader == table.deck_reader:
        _deck(table, uid)
        return
    deck = table.deck
    card = deck.card(uid) if deck is not None else None
    if card is None:
        table.emit(UnknownCard(reader, uid))
        table.hardware.buzzer.beep(BEEP_ERROR)
        return
    was = table.where.get(uid)
    table.where[uid] = reader
    if table.stage not in (Stage.DEALING, Stage.PLAYING, Stage.SHOWDOWN):
        return  # between hands and while awarding, cards are gathered: nothing to read
    if was is not None and was != reader and reader != table.muck_reader \
            and was != table.muck_reader:
        table.prompt("two_readers", f"the card is read at {was} and at {reader}: "
                     "one card cannot be in two places (an antenna overlap or a second deck)",
                     "CARD-1", table.seat_reader.get(reader),
                     [(Choice("continue", f"the card is at {was}: move it clear of {reader}"),
                       _nothing), _misdeal_choice(table)], cards=(card,))
        return
    if reader in table.seat_reader:
        _at_seat(table, table.seat_reader[reader], card)
    elif reader in table.board_readers:
        _at_board(table, card)
    elif reader == table.muck_reader:
        _at_muck(table, card)


def _misdeal_choice(table: Table) -> tuple[Choice, Callable[[], None]]:

    def misdeal() -> None:
        table.misdeal("the dealer chose a misdeal", "LIVE-25")

    return MISDEAL, misdeal


def _player_card(table: Table, seat: int, uid: bytes) -> None:
    player, assigned = table.roster.check_in(seat, uid)
    if assigned == seat:
        table.emit(PlayerCheckedIn(seat, player))
        table.emit(PresenceChanged(seat, True))
    else:
        table.emit(WrongSeat(seat, player, assigned))
        table.hardware.buzzer.beep(BEEP_ERROR)


def _deck(table: Table, uid: bytes) -> None:

    if table.stage is Stage.ENROLLING and table.enrolment is not None:
        why = table.enrolment.read(uid)
        if why is not None:
            table.reject(why, "CARD-1", "deck")
        return
    if table.stage is Stage.IDLE and table.deck is not None:  # the count at the shuffle
        if table.count is None:
            table.count = DeckCount(table.deck)
        table.count.read(uid)


# ---------------------------------------------------------------- seats
def _at_seat(table: Table, seat: int, card: Card) -> None:

    r = table.reads
    assert r is not None
    if r.owner.get(card) == seat:
        return  # its own card read again (slid, lifted to look): nothing new
    if r.knows(card):
        table.prompt("wrong_place", f"the card is {r.where(card)}, now read at seat "
                     f"{seat}", "LIVE-16", seat, [(CONTINUE, _nothing),
                                                  _misdeal_choice(table)], cards=(card,))
        return
    if table.stage is not Stage.DEALING:
        table.prompt("wrong_place", f"the card reached seat {seat} after the deal",
                     "LIVE-17", seat, [(CONTINUE, _nothing), _misdeal_choice(table)], cards=(card,))
        return
    if seat not in r.hole:
        table.prompt("empty_seat", f"the card was dealt to seat {seat}, which is not "
                     "in this hand", "CARD-8", seat,
                     [(Choice("continue", "take it back and deal on", "CARD-8"), _nothing),
                      _misdeal_choice(table)], cards=(card,))
        return
    expected = r.next_seat
    if not r.add_hole(seat, card):
        table.prompt("too_many", f"seat {seat} has more than {r.per_seat} cards", "LIVE-17",
                     seat, [(Choice("continue", "take the extra card back"), _nothing),
                            (KILL, _kill(table, seat)), _misdeal_choice(table)], cards=(card,))
        return
    if expected is not None and expected != seat:
        table.prompt("out_of_order", f"the card went to seat {seat}; seat {expected} "
                     "was next (one at a time clockwise, the button last)", "CARD-8", seat,
                     [(CONTINUE, _nothing), _misdeal_choice(table)], cards=(card,))
    if r.deal_complete:
        _deal_done(table)


def _kill(table: Table, seat: int, rule: str = "LIVE-17") -> Callable[[], None]:

    def kill() -> None:
        r, hand = table.reads, table.hand
        if r is None or hand is None:
            return
        if table.stage is Stage.DEALING:  # the engine has no hands yet: dead at the deal's end
            r.kills.setdefault(seat, rule)
            if len(r.hole[seat]) >= r.per_seat and r.deal_complete:
                _deal_done(table)
            return
        position = table.position_of(seat)
        if position is not None and hand.can_kill(position, rule):
            betting.kill(table, position, rule, "console")

    return kill


def _deal_done(table: Table) -> None:
    """The last card reached the button: the engine gets every hand (DEAL-5 checked);
    hands found dead during the deal are killed in the engine (LIVE-16/17)."""

    hand, r = table.hand, table.reads
    assert hand is not None and r is not None
    for position, seat in enumerate(r.dealt):
        cards = r.hole[seat]
        padded: list[Card | None] = list(cards) + [None] * (r.per_seat - len(cards))
        hand.deal_hole(position, padded)
        table.emit(HoleCardsDealt(table.hand_no, seat, tuple(cards)))
    table.stage = Stage.PLAYING
    for seat in r.dealt:  # DEAL-5: at the seat when the last card reaches the button
        if not table.roster[seat].present and seat not in r.dead and seat not in r.kills:
            r.kills[seat] = "DEAL-5"
            table.prompt("absent", f"seat {seat} was not at the table when the last card "
                         "reached the button: the hand is dead", "DEAL-5", seat,
                         [(KILL, _nothing),
                          (Choice("keep_hand", "the player was within reach of the chair",
                                  "DEAL-5"), _revive(table, seat))])
    for seat, rule in r.kills.items():
        at = table.position_of(seat)
        if at is not None and table.hand is hand and hand.can_kill(at, rule):
            betting.kill(table, at, rule, "auto")
    table.advance()


def _revive(table: Table, seat: int) -> Callable[[], None]:
    """The floor keeps the hand (DEAL-5): the dead-hand ruling is taken out of the log and
    the hand replayed; refused if what followed no longer fits."""

    def revive() -> None:
        hand = table.hand
        position = table.position_of(seat)
        if hand is None or position is None:
            return
        log = [a for a in hand.log if not (isinstance(a, Kill) and a.player == position)]
        if len(log) == len(hand.log):
            return
        try:
            table.hand = Hand.replay(hand.config, log, hand.profile)
        except RulesError as exc:
            table.reject(f"the hand cannot be revived: {exc.reason}; the floor corrects it",
                         exc.rule, "keep_hand")
            return
        table.advance()

    return revive


def short_deal(table: Table, what: str) -> bool:
    """A card for the board or the muck while hole cards are missing (LIVE-17)."""
    r = table.reads
    assert r is not None
    short = r.short()
    if not short:
        return False

    def kill_short() -> None:
        rr = table.reads
        if rr is None or not rr.short():
            return
        for seat in rr.short():
            rr.kills.setdefault(seat, "LIVE-17")
        _deal_done(table)

    names = ", ".join(str(s) for s in short)
    table.prompt("too_few", f"{what} before every hand was dealt: seat(s) {names} lack "
                 "cards", "LIVE-17", short[0],
                 [(KILL, kill_short), _misdeal_choice(table)])
    return True


# ---------------------------------------------------------------- board
def _at_board(table: Table, card: Card) -> None:

    hand, r = table.hand, table.reads
    assert hand is not None and r is not None
    if card in r.board or card in r.pending:
        return
    if card in r.owner:
        table.prompt("exposed", f"seat {r.owner[card]}'s card was read on the "
                     "board: shown to everyone", "CARD-5", r.owner[card],
                     [(CONTINUE, _nothing)], cards=(card,))
        return
    if table.stage is Stage.DEALING:
        if not short_deal(table, "the card on the board"):
            table.prompt("exposed", "the card on the board during the deal", "CARD-5", None,
                         [(CONTINUE, _nothing), _misdeal_choice(table)], cards=(card,))
        return
    if hand.phase is not Phase.DEAL_BOARD:
        table.prompt("premature", "the card on the board before the betting round "
                     "ended", "DEAL-1", None, [(CONTINUE, _nothing)], cards=(card,))
        return
    street = hand.street
    if street not in r.burned:
        r.burned.add(street)  # asked once per street
        table.prompt("no_burn", f"no burn card was read before the {STREET_NAMES[street]}",
                     "CARD-8", None, [(CONTINUE, _nothing)])
    r.pending.append(card)
    if len(r.pending) == BOARD_COUNTS[street]:
        cards = tuple(r.pending)
        r.pending.clear()
        hand.deal_board(cards)
        r.board.extend(cards)
        table.emit(BoardDealt(table.hand_no, STREET_NAMES[street], cards))
        table.advance()


# ---------------------------------------------------------------- muck
def _at_muck(table: Table, card: Card) -> None:

    hand, r = table.hand, table.reads
    assert hand is not None and r is not None
    seat = r.owner.get(card)
    if seat is None:
        if card in r.burns or card in r.board or card in r.pending:
            return
        if table.stage is Stage.DEALING:
            short_deal(table, "a burn card")
            return
        if hand.phase is Phase.DEAL_BOARD and hand.street not in r.burned:
            r.burned.add(hand.street)
            r.burns.append(card)
            table.emit(CardBurned(table.hand_no, card))  # CARD-8
            return
        table.prompt("wrong_place", "the card went to the muck; no burn is due now",
                     "CARD-8", None, [(CONTINUE, _nothing)], cards=(card,))
        return
    position = table.position_of(seat)
    if position is None or hand.folded[position] or hand.mucked[position]:
        return  # the rest of a folded hand
    if table.stage is Stage.DEALING:
        table.prompt("wrong_place", f"seat {seat}'s card went to the muck during the deal",
                     "LIVE-16", seat, [(KILL, _kill(table, seat, "LIVE-16")),
                                       _misdeal_choice(table)])
        return
    if hand.phase is Phase.SHOWDOWN:  # SHOW-10: mucked in its turn to show

        if hand.can_muck(position):
            showdown.muck(table, seat, source="muck")
        else:  # out of the showdown order (or bound to show): the hand is dead (LIVE-16)
            betting.kill(table, position, "LIVE-16", "muck")
        return
    # LIVE-16: a hand that touches the muck is folded; out of turn, the fold binds
    # (LIVE-12); a player who cannot act any more (all-in) has a dead hand.
    table.fold_from_muck(position)
