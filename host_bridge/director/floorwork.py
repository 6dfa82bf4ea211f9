"""The director's work on the floor: the tables' reports applied to the model, the floor
operations (balancing, breaking, the final-table redraw), and the commands that make the
tables match the model (TOURN-2, -4, -19, -20, -21, -22, -27, -28).

Bridge side: :class:`FloorWork` is the half of
:class:`~host_bridge.director.service.TournamentDirector` that knows the tables; see that
module for the whole picture.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from controller.rules.button import Positions
from controller.rules.errors import RulesError
from controller.sync.messages import (
    CloseTable,
    Command,
    MovePlayer,
    Pause,
    ReplyMessage,
    Resume,
    SeatPlayer,
)

from .entries import HandResult
from .errors import DirectorError
from .handforhand import H4H, HandForHand, LastHands
from .options import TournamentOptions
from .seating import Floor, Move
from .tournament import Tournament

log = logging.getLogger(__name__)
INSIST_TRIES = 40  # tries of a seating command a table keeps refusing (a colour-up...)
INSIST_PAUSE_S = 0.5  # between tries after a refusal or no reply


@dataclass(slots=True)
class HandInPlay:
    """A hand a table has started and not yet ended, as it reported it."""

    players: list[str]
    start: list[int]
    positions: Positions | None
    h4h: int | None


@dataclass(slots=True)
class TableView:
    """One table as its own events show it (not the model's plan)."""

    wire: str
    number: int
    seats: dict[int, str] = field(default_factory=dict)
    paused: bool = False
    hand_for_hand: bool = False
    closed: bool = False
    hand: HandInPlay | None = None
    moved_stacks: dict[str, int | None] = field(default_factory=dict)
    seq: int = 0
    hands: int = 0


def _positions(ev: dict[str, Any]) -> Positions | None:
    button, bb, sb = ev.get("button"), ev.get("big_blind_seat"), ev.get("small_blind_seat")
    seats = tuple(ev.get("seats", ()))
    if button is None or bb is None:
        return None
    for small in (sb, None):
        try:
            return Positions(button, small, bb, seats, small_blind_seat=sb)
        except (RulesError, TypeError):
            continue
    return None


class FloorWork:
    """The reports, the floor operations and the commands (mixed into the director)."""

    options: TournamentOptions
    model: Tournament
    views: dict[str, TableView]
    numbers: dict[str, int]
    wires: dict[int, str]
    rng: random.Random
    h4h: HandForHand | None
    last_hands: LastHands | None
    figures: dict[str, int]
    anomalies: list[str]
    replaying: bool
    version: int
    command_timeout_s: float
    _floor_lock: asyncio.Lock
    _released: set[int]
    _waiters: list[tuple[Callable[[], bool], asyncio.Future[None]]]

    def _record(self, kind: str, body: dict[str, Any]) -> Any:
        raise NotImplementedError

    async def _command(self, wire: str, command: Command) -> ReplyMessage | None:
        raise NotImplementedError

    # -- reports ----------------------------------------------------------------------------
    def _apply_event(self, wire: str, ev: dict[str, Any]) -> None:
        view = self.views[wire]
        kind = ev.get("kind")
        if kind == "hand_started":
            self._hand_started(view, ev)
        elif kind == "hand_ended":
            self._hand_ended(view, ev)
        elif kind in ("hand_voided", "misdeal"):
            self._hand_void(view)
        elif kind == "table_changed":
            self._table_changed(view, ev)
        elif kind == "shot_clock" and ev.get("what") == "extension" \
                and ev.get("chips_left") is not None and ev.get("seat") in view.seats:
            # a time-bank chip spent: the host's count follows (it goes with a move)
            self.model.time_bank.carry_in(view.seats[ev["seat"]], int(ev["chips_left"]))
        elif kind == "stack_adjusted" and ev.get("reason") == "colour_up":
            after = {view.seats[a["seat"]]: int(a["after"]) for a in ev.get("seats", ())
                     if a.get("seat") in view.seats}
            try:
                self.model.chip_race(after)  # CHIPRACE-1..4: the race's new stacks
            except DirectorError as exc:
                self._anomaly(f"table {wire}'s colour-up: {exc}")

    def _hand_started(self, view: TableView, ev: dict[str, Any]) -> None:
        number = view.number
        chart = self.model.floor.tables[number].players
        players = [view.seats.get(s) or chart.get(s) for s in ev.get("seats", ())]
        known = [p for p in players if p is not None]
        if len(known) != len(players):
            self._anomaly(f"table {view.wire} dealt a seat the director has nobody in")
            return
        if self.model.floor.tables[number].in_hand:
            self._anomaly(f"table {view.wire} started a hand before reporting the last one's "
                          "end")
            self.model.floor.tables[number].in_hand = False
        try:
            self.model.hand_started(number, self.rng, reported=True)
        except DirectorError as exc:
            self._anomaly(f"table {view.wire}'s hand: {exc}")
        h4h_hand = None
        if self.h4h is not None and number in self.h4h.state:
            self._released.discard(number)  # its NextHand is used up
            try:
                h4h_hand = self.h4h.hand_started(number)
            except DirectorError as exc:
                self._anomaly(f"table {view.wire} dealt out of turn: {exc}")
        if self.last_hands is not None and view.hand_for_hand and \
                self.last_hands.may_deal(number):  # TOURN-27: released hands only
            self._released.discard(number)
            self.last_hands.hand_started(number)
        view.hand = HandInPlay(known, [int(s) for s in ev.get("stacks", ())],
                               _positions(ev), h4h_hand)

    def _hand_ended(self, view: TableView, ev: dict[str, Any]) -> None:
        hand, view.hand = view.hand, None
        number = view.number
        if hand is None:
            self._anomaly(f"table {view.wire} ended a hand the director did not see start")
            return
        stacks = [int(s) for s in ev.get("stacks", ())]
        result = HandResult(number, dict(zip(hand.players, hand.start, strict=False)),
                            dict(zip(hand.players, stacks, strict=False)), hand.positions,
                            h4h_hand=hand.h4h)
        if self.h4h is not None and self.h4h.state.get(number) in (H4H.PLAYING, H4H.FROZEN):
            self.h4h.hand_ended(number)
            self.figures["h4h_hands"] += 1
        if self.last_hands is not None:
            self.last_hands.hand_ended(number)
        try:
            self.model.hand_ended(result, self.rng)
        except DirectorError as exc:
            self._anomaly(f"table {view.wire}'s hand report: {exc}")
            self.model.floor.tables[number].in_hand = False
        view.hands += 1
        self.figures["hands"] += 1
        self.check()

    def _hand_void(self, view: TableView) -> None:
        """A void hand or misdeal: stacks back, the same hand is dealt again (it does not
        count toward a penalty either, PEN-4)."""
        if view.hand is not None:
            self.model.penalties.hand_voided(view.hand.players)
        view.hand = None
        self.model.floor.tables[view.number].in_hand = False
        h4h = self.h4h
        if h4h is not None and h4h.state.get(view.number) is H4H.PLAYING:
            h4h.state[view.number] = H4H.WAITING  # it deals the same hand again (TOURN-22)
            h4h.to_deal.add(view.number)
            self._released.discard(view.number)

    def _table_changed(self, view: TableView, ev: dict[str, Any]) -> None:
        change, seat = ev.get("change"), ev.get("seat")
        if change == "player_seated" and seat is not None and ev.get("player"):
            view.seats[int(seat)] = str(ev["player"])
        elif change in ("player_moved", "player_removed", "player_busted") and seat is not None:
            player = view.seats.pop(int(seat), None)
            if change == "player_moved" and player is not None:
                view.moved_stacks[player] = ev.get("stack")
        elif change in ("paused", "resumed"):
            view.paused = change == "paused"
        elif change == "hand_for_hand" and ev.get("on") is not None:
            view.hand_for_hand = bool(ev["on"])
        elif change == "table_closed":
            view.closed = True

    def check(self) -> None:
        """The invariants after every hand (every player seated once, no table over its
        seats, chips conserved, places unique and complete)."""
        self.figures["checks"] += 1
        try:
            self.model.check()
        except AssertionError as exc:
            self._anomaly(f"an invariant does not hold: {exc}")

    # -- floor operations ------------------------------------------------------------------------
    def _due(self, floor: Floor) -> tuple[str, int | None] | None:
        """The next operation the floor needs: the final-table redraw (TOURN-28), a table
        broken (TOURN-21), or balancing (TOURN-19/20)."""
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

    def idle_for_moves(self) -> bool:
        """Hand-for-hand: every table has finished the hand and none has been released
        for the next one (outside it, tables are held by pausing them)."""
        return self.h4h is None or (not self._released and all(
            s is H4H.WAITING for s in self.h4h.state.values()))

    def floor_work_due(self) -> bool:
        return self.model.stage.value == "running" and self._due(self.model.floor) is not None

    def _floor_op(self, op: str, table: int | None) -> list[Move]:
        floor = self.model.floor
        if op == "balance":
            moves = floor.suggest_balance(self.rng)
            floor.apply_all(moves)
            self.figures["balances"] += 1
        elif op == "break" and table is not None:
            moves = floor.break_table(table, self.rng)
            if self.h4h is not None and table in self.h4h.state:
                self.h4h.remove_table(table)
            self.figures["breaks"] += 1
        elif op == "redraw" and table is not None:
            moves, _ = floor.final_table_redraw(table, self.rng)
            if self.options.time_bank_final_table:  # issue 5: a new grant for everyone
                self.model.time_bank.enter_stage("final_table",
                                                 (e.player for e in self.model.alive()))
            if self.h4h is not None:
                for t in [t for t in self.h4h.state if t != table]:
                    self.h4h.remove_table(t)
        else:
            raise DirectorError(f"no floor operation {op!r}", "TOURN-19")
        self.figures["moves"] += len(moves)
        return moves

    def suggestions(self) -> list[dict[str, Any]]:
        """What the floor would do now, without doing it (on copies of the chart and of
        the draw's random state)."""
        floor = self.model.floor.copy()
        rng = random.Random()
        rng.setstate(self.rng.getstate())
        out: list[dict[str, Any]] = []
        for _ in range(len(floor.tables) + 2):
            due = self._due(floor)
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
            out.append({"op": op, "table": None if table is None else self.wires[table],
                        "moves": [self._move_json(m) for m in moves]})
            if not moves:
                break
        return out

    def _move_json(self, m: Move) -> dict[str, Any]:
        return {"player": m.player, "from_table": None if m.from_table is None
                else self.wires[m.from_table], "from_seat": m.from_seat,
                "to_table": self.wires[m.to_table], "to_seat": m.to_seat, "rule": m.rule}

    async def carry_out_floor_work(self, version: int | None = None) -> int:
        """Hold the tables, carry out every operation due, make the tables match, release
        them; returns the number of moves. ``version``: refuse if the floor changed since
        the suggestion with that version was shown."""
        async with self._floor_lock:
            if version is not None and version != self.version:
                raise DirectorError("the floor changed since those suggestions were shown; "
                                    "look at them again", "TOURN-19")
            if self.h4h is not None:
                if not self.idle_for_moves():
                    raise DirectorError("hand-for-hand: players move once every table has "
                                        "finished the hand", "TOURN-22")
                held: list[str] = []
            else:
                held = self._live_wires()
                await self._hold(held)
            moves = 0
            for _ in range(len(self.model.floor.tables) + 2):
                due = self._due(self.model.floor)
                if due is None:
                    break
                done = self._record("floor", {"op": due[0], "table": due[1]})
                moves += len(done)
                if not done:
                    break
            await self._reconcile()
            await self._release([w for w in held if not self.views[w].closed])
            return moves

    # -- making the tables match the model ---------------------------------------------------------
    async def _reconcile(self) -> None:
        """Every player the model seats elsewhere leaves (MovePlayer), then everyone is
        seated where the model says (SeatPlayer with the model's stack); broken tables
        close. Idempotent: after a restart it finishes what a crash interrupted."""
        if self.replaying:
            return
        floor = self.model.floor
        shown = {p: (w, s) for w, v in self.views.items() for s, p in v.seats.items()}
        leave: list[tuple[str, int, str, str]] = []  # from wire, seat, player, to wire
        arrive: list[tuple[str, int, str]] = []
        for number, ts in floor.tables.items():
            wire = self.wires[number]
            for seat, player in sorted(ts.players.items()):
                if self.views[wire].seats.get(seat) == player:
                    continue
                if self.model.entry(player).stack <= 0:  # a bust who may still rebuy
                    continue  # (TOURN-10): off the table until the rebuy seats them
                arrive.append((wire, seat, player))
                if player in shown:
                    leave.append((*shown[player], player, wire))
        await asyncio.gather(*(self._insist(
            w, MovePlayer(seat=s, to_table=to),
            self._seated(w, s, p, False))
            for w, s, p, to in leave))
        for _, _, player, _ in leave:
            reported = next((v.moved_stacks.pop(player) for v in self.views.values()
                             if player in v.moved_stacks), None)
            if reported is not None and reported != self.model.entry(player).stack:
                self._anomaly(f"{player} left with {reported} chips; the director has "
                              f"{self.model.entry(player).stack}")
        await asyncio.gather(*(self._insist(
            w, self._seat_command(s, p),
            self._seated(w, s, p, True))
            for w, s, p in arrive))
        for number in sorted(floor.closed):
            view = self.views[self.wires[number]]
            if not view.closed and not view.seats:
                await self._command(view.wire, CloseTable())

    def _seat_command(self, seat: int, player: str) -> SeatPlayer:
        """Seat ``player`` with the model's stack and what follows them from table to table
        (PEN-5, TOURN-32): the hands of a penalty still to serve (rounds were converted to
        hands when given, PEN-2) and the time-bank chips the host knows they hold (None:
        the host has no count, the table gives a newcomer's)."""
        carry = self.model.carry(player)
        known = player in self.model.time_bank.state()["chips"]
        return SeatPlayer(seat=seat, player=player, stack=self.model.entry(player).stack,
                          extension_chips=carry.time_bank_chips if known else None,
                          penalty_hands=carry.penalty_hands or None)

    # -- holding tables and waiting for reports ---------------------------------------------
    async def _hold(self, wires: Sequence[str]) -> None:
        """Stop ``wires`` dealing: paused, their last hand reported."""
        todo = [w for w in wires if not self.views[w].closed and not self.views[w].paused]
        await asyncio.gather(*(self._command(w, Pause()) for w in todo))
        await self._until(lambda: all((self.views[w].paused or self.views[w].closed)
                                      and not self._in_hand(w) for w in wires))

    async def _release(self, wires: Sequence[str]) -> None:
        todo = [w for w in wires if self.views[w].paused and not self.views[w].closed
                and not self._day_over(w)]
        await asyncio.gather(*(self._command(w, Resume()) for w in todo))

    def _day_over(self, wire: str) -> bool:
        """TOURN-27: a table that has played its last hands stays held."""
        lh = self.last_hands
        return lh is not None and wire in self.numbers and not lh.may_deal(self.numbers[wire])

    def _seated(self, wire: str, seat: int, player: str, there: bool) -> Callable[[], bool]:
        """Whether the table reports ``player`` in ``seat`` (``there``) or not."""
        return lambda: (self.views[wire].seats.get(seat) == player) is there

    async def _insist(self, wire: str, command: Command, done: Callable[[], bool]) -> None:
        """Send ``command`` until the table reports ``done()``: a table may refuse for a
        while (a colour-up or a hand to finish first) or miss a command while it
        reconnects. Each try gets a fresh command id; the check comes first, so a command
        that did its work is never sent again. Gives up, as an anomaly, after
        ``INSIST_TRIES`` tries."""
        for _ in range(INSIST_TRIES):
            if self.replaying or done():
                return
            reply = await self._command(wire, command)
            wait = self.command_timeout_s if reply is not None and reply.status == "ok" \
                else INSIST_PAUSE_S
            if await self._until(done, wait, quiet=True):
                return
        self._anomaly(f"table {wire} did not carry out {command.name} after "
                      f"{INSIST_TRIES} tries")

    async def _until(self, ready: Callable[[], bool], timeout_s: float | None = None, *,
                     quiet: bool = False) -> bool:
        """Wait until ``ready()`` holds after some report; False on timeout (noted as an
        anomaly unless ``quiet``)."""
        if self.replaying or ready():
            return True
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append((ready, future))
        try:
            await asyncio.wait_for(future, timeout_s or self.command_timeout_s)
            return True
        except TimeoutError:
            if not quiet:
                self._anomaly("the tables did not report what the director waited for in "
                              "time")
            return False
        finally:
            self._waiters = [(r, f) for r, f in self._waiters if f is not future]

    def _check_waiters(self) -> None:
        for ready, future in list(self._waiters):
            if not future.done() and ready():
                future.set_result(None)

    def _anomaly(self, what: str) -> None:
        self.anomalies.append(what)
        log.error("the tournament director: %s", what)

    def _in_hand(self, wire: str) -> bool:
        return self.model.floor.tables[self.numbers[wire]].in_hand

    def _live_wires(self) -> list[str]:
        return [w for w, n in self.numbers.items()
                if n not in self.model.floor.closed and not self.views[w].closed
                and (self.model.floor.tables[n].players or self.views[w].seats)]
