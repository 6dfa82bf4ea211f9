"""The PHH reader's fast paths give exactly what their references give.

- ``parse_document`` (controller/rules/phh_text.py), line by line for the usual file and
  with regexes beyond it, against ``tomllib.loads(text, parse_float=Decimal)``: on every
  shared file, on texts near the edges of the subset (where it must hand the text to
  tomllib) and on generated ones;
- the action reader's usual shapes (``_read_action``: 'd dh p1 AsKd', 'p2 cbr 300'...)
  against the general reader (``_read_any_action``), including texts that only look usual;
- ``loads(..., fast=True)`` against ``loads(..., fast=False)`` (tomllib), hands and errors.
"""

from __future__ import annotations

import tomllib
from decimal import Decimal
from pathlib import Path, PurePath

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.phh_files import iter_paths
from controller.rules.cards import CardError
from controller.rules.errors import HandHistoryError
from controller.rules.phh import _any_hand, _suffix, _usual_hand, loads
from controller.rules.phh_actions import _read_action, _read_any_action
from controller.rules.phh_text import parse_document


def reference(text: str) -> object:
    """What tomllib reads, or the exception class it raises."""
    try:
        return tomllib.loads(text, parse_float=Decimal)
    except tomllib.TOMLDecodeError:
        return tomllib.TOMLDecodeError


def agrees(text: str) -> None:
    """The fast reader gives tomllib's value, or declines (None) the text."""
    fast = parse_document(text)
    if fast is not None:
        expected = reference(text)
        assert fast == expected, text
        assert repr(fast) == repr(expected), text  # the same types too (int, Decimal, bool)


def test_every_shared_file_reads_as_tomllib_reads_it(shared_dir: Path) -> None:
    for path in iter_paths([shared_dir / "phh"]):
        text = path.read_text(encoding="utf-8")
        fast = parse_document(text)
        assert fast is not None, path  # the usual file stays on the fast path
        assert fast == reference(text) and repr(fast) == repr(reference(text)), path


@pytest.mark.parametrize("line", [
    "antes = [0, 0, 0]", "antes = []", "antes = [007, 1]", "antes = [0, -0]",
    "antes = [+5, 1]", "antes = [1_000, 2]", "antes = [1,2]", "antes = [1, 2,]",
    "antes = [1, , 2]", "antes = [ 1, 2 ]", "antes = [1, 2] # c", "antes = [1.5, 2]",
    "antes = [1e3, 2]", "antes = [\u0663, 1]", "antes = [1,\t2]", "antes = [-1, 2]",
    "antes = [[1, 2], [3]]", "antes = [" + "9" * 40 + "]",
    "hand = 5", "hand = 05", "hand = -0", "hand = +3", "hand = 1_0", "hand = 5 ",
    "hand = \u00a05", "hand = 1979-05-27", "hand = inf", "hand = 0x1f", "hand = 3.0",
    "variant = 'NT'", "variant = \"NT\"", "variant = 'N'T'", "variant = \"N\\tT\"",
    "variant = 'N\tT'", "variant = 'NT' # c", "variant = '''NT'''", "variant = 'é'",
    "variant = 'a\u00a0b'", "variant = 'a\u2028b'",
    "players = ['a', 'b']", "players = ['a','b']", "players = ['a', \"b\"]",
    "players = ['a', 'b', ]", "players = ['it''s']", "players = ['a\tb', 'c']",
    "players = ['']", "players = []",
    "ante_trimming_status = true", "ante_trimming_status = True",
    "ante_trimming_status = truex",
    "[1]", "[ 1 ]", "[1] # c", "[[1]]", "[a.b]", "[1]x",
    "# just a comment", "#\u0001", "", "  ", "\t", "x = 1", "_rake = {kind = 'brackets'}",
    "antes = [0, 0]\r", "hand = 1\r",
])
def test_lines_near_the_edges_of_the_subset(line: str) -> None:
    for text in (line, line + "\n", f"variant = 'NT'\n{line}\nhand = 2\n",
                 f"{line}\r\n[2]\nhand = 1", f"{line}\n{line}"):
        agrees(text)


