"""Exact hold'em equities for the broadcast feed: how often each live hand wins or splits
over every possible runout of the board (issue 21; DESIGN.md budget < 50 ms).

``equities(holes, board, dead)`` counts every runout exactly, on every street and for any
number of players, preflop with ten players included. Pure enumeration cannot: preflop
heads-up alone is C(48,5) = 1,712,304 boards. So the runouts are counted by *rank
classes* instead of one by one:

1. Without a flush, a hand's strength depends only on the ranks of its seven cards. The
   cards still to come are grouped by their rank multiset (6,175 classes for five cards);
   each class stands for ``prod C(available of rank r, count of r)`` concrete runouts.
   Every player's strength per class is one lookup in a 7-card rank table (unique rank
   weights make every 7-card rank multiset a distinct sum below 8M).
2. A flush needs three or more board cards of one suit, so at most one suit can make
   flushes on any board. For each suit a flush is possible in (someone holds enough of
   it), the runouts with exactly ``m`` cards of that suit to come are enumerated as the
   concrete suited cards times the rank classes of the other cards, scored with the
   flush table, and the rank-only score of those same runouts is taken back out.

Both tables are built once, lazily, from :func:`controller.rules.evaluator.evaluate`
(the reference ranking), as ordinals of its strengths. The counts are exact integers;
win and tie are fractions of all runouts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations, combinations_with_replacement
from math import comb
from typing import Final

import numpy as np
import numpy.typing as npt

from controller.rules.cards import DECK, Card, check_distinct
from controller.rules.errors import CardError
from controller.rules.evaluator import evaluate

__all__ = ["Share", "equities"]

#: Rank weights (deuce .. ace) whose sums are unique over every 7-card rank multiset
#: (at most four of a rank) and stay below 8M: the index of the 7-card rank table.
RANK_WEIGHTS: Final = (0, 1, 5, 22, 98, 453, 2031, 8698, 22854, 83661, 262349, 636345,
                       1479181)
BOARD_SIZES: Final = (0, 3, 4, 5)

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
StrengthArray = npt.NDArray[np.uint16]


@dataclass(frozen=True, slots=True)
class Share:
    """One live player's share of the pot over every runout.

    ``win``: fraction of runouts won outright. ``tie``: fraction of the pot won in split
    pots (each runout where k players tie for best adds 1/k), so ``win + tie`` is the
    player's equity. ``outs``: on the turn only, the river cards that make this player
    the sole or joint best when they are not now (empty on other streets and for a
    player already ahead or tied). ``exact``: every runout was counted (no sampling).
    """

    win: float
    tie: float
    outs: tuple[str, ...] = ()
    exact: bool = True

    @property
    def equity(self) -> float:
        """The player's expected share of the pot: ``win + tie``."""
        return self.win + self.tie


@dataclass(frozen=True, slots=True)
class _Classes:
    """The rank multisets of ``size`` cards (at most four of a rank)."""

    counts: IntArray  # (n, 13): how many of each rank
    keys: IntArray  # (n,): the sum of their rank weights


@dataclass(frozen=True, slots=True)
class _Tables:
    """What every count looks up: built once, from the reference evaluator."""

    rank7: StrengthArray  # 7-card rank weight sum -> strength ordinal (no flush)
    flush: StrengthArray  # 13-bit suited rank mask -> flush ordinal, 0 below five cards
    classes: tuple[_Classes, ...]  # by the number of cards to come, 0..5
    combos: dict[tuple[int, int], IntArray]  # (n, m) -> every m-subset of range(n)


_WEIGHT: Final = np.array(RANK_WEIGHTS, dtype=np.int64)
#: C(available, taken) for 0..4 cards of a rank available and 0..4 taken.
_COMB: Final = np.array([[comb(a, t) for t in range(5)] for a in range(5)], dtype=np.int64)


def _multisets(size: int) -> list[tuple[int, ...]]:
    """Every rank multiset of ``size`` cards with at most four of a rank, ranks ascending."""
    return [ranks for ranks in combinations_with_replacement(range(13), size)
            if all(ranks[i] != ranks[i + 4] for i in range(size - 4))]


def _rank_only_cards(ranks: tuple[int, ...]) -> list[Card]:
    """Cards of these ranks with no flush: suits in turn, so equal ranks differ and no
    suit gets more than two of seven cards."""
    return [DECK[rank * 4 + i % 4] for i, rank in enumerate(ranks)]


