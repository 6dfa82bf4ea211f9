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
Bridge side; mixed into :class:`~host_bridge.director.service.TournamentDirector`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

from controller.sync.messages import AddChips, Command, ReplyMessage, SeatPlayer

from .entries import Status
from .errors import DirectorError
from .floorwork import TableView
from .tournament import Tournament

RULE = {"rebuy": "TOURN-11", "add_on": "TOURN-12"}


class PurchaseUnconfirmed(DirectorError):
    """The table did not report the bought chips in time; nothing is undone."""


class Purchases:
    """The director's rebuys and add-ons (mixed into the director)."""

    model: Tournament
    views: dict[str, TableView]
    wires: dict[int, str]
    asked: dict[str, str]  # player -> "rebuy"/"add_on" asked of the table, not yet reported
    _floor_lock: asyncio.Lock

    def _record(self, kind: str, body: dict[str, Any]) -> Any:
        raise NotImplementedError

    async def _command(self, wire: str, command: Command) -> ReplyMessage | None:
        raise NotImplementedError

    async def _hold(self, wires: Sequence[str]) -> None:
        raise NotImplementedError

    async def _release(self, wires: Sequence[str]) -> None:
        raise NotImplementedError

    async def _until(self, ready: Callable[[], bool], timeout_s: float | None = None, *,
                     quiet: bool = False) -> bool:
        raise NotImplementedError

    def _anomaly(self, what: str) -> None:
        raise NotImplementedError

    # -- the director's commands ------------------------------------------------------------
    async def rebuy(self, player: str) -> None:
        """TOURN-10/11: ``player`` rebuys (at or below the starting stack, within the rebuy
        levels, between hands); returns once the table has the chips."""
        await self._buy(player, "rebuy")

    async def add_on(self, player: str) -> None:
        """TOURN-12: ``player`` takes the add-on (in its break, once); returns once the
        table has the chips."""
        await self._buy(player, "add_on")

    def _verify(self, player: str, what: str) -> None:
        if what == "rebuy":
            self.model.verify_rebuy(player)
        else:
            self.model.verify_add_on(player)

    def _bought(self, player: str, what: str) -> int:
        e = self.model.entry(player)
        return e.rebuys if what == "rebuy" else int(e.add_on)

    async def _buy(self, player: str, what: str) -> None:
        try:  # refused at once, before any table is held ...
            self._verify(player, what)
        except DirectorError as exc:
            if exc.rule != "TOURN-11":  # ... unless only a hand in play stands in the way:
                raise  # the hold below waits for it to end
        async with self._floor_lock:  # no balancing moves the player meanwhile
            number, seat = self.model.floor.seat_of(player)
            wire = self.wires[number]
            view = self.views[wire]
            held_here = not view.paused and not view.closed
            await self._hold([wire])
            try:
                await self._carry_out(player, what, wire, seat)
            finally:
                if held_here:
                    await self._release([wire])

    async def _carry_out(self, player: str, what: str, wire: str, seat: int) -> None:
        self._verify(player, what)  # again: the table's last hand is in now
        setup = self.model.setup
        chips = ((setup.rebuy_chips if what == "rebuy" else setup.add_on_chips)
                 or setup.stack)
        e = self.model.entry(player)
        before = self._bought(player, what)
        self._record("buy", {"player": player, "what": what})
        command: Command
        if self.views[wire].seats.get(seat) == player:
            command = AddChips(seat=seat, player=player, chips=chips,
                               reason="add_on" if what == "add_on" else "rebuy")
        else:  # TOURN-10: a bust the table unseated comes back with the rebuy's chips
            command = SeatPlayer(seat=seat, player=player, stack=e.stack + chips)
        reply = await self._command(wire, command)
        if reply is not None and reply.status != "ok":
            self._record("buy_refused", {"player": player, "what": what})
            raise DirectorError(f"table {wire} refused the {what.replace('_', '-')} for "
                                f"{player}: {reply.error}", RULE[what])
        if not await self._until(lambda: self._bought(player, what) > before, quiet=True):
            raise PurchaseUnconfirmed(
                f"table {wire} has not reported the {what.replace('_', '-')} for {player} "
                "yet; the director applies it when the table does (look at the "
                "tournament again)", RULE[what])

    # -- journal and reports ----------------------------------------------------------------
    def _apply_purchase(self, kind: str, body: dict[str, Any]) -> None:
        """A journaled ``buy`` or ``buy_refused`` input."""
        if kind == "buy":
            self.asked[str(body["player"])] = str(body["what"])
        elif self.asked.get(str(body["player"])) == body["what"]:
            del self.asked[str(body["player"])]

    def _purchase_reported(self, wire: str, ev: dict[str, Any]) -> None:
        """A table report that carries a rebuy or add-on: the model follows it."""
        kind = ev.get("kind")
        view = self.views[wire]
        if kind == "stack_adjusted" and ev.get("reason") in ("rebuy", "add_on"):
            for adj in ev.get("seats", ()):
                self._apply_bought(wire, view.seats.get(adj.get("seat")), str(ev["reason"]),
                                   int(adj.get("after", 0)))
        elif kind == "table_changed" and ev.get("change") == "player_seated":
            player = ev.get("player")
            if isinstance(player, str) and self.asked.get(player) == "rebuy" \
                    and player in self.model.current \
                    and self.model.entry(player).status is Status.PENDING:
                self._apply_bought(wire, player, "rebuy", int(ev.get("stack") or 0))

    def _apply_bought(self, wire: str, player: str | None, what: str, after: int) -> None:
        if player is None or self.asked.get(player) != what:
            self._anomaly(f"table {wire} reported a {what} for {player} that the director "
                          "did not ask for")
            return
        del self.asked[player]
        try:
            entry = self.model.rebuy(player) if what == "rebuy" else self.model.add_on(player)
        except DirectorError as exc:
            self._anomaly(f"table {wire}'s {what} for {player}: {exc}")
            return
        if entry.stack != after:
            self._anomaly(f"after the {what} table {wire} has {after} chips for {player}; "
                          f"the director has {entry.stack}")
