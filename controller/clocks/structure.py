"""Blind structures as validated frozen data (LEVEL-2), with the seeds' presets.

A structure is levels (blinds, ante, big-blind ante, length) and breaks (after a level,
a length, an optional colour-up or add-on), plus optional synchronised breaks (LEVEL-3).
Presets are TOML files in ``controller/clocks/structures/``: ``hexapro`` (LEVEL-4),
``hexapro_extreme`` (LEVEL-5) and ``casino`` (002's format: a base for a house file, as
002 publishes no amounts). A house file is TOML too, ``base = "<preset>"`` plus its keys::

    base = "casino"
    level_minutes = 20
    levels = [[25, 50, 50], [50, 100, 100]]
    [[breaks]]
    after_level = 2
    minutes = 15
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from importlib import resources
from typing import Any, Final

from .errors import StructureError

COLUMNS: Final = ("small_blind", "big_blind", "ante", "big_blind_ante", "minutes")
PRESETS: Final = ("hexapro", "hexapro_extreme", "casino")


@dataclass(frozen=True, slots=True)
class Level:
    """One blind level; amounts in chips, ``seconds`` its length on the clock."""

    number: int
    small_blind: int
    big_blind: int
    ante: int = 0  # per player (ANTE-*)
    big_blind_ante: int = 0  # paid by the big blind for the table (002 §31)
    seconds: float = 0.0

    @property
    def minutes(self) -> float:
        return self.seconds / 60

    def without_antes(self) -> Level:
        """The level once antes stop (002 §31: in the money)."""
        return replace(self, ante=0, big_blind_ante=0)


@dataclass(frozen=True, slots=True)
class Break:
    """A break after level ``after_level``; a colour-up or the add-on may be held in it."""

    after_level: int
    seconds: float
    colour_up: tuple[int, ...] = ()  # chip denominations raced off (CHIPRACE-*)
    add_on: bool = False  # TOURN-12


@dataclass(frozen=True, slots=True)
class SyncBreaks:
    """LEVEL-3: a break at ``minute`` past each hour, of ``seconds``; never in level 1.

    The seeds give no length; 5 minutes (to the top of the hour) is our default [conv].
    """

    minute: int = 55
    seconds: float = 300.0


@dataclass(frozen=True, slots=True)
class Structure:
    """A tournament's published structure (LEVEL-2); validated on construction."""

    name: str
    levels: tuple[Level, ...]
    breaks: tuple[Break, ...] = ()
    sync_breaks: SyncBreaks | None = None
    starting_stack: int | None = None
    antes_stop_in_the_money: bool = False
    rebuy_until_level: int | None = None
    late_registration_until_level: int | None = None
    rule: str = "LEVEL-2"

    def __post_init__(self) -> None:
        where = self.name or "structure"
        if not self.levels:
            raise StructureError(f"{where}: a structure needs at least one level", "LEVEL-2")
        previous: Level | None = None
        for i, lv in enumerate(self.levels, 1):
            at = f"{where}, level {lv.number}"
            if lv.number != i:
                raise StructureError(f"{where}: levels must be numbered 1, 2, 3...; "
                                     f"position {i} is level {lv.number}", "LEVEL-2")
            if lv.big_blind <= 0 or not 0 <= lv.small_blind <= lv.big_blind:
                raise StructureError(f"{at}: blinds {lv.small_blind}/{lv.big_blind} are not "
                                     "0 <= small blind <= big blind, big blind > 0", "BLIND-1")
            if lv.ante < 0 or lv.big_blind_ante < 0:
                raise StructureError(f"{at}: antes cannot be negative", "ANTE-1")
            if not lv.seconds > 0:
                raise StructureError(f"{at}: no level length (give level_minutes, a minutes "
                                     "column or the multiplier)", "LEVEL-2")
            if previous is not None and lv.big_blind < previous.big_blind:
                raise StructureError(f"{at}: big blind {lv.big_blind} is below level "
                                     f"{previous.number}'s {previous.big_blind}", "LEVEL-2")
            previous = lv
        seen: set[int] = set()
        for br in self.breaks:
            if not 1 <= br.after_level <= len(self.levels):
                raise StructureError(f"{where}: a break after level {br.after_level}, but the "
                                     f"levels are 1..{len(self.levels)}", "LEVEL-2")
            if br.after_level in seen:
                raise StructureError(f"{where}: two breaks after level {br.after_level}")
            seen.add(br.after_level)
            if not br.seconds > 0:
                raise StructureError(f"{where}: the break after level {br.after_level} has no "
                                     "length (minutes)", "LEVEL-2")
            if any(d <= 0 for d in br.colour_up):
                raise StructureError(f"{where}: colour-up denominations must be positive")
        if self.sync_breaks is not None:
            sb = self.sync_breaks
            if not 0 <= sb.minute < 60 or not 0 < sb.seconds < 3600:
                raise StructureError(f"{where}: synchronised breaks at minute {sb.minute} "
                                     f"for {sb.seconds} s are impossible", "LEVEL-3")

    def level(self, number: int) -> Level:
        """Level ``number``; past the last level, the last one stays in force (LEVEL-6)."""
        if number < 1:
            raise StructureError(f"there is no level {number}")
        return self.levels[min(number, len(self.levels)) - 1]

    def break_after(self, number: int) -> Break | None:
        for br in self.breaks:
            if br.after_level == number:
                return br
        return None


