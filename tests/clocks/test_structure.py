"""Blind structures: the presets (LEVEL-4, LEVEL-5, SNG-3, SNG-6) and validation (LEVEL-2)."""

from __future__ import annotations

import pytest

from controller.clocks import StructureError, load_structure, preset
from controller.clocks.structure import Level, Structure


def test_level_4_hexapro_antes_from_level_2_and_28_levels() -> None:
    s = preset("hexapro", multiplier=1.5)
    assert len(s.levels) == 28 and s.starting_stack == 500
    assert (s.level(1).small_blind, s.level(1).big_blind, s.level(1).ante) == (10, 20, 0)
    assert (s.level(2).small_blind, s.level(2).big_blind, s.level(2).ante) == (15, 30, 4)
    assert (s.level(16).big_blind, s.level(16).ante) == (700, 85)
    assert (s.level(28).small_blind, s.level(28).big_blind, s.level(28).ante) == (2000, 4000, 500)
    assert all(lv.ante > 0 for lv in s.levels[1:])


@pytest.mark.parametrize(("multiplier", "minutes"), [
    (1000, 4), (100, 4), (25, 4), (10, 3), (5, 3), (3, 2), (1.5, 1)])
def test_sng_3_hexapro_level_length_by_multiplier(multiplier: float, minutes: int) -> None:
    s = preset("hexapro", multiplier=multiplier)
    assert {lv.minutes for lv in s.levels} == {minutes}


def test_level_5_hexapro_extreme_has_no_antes_and_19_levels() -> None:
    s = preset("hexapro_extreme", multiplier=3)
    assert len(s.levels) == 19
    assert all(lv.ante == 0 and lv.big_blind_ante == 0 for lv in s.levels)
    assert (s.level(4).small_blind, s.level(4).big_blind) == (30, 60)
    assert (s.level(19).small_blind, s.level(19).big_blind) == (700, 1400)


@pytest.mark.parametrize(("multiplier", "stack", "minutes"), [
    (1000, 500, 3), (125, 500, 3), (20, 300, 2), (10, 300, 2), (4, 200, 1), (3, 200, 1),
    (1, 100, 1)])
def test_sng_6_hexapro_extreme_stack_and_level_length(multiplier: int, stack: int,
                                                      minutes: int) -> None:
    s = preset("hexapro_extreme", multiplier=multiplier)
    assert s.starting_stack == stack and s.level(1).minutes == minutes


def test_sng_3_multiplier_is_required_and_checked() -> None:
    with pytest.raises(StructureError, match="depends on the multiplier"):
        preset("hexapro")
    with pytest.raises(StructureError, match="no multiplier 7"):
        preset("hexapro", multiplier=7)


def test_level_6_the_last_level_stays_in_force() -> None:
    s = preset("hexapro_extreme", multiplier=1)
    assert s.level(40) == s.level(19)


def test_casino_preset_is_a_format_that_needs_the_house_numbers() -> None:
    with pytest.raises(StructureError, match="house file"):
        preset("casino")
    s = load_structure('base = "casino"\nlevel_minutes = 20\n'
                       "levels = [[25, 50, 50], [50, 100, 100], [75, 150, 150]]\n"
                       "[[breaks]]\nafter_level = 2\nminutes = 15\n")
    assert s.level(2).big_blind_ante == 100 and s.level(2).ante == 0  # 002 §31
    assert s.antes_stop_in_the_money
    assert s.level(2).without_antes().big_blind_ante == 0
    br = s.break_after(2)
    assert br is not None and br.add_on and br.seconds == 900  # TOURN-12
    assert (s.rebuy_until_level, s.late_registration_until_level) == (2, 2)  # TOURN-10


def test_casino_break_without_a_length_is_refused() -> None:
    with pytest.raises(StructureError, match="no length"):
        load_structure('base = "casino"\nlevel_minutes = 20\nlevels = [[25, 50, 50], '
                       "[50, 100, 100], [75, 150, 150]]\n")


def test_house_structure_with_colour_up_and_sync_breaks() -> None:
    s = load_structure("name = 'Sunday'\nlevel_minutes = 30\ncolumns = ['small_blind', "
                       "'big_blind', 'ante', 'minutes']\nlevels = [[25, 50, 0, 20], "
                       "[50, 100, 10, 30]]\n[[breaks]]\nafter_level = 1\nminutes = 10\n"
                       "colour_up = [25]\n[sync_breaks]\nminute = 55\nminutes = 5\n")
    assert s.level(1).seconds == 1200 and s.level(2).seconds == 1800
    assert s.break_after(1).colour_up == (25,)  # type: ignore[union-attr]
    assert s.sync_breaks is not None and s.sync_breaks.seconds == 300


@pytest.mark.parametrize(("text", "message"), [
    ("levels = [[10, 20]]", "no level length"),
    ("level_minutes = 10\nlevels = [[30, 20]]", "small blind <= big blind"),
    ("level_minutes = 10\nlevels = [[10, 20], [5, 10]]", "below level 1"),
    ("level_minutes = 10\nlevels = [[10, 20, 5]]", "expected 2 values"),
    ("level_minutes = 10\nlevels = [[10, -20]]", "whole number"),
    ("level_minutes = 10\ncolumns = ['sb', 'bb']\nlevels = [[10, 20]]", "columns"),
    ("level_minutes = 10\nlevels = [[10, 20]]\n[[breaks]]\nafter_level = 3\nminutes = 5",
     "levels are 1..1"),
    ("level_minutes = 10\nlevels = [[10, 20]]\nblinds = 3", "unknown keys"),
    ("level_minutes = 10\nlevels = [[10, 20]\n", "not valid TOML"),
    ('base = "turbo"\nlevels = [[10, 20]]', "no structure preset"),
])
def test_level_2_structures_are_validated_with_clear_errors(text: str, message: str) -> None:
    with pytest.raises(StructureError, match=message):
        load_structure(text)


def test_levels_must_be_numbered_in_order() -> None:
    with pytest.raises(StructureError, match="numbered"):
        Structure("x", (Level(2, 10, 20, seconds=60),))
