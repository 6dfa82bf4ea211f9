"""The tournament director on the floor: the pure model joined to real tables (issue 9).

:class:`TournamentDirector` owns one running :class:`~host_bridge.director.Tournament` over
a set of tables (wire ids such as ``"T1"``, numbered 1, 2, ... in the model) and joins it
to the floor through the bridge:

* **Commands out** through the bridge's command desk (``CommandDesk.send``: audited, each
  awaited with its reply): ``SeatPlayer`` after the seat draw, late entries and moves;
  ``MovePlayer`` at the source of a move and ``SeatPlayer`` at its destination with the
  stack the move reported; ``CloseTable`` for a broken table; ``HandForHand``/``NextHand``;
  ``SyncClock`` at each level change and every ``sync_every_s``; ``ScheduleColourUp``
  for each break with a colour-up; ``Pause``/``Resume`` to hold tables (below);
  ``AddChips`` for a rebuy or add-on (:mod:`.purchases`, TOURN-10..12).
* **Reports in** from the events the bridge has stored, in each table's seq order
  (:meth:`observe`, hooked into :class:`~host_bridge.bridge.Bridge`, typed events
  dispatched with ``match``): ``hand_started``/``hand_ended`` (stacks, eliminations,
  places), ``hand_voided``, the table's changes (``player_seated``, ``player_moved`` with
  the stack, ``player_busted``, ``player_removed``, ``paused``/``resumed``,
  ``hand_for_hand_set``, ``table_closed``),
  ``stack_adjusted`` (a colour-up's chip race; a rebuy or add-on) and ``shot_clock``
  (a time-bank chip spent: the count a moved player carries, TOURN-32). After every
  hand the invariants are checked (every player seated once, no table over its seats,
  chips conserved, places unique and complete); a failure is kept in :attr:`anomalies`
  and logged at ERROR.

How moves are carried out (TOURN-19/20/21/28): the model decides; the tables are then
made to match it (:meth:`FloorWork.reconcile`: every player the model seats elsewhere
leaves with
``MovePlayer``, then everyone not yet in their model seat is seated with ``SeatPlayer``;
a player whose table seated them before a new time-bank grant, as at the final-table
redraw, is seated again so that their table holds it).
Tables move players between hands only, so before any balancing, break or redraw every
live table is *held*: outside hand-for-hand it is paused (its ``paused`` event, after its
last hand's events in seq order, says the model is up to date with it), during
hand-for-hand the tables wait anyway. A table short by three or more is therefore never
dealt to until balanced (TOURN-19). The level clock is the host's (a controller.clocks
:class:`LevelClock` on the host's monotonic time).

Persistence: every input is journaled before it is applied
(:class:`~host_bridge.director.journal.DirectorJournal`) and a restart replays them
(:meth:`restore`), then makes the tables match the model again.

The director composes small collaborators, each given only what it needs (the model, the
tables' views, the dealing state, callables to journal an input or note an anomaly):
:class:`~.tablelink.TableLink` (commands, holding tables, waiting for reports),
:class:`~.reports.TableReports` (reports applied to the model), :class:`~.floorplan.FloorPlan`
(the floor's operations decided, pure), :class:`~.floorwork.FloorWork` (carried out at the
tables), :class:`~.releases.HandReleases` (hand-for-hand, the last hands of the day) and
:class:`~.purchases.Purchases` (rebuys and add-ons). The director itself journals and
applies every input, runs the floor's task and the host's level clock.

The API a demo calls in-process::

    director = TournamentDirector.create(options, desk=bridge.desk, journal=journal)
    bridge.observers.append(director.observe)    # the bridge's events reach it
    await director.register("ana")               # or options.players
    await director.start()                        # draw, seat, clock
    await director.run_until_winner(timeout_s=600)
    director.status()                             # a JSON-able snapshot
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import re
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final, assert_never

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from controller.clocks.events import BreakStarted, LevelStarted
from controller.clocks.level_clock import LevelClock
from controller.clocks.timebank import ExtensionChips
from controller.events import (
    EVENT_TYPES,
    Change,
    CloseTable,
    Command,
    HandEnded,
    HandStarted,
    HandVoided,
    MisdealDeclared,
    ScheduleColourUp,
    ShotClockReport,
    SyncClock,
)
from controller.sync.messages import EventMessage, ReplyMessage
from host_bridge.models import EventRecord

from .discipline import Discipline
from .entries import Stage
from .errors import DirectorError
from .floorplan import FloorPlan
from .floorstate import Dealing, TableView, live_wires
from .floorwork import FloorWork
from .handforhand import HandForHand, LastHands
from .journal import (
    Actor,
    BreakBegun,
    Buy,
    BuyRefused,
    ClockState,
    Create,
    DealMade,
    DirectorInput,
    DirectorJournal,
    FloorDecision,
    FloorOp,
    HandForHandOff,
    HandForHandOn,
    HandForHandSkip,
    LastHandsDrawn,
    LevelUp,
    ReEnter,
    Register,
    Start,
    Surrender,
    TableReport,
)
from .money import Money
from .options import TournamentOptions
from .purchases import Purchases
from .releases import HandReleases
from .reports import TableReports
from .standings import snapshot
from .tablelink import CommandSender, TableLink
from .tournament import Tournament

log = logging.getLogger(__name__)
_UNSAFE: Final = re.compile(r"[^A-Za-z0-9_.-]+")
#: the table events the director journals and applies: the hand's start and end, and every
#: change to the table (seats, stacks, pause, hand-for-hand...), the shot clock's reports
_REPORTS: Final = (HandStarted, HandEnded, HandVoided, MisdealDeclared, ShotClockReport, Change)
_REPORT_KINDS: Final = sorted(t.model_fields["kind"].default for t in EVENT_TYPES
                              if issubclass(t, _REPORTS))


def new_id(name: str) -> str:
    """A new tournament's id: its name made safe for a URL path, and a random suffix."""
    slug = _UNSAFE.sub("-", name).strip("-.")[:40] or "tournament"
    return f"{slug}-{uuid.uuid4().hex[:8]}"


