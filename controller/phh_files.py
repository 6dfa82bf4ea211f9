"""Hand-history files on disk: read one, or walk folders of them (the I/O beside the
pure :mod:`controller.rules.phh` and :mod:`controller.rules.ohh`). A file is PHH (TOML) or
Open Hand History (JSON) by its content, whatever its name: OHH starts with a JSON object."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from controller.rules import ohh
from controller.rules.errors import HandHistoryError
from controller.rules.phh import HandHistory, loads_file

SUFFIXES = (".phh", ".phhs", ".ohh", ".json")


def load(path: str | Path) -> list[HandHistory]:
    """Read a ``.phh`` (exactly one hand, top-level keys), a ``.phhs`` file (hands in
    tables) or an OHH file (``{"ohh": ...}`` objects, blank lines between)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise HandHistoryError(f"{p}: cannot read: {e}") from None
    if ohh.looks_like_ohh(text):
        return ohh.loads(text, str(p))
    return loads_file(text, str(p))


def iter_paths(paths: Iterable[str | Path]) -> Iterator[Path]:
    """Each file given, and every ``*.phh``/``*.phhs``/``*.ohh``/``*.json`` under each folder
    given (recursively, sorted); a path that does not exist raises
    :class:`HandHistoryError`."""
    for entry in paths:
        p = Path(entry)
        if p.is_dir():
            yield from sorted(f for f in p.rglob("*") if f.suffix in SUFFIXES and f.is_file())
        elif p.is_file():
            yield p
        else:
            raise HandHistoryError(f"{p}: no such file or folder")
