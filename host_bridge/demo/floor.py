"""One demo run: the broker, the bridge (uvicorn, SQLite), one controller process per
table, the game they play, the terminal view, and an orderly stop.

Order of start: the dashboard's port is bound first (so its address is printed first and
a busy port fails at once), then the broker, the bridge, the tables, the game. At the
winner the run prints the podium and the pages' addresses and stays up (the dashboard,
the director page and the clock screen keep serving the finished tournament) until
Ctrl-C, unless ``--until-winner`` ends it there. Order of
stop, whatever ended the run (Ctrl-C, SIGTERM, the time limit, the winner, an error):
the game, the tables, the bridge, the broker; then the temporary folder is removed
unless ``--data`` named one.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import shutil
import socket
import tempfile
import time
from collections.abc import Coroutine, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import uvicorn
from rich.console import Console
from rich.live import Live
from sqlalchemy.orm import Session, sessionmaker

from host_bridge.app import create_app
from host_bridge.bridge import Bridge
from host_bridge.demo.broker import BrokerAddress, DemoBroker, scrub
from host_bridge.demo.game import (
    CashGame,
    FloorGame,
    TournamentGame,
    table_ids,
    tournament_available,
)
from host_bridge.demo.options import DemoError, DemoOptions
from host_bridge.demo.progress import EventLog, Standing, read_floor, render, summary_line
from host_bridge.demo.tables import TableFleet, TableSpec
from host_bridge.ingest import FeedItem
from host_bridge.routes.director import DirectorRoom
from host_bridge.settings import BridgeSettings, Role, TokenGrant

log = logging.getLogger(__name__)

SITE = "demo"
BRIDGE_DB = "bridge.db"
STALL_S = 30.0  # a running tournament with no hand ended for this long is reported


def bind_listener(host: str, port: int) -> socket.socket:
    """The dashboard's listening socket, bound now so its address can be printed first."""
    # IPPROTO_TCP named, not 0: asyncio sets TCP_NODELAY on the connections it accepts only
    # when the listener says it is TCP; without it each answer waited ~40 ms for an ACK
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise DemoError(f"cannot serve the dashboard on {host}:{port} ({exc.strerror}); pass "
                        "--port with a free port (--port 0 picks one)") from None
    sock.listen(128)
    sock.setblocking(False)
    return sock


