"""A generated section of a README: replaced between its BEGIN and END markers, written
or checked. ``pitboss hardware wiring`` (the wiring tables) and ``pitboss hardware
keycaps`` (the keypad's legend) both keep a part of ``hardware/README.md`` this way."""

from __future__ import annotations

import sys
from pathlib import Path


def replace_section(text: str, block: str, begin: str, end: str) -> str:
    """``text`` with the part from ``begin`` to ``end`` replaced by ``block`` (which holds
    both markers); appended if ``text`` has none yet."""
    if begin in text and end in text:
        head, rest = text.split(begin, 1)
        return head + block + rest.split(end, 1)[1]
    return text.rstrip("\n") + "\n\n" + block + "\n"


def write_or_check(readme: Path, wanted: str, *, check: bool, stale: str, current: str
                   ) -> int:
    """Write ``wanted`` to ``readme`` (or, ``check``, exit 1 saying ``stale`` when they
    differ); ``current`` is what a current README's check says."""
    text = readme.read_text(encoding="utf-8") if readme.exists() else ""
    if check:
        if text != wanted:
            print(f"{readme} is stale: {stale}", file=sys.stderr)
            return 1
        print(f"{readme} is current ({current})")
        return 0
    if text != wanted:
        readme.write_text(wanted, encoding="utf-8")
        print(f"wrote {readme}")
    else:
        print(f"{readme} already current")
    return 0
