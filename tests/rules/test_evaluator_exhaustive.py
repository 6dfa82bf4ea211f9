"""Every one of the 133,784,560 seven-card hands, through the public ``evaluate`` (CARD-2).

Slow (a few minutes on two cores): run with ``pytest -m slow tests/rules``. The work is split
by the hand's lowest card over a process pool.
"""

from __future__ import annotations

import multiprocessing
import os
from collections import Counter
from itertools import combinations
from math import comb

import pytest

from controller.rules.cards import DECK
from controller.rules.evaluator import HandCategory, category, evaluate

SEVEN_CARD_TOTALS = {
    HandCategory.STRAIGHT_FLUSH: 41584,
    HandCategory.FOUR_OF_A_KIND: 224848,
    HandCategory.FULL_HOUSE: 3473184,
    HandCategory.FLUSH: 4047644,
    HandCategory.STRAIGHT: 6180020,
    HandCategory.THREE_OF_A_KIND: 6461620,
    HandCategory.TWO_PAIR: 31433400,
    HandCategory.PAIR: 58627800,
    HandCategory.HIGH_CARD: 23294460,
}


def strengths_with_lowest_card(lowest: int) -> Counter[int]:
    """How many seven-card hands whose lowest card index is ``lowest`` have each strength."""
    lead = (DECK[lowest],)
    hands = map(lead.__add__, combinations(DECK[lowest + 1 :], 6))
    return Counter(map(evaluate, hands))


@pytest.mark.slow
def test_card_2_all_133784560_seven_card_hands_by_category() -> None:
    lowest_cards = range(52 - 6)
    # Biggest shares first so the two workers finish together.
    work = sorted(lowest_cards, key=lambda card: -comb(51 - card, 6))
    processes = max(1, min(2, os.cpu_count() or 1))
    by_strength: Counter[int] = Counter()
    with multiprocessing.get_context().Pool(processes) as pool:
        for part in pool.imap_unordered(strengths_with_lowest_card, work):
            by_strength.update(part)
    totals: Counter[HandCategory] = Counter()
    for value, count in by_strength.items():
        totals[category(value)] += count
    assert sum(totals.values()) == comb(52, 7) == 133_784_560
    assert dict(totals) == SEVEN_CARD_TOTALS
    # Seven cards can make only 4,824 of the 7,462 five-card hand values (no 7-high hands).
    assert len(by_strength) == 4824
