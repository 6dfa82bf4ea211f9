"""Card reads -> what they mean for the hand: hole cards, burns, board, folds, misdeals.

The table routes each read of a known card at a seat's reader, the board or the muck
here (player cards, the deck reader and unknown tags are the table's own business); this
module says what it means for the hand in play.

Irregularities are shown to the dealer as prompts (:class:`~controller.table.base.Prompt`,
journaled as ``Irregularity``) with the rule and the choices the rules allow; the card
concerned is named on the dealer's screen only (it may be a hole card), and the read that
caused one is not given to the engine. Hole and burn cards are journaled as the secret
events (``HoleCardsDealt``, ``BurnedCard``): the journal sends their cards on
``secure/cards`` only.
"""

from __future__ import annotations

from collections.abc import Callable

from controller.events import BoardDealt, BurnedCard, HoleCardsDealt
from controller.rules.actions import Kill
from controller.rules.cards import Card
from controller.rules.errors import RulesError
from controller.rules.hand import Hand, Phase

from . import betting, showdown
from .base import CONTINUE, Choice, Stage
from .dealing import BOARD_COUNTS, STREET_NAMES
from .ports import Play


def _nothing() -> None:
    """The dealer puts it right by hand: nothing changes in the hand."""


KILL = Choice("kill_hand", "the hand is dead: it folds in turn, its chips stay in", "LIVE-17")


def card_at(play: Play, where: str, seat: int | None, card: Card) -> None:
    """A card of the deck read at seat ``seat``'s reader (``where`` "seat"), on the board
    or at the muck, while a hand is dealt or played."""
    if play.stage not in (Stage.DEALING, Stage.PLAYING, Stage.SHOWDOWN):
        return  # between hands and while awarding, cards are gathered: nothing to read
    if where == "seat" and seat is not None:
        _at_seat(play, seat, card)
    elif where == "board":
        _at_board(play, card)
    elif where == "muck":
        _at_muck(play, card)


# ---------------------------------------------------------------- seats
def _at_seat(play: Play, seat: int, card: Card) -> None:

    r = play.reads
    assert r is not None
    if r.owner.get(card) == seat:
        return  # its own card read again (slid, lifted to look): nothing new
    if r.knows(card):
        play.prompt("wrong_place", f"the card is {r.where(card)}, now read at seat "
                     f"{seat}", "LIVE-16", seat, [(CONTINUE, _nothing),
                                                  play.misdeal_choice()], cards=(card,))
        return
    if play.stage is not Stage.DEALING:
        play.prompt("wrong_place", f"the card reached seat {seat} after the deal",
                     "LIVE-17", seat, [(CONTINUE, _nothing), play.misdeal_choice()], cards=(card,))
        return
    if seat not in r.hole:
        play.prompt("empty_seat", f"the card was dealt to seat {seat}, which is not "
                     "in this hand", "CARD-8", seat,
                     [(Choice("continue", "take it back and deal on", "CARD-8"), _nothing),
                      play.misdeal_choice()], cards=(card,))
        return
    expected = r.next_seat
    if not r.add_hole(seat, card):
        play.prompt("too_many", f"seat {seat} has more than {r.per_seat} cards", "LIVE-17",
                     seat, [(Choice("continue", "take the extra card back"), _nothing),
                            (KILL, _kill(play, seat)), play.misdeal_choice()], cards=(card,))
        return
    if expected is not None and expected != seat:
        play.prompt("out_of_order", f"the card went to seat {seat}; seat {expected} "
                     "was next (one at a time clockwise, the button last)", "CARD-8", seat,
                     [(CONTINUE, _nothing), play.misdeal_choice()], cards=(card,))
    if r.deal_complete:
        _deal_done(play)


def _kill(play: Play, seat: int, rule: str = "LIVE-17") -> Callable[[], None]:

    def kill() -> None:
        r, hand = play.reads, play.hand
        if r is None or hand is None:
            return
        if play.stage is Stage.DEALING:  # the engine has no hands yet: dead at the deal's end
            r.kills.setdefault(seat, rule)
            if len(r.hole[seat]) >= r.per_seat and r.deal_complete:
                _deal_done(play)
            return
        position = play.position_of(seat)
        if position is not None and hand.can_kill(position, rule):
            betting.kill(play, position, rule, "console")

    return kill


def _deal_done(play: Play) -> None:
    """The last card reached the button: the engine gets every hand (DEAL-5 checked);
    hands found dead during the deal are killed in the engine (LIVE-16/17)."""

    hand, r = play.hand, play.reads
    assert hand is not None and r is not None
    for position, seat in enumerate(r.dealt):
        cards = r.hole[seat]
        padded: list[Card | None] = list(cards) + [None] * (r.per_seat - len(cards))
        hand.deal_hole(position, padded)
        play.emit(HoleCardsDealt(hand_no=play.hand_no, player=position,
                                 cards=tuple(str(c) for c in cards)))
    for seat in r.dealt:  # DEAL-5: at the seat when the last card reaches the button
        if not play.roster[seat].present and seat not in r.dead and seat not in r.kills:
            r.kills[seat] = "DEAL-5"
            play.prompt("absent", f"seat {seat} was not at the table when the last card "
                         "reached the button: the hand is dead", "DEAL-5", seat,
                         [(KILL, _nothing),
                          (Choice("keep_hand", "the player was within reach of the chair",
                                  "DEAL-5"), _revive(play, seat))])
    for seat, rule in r.kills.items():
        at = play.position_of(seat)
        if at is not None and play.hand is hand and hand.can_kill(at, rule):
            betting.kill(play, at, rule, "auto")
    play.advance()


