"""The table's seat-node lines: every serial port the profile names, opened at start and
kept open while the controller runs.

Why a supervisor: a seat node is a USB serial device behind a hub. Unplugged, its port
vanishes and its line fails; plugged back, the port comes back (its udev rule gives it the
same name) and the node boots again. The table must carry on through that: the node is
reported offline at once (the table prompts the dealer and journals it, so the floor sees
it), the port is reopened with back-off until it is there again, and the node is online
again when it says hello on the new line, without restarting the controller.

At start every port must open: a wrong port or a missing permission is a
``DeviceAbsentError`` of one line naming the port and the fix (``seatlink.port_problem``).
A line that opens but whose node never says hello is reported offline after
``hello_timeout_s``.

:class:`SeatLines` is the device layer's one seat-link seam (``interfaces.SeatNodeLink``)
over all the lines, so a backend builds ``SeatNodeReader``/``SeatNodeRing`` over it as over
one link. While a node's line is down its readers keep the cards last heard (the cards
did not move because a cable did); the node announces again what it reads when it is back.

:class:`SeatLinesThread` runs the same lines on a loop of their own for a synchronous
user (``pytest --hil``'s contract suite), with a seam (:class:`ThreadSeatLink`) that any
thread may call.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import os
import threading
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol, TypeVar

from .errors import DeviceError
from .interfaces import LightState, Listener
from .seatlink import SeatNodeLink, open_seat_link, profile_reader_name
from .specs import Profile

log = logging.getLogger(__name__)
T = TypeVar("T")

BACKOFF_MIN_S = 0.1  # the first retry after a line is lost; doubled up to BACKOFF_MAX_S
BACKOFF_MAX_S = 2.0
HELLO_TIMEOUT_S = 1.5  # a node that has not said hello this long after its line opened


class Opener(Protocol):
    """Opens one port as a link (``seatlink.open_seat_link``); tests pass a fake."""

    def __call__(self, port: str, **kwargs: Any) -> Awaitable[SeatNodeLink]: ...


@dataclass(frozen=True, slots=True)
class SeatPort:
    """One serial line of the profile: the port it names, the path it is opened at (the
    same, or under a directory of simulated ports), and the nodes the profile puts on it."""

    port: str
    path: str
    nodes: tuple[int, ...]


def seat_ports(profile: Profile, directory: str | Path | None = None) -> tuple[SeatPort, ...]:
    """Every seat-node port of ``profile`` (its readers' and rings'), in seat order.

    With ``directory`` each is opened there by its base name instead:
    ``/dev/pitboss-seat3`` becomes ``DIR/pitboss-seat3`` (the simulated nodes of
    ``pitboss hardware simulate PROFILE --dir DIR``)."""
    nodes: dict[str, list[int]] = {}
    for seat in profile.seats:
        for port, node in ((seat.cards.port, seat.cards.node), (seat.player.port, seat.player.node),
                           (seat.light.port, seat.light.node)):
            if port is None or node is None:
                continue
            on = nodes.setdefault(port, [])
            if node not in on:
                on.append(node)
    for reader in (*profile.board, profile.muck, profile.deck):
        if reader.port is not None and reader.node is not None:
            on = nodes.setdefault(reader.port, [])
            if reader.node not in on:
                on.append(reader.node)
    return tuple(
        SeatPort(port, port if directory is None else os.path.join(directory,
                                                                     os.path.basename(port)),
                 tuple(on))
        for port, on in nodes.items())


@dataclass(slots=True)
class SeatLine:
    """One supervised port: its link while the port is open (None while it is away)."""

    port: SeatPort
    link: SeatNodeLink | None = None
    opened: int = 0  # how many times it opened (1 at start; +1 per replug)
    lost: int = 0  # how many times it was lost
    error: str | None = None  # why the last attempt to open it failed
    supervisor: asyncio.Task[None] | None = field(default=None, repr=False)


class SeatLines:
    """Every seat-node line of a table, opened and supervised; ``async with`` it."""

    def __init__(
        self,
        profile: Profile,
        *,
        directory: str | Path | None = None,
        opener: Opener = open_seat_link,
        link_options: Mapping[str, Any] | None = None,
        backoff_s: tuple[float, float] = (BACKOFF_MIN_S, BACKOFF_MAX_S),
        hello_timeout_s: float = HELLO_TIMEOUT_S,
    ) -> None:
        """``link_options`` go to each ``SeatNodeLink`` (``heartbeat_s``, ``clock``...)."""
        self.profile = profile
        self.lines = [SeatLine(p) for p in seat_ports(profile, directory)]
        self.firmware: dict[int, tuple[int, int, int]] = {}  # node -> its firmware version
        self._opener = opener
        self._options = dict(link_options or {})
        self._names = profile_reader_name(profile)
        self._backoff = backoff_s
        self._hello_timeout_s = hello_timeout_s
        self._status: dict[int, bool] = {}  # node -> online (absent: not heard from yet)
        self._by_node: dict[int, SeatNodeLink] = {}
        # the reads of a node whose line is down, kept until it says hello again
        self._kept: dict[int, dict[str, frozenset[bytes]]] = {}
        self._lights: dict[int, LightState] = {}
        self._listeners: list[Listener] = []
        self._status_listeners: list[Callable[[int, bool], None]] = []
        self._changed = asyncio.Event()

    # ------------------------------------------------------------------ life
    async def __aenter__(self) -> SeatLines:
        await self.open()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def open(self) -> None:
        """Open every port and start supervising each. If any port does not open, none
        stays open and the first failure is raised, one line, naming how many more."""
        results = await asyncio.gather(*(self._connect(line) for line in self.lines),
                                       return_exceptions=True)
        failed = [r for r in results if isinstance(r, BaseException)]
        if failed:
            await self.aclose()
            first = failed[0]
            if not isinstance(first, DeviceError):
                raise first
            more = len(failed) - 1
            also = f" ({more} more seat-node port(s) did not open either)" if more else ""
            raise type(first)(f"{first}{also}") from None
        for line in self.lines:
            line.supervisor = asyncio.create_task(self._supervise(line),
                                                  name=f"seatline-{line.port.path}")

    async def aclose(self) -> None:
        """Stop supervising and close every line."""
        tasks = [line.supervisor for line in self.lines if line.supervisor is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for line in self.lines:
            line.supervisor = None
            if line.link is not None:
                await line.link.aclose()
                line.link = None

    async def _connect(self, line: SeatLine) -> SeatNodeLink:
        link = await self._opener(line.port.path, reader_name=self._names, **self._options)
        line.link = link
        line.opened += 1
        line.error = None
        link.subscribe(self._cards_changed)
        link.subscribe_status(lambda node, online: self._heard(line, link, node, online))
        link.start()
        return link

    async def _supervise(self, line: SeatLine) -> None:
        """Watch the line; when it fails, report its nodes offline and reopen it with
        back-off until it opens again; forever (until cancelled)."""
        low, high = self._backoff
        while True:
            link = line.link
            assert link is not None
            watch = asyncio.create_task(self._hello_watch(line, link), name="seatline-hello")
            try:
                await link.wait_closed()
            finally:
                watch.cancel()
            self._lost(line, link)
            await link.aclose()
            line.link = None
            delay = low
            while line.link is None:
                await asyncio.sleep(delay)
                try:
                    await self._connect(line)
                except DeviceError as exc:  # the port is not back yet (or not readable)
                    if line.error is None:
                        log.info("%s (retrying)", exc)
                    line.error = str(exc)
                    delay = min(delay * 2, high)
            log.warning("seat-node port %s is back (opened %d times)", line.port.path,
                        line.opened)

    async def _hello_watch(self, line: SeatLine, link: SeatNodeLink) -> None:
        """A line that opened but whose node says nothing: its nodes are offline."""
        await asyncio.sleep(self._hello_timeout_s)
        if link.seat is None:
            log.warning("no seat node answers on %s: check the node's power and firmware "
                        "(pitboss firmware deploy)", line.port.path)
            for node in line.port.nodes:
                self._set(node, False)

    def _heard(self, line: SeatLine, link: SeatNodeLink, node: int, online: bool) -> None:
        """A link's node came online (said hello, or was heard again) or went silent."""
        if online:
            if node not in line.port.nodes:
                log.warning("the seat node on %s says it is node %d, but the profile puts "
                            "node(s) %s there: deploy it again with its seat (pitboss "
                            "firmware deploy PORT --seat N) or fix the profile's port",
                            line.port.path, node,
                            ", ".join(map(str, line.port.nodes)))
            self._by_node[node] = link
            self._kept.pop(node, None)
            if link.firmware is not None:
                self.firmware[node] = link.firmware
            light = self._lights.get(node)
            if light is not None:
                link.set_light(node, light)  # a fresh line: the node gets its ring back
        self._set(node, online)

    def _lost(self, line: SeatLine, link: SeatNodeLink) -> None:
        line.lost += 1
        why = link.line_error or "its line closed"
        nodes = sorted({*line.port.nodes, *([link.seat] if link.seat is not None else [])})
        log.warning("seat-node port %s lost (%s): node(s) %s offline; reopening it until "
                    "it is back", line.port.path, why, ", ".join(map(str, nodes)))
        for node in nodes:
            if self._by_node.get(node) is link:
                del self._by_node[node]
                self._kept[node] = {slot: link.tags(node, slot) for slot in ("cards", "player")}
            self._set(node, False)
        self._cards_changed()

    def _set(self, node: int, online: bool) -> None:
        if self._status.get(node) == online:
            return
        self._status[node] = online
        if online:
            version = ".".join(map(str, self.firmware.get(node, ())))
            link = self._by_node.get(node)
            where = next((line.port.path for line in self.lines if line.link is link), "?")
            log.info("seat node %d online on %s, firmware %s", node, where, version or "?")
        self._changed.set()
        for listener in list(self._status_listeners):
            listener(node, online)

    def _cards_changed(self) -> None:
        for listener in list(self._listeners):
            listener()

    # ------------------------------------------------------------------ what runs see
    def nodes(self) -> tuple[int, ...]:
        """Every node the profile puts on these lines."""
        return tuple(node for line in self.lines for node in line.port.nodes)

    def online(self) -> tuple[int, ...]:
        """The nodes online now."""
        return tuple(sorted(n for n, on in self._status.items() if on))

    def offline(self) -> tuple[int, ...]:
        """The nodes reported offline (lost, or silent since their line opened)."""
        return tuple(sorted(n for n, on in self._status.items() if not on))

    async def heard(self, timeout_s: float | None = None) -> bool:
        """Wait until every node is online or reported offline (at most ``timeout_s``,
        by default the hello timeout and a little); True if all of them are online."""
        limit = self._hello_timeout_s + 0.5 if timeout_s is None else timeout_s
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(limit):
                while not all(n in self._status for n in self.nodes()):
                    self._changed.clear()
                    await self._changed.wait()
        return set(self.online()) >= set(self.nodes())

    # ------------------------------------------------------------------ the device seam
    def tags(self, node: int, slot: str) -> frozenset[bytes]:
        link = self._by_node.get(node)
        if link is not None:
            return link.tags(node, slot)
        return self._kept.get(node, {}).get(slot, frozenset())

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def subscribe_status(self, listener: Callable[[int, bool], None]) -> Callable[[], None]:
        """Call ``listener(node, online)`` on every change; a node already reported
        offline is told at once (the table hears of a node that never answered)."""
        self._status_listeners.append(listener)
        for node, online in list(self._status.items()):
            if not online:
                listener(node, False)
        return lambda: self._status_listeners.remove(listener)

    def set_light(self, node: int, state: LightState) -> None:
        self._lights[node] = state
        link = self._by_node.get(node)
        if link is not None:
            link.set_light(node, state)