class TournamentDirector:
    """One tournament on the floor, from registration to the winner."""

    def __init__(self, options: TournamentOptions, desk: CommandSender | None, *,
                 journal: DirectorJournal | None = None, tournament_id: str | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 wall: Callable[[], float] = time.time, command_timeout_s: float = 20.0,
                 since: Mapping[str, int] | None = None) -> None:
        options.verify()
        self.options = options
        self.id = tournament_id or new_id(options.name)
        self.since = {w: s for w, s in (since or {}).items() if w in options.tables}
        self.journal = journal
        self.clock, self.wall = clock, wall
        self.rng = random.Random(options.seed)
        self.numbers = options.table_numbers
        self.wires = {n: w for w, n in self.numbers.items()}
        grants = {"start": options.time_bank_start,
                  "final_table": options.time_bank_final_table}
        self.model = Tournament(options.setup(), options.rules_profile(),
                                {n: options.tables[w] for w, n in self.numbers.items()},
                                time_bank=ExtensionChips(grants=grants))
        # a table's events before this tournament began are another's (``since``)
        self.views = {w: TableView(w, n, seq=self.since.get(w, 0))
                      for w, n in self.numbers.items()}
        self.dealing = Dealing()
        self.level_clock = LevelClock(self.model.setup.structure)
        self.anomalies: list[str] = []
        self.figures: dict[str, int] = dict.fromkeys(
            ("hands", "moves", "breaks", "balances", "h4h_hands", "commands", "checks",
             "refused"), 0)
        self.version = 0  # bumped by every applied input (a suggestion's freshness)
        self.replaying = False
        self.finished = asyncio.Event()
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._next_sync = float("inf")
        self._stopped_held: set[str] = set()
        floor_lock = asyncio.Lock()  # floor work and purchases, one at a time
        self._floor_lock = floor_lock
        model, views, dealing, figures = self.model, self.views, self.dealing, self.figures
        self.link = TableLink(desk, views, model.floor, dealing, figures=figures,
                              anomaly=self._anomaly, timeout_s=command_timeout_s, name=self.id)
        self.reports = TableReports(model, views, dealing, self.rng, figures=figures,
                                    anomaly=self._anomaly)
        self.plan = FloorPlan(model, self.rng, dealing, self.wires, figures=figures,
                              final_table_grant=bool(options.time_bank_final_table))
        self.floorwork = FloorWork(model, views, self.wires, self.plan, self.link, dealing,
                                   floor_lock, record=self._record, version=lambda: self.version,
                                   anomaly=self._anomaly)
        self.releases = HandReleases(model, views, dealing, self.link, self.plan,
                                     record=self._record, margin=options.hand_for_hand_margin,
                                     auto_balance=options.auto_balance)
        self.purchases = Purchases(model, views, self.wires, self.link, floor_lock,
                                   record=self._record, anomaly=self._anomaly)
        self.discipline = Discipline(self)  # penalties, cancellation, sit & go (issue 19)
        self.money = Money(model, views, self.wires, self.link, floor_lock, self.rng,  # issue 19
                           record=self._record, reconcile=self.floorwork.reconcile,
                           wake=self._wake.set, deals=options.deals)

    # -- creating and restoring -----------------------------------------------------------
    @classmethod
    def create(cls, options: TournamentOptions, desk: CommandSender | None, *,
               journal: DirectorJournal | None = None, by: Actor | None = None,
               **kw: Any) -> TournamentDirector:
        """A new tournament with ``options.players`` registered. ``since``: each table's
        last stored seq now (its earlier events are not this tournament's); ``by``: who
        created it (journaled with the creation and the registrations, issue 19)."""
        director = cls(options, desk, journal=journal, **kw)
        director._record(Create(options=options.to_json(), id=director.id,
                                since=director.since, by=by))
        for player in options.players:
            director.model.verify_register(player)
            director._record(Register(player=player, by=by))
        return director

    @classmethod
    def restore(cls, journal: DirectorJournal, desk: CommandSender | None,
                tournament_id: str | None = None, **kw: Any) -> TournamentDirector | None:
        """The tournament ``tournament_id`` (default: the latest) rebuilt from its journal;
        None when there is none. Call :meth:`resume` on the running loop afterwards."""
        tid = tournament_id or journal.latest()
        if tid is None:
            return None
        inputs = list(journal.replay(tid))
        if not inputs or not isinstance(created := inputs[0].entry, Create):
            return None
        options = TournamentOptions.from_json(created.options)
        director = cls(options, desk, journal=journal, tournament_id=tid,
                       since=created.since, **kw)
        director.replaying = True
        for item in inputs[1:]:
            director._apply(item.entry, at=item.at)
        director.replaying = False
        log.info("tournament %s restored from %d journaled inputs", tid, len(inputs))
        return director

    async def resume(self) -> None:
        """After :meth:`restore`: make the tables match the model, run the floor again."""
        if self.model.stage is Stage.RUNNING:
            await self.link.hold(self._live_wires())
            await self.floorwork.reconcile()
            await self.link.release(self._live_wires())
            self._ensure_running()
        elif self.model.stage is Stage.FINISHED:
            self.finished.set()

    # -- the director's commands -----------------------------------------------------------
    async def register(self, player: str, by: Actor | None = None) -> None:
        """Enter a player: before the start, or a late entry seated at once (TOURN-4);
        ``by``: who entered them (journaled)."""
        self.model.verify_register(player)
        if self.model.stage is not Stage.RUNNING:
            self._record(Register(player=player, by=by))
            return
        async with self._floor_lock:  # a late entry's seat and a table break, one at a time
            self.model.verify_register(player)
            self.model.floor.suggest_late_entry(player, random.Random(0))  # a seat exists?
            self._record(Register(player=player, by=by))
            await self.floorwork.reconcile()

    async def start(self, by: Actor | None = None) -> None:
        """The seat draw (TOURN-2); players seated with their stacks; the clock starts.
        ``by``: who started it (journaled, the sit & go's multiplier draw too)."""
        self.model.verify_start()
        await self.discipline.before_start(by)  # a sit & go draws its multiplier (SNG-3)
        wires = list(self.views)
        await self.link.hold(wires)
        self._record(Start(by=by))
        await self.link.broadcast([SyncClock(
            level=1, seconds_left=self.level_clock.seconds_left(self.clock()))],
            self._live_wires())
        colour_ups = [ScheduleColourUp(at_level=b.after_level + 1)
                      for b in self.model.setup.structure.breaks if b.colour_up]
        await self.link.broadcast(colour_ups, self._live_wires())
        await self.floorwork.reconcile()
        await self.link.release(wires)
        self._ensure_running()

    async def draw_last_hands(self, card: int | None = None, by: Actor | None = None
                              ) -> int:
        """TOURN-27: the clock stops, a card 3..7 is drawn (or given), and every table
        plays that many more hands, each released on its own (hand-for-hand mode, so no
        table deals one too many), then waits."""
        if self.model.stage is not Stage.RUNNING:
            raise DirectorError(f"the tournament is {self.model.stage}", "TOURN-27")
        if self.dealing.last_hands is not None:
            raise DirectorError("the last hands of the day are already drawn", "TOURN-27")
        seconds = self.level_clock.seconds_left(self.clock())
        LastHands([1], seconds_left=seconds, card=card or 3)  # refuses before journaling
        drawn: int = self._record(LastHandsDrawn(card=card, seconds_left=seconds, by=by))
        self._wake.set()
        return drawn

    async def rebuy(self, player: str, by: Actor | None = None) -> None:
        """TOURN-10/11: ``player`` rebuys; returns once the table has the chips
        (:class:`~.purchases.Purchases`)."""
        await self.purchases.rebuy(player, by)

    async def add_on(self, player: str, by: Actor | None = None) -> None:
        """TOURN-12: ``player`` takes the add-on; returns once the table has the chips."""
        await self.purchases.add_on(player, by)

    async def carry_out_floor_work(self, version: int | None = None,
                                   by: Actor | None = None) -> int:
        """Hold the tables, carry out every operation due, make the tables match, release
        them; returns the number of moves. ``version``: refuse if the floor changed since
        the suggestion with that version was shown; ``by``: who confirmed (None: the
        floor's task balancing on its own)."""
        return await self.floorwork.carry_out(version, by)

    async def run_until_winner(self, timeout_s: float | None = None) -> None:
        """Wait for the winner (the floor runs on its own task)."""
        self._ensure_running()
        async with asyncio.timeout(timeout_s):
            await self.finished.wait()

    async def stop(self) -> None:
        """Stop the director's task (the bridge is shutting down)."""
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None

    async def command_for(self, wire: str, command: Command) -> ReplyMessage | None:
        """Send one command to a table as the director (audited)."""
        return await self.link.command(wire, command)

    # -- reports from the bridge -------------------------------------------------------------
    def observe(self, stored: Sequence[EventMessage]) -> None:
        """The bridge's hook: the typed events of one stored batch, in each table's seq
        order. The reports of this tournament's tables are journaled, then applied."""
        reports: list[DirectorInput] = []
        seen: dict[str, int] = {}
        for message in stored:
            wire = message.table
            if wire in self.views and isinstance(message.event, _REPORTS) \
                    and message.seq > seen.get(wire, self.views[wire].seq):
                seen[wire] = message.seq
                reports.append(TableReport(table=wire, seq=message.seq, event=message.event))
        if not reports:
            return
        if self.journal is not None:
            self.journal.append_many(self.id, reports, self.wall())
        for report in reports:
            self._apply(report)
        self.link.heard()
        self._wake.set()

    def catch_up(self, sessions: sessionmaker[Session]) -> int:
        """Apply the reports the bridge stored and this director has not seen (the gap
        between a restart's replay and the hook); returns how many. Call it right after
        adding :meth:`observe` to the bridge, on the event loop."""
        with sessions() as session:
            rows = session.execute(select(
                EventRecord.table_id, EventRecord.seq, EventRecord.payload).where(
                EventRecord.table_id.in_(list(self.views)), EventRecord.applied.is_(True),
                EventRecord.kind.in_(_REPORT_KINDS)).order_by(EventRecord.id)).all()
        stored = [EventMessage.model_validate_json(r.payload)
                  for r in rows if r.seq > self.views[r.table_id].seq]
        self.observe(stored)
        return len(stored)

    # -- journal and apply --------------------------------------------------------------------
    def _record(self, entry: DirectorInput) -> Any:
        """Journal one input, then apply it; returns what applying it returned."""
        if self.journal is not None:
            self.journal.append_many(self.id, [entry], self.wall())
        return self._apply(entry)

    def _apply(self, entry: DirectorInput, *, at: float | None = None) -> Any:
        self.version += 1
        rng = self.rng
        try:
            match entry:
                case Create():
                    return None
                case Register(player=player):
                    return self.model.register(player, rng)
                case Start():
                    moves = self.model.start(rng)
                    if self.options.time_bank_start:  # issue 5: the stage's grant, for all
                        self.model.time_bank.enter_stage("start", (e.player for e in
                                                                   self.model.alive()))
                    self.level_clock.start(self.clock())
                    self._next_sync = self.clock() + self.options.sync_every_s
                    return moves
                case TableReport(table=wire, seq=seq, event=event):
                    view = self.views[wire]
                    view.seq = max(view.seq, seq)
                    self.reports.apply(wire, event)
                    self.purchases.reported(wire, event)  # TOURN-10..12
                    return None
                case Buy() | BuyRefused():  # a rebuy or add-on asked (purchases.py)
                    self.purchases.journaled(entry)
                    return None
                case ReEnter() | Surrender() | DealMade():  # the director's money (money.py)
                    return self.money.applied(entry)
                case LevelUp(number=number):
                    self.model.set_level(number, rng)
                    return None
                case BreakBegun():
                    self.model.start_break()
                    return None
                case ClockState(state=state):
                    elapsed = max(0.0, self.wall() - (at or self.wall()))
                    self.level_clock.restore(state, self.clock(), elapsed_since=elapsed)
                    return None
                case FloorOp(op=op, table=table):  # its moves kept for the move slips
                    return self.discipline.moved(self.plan.apply(op, table))
                case FloorDecision():  # the floor's discipline (discipline.py)
                    return self.discipline.apply(entry)
                case HandForHandOn(tables=tables):
                    self.dealing.h4h = HandForHand(tables)
                    self.dealing.released.clear()
                    return None
                case HandForHandOff():
                    self.dealing.h4h = None
                    return None
                case LastHandsDrawn(card=card, seconds_left=seconds):
                    card = card or LastHands.draw(rng)
                    self.dealing.last_hands = LastHands(
                        sorted(self.numbers[w] for w in self._live_wires()),
                        seconds_left=seconds, card=card)
                    self.level_clock.pause(self.clock())  # TOURN-27: the clock stops
                    return card
                case HandForHandSkip(table=table):
                    if self.dealing.h4h is not None:
                        self.dealing.h4h.skip(table)
                    return None
                case _:
                    assert_never(entry)
        except DirectorError as exc:
            if self.replaying:
                return None
            raise DirectorError(exc.reason, exc.rule) from None

    # -- the floor's task ---------------------------------------------------------------------
    def _ensure_running(self) -> None:
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run(),
                                                                name=f"director-{self.id}")

    async def _run(self) -> None:
        while True:
            try:
                await self._tend()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the floor keeps running; the reason is kept
                self._anomaly(f"the director's task failed once: {exc!r}")
                log.exception("tournament %s: the director's task failed", self.id)
            if self.finished.is_set():
                return
            await self._sleep()

    async def _sleep(self) -> None:
        now = self.clock()
        deadline = min(self.level_clock.next_deadline() or float("inf"), self._next_sync)
        timeout = max(0.01, min(deadline - now, 5.0))
        # asyncio.timeout, not wait_for: on 3.11 wait_for swallows a cancel (stop()) that
        # comes as a report wakes the task, and the task would run on
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout):
                await self._wake.wait()
        self._wake.clear()

    async def _tend(self) -> None:
        if self.model.stage is not Stage.RUNNING:
            await self._finish()
            return
        await self._tick_clock()
        await self.releases.keep()
        if self.options.auto_balance and self.floor_work_due() and self.idle_for_moves():
            await self.carry_out_floor_work()
        elif not self.options.auto_balance:
            await self._stop_short_tables()
        await self.releases.deal()
        if self.dealing.last_hands is not None and self.dealing.h4h is None:
            await self.releases.deal_last_hands()

    async def _finish(self) -> None:
        if self.finished.is_set():
            return
        if self.dealing.h4h is not None:
            await self.releases.end()
        if self.options.close_tables_at_end:
            for wire, view in self.views.items():
                if not view.closed:
                    await self.link.command(wire, CloseTable())
        self.finished.set()
        log.info("tournament %s finished: %s", self.id, self.status()["places"][:3])

    # -- the level clock (the host is the authority) ------------------------------------------
    async def _tick_clock(self) -> None:
        now = self.clock()
        sync = False
        for event in self.level_clock.poll(now):
            if isinstance(event, LevelStarted) and event.number > self.model.level:
                self._record(LevelUp(number=event.number))
                sync = True
            elif isinstance(event, BreakStarted):
                self._record(BreakBegun())
                sync = True
        if sync or now >= self._next_sync:
            self._next_sync = now + self.options.sync_every_s
            self._record(ClockState(state=self.level_clock.state(now)))
            await self.link.broadcast([SyncClock(
                level=self.level_clock.number, seconds_left=self.level_clock.seconds_left(now),
                on_break=self.level_clock.on_break)], self._live_wires())

    async def _stop_short_tables(self) -> None:
        """TOURN-19 without automatic balancing: a table 3 or more short waits, paused."""
        stopped = {self.wires[n] for n in self.model.floor.stopped_tables()}
        if stopped - self._stopped_held:
            await self.link.hold(sorted(stopped - self._stopped_held))
        done = self._stopped_held - stopped
        if done:
            await self.link.release(sorted(done))
        self._stopped_held = stopped

    def _anomaly(self, what: str) -> None:
        self.anomalies.append(what)
        log.error("the tournament director: %s", what)

    def _live_wires(self) -> list[str]:
        return live_wires(self.model.floor, self.views)

    # -- reading ----------------------------------------------------------------------------------
    @property
    def h4h(self) -> HandForHand | None:
        """Hand-for-hand play, while it lasts (TOURN-22)."""
        return self.dealing.h4h

    @property
    def last_hands(self) -> LastHands | None:
        """The last hands of the day, once drawn (TOURN-27)."""
        return self.dealing.last_hands

    @property
    def busy(self) -> bool:
        """Carrying out floor work or a purchase (the tables may be held)."""
        return self._floor_lock.locked()

    def floor_work_due(self) -> bool:
        """The tournament runs and the floor needs balancing, a table broken or the
        final-table redraw."""
        return self.plan.work_due()

    def idle_for_moves(self) -> bool:
        """Players may move now: outside hand-for-hand, or every table between hands."""
        return self.dealing.idle_for_moves()

    def suggestions(self) -> list[dict[str, Any]]:
        """What the floor would do now, without doing it; a move that waits for a hand to
        end is ``pending``. Reading never fails: a plan the floor cannot make now is
        logged and none is shown (the floor's task meets it when it is due)."""
        try:
            return self.plan.suggestions()
        except DirectorError as exc:
            log.warning("tournament %s: no suggestion now: %s (%s)", self.id, exc.reason,
                        exc.rule)
            return []

    def status(self) -> dict[str, Any]:
        """A JSON-able snapshot of the tournament for the API, the dashboard and the demo."""
        running = self.model.stage is Stage.RUNNING
        return {"id": self.id, **snapshot(self.model, self.views, self.dealing,
                                          self.level_clock, self.clock()),
                "auto_balance": self.options.auto_balance, "version": self.version,
                "suggestions": self.suggestions() if running else [],
                "figures": dict(self.figures), "anomalies": list(self.anomalies[-20:])}
