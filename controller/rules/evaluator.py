"""Poker hand strength: the best five cards of a hand (RANK-1..RANK-5, CARD-2, CARD-3).

``evaluate(cards)`` gives one int per hand, the *strength*: a higher strength is a better
hand and equal strengths tie (RANK-5: suits never decide). The int spells out the hand
exactly as RANK-4 compares it::

    strength = category << 20 | r1 << 16 | r2 << 12 | r3 << 8 | r4 << 4 | r5

``category`` is a :class:`HandCategory` (RANK-2) and ``r1..r5`` are the ranks that decide
within it, most significant first (0 = deuce .. 12 = ace; unused slots are 0):

=================  ============================================================
straight flush     high card (the wheel A-2-3-4-5 is 5-high, RANK-1)
four of a kind     rank of the four, kicker
full house         rank of the three, rank of the pair
flush              the five ranks from the highest down
straight           high card (wheel 5-high)
three of a kind    rank of the three, higher kicker, lower kicker
two pair           higher pair, lower pair, kicker
pair               pair, three kickers from the highest down
high card          the five ranks from the highest down
=================  ============================================================

How it is fast (DESIGN.md budget: at least 5x treys in pure Python). Each card has a code::

    5 ** rank  +  1 << (32 + 4 * suit)

The low 32 bits of the sum of a hand's codes count the cards of each rank in base 5
(at most 4 of a rank, so the sum is unique per rank multiset); above them, four 4-bit
lanes count the cards of each suit. The sum starts from 3 in every suit lane, so a lane
reaches 8 (its top bit) exactly when that suit has five or more cards. Without a flush,
the strength depends on the ranks alone and is one dict lookup in a table made at import
over every rank multiset of 5, 6 and 7 cards. With five or more cards of one suit in
seven cards, neither four of a kind nor a full house is possible (the flush suit holds
distinct ranks and only two other cards remain), so the answer is the best straight
flush or flush in that suit, looked up by its 13-bit rank mask.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from enum import IntEnum
from itertools import combinations
from typing import Final

from controller.rules.cards import DECK, RANK_NAMES, RANK_PLURALS, Card, check_distinct
from controller.rules.errors import CardError


class HandCategory(IntEnum):
    """The nine hand categories, worst to best (RANK-2)."""

    HIGH_CARD = 0
    PAIR = 1
    TWO_PAIR = 2
    THREE_OF_A_KIND = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    FOUR_OF_A_KIND = 7
    STRAIGHT_FLUSH = 8


_CATEGORY_SHIFT: Final = 20
_ACE: Final = 12
_FIVE: Final = 3  # rank index of the five: the wheel's high card (RANK-1)

_RANK_UNIT: Final = tuple(5**rank for rank in range(13))
_SUIT_SHIFT: Final = 32
_RANK_LANES: Final = (1 << _SUIT_SHIFT) - 1
#: Every suit lane starts at 3, so a lane's top bit (8) is set iff the suit has >= 5 cards.
_SUIT_START: Final = 0x3333 << _SUIT_SHIFT
_FLUSH_FLAGS: Final = 0x8888 << _SUIT_SHIFT
#: Per card (index = rank * 4 + suit): rank count in base 5, then the suit's 4-bit lane.
_CODE: Final[tuple[int, ...]] = tuple(
    _RANK_UNIT[card >> 2] + (1 << (_SUIT_SHIFT + 4 * (card & 3))) for card in range(52)
)

#: The ten straights as 13-bit rank masks, best first; the wheel last (RANK-1).
_STRAIGHTS: Final = (
    *((high, 0b11111 << (high - 4)) for high in range(_ACE, _FIVE, -1)),
    (_FIVE, (1 << _ACE) | 0b1111),
)


def _strength(category: HandCategory, *ranks: int) -> int:
    """Pack a category and its deciding ranks, most significant first (RANK-4)."""
    value = int(category)
    for slot in range(5):
        value = value << 4 | (ranks[slot] if slot < len(ranks) else 0)
    return value


def _five_distinct(ranks: tuple[int, ...], *, flush: bool) -> int:
    """Strength of five different ranks, given high to low: straight (flush) or not."""
    high = ranks[0]
    if ranks[0] - ranks[4] == 4:
        straight = high
    elif ranks == (_ACE, _FIVE, 2, 1, 0):
        straight = _FIVE  # the wheel is 5-high, the lowest straight (RANK-1)
    else:
        straight = -1
    if straight >= 0:  # RANK-3: a straight flush is not also a flush or a straight
        return _strength(
            HandCategory.STRAIGHT_FLUSH if flush else HandCategory.STRAIGHT, straight
        )
    return _strength(HandCategory.FLUSH if flush else HandCategory.HIGH_CARD, *ranks)


def _five_card_rank_table() -> dict[int, int]:
    """Strength of every 5-card rank multiset without a flush, keyed by its rank count."""
    unit = _RANK_UNIT
    table: dict[int, int] = {}
    high_first = range(12, -1, -1)
    for five in combinations(high_first, 5):
        table[sum(unit[r] for r in five)] = _five_distinct(five, flush=False)
    for pair in high_first:
        others = [r for r in high_first if r != pair]
        for kickers in combinations(others, 3):
            key = 2 * unit[pair] + sum(unit[r] for r in kickers)
            table[key] = _strength(HandCategory.PAIR, pair, *kickers)
        for kicker_pair in combinations(others, 2):
            key = 3 * unit[pair] + sum(unit[r] for r in kicker_pair)
            table[key] = _strength(HandCategory.THREE_OF_A_KIND, pair, *kicker_pair)
        for other in others:
            table[3 * unit[pair] + 2 * unit[other]] = _strength(
                HandCategory.FULL_HOUSE, pair, other
            )
            table[4 * unit[pair] + unit[other]] = _strength(
                HandCategory.FOUR_OF_A_KIND, pair, other
            )
    for high, low in combinations(high_first, 2):
        for kicker in high_first:
            if kicker not in (high, low):
                key = 2 * unit[high] + 2 * unit[low] + unit[kicker]
                table[key] = _strength(HandCategory.TWO_PAIR, high, low, kicker)
    return table


def _add_one_card(table: dict[int, int]) -> dict[int, int]:
    """From n-card rank multisets to n+1: each takes the best of its n-card parts.

    Every 5-card part of a bigger hand is reached by removing cards one at a time, so the
    result is the best five of the bigger hand (CARD-2). A rank already held four times
    cannot take a fifth card.
    """
    unit = _RANK_UNIT
    bigger: dict[int, int] = {}
    get = bigger.get
    for key, strength in table.items():
        rest = key
        for rank in range(13):
            if rest % 5 < 4:
                grown = key + unit[rank]
                if strength > get(grown, -1):
                    bigger[grown] = strength
            rest //= 5
    return bigger


def _flush_table() -> list[int]:
    """Best straight flush or flush (RANK-3) per 13-bit rank mask of >= 5 suited cards."""
    table = [0] * 8192
    for mask in range(8192):
        if mask.bit_count() < 5:
            continue
        for high, straight in _STRAIGHTS:
            if mask & straight == straight:
                table[mask] = _strength(HandCategory.STRAIGHT_FLUSH, high)
                break
        else:
            top = tuple(r for r in range(12, -1, -1) if mask >> r & 1)[:5]
            table[mask] = _five_distinct(top, flush=True)
    return table


def _rank_table() -> dict[int, int]:
    """Strength of every rank multiset of 5, 6 or 7 cards (73,775 keys)."""
    five = _five_card_rank_table()
    six = _add_one_card(five)
    return {**five, **six, **_add_one_card(six)}


#: Strength of every rank multiset of 5, 6 or 7 cards, for hands without a flush.
_RANK_STRENGTH: Final[dict[int, int]] = _rank_table()
#: Strength of a flush (or straight flush) by the 13-bit rank mask of the suited cards.
_FLUSH_STRENGTH: Final[list[int]] = _flush_table()
#: Strength of a 5-card flush by its rank count (for Omaha's five-card combinations).
_FIVE_CARD_FLUSH: Final[dict[int, int]] = {
    sum(_RANK_UNIT[r] for r in five): _five_distinct(five, flush=True)
    for five in combinations(range(12, -1, -1), 5)
}
_code_of: Final = _CODE.__getitem__


def _bad_count(cards: Sequence[int]) -> CardError:
    return CardError(
        f"a poker hand is the best five of 5, 6 or 7 cards; got {len(cards)}", "CARD-2"
    )


def _flush(cards: Sequence[int], key: int) -> int:
    """The best straight flush or flush of the suit that holds five or more cards."""
    if not 5 <= len(cards) <= 7:
        raise _bad_count(cards)
    suit = ((key & _FLUSH_FLAGS) >> (_SUIT_SHIFT + 3)).bit_length() >> 2
    mask = 0
    for card in cards:
        if card & 3 == suit:
            mask |= 1 << (card >> 2)
    return _FLUSH_STRENGTH[mask]


def evaluate(cards: Sequence[int]) -> int:
    """Strength of the best five of 5, 6 or 7 distinct cards; higher is better (RANK-1..5).

    Hold'em (CARD-2): pass the two hole cards and the board; the best five may use 0, 1
    or 2 hole cards. The cards must be distinct (CARD-1): this hot path does not look for
    duplicates; ``check_distinct`` guards the cards where they are dealt or read. A wrong
    number of cards raises :class:`CardError`.
    """
    key = sum(map(_code_of, cards), _SUIT_START)
    if key & _FLUSH_FLAGS:
        return _flush(cards, key)
    try:
        return _RANK_STRENGTH[key & _RANK_LANES]
    except KeyError:
        raise _bad_count(cards) from None


def _check_omaha(hole: Sequence[int], board: Sequence[int]) -> None:
    if len(hole) < 2 or not 3 <= len(board) <= 5:
        raise CardError(
            f"an Omaha hand takes exactly two hole cards and three board cards; got "
            f"{len(hole)} hole and {len(board)} board cards",
            "CARD-3",
        )


def evaluate_omaha(hole: Sequence[int], board: Sequence[int]) -> int:
    """Strength of the best Omaha hand: exactly two hole cards and three board (CARD-3).

    ``hole`` is the player's cards (four in Omaha), ``board`` the 3 to 5 community cards.
    No other combination counts: four suited board cards and one suited hole card are not
    a flush (EXAMPLE CARD-3/1), and a board pair is not a player's pair for a full house
    unless it is part of the three board cards used (EXAMPLE CARD-3/3).
    """
    _check_omaha(hole, board)
    code = _CODE
    pairs = [code[a] + code[b] for a, b in combinations(hole, 2)]
    triples = [code[a] + code[b] + code[c] + _SUIT_START for a, b, c in combinations(board, 3)]
    ranks = _RANK_STRENGTH
    flushes = _FIVE_CARD_FLUSH
    best = -1
    for pair in pairs:
        for triple in triples:
            key = pair + triple
            strength = (
                flushes[key & _RANK_LANES] if key & _FLUSH_FLAGS else ranks[key & _RANK_LANES]
            )
            if strength > best:
                best = strength
    return best


def category(strength: int) -> HandCategory:
    """The category (RANK-2) of a strength from :func:`evaluate`."""
    return HandCategory(strength >> _CATEGORY_SHIFT)


def _ranks_of(strength: int) -> tuple[int, int, int, int, int]:
    return (
        strength >> 16 & 15,
        strength >> 12 & 15,
        strength >> 8 & 15,
        strength >> 4 & 15,
        strength & 15,
    )


def describe(strength: int) -> str:
    """A strength in words, e.g. ``"two pair, kings and sixes, ace kicker"``."""
    kind = category(strength)
    first, second, third, _, _ = _ranks_of(strength)
    name, plural = RANK_NAMES, RANK_PLURALS
    if kind is HandCategory.STRAIGHT_FLUSH:
        # RANK-2: the ace-high straight flush is the royal flush.
        return "royal flush" if first == _ACE else f"straight flush, {name[first]} high"
    if kind is HandCategory.FOUR_OF_A_KIND:
        return f"four of a kind, {plural[first]}"
    if kind is HandCategory.FULL_HOUSE:
        return f"full house, {plural[first]} over {plural[second]}"
    if kind is HandCategory.FLUSH:
        return f"flush, {name[first]} high"
    if kind is HandCategory.STRAIGHT:
        return f"straight, {name[first]} high"
    if kind is HandCategory.THREE_OF_A_KIND:
        return f"three of a kind, {plural[first]}"
    if kind is HandCategory.TWO_PAIR:
        return f"two pair, {plural[first]} and {plural[second]}, {name[third]} kicker"
    if kind is HandCategory.PAIR:
        return f"pair of {plural[first]}"
    return f"high card, {name[first]}"


def _display_order(five: Sequence[int]) -> tuple[Card, ...]:
    """The five cards as a showdown shows them: sets by size then rank, kickers high to low.

    Cards of the same rank keep the order they were given in (hole cards first when the
    caller lists them first). In the wheel the ace plays low, so it comes last (RANK-1).
    """
    counts = [0] * 13
    for card in five:
        counts[card >> 2] += 1
    ranks = sorted(card >> 2 for card in five)
    wheel = ranks == [0, 1, 2, 3, _ACE]

    def order(card: int) -> tuple[int, int]:
        rank = card >> 2
        if wheel and rank == _ACE:
            rank = -1
        return (-counts[card >> 2], -rank)

    return tuple(DECK[card] for card in sorted(five, key=order))


def best_five(cards: Sequence[int]) -> tuple[Card, ...]:
    """The five cards that make the hand of ``evaluate(cards)``, for showdown display.

    Among equal choices, the one earliest in the given order wins. Not for the hot path:
    it tries every five-card combination.
    """
    if not 5 <= len(cards) <= 7:
        raise _bad_count(cards)
    check_distinct(cards)
    return _display_order(max(combinations(cards, 5), key=evaluate))


def best_five_omaha(hole: Sequence[int], board: Sequence[int]) -> tuple[Card, ...]:
    """The two hole cards and three board cards of ``evaluate_omaha`` (CARD-3), for display."""
    _check_omaha(hole, board)
    check_distinct([*hole, *board])
    candidates: Iterable[tuple[int, ...]] = (
        pair + triple for pair in combinations(hole, 2) for triple in combinations(board, 3)
    )
    return _display_order(max(candidates, key=evaluate))
