"""Rake (RULES.md section 15): tests named by rule and example id."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.rules.errors import ConfigError, RulesError
from controller.rules.rake import (
    CASINO_BRACKETS,
    RAKE_TABLE_2019,
    RAKE_TABLE_2023,
    RakeBracket,
    RakePolicy,
    find_row,
    rake_for,
    rake_policy,
)

NL10 = rake_policy("2023", "NLHE", "NL10")
NL10_UP = rake_policy("2023", "NLHE", "NL10", rounding="up")
CASINO = rake_policy("casino")


def rake(policy: RakePolicy, pot: int, players: int = 6, saw_flop: bool = True) -> int:
    return rake_for(policy, pot, saw_flop=saw_flop, players_dealt=players)


# ------------------------------------------------------------ RAKE-2..5


def test_rake_2_no_flop_no_drop() -> None:
    assert rake(NL10, 4000, saw_flop=False) == 0
    assert rake(CASINO, 5000, saw_flop=False) == 0
    assert rake(NL10, 4000, saw_flop=True) == 100


def test_rake_2_can_be_switched_off_for_the_casino() -> None:
    # 002 is silent on "no flop, no drop" (Appendix B.20): the house may choose.
    casino_always = rake_policy("casino", no_flop_no_drop=False)
    assert rake(casino_always, 1500, saw_flop=False) == 30


def test_rake_3_minimum_one_cent_on_a_raked_hand() -> None:
    assert rake(NL10, 5) == 1  # 0.175 cents rounds to 0, charged 1
    assert rake(NL10, 0) == 0  # nothing to rake


def test_rake_4_example_1_nearest_and_up() -> None:
    # NL10, 3.5 %, pot €1.23 -> 4.305 cents
    assert NL10.percent == Fraction(7, 2)
    assert rake(NL10, 123) == 4
    assert rake(NL10_UP, 123) == 5


def test_rake_4_example_2_minimum() -> None:
    nl4 = rake_policy("2023", "NLHE", "NL4")
    assert nl4.percent == 2
    assert rake(nl4, 10) == 1  # 0.2 cents -> minimum €0.01
    assert rake(rake_policy("2023", "NLHE", "NL4", rounding="up"), 10) == 1


def test_rake_4_example_3_capped() -> None:
    assert rake(NL10, 4000) == 100  # 1.40 -> capped at €1.00
    assert rake(NL10_UP, 4000) == 100


def test_rake_4_nearest_rounds_half_up() -> None:
    nl4 = rake_policy("2023", "NLHE", "NL4")  # 2 %
    assert rake(nl4, 125) == 3  # 2.5 cents -> 3 (half up, not to even)
    assert rake(nl4, 124) == 2  # 2.48 -> 2
    assert rake(rake_policy("2023", "NLHE", "NL4", rounding="up"), 101) == 3  # 2.02 -> 3


def test_rake_5_example_1_three_players_halve_the_cap() -> None:
    assert rake(NL10, 4000, players=3) == 50


@pytest.mark.parametrize(("players", "cap"), [(2, 50), (3, 50), (4, 100), (10, 100)])
def test_rake_5_halved_only_for_exactly_2_or_3(players: int, cap: int) -> None:
    assert rake(NL10, 100_000, players=players) == cap


# ------------------------------------------------------------ RAKE-6 2023 table


def test_rake_6_table_rows_as_given() -> None:
    assert len(RAKE_TABLE_2023) == 21
    row = find_row("2023", "NLHE", "NL50")
    assert (row.blinds, row.percent, row.cap, row.halved_cap) == ((25, 50), Fraction(11, 2),
                                                                  200, 100)
    banzai = find_row("2023", "Banzai NLHE", "NL50")
    assert (banzai.blinds, banzai.percent, banzai.cap) == ((250, 500), Fraction(5, 2), 150)
    assert find_row("2023", "PLO", "PL25").halved_cap == 125


@pytest.mark.parametrize(("game", "stake"), [("NLHE", "NL100"), ("PLO", "PL10")])
def test_rake_6_duplicate_label_is_ambiguous_without_blinds(game: str, stake: str) -> None:
    with pytest.raises(ConfigError, match=rf"{game} {stake} is ambiguous .* pass blinds") as e:
        rake_policy("2023", game, stake)
    assert e.value.rule == "RAKE-6"
    assert "⚠" in str(e.value)


def test_rake_6_duplicate_rows_are_addressable_by_blinds() -> None:
    clash = find_row("2023", "NLHE", "NL100", (5, 10))
    assert (clash.percent, clash.cap, clash.note.startswith("⚠")) == (Fraction(7, 2), 200, True)
    plain = find_row("2023", "NLHE", "NL100", (50, 100))
    assert (plain.percent, plain.cap, plain.note) == (Fraction(6), 300, "")
    assert find_row("2023", "PLO", "PL10", (25, 50)).note.startswith("⚠")
    assert find_row("2023", "PLO", "PL10", (5, 10)).cap == 150
    # the NL100 ⚠ row rakes like NL10 but caps at €2 (€1 when halved)
    policy = rake_policy("2023", "NLHE", "NL100", (5, 10))
    assert rake(policy, 10_000) == 200 and rake(policy, 10_000, players=2) == 100


def test_rake_6_nl25_blinds_as_2023_gives_them() -> None:
    assert find_row("2023", "NLHE", "NL25").blinds == (15, 25)
    with pytest.raises(ConfigError, match=r"0\.15/0\.25 .*not \(10, 25\)"):
        find_row("2023", "NLHE", "NL25", (10, 25))


@pytest.mark.parametrize(("table", "game", "stake", "words"), [
    ("2021", "NLHE", "NL10", "rake.table must be one of"),
    ("2023", "Stud", "NL10", "no game 'Stud'"),
    ("2023", "NLHE", "NL3", "no NLHE stake 'NL3'"),
])
def test_rake_6_unknown_lookups_say_what_exists(table: str, game: str, stake: str,
                                                words: str) -> None:
    with pytest.raises(ConfigError, match=words):
        rake_policy(table, game, stake)


# ------------------------------------------------------------ RAKE-7 2019 table


def test_rake_7_table_with_its_own_halved_caps() -> None:
    assert len(RAKE_TABLE_2019) == 17
    nl25 = rake_policy("2019", "NLHE", "NL25")
    assert (nl25.percent, nl25.cap, nl25.halved_cap) == (Fraction(5), 300, 150)
    assert rake(nl25, 10_000) == 300 and rake(nl25, 10_000, players=3) == 150
    nl4 = rake_policy("2019", "PLO", "PL4")
    assert (nl4.percent, nl4.cap, nl4.halved_cap) == (Fraction(1), 100, 50)
    # the 2019 halved caps listed in RAKE-5 from 000
    assert {r.halved_cap for r in RAKE_TABLE_2019 if r.blinds == (2, 4)} == {50}
    assert {r.halved_cap for r in RAKE_TABLE_2019 if r.blinds == (5, 10)
            and r.game != "Banzai NLHE"} == {100}


def test_rake_7_banzai_nl1_anomaly_as_given() -> None:
    nl1 = rake_policy("2019", "Banzai NLHE", "NL1")
    assert (nl1.cap, nl1.halved_cap) == (300, 100)  # not 150: 000's text, kept
    assert rake(nl1, 100_000, players=2) == 100
    assert rake(nl1, 100_000, players=4) == 300


def test_rake_7_differs_from_2023() -> None:
    assert rake(rake_policy("2019", "NLHE", "NL10"), 123) == 4  # 3 % of 1.23 = 3.69 -> 4
    assert rake(rake_policy("2019", "NLHE", "NL10"), 10_000) == 200
    assert rake(NL10, 10_000) == 100


# ------------------------------------------------------------ RAKE-8 casino brackets


@pytest.mark.parametrize(("pot", "expected"), [
    (1000, 20), (1001, 30), (2500, 50), (10_000, 190), (10_001, 200)])
def test_rake_8_example_1_brackets(pot: int, expected: int) -> None:
    assert rake(CASINO, pot) == expected


def test_rake_8_brackets_match_the_stated_formula() -> None:
    # 30 + 20 * (ceil(P / 1000) - 2) for 1001 <= P <= 10000; 20 up to 1000; 200 above
    for pot in range(1001, 10_001):
        assert rake(CASINO, pot) == 30 + 20 * (-(-pot // 1000) - 2), pot
    assert {rake(CASINO, p) for p in range(21, 1001)} == {20}
    assert rake(CASINO, 1_000_000) == 200
    assert CASINO.unit == "kr" and len(CASINO_BRACKETS) == 11


def test_rake_8_never_more_than_the_pot() -> None:
    assert rake(CASINO, 15) == 15  # a 15 kr pot cannot pay 20 kr [conv]


# ------------------------------------------------------------ validation


def test_policy_validation_names_the_problem() -> None:
    with pytest.raises(ConfigError, match=r"rake\.rounding must be one of"):
        RakePolicy.percentage(5, 300, rounding="down")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="from 0 to 100"):
        RakePolicy.percentage(101, None)
    with pytest.raises(ConfigError, match="half of the cap 25 is not a whole cent"):
        RakePolicy.percentage(5, 25)
    with pytest.raises(ConfigError, match="halved cap 400 must be from 0 to the cap 300"):
        RakePolicy.percentage(5, 300, halved_cap=400)
    with pytest.raises(ConfigError, match="strictly increasing"):
        RakePolicy("brackets", brackets=(RakeBracket(10, 1), RakeBracket(5, 2),
                                         RakeBracket(None, 3)))
    with pytest.raises(ConfigError, match="one open bracket"):
        RakePolicy("brackets", brackets=(RakeBracket(10, 1),))
    with pytest.raises(RulesError, match="pot cannot be negative"):
        rake(NL10, -1)
    with pytest.raises(RulesError, match="at least 2 players"):
        rake(NL10, 100, players=1)


def test_uncapped_policy() -> None:
    policy = RakePolicy.percentage("5", None)
    assert rake(policy, 1_000_000, players=2) == 50_000


# ------------------------------------------------------------ properties

_policies = st.one_of(
    st.builds(lambda row, r: rake_policy(row.table, row.game, row.stake, row.blinds, rounding=r),
              st.sampled_from(RAKE_TABLE_2023 + RAKE_TABLE_2019),
              st.sampled_from(["nearest", "up"])),
    st.just(CASINO),
)


@given(_policies, st.integers(0, 10**7), st.integers(0, 10**5), st.integers(2, 10),
       st.booleans())
def test_rake_bounded_and_monotone_in_the_pot(policy: RakePolicy, pot: int, more: int,
                                              players: int, saw_flop: bool) -> None:
    taken = rake_for(policy, pot, saw_flop=saw_flop, players_dealt=players)
    bigger = rake_for(policy, pot + more, saw_flop=saw_flop, players_dealt=players)
    assert 0 <= taken <= pot
    assert taken <= bigger  # monotone in the pot
    cap = policy.cap_for(players)
    if policy.kind == "percentage":
        assert cap is not None and taken <= cap
        # RAKE-2/3: a pot that saw the flop pays at least a cent; one that did not pays nothing
        assert (taken > 0) == (saw_flop and pot > 0)
        exact = Fraction(pot) * policy.percent / 100
        if saw_flop and taken not in (cap, policy.minimum):  # raked, not capped, not minimum
            assert abs(taken - exact) <= (Fraction(1, 2) if policy.rounding == "nearest" else 1)
            assert taken >= exact or policy.rounding == "nearest"
