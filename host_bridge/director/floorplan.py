"""The floor operations the model needs, decided and applied (TOURN-19, -20, -21, -28):
the final-table redraw, a table broken, balancing; and the suggestions shown before a
director confirms them.

:class:`FloorPlan` is given the model, the draw's ``random.Random``, what the tables are
let deal (a table broken leaves hand-for-hand), the wire id of each table (for the
suggestions), the figures it counts and whether the final table brings a new time-bank
grant (issue 5). Pure: no I/O, no clock; carrying the moves out at the tables is
:class:`~host_bridge.director.floorwork.FloorWork`'s.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from .entries import Stage
from .errors import DirectorError
from .floorstate import Dealing
from .seating import Floor, Move
from .tournament import Tournament


def next_operation(floor: Floor) -> tuple[str, int | None] | None:
    """The next operation the floor needs: the final-table redraw (TOURN-28), a table
    broken (TOURN-21), or balancing (TOURN-19/20); None when none is due."""
    live = sorted((t for t, ts in floor.tables.items()
                   if ts.players and t not in floor.closed),
                  key=lambda t: (-floor.tables[t].seats, t))
    if len(live) > 1 and len(floor.where) <= floor.tables[live[0]].seats:
        return "redraw", live[0]
    target = floor.table_to_break()
    if target is not None:
        return "break", target
    counts = [c for c in floor.counts().values() if c > 0]
    if len(counts) > 1 and max(counts) - min(counts) >= 2:
        return "balance", None
    return None


class FloorPlan:
    """Decides and applies the floor's operations in the model."""

    def __init__(self, model: Tournament, rng: random.Random, dealing: Dealing,
                 wires: Mapping[int, str], *, figures: dict[str, int],
                 final_table_grant: bool) -> None:
        self._model = model
        self._rng = rng
        self._dealing = dealing
        self._wires = wires
        self._figures = figures
        self._final_table_grant = final_table_grant

    def due(self) -> tuple[str, int | None] | None:
        """The next operation the model's floor needs (:func:`next_operation`)."""
        return next_operation(self._model.floor)

    def work_due(self) -> bool:
        """The tournament runs and an operation is due."""
        return self._model.stage is Stage.RUNNING and self.due() is not None

    def apply(self, op: str, table: int | None) -> list[Move]:
        """Carry out ``op`` in the model (a journaled ``floor`` input); the moves made."""
        floor = self._model.floor
        h4h = self._dealing.h4h
        if op == "balance":
            moves = floor.suggest_balance(self._rng)
            floor.apply_all(moves)
            self._figures["balances"] += 1
        elif op == "break" and table is not None:
            moves = floor.break_table(table, self._rng)
            if h4h is not None and table in h4h.state:
                h4h.remove_table(table)
            self._figures["breaks"] += 1
        elif op == "redraw" and table is not None:
            moves, _ = floor.final_table_redraw(table, self._rng)
            if self._final_table_grant:  # issue 5: a new grant for everyone
                self._model.time_bank.enter_stage("final_table",
                                                  (e.player for e in self._model.alive()))
            if h4h is not None:
                for t in [t for t in h4h.state if t != table]:
                    h4h.remove_table(t)
        else:
            raise DirectorError(f"no floor operation {op!r}", "TOURN-19")
        self._figures["moves"] += len(moves)
        return moves

    def suggestions(self) -> list[dict[str, Any]]:
        """What the floor would do now, without doing it (on copies of the chart and of
        the draw's random state). Planned as if every hand had ended: a move from a table
        still playing a hand is shown ``pending`` (it waits for that hand, TOURN-19), never
        refused, so reading the floor never fails while a move waits."""
        floor = self._model.floor.copy()
        playing = {t for t, ts in floor.tables.items() if ts.in_hand}
        for ts in floor.tables.values():
            ts.in_hand = False
        rng = random.Random()
        rng.setstate(self._rng.getstate())
        out: list[dict[str, Any]] = []
        for _ in range(len(floor.tables) + 2):
            due = next_operation(floor)
            if due is None:
                break
            op, table = due
            if op == "balance":
                moves = floor.suggest_balance(rng)
                floor.apply_all(moves)
            elif op == "break" and table is not None:
                moves = floor.break_table(table, rng)
            else:
                assert table is not None
                moves, _ = floor.final_table_redraw(table, rng)
            waits = playing if op == "redraw" else set()  # the redraw waits for all
            out.append({"op": op, "table": None if table is None else self._wires[table],
                        "moves": [self._move_json(m, bool(waits) or m.from_table in playing)
                                  for m in moves]})
            if not moves:
                break
        return out

    def _move_json(self, m: Move, pending: bool) -> dict[str, Any]:
        wires = self._wires
        return {"player": m.player, "from_table": None if m.from_table is None
                else wires[m.from_table], "from_seat": m.from_seat,
                "to_table": wires[m.to_table], "to_seat": m.to_seat, "rule": m.rule,
                "pending": pending}
