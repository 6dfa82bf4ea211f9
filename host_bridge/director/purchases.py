"""Rebuys and add-ons carried to the table (TOURN-10, -11, -12; issue 9).

The model decides (:meth:`Tournament.verify_rebuy`, :meth:`Tournament.verify_add_on`);
the table adds the chips; the model follows the table's report, so the director's stacks
and the table's never part:

1. The player's table is held (paused, its hand in play finished and reported), so no
   hand starts while the chips change hands; the model verifies again with that hand in.
2. The request is journaled (``buy``: who, rebuy or add-on) before anything is sent.
3. The table is told: ``AddChips`` to a player in their seat, answered by
   ``stack_adjusted`` (reason ``rebuy``/``add_on``); a bust still waiting to rebuy
   (TOURN-10, "pending": the table has unseated them) is seated again with the rebuy's
   chips, answered by ``player_seated``.
4. That report, journaled like every table report, applies the rebuy or add-on to the model
   (stack, rebuys, the money in the prize pool). A replay goes through the same inputs in
   the same order, so a restart rebuilds the same model.

A refusal by the table is journaled (``buy_refused``) and raised as a
:class:`DirectorError` with the table's reason; a table that does not answer in time
raises :class:`PurchaseUnconfirmed` (its report, if it comes later, still applies).

:class:`Purchases` is given the model, the tables' views and wire ids, the link to the
tables, the lock that keeps purchases and floor work apart (no balancing moves the player
meanwhile), a way to journal and apply its ``buy``/``buy_refused`` inputs, and where
anomalies go. Bridge side.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import Any, Literal

from controller.events import (
    AddChips,
    Command,
    PlayerSeated,
    PublicEvent,
    SeatPlayer,
    StackAdjusted,
)

from .entries import Status
from .errors import DirectorError
from .floorstate import TableView
from .journal import Actor, Buy, BuyRefused
from .tablelink import TableLink
from .tournament import Tournament

RULE = {"rebuy": "TOURN-11", "add_on": "TOURN-12"}
What = Literal["rebuy", "add_on"]


class PurchaseUnconfirmed(DirectorError):
    """The table did not report the bought chips in time; nothing is undone."""


class Purchases:
    """The director's rebuys and add-ons, from the request to the table's report."""

    def __init__(self, model: Tournament, views: Mapping[str, TableView],
                 wires: Mapping[int, str], link: TableLink, lock: asyncio.Lock, *,
                 record: Callable[[Buy | BuyRefused], Any],
                 anomaly: Callable[[str], None]) -> None:
        self._model = model
        self._views = views
        self._wires = wires
        self._link = link
        self._lock = lock
        self._record = record
        self._anomaly = anomaly
        self.asked: dict[str, What] = {}  # asked of the table, not yet reported

    # -- the director's commands ------------------------------------------------------------
    async def rebuy(self, player: str, by: Actor | None = None) -> None:
        """TOURN-10/11: ``player`` rebuys (at or below the starting stack, within the rebuy
        levels, between hands); returns once the table has the chips. ``by``: who sold
        it (journaled with the request)."""
        await self._buy(player, "rebuy", by)

    async def add_on(self, player: str, by: Actor | None = None) -> None:
        """TOURN-12: ``player`` takes the add-on (in its break, once); returns once the
        table has the chips."""
        await self._buy(player, "add_on", by)

    def _verify(self, player: str, what: What) -> None:
        if what == "rebuy":
            self._model.verify_rebuy(player)
        else:
            self._model.verify_add_on(player)

    def _bought(self, player: str, what: What) -> int:
        e = self._model.entry(player)
        return e.rebuys if what == "rebuy" else int(e.add_on)

    async def _buy(self, player: str, what: What, by: Actor | None) -> None:
        try:  # refused at once, before any table is held ...
            self._verify(player, what)
        except DirectorError as exc:
            if exc.rule != "TOURN-11":  # ... unless only a hand in play stands in the way:
                raise  # the hold below waits for it to end
        async with self._lock:  # no balancing moves the player meanwhile
            number, seat = self._model.floor.seat_of(player)
            wire = self._wires[number]
            view = self._views[wire]
            held_here = not view.paused and not view.closed
            await self._link.hold([wire])
            try:
                await self._carry_out(player, what, wire, seat, by)
            finally:
                if held_here:
                    await self._link.release([wire])

    async def _carry_out(self, player: str, what: What, wire: str, seat: int,
                         by: Actor | None) -> None:
        self._verify(player, what)  # again: the table's last hand is in now
        setup = self._model.setup
        chips = ((setup.rebuy_chips if what == "rebuy" else setup.add_on_chips)
                 or setup.stack)
        e = self._model.entry(player)
        before = self._bought(player, what)
        self._record(Buy(player=player, what=what, by=by))
        command: Command
        if self._views[wire].seats.get(seat) == player:
            command = AddChips(seat=seat, player=player, chips=chips, reason=what)
        else:  # TOURN-10: a bust the table unseated comes back with the rebuy's chips
            command = SeatPlayer(seat=seat, player=player, stack=e.stack + chips)
        reply = await self._link.command(wire, command)
        if reply is not None and reply.status != "ok":
            self._record(BuyRefused(player=player, what=what))
            raise DirectorError(f"table {wire} refused the {what.replace('_', '-')} for "
                                f"{player}: {reply.error}", RULE[what])
        if not await self._link.until(lambda: self._bought(player, what) > before,
                                      quiet=True):
            raise PurchaseUnconfirmed(
                f"table {wire} has not reported the {what.replace('_', '-')} for {player} "
                "yet; the director applies it when the table does (look at the "
                "tournament again)", RULE[what])

    # -- journal and reports ----------------------------------------------------------------
    def journaled(self, entry: Buy | BuyRefused) -> None:
        """A journaled ``buy`` or ``buy_refused`` input."""
        match entry:
            case Buy(player=player, what=what):
                self.asked[player] = what
            case BuyRefused(player=player, what=what) if self.asked.get(player) == what:
                del self.asked[player]

    def reported(self, wire: str, ev: PublicEvent) -> None:
        """A table report that carries a rebuy or add-on: the model follows it."""
        view = self._views[wire]
        model = self._model
        match ev:
            case StackAdjusted(reason="rebuy" | "add_on" as reason, seats=seats):
                for adj in seats:
                    self._apply_bought(wire, view.seats.get(adj.seat), reason, adj.after)
            case PlayerSeated(player=player, stack=stack) \
                    if self.asked.get(player) == "rebuy" and player in model.current \
                    and model.entry(player).status is Status.PENDING:
                self._apply_bought(wire, player, "rebuy", stack)

    def _apply_bought(self, wire: str, player: str | None, what: What, after: int) -> None:
        if player is None or self.asked.get(player) != what:
            self._anomaly(f"table {wire} reported a {what} for {player} that the director "
                          "did not ask for")
            return
        del self.asked[player]
        try:
            entry = self._model.rebuy(player) if what == "rebuy" else \
                self._model.add_on(player)
        except DirectorError as exc:
            self._anomaly(f"table {wire}'s {what} for {player}: {exc}")
            return
        if entry.stack != after:
            self._anomaly(f"after the {what} table {wire} has {after} chips for {player}; "
                          f"the director has {entry.stack}")
