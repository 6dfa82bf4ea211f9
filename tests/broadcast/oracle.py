"""Equities by brute force with PokerKit's ``StandardHighHand`` ranking: every runout
dealt, every hand ranked by PokerKit's own lookup (the best of its 21 five-card parts),
nothing shared with the code under test but the card names. Five-card entries are
cached, so a few thousand runouts take a fraction of a second."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import Any

import pokerkit

RANKS = "23456789TJQKA"
SUITS = "cdhs"
DECK = [r + s for r in RANKS for s in SUITS]
_LOOKUP = pokerkit.StandardHighHand.lookup
_CARD = {name: next(iter(pokerkit.Card.parse(name))) for name in DECK}
_FIVE: dict[frozenset[str], int] = {}


def _five(cards: tuple[str, ...]) -> int:
    key = frozenset(cards)
    value = _FIVE.get(key)
    if value is None:
        value = _FIVE[key] = _LOOKUP.get_entry([_CARD[c] for c in cards]).index
    return value


def strength(cards: Sequence[str]) -> int:
    """PokerKit's index of the best five of these cards (higher is better)."""
    return max(_five(five) for five in combinations(cards, 5))


def on_top(holes: Sequence[Sequence[str]], board: Sequence[str]) -> list[bool]:
    """Who holds the best hand (sole or joint) on this complete board."""
    values = [strength([*hole, *board]) for hole in holes]
    best = max(values)
    return [v == best for v in values]


def brute_force(holes: Sequence[tuple[str, str] | None], board: Sequence[str],
                dead: Sequence[str] = ()) -> list[Any]:
    """Per player: (wins, split shares, runouts) counted over every runout, or None."""
    live = [h for h in holes if h is not None]
    known = {*board, *dead, *(c for h in live for c in h)}
    left = [c for c in DECK if c not in known]
    wins = [0] * len(live)
    ties = [0.0] * len(live)
    runouts = 0
    for more in combinations(left, 5 - len(board)):
        runouts += 1
        top = on_top(live, [*board, *more])
        sharing = sum(top)
        for i, ahead in enumerate(top):
            if ahead and sharing == 1:
                wins[i] += 1
            elif ahead:
                ties[i] += 1 / sharing
    counts = iter(zip(wins, ties, strict=True))
    return [None if h is None else (*next(counts), runouts) for h in holes]


def turn_outs(holes: Sequence[tuple[str, str]], board: Sequence[str],
              dead: Sequence[str] = ()) -> list[tuple[str, ...]]:
    """Per player on the turn: the river cards that put them on top when they are not."""
    def best_of_six(hole: Sequence[str]) -> int:
        return strength([*hole, *board])

    now = [best_of_six(h) for h in holes]
    ahead = [v == max(now) for v in now]
    known = {*board, *dead, *(c for h in holes for c in h)}
    outs: list[list[str]] = [[] for _ in holes]
    for river in (c for c in DECK if c not in known):
        for i, made in enumerate(on_top(holes, [*board, river])):
            if made and not ahead[i]:
                outs[i].append(river)
    return [tuple(o) for o in outs]
