"""The floor's discipline: penalties, disqualification, cancellation and the HexaPro sit &
go, decided by the director by hand (issue 19; PEN-1..7, CANCEL-1..9, CRASH-4, SNG-1..7).

Every decision is a journaled input (:class:`~.journal.FloorDecision`, with who took it)
applied here, so a restart replays it through the same code. :class:`Discipline` is the
service's collaborator; it is given the director and uses its model, its link to the
tables, its floor lock and its journal.

How each reaches the tables (decisions, RULES.md literal where it speaks):

* PEN-1/2 hands or rounds: the table learns a penalty only with ``SeatPlayer``'s
  ``penalty_hands`` (PEN-5, there is no command to give one to a seated player). So the
  player's table is held between hands, the player is taken out (``RemovePlayer``) and
  seated again in the same seat with the same stack and the hands to serve (the floor's
  own reconcile, :meth:`FloorWork.reconcile`): the table then deals them in and kills
  their hand (PEN-4) and reports ``penalty_served``. Before the start the penalty waits
  in the model and goes to the table with the seat draw. A warning, and a PEN-3 timed
  removal (002 rules only), stay in the model: no table command exists for them.
* PEN-6/7 exclusion and disqualification: the table is held, the model places the entry
  (no prize for a disqualification), the chips leave play (``RemovePlayer``).
* CANCEL: the preview is what :meth:`Tournament.cancel` would pay now, by the stage
  reached (CANCEL-1 before the start, -2 before the money, -3 in the money, -4 at the
  final table, -6 a HexaPro game, -7 bounties); confirming ends the tournament cancelled
  and closes its tables (they are free for another tournament). Stacks are those at the
  end of the last hand reported: a hand in play when the tables stop is void (CRASH-1).
  ``cause = "crash"`` is CRASH-4: a crash forced the cancellation.
* SNG-3/6: the multiplier is drawn when the game starts, from a random source of its own
  (the seat draw's is not disturbed), journaled, and the game's set-up follows it:
  starting stacks, level times, fixed pool and payouts (:func:`jackpot_setup_for`); the
  table is sent ``set_house`` with the HexaPro house and that multiplier.
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
from collections.abc import Sequence
from fractions import Fraction
from typing import Any, Final, Protocol

from controller.clocks.level_clock import LevelClock
from controller.events import RemovePlayer, SetHouse
from host_bridge.houses import check_house_text

from .cancel import Compensation, compensate
from .entries import Stage, Status
from .errors import DirectorError
from .floorstate import TableView
from .floorwork import FloorWork
from .journal import (
    Actor,
    Cancelled,
    DirectorInput,
    FloorDecision,
    MultiplierDrawn,
    PenaltyGiven,
    SitAndGoSet,
    Unregistered,
)
from .options import TournamentOptions
from .registration import (
    cancel_below_minimum,
    unregister,
    verify_below_minimum,
    verify_unregister,
)
from .seating import Move
from .setup import jackpot_setup_for
from .sng import BUY_INS, Multiplier, draw_multiplier, jackpot_table
from .tablelink import TableLink
from .tournament import Tournament


class DirectorParts(Protocol):
    """What the discipline needs of its tournament's director (the service passes itself;
    a protocol here, so this module never imports the service: no import circle)."""

    id: str
    model: Tournament
    views: dict[str, TableView]
    wires: dict[int, str]
    options: TournamentOptions
    level_clock: LevelClock
    link: TableLink
    floorwork: FloorWork
    _floor_lock: asyncio.Lock
    _wake: asyncio.Event

    def wall(self) -> float: ...
    async def stop(self) -> None: ...
    def _record(self, entry: DirectorInput) -> Any: ...
    async def _finish(self) -> None: ...
    def _anomaly(self, what: str) -> None: ...

REMOVING: Final = ("exclude", "disqualify")
CANCEL_RULES: Final = {"director": "CANCEL-9", "crash": "CRASH-4", "too_few": "TOURN-8"}
HOUSE: Final = """name = "{name}"
kind = "tournament"
game = "NT"
unit = "chip"
rules = "live-tournament"
seats = 3

