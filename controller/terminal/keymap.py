"""The dealer keypad's key map: which code each keycap sends and what it is for.

A key map is data (``hardware/keypads/<name>.toml``, named by the board profile's
``[keypad] map``): the keycaps row by row as the dealer sees them, and for each key the
code(s) the keypad sends (evdev names, ``KEY_KP7``; ``evtest`` shows what a key sends).
The keys themselves are a fixed vocabulary (:data:`KEYS`): digits and the keys that shape
an entry (SEAT, BB, +, BACK, CLEAR), and one key per terminal command
(:class:`~controller.terminal.commands.Verb`). A map says which of them a keypad has and
where; the sequencer (:mod:`controller.terminal.keypad`) says what a sequence means.

Loading validates the map and fails with the file, the key and the fix
(:class:`KeyMapError`). The keycap legend in ``hardware/README.md`` is generated from the
shipped maps (``pitboss hardware keycaps``; ``--check`` fails when it is stale, and a test
runs it), so the printed legend is always the map the code reads.
"""

from __future__ import annotations

import argparse
import difflib
import re
import sys
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from controller.devices.errors import ProfileError
from controller.devices.generated import replace_section, write_or_check
from controller.devices.keypad import key_code
from controller.devices.profile import KEYMAP_DIR, PROFILE_DIR, shipped_keymaps

from .commands import Verb


class KeyMapError(ProfileError):
    """A key map that cannot drive a keypad; names the file, the key and the fix."""


@dataclass(frozen=True, slots=True)
class KeyRole:
    """A key of the vocabulary: its keycap, a line for the legend, and the terminal
    command it sends (None: it shapes the entry: a digit, SEAT, BB...)."""

    cap: str
    does: str
    verb: Verb | None = None


def _verb(cap: str, verb: Verb, does: str) -> KeyRole:
    return KeyRole(cap, does, verb)


DIGITS = {str(n): KeyRole(str(n), "a digit of an amount, a seat or a number on the display")
          for n in range(10)}
