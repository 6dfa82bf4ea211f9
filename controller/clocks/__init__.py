"""Clocks: the shot clock, clock calls, time banks and the level clock (RULES.md §16, §17).

Pure state machines over an injected monotonic ``now``; ``runner.ClockRunner`` drives them
on the asyncio loop. May import ``controller.rules`` only.
"""

from .errors import ClockError, StructureError
from .host_clock import ClockSnapshot, HostClock
from .level_clock import LevelClock, Phase
from .shot_clock import ShotClock, ShotClockConfig, Street
from .structure import Break, Level, Structure, SyncBreaks, load_structure, preset
from .timebank import (
    Caller,
    CallTiming,
    ExtensionChips,
    LegacyTimebank,
    TableTimebank,
    call_timing,
    profile_call_timing,
    timebank_policy,
    timebank_row,
    verify_clock_call,
)

__all__ = [
    "Break", "CallTiming", "Caller", "ClockError", "ClockSnapshot", "ExtensionChips",
    "HostClock", "LegacyTimebank", "Level", "LevelClock", "Phase", "ShotClock",
    "ShotClockConfig", "Street", "Structure", "StructureError", "SyncBreaks", "TableTimebank",
    "call_timing", "load_structure", "preset", "profile_call_timing", "timebank_policy",
    "timebank_row", "verify_clock_call",
]
