"""Tournament tables that speak the wire format over a real broker, for the director's
floor tests: the contract of the controller's tournament mode (issue 9, table side).

A :class:`ContractTable` starts empty, seats whoever ``SeatPlayer`` sends (holding the
time-bank chips it carries, reported back on ``player_seated``), plays hands
with bots whenever at least two players are seated and it is not paused, closed or held
for hand-for-hand, and reports what happened as the controller does: ``hand_started``
(seats in position order, stacks before the forced bets, the layout), ``hand_ended``
(stacks after), then ``player_busted`` for each player left with no chips;
``player_moved`` carries the stack; ``HandForHand(on)`` holds the table after its hand
and each ``NextHand`` releases exactly one hand (``hand_released``); ``AddChips`` (a rebuy
or add-on) adds to the stack of the player in the seat and reports ``stack_adjusted``.

Hands are chip transfers (as in ``sim.py``): positions from ``controller.rules.button``,
blinds and antes of the level the host's ``SyncClock`` set, two dealt players contest the
pot and go all-in against each other with some probability. A hand is played without
yielding to the event loop between its events, so commands land between hands, as on the
controller. Each table is one aiomqtt client with its own seq; QoS 1 throughout.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import random
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import aiomqtt

from controller.events import (
    AddChips,
    ClockSynced,
    CloseTable,
    ColourUpScheduled,
    HandEnded,
    HandForHand,
    HandForHandSet,
    HandReleased,
    HandStarted,
    LevelSet,
    MovePlayer,
    NextHand,
    Pause,
    Paused,
    PlayerBusted,
    PlayerMoved,
    PlayerRemoved,
    PlayerSeated,
    PublicEvent,
    RemovePlayer,
    Resume,
    Resumed,
    ScheduleColourUp,
    SeatAdjustment,
    SeatPlayer,
    SetLevel,
    StackAdjusted,
    SyncClock,
    TableClosed,
)
from controller.rules.button import Positions, SeatStatus, first_hand, next_hand
from controller.rules.config import LIVE_TOURNAMENT
from controller.sync.messages import CommandMessage, EventMessage, ReplyMessage, StatusMessage
from controller.sync.topics import Topics

STANDARD_LEVELS: Sequence[tuple[int, int, int]] = (
    (25, 50, 0), (50, 100, 0), (75, 150, 25), (100, 200, 25), (150, 300, 50),
    (200, 400, 50), (300, 600, 75), (400, 800, 100), (600, 1200, 200), (1000, 2000, 300))


class ContractTable:
    """One virtual tournament table on the broker."""

    def __init__(self, table: str, site: str, port: int, levels: Sequence[tuple[int, int, int]],
                 *, seed: int = 0, pace_s: float = 0.0, all_in: float = 0.35) -> None:
        self.table, self.site, self.port = table, site, port
        self.levels = levels
        self.rng = random.Random(f"{seed}-{table}")
        self.pace_s = pace_s
        self.all_in = all_in
        self.topics = Topics(site, table)
        self.boot = f"boot-{table}"
        self.seq = itertools.count(1)
        self.seats: dict[int, tuple[str, int]] = {}  # seat -> (player, stack)
        self.newcomers: set[str] = set()
        # the time-bank extension chips the table holds, by player, as the controller's
        # ExtensionChips: a count carried by SeatPlayer replaces it; none carried leaves it
        self.extensions: dict[str, int] = {}
        self.previous: Positions | None = None
        self.level = 1
        self.paused = False
        self.closed = False
        self.h4h = False
        self.released = False
        self.hand_no = 0
        self.hands = 0
        self.commands: list[str] = []
        self.refusals: list[str] = []
        self._lock = asyncio.Lock()
        self.send: Callable[[str, bytes], Awaitable[Any]] | None = None  # topic, payload
        self._dealable = asyncio.Event()
        self._open: tuple[Positions, dict[int, str], dict[int, int]] | None = None

    # -- wire -----------------------------------------------------------------------------
    def _env(self) -> dict[str, Any]:
        return {"table": self.table, "boot": self.boot, "seq": next(self.seq),
                "ts": time.time()}

    async def _event(self, body: Any) -> None:
        assert self.send is not None
        await self.send(self.topics.event, EventMessage(**self._env(), event=body).to_wire())

    ready: asyncio.Event | None = None

    async def run(self) -> None:
        """Connect, serve commands and deal until closed."""
        will = aiomqtt.Will(self.topics.status, StatusMessage(
            table=self.table, boot=self.boot, seq=0, ts=time.time(),
            status="offline").to_wire(), qos=1, retain=True)
        async with aiomqtt.Client("127.0.0.1", self.port, identifier=f"ct-{self.table}",
                                  will=will) as client:
            async def send(topic: str, payload: bytes) -> None:
                await client.publish(topic, payload, qos=1)

            self.send = send
            await client.subscribe(self.topics.cmd, qos=1)
            await client.publish(self.topics.status, StatusMessage(
                table=self.table, boot=self.boot, seq=0, ts=time.time(),
                status="online").to_wire(), qos=1, retain=True)
            if self.ready is not None:
                self.ready.set()
            async with asyncio.TaskGroup() as tg:
                listen = tg.create_task(self._listen(client), name=f"{self.table}-cmd")
                await tg.create_task(self._deal(), name=f"{self.table}-dealer")
                listen.cancel()

    async def _listen(self, client: aiomqtt.Client) -> None:
        async for message in client.messages:
            payload = message.payload
            assert isinstance(payload, bytes | bytearray)
            await self.handle(bytes(payload))

    async def handle(self, payload: bytes) -> None:
        """Carry out one command (between hands) and answer it."""
        command = CommandMessage.model_validate_json(payload)
        async with self._lock:
            await self._perform(command)
        self._wake()

    def _wake(self) -> None:
        if self._can_deal():
            self._dealable.set()

    # -- commands -----------------------------------------------------------------------------
    async def _perform(self, message: CommandMessage) -> None:
        command, cid = message.command, message.command_id
        self.commands.append(command.name)
        changes: list[PublicEvent] = []
        error: str | None = None
        closing = False
        match command:
            case SeatPlayer(seat=seat, player=player, stack=stack, extension_chips=carried):
                if seat in self.seats:
                    error = f"seat {seat} is taken by {self.seats[seat][0]}"
                else:
                    self.seats[seat] = (player, stack)
                    self.newcomers.add(player)
                    if carried is not None:
                        self.extensions[player] = carried
                    changes.append(PlayerSeated(seat=seat, player=player, stack=stack,
                                                extension_chips=carried))
            case MovePlayer(seat=seat, to_table=to_table):
                if seat not in self.seats:
                    error = f"seat {seat} is empty"
                else:
                    player, stack = self.seats.pop(seat)
                    changes.append(PlayerMoved(seat=seat, player=player, stack=stack,
                                               to_table=to_table))
            case RemovePlayer(seat=seat):
                if (gone := self.seats.pop(seat, None)) is None:
                    error = f"seat {seat} is empty"
                else:
                    changes.append(PlayerRemoved(seat=seat, player=gone[0], stack=gone[1]))
            case Pause():
                if self.paused:
                    error = "the table is already paused"
                else:
                    self.paused = True
                    changes.append(Paused())
            case Resume():
                if not self.paused:
                    error = "the table is not paused"
                else:
                    self.paused = False
                    changes.append(Resumed())
            case HandForHand(on=on):
                self.h4h, self.released = on, False
                changes.append(HandForHandSet(on=on))
            case NextHand():
                if not self.h4h or self.released:
                    error = "the table is not waiting for a hand-for-hand hand"
                else:
                    self.released = True
                    changes.append(HandReleased(hand_no=self.hand_no + 1))
            case SyncClock(level=level):
                self.level = min(level, len(self.levels))
                changes.append(ClockSynced(level=level))
            case SetLevel(level=level):
                self.level = min(level, len(self.levels))
                changes.append(LevelSet(level=level))
            case ScheduleColourUp(at_level=level):
                changes.append(ColourUpScheduled(level=level))
            case AddChips(seat=seat, player=player, chips=chips, reason=reason):
                # TOURN-10..12, as the controller: between hands (commands always land
                # between hands here), to the player in the seat, one stack_adjusted
                if seat not in self.seats:
                    error = f"seat {seat} is empty"
                elif self.seats[seat][0] != player:
                    error = f"seat {seat} is {self.seats[seat][0]}'s, not {player}'s"
                else:
                    before = self.seats[seat][1]
                    self.seats[seat] = (player, before + chips)
                    changes.append(StackAdjusted(reason=reason, seats=(SeatAdjustment(
                        seat=seat, before=before, after=before + chips),)))
            case CloseTable():
                closing = True
                changes.append(TableClosed())
            case _:
                error = f"{command.name} is not handled here"
        for change in changes:
            await self._event(change.model_copy(update={"command_id": cid}))
        if error is not None:
            self.refusals.append(f"{command.name}: {error}")
        assert self.send is not None
        reply = ReplyMessage(table=self.table, boot=self.boot, seq=0, ts=time.time(),
                             command_id=cid,
                             status="error" if error else "ok", error=error,
                             data=None if error else {"change": _change(changes)})
        await self.send(self.topics.reply, reply.to_wire())
        if closing:  # after the reply: the dealer's loop ends and the client with it
            self.closed = True
            self._dealable.set()

    # -- dealing ----------------------------------------------------------------------------------
    def _can_deal(self) -> bool:
        if self.closed or self.paused or len(self.seats) < 2 or self._open is not None:
            return False
        return not self.h4h or self.released

    async def play_now(self) -> bool:
        """Deal one hand now if this table may deal (a test's hand, as the dealer would
        deal it): never while paused, closed, held for hand-for-hand or short of two
        players, as on the controller. Returns whether it dealt."""
        async with self._lock:
            if not self._can_deal():
                return False
            await self._play_hand()
            return True

    async def _deal(self) -> None:
        while not self.closed:
            if not self._can_deal():
                self._dealable.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._dealable.wait(), 0.05)
                continue
            async with self._lock:
                if self._can_deal():
                    await self._play_hand()
            await asyncio.sleep(self.pace_s)

    async def start_hand(self) -> bool:
        """Begin a hand and leave it open (``hand_started`` reported, ``hand_ended`` not
        yet), as a table mid-hand; :meth:`finish_hand` ends it. Returns whether it dealt."""
        async with self._lock:
            if not self._can_deal():
                return False
            self._open = await self._begin_hand()
            return True

    async def finish_hand(self) -> None:
        """End the hand :meth:`start_hand` left open."""
        async with self._lock:
            assert self._open is not None, "no hand is open"
            opened, self._open = self._open, None
            await self._end_hand(*opened)

    async def _play_hand(self) -> None:
        await self._end_hand(*await self._begin_hand())

    async def _begin_hand(self) -> tuple[Positions, dict[int, str], dict[int, int]]:
        statuses = [SeatStatus(s, stack, new=p in self.newcomers)
                    for s, (p, stack) in sorted(self.seats.items())]
        if self.previous is None:
            pos = first_hand(statuses, button=max(self.seats), tournament=True,
                             profile=LIVE_TOURNAMENT)
        else:
            pos = next_hand(self.previous, statuses, tournament=True, profile=LIVE_TOURNAMENT)
        self.previous = pos
        self.newcomers.clear()
        self.released = False
        self.hand_no += 1
        sb, bb, ante = self.levels[self.level - 1]
        players = {s: self.seats[s][0] for s in pos.dealt}
        stacks = {s: self.seats[s][1] for s in pos.dealt}
        await self._event(HandStarted(
            hand_no=self.hand_no, seats=pos.dealt, stacks=tuple(stacks[s] for s in pos.dealt),
            small_blind=sb, big_blind=bb, ante=ante, button=pos.button,
            small_blind_seat=pos.small_blind, big_blind_seat=pos.big_blind, level=self.level))
        return pos, players, stacks

    async def _end_hand(self, pos: Positions, players: dict[int, str],
                        stacks: dict[int, int]) -> None:
        sb, bb, ante = self.levels[self.level - 1]
        pot = 0

        def post(seat: int, amount: int) -> None:
            nonlocal pot
            paid = min(amount, stacks[seat])
            stacks[seat] -= paid
            pot += paid

        for s in pos.dealt:
            post(s, ante)
        if pos.small_blind is not None:
            post(pos.small_blind, sb)
        post(pos.big_blind, bb)
        a, b = self.rng.sample(list(pos.dealt), 2)
        if self.rng.random() < self.all_in:
            risk = min(stacks[a], stacks[b])
            stacks[a] -= risk
            stacks[b] -= risk
            pot += 2 * risk
        stacks[a if self.rng.random() < 0.5 else b] += pot
        await self._event(HandEnded(hand_no=self.hand_no,
                                    stacks=tuple(stacks[s] for s in pos.dealt)))
        self.hands += 1
        for s in pos.dealt:
            self.seats[s] = (players[s], stacks[s])
        for s in sorted(pos.dealt):
            if stacks[s] == 0:
                del self.seats[s]
                await self._event(PlayerBusted(seat=s, player=players[s],
                                               hand_no=self.hand_no))

    def chips(self) -> int:
        return sum(stack for _, stack in self.seats.values())


def _change(changes: Sequence[PublicEvent]) -> str:
    """The reply's ``change``, as the controller names it: the kind of the last change."""
    return changes[-1].kind if changes else "none"