def _build_tables() -> _Tables:
    """Rank and flush tables from ``evaluate`` (the reference), as dense ordinals."""
    sevens = _multisets(7)
    rank_strengths = [evaluate(_rank_only_cards(ranks)) for ranks in sevens]
    keys = np.array([sum(RANK_WEIGHTS[r] for r in ranks) for ranks in sevens], np.int64)
    if len(np.unique(keys)) != len(sevens):
        raise RuntimeError("RANK_WEIGHTS give two 7-card rank multisets one sum; the rank "
                           "table would be wrong: choose weights with unique sums")
    masks = [m for m in range(1 << 13) if 5 <= m.bit_count() <= 7]  # a flush in 7 cards
    flush_strengths = [evaluate([DECK[r * 4] for r in range(13) if m >> r & 1])
                       for m in masks]
    ordered = np.unique(np.array(rank_strengths + flush_strengths, dtype=np.int64))
    rank7 = np.zeros(int(keys.max()) + 1, dtype=np.uint16)
    rank7[keys] = np.searchsorted(ordered, rank_strengths) + 1  # 0 never a real hand
    flush = np.zeros(1 << 13, dtype=np.uint16)
    flush[masks] = np.searchsorted(ordered, flush_strengths) + 1
    classes = []
    for size in range(6):
        sets = _multisets(size)
        counts = np.zeros((len(sets), 13), dtype=np.int64)
        for row, ranks in enumerate(sets):
            for rank in ranks:
                counts[row, rank] += 1
        classes.append(_Classes(counts, counts @ _WEIGHT))
    combos = {}
    for n in range(14):
        for m in range(min(n, 5) + 1):
            subsets = list(combinations(range(n), m))
            combos[(n, m)] = np.array(subsets, dtype=np.int64).reshape(len(subsets), m)
    return _Tables(rank7, flush, tuple(classes), combos)


@cache
def _tables() -> _Tables:
    """The tables, built on first use (about a fifth of a second) and kept."""
    return _build_tables()


def warm_up() -> None:
    """Build the tables now (a server calls this at start so no viewer waits for it)."""
    _tables()


def _parse(text: str, what: str) -> Card:
    try:
        return Card.parse(text)
    except CardError as exc:
        raise CardError(f"{what}: {exc.reason}") from None


