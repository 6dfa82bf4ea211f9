"""A fast reader for the TOML that PHH files are written in (the :mod:`tomllib` subset).

PHH is a TOML dialect, and :mod:`tomllib` reads it correctly but slowly: it spends most
of ``pitboss replay``'s time on a corpus walking arrays of short strings and numbers one
character class at a time. :func:`parse_document` reads the part of TOML that PHH files
use, mostly with one regular expression per line or per array:

- ``key = value`` lines with bare keys, and ``[table]`` headers with a bare key (the
  hands of a ``.phhs``);
- strings, basic (``"..."``, the escapes ``\\" \\\\ \\b \\t \\n \\f \\r \\uXXXX
  \\UXXXXXXXX``) and literal (``'...'``), on one line;
- decimal integers and decimals (exponents allowed, no underscores): integers as ``int``,
  the rest as :class:`~decimal.Decimal`, as ``tomllib.loads(text, parse_float=Decimal)``
  gives them;
- ``true`` and ``false``;
- arrays of the above, nested or not, over several lines, with comments in between;
- inline tables ``{key = value, ...}`` with bare keys (the ``_rake`` and ``_rules`` user
  fields a table writes);
- comments, blank lines, ``\\n`` or ``\\r\\n`` line ends.

Anything else (dates and times, ``inf``/``nan``, hex, underscores in numbers, multi-line
strings, quoted or dotted keys, arrays of tables, a key given twice, a stray control
character...) makes it return ``None``, and the caller reads the text with ``tomllib``.
``tomllib`` stays the reference: every text this reader accepts gives exactly the value
``tomllib`` gives (tests hold it to that over the shared corpus and generated texts), and
every error message still comes from ``tomllib``, so a bad file is described as well as
before. A text it declines costs one failed pass and is then read as before.

:func:`toml_value` and :func:`toml_key` write values and keys back as TOML (for
:func:`controller.rules.phh.dumps`).
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import Final

from controller.rules.errors import HandHistoryError

Value = object  # str | int | Decimal | bool | list[Value] | dict[str, Value]
_Parsed = tuple[Value, int]  # a value and the position after it

# Control characters are errors everywhere in TOML except a tab (and a line end): such a
# text goes to tomllib, which says where the character is.
_ILLEGAL: Final = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_BLANK_LINES: Final = re.compile(r"(?:[ \t]*(?:#[^\n]*)?\n)*[ \t]*")
_LINE_END: Final = re.compile(r"[ \t]*(?:#[^\n]*)?(?:\n|\Z)")
_KEY_EQUALS: Final = re.compile(r"([A-Za-z0-9_-]+)[ \t]*=[ \t]*")
_HEADER: Final = re.compile(r"\[[ \t]*([A-Za-z0-9_-]+)[ \t]*\][ \t]*(?:#[^\n]*)?(?:\n|\Z)")
_ARRAY_SPACE: Final = re.compile(r"(?:[ \t\n]|#[^\n]*)*")
_INLINE_SPACE: Final = re.compile(r"[ \t]*")
_LITERAL: Final = re.compile(r"'([^'\n]*)'")
_ESCAPE: Final = r'\\(?:["\\btnfr]|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8})'
_BASIC: Final = re.compile(rf'"((?:[^"\\\n]|{_ESCAPE})*)"')
_ESCAPES: Final = re.compile(_ESCAPE)
_NUMBER: Final = re.compile(r"[+-]?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")
# What may follow a scalar: anything else (``1979-05-27``, ``0x1f``, ``1_000``, ``truex``)
# is outside the subset.
_AFTER_SCALAR: Final = frozenset(" \t\n#,]}")

# Whole flat arrays in one match: the lines of a PHH file are mostly these.
_SPACE = r"[ \t\n]*"
_INT = r"[+-]?(?:0|[1-9][0-9]*)"
_NUM = _INT + r"(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?"
_STR = r"""(?:'[^'\n]*'|"[^"\\\n]*")"""
_FLAT_NUMBERS: Final = re.compile(
    rf"\[{_SPACE}(?:({_NUM}(?:{_SPACE},{_SPACE}{_NUM})*){_SPACE},?{_SPACE})?\]")
_FLAT_STRINGS: Final = re.compile(
    rf"\[{_SPACE}(?:({_STR}(?:{_SPACE},{_SPACE}{_STR})*){_SPACE},?{_SPACE})?\]")