_WORDS = st.sampled_from([
    "variant", "antes", "hand", "players", "actions", "seats", "x", "_rake", "1", "2",
])
_VALUES = st.sampled_from([
    "0", "1", "-1", "+1", "01", "1_0", "1.5", "2.0", "1e3", "true", "false", "'NT'",
    '"NT"', "'a b'", '"a\\"b"', "[0, 0]", "[1, 2, 3]", "[]", "['p1 f', 'p2 cc']",
    "['a','b']", "[1,2]", "[1, 2,]", "[[1], [2, 3]]", "{kind = 'x', n = 1}", "inf",
    "1979-05-27", "'é'", "'\u00a0'",
])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["kv", "header", "comment", "blank"]), _WORDS,
                          _VALUES, st.sampled_from([" = ", "=", " =  "]),
                          st.sampled_from(["", " # c", " ", "\t"])), max_size=8),
       st.sampled_from(["\n", "\r\n"]))
def test_generated_documents_read_as_tomllib_reads_them(
        lines: list[tuple[str, str, str, str, str]], end: str) -> None:
    out = []
    for kind, key, value, equals, tail in lines:
        if kind == "kv":
            out.append(f"{key}{equals}{value}{tail}")
        elif kind == "header":
            out.append(f"[{key}]{tail}")
        elif kind == "comment":
            out.append(f"#{tail}")
        else:
            out.append(tail)
    agrees(end.join(out))


@pytest.mark.parametrize("text", [
    "d dh p1 AsKd", "d dh p10 ????", "d dh p1 ??Kd", "d dh p1 AsKdQhJc", "d db AsKd7c",
    "d db 7c", "p1 cbr 300", "p2 cbr 0", "p2 cbr 007", "p1 cbr 1.5", "p1 cbr -5",
    "p1 cbr " + "9" * 25, "p1 sm AsKd", "p1 sm -", "p1 sm", "p1 sd 7c", "p1 sd",
    "p1 f", "p1 cc", "p1 pb", "d dh p0 AsKd", "d dh p01 AsKd", "d dh q1 AsKd",
    "d dh p1 AsK", "d dh p1 AsKx", "d dh p1 AsKd\t", "d dh p1 AsKd ", " d dh p1 AsKd",
    "d dh  p1 AsKd", "d dh p1 As\u00a0Kd", "d dh p1 AsKd # read late", "d cbr 5",
    "p1 cbr 5 # big", "x1 cbr 5", "p\u0661 cbr 5", "p1 cbr \u0665", "p1 sm As\tKd",
    "d db", "d dh p1", "", "# only a comment", "p1 f now", "d db AsKd7c extra",
    "p1 sm ah", "d dh p1 asKD",
    # the bare actions (a table of p1..p10) and the players around its edges
    "p1 f", "p10 cc", "p11 f", "p99 pb", "p100 f", "p1 sm", "p10 sd", "p1 F", "p1 f ",
    " p1 f", "p1  f", "p1\tf", "p1 fold", "p3 cbr 225", "p10 cbr 1", "p100 cbr 5",
    "d dh p11 AsKd", "d dh p99 ??", "d dh p1 ????", "d dh p1 AsKdQhJc", "d db 7h8h9c",
    "d db 7h8h9", "d db ??", "d dh p1 ♠A", "d dh p1 A♠K♥", "p1 sm -",
    "p2 sm AsKd", "p2 sd AsKdQh", "d dh p1 10h", "d db 10h9c8d",
])
def test_the_usual_action_shapes_read_as_the_general_reader_reads_them(text: str) -> None:
    def read(reader: object) -> object:
        try:
            return reader(text)  # type: ignore[operator]
        except (HandHistoryError, CardError) as e:
            return type(e), str(e)

    fast, general = read(_read_action), read(_read_any_action)
    assert fast == general, text
    if not isinstance(fast, tuple) or fast[0] is not HandHistoryError:
        assert repr(fast) == repr(general), text  # the same fields, text included


HEADER = """variant = 'NT'
antes = [0, 0, 0]
blinds_or_straddles = [1, 2, 0]
min_bet = 2
starting_stacks = [200, 200, 200]
"""


