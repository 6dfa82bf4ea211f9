"""Hand-history files on disk: read one, or walk folders of them (the I/O beside the
pure :mod:`controller.rules.phh`)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from controller.rules.errors import HandHistoryError
from controller.rules.phh import HandHistory, loads_file

SUFFIXES = (".phh", ".phhs")


def load(path: str | Path) -> list[HandHistory]:
    """Read a ``.phh`` (exactly one hand, top-level keys) or ``.phhs`` file (hands in tables)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise HandHistoryError(f"{p}: cannot read: {e}") from None
    return loads_file(text, str(p))


def iter_paths(paths: Iterable[str | Path]) -> Iterator[Path]:
    """Each file given, and every ``*.phh``/``*.phhs`` under each folder given (recursively,
    sorted); a path that does not exist raises :class:`HandHistoryError`."""
    for entry in paths:
        p = Path(entry)
        if p.is_dir():
            yield from sorted(f for f in p.rglob("*") if f.suffix in SUFFIXES and f.is_file())
        elif p.is_file():
            yield p
        else:
            raise HandHistoryError(f"{p}: no such file or folder")