_NOT_PLAIN: Final = object()
_BARE_KEY: Final = re.compile(r"[A-Za-z0-9_-]+")
# Keys that need no check: every field of the PHH spec a file is likely to hold.
_PLAIN_KEYS: Final = frozenset({
    "variant", "ante_trimming_status", "antes", "blinds_or_straddles", "bring_in",
    "small_bet", "big_bet", "min_bet", "starting_stacks", "actions", "author", "event",
    "url", "address", "city", "region", "postal_code", "country", "time", "time_zone",
    "time_zone_abbreviation", "day", "month", "year", "hand", "level", "seats",
    "seat_count", "table", "players", "finishing_stacks", "winnings", "currency",
    "currency_symbol", "time_limit", "time_banks", "_rake_taken"})
_STRING_ITEM: Final = re.compile(r"""'([^'\n]*)'|"([^"\\\n]*)\"""")
_SIMPLE_ESCAPES: Final = {'\\"': '"', "\\\\": "\\", "\\b": "\b", "\\t": "\t", "\\n": "\n",
                          "\\f": "\f", "\\r": "\r"}


class _Outside(Exception):
    """The text leaves the subset: tomllib reads it (and reports any error)."""


def parse_document(text: str) -> dict[str, Value] | None:
    """The TOML document ``text`` as ``tomllib.loads(text, parse_float=Decimal)`` gives it,
    or ``None`` when the text uses TOML beyond the subset above (ask tomllib then)."""
    if "\r" in text:
        text = text.replace("\r\n", "\n")  # a lone carriage return is left for tomllib
    doc = _plain_document(text)
    if doc is not None:
        return doc
    if _ILLEGAL.search(text):
        return None
    try:
        return _document(text)
    except _Outside:
        return None


def _plain_document(text: str) -> dict[str, Value] | None:
    """The document when every line is written the usual way (a PHH file as its writers
    write it): ``key = value`` with a key of :data:`_PLAIN_KEYS` and a value read by
    string methods (:func:`_plain_value`, :func:`_numbers`), ``[table]`` headers, comments
    and blank lines. None for anything else: :func:`_document` reads it then (one line at
    a time, with regexes).

    A string or comment with a control character (a tab too) is not printable: it leaves
    this path, and :func:`parse_document` checks it for the characters TOML forbids."""
    if "\r" in text:
        return None  # a carriage return not before a line end: tomllib says where
    root: dict[str, Value] = {}
    table = root
    plain_keys, not_plain, plain_value, numbers = _PLAIN_KEYS, _NOT_PLAIN, _plain_value, _numbers
    for line in text.split("\n"):
        key, equals, raw = line.partition(" = ")
        if equals and key in plain_keys:
            if raw[:1] != "[":
                value: Value = plain_value(raw)
                if value is not_plain or not raw.isprintable():
                    return None
            elif raw[1:2] == "'":  # literal strings: the actions, the players
                items = raw[2:-2].split("', '")
                if (raw[-2:] != "']" or raw.count("'") != 2 * len(items)
                        or not raw.isprintable()):
                    return None
                value = items
            else:  # amounts
                value = numbers(raw)
                if value is None:
                    return None
            if key in table:
                return None
            table[key] = value
        elif not line or line[0] == "#":
            if line and not line.isprintable():
                return None
        elif line[0] == "[" and line.isprintable():
            header = _HEADER.fullmatch(line)
            if header is None or header[1] in root:
                return None
            table = root[header[1]] = {}
        else:
            return None
    return root


# JSON's scanner (C) reads an array of numbers as TOML does: the same digits, signs and
# exponents, no leading zeros, no '+', no '_' (Decimal for a number with a fraction or an
# exponent, as parse_float=Decimal gives it). Whatever else JSON reads (strings, true,
# null, nesting, NaN as a float) is not a number of this path, and its white space is
# TOML's within a line (a carriage return never gets here).
_SCAN_JSON: Final[Callable[[str, int], tuple[object, int]]] = json.JSONDecoder(
    parse_float=Decimal).scan_once  # type: ignore[attr-defined]  # set by its __init__
_NUMBER_TYPES: Final = frozenset({int, Decimal})