def _score(strength: StrengthArray, weight: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Runouts won outright and split-pot shares per player, each column ``weight``
    runouts; ``strength`` is (players, columns)."""
    best = strength.max(axis=0)
    top = strength == best
    sharing = top.sum(axis=0)
    sole = np.where(sharing == 1, weight, 0.0)
    split = np.where(sharing > 1, weight / sharing, 0.0)
    on_top = top.astype(np.float64)
    return on_top @ sole, on_top @ split


def _available_weights(counts: IntArray, available: IntArray) -> IntArray:
    """Concrete runouts per rank class: the product over ranks of C(available, count)."""
    weights: IntArray = _COMB[available[np.newaxis, :], counts].prod(axis=1)
    return weights


@dataclass(frozen=True, slots=True)
class _Deal:
    """The cards of one question, as ints: live holes, board, and what is left."""

    holes: list[tuple[Card, Card]]
    board: list[Card]
    left: list[Card]  # the cards that can still come


def _counts(deal: _Deal) -> tuple[FloatArray, FloatArray, int]:
    """Wins and split shares per live player over every runout, and the runout count."""
    tables = _tables()
    to_come = 5 - len(deal.board)
    available = np.zeros(13, dtype=np.int64)
    for card in deal.left:
        available[card >> 2] += 1
    board_key = sum(RANK_WEIGHTS[c >> 2] for c in deal.board)
    base = np.array([RANK_WEIGHTS[a >> 2] + RANK_WEIGHTS[b >> 2] + board_key
                     for a, b in deal.holes], dtype=np.int64)
    classes = tables.classes[to_come]
    runouts = _available_weights(classes.counts, available)
    possible = runouts > 0  # classes of ranks used up cannot come (nor be looked up)
    keys, weight = classes.keys[possible], runouts[possible].astype(np.float64)
    rank = tables.rank7[base[:, np.newaxis] + keys[np.newaxis, :]]
    wins, ties = _score(rank, weight)
    for suit in range(4):
        fix = _flush_correction(deal, suit, available, base, to_come, tables)
        if fix is not None:
            wins += fix[0]
            ties += fix[1]
    return wins, ties, comb(len(deal.left), to_come)


def _suit_mask(cards: Sequence[Card], suit: int) -> int:
    mask = 0
    for card in cards:
        if card & 3 == suit:
            mask |= 1 << (card >> 2)
    return mask


def _flush_correction(deal: _Deal, suit: int, available: IntArray, base: IntArray,
                      to_come: int, tables: _Tables) -> tuple[FloatArray, FloatArray] | None:
    """What counting ``suit``'s flushes changes, over the runouts where it can make one
    (None if it cannot for anyone)."""
    on_board = _suit_mask(deal.board, suit)
    held = np.array([_suit_mask(hole, suit) for hole in deal.holes], dtype=np.int64)
    most_held = max(int(m).bit_count() for m in held)
    suited = np.array(sorted(c >> 2 for c in deal.left if c & 3 == suit), dtype=np.int64)
    others = available.copy()
    others[suited] -= 1
    wins = np.zeros(len(deal.holes))
    ties = np.zeros(len(deal.holes))
    touched = False
    for m in range(to_come + 1):
        if on_board.bit_count() + m + most_held < 5 or m > len(suited):
            continue  # nobody makes a flush of this suit with m more of it
        picks = suited[tables.combos[(len(suited), m)]]  # (S, m) suited ranks to come
        picks_key = _WEIGHT[picks].sum(axis=1)
        picks_mask = (np.int64(1) << picks).sum(axis=1)
        rest = tables.classes[to_come - m]
        rest_runouts = _available_weights(rest.counts, others)
        keep = rest_runouts > 0
        rest_key, rest_weight = rest.keys[keep], rest_runouts[keep].astype(np.float64)
        if not len(rest_key):
            continue
        rank = tables.rank7[base[:, None, None] + picks_key[None, :, None]
                            + rest_key[None, None, :]]
        flush = tables.flush[on_board | held[:, None] | picks_mask[None, :]]
        true = np.maximum(rank, flush[:, :, None])
        players = len(deal.holes)
        weight = np.broadcast_to(rest_weight, (len(picks), len(rest_key))).ravel()
        won, split = _score(true.reshape(players, -1), weight)
        was_won, was_split = _score(rank.reshape(players, -1), weight)
        wins += won - was_won
        ties += split - was_split
        touched = True
    return (wins, ties) if touched else None


def _turn_outs(deal: _Deal) -> list[tuple[str, ...]]:
    """Per live player on the turn: the river cards that put them on top (sole or joint)
    when they are not on top now; () for one who is."""
    def on_top(strengths: list[int]) -> list[bool]:
        best = max(strengths)
        return [s == best for s in strengths]

    now = on_top([evaluate([*hole, *deal.board]) for hole in deal.holes])
    outs: list[list[str]] = [[] for _ in deal.holes]
    for river in deal.left:
        after = on_top([evaluate([*hole, *deal.board, river]) for hole in deal.holes])
        for player, (ahead, made) in enumerate(zip(now, after, strict=True)):
            if made and not ahead:
                outs[player].append(str(river))
    return [tuple(o) for o in outs]


def _deal(holes: Sequence[tuple[str, str] | None], board: Sequence[str],
          dead: Sequence[str]) -> _Deal:
    """Parse and check the question: distinct cards, a real street, enough cards left."""
    if len(board) not in BOARD_SIZES:
        raise CardError(f"a board has 0, 3, 4 or 5 cards (preflop, flop, turn, river); "
                        f"got {len(board)}")
    live: list[tuple[Card, Card]] = []
    for seat, hole in enumerate(holes):
        if hole is not None:
            if len(hole) != 2:
                raise CardError(f"player {seat}: a hold'em hand has two hole cards, got "
                                f"{len(hole)}")
            live.append((_parse(hole[0], f"player {seat}"), _parse(hole[1], f"player {seat}")))
    cards = [_parse(c, "board") for c in board]
    gone = [_parse(c, "dead cards") for c in dead]
    known = [c for hole in live for c in hole] + cards + gone
    check_distinct(known)
    taken = set(known)
    left = [c for c in DECK if c not in taken]
    if len(left) < 5 - len(cards):
        raise CardError(f"{len(known)} known cards leave {len(left)} in the deck, too few "
                        f"to finish a board of {len(cards)}")
    return _Deal(live, cards, left)


def equities(holes: Sequence[tuple[str, str] | None], board: Sequence[str],
             dead: Sequence[str] = ()) -> list[Share | None]:
    """Each player's exact :class:`Share` over every runout of ``board``.

    ``holes``: per player, two cards ("Ah", "Td") or None for a folded or unknown player
    (None comes back; put their cards in ``dead`` if they are known). ``board``: 0, 3, 4
    or 5 cards. Raises :class:`CardError` (a ``ValueError``) naming the card or count that
    is wrong: a duplicate, a bad card, a board of another size.
    """
    deal = _deal(holes, board, dead)
    if not deal.holes:
        return [None] * len(holes)
    wins, ties, runouts = _counts(deal)
    outs = _turn_outs(deal) if len(deal.board) == 4 else [() for _ in deal.holes]
    shares = iter(Share(win=float(w) / runouts, tie=float(t) / runouts, outs=o)
                  for w, t, o in zip(wins, ties, outs, strict=True))
    return [None if hole is None else next(shares) for hole in holes]
