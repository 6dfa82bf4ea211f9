"""House files (deploy/houses/*.toml): every shipped house reads, and a broken one is refused
with its field, its line and the rule (issue 18)."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from controller.clocks.house import HouseError, line_of, load_house, parse_house
from controller.rules.config import Variant
from controller.rules.rake import CASINO_BRACKETS, rake_for

HOUSES = Path(__file__).resolve().parents[2] / "deploy" / "houses"
SHIPPED = sorted(HOUSES.glob("*.toml"))

CASH = """\
name = "Test cash"
kind = "cash"
game = "NT"
unit = "cent"
rules = "online"

[stakes]
small_blind = 5
big_blind = 10

[rake]
schedule = "2023"
stake = "NL10"
"""


def refused(text: str) -> HouseError:
    with pytest.raises(HouseError) as caught:
        parse_house(text, "test.toml")
    return caught.value


def test_the_shipped_houses_are_the_ones_the_issue_asks_for() -> None:
    houses = {p.stem: load_house(p) for p in SHIPPED}
    assert set(houses) >= {"casino-nlhe", "casino-plo", "online-nlhe", "online-plo",
                           "limit-holdem", "live-tournament", "hexapro-sng"}
    games = {stem: (h.kind, h.variant) for stem, h in houses.items()}
    assert games["casino-plo"] == ("cash", Variant.PO)
    assert games["online-plo"] == ("cash", Variant.PO)
    assert games["limit-holdem"] == ("cash", Variant.FT)
    assert games["live-tournament"] == ("tournament", Variant.NT)
    assert games["hexapro-sng"] == ("tournament", Variant.NT)
    for stem, house in houses.items():
        assert house.text == (HOUSES / f"{stem}.toml").read_text(encoding="utf-8")
        assert house.name and house.label


def test_cash_8_the_casino_house_takes_its_stakes_buy_in_and_bracket_rake() -> None:
    h = load_house(HOUSES / "casino-nlhe.toml")
    assert h.stakes is not None and (h.stakes.small_blind, h.stakes.big_blind) == (20, 40)
    assert h.buy_in is not None and (h.buy_in.minimum, h.buy_in.maximum) == (2000, 10000)
    assert h.buy_in.rule == "CASH-8" and h.buy_in.problem(1999) and not h.buy_in.problem(2000)
    assert h.rake is not None and h.rake.brackets == CASINO_BRACKETS
    assert h.straddle_mode == "mississippi" and h.rules.text("showdown.allin_order") == \
        "last_aggressor_first"


def test_rake_6_the_online_house_takes_its_2023_row() -> None:
    h = load_house(HOUSES / "online-nlhe.toml")
    assert h.rake is not None and h.rake.percent == Fraction(7, 2)
    assert (h.rake.cap, h.rake.halved_cap) == (100, 50)
    assert h.buy_in is not None and (h.buy_in.minimum, h.buy_in.maximum, h.buy_in.rule) == \
        (500, 1000, "CASH-2")
    assert rake_for(h.rake, 10_000, saw_flop=True, players_dealt=6) == 100  # capped
    assert rake_for(h.rake, 10_000, saw_flop=True, players_dealt=3) == 50  # RAKE-5


def test_rake_1_a_house_percentage_with_its_own_caps_and_rounding() -> None:
    h = load_house(HOUSES / "limit-holdem.toml")
    assert h.rake is not None and h.rake.percent == 5 and h.rake.rounding == "up"
    assert (h.rake.cap, h.rake.halved_cap, h.rake.minimum) == (300, 150, 1)
    assert rake_for(h.rake, 1010, saw_flop=True, players_dealt=4) == 51  # 50.5 rounded up
    assert rake_for(h.rake, 1010, saw_flop=False, players_dealt=4) == 0  # RAKE-2
    assert h.stakes is not None and (h.stakes.small_bet, h.stakes.big_bet) == (100, 200)
    assert h.forced_bets(5) == {"small_bet": 100, "big_bet": 200}


def test_ante_kinds_become_the_hands_forced_bets() -> None:
    each = parse_house(CASH + "\n[antes]\nkind = \"each\"\namount = 2\n")
    assert each.forced_bets(4) == {"antes": (2, 2, 2, 2)}
    bba = parse_house(CASH + "\n[antes]\nkind = \"big_blind\"\namount = 10\n")
    assert bba.forced_bets(4) == {"big_blind_ante": 10}


def test_sng_3_the_hexapro_house_plays_the_multipliers_structure() -> None:
    h = load_house(HOUSES / "hexapro-sng.toml")
    assert h.structure is not None and h.starting_stack == 500 and h.players == 3
    assert {lv.minutes for lv in h.structure.levels} == {2}  # 3x: 2-minute levels
    drawn = parse_house(h.text, multiplier=10)
    assert drawn.structure is not None and {lv.minutes for lv in drawn.structure.levels} == {3}
    with pytest.raises(HouseError, match=r"tournament\.structure.*no multiplier 7.*SNG-3"):
        parse_house(h.text, "hexapro-sng.toml", multiplier=7)


def test_the_live_tournament_house_reads_its_inline_structure() -> None:
    h = load_house(HOUSES / "live-tournament.toml")
    assert h.structure is not None and h.structure.level(3).big_blind_ante == 400
    assert [b.after_level for b in h.structure.breaks] == [2, 4]
    assert h.clock.shot_clock_s == 30 and h.clock.extension_chips == 2
    assert h.rules.text("clock.duration") == "50+10" and h.rake is None


def test_an_error_names_the_file_the_line_the_field_and_the_rule() -> None:
    text = CASH.replace("big_blind = 10", "big_blind = -10")
    err = refused(text)
    assert (err.field, err.line, err.rule) == ("stakes.big_blind", 9, "BLIND-1")
    assert str(err).startswith("test.toml line 9: stakes.big_blind: must be a positive")


def test_rake_9_a_tournament_house_with_a_rake_is_refused() -> None:
    text = (HOUSES / "hexapro-sng.toml").read_text() + "\n[rake]\nschedule = \"casino\"\n"
    err = refused(text)
    assert err.rule == "RAKE-9" and err.field == "rake" and err.line is not None
    assert "no per-hand rake" in err.reason


def test_straddle_6_a_tournament_house_with_straddles_is_refused() -> None:
    text = (HOUSES / "live-tournament.toml").read_text() + "\n[straddle]\nmode = \"utg\"\n"
    assert refused(text).rule == "STRADDLE-6"


def test_straddle_6_no_straddles_in_fixed_limit() -> None:
    text = (HOUSES / "limit-holdem.toml").read_text() + "\n[straddle]\nmode = \"utg\"\n"
    err = refused(text)
    assert (err.rule, err.field) == ("STRADDLE-6", "straddle.mode")
    assert load_house(HOUSES / "limit-holdem.toml").straddle_mode == "off"  # live's utg, off


def test_straddle_1_an_unknown_straddle_mode_is_refused_with_the_choices() -> None:
    err = refused(CASH + "\n[straddle]\nmode = \"double\"\n")
    assert err.rule == "STRADDLE-1" and "off, utg, mississippi" in err.reason


@pytest.mark.parametrize(("extra", "field", "rule"), [
    ("[rake]\nschedule = \"casino\"\n", "rake.schedule", "RAKE-8"),  # casino brackets are kr
    ("[rake]\nschedule = \"2019\"\nstake = \"NL3\"\n", "rake.stake", "RAKE-7"),
    ("[rake]\nschedule = \"percentage\"\npercent = \"0\"\n", "rake.percent", "RAKE-1"),
    ("[rake]\nschedule = \"percentage\"\npercent = \"5\"\ncap = 301\n", "rake.cap", "RAKE-5"),
    ("[rake]\nschedule = \"percentage\"\npercent = \"5\"\ncap = 300\nhalved_cap = 400\n",
     "rake.halved_cap", "RAKE-5"),
    ("[rake]\nschedule = \"2023\"\nstake = \"NL10\"\nrounding = \"down\"\n", "rake.rounding",
     "RAKE-4"),
])
def test_rake_schedules_are_checked_against_the_rake_rules(extra: str, field: str,
                                                           rule: str) -> None:
    base = CASH.split("[rake]")[0]
    err = refused(base + extra)
    assert (err.field, err.rule) == (field, rule)
    key = field.split(".")[1]
    assert err.line is not None and (base + extra).splitlines()[err.line - 1].startswith(key)


def test_cash_2_buy_in_limits_in_big_blinds_and_their_checks() -> None:
    ok = parse_house(CASH + "\n[buy_in]\nmin_bb = 50\nmax_bb = 100\n")
    assert ok.buy_in is not None and (ok.buy_in.minimum, ok.buy_in.maximum) == (500, 1000)
    err = refused(CASH + "\n[buy_in]\nmin = 900\nmax = 500\n")
    assert (err.field, err.rule) == ("buy_in.max", "CASH-2")
    err = refused(CASH + "\n[buy_in]\nmin = 100\nmin_bb = 10\nmax = 500\n")
    assert err.field == "buy_in.min_bb"


def test_cash_7_a_banzai_buy_in_is_exactly_10_bb() -> None:
    ok = parse_house(CASH + "\n[buy_in]\nmin_bb = 10\nmax_bb = 10\nrule = \"CASH-7\"\n")
    assert ok.buy_in is not None and ok.buy_in.problem(100) is None
    assert ok.buy_in.problem(90) == "the buy-in here is exactly 100, not 90"
    err = refused(CASH + "\n[buy_in]\nmin_bb = 10\nmax_bb = 12\nrule = \"CASH-7\"\n")
    assert (err.field, err.rule) == ("buy_in.max", "CASH-7")


def test_rule_options_are_the_conf_keys_and_their_values() -> None:
    ok = parse_house(CASH + "\n[options]\n\"pot.odd_unit\" = \"all_to_first_left_of_button\"\n")
    assert not ok.rules.odd_unit_each
    err = refused(CASH + "\n[options]\n\"pot.odd_unit\" = \"to_the_dealer\"\n")
    assert (err.field, err.rule, err.line) == ("options.pot.odd_unit", "POT-5", 16)
    err = refused(CASH + "\n[options]\n\"pot.odd\" = 1\n")
    assert "not a rule option" in err.reason and err.line == 16


def test_unknown_keys_are_named_with_the_keys_allowed() -> None:
    err = refused(CASH.replace("big_blind = 10", "big_blind = 10\nbig_blnd = 10"))
    assert err.field == "stakes.big_blnd" and err.line == 10
    assert "small_blind, big_blind" in err.reason


def test_fixed_limit_bets_are_fl_only_and_ordered() -> None:
    err = refused(CASH.replace("big_blind = 10", "big_blind = 10\nsmall_bet = 10"))
    assert (err.field, err.rule) == ("stakes.small_bet", "FL-2")
    ft = CASH.replace("game = \"NT\"", "game = \"FT\"").replace(
        "[rake]\nschedule = \"2023\"\nstake = \"NL10\"\n", "")
    err = refused(ft.replace("big_blind = 10", "big_blind = 10\nsmall_bet = 20\nbig_bet = 10"))
    assert (err.field, err.rule) == ("stakes.big_bet", "FL-2")


def test_not_toml_and_missing_name_are_one_sentence_each() -> None:
    assert "not valid TOML" in str(refused("name = \n"))
    err = refused(CASH.replace('name = "Test cash"\n', ""))
    assert err.field == "name" and "every house has a name" in err.reason


def test_a_missing_file_says_it_cannot_be_read(tmp_path: Path) -> None:
    with pytest.raises(HouseError, match="cannot be read"):
        load_house(tmp_path / "nope.toml")


def test_line_of_finds_keys_headers_and_quoted_keys() -> None:
    text = 'a = 1\n[t]\nb = 2\n"c.d" = 3\n[[t.u]]\ne = 4\n'
    assert line_of(text, ["a"]) == 1
    assert line_of(text, ["t", "b"]) == 3
    assert line_of(text, ["t", "c.d"]) == 4
    assert line_of(text, ["t", "u"]) == 5
    assert line_of(text, ["t", "u", "e"]) == 6
    assert line_of(text, ["t", "missing"]) == 2  # the table's header
    assert line_of(text, ["zzz"]) is None
