"""The cash room (issue 19, item 4): cash games from the shipped house files, joined to the
floor's tables through the bridge.

:class:`CashRoom` holds the pure :class:`~host_bridge.director.cash.CashFloor` (waiting
lists, calls, buy-in limits and ratholing, sit-outs, the Banzai limits) and the games:
each game is one shipped cash house (its stakes and buy-in limits) played at some of the
floor's tables. What the room decides reaches a table as a command on the path every
command takes (``SeatPlayer``, ``RemovePlayer``, ``SetHouse``, the auto top-up's
``AddChips``): the caller gives a :data:`Sender`. Every check is made before anything is
sent, and the model changes only when the table has answered ``ok``.

The tables' own reports come back through ``Bridge.observers``: a player seated or removed
at the table itself, ``sat_out``/``came_back`` (CASH-4/5), each hand's button (CASH-9)
and stacks (CASH-6).

Persistence: the whole room (games and model, a few kilobytes) is one JSON row of the
``cash_room`` table, rewritten after every change; a restart reads it back whole. The
room changes only on the event loop, one request at a time (:attr:`CashRoom.lock`).
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Final

from sqlalchemy import JSON, Float, Integer, select
from sqlalchemy.orm import Mapped, Session, mapped_column, sessionmaker

from controller.clocks.house import House
from controller.events import (
    AddChips,
    CameBack,
    Command,
    HandEnded,
    HandStarted,
    PlayerMoved,
    PlayerRemoved,
    PlayerSeated,
    RemovePlayer,
    SatOut,
    SeatPlayer,
    SetHouse,
)
from controller.rules.button import Positions
from controller.rules.errors import RulesError
from controller.sync.messages import EventMessage, ReplyMessage
from host_bridge.bridge import Bridge
from host_bridge.db import writer_sessions
from host_bridge.director.cash import CashFloor, Due, Stake
from host_bridge.director.errors import DirectorError
from host_bridge.houses import check_house_text, shipped_text
from host_bridge.models import Base, PokerTable
from host_bridge.models import Seat as SeatRow

log = logging.getLogger(__name__)

Sender = Callable[[str, Command], Awaitable[ReplyMessage]]
"""Sends one command to a table (by wire id) and returns its reply; raises when it was not
sent or not answered (the route's HTTP error)."""
ACTOR: Final = "cash-room"  # the audit log's actor for the auto top-up
_RULE = re.compile(r"\(([A-Z]+-\d+)\)")


class CashRecord(Base):
    """The cash room, whole: one row (id 1), its JSON rewritten after every change."""

    __tablename__ = "cash_room"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    body: Mapped[dict[str, Any]] = mapped_column(JSON)
    at: Mapped[float] = mapped_column(Float)  # wall-clock seconds of the last change


@dataclass(slots=True)
class Game:
    """A cash game: a shipped house played at some of the floor's tables."""

    id: str
    house: str  # the shipped file's stem
    name: str
    label: str
    unit: str
    text: str  # the house file, sent as set_house to a table opened for the game
    tables: list[str] = field(default_factory=list)  # wire ids; model table i + 1
    new_table_after: int = 4  # suggest a table when more are waiting than this


class TableRefused(Exception):
    """A table answered ``error``: nothing changed here. ``rule`` from its reason."""

    def __init__(self, table: str, what: str, reason: str) -> None:
        rules = _RULE.findall(reason)
        self.rule = rules[-1] if rules else None
        super().__init__(f"table {table!r} refused {what}: {reason}")


class NotFound(Exception):
    """No such game (or table): the message says what exists."""


def stake_of(game_id: str, house: House, no_rathole: bool) -> Stake:
    """The model's stake for a cash house: its blinds, buy-in limits and format rules."""
    if house.kind != "cash" or house.stakes is None:
        raise DirectorError(f"{house.name!r} is a {house.kind} house; a cash game needs a "
                            "cash house (GET /api/v1/houses)", "CASH-8")
    buy_in = house.buy_in
    online = house.rules["timebank.model"] is not None
    banzai = buy_in is not None and buy_in.rule == "CASH-7"
    most = house.rules["banzai.max_tables_per_stake"]
    return Stake(game_id, house.stakes.small_blind, house.stakes.big_blind,
                 buy_in.minimum if buy_in else 0, buy_in.maximum if buy_in else 0,
                 rule=buy_in.rule if buy_in else ("CASH-2" if online else "CASH-8"),
                 online=online, no_rathole=no_rathole, banzai=banzai,
                 max_tables=most if isinstance(most, int) else 4)


class CashRoom:
    """The bridge's cash games, their waiting lists and their tables."""

    def __init__(self, bridge: Bridge, sessions: sessionmaker[Session],
                 houses_dir: Path) -> None:
        self.bridge = bridge
        self.sessions = sessions
        self.houses_dir = houses_dir
        self._writer = writer_sessions(sessions)
        self.lock = asyncio.Lock()
        self.floor = CashFloor(())
        self.games: dict[str, Game] = {}
        self.buttons: dict[str, list[Any]] = {}  # wire -> the last hand's layout (CASH-9)
        self.hand_seats: dict[str, list[int]] = {}  # wire -> the hand's seats, in order
        self.tasks: set[asyncio.Task[None]] = set()
        try:
            self._restore()
        except Exception:  # a broken row must not stop the bridge
            log.exception("the cash room could not be restored; it starts empty")
        bridge.observers.append(self.observe)

    # -- persistence ------------------------------------------------------------------------
    def _restore(self) -> None:
        with self.sessions() as session:
            row = session.get(CashRecord, 1)
        if row is None:
            return
        body = row.body
        self.floor = CashFloor.from_json(body["floor"])
        self.games = {g["id"]: Game(**g) for g in body["games"]}
        self.buttons = dict(body.get("buttons", {}))
        self.hand_seats = dict(body.get("hand_seats", {}))

    def save(self) -> None:
        """Write the room whole (one row)."""
        body = {"games": [asdict(g) for g in self.games.values()],
                "floor": self.floor.to_json(), "buttons": self.buttons,
                "hand_seats": self.hand_seats}
        with self._writer() as session, session.begin():
            row = session.get(CashRecord, 1)
            if row is None:
                session.add(CashRecord(id=1, body=body, at=self.bridge.clock()))
            else:
                row.body, row.at = body, self.bridge.clock()

    # -- lookups ----------------------------------------------------------------------------
    def game(self, game_id: str) -> Game:
        try:
            return self.games[game_id]
        except KeyError:
            names = ", ".join(sorted(self.games)) or "none yet"
            raise NotFound(f"no cash game {game_id!r}; the games are: {names} "
                           "(POST /api/v1/cash/games creates one)") from None

    def number(self, wire: str) -> int | None:
        """The model's number of a game's table."""
        for game in self.games.values():
            if wire in game.tables:
                return self._base(game) + game.tables.index(wire) + 1
        return None

    def _base(self, game: Game) -> int:
        return 100 * list(self.games).index(game.id)  # a hundred tables a game at most

    def wire(self, number: int) -> str:
        game = list(self.games.values())[(number - 1) // 100]
        return game.tables[(number - 1) % 100]

    def game_of(self, wire: str) -> Game | None:
        return next((g for g in self.games.values() if wire in g.tables), None)

    def free_tables(self, session: Session) -> list[str]:
        """Online tables of the floor in no game with nobody seated: a new table's
        candidates."""
        used = {w for g in self.games.values() for w in g.tables}
        seated = set(session.scalars(select(SeatRow.table_id)).all())
        rows = session.scalars(select(PokerTable.id).where(
            PokerTable.online.is_(True), PokerTable.closed.is_(False))
            .order_by(PokerTable.id)).all()
        return [w for w in rows if w not in used and w not in seated]

    def suggestion(self, game: Game, session: Session) -> str | None:
        """The free table to open for ``game`` when more are waiting than its threshold
        and no seat of its tables is left for them."""
        waiting = [p for p in self.floor.lists[game.id] if p not in self.floor.called]
        if len(waiting) <= game.new_table_after or len(game.tables) >= 100:
            return None
        free = self.free_tables(session)
        return free[0] if free else None

    def due(self) -> list[Due]:
        return self.floor.due_for_removal(self.bridge.clock())

    # -- games ------------------------------------------------------------------------------
    def create(self, game_id: str, house_file: str, tables: Sequence[str], session: Session,
               *, no_rathole: bool = False, new_table_after: int = 4) -> Game:
        """A game of the shipped house ``house_file`` at ``tables`` (the floor's, already
        playing it); the players seated there are the game's."""
        if game_id in self.games:
            raise DirectorError(f"there is already a cash game {game_id!r}", "CASH-8")
        text, source = shipped_text(self.houses_dir, house_file)
        house = check_house_text(text, source)
        stake = stake_of(game_id, house, no_rathole)
        if len(tables) > 10 or len(set(tables)) != len(tables):
            raise DirectorError("a game has one to ten different tables", "CASH-1")
        for wire in tables:
            if session.get(PokerTable, wire) is None:
                raise NotFound(f"no table {wire!r} on the floor (GET /api/v1/tables)")
            other = self.game_of(wire)
            if other is not None:
                raise DirectorError(f"table {wire!r} already plays the game {other.id!r}",
                                    "CASH-1")
        game = Game(game_id, house_file, house.name, house.label, house.unit, text,
                    [], new_table_after)
        self.floor.add_stake(stake)
        self.games[game_id] = game
        for wire in tables:
            self._add_table(game, wire, house.seats, session)
        self.save()
        return game

    def _add_table(self, game: Game, wire: str, seats: int, session: Session) -> int:
        game.tables.append(wire)
        number = self._base(game) + len(game.tables)
        self.floor.add_table(number, game.id, seats, wire)
        for row in session.scalars(select(SeatRow).where(SeatRow.table_id == wire)):
            if row.seat <= seats:
                self.floor.seated(row.player_id, number, row.seat, row.stack)
        return number

    # -- the waiting list -------------------------------------------------------------------
    def join(self, game_id: str, player: str) -> int:
        game = self.game(game_id)
        position = self.floor.join_list(player, game.id)
        self.save()
        return position

    def leave_list(self, game_id: str, player: str) -> None:
        self.floor.leave_list(player, self.game(game_id).id)
        self.save()

    def call(self, game_id: str) -> tuple[str, str, int]:
        """Call the next player to a free seat: (player, table wire, seat)."""
        player, number, seat = self.floor.call_next(self.game(game_id).id)
        self.save()
        return player, self.wire(number), seat

    def called(self, game: Game) -> list[tuple[str, str, int]]:
        numbers = {self.number(w): w for w in game.tables}
        return [(p, numbers[t], s) for p, (t, s) in self.floor.called.items()
                if t in numbers]

    async def seat(self, game_id: str, player: str, stack: int, send: Sender, *,
                   reset: bool = False) -> tuple[str, int]:
        """Seat a called player with ``stack``: the limits checked (CASH-2/3/7/8/13/14),
        then ``SeatPlayer`` sent; recorded when the table answers ok."""
        game = self.game(game_id)
        held = self.floor.called.get(player)
        if held is None or self.wire(held[0]) not in game.tables:
            raise DirectorError(f"{player} has not been called to a seat of {game.id}: call "
                                "the next player first", "CASH-1")
        number, seat = held
        now = self.bridge.clock()
        self.floor.verify_sit_down(player, number, seat, stack, now, reset)
        wire = self.wire(number)
        reply = await send(wire, SeatPlayer(seat=seat, player=player, stack=stack))
        if reply.status != "ok":
            raise TableRefused(wire, f"to seat {player}", reply.error or "no reason given")
        if self.floor.seat_of(player, number) is None:
            self.floor.sit_down(player, number, seat, stack, now, reset)
        else:  # its player_seated came first: seated, but not yet counted
            self.floor.count_return(player, number, now, reset)
        self.save()
        return wire, seat

    # -- removals (CASH-4, -5, -9) ----------------------------------------------------------
    async def remove(self, game_id: str, player: str, wire: str, send: Sender,
                     session: Session) -> str:
        """Remove a player due for removal (their stack to the cashier); the rule."""
        game = self.game(game_id)
        number = self.number(wire) if wire in game.tables else None
        due = next((d for d in self.due() if d.player == player and d.table == number), None)
        if number is None or due is None:
            raise DirectorError(f"{player} is not due for removal at table {wire!r}: a player "
                                "is removed after 10 minutes sitting out (500 s with the "
                                "global sit-out), or at the second button pass with a "
                                "waiting list", "CASH-4")
        row = session.get(SeatRow, (wire, due.seat))
        left_with = row.stack if row is not None and row.player_id == player else 0
        session.close()
        reply = await send(wire, RemovePlayer(seat=due.seat))
        if reply.status != "ok":
            raise TableRefused(wire, f"to remove {player}", reply.error or "no reason given")
        if self.floor.seat_of(player, number) is not None:  # its player_removed may be first
            self.floor.leave(player, left_with, self.bridge.clock(), number)
        self.save()
        return due.rule

    # -- a new table ------------------------------------------------------------------------
    async def open_table(self, game_id: str, wire: str, send: Sender,
                         session: Session) -> list[tuple[str, str, int]]:
        """Open the free table ``wire`` for the game: ``set_house`` with the game's house,
        then the waiting players called to its seats. Returns the calls made."""
        game = self.game(game_id)
        if wire not in self.free_tables(session):
            raise DirectorError(f"table {wire!r} is not free: it must be online, in no game, "
                                "with nobody seated", "CASH-1")
        if len(game.tables) >= 100:
            raise DirectorError(f"{game.id} has a hundred tables already", "CASH-1")
        session.close()
        reply = await send(wire, SetHouse(text=game.text))
        if reply.status != "ok":
            raise TableRefused(wire, f"the house {game.name!r}", reply.error or "no reason")
        with self.sessions() as fresh:
            number = self._add_table(game, wire, check_house_text(game.text).seats, fresh)
        calls = [(p, wire, s) for p, s in self.floor.call_to(game.id, number)]
        self.save()
        return calls

    def set_options(self, player: str, *, auto_top_up: bool | None = None,
                    global_sit_out: bool | None = None) -> tuple[bool, bool]:
        """A player's cash options: the auto top-up (CASH-6) and the global sit-out
        (CASH-5), both off until set."""
        for on, players in ((auto_top_up, self.floor.top_up),
                            (global_sit_out, self.floor.global_sit_out)):
            if on is True:
                players.add(player)
            elif on is False:
                players.discard(player)
        self.save()
        return player in self.floor.top_up, player in self.floor.global_sit_out

    # -- what the tables report -------------------------------------------------------------
    def observe(self, items: Sequence[EventMessage]) -> None:
        """The bridge's stored events: the game tables' seats, sit-outs, hands."""
        changed = False
        for item in items:
            number = self.number(item.table)
            if number is None:
                continue
            try:
                changed = self._apply(item.table, number, item.event) or changed
            except (DirectorError, RulesError) as exc:  # the table has the last word
                log.info("cash room: %s at %s: %s", item.event.kind, item.table, exc)
        if changed:
            self.save()

    def _apply(self, wire: str, number: int, event: Any) -> bool:
        floor, now = self.floor, self.bridge.clock()
        table = floor.tables[number]
        match event:
            case PlayerSeated(seat=seat, player=player, stack=stack):
                if floor.seat_of(player, number) != seat and seat not in table.players:
                    floor.seated(player, number, seat, stack)
                    return True
            case PlayerRemoved(player=player, stack=stack) | PlayerMoved(player=player,
                                                                         stack=stack):
                if floor.seat_of(player, number) is not None:
                    floor.leave(player, stack or 0, now, number)
                    return True
            case SatOut(seat=seat) if seat in table.players:
                return bool(floor.sit_out(table.players[seat], now, number))
            case CameBack(seat=seat) if seat in table.players:
                floor.sit_in(table.players[seat], number)
                return True
            case HandStarted():
                return self._hand_started(wire, number, event)
            case HandEnded(stacks=stacks):
                seats = self.hand_seats.get(wire, [])
                self._top_up(wire, number, dict(zip(seats, stacks, strict=False)))
        return False

    def _hand_started(self, wire: str, number: int, event: HandStarted) -> bool:
        self.hand_seats[wire] = list(event.seats)
        if event.button is None or event.big_blind_seat is None:
            return True
        layout = [event.button, event.small_blind_seat, event.big_blind_seat,
                  list(event.seats)]
        try:
            current = _positions(layout)
            before = self.buttons.get(wire)
            if before is not None:
                self.floor.button_moved(number, _positions(before), current)
        except RulesError:  # a layout the button rules do not know: no pass counted
            pass
        self.buttons[wire] = layout
        return True

    def _top_up(self, wire: str, number: int, stacks: dict[int, int]) -> None:
        """CASH-6: after the hand, ``add_chips`` up to the initial buy-in."""
        table = self.floor.tables[number]
        for seat, chips in self.floor.top_ups(number, stacks).items():
            command = AddChips(seat=seat, player=table.players[seat], chips=chips,
                               reason="rebuy")
            task = asyncio.get_running_loop().create_task(self._send_top_up(wire, command))
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)

    async def _send_top_up(self, wire: str, command: AddChips) -> None:
        try:
            _, reply = await self.bridge.desk.send(wire, command, actor=ACTOR, role="floor")
        except Exception as exc:  # timeout, unsent: the floor sees the stack as it is
            log.warning("cash room: the auto top-up at %s was not made: %s", wire, exc)
            return
        if reply.status != "ok":
            log.info("cash room: %s refused the auto top-up: %s", wire, reply.error)

    async def close(self) -> None:
        """The bridge is stopping: let the top-ups in flight finish."""
        if self.tasks:
            await asyncio.gather(*self.tasks, return_exceptions=True)


def _positions(layout: Sequence[Any]) -> Positions:
    button, small, big, seats = layout
    return Positions(button, small, big, tuple(seats))