KEYS: dict[str, KeyRole] = {
    **DIGITS,
    "00": KeyRole("00", "two zeros: 5 00 is 500"),
    "000": KeyRole("000", "three zeros: 12 000 is 12,000"),
    "dot": KeyRole(".", "decimal point, for big blinds: 2.5 BB BET"),
    "plus": KeyRole("+", "ends one chip's value: 5000 + CHIPS is one 5,000 chip (LIVE-8), "
                    "500 + 500 + 500 CHIPS three chips (LIVE-9)"),
    "clear": KeyRole("CLEAR", "clears what is keyed"),
    "back": KeyRole("BACK", "takes back the last key"),
    "bb": KeyRole("BB", "the amount keyed is in big blinds: 3 BB BET"),
    "seat": KeyRole("SEAT", "names the seat: 3 SEAT 500 BET (before a key that takes only a "
                    "seat, 3 FOLD, the number alone is the seat)"),
    "fold": _verb("FOLD", Verb.FOLD, "the player to act folds; 3 FOLD: seat 3, out of turn "
                  "(LIVE-12)"),
    "check": _verb("CHECK", Verb.CHECK, "the player to act checks (3 CHECK: seat 3)"),
    "call": _verb("CALL", Verb.CALL, "the player to act calls (3 CALL: seat 3)"),
    "bet": _verb("BET", Verb.BET, "a bet or raise to the amount keyed: 1200 BET, 3 BB BET; "
                 "BET alone where one size is allowed (fixed limit)"),
    "all_in": _verb("ALL IN", Verb.ALL_IN, "the player to act is all-in (LIVE-1)"),
    "chips": _verb("CHIPS", Verb.CHIPS, "chips pushed without a word: the total, 1500 CHIPS, "
                   "or chip by chip with + (LIVE-7..9)"),
    "show": _verb("SHOW", Verb.SHOW, "the next hand at the showdown is shown (3 SHOW: seat 3)"),
    "muck": _verb("MUCK", Verb.MUCK, "the next hand at the showdown is mucked (3 MUCK: "
                  "seat 3)"),
    "deal": _verb("DEAL", Verb.DEAL, "the deal key: starts the hand, shows the next hand at "
                  "the showdown, pushes the pot"),
    "straddle": _verb("STRADDLE", Verb.STRADDLE, "3 STRADDLE: deals the hand with seat 3's "
                      "straddle, where the house plays them (STRADDLE-1..4)"),
    "undo": _verb("UNDO", Verb.UNDO, "takes back the last action of the street (DEAL-6)"),
    "correct": _verb("CORRECT", Verb.CORRECT, "7 CORRECT CALL: action 7 of the hand's log "
                     "(shown once keyed) was a call; 7 CORRECT 600 BET, 7 CORRECT 3 SEAT FOLD"),
    "misdeal": _verb("MISDEAL", Verb.MISDEAL, "declares a misdeal, where the rules allow one "
                     "(LIVE-25)"),
    "option": _verb("OPTION", Verb.CHOOSE, "2 OPTION: the open prompt's choice 2 (the "
                    "display lists them)"),
    "time_bank": _verb("TIME BANK", Verb.TIME_BANK, "the player on the clock spends a "
                       "time-bank chip (3 TIME BANK: seat 3)"),
    "call_clock": _verb("CLOCK", Verb.CALL_CLOCK, "calls the clock on the player to act "
                        "(CLOCK-1)"),
    "count": _verb("COUNT", Verb.COUNT, "counting an all-in (the clock waits); in a "
                   "colour-up, 3 SEAT 7 COUNT: seat 3 has 7 chips to colour up"),
    "pause": _verb("PAUSE", Verb.PAUSE, "stops the table's clocks, or starts them again"),
    "next_level": _verb("NEXT LEVEL", Verb.NEXT_LEVEL, "moves the level on (from the next "
                        "hand)"),
    "sit_out": _verb("SIT OUT", Verb.SIT_OUT, "3 SIT OUT: seat 3 sits out, or comes back"),
    "button": _verb("BUTTON", Verb.BUTTON, "3 BUTTON: the button starts at seat 3 (before "
                    "the first hand: BTN-1, BTN-4)"),
    "enrol": _verb("ENROL", Verb.ENROL, "starts reading a new deck at the deck reader; "
                   "pressed again, finishes it"),
    "deck": _verb("DECK", Verb.DECK, "2 DECK: play saved deck 2 (the display lists them) "
                  "from the next hand"),
    "colour_up": _verb("COLOUR UP", Verb.COLOUR_UP, "starts a colour-up now (between hands)"),
    "race_card": _verb("RACE CARD", Verb.RACE_CARD, "3 SEAT 14.4 RACE CARD: seat 3's race "
                       "card, keyed when its reader missed it (rank 2-14, ace 14 or 1; "
                       "suit 1-4: c d h s)"),
}
REQUIRED = ("0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "clear", "fold", "check",
            "call", "bet", "deal")
SPARE = ""  # a keycap the map leaves unused