# ============================================================================ from a thread
CALL_TIMEOUT_S = 10.0  # a call carried to the lines' loop that takes longer: the loop is stuck


class SeatLinesThread:
    """:class:`SeatLines` on an asyncio loop in a thread of its own, for synchronous users:
    the contract suite under ``pytest --hil`` (its tests block while a person places a card)
    or a console tool. ``with`` it; it opens every line, waits for the nodes' hello, and
    gives :meth:`seam` to ``open_devices(profile, seat_link=...)``.

    Why a thread: the lines are asyncio (pyserial-asyncio-fast) and supervised by tasks
    that must keep running while the caller blocks. The links' state and transports belong
    to that loop, so every call into the lines from another thread is carried there
    (``call_soon_threadsafe``) and waited for; the lines' listeners are called on the loop's
    thread, which ``TableHardware`` (a deque and ``call_soon_threadsafe``) and ``CardWatch``
    (a lock) are made for, as they are for gpiozero's threads."""

    def __init__(
        self,
        profile: Profile,
        *,
        directory: str | Path | None = None,
        hello_timeout_s: float = HELLO_TIMEOUT_S,
        **options: Any,
    ) -> None:
        """``options`` go to :class:`SeatLines` (``opener``, ``link_options``...)."""
        self.lines = SeatLines(profile, directory=directory, hello_timeout_s=hello_timeout_s,
                               **options)
        self.all_online = False  # every node said hello when the lines were opened
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    def __enter__(self) -> SeatLinesThread:
        loop = self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=loop.run_forever, name="seatlines", daemon=True)
        self._thread.start()
        try:
            self.run(self.lines.open())
            self.all_online = self.run(self.lines.heard())
        except BaseException:
            self._stop(opened=False)
            raise
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stop(opened=True)

    def _stop(self, *, opened: bool) -> None:
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        try:
            if opened:
                self.run(self.lines.aclose())
        finally:
            loop.call_soon_threadsafe(loop.stop)
            thread.join(CALL_TIMEOUT_S)
            if not thread.is_alive():
                loop.close()
            self._loop = self._thread = None

    # ------------------------------------------------------------------ onto the loop
    def run(self, coro: Coroutine[Any, Any, T], timeout_s: float | None = None) -> T:
        """Run ``coro`` on the lines' loop and wait for its result (from another thread)."""
        loop = self._loop
        if loop is None:
            coro.close()
            raise RuntimeError("the seat-node lines are not open: use `with SeatLinesThread`")
        return asyncio.run_coroutine_threadsafe(coro, loop).result(timeout_s)

    def call(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` on the lines' loop (at once when called there), and its result."""
        loop = self._loop
        if loop is None:
            raise RuntimeError("the seat-node lines are not open: use `with SeatLinesThread`")
        if self._thread is threading.current_thread():
            return fn(*args)
        done: concurrent.futures.Future[T] = concurrent.futures.Future()

        def there() -> None:
            try:
                done.set_result(fn(*args))
            except BaseException as exc:  # handed to the caller's thread, raised there
                done.set_exception(exc)

        loop.call_soon_threadsafe(there)
        return done.result(CALL_TIMEOUT_S)

    def seam(self) -> ThreadSeatLink:
        """A seat-link seam over the lines for one table's hardware, callable from any
        thread; ``detach()`` it when that hardware is closed."""
        return ThreadSeatLink(self)

    def silent(self) -> list[tuple[int, str]]:
        """The nodes not online now, each with the path of the port it should be on."""
        online = set(self.call(self.lines.online))
        return [(node, line.port.path) for line in self.lines.lines
                for node in line.port.nodes if node not in online]


class ThreadSeatLink:
    """The device layer's ``SeatNodeLink`` seam over a :class:`SeatLinesThread`'s lines,
    for a caller on another thread; the listeners it subscribes are dropped by
    :meth:`detach`, so a closed table's hardware hears no more of the lines."""

    def __init__(self, owner: SeatLinesThread) -> None:
        self._owner = owner
        self._undo: list[Callable[[], None]] = []

    def tags(self, node: int, slot: str) -> frozenset[bytes]:
        return self._owner.call(self._owner.lines.tags, node, slot)

    def _kept(self, undo: Callable[[], None]) -> Callable[[], None]:
        def unsubscribe() -> None:
            if undo in self._undo:
                self._undo.remove(undo)
                with contextlib.suppress(ValueError):  # already gone
                    self._owner.call(undo)

        self._undo.append(undo)
        return unsubscribe

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        return self._kept(self._owner.call(self._owner.lines.subscribe, listener))

    def subscribe_status(self, listener: Callable[[int, bool], None]) -> Callable[[], None]:
        return self._kept(self._owner.call(self._owner.lines.subscribe_status, listener))

    def set_light(self, node: int, state: LightState) -> None:
        self._owner.call(self._owner.lines.set_light, node, state)

    def detach(self) -> None:
        """Drop every listener subscribed through this seam."""
        for undo in list(self._undo):
            self._undo.remove(undo)
            with contextlib.suppress(ValueError):
                self._owner.call(undo)