class LocalFloor:
    """Contract tables without a broker: the bridge's publisher (commands go to the
    tables) and their way back (``bridge.receive``), for API and dashboard tests. The
    tables deal only when a test says so (:meth:`ContractTable.play_now`)."""

    def __init__(self, tables: Sequence[str], *, seed: int = 0, all_in: float = 1.0) -> None:
        self.tables = {w: ContractTable(w, "test", 0, STANDARD_LEVELS, seed=seed, all_in=all_in)
                       for w in tables}
        self.receive: Callable[[str, bytes], Awaitable[Any]] | None = None
        self.tasks: set[asyncio.Task[Any]] = set()

    def connect(self, receive: Callable[[str, bytes], Awaitable[Any]]) -> None:
        self.receive = receive
        for table in self.tables.values():
            table.send = receive

    def status_messages(self) -> list[tuple[str, bytes]]:
        return [(t.topics.status, StatusMessage(table=t.table, boot=t.boot, seq=0,
                                                ts=time.time(), status="online").to_wire())
                for t in self.tables.values()]

    async def publish(self, topic: str, payload: bytes, qos: int, retain: bool) -> None:
        """The bridge publishes: a command reaches its table after this call returns."""
        if not topic.endswith("/cmd"):
            return
        table = self.tables.get(topic.split("/")[-2])
        if table is None:
            return
        task = asyncio.get_running_loop().create_task(table.handle(payload))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
