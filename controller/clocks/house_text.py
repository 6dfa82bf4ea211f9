"""Reading a house file's text: the error that names the file, the line, the field and the
rule, and where a key is written (tomllib gives no line numbers, so :func:`line_of` scans
table headers and ``key =`` lines; TOML's other forms of the same key, dotted or inline,
fall back to the table's header line). Used by :mod:`controller.clocks.house`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from controller.rules.errors import ConfigError


class HouseError(ConfigError):
    """A house file that cannot be played: the message names the file, line and field."""

    def __init__(self, reason: str, rule: str | None = None, *, field: str = "",
                 line: int | None = None, source: str = "house file") -> None:
        self.field = field
        self.line = line
        self.source = source
        where = source + (f" line {line}" if line else "") + (f": {field}" if field else "")
        super().__init__(f"{where}: {reason}", rule)


_HEADER = re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
_KEY = re.compile(r"""^\s*("[^"]*"|'[^']*'|[A-Za-z0-9_.-]+)\s*=""")


def _parts(dotted: str) -> tuple[str, ...]:
    """``a."b.c".d`` -> ("a", "b.c", "d")."""
    return tuple(p.strip().strip("\"'") for p in
                 re.findall(r"""("[^"]*"|'[^']*'|[^.\s]+)""", dotted))


def line_of(text: str, path: Sequence[str]) -> int | None:
    """The 1-based line where the key ``path`` (table names then the key) is written, or
    the line of its table's header, or None."""
    table: tuple[str, ...] = ()
    header: int | None = None
    want_table, want_key = tuple(path[:-1]), path[-1] if path else ""
    for number, line in enumerate(text.splitlines(), 1):
        if (m := _HEADER.match(line)) is not None and "=" not in line.split("]")[0]:
            table = _parts(m.group(1))
            if table == tuple(path):
                return number
            if table == want_table and header is None:
                header = number
            continue
        if (m := _KEY.match(line)) is not None:
            key = _parts(m.group(1))
            if table + key == tuple(path) or (table == want_table and key == (want_key,)):
                return number
    return header


class HouseReader:
    """Reads one house file's data, naming field and line in every error."""

    def __init__(self, data: Mapping[str, Any], text: str, source: str) -> None:
        self.data, self.text, self.source = data, text, source

    def fail(self, path: Sequence[str], reason: str, rule: str | None = None) -> HouseError:
        return HouseError(reason, rule, field=".".join(path),
                          line=line_of(self.text, path), source=self.source)

    def table(self, name: str) -> Mapping[str, Any]:
        value = self.data.get(name, {})
        if not isinstance(value, Mapping):
            raise self.fail([name], f"must be a table ([{name}]), not {value!r}")
        return value

    def known(self, path: Sequence[str], table: Mapping[str, Any], keys: Sequence[str]) -> None:
        for key in table:
            if key not in keys:
                raise self.fail([*path, key], "unknown key; the keys here are "
                                + ", ".join(keys))

    def choice(self, path: Sequence[str], value: Any, choices: Sequence[str],
               rule: str | None = None) -> str:
        if value not in choices:
            raise self.fail(path, f"cannot be {value!r}; choose one of {', '.join(choices)}",
                            rule)
        return str(value)

    def whole(self, path: Sequence[str], value: Any, rule: str | None = None, *,
              positive: bool = False) -> int:
        low = 1 if positive else 0
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            what = "a positive whole number" if positive else "a whole number >= 0"
            raise self.fail(path, f"must be {what} of units (money and chips are integers), "
                            f"not {value!r}", rule)
        return value

    def seconds(self, path: Sequence[str], value: Any, rule: str | None = None) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            raise self.fail(path, f"must be a number of seconds >= 0, not {value!r}", rule)
        return float(value)
