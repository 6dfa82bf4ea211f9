"""A finished hand's PHH at the bridge: the rebuild from the table's events lives in
:mod:`controller.sync.hand_history` (the table exports its own hands with it too,
``pitboss table run --export-phh``); the bridge imports it from there (DESIGN.md:
host_bridge may import controller.sync)."""

from __future__ import annotations

from controller.sync.hand_history import (
    HAND_LOG,
    HAND_LOG_KINDS,
    HandExport,
    HandHistoryUnavailable,
    HandLogEvent,
    export_hand,
    hand_steps,
    replay_hand,
)

__all__ = ["HAND_LOG", "HAND_LOG_KINDS", "HandExport", "HandHistoryUnavailable",
           "HandLogEvent", "export_hand", "hand_steps", "replay_hand"]
