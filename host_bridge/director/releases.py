"""Hand-for-hand and the last hands of the day at the tables (TOURN-22, -27): the tables
held between hands in hand-for-hand mode, and released one hand at a time (``NextHand``).

:class:`HandReleases` is given the model, the tables' views, what the tables are let deal
(the coordinators of :mod:`.handforhand` and the tables released), the link to the tables,
the floor plan (the floor's moves come first), a way to journal and apply its hand-for-hand
inputs, and two of the tournament's options: the hand-for-hand margin and whether the
director balances on its own. Bridge side.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import Any

from controller.events import HandForHand as HandForHandCommand
from controller.events import NextHand

from .floorplan import FloorPlan
from .floorstate import Dealing, TableView, live_wires
from .journal import HandForHandOff, HandForHandOn, HandForHandSkip
from .tablelink import TableLink
from .tournament import Tournament

HandForHandInput = HandForHandOn | HandForHandOff | HandForHandSkip


class HandReleases:
    """Turns hand-for-hand on and off as the bubble nears, and releases the hands."""

    def __init__(self, model: Tournament, views: Mapping[str, TableView], dealing: Dealing,
                 link: TableLink, plan: FloorPlan, *,
                 record: Callable[[HandForHandInput], Any], margin: int,
                 auto_balance: bool) -> None:
        self._model = model
        self._views = views
        self._wires = {v.number: w for w, v in views.items()}
        self._dealing = dealing
        self._link = link
        self._plan = plan
        self._record = record
        self._margin = margin
        self._auto_balance = auto_balance

    def _wanted(self) -> bool:
        left = len(self._model.alive()) - self._model.places_paid()
        return 0 < left <= self._margin and len(live_wires(self._model.floor,
                                                           self._views)) > 1

    async def keep(self) -> None:
        """TOURN-22: hand-for-hand on once the bubble is within the margin (the tables
        finish their hands first), off once it has burst."""
        views = self._views
        wanted = self._wanted()
        if wanted and self._dealing.h4h is None:
            live = live_wires(self._model.floor, views)
            await self._link.broadcast([HandForHandCommand(on=True)], live)
            await self._link.until(lambda: all(views[w].hand_for_hand
                                               and not self._link.in_hand(w)
                                               for w in live if not views[w].closed),
                                  what=f"{', '.join(live)} dealing hand for hand")
            self._record(HandForHandOn(tables=sorted(views[w].number for w in live
                                                     if not views[w].closed)))
        elif not wanted and self._dealing.h4h is not None:
            await self.end()

    async def end(self) -> None:
        """Hand-for-hand is over: journaled, and every table told."""
        self._record(HandForHandOff())
        await self._link.broadcast([HandForHandCommand(on=False)],
                                   live_wires(self._model.floor, self._views))

    async def deal(self) -> None:
        """TOURN-22: the next hand everywhere at once once every table has finished."""
        dealing = self._dealing
        h4h = dealing.h4h
        if h4h is None:
            return
        if self._auto_balance and dealing.idle_for_moves() and self._plan.work_due():
            return  # the floor's moves first (the tables wait between hands)
        release = []
        for number in sorted(h4h.may_deal() - dealing.released):
            if len(self._model.floor.tables[number].players) < 2:
                self._record(HandForHandSkip(table=number))
                continue
            dealing.released.add(number)
            release.append(self._wires[number])
        replies = await asyncio.gather(*(self._link.command(w, NextHand()) for w in release))
        for wire, reply in zip(release, replies, strict=True):
            if reply is None or reply.status != "ok":  # not released: ask again later
                dealing.released.discard(self._views[wire].number)

    async def deal_last_hands(self) -> None:
        """TOURN-27: each table is held between hands (hand-for-hand mode, so none deals
        one hand too many) and released one hand at a time until it has played the card."""
        dealing, views, link = self._dealing, self._views, self._link
        lh = dealing.last_hands
        assert lh is not None
        live = live_wires(self._model.floor, views)
        holding = [w for w in live if not views[w].hand_for_hand]
        if holding:
            await link.broadcast([HandForHandCommand(on=True)], holding)
        release = [w for w in live if views[w].hand_for_hand and not link.in_hand(w)
                   and lh.may_deal(views[w].number) and views[w].number not in dealing.released
                   and len(self._model.floor.tables[views[w].number].players) > 1]
        dealing.released.update(views[w].number for w in release)
        await asyncio.gather(*(link.command(w, NextHand()) for w in release))