def _numbers(raw: str) -> list[Value] | None:
    """The array of numbers ``raw`` (``[100, 0, 2.5]``, nothing after it), else None."""
    try:
        value, end = _SCAN_JSON(raw, 0)
    except (StopIteration, ValueError):  # no JSON, or a number beyond int()'s digits
        return None
    if end != len(raw) or type(value) is not list or not _NUMBER_TYPES.issuperset(
            map(type, value)):
        return None
    return value  # a list of int and Decimal: checked just above


def _document(text: str) -> dict[str, Value]:
    root: dict[str, Value] = {}
    table = root
    pos, end = 0, len(text)
    find = text.find
    while pos < end:
        stop = find("\n", pos)
        if stop < 0:
            stop = end
        line = text[pos:stop]
        if not line or line[0] == "#":
            pos = stop + 1
            continue
        key, equals, raw = line.partition(" = ")
        value = _plain_value(raw) if equals and key in _PLAIN_KEYS else _NOT_PLAIN
        if value is not _NOT_PLAIN:  # the usual line: one regex at most
            pos = stop + 1
        elif line[0] == "[":
            header = _HEADER.match(text, pos)
            if header is None or header[1] in root:
                raise _Outside  # [[array of tables]], [dotted.key], a table given twice
            table = root[header[1]] = {}
            pos = header.end()
            continue
        else:  # anything else that is TOML: a value over several lines, comments...
            blank = _BLANK_LINES.match(text, pos)
            assert blank is not None  # it matches "" at worst
            pos = blank.end()
            if pos >= end:
                break
            if text[pos] == "#":  # a last comment without a line end
                pos = _line_end(text, pos)
                continue
            m = _KEY_EQUALS.match(text, pos)
            if m is None:
                raise _Outside  # a quoted or dotted key, or not a key at all
            key = m[1]
            value, pos = _value(text, m.end())
            pos = _line_end(text, pos)
        if key in table:
            raise _Outside  # a key given twice
        table[key] = value
    return root


def _line_end(text: str, pos: int) -> int:
    """The position after the comment and line end that must follow a value at ``pos``."""
    m = _LINE_END.match(text, pos)
    if m is None:
        raise _Outside
    return m.end()


def _plain_value(raw: str) -> Value:
    """The value of a line written the usual way (``antes = [0, 0]``, ``variant = 'NT'``,
    no comment), or ``_NOT_PLAIN``; cheap string checks first, a regex where needed."""
    first, last = raw[:1], raw[-1:]
    if first == "'":
        return raw[1:-1] if last == "'" and raw.count("'") == 2 else _NOT_PLAIN
    if first == '"':
        plain = last == '"' and raw.count('"') == 2 and "\\" not in raw
        return raw[1:-1] if plain else _NOT_PLAIN
    if first == "[":
        if raw[:2] == "['" and raw[-2:] == "']":  # literal strings: no escapes, no quote
            items = raw[2:-2].split("', '")
            return items if raw.count("'") == 2 * len(items) else _NOT_PLAIN
        numbers = _numbers(raw)
        return _NOT_PLAIN if numbers is None else numbers
    if raw == "true" or raw == "false":
        return raw == "true"
    try:
        number = int(raw)
    except ValueError:
        return _NOT_PLAIN
    return number if str(number) == raw else _NOT_PLAIN


def _value(text: str, pos: int) -> _Parsed:
    """The value starting at ``pos`` and the position just after it."""
    first = text[pos:pos + 1]
    if first == "'":
        m = _LITERAL.match(text, pos)
        if m is None:
            raise _Outside  # a multi-line literal string, or no closing quote
        return m[1], m.end()
    if first == '"':
        m = _BASIC.match(text, pos)
        if m is None:
            raise _Outside
        body = m[1]
        return (_unescape(body) if "\\" in body else body), m.end()
    if first == "[":
        return _array(text, pos)
    if first == "{":
        return _inline_table(text, pos)
    if text.startswith("true", pos):
        return True, _scalar_end(text, pos + 4)
    if text.startswith("false", pos):
        return False, _scalar_end(text, pos + 5)
    m = _NUMBER.match(text, pos)
    if m is None:
        raise _Outside  # inf, nan, a date... or not a value: tomllib says which
    end = _scalar_end(text, m.end())
    if m[1] is None and m[2] is None:
        return int(m[0]), end
    return Decimal(m[0]), end


def _scalar_end(text: str, pos: int) -> int:
    if pos < len(text) and text[pos] not in _AFTER_SCALAR:
        raise _Outside
    return pos


