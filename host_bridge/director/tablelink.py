"""The director's link to its tables: commands out through the bridge's command desk
(audited, each awaited with its reply), and waiting for what the tables report.

:class:`TableLink` is given the desk, the tables as they report themselves (their
:class:`~host_bridge.director.floorstate.TableView`), the model's seating chart (whether a
table is in a hand) and what the tables are let deal (a table whose last hands are played
stays held); it counts what it sends in ``figures`` and tells ``anomaly`` what went wrong.
Nothing else of the director reaches it. Bridge side.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Protocol

from controller.events import Command, Pause, Resume
from controller.sync.messages import ReplyMessage

from .floorstate import Dealing, TableView
from .seating import Floor

log = logging.getLogger(__name__)
ACTOR = "tournament-director"
INSIST_TRIES = 40  # tries of a seating command a table keeps refusing (a colour-up...)
INSIST_PAUSE_S = 0.5  # between tries after a refusal or no reply


class CommandSender(Protocol):
    """The bridge's command desk (:class:`~host_bridge.dispatch.CommandDesk`)."""

    async def send(self, table_id: str, command: Command, *, actor: str,
                   role: str) -> tuple[str, ReplyMessage]: ...


class TableLink:
    """Commands to the tables, holding and releasing them, and waiting for their reports
    (:meth:`heard` after every applied batch of reports)."""

    def __init__(self, desk: CommandSender | None, views: Mapping[str, TableView],
                 floor: Floor, dealing: Dealing, *, figures: dict[str, int],
                 anomaly: Callable[[str], None], timeout_s: float, name: str) -> None:
        self._desk = desk
        self._views = views
        self._floor = floor
        self._dealing = dealing
        self._figures = figures
        self._anomaly = anomaly
        self.timeout_s = timeout_s
        self._name = name  # the tournament's id, for the log
        self._waiters: list[tuple[Callable[[], bool], asyncio.Future[None]]] = []

    # -- commands ---------------------------------------------------------------------------
    async def command(self, wire: str, command: Command) -> ReplyMessage | None:
        """Send one command as the director; its reply, or None when none came (a
        timeout, the table unreachable: the table's events will tell)."""
        if self._desk is None:
            return None
        self._figures["commands"] += 1
        try:
            _, reply = await self._desk.send(wire, command, actor=ACTOR, role="director")
        except Exception as exc:  # timeout, unsent: the table's events will tell
            log.warning("tournament %s: %s to %s: %s", self._name, command.name, wire, exc)
            return None
        if reply.status != "ok":
            self._figures["refused"] += 1
            log.info("tournament %s: table %s refused %s: %s", self._name, wire, command.name,
                     reply.error)
        return reply

    async def broadcast(self, commands: Iterable[Command], wires: Iterable[str]) -> None:
        """Each command to every open table of ``wires``, one command at a time."""
        targets = [w for w in wires if not self._views[w].closed]
        for command in commands:
            await asyncio.gather(*(self.command(w, command) for w in targets))

    async def insist(self, wire: str, command: Command, done: Callable[[], bool]) -> None:
        """Send ``command`` until the table reports ``done()``: a table may refuse for a
        while (a colour-up or a hand to finish first) or miss a command while it
        reconnects. Each try gets a fresh command id; the check comes first, so a command
        that did its work is never sent again. Gives up, as an anomaly, after
        ``INSIST_TRIES`` tries."""
        for _ in range(INSIST_TRIES):
            if done():
                return
            reply = await self.command(wire, command)
            wait = self.timeout_s if reply is not None and reply.status == "ok" \
                else INSIST_PAUSE_S
            if await self.until(done, wait, quiet=True):
                return
        self._anomaly(f"table {wire} did not carry out {command.name} after "
                      f"{INSIST_TRIES} tries")

    # -- holding tables ---------------------------------------------------------------------
    def in_hand(self, wire: str) -> bool:
        """Whether the model has ``wire`` in a hand (started and not yet reported ended)."""
        return self._floor.tables[self._views[wire].number].in_hand

    async def hold(self, wires: Sequence[str]) -> None:
        """Stop ``wires`` dealing: paused, their last hand reported. A table reported
        dealing while this waits is asked then: a table already paused when the hold
        began (by the floor, finishing its hand) may be resumed meanwhile."""
        views = self._views
        asked: set[str] = set()
        pausing: list[asyncio.Future[ReplyMessage | None]] = []

        def held() -> bool:
            for w in wires:
                if w not in asked and not views[w].closed and not views[w].paused:
                    asked.add(w)
                    pausing.append(asyncio.ensure_future(self.command(w, Pause())))
            return all((views[w].paused or views[w].closed) and not self.in_hand(w)
                       for w in wires)

        held()
        await asyncio.gather(*pausing)
        await self.until(held, what=f"{', '.join(wires)} paused with no hand in play")
        await asyncio.gather(*pausing)  # the replies of those asked while waiting

    async def release(self, wires: Sequence[str]) -> None:
        """Let held ``wires`` deal again, except a table that has played its last hands
        of the day (TOURN-27)."""
        views = self._views
        todo = [w for w in wires if views[w].paused and not views[w].closed
                and not self._dealing.day_over(views[w].number)]
        await asyncio.gather(*(self.command(w, Resume()) for w in todo))

    def seated(self, wire: str, seat: int, player: str, there: bool) -> Callable[[], bool]:
        """Whether the table reports ``player`` in ``seat`` (``there``) or not."""
        view = self._views[wire]
        return lambda: (view.seats.get(seat) == player) is there

    # -- waiting for reports ----------------------------------------------------------------
    async def until(self, ready: Callable[[], bool], timeout_s: float | None = None, *,
                    quiet: bool = False, what: str = "what the director waited for") -> bool:
        """Wait until ``ready()`` holds after some report; False on timeout (noted as an
        anomaly naming ``what`` was awaited, unless ``quiet``)."""
        if ready():
            return True
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append((ready, future))
        try:  # asyncio.timeout, not wait_for, which on 3.11 may swallow a cancel
            async with asyncio.timeout(timeout_s or self.timeout_s):
                await future
            return True
        except TimeoutError:
            if not quiet:
                self._anomaly(f"the tables did not report {what} in time "
                              f"({timeout_s or self.timeout_s:g} s)")
            return False
        finally:
            self._waiters = [(r, f) for r, f in self._waiters if f is not future]

    def heard(self) -> None:
        """Reports were applied: wake whoever waits for what they made true."""
        for ready, future in list(self._waiters):
            if not future.done() and ready():
                future.set_result(None)
