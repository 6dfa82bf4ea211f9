"""The dealer keypad's key map: the shipped map is complete and loads; a broken map fails
naming the file, the key and the fix; the keycap legend in hardware/README.md is the map
(``pitboss hardware keycaps --check``, as a technician runs it)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from evdev import ecodes

from controller.devices.profile import KEYMAP_DIR, load_profile, shipped_profiles
from controller.terminal import keymap
from controller.terminal.keymap import KEYS, KeyMapError, load_keymap, parse_keymap

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = (KEYMAP_DIR / "dealer-48.toml").read_text()


def _line_of(text: str, needle: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if needle in line)


def test_every_profile_names_a_shipped_map_that_has_every_key_once() -> None:
    for path in shipped_profiles():
        spec = load_profile(path).keypad
        assert spec is not None, path.name
        km = load_keymap(spec.map)
        assert set(km.keys()) == set(KEYS)  # 48 keycaps: the 42 keys, 6 spare
        assert sum(len(row) for row in km.rows) == 48
        codes = km.by_code()
        assert codes[ecodes.KEY_KP7] == codes[ecodes.KEY_7] == "7"  # numpad or top row
        assert codes[ecodes.KEY_KPENTER] == "deal" and codes[ecodes.KEY_F] == "fold"
        assert len(codes) == sum(len(c) for c in km.codes.values())  # no code twice


def test_frequent_actions_are_one_key_each() -> None:
    km = load_keymap("dealer-48")
    for key in ("fold", "check", "call", "bet", "all_in", "chips", "deal", "show", "muck"):
        assert sum(row.count(key) for row in km.rows) == 1 and km.codes[key]


@pytest.mark.parametrize(("old", "new", "problem", "fix", "at"), [
    ('"clear",   "fold"', '"clear",   "flod"',
     "row 1: unknown key 'flod' (did you mean 'fold'?)", 'or "" for a spare keycap', '"flod"'),
    ('fold = "KEY_F"\n', "", "key 'fold' is on the rows but [codes] has no code for it",
     'add fold = "KEY_..." to [codes]', "[codes]"),
    ('check = "KEY_K"', 'check = "KEY_F"', "[codes] KEY_F is sent by both 'fold' and 'check'",
     "give each key its own code", 'check = "KEY_F"'),
    ('muck = "KEY_M"', 'muck = "KEY_MUCK"', "[codes] muck: 'KEY_MUCK' is not an evdev key code",
     "the name `evtest` prints", 'muck = "KEY_MUCK"'),
    ('"enrol",   "deck",', '"enrol",', "row 6 has 7 keys, row 1 has 8",
     "give every row the same number", "rows ="),
    ('"7",       "8",       "9",       "clear",', '"7",       "8",       "9",       "",',
     "the keypad has no clear key", "a dealer needs the digits, CLEAR", "rows ="),
    ('[codes]\n', '[codes]\nfolds = "KEY_J"\n', "[codes] 'folds' is not a key (did you mean "
     "'fold'?)", "remove it, or put the key on the rows", "folds ="),
])
def test_a_broken_map_names_the_file_the_key_and_the_fix(
        old: str, new: str, problem: str, fix: str, at: str) -> None:
    assert old in SHIPPED
    text = SHIPPED.replace(old, new, 1)
    with pytest.raises(KeyMapError) as err:
        parse_keymap(text, "hardware/keypads/mine.toml")
    message = str(err.value)
    assert message.startswith(f"hardware/keypads/mine.toml:{err.value.line}: {problem}. Fix:")
    assert fix in message and "\n" not in message
    assert err.value.line == _line_of(text, at)


def test_an_unknown_map_name_lists_the_shipped_ones() -> None:
    with pytest.raises(KeyMapError, match=r"cannot read key map .*nope\.toml .*choose one of "
                       r"dealer-48, or give a path"):
        load_keymap("nope")


def test_the_readme_keycap_legend_is_current() -> None:
    proc = subprocess.run([sys.executable, "-m", "controller.cli", "hardware", "keycaps",
                           "--check"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr + " (run `pitboss hardware keycaps`)"


def test_a_stale_legend_is_found_and_rewritten(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text("# hardware\n")
    assert keymap.main(["--check", "--readme", str(readme)]) == 1
    assert keymap.main(["--readme", str(readme)]) == 0
    assert keymap.main(["--check", "--readme", str(readme)]) == 0
    text = readme.read_text()
    assert "| A | **7** | **8** | **9** | **CLEAR** | **FOLD** | **CHECK** | **CALL** | **BET** |" \
        in text
    assert "| FOLD | `KEY_F` | the player to act folds;" in text