def _unescape(body: str) -> str:
    def one(m: re.Match[str]) -> str:
        escape = m[0]
        simple = _SIMPLE_ESCAPES.get(escape)
        if simple is not None:
            return simple
        code = int(escape[2:], 16)
        if 0xD800 <= code <= 0xDFFF or code > 0x10FFFF:
            raise _Outside  # not a Unicode scalar value: tomllib's error
        return chr(code)

    return _ESCAPES.sub(one, body)


def _array(text: str, pos: int) -> _Parsed:
    m = _FLAT_NUMBERS.match(text, pos)
    if m is not None:
        items = m[1]
        if items is None:
            return [], m.end()
        parts = items.split(",")
        try:
            return [int(p) for p in parts], m.end()  # the regex let no '_' through
        except ValueError:
            return [_number(p.strip(" \t\n")) for p in parts], m.end()
    m = _FLAT_STRINGS.match(text, pos)
    if m is not None:
        items = m[1]
        if items is None:
            return [], m.end()
        return [a or b for a, b in _STRING_ITEM.findall(items)], m.end()
    return _mixed_array(text, pos)


def _number(part: str) -> int | Decimal:
    if any(c in part for c in ".eE"):
        return Decimal(part)
    return int(part)


def _mixed_array(text: str, pos: int) -> _Parsed:
    """An array the flat patterns do not cover: comments, escapes, nesting, mixed types."""
    space = _ARRAY_SPACE.match
    out: list[Value] = []
    pos = space(text, pos + 1).end()  # type: ignore[union-attr]
    while text[pos:pos + 1] != "]":
        value, pos = _value(text, pos)
        out.append(value)
        pos = space(text, pos).end()  # type: ignore[union-attr]
        if text[pos:pos + 1] == ",":
            pos = space(text, pos + 1).end()  # type: ignore[union-attr]
        elif text[pos:pos + 1] != "]":
            raise _Outside
    return out, pos + 1


def _inline_table(text: str, pos: int) -> _Parsed:
    """``{key = value, ...}`` on one line, bare keys, no trailing comma (TOML 1.0)."""
    space = _INLINE_SPACE.match
    out: dict[str, Value] = {}
    pos = space(text, pos + 1).end()  # type: ignore[union-attr]
    if text[pos:pos + 1] == "}":
        return out, pos + 1
    while True:
        m = _KEY_EQUALS.match(text, pos)
        if m is None or m[1] in out:
            raise _Outside
        out[m[1]], pos = _value(text, m.end())
        pos = space(text, pos).end()  # type: ignore[union-attr]
        sep = text[pos:pos + 1]
        if sep == "}":
            return out, pos + 1
        if sep != ",":
            raise _Outside
        pos = space(text, pos + 1).end()  # type: ignore[union-attr]


# ---------------------------------------------------------------- writing


_WRITE_ESCAPES: Final = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n",
                   "\f": "\\f", "\r": "\\r"}


#: what a TOML basic string must escape: the quote, the backslash and control characters
_NEEDS_ESCAPE: Final = re.compile(r'["\\\x00-\x1f\x7f]')


def _toml_str(text: str) -> str:
    if _NEEDS_ESCAPE.search(text) is None:  # nearly every string: as it is
        return '"' + text + '"'
    return '"' + "".join(
        _WRITE_ESCAPES.get(c) or (f"\\u{ord(c):04x}" if ord(c) < 0x20 or ord(c) == 0x7F else c)
        for c in text) + '"'


def toml_key(key: str) -> str:
    """``key`` as a TOML key: bare where it can be, else quoted."""
    return key if _BARE_KEY.fullmatch(key) else _toml_str(key)


def toml_value(value: object) -> str:
    """``value`` as TOML text (Decimals exactly, never through binary floats)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return _toml_str(value)
    if isinstance(value, Decimal):
        if not value.is_finite():
            return "nan" if value.is_nan() else ("-inf" if value < 0 else "inf")
        text = str(value)
        return text if any(c in text for c in ".Ee") else text + ".0"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, dt.time) and value.tzinfo is not None:
        raise HandHistoryError(f"TOML has no time of day with an offset: {value!r}")
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, list | tuple):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{toml_key(str(k))} = {toml_value(v)}"
                               for k, v in value.items()) + "}"
    raise HandHistoryError(f"cannot write {value!r} ({type(value).__name__}) as a TOML value")


__all__ = ["parse_document", "toml_key", "toml_value"]