class _Server(uvicorn.Server):
    """uvicorn without its own signal handlers: the demo stops it, in order."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


@dataclass
class Outcome:
    """How the run ended."""

    reason: str
    code: int = 0


class DemoRun:
    """One run of ``pitboss demo``."""

    def __init__(self, options: DemoOptions, console: Console | None = None) -> None:
        options.check()
        self.options = options
        self.console = console or Console(highlight=False)
        self.director_token = secrets.token_urlsafe(24)
        self.viewer_token = secrets.token_urlsafe(24)
        self.broadcast_token = secrets.token_urlsafe(24)  # the overlay's (issue 21)
        self.log = EventLog(size=12)
        self.started = time.monotonic()
        self.dashboard = ""
        self.base = ""  # http://host:port, the bridge's pages under it
        self.room: DirectorRoom | None = None
        self._podium_shown = False
        self._closed_said = False
        self.data: Path | None = None
        self.broker: BrokerAddress | None = None
        self.bridge: Bridge | None = None
        self.game: FloorGame | None = None
        self.fleet: TableFleet | None = None
        self.sessions: sessionmaker[Session] | None = None
        self.watching = False  # the floor is up: the watch loop handles a stop
        self._hands_seen, self._hands_at = 0, time.monotonic()

    # ------------------------------------------------------------------ pieces
    def _data_dir(self) -> tuple[Path, bool]:
        if self.options.data is None:
            return Path(tempfile.mkdtemp(prefix="pitboss-demo-")), True
        data = self.options.data.expanduser().resolve()
        if (data / BRIDGE_DB).exists():
            raise DemoError(f"{data} holds an earlier demo floor ({BRIDGE_DB}); pass an empty "
                            "or new folder to --data")
        data.mkdir(parents=True, exist_ok=True)
        return data, False

    def settings(self, data: Path, broker: BrokerAddress, port: int) -> BridgeSettings:
        """The bridge's settings: SQLite in ``data``, this broker, fresh tokens."""
        return BridgeSettings(
            database_url=f"sqlite:///{data / BRIDGE_DB}", site=SITE, bridge_id="demo-bridge",
            listen_host=self.options.host, listen_port=port or 8000, mqtt_host=broker.host,
            mqtt_port=broker.port, command_timeout_s=10.0,
            tokens=(TokenGrant(name="demo-director", role=Role.DIRECTOR,
                               token=self.director_token),  # type: ignore[arg-type]
                    TokenGrant(name="demo-viewer", role=Role.VIEWER,
                               token=self.viewer_token),  # type: ignore[arg-type]
                    TokenGrant(name="demo-broadcast", role=Role.BROADCAST,
                               token=self.broadcast_token)))  # type: ignore[arg-type]

    @contextlib.contextmanager
    def _logging(self, path: Path) -> Iterator[None]:
        """Warnings of the bridge and the broker go to ``path``, not over the live view."""
        path.parent.mkdir(parents=True, exist_ok=True)
        handler = logging.FileHandler(path)
        handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
        root = logging.getLogger()
        saved = root.handlers[:], root.level
        root.handlers[:] = [handler]
        root.setLevel(logging.WARNING)
        try:
            yield
        finally:
            root.handlers[:], level = saved
            root.setLevel(level)
            handler.close()

    def _say(self, text: str) -> None:
        self.console.print(text, soft_wrap=True)

    def _game(self) -> FloorGame:
        mode = self.options.mode
        if mode == "tournament" or (mode == "auto" and tournament_available()):
            assert self.data is not None
            return TournamentGame(self.options, SITE, self.data)
        return CashGame(self.options, SITE)

    # ------------------------------------------------------------------ the run
    async def run(self, stop: asyncio.Event) -> int:
        """Run until ``stop`` is set or the run's end comes; the exit code."""
        data, temporary = self._data_dir()
        self.data = data
        sock: socket.socket | None = None
        outcome = Outcome("stopped")
        try:
            sock = bind_listener(self.options.host, self.options.port)
            host, port = sock.getsockname()[:2]
            self.base = f"http://{host}:{port}"
            self.dashboard = f"{self.base}/dashboard/"
            self._say(f"[bold]Pitboss demo[/bold]: the dashboard is at {self.dashboard}\n"
                      f"  sign in with the director token {self.director_token}\n"
                      f"  (or the viewer token {self.viewer_token}); Ctrl-C stops the demo\n"
                      f"  broadcast overlay: {self.overlay()}")
            with self._logging(data / "logs" / "demo.log"):
                outcome = await self._starting_or_stopped(self._floor(sock, port, data, stop),
                                                          stop)
        finally:
            if sock is not None:
                sock.close()
            if temporary:
                shutil.rmtree(data, ignore_errors=True)
        self._say(f"demo stopped: {outcome.reason}")
        if not temporary:
            self._say(f"the floor's data is kept in {data}")
        return outcome.code

    async def _starting_or_stopped(self, floor: Coroutine[Any, Any, Outcome],
                                   stop: asyncio.Event) -> Outcome:
        """Run the floor; a stop before it is up (Ctrl-C while the tables start) cancels
        the start, and every piece already started is stopped on the way out. Once the
        floor is up, the watch loop ends it in order itself."""
        task = asyncio.create_task(floor, name="demo-floor")
        stopping = asyncio.create_task(stop.wait(), name="demo-stop")
        try:
            while not task.done():
                await asyncio.wait({task, stopping}, return_when=asyncio.FIRST_COMPLETED)
                if stop.is_set() and not self.watching and not task.done():
                    task.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await task
                    return Outcome("stopped on request while starting")
                if stop.is_set():
                    return await task  # the watch loop saw it too and stops in order
            return task.result()
        finally:
            stopping.cancel()
            if not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task

    async def _floor(self, sock: socket.socket, port: int, data: Path,
                     stop: asyncio.Event) -> Outcome:
        async with DemoBroker(self.options.broker) as broker:
            self.broker = broker
            what = {"embedded": "embedded amqtt broker", "local": "the broker on localhost",
                    "given": "the broker"}[broker.kind]
            self._say(f"  MQTT: {what} at {broker}")
            game = self.game = self._game()
            shared = broker.kind != "embedded"
            if shared:  # nothing of an earlier run may reach this bridge
                await scrub(broker, SITE, game.table_ids())
            app = create_app(self.settings(data, broker, port), connect=True)
            self.bridge = app.state.bridge
            self.sessions = app.state.sessions
            self.room = app.state.director_room  # the tournaments the API serves
            server = _Server(uvicorn.Config(app, log_level="warning", lifespan="on",
                                            ws="auto"))
            serving = asyncio.create_task(server.serve(sockets=[sock]), name="demo-bridge")
            try:
                await self._until_serving(server, serving)
                return await self._tables(data, broker, game, stop)
            finally:
                server.should_exit = True
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(serving, 15)
                if not serving.done():
                    serving.cancel()
                if shared:
                    await scrub(broker, SITE, game.table_ids())

    async def _until_serving(self, server: uvicorn.Server, serving: asyncio.Task[None]
                             ) -> None:
        deadline = time.monotonic() + 20
        while not server.started:
            if serving.done():
                serving.result()
                raise DemoError("the bridge stopped while starting")
            if time.monotonic() > deadline:
                raise DemoError("the bridge did not start within 20 s")
            await asyncio.sleep(0.02)
        link: Any = self.bridge.publisher if self.bridge is not None else None
        connected = getattr(link, "connected", None)
        if isinstance(connected, asyncio.Event):
            try:
                await asyncio.wait_for(connected.wait(), 15)
            except TimeoutError:
                self._say("[yellow]warning: the bridge has not reached the broker yet "
                          f"({getattr(link, 'last_error', None)}); the tables will wait")

    async def _tables(self, data: Path, broker: BrokerAddress, game: FloorGame,
                      stop: asyncio.Event) -> Outcome:
        specs = [TableSpec(table=t, broker=str(broker), db=data / "tables" / f"{t}.db",
                           site=SITE, extra=game.table_options(t))
                 for t in game.table_ids()]
        (data / "tables").mkdir(exist_ok=True)
        fleet = self.fleet = TableFleet(specs, data / "logs")
        assert self.bridge is not None and self.sessions is not None
        async with self.bridge.feed.subscribe() as feed:  # from the first event on
            try:
                await fleet.start()
                await self._until_online(game.table_ids())
                self._say(f"  {len(specs)} table controllers running (one process each), "
                          f"{game.description()}")
                assert self.room is not None
                await game.start(self.room)
                for line in self.pages():
                    self._say(f"  {line}")
                return await self._watch(feed, stop)
            finally:
                for line in game.summary():
                    self._say(line)
                await game.close()
                await fleet.stop()

    def overlay(self) -> str:
        """The broadcast overlay of the first table, signed in with the broadcast token
        (in the fragment, which no request carries); it runs ``hole_card_delay_s``
        behind the table."""
        first = (self.game.table_ids() if self.game is not None
                 else table_ids(self.options.tables))[0]  # every game names them so
        return f"{self.base}/overlay?table={first}#token={self.broadcast_token}"

    def pages(self) -> list[str]:
        """Where to look at the floor and at the game (the tournament's pages by its id)."""
        assert self.game is not None
        lines = [f"floor: {self.dashboard}", f"overlay: {self.overlay()}"]
        tid = self.game.tournament_id()
        if tid is not None:
            lines += [f"director page: {self.base}/dashboard/director.html?t={tid}",
                      f"players' clock: {self.base}/clock/{tid}"]
        return lines

    def _show_podium(self) -> None:
        """Once, at the winner: the places and prizes, the pages, and that the floor stays
        up until Ctrl-C (the tables have closed; the bridge keeps serving)."""
        if self._podium_shown or self.game is None:
            return
        self._podium_shown = True
        self._say("[bold green]the tournament is over[/bold green]; the podium "
                  "(place, player, prize):")
        for line in self.game.podium():
            self._say(f"  {line}")
        if self.options.until_winner:
            return  # the run ends here
        for line in self.pages():
            self._say(f"  {line}")
        self._say("  the floor stays up with the finished tournament; Ctrl-C stops the demo")

    def _tables_closed(self, fleet: TableFleet) -> None:
        """Once, after the winner, when every table process has ended (the director
        closed the tables): say the bridge serves on, rather than ending the run."""
        if self._closed_said or fleet.running() or self.options.until_winner:
            return
        self._closed_said = True
        failed = fleet.failed()
        self._say("  every table has closed" + (
            f" ({failed[0].spec.table} failed: {failed[0].tail(3)})" if failed else "")
            + "; the bridge and its pages serve on until Ctrl-C")

    # ------------------------------------------------------------------ watching
    async def _until_online(self, tables: list[str], within: float = 30.0) -> None:
        """Wait until the bridge has heard every table say ``online``: a table publishes it
        once subscribed to its commands, so none of the floor's first commands is lost."""
        assert self.sessions is not None
        deadline = time.monotonic() + within
        while True:
            view = await asyncio.to_thread(read_floor, self.sessions)
            online = {t.table for t in view.tables if t.online}
            if online >= set(tables):
                return
            if time.monotonic() > deadline:
                missing = ", ".join(sorted(set(tables) - online))
                self._say(f"[yellow]warning: {missing} not online at the bridge after "
                          f"{within:.0f} s; starting anyway (see the tables' logs)")
                return
            await asyncio.sleep(0.05)

    def _drain(self, feed: asyncio.Queue[FeedItem]) -> None:
        while not feed.empty():
            line = self.log.add(feed.get_nowait())
            if self.options.headless and line is not None:
                self._say(f"  {line}")

    async def _watch(self, feed: asyncio.Queue[FeedItem], stop: asyncio.Event) -> Outcome:
        assert self.game is not None and self.fleet is not None
        game, fleet = self.game, self.fleet
        reader = self.sessions
        assert reader is not None
        limit = None if self.options.minutes is None else \
            self.started + 60 * self.options.minutes
        headless = self.options.headless
        last_line, said = 0.0, ""
        self.watching = True
        live = None if headless else Live(console=self.console, auto_refresh=False,
                                          transient=False)
        with live or contextlib.nullcontext():
            while True:
                self._drain(feed)
                view = await asyncio.to_thread(read_floor, reader)
                standing = self._stalled(view.hands, game.standing())
                elapsed = time.monotonic() - self.started
                if live is not None:
                    live.update(render(view, standing, self.log, dashboard=self.dashboard,
                                       broker=str(self.broker), elapsed=elapsed),
                                refresh=True)
                elif time.monotonic() - last_line >= 5 and not self._podium_shown:
                    last_line = time.monotonic()
                    self._say(line := summary_line(view, standing, elapsed))
                    said = line
                outcome = self._ended(stop, standing, limit)
                if standing.finished:  # stay up: its tables close, the pages serve on
                    if not self._podium_shown:
                        await asyncio.sleep(0.3)  # the last batch's events (final busts)
                        self._drain(feed)
                        self._show_podium()
                    self._tables_closed(fleet)
                elif outcome is None and not fleet.running():
                    failed = fleet.failed()
                    outcome = Outcome("every table stopped" + (
                        f"; {failed[0].spec.table} failed: {failed[0].tail(3)}"
                        if failed else ""), 1 if failed else 0)
                if outcome is not None:
                    await asyncio.sleep(0.3)  # the last batch's events
                    self._drain(feed)
                    if live is not None:
                        live.update(render(view, standing, self.log, dashboard=self.dashboard,
                                           broker=str(self.broker), elapsed=elapsed),
                                    refresh=True)
                    if (line := summary_line(view, standing, elapsed)) != said:
                        self._say(line)
                    return outcome
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), 0.5)

    def _stalled(self, hands: int, standing: Standing) -> Standing:
        """Say so when a running tournament has dealt no hand for a while (not on a break:
        the note would name it), so a stuck floor is seen rather than guessed at."""
        now = time.monotonic()
        if hands != self._hands_seen:
            self._hands_seen, self._hands_at = hands, now
        quiet = now - self._hands_at
        if standing.finished or standing.note or standing.players_left in (None, 1) \
                or quiet < STALL_S:
            return standing
        return replace(standing, note=f"no hand has ended on the floor for {quiet:.0f} s; "
                       "see the logs (--data DIR keeps them)")

    def _ended(self, stop: asyncio.Event, standing: Standing, limit: float | None
               ) -> Outcome | None:
        if stop.is_set():
            return Outcome("stopped on request")
        if standing.finished and self.options.until_winner:
            return Outcome(f"the tournament is over, won by {standing.winner}")
        if limit is not None and time.monotonic() >= limit:
            return Outcome(f"{self.options.minutes:g} minute(s) are up")
        return None