HOW_TO_KEY = """\
How to key (every sequence ends on a command key; what is keyed shows on the dealer's
display, and so does every refusal, with its rule id):

- `1200 BET`, `3 BB BET`, `2.5 BB BET`: a bet or raise to that total; one the rules do
  not allow is refused with its rule (below the minimum BET-3/BET-4, over the stack
  BET-6, over the pot PL-3). In fixed limit, `BET` alone bets the limit.
- `FOLD`, `CHECK`, `CALL`, `ALL IN`: the player to act. `3 FOLD` or `3 SEAT FOLD`: seat 3,
  out of turn (LIVE-12). `3 SEAT 600 BET`: seat 3 bets 600.
- `1500 CHIPS`: chips pushed without a word, the total; `5000 + CHIPS`: one 5,000 chip
  (LIVE-8); `500 + 500 + 500 + 500 CHIPS`: four 500 chips (LIVE-9). The rules say what
  they are (LIVE-7..10).
- `3 STRADDLE`, between hands: seat 3 has put out a straddle, and the hand is dealt with
  it (in place of `DEAL`). The first player left of the big blind, or under a Mississippi
  house the button; one the house or the rules do not allow is refused (STRADDLE-1..6).
- `2 OPTION`: choice 2 of the open prompt; `2 DECK`: saved deck 2; both listed on the
  display.
- `7 CORRECT CALL`, `7 CORRECT 600 BET`: action 7 of the hand's log should have been that
  (after `7 CORRECT` the display shows which action 7 is: BACK to try another number).
- A colour-up: `3 SEAT 7 COUNT` for each seat (7 chips of the colour leaving), then
  `DEAL` as the display asks.
- `BACK` takes back the last key, `CLEAR` all of them.
"""


@dataclass(frozen=True, slots=True)
class KeyMap:
    """One keypad's map: its keycaps row by row and the codes of each key."""

    name: str
    description: str
    source: str
    rows: tuple[tuple[str, ...], ...]  # key names; SPARE where a keycap is unused
    codes: Mapping[str, tuple[str, ...]]  # key -> the evdev code names it may send
    caps: Mapping[str, str]  # key -> the text on its keycap

    def cap(self, key: str) -> str:
        return self.caps.get(key, KEYS[key].cap) if key else ""

    def keys(self) -> tuple[str, ...]:
        """Every key the keypad has, in keycap order."""
        return tuple(dict.fromkeys(k for row in self.rows for k in row if k))

    def by_code(self) -> dict[int, str]:
        """The reader's table: the kernel's key code -> the key's name."""
        return {key_code(code): key for key, codes in self.codes.items() for code in codes}

    def code_of(self, key: str) -> str:
        """The first code ``key`` sends (what a test presses for it)."""
        return self.codes[key][0]


# ---------------------------------------------------------------- loading
def _line(text: str, *needles: str) -> int | None:
    """The first line that holds each needle, in order (tomllib gives no lines)."""
    lines = text.splitlines()
    start = 0
    found = None
    for needle in needles:
        for n in range(start, len(lines)):
            if needle in lines[n].split("#", 1)[0]:
                found, start = n + 1, n
                break
        else:
            return found
    return found


class _Check:
    def __init__(self, text: str, source: str) -> None:
        self.text = text
        self.source = source

    def fail(self, problem: str, fix: str, *where: str) -> KeyMapError:
        return KeyMapError(problem, fix=fix, source=self.source,
                           line=_line(self.text, *where) if where else None)


def _near(name: str, choices: Sequence[str]) -> str:
    near = difflib.get_close_matches(name, choices, n=1)
    return f" (did you mean {near[0]!r}?)" if near else ""


def parse_keymap(text: str, source: str = "<key map>") -> KeyMap:
    """Validate a key map's TOML text; raise :class:`KeyMapError` naming the key and fix."""
    c = _Check(text, source)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"at line (\d+)", str(exc))
        raise KeyMapError(f"not valid TOML ({exc})", fix="correct the syntax on that line",
                          source=source, line=int(m.group(1)) if m else None) from None
    for top in data:
        if top not in ("keypad", "codes", "caps"):
            raise c.fail(f"unknown table [{top}]", "a key map has [keypad], [codes] and "
                         "optionally [caps]", f"[{top}")
    pad = data.get("keypad")
    if not isinstance(pad, dict):
        raise c.fail("[keypad] is missing", 'add [keypad] with name = "...", description = '
                     '"..." and rows = [[...], ...]')
    for key in pad:
        if key not in ("name", "description", "rows"):
            raise c.fail(f"unknown key `{key}` in [keypad]", "remove it; [keypad] takes "
                         "name, description and rows", f"{key}")
    name = pad.get("name")
    if not isinstance(name, str) or not re.fullmatch(r"[a-z0-9][a-z0-9_-]*", name):
        raise c.fail(f"[keypad] name {name!r} is not a lowercase name",
                     'write e.g. name = "dealer-48" (the file\'s name)', "name")
    rows = _rows(c, pad.get("rows"))
    codes = _codes(c, data.get("codes"), rows)
    caps = _caps(c, data.get("caps", {}), rows)
    return KeyMap(name, str(pad.get("description", "")), source, rows, codes, caps)