[tournament]
structure = "{fmt}"
multiplier = {times}
players = 3
"""


def verify_sit_and_go(fmt: str, buy_in: int) -> None:
    """SNG-2/6: the format exists and is offered at this buy-in (cents)."""
    jackpot_table(fmt)
    if buy_in not in BUY_INS[fmt]:
        raise DirectorError(f"{fmt} is not offered at {buy_in / 100:g} €; the buy-ins are "
                            + ", ".join(f"{b / 100:g} €" for b in BUY_INS[fmt]), "SNG-2")


def slip_rows(moves: Sequence[Move], wires: dict[int, str], stacks: dict[str, int]
              ) -> list[dict[str, Any]]:
    """Confirmed moves as move slips: player, from table/seat, to table/seat, stack."""
    return [{"player": m.player, "from_table": None if m.from_table is None
             else wires[m.from_table], "from_seat": m.from_seat,
             "to_table": wires[m.to_table], "to_seat": m.to_seat, "rule": m.rule,
             "stack": stacks.get(m.player, 0)} for m in moves]


class Discipline:
    """Penalties, disqualification, cancellation and the sit & go of one tournament."""

    def __init__(self, director: DirectorParts) -> None:
        self._d = director
        self.sng: SitAndGoSet | None = None
        self.multiplier: Multiplier | None = None
        self.cancelled: Cancelled | None = None
        self.compensation: dict[str, Compensation] = {}
        self.decisions: list[dict[str, Any]] = []  # every decision, with who took it
        self.moves: list[dict[str, Any]] = []  # confirmed moves (move slips)

    # -- penalties (PEN-1..7) -----------------------------------------------------------------
    def verify_penalty(self, player: str, penalty: str, count: int) -> None:
        """Refuse, naming the rule, before anything is journaled or held."""
        model = self._d.model
        e = model.entry(player)  # TOURN-6: not registered
        if model.stage not in (Stage.REGISTERING, Stage.RUNNING):
            raise DirectorError(f"the tournament is {model.stage.value}", "PEN-1")
        if e.status is not Status.ACTIVE:
            raise DirectorError(f"{player} is not in play ({e.status.value})", "PEN-6")
        if penalty in ("hands", "rounds") and count <= 0:
            raise DirectorError(f"a penalty is one or more {penalty}, not {count}",
                                "PEN-2" if penalty == "rounds" else "PEN-1")
        if penalty == "rounds" and model.stage is not Stage.RUNNING:
            raise DirectorError("a round is counted at the player's table (PEN-2): give "
                                "hands before the seat draw", "PEN-2")
        if penalty in ("hands", "rounds"):
            model.penalties.verify_penalty(player)
        if penalty == "removal":
            if not model.penalties.warning_first:
                raise DirectorError("timed removals belong to the warning-first rules "
                                    "(penalty.warning_first = true); give hands or rounds",
                                    "PEN-3")
            model.penalties.verify_penalty(player)
        if penalty in REMOVING and model.stage is not Stage.RUNNING:
            raise DirectorError("only a player in a running tournament is excluded or "
                                "disqualified; before the start, unregister them", "PEN-6")

    async def penalise(self, player: str, penalty: str, count: int, by: Actor,
                       reason: str = "") -> PenaltyGiven:
        """Give a penalty; a running player's table is told (see the module docstring)."""
        self.verify_penalty(player, penalty, count)
        d = self._d
        model = d.model
        if model.stage is not Stage.RUNNING or penalty in ("warning", "removal"):
            return self._give(player, penalty, count, 0, by, reason)
        async with d._floor_lock:  # no balancing moves the player meanwhile
            number, seat = model.floor.seat_of(player)
            wire = d.wires[number]
            held_here = not d.views[wire].paused and not d.views[wire].closed
            await d.link.hold([wire])
            try:
                self.verify_penalty(player, penalty, count)  # again: that hand is in now
                at_table = len(model.floor.tables[number].players)
                given = self._give(player, penalty, count, at_table, by, reason)
                if d.views[wire].seats.get(seat) == player:
                    await d.link.insist(wire, RemovePlayer(seat=seat),
                                        d.link.seated(wire, seat, player, False))
                if penalty not in REMOVING:  # seated again with the hands to serve
                    await d.floorwork.reconcile()
            finally:
                if held_here and not d.views[wire].closed:
                    await d.link.release([wire])
        d._wake.set()  # the floor may need balancing now
        return given

    def _give(self, player: str, penalty: str, count: int, at_table: int, by: Actor,
              reason: str) -> PenaltyGiven:
        entry = PenaltyGiven(player=player, penalty=penalty,  # type: ignore[arg-type]
                             count=count, at_table=at_table, now=self._d.wall(), by=by,
                             reason=reason)
        self._d._record(entry)
        return entry

    def _apply_penalty(self, p: PenaltyGiven) -> None:
        book = self._d.model.penalties
        match p.penalty:
            case "warning":
                book.warn(p.player)
            case "hands":
                book.miss_hands(p.player, p.count)
            case "rounds":
                book.miss_rounds(p.player, p.count, p.at_table)
            case "removal":
                book.remove_for(p.player, p.now)
            case "exclude" | "disqualify":
                self._d.model.exclude(p.player, disqualify=p.penalty == "disqualify")

    # -- cancellation (CANCEL-*, CRASH-4) -----------------------------------------------------
    def preview(self) -> dict[str, Compensation]:
        """What each player would receive if the tournament were cancelled now."""
        model = self._d.model
        if model.stage in (Stage.FINISHED, Stage.CANCELLED):
            raise DirectorError(f"the tournament is {model.stage.value}: there is nothing "
                                "to cancel", "CANCEL-9")
        return compensate(model.entries.values(), model.setup, model.pool, model.prizes(),
                          started=model.stage is not Stage.REGISTERING,
                          in_the_money=model.in_the_money,
                          tables_in_play=sum(1 for ts in model.floor.tables.values()
                                             if ts.players))

    async def cancel(self, cause: str, by: Actor, reason: str = "") -> dict[str, Compensation]:
        """Cancel now: compensation by the stage reached, the tables closed and freed;
        ``too_few`` only for a field below its minimum that never started (CANCEL-9)."""
        self.preview()  # refuses a finished or cancelled tournament
        if cause == "too_few":
            verify_below_minimum(self._d.model)
        d = self._d
        async with d._floor_lock:  # not in the middle of moves
            await d.stop()  # the floor's task stops dealing and balancing
            d._record(Cancelled(cause=cause, by=by, reason=reason))  # type: ignore[arg-type]
        await d._finish()  # hand-for-hand ended, tables closed, finished
        return self.compensation

    def unregister(self, player: str, by: Actor) -> Compensation:
        """TOURN-7: ``player`` leaves the field before the start, buy-in and fee back."""
        verify_unregister(self._d.model, player)  # refuses before anything is journaled
        refund: Compensation = self._d._record(Unregistered(player=player, by=by))
        return refund

    # -- the sit & go (SNG-1..7) --------------------------------------------------------------
    def set_sit_and_go(self, fmt: str, buy_in: int, fee: int, by: Actor) -> None:
        """Make this (new, empty) tournament a HexaPro (Extreme) sit & go."""
        verify_sit_and_go(fmt, buy_in)
        self._d._record(SitAndGoSet(format=fmt, buy_in=buy_in, fee=fee,  # type: ignore[arg-type]
                                    by=by))

    async def before_start(self, by: Actor | None = None) -> None:
        """SNG-3/6: a sit & go draws its multiplier as it starts; its table plays it."""
        if self.sng is None or self.multiplier is not None:
            return
        d = self._d
        rng = random.Random(f"{d.options.seed}/{d.id}/multiplier")
        drawn = draw_multiplier(self.sng.format, rng)
        who = by or Actor(name="director", role="director")
        d._record(MultiplierDrawn(times=str(drawn.times), by=who))
        text = self.house_text()
        check_house_text(text, "the sit & go's house")
        for wire in d.views:
            reply = await d.link.command(wire, SetHouse(text=text))
            if reply is not None and reply.status != "ok":
                d._anomaly(f"table {wire} did not take the sit & go's house: {reply.error}")

    def house_text(self) -> str:
        """The HexaPro house at the drawn multiplier (the table's ``HouseView.multiplier``)."""
        assert self.sng is not None and self.multiplier is not None
        times = self.multiplier.times
        return HOUSE.format(name=f"HexaPro Sit & Go {float(times):g}x", fmt=self.sng.format,
                            times=float(times))

    def _apply_sng(self, s: SitAndGoSet) -> None:
        model = self._d.model
        if model.stage is not Stage.REGISTERING or model.entries:
            raise DirectorError("a sit & go is set up before anyone registers", "SNG-1")
        self.sng = s
        model.setup = dataclasses.replace(
            model.setup, sit_and_go=True, min_entrants=3, max_entrants=3, seats_per_table=3,
            buy_in=s.buy_in, fee=s.fee, starting_stack=500)

    def _apply_multiplier(self, m: MultiplierDrawn) -> None:
        d, s = self._d, self.sng
        if s is None:
            raise DirectorError("only a sit & go draws a multiplier", "SNG-3")
        row = next(r for r in jackpot_table(s.format) if r.times == Fraction(m.times))
        setup = jackpot_setup_for(s.format, s.buy_in, s.fee, row)
        model = d.model
        model.setup = dataclasses.replace(setup, name=model.setup.name)
        for e in model.entries.values():  # every game starts with the row's stack
            model.issued += setup.stack - e.stack
            e.stack = setup.stack
        d.level_clock = LevelClock(setup.structure)
        self.multiplier = row

    # -- journal ------------------------------------------------------------------------------
    def apply(self, entry: FloorDecision) -> Any:
        """Apply one journaled decision (the service's ``_apply``)."""
        match entry:
            case PenaltyGiven():
                self._apply_penalty(entry)
            case Cancelled(cause="too_few"):
                self.compensation = cancel_below_minimum(self._d.model)
                self.cancelled = entry
            case Cancelled():
                self.compensation = self._d.model.cancel()
                self.cancelled = entry
            case Unregistered(player=player):
                refund = unregister(self._d.model, player)
                self.decisions.append({**entry.model_dump(mode="json", exclude={"by"}),
                                       "by": entry.by.name, "role": entry.by.role,
                                       "refund": refund.total})
                return refund
            case SitAndGoSet():
                self._apply_sng(entry)
            case MultiplierDrawn():
                self._apply_multiplier(entry)
        self.decisions.append({**entry.model_dump(mode="json", exclude={"by"}),
                               "by": entry.by.name, "role": entry.by.role})
        return None

    def moved(self, moves: list[Move]) -> list[Move]:
        """The service's hook on a floor operation: keep its moves for the move slips."""
        d = self._d
        stacks = {m.player: d.model.entry(m.player).stack for m in moves}
        for row in slip_rows(moves, d.wires, stacks):
            self.moves.append({"id": len(self.moves) + 1, **row})
        return moves

    # -- reading ------------------------------------------------------------------------------
    def public(self) -> dict[str, Any]:
        """What the director page shows: penalties, the sit & go, the cancellation."""
        model = self._d.model
        book = model.penalties
        now = self._d.wall()
        players = sorted({p.player for p in book.given})
        sng = None
        if self.sng is not None:
            m = self.multiplier
            sng = {"format": self.sng.format, "buy_in": self.sng.buy_in, "fee": self.sng.fee,
                   "multiplier": None if m is None else float(m.times),
                   "prize_pool": None if m is None else model.pool.total,
                   "prizes": list(model.setup.fixed_prizes) if m else [],
                   "starting_stack": model.setup.stack,
                   "level_minutes": None if m is None else m.level_minutes}
        return {
            "penalties": [{"player": p, "warned": book.warned(p),
                           "hands_left": book.remaining(p), "serving": book.serving(p, now),
                           "status": model.entry(p).status.value} for p in players],
            "sit_and_go": sng,
            "cancelled": None if self.cancelled is None else {
                "cause": self.cancelled.cause, "reason": self.cancelled.reason,
                "by": self.cancelled.by.name,
                "rule": CANCEL_RULES[self.cancelled.cause],
                "compensation": compensation_rows(self.compensation)},
            "decisions": list(self.decisions[-50:]),
            "moves": list(self.moves[-50:])}


def compensation_rows(comp: dict[str, Compensation]) -> list[dict[str, Any]]:
    """Each player's compensation as the page and the API show it."""
    return [{"player": p, "refund": c.refund, "fees": c.fees, "prize": c.prize,
             "bounty": c.bounty, "total": c.total, "rule": c.rule}
            for p, c in sorted(comp.items())]
