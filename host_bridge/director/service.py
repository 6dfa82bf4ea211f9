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
  (:meth:`observe`, hooked into :class:`~host_bridge.bridge.Bridge`): ``hand_started``/
  ``hand_ended`` (stacks, eliminations, places), ``hand_voided``, ``table_changed``
  (``player_seated``, ``player_moved`` with the stack, ``player_busted``,
  ``player_removed``, ``paused``/``resumed``, ``hand_for_hand``, ``table_closed``),
  ``stack_adjusted`` (a colour-up's chip race; a rebuy or add-on) and ``shot_clock``
  (a time-bank chip spent: the count a moved player carries, TOURN-32). After every
  hand the invariants are checked (every player seated once, no table over its seats,
  chips conserved, places unique and complete); a failure is kept in :attr:`anomalies`
  and logged at ERROR.

How moves are carried out (TOURN-19/20/21/28): the model decides; the tables are then
made to match it (:meth:`_reconcile`: every player the model seats elsewhere leaves with
``MovePlayer``, then everyone not yet in their model seat is seated with ``SeatPlayer``).
Tables move players between hands only, so before any balancing, break or redraw every
live table is *held*: outside hand-for-hand it is paused (its ``paused`` event, after its
last hand's events in seq order, says the model is up to date with it), during
hand-for-hand the tables wait anyway. A table short by three or more is therefore never
dealt to until balanced (TOURN-19). The level clock is the host's (a controller.clocks
:class:`LevelClock` on the host's monotonic time).

Persistence: every input is journaled before it is applied
(:class:`~host_bridge.director.journal.DirectorJournal`) and a restart replays them
(:meth:`restore`), then makes the tables match the model again.

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
import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from controller.clocks.events import BreakStarted, LevelStarted
from controller.clocks.level_clock import LevelClock
from controller.clocks.timebank import ExtensionChips
from controller.sync.messages import (
    CloseTable,
    Command,
    EventMessage,
    NextHand,
    ReplyMessage,
    ScheduleColourUp,
    SyncClock,
)
from controller.sync.messages import (
    HandForHand as HandForHandCommand,
)
from host_bridge.models import EventRecord

from .entries import Stage
from .errors import DirectorError
from .floorwork import FloorWork, TableView
from .handforhand import HandForHand, LastHands
from .journal import DirectorJournal
from .options import TournamentOptions
from .purchases import Purchases
from .tournament import Tournament

log = logging.getLogger(__name__)
_REPORTS = frozenset({"hand_started", "hand_ended", "hand_voided", "misdeal", "table_changed",
                      "stack_adjusted", "shot_clock"})
ACTOR = "tournament-director"


class CommandSender(Protocol):
    """The bridge's command desk (:class:`~host_bridge.dispatch.CommandDesk`)."""

    async def send(self, table_id: str, command: Command, *, actor: str,
                   role: str) -> tuple[str, ReplyMessage]: ...


class TournamentDirector(FloorWork, Purchases):
    """One tournament on the floor, from registration to the winner."""

    def __init__(self, options: TournamentOptions, desk: CommandSender | None, *,
                 journal: DirectorJournal | None = None, tournament_id: str | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 wall: Callable[[], float] = time.time, command_timeout_s: float = 20.0) -> None:
        options.verify()
        self.options = options
        self.id = tournament_id or f"{options.name[:40]}-{uuid.uuid4().hex[:8]}"
        self.desk = desk
        self.journal = journal
        self.clock, self.wall = clock, wall
        self.command_timeout_s = command_timeout_s
        self.rng = random.Random(options.seed)
        self.numbers = options.table_numbers
        self.wires = {n: w for w, n in self.numbers.items()}
        grants = {"start": options.time_bank_start,
                  "final_table": options.time_bank_final_table}
        self.model = Tournament(options.setup(), options.rules_profile(),
                                {n: options.tables[w] for w, n in self.numbers.items()},
                                time_bank=ExtensionChips(grants=grants))
        self.views = {w: TableView(w, n) for w, n in self.numbers.items()}
        self.level_clock = LevelClock(self.model.setup.structure)
        self.h4h: HandForHand | None = None
        self.last_hands: LastHands | None = None
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
        self._released: set[int] = set()  # NextHand sent for the open h4h hand
        self._stopped_held: set[str] = set()
        self._floor_lock = asyncio.Lock()
        self._waiters: list[tuple[Callable[[], bool], asyncio.Future[None]]] = []
        self.asked: dict[str, str] = {}  # rebuys/add-ons sent, not yet reported (TOURN-10)

    # -- creating and restoring -----------------------------------------------------------
    @classmethod
    def create(cls, options: TournamentOptions, desk: CommandSender | None, *,
               journal: DirectorJournal | None = None, **kw: Any) -> TournamentDirector:
        """A new tournament with ``options.players`` registered."""
        director = cls(options, desk, journal=journal, **kw)
        director._record("create", {"options": options.to_json(), "id": director.id})
        for player in options.players:
            director.model.verify_register(player)
            director._record("register", {"player": player})
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
        if not inputs or inputs[0].kind != "create":
            return None
        options = TournamentOptions.from_json(inputs[0].body["options"])
        director = cls(options, desk, journal=journal, tournament_id=tid, **kw)
        director.replaying = True
        for item in inputs[1:]:
            director._apply(item.kind, item.body, at=item.at)
        director.replaying = False
        log.info("tournament %s restored from %d journaled inputs", tid, len(inputs))
        return director

    async def resume(self) -> None:
        """After :meth:`restore`: make the tables match the model, run the floor again."""
        if self.model.stage is Stage.RUNNING:
            await self._hold(self._live_wires())
            await self._reconcile()
            await self._release(self._live_wires())
            self._ensure_running()
        elif self.model.stage is Stage.FINISHED:
            self.finished.set()

    # -- the director's commands -----------------------------------------------------------
    async def register(self, player: str) -> None:
        """Enter a player: before the start, or a late entry seated at once (TOURN-4)."""
        self.model.verify_register(player)
        if self.model.stage is Stage.RUNNING:
            self.model.floor.suggest_late_entry(player, random.Random(0))  # a seat exists?
        self._record("register", {"player": player})
        if self.model.stage is Stage.RUNNING:
            await self._reconcile()

    async def start(self) -> None:
        """The seat draw (TOURN-2); players seated with their stacks; the clock starts."""
        self.model.verify_start()
        wires = list(self.views)
        await self._hold(wires)
        self._record("start", {"clock": None})
        await self._broadcast([SyncClock(level=1, seconds_left=self.level_clock.seconds_left(
            self.clock()))])
        colour_ups = [ScheduleColourUp(at_level=b.after_level + 1)
                      for b in self.model.setup.structure.breaks if b.colour_up]
        await self._broadcast(colour_ups)
        await self._reconcile()
        await self._release(wires)
        self._ensure_running()

    async def draw_last_hands(self, card: int | None = None) -> int:
        """TOURN-27: the clock stops, a card 3..7 is drawn (or given), and every table
        plays that many more hands, each released on its own (hand-for-hand mode, so no
        table deals one too many), then waits."""
        if self.model.stage is not Stage.RUNNING:
            raise DirectorError(f"the tournament is {self.model.stage}", "TOURN-27")
        if self.last_hands is not None:
            raise DirectorError("the last hands of the day are already drawn", "TOURN-27")
        seconds = self.level_clock.seconds_left(self.clock())
        LastHands([1], seconds_left=seconds, card=card or 3)  # refuses before journaling
        drawn: int = self._record("last_hands", {"card": card, "seconds_left": seconds})
        self._wake.set()
        return drawn

    async def run_until_winner(self, timeout_s: float | None = None) -> None:
        """Wait for the winner (the floor runs on its own task)."""
        self._ensure_running()
        await asyncio.wait_for(self.finished.wait(), timeout_s)

    async def stop(self) -> None:
        """Stop the director's task (the bridge is shutting down)."""
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None

    # -- reports from the bridge -------------------------------------------------------------
    def observe(self, items: Sequence[dict[str, Any]]) -> None:
        """The bridge's hook: the feed items of one stored batch, in each table's seq order.
        Events of this tournament's tables are journaled, then applied."""
        reports: list[tuple[str, dict[str, Any]]] = []
        seen: dict[str, int] = {}
        for item in items:
            if item.get("type") != "event" or item.get("table") not in self.views:
                continue
            event = item.get("event") or {}
            wire = item["table"]
            if event.get("kind") in _REPORTS and item.get("seq", 0) > seen.get(
                    wire, self.views[wire].seq):
                seen[wire] = item["seq"]
                reports.append(("event", {"table": item["table"], "seq": item["seq"],
                                          "event": event}))
        if not reports:
            return
        if self.journal is not None:
            self.journal.append_many(self.id, reports, self.wall())
        for kind, body in reports:
            self._apply(kind, body)
        self._check_waiters()
        self._wake.set()

    def catch_up(self, sessions: sessionmaker[Session]) -> int:
        """Apply the reports the bridge stored and this director has not seen (the gap
        between a restart's replay and the hook); returns how many. Call it right after
        adding :meth:`observe` to the bridge, on the event loop."""
        with sessions() as session:
            rows = session.execute(select(
                EventRecord.table_id, EventRecord.seq, EventRecord.payload).where(
                EventRecord.table_id.in_(list(self.views)), EventRecord.applied.is_(True),
                EventRecord.kind.in_(sorted(_REPORTS))).order_by(EventRecord.id)).all()
        items = [{"type": "event", "table": r.table_id, "seq": r.seq,
                  "event": EventMessage.model_validate_json(r.payload).event.model_dump(
                      mode="json")}
                 for r in rows if r.seq > self.views[r.table_id].seq]
        self.observe(items)
        return len(items)

    # -- journal and apply --------------------------------------------------------------------
    def _record(self, kind: str, body: dict[str, Any]) -> Any:
        """Journal one input, then apply it; returns what applying it returned."""
        if self.journal is not None:
            self.journal.append_many(self.id, [(kind, body)], self.wall())
        return self._apply(kind, body)

    def _apply(self, kind: str, body: dict[str, Any], *, at: float | None = None) -> Any:
        self.version += 1
        rng = self.rng
        try:
            if kind == "create":
                return None
            if kind == "register":
                return self.model.register(body["player"], rng)
            if kind == "start":
                moves = self.model.start(rng)
                if self.options.time_bank_start:  # issue 5: the stage's grant, for all
                    self.model.time_bank.enter_stage("start", (e.player for e in
                                                               self.model.alive()))
                self.level_clock.start(self.clock())
                self._next_sync = self.clock() + self.options.sync_every_s
                return moves
            if kind == "event":
                view = self.views[body["table"]]
                view.seq = max(view.seq, int(body["seq"]))
                self._apply_event(body["table"], body["event"])
                self._purchase_reported(body["table"], body["event"])  # TOURN-10..12
                return None
            if kind in ("buy", "buy_refused"):  # a rebuy or add-on asked (purchases.py)
                self._apply_purchase(kind, body)
                return None
            if kind == "level":
                self.model.set_level(int(body["number"]), rng)
                return None
            if kind == "break":
                self.model.start_break()
                return None
            if kind == "clock":
                elapsed = max(0.0, self.wall() - (at or self.wall()))
                self.level_clock.restore(body["state"], self.clock(), elapsed_since=elapsed)
                return None
            if kind == "floor":
                return self._floor_op(body["op"], body.get("table"))
            if kind == "h4h_on":
                self.h4h = HandForHand(body["tables"])
                self._released.clear()
                return None
            if kind == "h4h_off":
                self.h4h = None
                return None
            if kind == "last_hands":
                card = body.get("card") or LastHands.draw(rng)
                self.last_hands = LastHands(
                    sorted(self.numbers[w] for w in self._live_wires()),
                    seconds_left=float(body["seconds_left"]), card=int(card))
                self.level_clock.pause(self.clock())  # TOURN-27: the clock stops
                return card
            if kind == "h4h_skip":
                if self.h4h is not None:
                    self.h4h.skip(int(body["table"]))
                return None
        except DirectorError as exc:
            if self.replaying:
                return None
            raise DirectorError(exc.reason, exc.rule) from None
        raise DirectorError(f"the journal holds an input of unknown kind {kind!r}", "TOURN-1")

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
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._wake.wait(), timeout)
        self._wake.clear()

    async def _tend(self) -> None:
        if self.model.stage is not Stage.RUNNING:
            await self._finish()
            return
        await self._tick_clock()
        await self._hand_for_hand()
        if self.options.auto_balance and self.floor_work_due() and self.idle_for_moves():
            await self.carry_out_floor_work()
        elif not self.options.auto_balance:
            await self._stop_short_tables()
        await self._deal_hand_for_hand()
        if self.last_hands is not None and self.h4h is None:
            await self._deal_last_hands()

    async def _finish(self) -> None:
        if self.finished.is_set():
            return
        if self.h4h is not None:
            self._record("h4h_off", {})
            await self._broadcast([HandForHandCommand(on=False)])
        if self.options.close_tables_at_end:
            for wire, view in self.views.items():
                if not view.closed:
                    await self._command(wire, CloseTable())
        self.finished.set()
        log.info("tournament %s finished: %s", self.id, self.status()["places"][:3])

    # -- the level clock (the host is the authority) ------------------------------------------
    async def _tick_clock(self) -> None:
        now = self.clock()
        sync = False
        for event in self.level_clock.poll(now):
            if isinstance(event, LevelStarted) and event.number > self.model.level:
                self._record("level", {"number": event.number})
                sync = True
            elif isinstance(event, BreakStarted):
                self._record("break", {})
                sync = True
        if sync or now >= self._next_sync:
            self._next_sync = now + self.options.sync_every_s
            self._record("clock", {"state": self.level_clock.state(now)})
            await self._broadcast([SyncClock(
                level=self.level_clock.number, seconds_left=self.level_clock.seconds_left(now),
                on_break=self.level_clock.on_break)])

    # -- hand-for-hand (TOURN-22) -------------------------------------------------------------
    def _hand_for_hand_wanted(self) -> bool:
        left = len(self.model.alive()) - self.model.places_paid()
        return 0 < left <= self.options.hand_for_hand_margin and len(self._live_wires()) > 1

    async def _hand_for_hand(self) -> None:
        wanted = self._hand_for_hand_wanted()
        if wanted and self.h4h is None:
            live = self._live_wires()
            await self._broadcast([HandForHandCommand(on=True)], live)
            await self._until(lambda: all(self.views[w].hand_for_hand and not self._in_hand(w)
                                          for w in live if not self.views[w].closed))
            self._record("h4h_on", {"tables": sorted(self.numbers[w] for w in live
                                                     if not self.views[w].closed)})
        elif not wanted and self.h4h is not None:
            self._record("h4h_off", {})
            await self._broadcast([HandForHandCommand(on=False)])

    async def _deal_hand_for_hand(self) -> None:
        """TOURN-22: the next hand everywhere at once once every table has finished."""
        h4h = self.h4h
        if h4h is None:
            return
        if self.options.auto_balance and self.idle_for_moves() and self.floor_work_due():
            return  # the floor's moves first (the tables wait between hands)
        release = []
        for number in sorted(h4h.may_deal() - self._released):
            if len(self.model.floor.tables[number].players) < 2:
                self._record("h4h_skip", {"table": number})
                continue
            self._released.add(number)
            release.append(self.wires[number])
        replies = await asyncio.gather(*(self._command(w, NextHand()) for w in release))
        for wire, reply in zip(release, replies, strict=True):
            if reply is None or reply.status != "ok":  # not released: ask again later
                self._released.discard(self.numbers[wire])

    async def _deal_last_hands(self) -> None:
        """TOURN-27: each table is held between hands (hand-for-hand mode, so none deals
        one hand too many) and released one hand at a time until it has played the card."""
        lh = self.last_hands
        assert lh is not None
        live = self._live_wires()
        holding = [w for w in live if not self.views[w].hand_for_hand]
        if holding:
            await self._broadcast([HandForHandCommand(on=True)], holding)
        release = [w for w in live if self.views[w].hand_for_hand and not self._in_hand(w)
                   and lh.may_deal(self.numbers[w]) and self.numbers[w] not in self._released
                   and len(self.model.floor.tables[self.numbers[w]].players) > 1]
        self._released.update(self.numbers[w] for w in release)
        await asyncio.gather(*(self._command(w, NextHand()) for w in release))

    # -- commands -------------------------------------------------------------------------------
    async def _command(self, wire: str, command: Command) -> ReplyMessage | None:
        if self.desk is None or self.replaying:
            return None
        self.figures["commands"] += 1
        try:
            _, reply = await self.desk.send(wire, command, actor=ACTOR, role="director")
        except Exception as exc:  # timeout, unsent: the table's events will tell
            log.warning("tournament %s: %s to %s: %s", self.id, command.name, wire, exc)
            return None
        if reply.status != "ok":
            self.figures["refused"] += 1
            log.info("tournament %s: table %s refused %s: %s", self.id, wire, command.name,
                     reply.error)
        return reply

    async def _broadcast(self, commands: Iterable[Command],
                         wires: Iterable[str] | None = None) -> None:
        targets = [w for w in (wires if wires is not None else self._live_wires())
                   if not self.views[w].closed]
        for command in commands:
            await asyncio.gather(*(self._command(w, command) for w in targets))

    async def _stop_short_tables(self) -> None:
        """TOURN-19 without automatic balancing: a table 3 or more short waits, paused."""
        stopped = {self.wires[n] for n in self.model.floor.stopped_tables()}
        if stopped - self._stopped_held:
            await self._hold(sorted(stopped - self._stopped_held))
        done = self._stopped_held - stopped
        if done:
            await self._release(sorted(done))
        self._stopped_held = stopped

    @property
    def busy(self) -> bool:
        """Carrying out floor work (the tables may be held)."""
        return self._floor_lock.locked()

    # -- reading ----------------------------------------------------------------------------------
    def status(self) -> dict[str, Any]:
        """A JSON-able snapshot of the tournament for the API, the dashboard and the demo."""
        from .standings import snapshot  # a plain function over this director

        return snapshot(self)

    async def command_for(self, wire: str, command: Command) -> ReplyMessage | None:
        """Send one command to a table as the director (audited)."""
        return await self._command(wire, command)
