"""What commissioning found, as frozen values: one ``Step`` per check, one ``Report`` per walk.

Kept apart from the walk (``commissioning.py``) because the report outlives it: the
technician reads the text on the spot, the JSON goes with the table's paperwork and can
be compared with the next commissioning. The text puts failures first (what needs a
person comes before what is fine), each on one line that says what was found, where the
part is wired, and what to do.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from pathlib import Path

SCHEMA = "pitboss.commissioning/1"


class Status(StrEnum):
    """How a check ended."""

    PASS = "pass"
    FAIL = "fail"
    SKIP = "skip"  # not checked: its part could not be opened, or nobody answered


@dataclass(frozen=True, slots=True)
class Step:
    """One check of one part: ``reader seat3`` / ``read rate``, ``key deal`` / ``press``."""

    part: str
    check: str
    status: Status
    detail: str  # one line: what was found and, on a failure, what to do
    where: str = ""  # how the part is wired: its bus, pin or port
    figures: tuple[tuple[str, float], ...] = ()  # measured numbers (scans, read rate...)

    @property
    def failed(self) -> bool:
        return self.status is Status.FAIL

    def figure(self, name: str) -> float:
        return dict(self.figures)[name]

    def line(self) -> str:
        where = f" [{self.where}]" if self.where else ""
        return f"{self.status.value.upper():4}  {self.part} / {self.check}{where}: {self.detail}"

    def as_json(self) -> dict[str, object]:
        return {
            "part": self.part,
            "check": self.check,
            "status": self.status.value,
            "where": self.where,
            "detail": self.detail,
            "figures": dict(self.figures),
        }


@dataclass(frozen=True, slots=True)
class ReadRate:
    """Raw scans of one antenna while a card lay on it: how many read it, how fast."""

    scans: int
    reads: int
    errors: int  # scans the chip answered wrongly (counted as misses too)
    seconds: float

    @property
    def misses(self) -> int:
        return self.scans - self.reads

    @property
    def rate(self) -> float:
        return self.reads / self.scans if self.scans else 0.0

    @property
    def per_second(self) -> float:
        return self.scans / self.seconds if self.seconds > 0 else 0.0

    def figures(self) -> tuple[tuple[str, float], ...]:
        return (
            ("scans", self.scans),
            ("reads", self.reads),
            ("misses", self.misses),
            ("errors", self.errors),
            ("seconds", round(self.seconds, 3)),
            ("read_rate", round(self.rate, 4)),
            ("scans_per_s", round(self.per_second, 1)),
        )

    def summary(self) -> str:
        return (
            f"read the card in {self.reads} of {self.scans} scans ({self.rate:.0%}) over "
            f"{self.seconds:.1f} s, {self.misses} missed, {self.per_second:.1f} scans/s"
        )


@dataclass(frozen=True, slots=True)
class Report:
    """Every check of one commissioning walk, in the order they ran."""

    table: str
    source: str  # the profile file
    backend: str
    started: datetime
    seconds: float
    steps: tuple[Step, ...]
    complete: bool = True  # False: the walk was interrupted

    @property
    def failed(self) -> tuple[Step, ...]:
        return tuple(s for s in self.steps if s.failed)

    @property
    def ok(self) -> bool:
        return self.complete and not self.failed

    def counts(self) -> Mapping[str, int]:
        return {status.value: sum(s.status is status for s in self.steps) for status in Status}

    def verdict(self) -> str:
        c = self.counts()
        head = "INTERRUPTED" if not self.complete else "PASSED" if self.ok else "FAILED"
        return (
            f"{head}: {c['pass']} passed, {c['fail']} failed, {c['skip']} skipped "
            f"of {len(self.steps)} checks"
        )

    def text(self) -> str:
        out = [
            f"Pitboss commissioning report: table {self.table}",
            f"profile {self.source}, backend {self.backend}",
            f"started {self.started.isoformat(timespec='seconds')}, took {self.seconds:.0f} s",
            self.verdict(),
        ]
        if self.failed:
            out += ["", "Failed (fix these first):"]
            out += [f"  {s.line()}" for s in self.failed]
        out += ["", "Every check, in order:"]
        out += [f"  {s.line()}" for s in self.steps]
        return "\n".join(out) + "\n"

    def as_json(self) -> dict[str, object]:
        return {
            "schema": SCHEMA,
            "table": self.table,
            "profile": self.source,
            "backend": self.backend,
            "started": self.started.isoformat(timespec="seconds"),
            "seconds": round(self.seconds, 3),
            "complete": self.complete,
            "ok": self.ok,
            "counts": dict(self.counts()),
            "steps": [s.as_json() for s in self.steps],
        }

    def write(self, path: Path) -> tuple[Path, Path]:
        """Write the text to ``path`` (``.txt`` when it ends in ``.json``) and the JSON
        beside it, under the same name ending in ``.json``; return both paths."""
        text_path = path.with_suffix(".txt") if path.suffix == ".json" else path
        json_path = path if path.suffix == ".json" else path.with_suffix(".json")
        text_path.write_text(self.text(), encoding="utf-8")
        json_path.write_text(json.dumps(self.as_json(), indent=2) + "\n", encoding="utf-8")
        return text_path, json_path
