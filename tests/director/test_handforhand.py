"""Hand-for-hand (TOURN-22/23) and the last hands of the day (TOURN-27)."""

from __future__ import annotations

import random

import pytest

from host_bridge.director import DirectorError, HandForHand, LastHands


def test_tourn_22_tables_finish_their_hand_then_deal_together() -> None:
    h = HandForHand([1, 2, 3], in_hand=[1, 3])
    assert h.hand == 0 and h.may_deal() == set()
    with pytest.raises(DirectorError, match="TOURN-22"):
        h.hand_started(2)  # table 2 waits for tables 1 and 3
    h.hand_ended(1)
    assert h.may_deal() == set()
    h.hand_ended(3)
    assert h.may_deal() == {1, 2, 3} and h.hand == 1
    assert h.hand_started(2) == 1
    h.hand_ended(2)
    with pytest.raises(DirectorError, match="TOURN-22"):
        h.hand_started(2)  # hand 2 waits for every table to finish hand 1
    h.hand_started(1)
    h.hand_started(3)
    h.hand_ended(1)
    h.hand_ended(3)
    assert h.hand == 2 and h.may_deal() == {1, 2, 3}


def test_tourn_22_all_in_tables_wait_for_the_others_and_finish_one_at_a_time() -> None:
    h = HandForHand([1, 2, 3])
    for t in (1, 2, 3):
        h.hand_started(t)
    h.all_in(1)
    h.all_in(2)
    assert h.may_finish() is None  # table 3 still plays
    with pytest.raises(DirectorError, match="TOURN-22"):
        h.hand_ended(1)
    h.hand_ended(3)
    assert h.may_finish() == 1
    with pytest.raises(DirectorError, match="TOURN-22"):
        h.hand_ended(2)  # one at a time
    h.hand_ended(1)
    assert h.may_finish() == 2 and h.may_deal() == set()
    h.hand_ended(2)
    assert h.hand == 2 and h.may_deal() == {1, 2, 3}


def test_tourn_22_skip_and_broken_table() -> None:
    h = HandForHand([1, 2])
    h.skip(2)
    h.hand_started(1)
    h.hand_ended(1)
    assert h.hand == 2
    h.remove_table(2)
    assert h.may_deal() == {1}
    with pytest.raises(DirectorError, match="TOURN-22"):
        h.hand_started(2)


def test_tourn_27_1_every_table_plays_the_drawn_number_of_hands() -> None:
    card = LastHands.draw(random.Random(3))
    assert 3 <= card <= 7
    last = LastHands([1, 2], seconds_left=600, card=6)
    assert last.clock_stopped
    for _ in range(6):
        last.hand_started(1)
        last.hand_ended(1)
    assert not last.may_deal(1) and not last.done
    with pytest.raises(DirectorError, match="TOURN-27"):
        last.hand_started(1)
    for _ in range(6):
        last.hand_started(2)
        last.hand_ended(2)
    assert last.done


def test_tourn_27_draw_window_and_card() -> None:
    with pytest.raises(DirectorError, match="TOURN-27"):
        LastHands([1], seconds_left=16 * 60, card=5)
    with pytest.raises(DirectorError, match="TOURN-27"):
        LastHands([1], seconds_left=4 * 60, card=5)
    with pytest.raises(DirectorError, match="TOURN-27"):
        LastHands([1], seconds_left=600, card=8)
    assert {LastHands.draw(random.Random(s)) for s in range(200)} == {3, 4, 5, 6, 7}
