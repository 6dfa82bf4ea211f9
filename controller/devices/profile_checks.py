"""Checking a board profile's TOML: each error names the file, the line, what is wrong
and how to fix it. ``tomllib`` gives no line numbers for values, so :class:`SourceLines`
finds the line of a key or table itself."""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from typing import Any

from . import pins
from .errors import ProfileError

Path_ = tuple[str | int, ...]


# ---------------------------------------------------------------- finding lines
_HEADER = re.compile(r"^\s*(\[\[?)\s*([A-Za-z0-9_.\-\" ]+?)\s*\]\]?\s*(#.*)?$")
_KEY = re.compile(r"^\s*([A-Za-z0-9_\-]+)\s*=")
_INLINE_KEY = re.compile(r"([A-Za-z0-9_\-]+)\s*=")


class SourceLines:
    """Line numbers of tables and keys in TOML text, addressed like the parsed data."""

    def __init__(self, text: str) -> None:
        self.index: dict[Path_, int] = {}
        counts: dict[Path_, int] = {}
        table: Path_ = ()
        for lineno, raw in enumerate(text.splitlines(), start=1):
            line = raw.split("#", 1)[0] if '"' not in raw else raw
            header = _HEADER.match(line)
            if header:
                parts: Path_ = tuple(p.strip().strip('"') for p in header.group(2).split("."))
                if header.group(1) == "[[":
                    n = counts.get(parts, 0)
                    counts[parts] = n + 1
                    parts = (*parts, n)
                table = parts
                self.index.setdefault(table, lineno)
                continue
            key = _KEY.match(line)
            if key:
                path = (*table, key.group(1))
                self.index.setdefault(path, lineno)
                rest = line[key.end() :]
                if rest.strip().startswith("{"):
                    for sub in _INLINE_KEY.finditer(rest):
                        self.index.setdefault((*path, sub.group(1)), lineno)

    def line_of(self, path: Path_) -> int | None:
        """The line of ``path``, or of its nearest enclosing key or table."""
        for end in range(len(path), 0, -1):
            if path[:end] in self.index:
                return self.index[path[:end]]
        return None


def dotted(path: Path_) -> str:
    """``seat[2].reader`` from a data path."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out


# ---------------------------------------------------------------- the checker
class ProfileChecker:
    """Reads values out of parsed profile data, raising a :class:`ProfileError` that
    points at the line."""

    def __init__(self, text: str, source: str) -> None:
        self.lines = SourceLines(text)
        self.source = source

    def fail(self, path: Path_, problem: str, fix: str) -> ProfileError:
        return ProfileError(problem, fix=fix, source=self.source, line=self.lines.line_of(path))

    def line(self, path: Path_) -> int:
        return self.lines.line_of(path) or 0

    def key_lines(self, data: Mapping[str, Any], path: Path_) -> tuple[tuple[str, int], ...]:
        """(key, line) for each key of the table at ``path``, for errors found later."""
        return tuple((key, self.line((*path, key))) for key in data)

    def table(self, data: Mapping[str, Any], key: str, path: Path_) -> dict[str, Any]:
        value = data.get(key)
        if value is None:
            raise self.fail(
                path, f"[{dotted((*path, key))}] is missing", ADD_HINTS.get(key, "add it")
            )
        if not isinstance(value, dict):
            raise self.fail(
                (*path, key),
                f"{dotted((*path, key))} must be a table",
                "write it as `key = { ... }` or a [table]",
            )
        return value

    def only(
        self, data: Mapping[str, Any], allowed: tuple[str, ...], path: Path_, what: str
    ) -> None:
        for key in data:
            if key not in allowed:
                near = difflib.get_close_matches(key, allowed, n=1)
                hint = (
                    f"did you mean `{near[0]}`?" if near else f"{what} takes: {', '.join(allowed)}"
                )
                raise self.fail(
                    (*path, key), f"unknown key `{key}` in {what}", f"remove it; {hint}"
                )

    def kind(self, data: Mapping[str, Any], kinds: tuple[str, ...], path: Path_, what: str) -> str:
        if "kind" not in data:
            raise self.fail(
                path, f"{what} has no `kind`", f'add `kind = "..."`, one of {", ".join(kinds)}'
            )
        kind = data["kind"]
        if kind not in kinds:
            near = difflib.get_close_matches(str(kind), kinds, n=1)
            hint = f' (did you mean "{near[0]}"?)' if near else ""
            raise self.fail(
                (*path, "kind"),
                f"unknown {what} kind {kind!r}",
                f"use one of {', '.join(kinds)}{hint}",
            )
        return str(kind)

    def integer(
        self,
        data: Mapping[str, Any],
        key: str,
        path: Path_,
        what: str,
        *,
        required: bool = True,
        lo: int | None = None,
        hi: int | None = None,
    ) -> int | None:
        if key not in data:
            if required:
                raise self.fail(path, f"{what} has no `{key}`", f"add `{key} = <number>`")
            return None
        value = data[key]
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(
                (*path, key),
                f"{what} `{key}` must be a whole number, not {value!r}",
                f"write e.g. `{key} = {lo if lo is not None else 1}`",
            )
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            raise self.fail(
                (*path, key),
                f"{what} `{key}` = {value} is out of range {lo}..{hi}",
                f"use a value from {lo} to {hi}",
            )
        return value

    def gpio(
        self, data: Mapping[str, Any], key: str, path: Path_, what: str, *, required: bool = True
    ) -> int | None:
        pin = self.integer(data, key, path, what, required=required)
        if pin is not None and pin not in pins.GPIO_RANGE:
            raise self.fail(
                (*path, key),
                f"{what} `{key}` = {pin} is not a usable BCM GPIO",
                "use GPIO 2..27 (0 and 1 belong to the HAT ID EEPROM)",
            )
        return pin

    def text(
        self,
        data: Mapping[str, Any],
        key: str,
        path: Path_,
        what: str,
        choices: tuple[str, ...] = (),
    ) -> str:
        if key not in data:
            hint = f" (one of {', '.join(choices)})" if choices else ""
            raise self.fail(path, f"{what} has no `{key}`", f'add `{key} = "..."`{hint}')
        value = data[key]
        if not isinstance(value, str) or (choices and value not in choices):
            raise self.fail(
                (*path, key),
                f"{what} `{key}` = {value!r} is not valid",
                f"use one of {', '.join(choices)}" if choices else "write a string",
            )
        return value


ADD_HINTS = {
    "table": '[table] with name = "...", seats = N',
    "muck": 'add a [muck] reader, e.g. `kind = "pn532"`, `bus = "i2c1"`',
    "deck": 'add a [deck] reader, e.g. `kind = "pn532"`, `bus = "i2c3"`',
    "blinds_display": 'add [blinds_display] with kind = "ssd1306", bus = "i2c1", address = 0x3C',
    "shot_clock": 'add [shot_clock] with kind = "max7219", bus = "spi0", cs = 0',
    "buzzer": 'add [buzzer] with kind = "gpio", pin = <GPIO>',
    "keys": "add [keys] with one `name = <GPIO>` per dealer console key",
}