@pytest.mark.parametrize("tail", [
    "actions = ['d dh p1 AsKd', 'd dh p2 7c7d', 'd dh p3 2h3h', 'p3 f', 'p1 cc', 'p2 cc']",
    "actions = ['p1 cbr 2.5']",
    "actions = ['d dh p1 AsKd', 'p1 sm -']",
    "actions = ['p4 f']",
    "actions = ['p1 xx']",
    "actions = [1]",
    "actions = []\nfinishing_stacks = [199.5, 200.5, 200]",
    "actions = []\nfinishing_stacks = [199, 201, 200]\nwinnings = [0, 1, 0]",
    "actions = []\nseats = [1, 2, 3]\nplayers = ['a', 'b', 'c']\nseat_count = 9",
    "actions = []\nantes = [1, 1, 1]",
])
def test_fast_and_tomllib_readings_give_the_same_hands_and_errors(tail: str) -> None:
    def read(fast: bool) -> object:
        try:
            return loads(HEADER + tail, "t.phh", fast=fast)
        except HandHistoryError as e:
            return str(e)

    assert read(True) == read(False)


@pytest.mark.parametrize("name", [
    "a/b.phh", "b.phhs", "/x/.phh", "a.", "a/b/", "x.tar.gz", "a.b/c", "..", "a/..", ".", "",
    "dir.x/file", "a/b.phh/", "a\\b.phh", "a/.b.phh",
])
def test_the_suffix_is_pathlibs(name: str) -> None:
    assert _suffix(name) == PurePath(name).suffix


def test_every_shared_hand_reads_as_the_general_reader_reads_it(shared_dir: Path) -> None:
    general = 0
    for path in iter_paths([shared_dir / "phh"]):
        doc = parse_document(path.read_text(encoding="utf-8"))
        assert doc is not None
        tables = [doc] if "variant" in doc else list(doc.values())
        for table in tables:
            assert isinstance(table, dict)
            usual = _usual_hand(table, str(path))
            if usual is None:  # decimal amounts, 'sm -'... (the general reader's)
                general += 1
                continue
            assert usual == _any_hand(table, str(path)), path
            assert repr(usual) == repr(_any_hand(table, str(path))), path
    assert general <= 3  # nearly every hand stays on the fast path (3 of 2,529 do not)


@pytest.mark.parametrize("change", [
    {}, {"antes": [1, 0, 0]}, {"antes": [-1, 0, 0]}, {"antes": [True, 0, 0]},
    {"antes": [Decimal("0.5"), 0, 0]}, {"antes": (0, 0, 0)}, {"antes": [0, 0]},
    {"starting_stacks": [200, 200]}, {"starting_stacks": []}, {"blinds_or_straddles": None},
    {"blinds_or_straddles": [1, 2]}, {"min_bet": Decimal("2.5")}, {"min_bet": True},
    {"min_bet": -2}, {"min_bet": None}, {"small_bet": 2, "big_bet": 4},
    {"finishing_stacks": [199, 201, 200]}, {"finishing_stacks": [Decimal("199.5"), 200, 200]},
    {"finishing_stacks": [-1, 201, 200]}, {"winnings": [0, 1, 0]}, {"winnings": "x"},
    {"players": ["a", "b", "c"]}, {"players": ["a", 2, "c"]}, {"players": "abc"},
    {"seats": [1, 2, 3]}, {"seats": [1, "2", 3]}, {"seat_count": 9}, {"seat_count": "9"},
    {"ante_trimming_status": True}, {"ante_trimming_status": 1}, {"variant": "FT"},
    {"variant": "NS"}, {"variant": "XX"}, {"variant": 5}, {"actions": "p1 f"},
    {"actions": ["p4 f"]}, {"actions": ["p1 cbr 2.5"]}, {"actions": [1]},
    {"actions": ["d dh p1 AsKd", "p1 sm -"]}, {"actions": ["p1 xx"]}, {"hand": 7},
    {"_rake": {"kind": "percentage"}},
])
def test_the_usual_hand_reads_as_the_general_reader_reads_it(change: dict[str, object]
                                                             ) -> None:
    table: dict[str, object] = {
        "variant": "NT", "antes": [0, 0, 0], "blinds_or_straddles": [1, 2, 0], "min_bet": 2,
        "starting_stacks": [200, 200, 200],
        "actions": ["d dh p1 AsKd", "d dh p2 7c7d", "d dh p3 2h3h", "p3 f", "p1 cc", "p2 cc"]}
    table.update(change)
    table = {k: v for k, v in table.items() if v is not None}

    def general() -> object:
        try:
            return _any_hand(table, "t")
        except HandHistoryError as e:
            return str(e)

    try:
        usual = _usual_hand(table, "t")
    except HandHistoryError:
        usual = None  # the general reader says what is wrong
    if usual is not None:
        assert usual == general() and repr(usual) == repr(general())