def _revive(play: Play, seat: int) -> Callable[[], None]:
    """The floor keeps the hand (DEAL-5): the dead-hand ruling is taken out of the log and
    the hand replayed; refused if what followed no longer fits."""

    def revive() -> None:
        hand = play.hand
        position = play.position_of(seat)
        if hand is None or position is None:
            return
        log = [a for a in hand.log if not (isinstance(a, Kill) and a.player == position)]
        if len(log) == len(hand.log):
            return
        try:
            play.hand = Hand.replay(hand.config, log, hand.profile)
        except RulesError as exc:
            play.reject(f"the hand cannot be revived: {exc.reason}; the floor corrects it",
                         exc.rule, "keep_hand")
            return
        play.advance()

    return revive


def short_deal(play: Play, what: str) -> bool:
    """A card for the board or the muck while hole cards are missing (LIVE-17)."""
    r = play.reads
    assert r is not None
    short = r.short()
    if not short:
        return False

    def kill_short() -> None:
        rr = play.reads
        if rr is None or not rr.short():
            return
        for seat in rr.short():
            rr.kills.setdefault(seat, "LIVE-17")
        _deal_done(play)

    names = ", ".join(str(s) for s in short)
    play.prompt("too_few", f"{what} before every hand was dealt: seat(s) {names} lack "
                 "cards", "LIVE-17", short[0],
                 [(KILL, kill_short), play.misdeal_choice()])
    return True


# ---------------------------------------------------------------- board
def _at_board(play: Play, card: Card) -> None:

    hand, r = play.hand, play.reads
    assert hand is not None and r is not None
    if card in r.board or card in r.pending:
        return
    if card in r.owner:
        play.prompt("exposed", f"seat {r.owner[card]}'s card was read on the "
                     "board: shown to everyone", "CARD-5", r.owner[card],
                     [(CONTINUE, _nothing)], cards=(card,))
        return
    if play.stage is Stage.DEALING:
        if not short_deal(play, "the card on the board"):
            play.prompt("exposed", "the card on the board during the deal", "CARD-5", None,
                         [(CONTINUE, _nothing), play.misdeal_choice()], cards=(card,))
        return
    if hand.phase is not Phase.DEAL_BOARD:
        play.prompt("premature", "the card on the board before the betting round "
                     "ended", "DEAL-1", None, [(CONTINUE, _nothing)], cards=(card,))
        return
    street = hand.street
    if street not in r.burned:
        r.burned.add(street)  # asked once per street
        play.prompt("no_burn", f"no burn card was read before the {STREET_NAMES[street]}",
                     "CARD-8", None, [(CONTINUE, _nothing)])
    r.pending.append(card)
    if len(r.pending) == BOARD_COUNTS[street]:
        cards = tuple(r.pending)
        r.pending.clear()
        hand.deal_board(cards)
        r.board.extend(cards)
        play.emit(BoardDealt(hand_no=play.hand_no, street=STREET_NAMES[street],
                             cards=tuple(str(c) for c in cards)))
        play.advance()


# ---------------------------------------------------------------- muck
def _at_muck(play: Play, card: Card) -> None:

    hand, r = play.hand, play.reads
    assert hand is not None and r is not None
    seat = r.owner.get(card)
    if seat is None:
        if card in r.burns or card in r.board or card in r.pending:
            return
        if play.stage is Stage.DEALING:
            short_deal(play, "a burn card")
            return
        if hand.phase is Phase.DEAL_BOARD and hand.street not in r.burned:
            r.burned.add(hand.street)
            r.burns.append(card)
            play.emit(BurnedCard(hand_no=play.hand_no, card=str(card)))  # CARD-8
            return
        play.prompt("wrong_place", "the card went to the muck; no burn is due now",
                     "CARD-8", None, [(CONTINUE, _nothing)], cards=(card,))
        return
    position = play.position_of(seat)
    if position is None or hand.folded[position] or hand.mucked[position]:
        return  # the rest of a folded hand
    if play.stage is Stage.DEALING:
        play.prompt("wrong_place", f"seat {seat}'s card went to the muck during the deal",
                     "LIVE-16", seat, [(KILL, _kill(play, seat, "LIVE-16")),
                                       play.misdeal_choice()])
        return
    if hand.phase is Phase.SHOWDOWN:  # SHOW-10: mucked in its turn to show

        if hand.can_muck(position):
            showdown.muck(play, seat, "muck")
        else:  # out of the showdown order (or bound to show): the hand is dead (LIVE-16)
            betting.kill(play, position, "LIVE-16", "muck")
        return
    # LIVE-16: a hand that touches the muck is folded; out of turn, the fold binds
    # (LIVE-12); a player who cannot act any more (all-in) has a dead hand.
    betting.fold_from_muck(play, position)
