"""Prize pools, payout tables, ICM and cancellation compensation (TOURN-9/24, CANCEL-*)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from host_bridge.director.cancel import (
    cancel_before_money,
    cancel_before_start,
    cancel_final_table,
    cancel_in_money,
    cancel_jackpot,
)
from host_bridge.director.errors import PayoutError
from host_bridge.director.payouts import (
    PayoutStructure,
    PrizePool,
    icm_chop,
    icm_equity,
    payout_table,
    shared_prizes,
    split_cents,
)


@given(st.integers(0, 10**9), st.lists(st.integers(0, 10**6), min_size=1, max_size=20))
def test_split_cents_never_loses_a_cent(total: int, weights: list[int]) -> None:
    shares = split_cents(total, weights)
    assert sum(shares) == total
    if sum(weights):
        for s, w in zip(shares, weights, strict=True):
            assert abs(s - total * w / sum(weights)) < 1


def test_cancel_8_1_icm_example() -> None:
    assert icm_equity([3000, 1000], [70, 30]) == [Fraction(60), Fraction(40)]
    assert icm_chop([3000, 1000], [7000, 3000]) == [6000, 4000]


def test_cancel_8_icm_three_players_by_hand() -> None:
    # P(A 1st) = 1/2; P(A 2nd) = 1/4*(2/3) + 1/4*(2/3) = 1/3 -> 50*1/2 + 30*1/3 + 20*1/6
    eq = icm_equity([2, 1, 1], [50, 30, 20])
    assert eq[0] == Fraction(50, 2) + Fraction(30, 3) + Fraction(20, 6)
    assert sum(eq) == 100 and eq[1] == eq[2]


@given(st.lists(st.integers(0, 50_000), min_size=2, max_size=7).filter(lambda s: sum(s) > 0),
       st.lists(st.integers(0, 100_000), min_size=1, max_size=5))
def test_cancel_8_icm_pays_exactly_the_prizes_and_more_chips_never_less(
        stacks: list[int], prizes: list[int]) -> None:
    prizes.sort(reverse=True)
    shares = icm_chop(stacks, prizes)
    assert sum(shares) == sum(prizes[:len(stacks)])
    eq = icm_equity(stacks, prizes)
    for i in range(len(stacks)):
        for j in range(len(stacks)):
            if stacks[i] > stacks[j]:
                assert eq[i] >= eq[j]


def test_cancel_8_refuses_a_field_too_large_for_an_exact_chop() -> None:
    with pytest.raises(PayoutError, match="CANCEL-8"):
        icm_chop([100] * 60, [1000 - i for i in range(30)])


def test_tourn_9_guarantee_overlay() -> None:
    pool = PrizePool(collected=80_000, guarantee=100_000)
    assert (pool.total, pool.overlay) == (100_000, 20_000)
    assert PrizePool(150_000, 100_000).overlay == 0


def test_tourn_1_payout_structure_is_validated_data() -> None:
    with pytest.raises(PayoutError, match="TOURN-1"):
        PayoutStructure(((10, (6000, 3000)),))  # 90 %
    with pytest.raises(PayoutError, match="TOURN-1"):
        PayoutStructure(((10, (3000, 7000)),))  # lower place pays more
    ps = PayoutStructure(((5, (10_000,)), (20, (6000, 4000))))
    assert ps.percentages(3) == (10_000,) and ps.places_paid(12) == 2
    assert payout_table(1001, (6000, 4000)) == (601, 400)  # the odd cent to the top


def test_tourn_24_shared_place_pools_the_prizes_and_divides_equally() -> None:
    assert shared_prizes([500, 300, 201], 2, 2) == [251, 250]
    assert shared_prizes([500, 300], 2, 3) == [100, 100, 100]  # 3rd and 4th pay nothing


def test_cancel_1_refunds_every_buy_in_and_fee() -> None:
    out = cancel_before_start({"a": 2_200, "b": 1_100})
    assert {p: c.total for p, c in out.items()} == {"a": 2_200, "b": 1_100}


def test_cancel_2_1_example() -> None:
    out = cancel_before_money({"a": 6000, "b": 3000, "c": 3000}, {"a": 10, "b": 10, "c": 10},
                              1200)
    assert {p: c.prize for p, c in out.items()} == {"a": 500, "b": 350, "c": 350}
    assert all(c.fees == 10 and c.rule == "CANCEL-2" for c in out.values())


def test_cancel_3_1_example() -> None:
    stacks = {f"p{i:02d}": 1000 * (i + 1) for i in range(20)}
    unpaid = [1_500] * 10 + [200] * 10
    assert sum(unpaid) == 17_000
    out = cancel_in_money(stacks, {}, unpaid)
    assert all(c.prize >= 200 for c in out.values())
    assert sum(c.prize for c in out.values()) == 17_000
    # 17,000 - 20 x 200 = 13,000 shared by chips: p19 holds 20/210 of the chips
    assert out["p19"].prize == 200 + round(13_000 * 20 / 210)


def test_cancel_4_final_table_by_icm_with_fees_back() -> None:
    out = cancel_final_table({"a": 3000, "b": 1000}, {"a": 100, "b": 100}, [7000, 3000])
    assert (out["a"].total, out["b"].total) == (6100, 4100)


def test_cancel_6_1_example() -> None:
    out = cancel_jackpot({"a": 750, "b": 500, "c": 250}, 0, 3000, [10_000, 0, 0])
    assert [out[p].prize for p in "abc"] == [1350, 1000, 650]


def test_cancel_7_bounty_returned() -> None:
    out = cancel_before_money({"a": 1, "b": 1}, {}, 0, bounties={"a": 500})
    assert (out["a"].bounty, out["b"].bounty) == (500, 0)
