"""The director's work on the floor: the floor operations carried out at the tables, and the
commands that make the tables match the model (TOURN-2, -4, -19, -20, -21, -22, -28;
PEN-5, TOURN-32: what follows a moved player).

The model decides (:class:`~host_bridge.director.floorplan.FloorPlan`); :class:`FloorWork`
holds the tables, journals each operation, then makes the tables match the model
(:meth:`FloorWork.reconcile`) and releases them. It is given the model, the tables'
views and wire ids, the plan, the link to the tables, what the tables are let deal, the
lock that keeps floor work and purchases apart, a way to journal and apply an operation,
the director's version (a suggestion's freshness) and where anomalies go. Bridge side.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import Any

from controller.events import CloseTable, MovePlayer, SeatPlayer

from .errors import DirectorError
from .floorplan import FloorPlan
from .floorstate import Dealing, TableView, live_wires
from .journal import Actor, FloorOp
from .tablelink import TableLink
from .tournament import Tournament


class FloorWork:
    """Carries out the floor's operations at the tables and keeps them matching the model."""

    def __init__(self, model: Tournament, views: Mapping[str, TableView],
                 wires: Mapping[int, str], plan: FloorPlan, link: TableLink,
                 dealing: Dealing, lock: asyncio.Lock, *, record: Callable[[FloorOp], Any],
                 version: Callable[[], int], anomaly: Callable[[str], None]) -> None:
        self._model = model
        self._views = views
        self._wires = wires
        self._plan = plan
        self._link = link
        self._dealing = dealing
        self._lock = lock
        self._record = record
        self._version = version
        self._anomaly = anomaly

    async def carry_out(self, version: int | None = None, by: Actor | None = None) -> int:
        """Hold the tables, carry out every operation due, make the tables match, release
        them; returns the number of moves. ``version``: refuse if the floor changed since
        the suggestion with that version was shown."""
        async with self._lock:
            if version is not None and version != self._version():
                raise DirectorError("the floor changed since those suggestions were shown; "
                                    "look at them again", "TOURN-19")
            if self._dealing.h4h is not None:
                if not self._dealing.idle_for_moves():
                    raise DirectorError("hand-for-hand: players move once every table has "
                                        "finished the hand", "TOURN-22")
                held: list[str] = []
            else:
                held = live_wires(self._model.floor, self._views)
                await self._link.hold(held)
            moves = 0
            for _ in range(len(self._model.floor.tables) + 2):
                due = self._plan.due()
                if due is None:
                    break
                done = self._record(FloorOp(op=due[0], table=due[1], by=by))
                moves += len(done)
                if not done:
                    break
            await self.reconcile()
            await self._link.release([w for w in held if not self._views[w].closed])
            return moves

    async def reconcile(self) -> None:
        """Every player the model seats elsewhere leaves (MovePlayer), then everyone is
        seated where the model says (SeatPlayer with the model's stack); broken tables
        close. A player already in their model seat but seated there before the time
        bank's current stage (issue 5: the final-table redraw's new grant) is seated again
        the same way, since a table learns a count only with SeatPlayer: every player then
        holds the stage's grant at their table, those who keep their seat in the redraw
        too (TOURN-28). Idempotent: after a restart it finishes what a crash interrupted
        (the views are replayed from the journaled reports)."""
        model, views, link = self._model, self._views, self._link
        floor = model.floor
        stage = model.time_bank.stage
        shown = {p: (w, s) for w, v in views.items() for s, p in v.seats.items()}
        leave: list[tuple[str, int, str, str]] = []  # from wire, seat, player, to wire
        arrive: list[tuple[str, int, str]] = []
        for number, ts in floor.tables.items():
            wire = self._wires[number]
            view = views[wire]
            for seat, player in sorted(ts.players.items()):
                if view.seats.get(seat) == player and view.granted.get(seat) == stage:
                    continue
                if model.entry(player).stack <= 0:  # a bust who may still rebuy
                    continue  # (TOURN-10): off the table until the rebuy seats them
                arrive.append((wire, seat, player))
                if player in shown:
                    leave.append((*shown[player], player, wire))
        await asyncio.gather(*(link.insist(w, MovePlayer(seat=s, to_table=to),
                                           link.seated(w, s, p, False))
                               for w, s, p, to in leave))
        for _, _, player, _ in leave:
            reported = next((v.moved_stacks.pop(player) for v in views.values()
                             if player in v.moved_stacks), None)
            if reported is not None and reported != model.entry(player).stack:
                self._anomaly(f"{player} left with {reported} chips; the director has "
                              f"{model.entry(player).stack}")
        await asyncio.gather(*(link.insist(w, self.seat_command(s, p),
                                           link.seated(w, s, p, True))
                               for w, s, p in arrive))
        for number in sorted(floor.closed):
            view = views[self._wires[number]]
            if not view.closed and not view.seats:
                await link.command(view.wire, CloseTable())

    def seat_command(self, seat: int, player: str) -> SeatPlayer:
        """Seat ``player`` with the model's stack and what follows them from table to table
        (PEN-5, TOURN-32): the hands of a penalty still to serve (rounds were converted to
        hands when given, PEN-2) and the time-bank chips the host knows they hold (None:
        the host has no count, the table gives a newcomer's)."""
        model = self._model
        carry = model.carry(player)
        known = player in model.time_bank.state()["chips"]
        return SeatPlayer(seat=seat, player=player, stack=model.entry(player).stack,
                          extension_chips=carry.time_bank_chips if known else None,
                          penalty_hands=carry.penalty_hands or None)
