"""The broadcast view of one hand: what a stream shows (issue 21), built from the hand's
public events and the hole cards released to the ``broadcast`` role.

The betting state (stacks, bets, pots, folds, the street) is the rules engine's, as the
table's public state is: the hand's log is folded with :func:`controller.sync.ledger.fold`
(DESIGN.md: no second copy of the betting rules). On top of it come the hole cards, each
player's exact equity (:func:`host_bridge.broadcast.equity.equities`) now and as each
street began, the outs on the turn, and at the end who won what.

This module is pure: which events are due and which cards are released is decided by
:mod:`host_bridge.broadcast.feed`. The JSON it gives is for the ``broadcast`` role only.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Literal

from pydantic import BaseModel, ConfigDict

from controller.events import (
    ActionAccepted,
    ActionCorrected,
    ActionsUndone,
    BoardDealt,
    HandEnded,
    HandShown,
    HandStarted,
    HandVoided,
    HoleDealt,
    MisdealDeclared,
    PotAwarded,
    PublicEvent,
    PublicState,
    SeatView,
)
from controller.events.state import PublicHand, PublicPlayer, StreetName
from controller.rules.errors import CardError
from controller.sync.errors import JournalError
from controller.sync.ledger import fold
from host_bridge.broadcast.equity import Share, equities

log = logging.getLogger(__name__)

Cards = tuple[str | None, ...]
Result = Literal["in_progress", "ended", "voided", "misdeal"]
_LOG_STEPS = (HoleDealt, BoardDealt, ActionAccepted, ActionsUndone, ActionCorrected)


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class EquityPublic(_Frozen):
    """A player's share of the pot over every runout: ``win`` outright, ``tie`` in split
    pots (``win + tie`` is the equity); ``outs`` on the turn for one behind."""

    win: float
    tie: float
    outs: list[str] = []
    exact: bool = True


class StreetEquity(_Frozen):
    """Everyone's equity as a street began (the board then, the players still in)."""

    street: StreetName
    board: list[str]
    equity: list[float | None]  # by position; None: folded by then


class BroadcastPlayer(_Frozen):
    """One player dealt in, in position order."""

    position: int
    seat: int
    player: str
    stack: int  # chips behind (after the hand: the final stack)
    bet: int  # in front, this round
    folded: bool
    all_in: bool
    mucked: bool
    cards: list[str | None] | None  # None: not released to the broadcast yet
    equity: EquityPublic | None  # None: not every live hand is known yet
    won: int = 0  # chips won at the end (pot_awarded)
    shown: str | None = None  # the hand tabled at the showdown, in words


class BroadcastHand(_Frozen):
    """The hand as the broadcast shows it, ``delay_s`` behind the table."""

    hand_no: int
    result: Result
    stage: str
    street: str
    board: list[str]
    pot_total: int
    pots: list[int]
    to_act: int | None  # a seat
    button: int | None
    small_blind: int
    big_blind: int
    ante: int
    players: list[BroadcastPlayer]
    streets: list[StreetEquity]


class BroadcastView(_Frozen):
    """A table's broadcast view: the latest hand as it stood ``delay_s`` seconds ago.

    ``as_of`` is that moment (the bridge's clock, seconds since the epoch); ``hand`` is
    None before the table's first hand reaches it. ``withheld``: hole cards of that hand
    dealt but not released yet."""

    table_id: str
    delay_s: float
    as_of: float
    hand: BroadcastHand | None
    withheld: int = 0


@dataclass
class _Fold:
    """What folding one hand's events gives."""

    start: HandStarted
    state: PublicState
    hand: PublicHand | None
    hole_seq: dict[int, int] = field(default_factory=dict)  # position -> hole_dealt seq
    shown_cards: dict[int, Cards] = field(default_factory=dict)  # tabled at the showdown
    shown: dict[int, str] = field(default_factory=dict)
    won: dict[int, int] = field(default_factory=dict)
    marks: dict[StreetName, tuple[tuple[str, ...], tuple[bool, ...]]] = field(default_factory=dict)
    end: HandEnded | HandVoided | MisdealDeclared | None = None


def _fold_hand(events: Sequence[tuple[int, PublicEvent]]) -> _Fold:
    """The hand from its ``hand_started`` (first) through the events given, in seq order."""
    start = events[0][1]
    assert isinstance(start, HandStarted)
    seats = tuple(SeatView(seat=s, player=f"seat{s}", stack=chips)
                  for s, chips in zip(start.seats, start.stacks, strict=True))
    state = fold(PublicState(seats=seats), start)
    done = _Fold(start, state, state.hand)
    for seq, event in events[1:]:
        match event:
            case HandEnded() | HandVoided() | MisdealDeclared():
                done.end = event
                break
            case PotAwarded(shares=shares):
                for position, chips in shares:
                    done.won[position] = done.won.get(position, 0) + chips
            case HandShown(player=position, description=words, cards=cards):
                done.shown[position] = words
                done.shown_cards[position] = tuple(cards)
            case ActionAccepted(action="show", player=position, cards=cards) if cards:
                done.shown_cards[position] = tuple(cards)
        if isinstance(event, HoleDealt):
            done.hole_seq[event.player] = seq
        if isinstance(event, _LOG_STEPS):
            try:
                done.state = fold(done.state, event)
            except JournalError as exc:  # the table's own journal folded it: a bug
                log.warning("broadcast: hand %d does not fold at seq %d: %s",
                            start.hand_no, seq, exc)
                break
            done.hand = done.state.hand
            _mark_street(done)
    return done


