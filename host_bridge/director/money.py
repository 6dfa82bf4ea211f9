"""The director's money entries from the floor's screens (issue 19): re-entry (TOURN-4/6),
surrender (TOURN-15), bounties and progressive knockouts (TOURN-17), deals and chops
(TOURN-29), and the payouts: who was paid what.

As :mod:`.purchases`, the model decides and every input is journaled, with who did it
(:class:`~.journal.Actor`), before it is applied, so a restart replays the same model:

* **Re-entry**: verified (re-entry allowed, the player out, entries left, late
  registration open, a seat free), journaled (``re_enter``), applied (a new entry with a
  full stack and the fee, seated by TOURN-4), then the tables are made to match the model
  (``SeatPlayer`` with the new stack).
* **Surrender**: the player's table is held between hands; the chips handed in leave
  play [interp, RULES.md]. The vocabulary has no command that takes chips away, so the
  table is given the new stack as the floor does it: ``RemovePlayer`` then ``SeatPlayer``
  with what is left (a player who hands in everything stays off the table until their
  rebuy seats them, TOURN-10).
* **Deals** (TOURN-29; allowed where the event says local law permits): the prizes still
  to pay, places 1..n for the n players left, shared by ICM (CANCEL-8, Malmuth-Harville)
  or by chip-chop (in proportion to chips). :meth:`Money.deal_plan` shows the amounts;
  :meth:`Money.make_deal` confirms the amounts shown (refused if the stacks changed since)
  and ends the tournament, each remaining entry sharing places 1..n and paid its amount.

Bridge side; :class:`Money` is given the model, the tables' views and wire ids, the link
and floor work to reach the tables, the floor lock, the draw's ``random.Random``, a way to
journal and apply an input, and a way to wake the director's task.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from controller.events import RemovePlayer

from .entries import Stage, Status
from .errors import DirectorError
from .floorstate import TableView
from .journal import Actor, DealMade, ReEnter, Surrender
from .payouts import icm_chop, split_cents
from .tablelink import TableLink
from .tournament import Tournament

Method = Literal["icm", "chip_chop"]
MoneyInput = ReEnter | Surrender | DealMade


@dataclass(frozen=True, slots=True)
class DealPlan:
    """A deal as shown before it is confirmed: each remaining entry's amount in cents."""

    method: Method
    prizes: tuple[int, ...]  # the places still to pay, 1..n
    stacks: dict[str, int]  # by entry
    amounts: dict[str, int]  # by entry; sums to sum(prizes)

    def to_json(self, players: Mapping[str, str]) -> dict[str, Any]:
        return {"method": self.method, "pool": sum(self.prizes), "prizes": list(self.prizes),
                "players": [{"entry": k, "player": players[k], "stack": self.stacks[k],
                             "amount": self.amounts[k]}
                            for k in sorted(self.amounts, key=lambda k: -self.stacks[k])]}


