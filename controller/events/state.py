"""The table's public state: what anyone may see (the retained ``state`` topic, the
journal's checkpoint, the dealer's tablet); no field can hold a hole card.

:class:`PublicHand` is the hand in play as the rules engine sees it (DESIGN.md: the public
state is computed by the engine): the ledger (:mod:`controller.sync.ledger`) replays the
hand's public log through :class:`controller.rules.hand.Hand` and copies
:func:`controller.rules.view.view_of` field by field, positions turned into seats. Nothing
here works out a betting rule; a page that shows it needs none either.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from .base import CardText, Chips, Count, Frozen, Id, LevelNo, SeatNo
from .clock import ClockSnapshot
from .game import GameSetup
from .hand import HandStep
from .house import HOUSE_TEXT_MAX, HouseView

Stage = Literal["deal_hole", "betting", "deal_board", "showdown", "complete"]
StreetName = Literal["preflop", "flop", "turn", "river"]
LegalMove = Literal["fold", "check", "call", "bet_raise"]


class SeatView(Frozen):
    """One occupied seat in the public snapshot."""

    seat: SeatNo
    player: Id
    stack: Chips
    sitting_out: bool = False
    penalty_hands: Count = 0  # PEN-4/5: hands still to sit out (dealt in, killed)


class HandLayout(Frozen):
    """Where the button and blinds were in the last hand started (BTN-1..7)."""

    button: SeatNo
    small_blind: SeatNo | None
    big_blind: SeatNo
    seats: tuple[SeatNo, ...]  # dealt, in position order


class Stakes(Frozen):
    """The blinds and antes in force: those the last hand started was dealt with (its
    ``hand_started``), at blind level ``level`` (LEVEL-1: a new level counts from the next
    hand). ``straddle``: the straddle posted (STRADDLE-1..4), 0 if none."""

    level: LevelNo | None = None
    variant: Literal["NT", "PO", "FT"] = "NT"
    small_blind: Chips
    big_blind: Chips
    ante: Chips = 0  # each player's (ANTE-4)
    big_blind_ante: Chips = 0  # paid by the big blind for the table (ANTE-2)
    straddle: Chips = 0


class PublicPot(Frozen):
    """One pot (POT-1): the main pot first, then the side pots; ``seats`` can win it."""

    amount: Chips
    seats: tuple[SeatNo, ...]


class PublicPlayer(Frozen):
    """One player dealt in, as the engine has them: chips behind, the bet in front this
    round (blinds and straddle included), folded (or killed), all-in, mucked."""

    seat: SeatNo
    stack: Chips
    bet: Chips = 0
    folded: bool = False
    all_in: bool = False
    mucked: bool = False


class PublicHand(Frozen):
    """The hand in play, the engine's answer for each field (:func:`view_of`).

    ``to_act`` is the seat whose turn it is (None between streets, in an all-in runout, at
    the showdown, once the hand is over); the shot clock runs on it. ``to_call`` is what
    that seat must add to call (capped by its stack; 0 for a check, e.g. the big blind's
    option, BLIND-2); ``min_raise_to``/``max_raise_to`` the smallest and largest bet or
    raise total it may make (None: it may not bet or raise); ``legal`` the moves it has.
    ``next_to_show``: the seat the showdown waits for (SHOW-2). The public log hides the
    hole cards, so where the rules turn every hand up at once (SHOW-3
    ``table_all_at_once``) the table's engine, which read them, is done before this view
    says so: the ``hand_shown`` and ``hand_ended`` that follow close the hand."""

    stage: Stage
    street: StreetName
    board: tuple[CardText, ...] = ()
    pots: tuple[PublicPot, ...] = ()  # the bets of the round in play are in ``bet``
    pot_total: Chips = 0  # the pots plus every bet in front (the PL-3 pot)
    players: tuple[PublicPlayer, ...] = ()  # in position order (``hand_seats``)
    current_bet: Chips = 0  # the bet a call matches this round
    to_act: SeatNo | None = None
    to_call: Chips = 0
    min_raise_to: Chips | None = None
    max_raise_to: Chips | None = None
    legal: tuple[LegalMove, ...] = ()
    next_to_show: SeatNo | None = None


class PublicState(Frozen):
    """What anyone may see about the table: no field can hold a hole card."""

    seats: tuple[SeatView, ...] = ()
    level: LevelNo = 1
    paused: bool = False
    hand_for_hand: bool = False
    colour_up_at_level: LevelNo | None = None
    clock_on_seat: SeatNo | None = None
    closed: bool = False
    hand_no: Count = 0  # the last hand started
    hand_in_progress: bool = False
    start_stacks: tuple[Chips, ...] = ()  # of the hand in progress, by position
    hand_seats: tuple[SeatNo, ...] = ()
    hand_log: tuple[HandStep, ...] = ()  # the hand in progress: its engine log, in public
    layout: HandLayout | None = None  # of the last hand started
    redeal: bool = False  # that hand was void (misdeal, CRASH-1): the same layout again
    clock: ClockSnapshot | None = None  # the clocks as last journaled (issue 5: restart)
    game: GameSetup | None = None  # the hand in progress's game setup (its replay's config)
    stakes: Stakes | None = None  # the blinds and antes in force (of the last hand started)
    hand: PublicHand | None = None  # the hand in progress as the engine sees it
    # seats whose node was reported offline (irregularity "seat_node_offline") and is not
    # back yet (seat_node_back): the floor shows them on the table's card
    seat_nodes_offline: tuple[SeatNo, ...] = ()
    button_placed: SeatNo | None = None  # before the first hand: where it starts
    house: HouseView | None = None  # the house in force (house_set); None: the defaults
    # the house file's text as journaled (house_set): a restart plays the very same file;
    # not secret (the floor may show it), "" without a house
    house_text: Annotated[str, Field(max_length=HOUSE_TEXT_MAX)] = ""