def _mark_street(done: _Fold) -> None:
    """Remember the board and who was still in as each street's betting began."""
    hand = done.hand
    if hand is None or hand.stage == "deal_hole" or hand.street in done.marks:
        return
    done.marks[hand.street] = (hand.board, tuple(not (p.folded or p.mucked)
                                                 for p in hand.players))


@lru_cache(maxsize=256)
def _shares(holes: tuple[tuple[str, str] | None, ...], board: tuple[str, ...],
            dead: tuple[str, ...]) -> tuple[Share | None, ...]:
    """Equities, cached: a view is rebuilt on every change, the cards rarely change."""
    return tuple(equities(holes, board, dead))


def _equities(cards: Sequence[Cards | None], live: Sequence[bool],
              board: Sequence[str]) -> tuple[Share | None, ...] | None:
    """Every live player's share, or None while any live hand is unknown."""
    holes: list[tuple[str, str] | None] = []
    dead: list[str] = []
    for hole, in_hand in zip(cards, live, strict=True):
        known = hole is not None and len(hole) == 2 and None not in hole
        if in_hand and not known:
            return None
        pair = (str(hole[0]), str(hole[1])) if known and hole is not None else None
        holes.append(pair if in_hand else None)
        if not in_hand and pair is not None:
            dead.extend(pair)
    if not any(holes):
        return None
    try:
        return _shares(tuple(holes), tuple(board), tuple(dead))
    except CardError as exc:  # two readers saw one card: show no numbers, say why
        log.warning("broadcast: no equities: %s", exc)
        return None


def hand_view(events: Sequence[tuple[int, PublicEvent]], released: Mapping[int, Cards],
              names: Mapping[int, str]) -> BroadcastHand:
    """One hand's broadcast view from its events (``hand_started`` first, seq order) and
    the hole cards released so far, by the seq of their ``hole_dealt``."""
    done = _fold_hand(events)
    hand, start = done.hand, done.start
    positions = range(len(start.seats))
    cards: list[Cards | None] = []
    for position in positions:
        seq = done.hole_seq.get(position)
        cards.append(released.get(seq) if seq is not None else None)
        if position in done.shown_cards and cards[position] is None:
            cards[position] = done.shown_cards[position]  # tabled: public anyway
    players = hand.players if hand is not None else ()
    live = [not (p.folded or p.mucked) for p in players] or [True for _ in positions]
    board = list(hand.board) if hand is not None else []
    now = _equities(cards, live, board) if len(live) == len(cards) else None
    final = done.end.stacks if done.end is not None else None
    return BroadcastHand(
        hand_no=start.hand_no, result=_result(done.end),
        stage=hand.stage if hand else "complete", street=hand.street if hand else "preflop",
        board=board, pot_total=0 if final else hand.pot_total if hand else 0,
        pots=[] if final else [p.amount for p in hand.pots] if hand else [],
        to_act=None if final else hand.to_act if hand else None,
        button=start.button, small_blind=start.small_blind, big_blind=start.big_blind,
        ante=start.ante,
        players=[_player(position, seat, players, cards, now, final, done, names)
                 for position, seat in enumerate(start.seats)],
        streets=_streets(done, cards))


def _result(end: HandEnded | HandVoided | MisdealDeclared | None) -> Result:
    match end:
        case HandEnded():
            return "ended"
        case HandVoided():
            return "voided"
        case MisdealDeclared():
            return "misdeal"
    return "in_progress"


def _player(position: int, seat: int, players: Sequence[PublicPlayer],
            cards: list[Cards | None],
            shares: tuple[Share | None, ...] | None, final: tuple[int, ...] | None,
            done: _Fold, names: Mapping[int, str]) -> BroadcastPlayer:
    public = players[position] if position < len(players) else PublicPlayer(
        seat=seat, stack=done.start.stacks[position])  # the engine refused the setup
    share = shares[position] if shares else None
    hole = cards[position]
    return BroadcastPlayer(
        position=position, seat=seat, player=names.get(seat, f"Seat {seat}"),
        stack=final[position] if final else public.stack, bet=0 if final else public.bet,
        folded=public.folded, all_in=public.all_in, mucked=public.mucked,
        cards=list(hole) if hole is not None else None,
        equity=EquityPublic(win=share.win, tie=share.tie, outs=list(share.outs),
                            exact=share.exact) if share else None,
        won=done.won.get(position, 0), shown=done.shown.get(position))


def _streets(done: _Fold, cards: list[Cards | None]) -> list[StreetEquity]:
    """Everyone's equity as each street began, where every live hand is known."""
    out = []
    for street, (board, live) in done.marks.items():
        shares = _equities(cards, live, board) if len(live) == len(cards) else None
        if shares is not None:
            out.append(StreetEquity(street=street, board=list(board),
                                    equity=[s.equity if s else None for s in shares]))
    return out