def _rows(c: _Check, raw: object) -> tuple[tuple[str, ...], ...]:
    fix_rows = 'write rows = [["7", "8", "9", "fold"], ...], one list of key names per row'
    if not isinstance(raw, list) or not raw or not all(isinstance(r, list) for r in raw):
        raise c.fail("[keypad] rows is not a list of rows", fix_rows, "rows =")
    rows: list[tuple[str, ...]] = []
    for number, row in enumerate(raw, start=1):
        if not row or len(row) != len(raw[0]):
            raise c.fail(f"row {number} has {len(row)} keys, row 1 has {len(raw[0])}",
                         'give every row the same number of keycaps ("" for a spare one)',
                         "rows =")
        for key in row:
            if not isinstance(key, str) or (key != SPARE and key not in KEYS):
                raise c.fail(f"row {number}: unknown key {key!r}{_near(str(key), list(KEYS))}",
                             f"use one of {', '.join(KEYS)}, or \"\" for a spare keycap",
                             "rows =", f'"{key}"')
        rows.append(tuple(row))
    present = {k for row in rows for k in row}
    missing = [k for k in REQUIRED if k not in present]
    if missing:
        raise c.fail(f"the keypad has no {', '.join(missing)} key",
                     "a dealer needs the digits, CLEAR, FOLD, CHECK, CALL, BET and DEAL: "
                     "put them on the rows", "rows =")
    return tuple(rows)


def _codes(c: _Check, raw: object, rows: tuple[tuple[str, ...], ...]
           ) -> dict[str, tuple[str, ...]]:
    if not isinstance(raw, dict):
        raise c.fail("[codes] is missing", 'add [codes] with one `key = "KEY_..."` per key')
    present = [k for row in rows for k in row if k]
    codes: dict[str, tuple[str, ...]] = {}
    sent_by: dict[str, str] = {}
    for key, value in raw.items():
        if key not in present:
            where = ("is not a key" + _near(key, list(KEYS)) if key not in KEYS
                     else "is not on the rows")
            raise c.fail(f"[codes] {key!r} {where}", "remove it, or put the key on the rows",
                         "[codes]", f"{key}")
        names = [value] if isinstance(value, str) else value
        if not isinstance(names, list) or not names or not all(
                isinstance(n, str) for n in names):
            raise c.fail(f"[codes] {key} must be a code name or a list of them",
                         f'write {key} = "KEY_..." or {key} = ["KEY_...", "KEY_..."]',
                         "[codes]", f"{key}")
        for code in names:
            try:
                key_code(code)
            except KeyError:
                raise c.fail(f"[codes] {key}: {code!r} is not an evdev key code",
                             "use the name `evtest` prints for the key, e.g. KEY_KP7, KEY_F13",
                             "[codes]", f"{key}") from None
            if code in sent_by:
                raise c.fail(f"[codes] {code} is sent by both {sent_by[code]!r} and {key!r}",
                             "give each key its own code (reprogram one of them)",
                             "[codes]", f"{key}")
            sent_by[code] = key
        codes[key] = tuple(names)
    for key in dict.fromkeys(present):
        if key not in codes:
            raise c.fail(f"key {key!r} is on the rows but [codes] has no code for it",
                         f'add {key} = "KEY_..." to [codes] (what the keycap sends)', "[codes]")
    return codes