class Money:
    """Re-entries, surrenders, deals; the bounties and payouts read from the model."""

    def __init__(self, model: Tournament, views: Mapping[str, TableView],
                 wires: Mapping[int, str], link: TableLink, lock: asyncio.Lock,
                 rng: random.Random, *, record: Callable[[MoneyInput], Any],
                 reconcile: Callable[[], Awaitable[None]], wake: Callable[[], None],
                 deals: bool = True) -> None:
        self._model = model
        self._views = views
        self._wires = wires
        self._link = link
        self._lock = lock
        self._rng = rng
        self._record = record
        self._reconcile = reconcile
        self._wake = wake
        self._deals = deals
        self.deal_made: DealMade | None = None

    # -- re-entry (TOURN-4/6) ----------------------------------------------------------------
    async def re_enter(self, player: str, by: Actor) -> None:
        """A new entry for an eliminated player, seated at once (TOURN-4)."""
        model = self._model
        model.verify_re_enter(player)
        # one floor change at a time: a table break planned meanwhile would not see the
        # new entry's seat, close its table and take the entry's chips out of play
        async with self._lock:
            model.verify_re_enter(player)  # again: the floor may have moved on meanwhile
            model.floor.suggest_late_entry(player, random.Random(0))  # a seat is free?
            self._record(ReEnter(player=player, by=by))
            await self._reconcile()

    # -- surrender (TOURN-15) ------------------------------------------------------------------
    async def surrender(self, player: str, chips: int, by: Actor) -> None:
        """``player`` hands in ``chips`` between hands; their table follows."""
        model = self._model
        try:
            model.verify_surrender(player, chips)
        except DirectorError as exc:
            if "table is in a hand" not in exc.reason:  # the hold below waits for it
                raise
        async with self._lock:
            number, seat = model.floor.seat_of(player)
            wire = self._wires[number]
            view = self._views[wire]
            held_here = not view.paused and not view.closed
            await self._link.hold([wire])
            try:
                model.verify_surrender(player, chips)  # again: the last hand is in now
                self._record(Surrender(player=player, chips=chips, by=by))
                if view.seats.get(seat) == player:
                    await self._link.insist(wire, RemovePlayer(seat=seat),
                                            self._link.seated(wire, seat, player, False))
                await self._reconcile()  # seated again with what is left, if anything
            finally:
                if held_here:
                    await self._link.release([wire])

    # -- deals and chops (TOURN-29) -------------------------------------------------------------
    def _verify_deal(self) -> None:
        model = self._model
        if not self._deals:
            raise DirectorError("this event allows no deals (local gaming law)", "TOURN-29")
        if model.stage is not Stage.RUNNING:
            raise DirectorError(f"the tournament is {model.stage}", "TOURN-29")
        alive = model.alive()
        if len(alive) < 2:
            raise DirectorError("a deal needs at least two players left", "TOURN-29")
        if any(e.status is Status.PENDING for e in alive):
            raise DirectorError("a player out of chips may still rebuy: wait until they "
                                "rebuy or the next hand starts", "TOURN-29")
        if any(ts.in_hand for ts in model.floor.tables.values()):
            raise DirectorError("a deal is made between hands: wait for the hand to end",
                                "TOURN-29")

    def deal_plan(self, method: Method) -> DealPlan:
        """The amounts each remaining entry would receive (nothing changes)."""
        self._verify_deal()
        model = self._model
        alive = sorted(model.alive(), key=lambda e: e.key)
        table = model.prizes()
        prizes = tuple(table[i] if i < len(table) else 0 for i in range(len(alive)))
        if sum(prizes) == 0:
            raise DirectorError("no prize is left to share among the players left",
                                "TOURN-29")
        stacks = [e.stack for e in alive]
        paid = [p for p in prizes if p > 0]  # places paying nothing cost ICM time only
        amounts = (icm_chop(stacks, paid) if method == "icm"  # CANCEL-8
                   else split_cents(sum(prizes), stacks))  # chip-chop: by chips
        return DealPlan(method, prizes, {e.key: e.stack for e in alive},
                        {e.key: a for e, a in zip(alive, amounts, strict=True)})

    async def make_deal(self, method: Method, shown: Mapping[str, int], by: Actor) -> None:
        """Confirm the deal shown (amounts by player); refused if it is not what the
        stacks give now. The tournament ends with these amounts."""
        plan = self.deal_plan(method)
        players = {k: self._model.entries[k].player for k in plan.amounts}
        now = {players[k]: a for k, a in plan.amounts.items()}
        if dict(shown) != now:
            raise DirectorError("the deal shown is not what the stacks give now (a hand "
                                "was played or a player moved); preview it again", "TOURN-29")
        self._record(DealMade(method=method, amounts=plan.amounts, by=by))
        self._wake()

    # -- the journal ------------------------------------------------------------------------------
    def applied(self, entry: MoneyInput) -> Any:
        """Apply one journaled input to the model (live and in replay)."""
        model = self._model
        match entry:
            case ReEnter(player=player):
                return model.re_enter(player, self._rng)
            case Surrender(player=player, chips=chips):
                return model.surrender(player, chips)
            case DealMade(amounts=amounts):
                if set(amounts) != {e.key for e in model.alive()}:
                    raise DirectorError("the deal does not name every player left",
                                        "TOURN-29")
                model.deal = dict(amounts)
                model.stage = Stage.FINISHED
                self.deal_made = entry
                return None

    # -- reading ---------------------------------------------------------------------------
    def bounties(self) -> dict[str, Any]:
        """TOURN-17: each entry's bounty on their head, knockouts and bounty money won."""
        model = self._model
        setup = model.setup
        entries = sorted(model.entries.values(),
                         key=lambda e: (-e.bounty_won, -e.bounty, e.key))
        rows = [{"entry": e.key, "player": e.player, "status": e.status.value,
                 "bounty": e.bounty, "knockouts": e.knockouts, "won": e.bounty_won}
                for e in entries]
        return {"bounty": setup.bounty, "progressive": list(setup.progressive)
                if setup.progressive else None, "residue": model.bounty_residue,
                "players": rows}

    def payouts(self) -> dict[str, Any]:
        """The payout table and who was paid what: each placed entry's prize (a deal's
        amount after a deal), bounties won and the total."""
        model = self._model
        finished = model.stage is Stage.FINISHED
        prizes = model.prizes()
        money = model.payouts() if finished else {}
        paid = []
        for key, (best, worst) in model.places().items():
            e = model.entries[key]
            bounties = e.bounty_won + (e.bounty if finished and e.status is Status.ACTIVE
                                       else 0)
            if e.status is Status.DISQUALIFIED:
                prize = bounties = 0
            elif finished:
                prize = money.get(key, 0) - bounties
            else:
                prize = sum(prizes[p - 1] for p in range(best, worst + 1)
                            if p <= len(prizes)) // (worst - best + 1)
            paid.append({"entry": key, "player": e.player, "place": best, "place_to": worst,
                         "prize": prize, "bounties": bounties, "total": prize + bounties})
        paid.sort(key=lambda r: (r["place"], r["entry"]))
        deal = self.deal_made
        return {"prize_pool": model.pool.total, "places_paid": model.places_paid(),
                "prizes": list(prizes[:model.places_paid()]), "paid": paid,
                "deal": None if deal is None else {
                    "method": deal.method, "by": deal.by.name, "role": deal.by.role,
                    "amounts": {model.entries[k].player: a
                                for k, a in deal.amounts.items()}}}