# -- loading -------------------------------------------------------------------------------
def _number_key(table: Mapping[str, Any], multiplier: float | None, what: str,
                where: str) -> Any:
    if multiplier is None:
        raise StructureError(f"{where}: the {what} depends on the multiplier; give one of "
                             + ", ".join(f"{k}x" for k in table), "SNG-3")
    for key, value in table.items():
        if float(key) == float(multiplier):
            return value
    raise StructureError(f"{where}: no multiplier {multiplier}x; the multipliers are "
                         + ", ".join(f"{k}x" for k in table), "SNG-3")


def _positive(value: Any, what: str, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise StructureError(f"{where}: {what} must be a positive number, not {value!r}")
    return float(value)


def _whole(value: Any, what: str, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise StructureError(f"{where}: {what} must be a whole number of chips, not {value!r}")
    return value


def structure_from_data(data: Mapping[str, Any], *, multiplier: float | None = None,
                        source: str = "structure") -> Structure:
    """Build and validate a structure from parsed TOML (see the module docstring)."""
    known = {"name", "rule", "base", "columns", "levels", "breaks", "sync_breaks",
             "level_minutes", "level_minutes_by_multiplier", "starting_stack",
             "starting_stack_by_multiplier", "antes_stop_in_the_money", "rebuy_until_level",
             "late_registration_until_level"}
    unknown = set(data) - known
    if unknown:
        raise StructureError(f"{source}: unknown keys {', '.join(sorted(unknown))}; "
                             f"the keys are {', '.join(sorted(known))}")
    where = str(data.get("name", source))
    columns = data.get("columns", ["small_blind", "big_blind"])
    if not isinstance(columns, list) or any(c not in COLUMNS for c in columns):
        raise StructureError(f"{where}: columns must be a list drawn from {', '.join(COLUMNS)}")
    for needed in ("small_blind", "big_blind"):
        if needed not in columns:
            raise StructureError(f"{where}: the columns must include {needed}")
    rows = data.get("levels")
    if not rows:
        raise StructureError(f"{where}: no levels; a format preset such as 'casino' needs a "
                             "house file with base = \"casino\" and the levels", "LEVEL-2")
    default_s = 0.0
    if "level_minutes_by_multiplier" in data and "level_minutes" not in data:
        default_s = 60 * _positive(_number_key(data["level_minutes_by_multiplier"], multiplier,
                                               "level length", where), "level length", where)
    elif "level_minutes" in data:
        default_s = 60 * _positive(data["level_minutes"], "level_minutes", where)
    levels = []
    for number, row in enumerate(rows, 1):
        if not isinstance(row, list) or len(row) != len(columns):
            raise StructureError(f"{where}, level {number}: expected {len(columns)} values "
                                 f"({', '.join(columns)}), got {row!r}")
        cells = dict(zip(columns, row, strict=True))
        seconds = (60 * _positive(cells.pop("minutes"), "minutes", where)
                   if "minutes" in cells else default_s)
        amounts = {k: _whole(v, k, f"{where}, level {number}") for k, v in cells.items()}
        levels.append(Level(number, seconds=seconds, **amounts))
    breaks = []
    for entry in data.get("breaks", []):
        after = entry.get("after_level")
        if not isinstance(after, int) or isinstance(after, bool):
            raise StructureError(f"{where}: every break needs after_level (a level number)")
        if "minutes" not in entry:
            raise StructureError(f"{where}: the break after level {after} has no length "
                                 "(minutes)", "LEVEL-2")
        extra = set(entry) - {"after_level", "minutes", "colour_up", "add_on"}
        if extra:
            raise StructureError(f"{where}: unknown break keys {', '.join(sorted(extra))}")
        breaks.append(Break(after, 60 * _positive(entry["minutes"], "break minutes", where),
                            tuple(entry.get("colour_up", ())), bool(entry.get("add_on", False))))
    sync = None
    if "sync_breaks" in data:
        s = data["sync_breaks"]
        sync = SyncBreaks(int(s.get("minute", 55)), 60 * float(s.get("minutes", 5)))
    stack = data.get("starting_stack")
    if "starting_stack_by_multiplier" in data and multiplier is not None:
        stack = _number_key(data["starting_stack_by_multiplier"], multiplier, "stack", where)
    return Structure(
        name=where, levels=tuple(levels), breaks=tuple(breaks), sync_breaks=sync,
        starting_stack=stack,
        antes_stop_in_the_money=bool(data.get("antes_stop_in_the_money", False)),
        rebuy_until_level=data.get("rebuy_until_level"),
        late_registration_until_level=data.get("late_registration_until_level"),
        rule=str(data.get("rule", "LEVEL-2")),
    )


def _preset_data(name: str) -> dict[str, Any]:
    if name not in PRESETS:
        raise StructureError(f"no structure preset {name!r}; the presets are "
                             + ", ".join(PRESETS))
    text = resources.files("controller.clocks.structures").joinpath(f"{name}.toml").read_text(
        encoding="utf-8")
    return tomllib.loads(text)


def _merge(base: dict[str, Any], house: Mapping[str, Any]) -> dict[str, Any]:
    """House keys replace the base's; breaks merge by ``after_level``."""
    merged = {**base, **{k: v for k, v in house.items() if k not in ("base", "breaks")}}
    if "breaks" in house:
        by_level = {b["after_level"]: dict(b) for b in base.get("breaks", [])}
        for b in house["breaks"]:
            by_level.setdefault(b.get("after_level"), {}).update(b)
        merged["breaks"] = [by_level[k] for k in sorted(by_level, key=lambda k: (k is None, k))]
    return merged


def preset(name: str, *, multiplier: float | None = None) -> Structure:
    """A shipped structure: ``hexapro`` and ``hexapro_extreme`` need the game's multiplier."""
    return structure_from_data(_preset_data(name), multiplier=multiplier, source=name)


def load_structure(text: str, *, multiplier: float | None = None,
                   source: str = "house structure") -> Structure:
    """A structure from TOML text, on its own or on top of ``base = "<preset>"``."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise StructureError(f"{source}: not valid TOML: {exc}") from None
    base = data.get("base")
    if base is not None:
        data = _merge(_preset_data(str(base)), data)
    return structure_from_data(data, multiplier=multiplier, source=source)


def structure(levels: Sequence[tuple[int, int, int]], *, level_minutes: float,
              breaks: Sequence[Break] = (), name: str = "structure") -> Structure:
    """A quick structure from (small blind, big blind, ante) rows, for tests and tools."""
    return Structure(name, tuple(Level(i, sb, bb, ante, seconds=60 * level_minutes)
                                 for i, (sb, bb, ante) in enumerate(levels, 1)), tuple(breaks))