def _caps(c: _Check, raw: object, rows: tuple[tuple[str, ...], ...]) -> dict[str, str]:
    if not isinstance(raw, dict):
        raise c.fail("[caps] must be a table", 'write [caps] with key = "TEXT" lines', "caps")
    present = {k for row in rows for k in row if k}
    for key, value in raw.items():
        if key not in present or not isinstance(value, str) or not 0 < len(value) <= 12:
            raise c.fail(f"[caps] {key} = {value!r}: not a key on the rows with a short text",
                         "give a key on the rows and up to 12 characters", "[caps]", f"{key}")
    return dict(raw)


def keymap_path(name_or_path: str | Path) -> Path:
    """``dealer-48`` -> ``hardware/keypads/dealer-48.toml``; a path stays as it is."""
    p = Path(name_or_path)
    return p if p.suffix == ".toml" or p.exists() else KEYMAP_DIR / f"{p.name}.toml"


def load_keymap(name_or_path: str | Path) -> KeyMap:
    """Read and validate a key map by name (the profile's ``[keypad] map``) or path."""
    path = keymap_path(name_or_path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        shipped = ", ".join(p.stem for p in shipped_keymaps())
        raise KeyMapError(f"cannot read key map {path} ({exc.strerror or exc})",
                          fix=f"choose one of {shipped}, or give a path to a .toml file"
                          ) from None
    return parse_keymap(text, str(path))


# ---------------------------------------------------------------- the legend
BEGIN = "<!-- BEGIN GENERATED KEYCAPS (controller/terminal/keymap.py; do not edit by hand) -->"
END = "<!-- END GENERATED KEYCAPS -->"
README = PROFILE_DIR / "README.md"


def legend(keymap: KeyMap) -> str:
    """The keycap legend of one map (markdown): the keycaps as laid out, then each key's
    code and what it does."""
    width = len(keymap.rows[0])
    out = [f"### Keypad `{keymap.name}`", "", keymap.description, ""]
    out += ["| row | " + " | ".join(str(n) for n in range(1, width + 1)) + " |",
            "|---" * (width + 1) + "|"]
    for letter, row in zip("ABCDEFGHIJKL", keymap.rows, strict=False):
        caps = [f"**{keymap.cap(k)}**" if k else "·" for k in row]
        out.append(f"| {letter} | " + " | ".join(caps) + " |")
    out += ["", "| key | sends | what it does |", "|---|---|---|"]
    for key in (k for k in KEYS if k in keymap.codes):  # the digits first
        codes = " ".join(f"`{code}`" for code in keymap.codes[key])
        out.append(f"| {keymap.cap(key)} | {codes} | {KEYS[key].does} |")
    return "\n".join(out) + "\n"


def generated(keymaps: Sequence[KeyMap]) -> str:
    body = "\n".join(legend(k) for k in keymaps)
    return f"{BEGIN}\n\n{HOW_TO_KEY}\n{body}\n{END}"


def render(readme_text: str, keymaps: Sequence[KeyMap]) -> str:
    """The README with its generated legend replaced (appended if it has none yet)."""
    return replace_section(readme_text, generated(keymaps), BEGIN, END)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="pitboss hardware keycaps",
        description="Write the dealer keypad's keycap legend in hardware/README.md from the "
        "key maps in hardware/keypads/.")
    parser.add_argument("--check", action="store_true", help="exit 1 if the README is stale")
    parser.add_argument("--readme", type=Path, default=README, help="README to update")
    args = parser.parse_args(argv)
    keymaps = [load_keymap(path) for path in shipped_keymaps()]
    current = args.readme.read_text(encoding="utf-8") if args.readme.exists() else ""
    return write_or_check(
        args.readme, render(current, keymaps), check=args.check,
        stale="its keycap legend does not match the key maps. Run `pitboss hardware "
              "keycaps`.",
        current=f"{len(keymaps)} key maps")


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
