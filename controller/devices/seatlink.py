"""The Pi's end of the link to one seat node: typed events in, LED ring commands out.

The protocol itself (framing, CRC, acks, retransmission, replay rejection) is
``firmware/link.py``, the same module the node runs. This module puts it on an asyncio
stream pair (a serial port via pyserial-asyncio-fast on the table, a loopback pipe in the
tests), turns frames into events, and watches heartbeats: a node not heard for
``missed_heartbeats`` heartbeat periods is reported offline.

Time comes from an injected monotonic clock (seconds), so tests move it by hand and call
``tick()`` instead of waiting.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import errno
import logging
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Protocol

from controller.devices.errors import DeviceAbsentError, DriverMissingError
from controller.devices.events import CardArrived, CardLeft
from controller.devices.interfaces import LightMode, LightState, Listener
from controller.devices.profile import Profile
from firmware import link as L

log = logging.getLogger(__name__)

Clock = Callable[[], float]
ReaderName = Callable[[int, int, bool], str]
"""(seat, reader index on the node, is the player-card reader) -> reader name."""


def default_reader_name(seat: int, index: int, player: bool) -> str:
    """Per antenna, for a link used without a profile: ``seat3.0``, ``seat3.1`` for the
    hole-card readers, ``seat3.player`` for the player card. On a table the names come
    from the profile instead (``profile_reader_name``)."""
    return f"seat{seat}.player" if player else f"seat{seat}.{index}"


def profile_reader_name(profile: Profile) -> ReaderName:
    """The reader names of ``profile``, for the link's events.

    The profile is the one place reader names are made: a seat's hole-card readers on
    its node are one reader, ``seatN``, its player-card reader ``playerN`` (N the seat,
    which need not be the node id). ``TableHardware`` names its ``SeatNodeReader``s from
    the same ``ReaderSpec``s, so both event streams say the same name for the same card.
    A node the profile does not list keeps the per-antenna default name.
    """
    names = {
        (spec.node, spec.slot): spec.name
        for spec in profile.readers.values()
        if spec.kind == "seatnode" and spec.node is not None
    }

    def name(node: int, index: int, player: bool) -> str:
        found = names.get((node, "player" if player else "cards"))
        return found if found is not None else default_reader_name(node, index, player)

    return name


#: Events a link keeps for a reader of events() before it drops the oldest.
EVENT_BACKLOG = 1024


@dataclass(frozen=True, slots=True)
class SeatButtonPressed:
    """The seat's button was pressed (debounced on the node)."""

    seat: int


@dataclass(frozen=True, slots=True)
class NodeOnline:
    """A seat node said hello, or was heard again after being offline."""

    seat: int
    firmware: tuple[int, int, int]
    boot_id: int


@dataclass(frozen=True, slots=True)
class NodeOffline:
    """A seat node missed its heartbeats (or its line closed)."""

    seat: int


SeatLinkEvent = CardArrived | CardLeft | SeatButtonPressed | NodeOnline | NodeOffline


class RingMode(enum.IntEnum):
    """What a seat's LED ring shows (values are the link's LED modes)."""

    OFF = L.LED_OFF
    IDLE = L.LED_IDLE
    TURN = L.LED_TURN
    SHOT_CLOCK = L.LED_SHOT_CLOCK
    ALL_IN = L.LED_ALL_IN
    WINNER = L.LED_WINNER


@dataclass(frozen=True, slots=True)
class RingCommand:
    """One LED ring command; for the shot clock, the time left and the clock's length."""

    mode: RingMode
    colour: tuple[int, int, int] = (255, 255, 255)
    remaining_s: float = 0.0
    total_s: float = 0.0


class _LinkStats(Protocol):
    frames_ok: int

    def as_dict(self) -> dict[str, int]: ...


class _LinkFrame(Protocol):
    ftype: int
    seq: int
    body: bytes


class _LinkEndpoint(Protocol):
    """What this module uses of ``firmware.link.LinkEndpoint``: the firmware is unannotated
    MicroPython (pyright checks it), so its types are written down here, at the seam."""

    stats: _LinkStats

    def send(self, ftype: int, body: bytes = ...) -> None: ...

    def poll(self, now: int) -> None: ...

    def peer_alive(self, now: int, timeout_ms: int) -> bool: ...

    def output(self) -> bytes: ...

    def feed(self, data: bytes, now: int) -> list[_LinkFrame]: ...


class ByteWriter(Protocol):
    def write(self, data: bytes) -> Any: ...
    async def drain(self) -> None: ...
    def close(self) -> Any: ...


class SeatNodeLink:
    """One seat node on one line. Use ``async with``; iterate it for events."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: ByteWriter,
        *,
        clock: Clock = time.monotonic,
        heartbeat_s: float = 0.5,
        missed_heartbeats: int = 3,
        tick_s: float | None = 0.05,
        reader_name: ReaderName = default_reader_name,
        boot_id: int | None = None,
        version: tuple[int, int, int] = (0, 1, 0),
    ) -> None:
        self._reader = reader
        self._writer = writer
        self._clock = clock
        self._tick_s = tick_s
        self.reader_name = reader_name  # (seat, reader index, is player reader) -> name
        self.offline_after_ms = int(missed_heartbeats * heartbeat_s * 1000)
        self.endpoint: _LinkEndpoint = L.LinkEndpoint(
            L.CONTROLLER_ACCEPTS, heartbeat_ms=int(heartbeat_s * 1000)
        )
        self.boot_id: int = L.new_boot_id() if boot_id is None else boot_id
        self.version = version
        self.seat: int | None = None
        self.firmware: tuple[int, int, int] | None = None
        self.online = False
        self.dropped_before_hello = 0
        self._node_boot: int | None = None
        self._player_reader = L.NO_READER
        self._present: dict[int, bytes] = {}
        self._ring: tuple[RingCommand, float] | None = None
        # Bounded: used only through TableHardware (listeners + tags), nobody reads the
        # queue, so it keeps the newest events and counts what it had to drop.
        self._events: asyncio.Queue[SeatLinkEvent] = asyncio.Queue(maxsize=EVENT_BACKLOG)
        self.events_dropped = 0
        self._tasks: list[asyncio.Task[None]] = []
        self._read_task: asyncio.Task[None] | None = None
        self.line_error: str | None = None  # why the line closed, if it failed
        self._listeners: list[Listener] = []
        self._status_listeners: list[Callable[[int, bool], None]] = []

    # --- life -----------------------------------------------------------------------------
    async def __aenter__(self) -> SeatNodeLink:
        self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    def start(self) -> None:
        """Say hello to the node and start reading (and ticking, unless ``tick_s`` is None)."""
        self.endpoint.send(L.T_HELLO, L.hello_body(self.boot_id, L.CONTROLLER_SEAT, self.version))
        self.tick()
        self._read_task = asyncio.create_task(self._read_loop(), name="seatlink-read")
        self._tasks.append(self._read_task)
        if self._tick_s is not None:
            self._tasks.append(asyncio.create_task(self._tick_loop(), name="seatlink-tick"))

    async def aclose(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks.clear()
        with contextlib.suppress(Exception):
            self._writer.close()

    async def wait_closed(self) -> None:
        """Return when the line has closed: the port vanished or failed (``line_error``
        says how), or the other end hung up. The node is offline by then."""
        if self._read_task is not None:
            await asyncio.gather(self._read_task, return_exceptions=True)

    @property
    def closed(self) -> bool:
        """The line has closed (see :meth:`wait_closed`)."""
        return self._read_task is not None and self._read_task.done()

    @property
    def stats(self) -> dict[str, int]:
        """The link's counters (frames received, rejected by reason, retransmits...)."""
        return self.endpoint.stats.as_dict()

    # --- events ---------------------------------------------------------------------------
    def __aiter__(self) -> AsyncIterator[SeatLinkEvent]:
        return self.events()

    async def events(self) -> AsyncIterator[SeatLinkEvent]:
        while True:
            yield await self._events.get()

    def pending_events(self) -> list[SeatLinkEvent]:
        """The events queued so far, taken off the queue (for polling loops and tests)."""
        out: list[SeatLinkEvent] = []
        while not self._events.empty():
            out.append(self._events.get_nowait())
        return out

    def _emit(self, event: SeatLinkEvent) -> None:
        if self._events.full():
            self._events.get_nowait()
            self.events_dropped += 1
        self._events.put_nowait(event)
        if isinstance(event, CardArrived | CardLeft):
            for listener in list(self._listeners):
                listener()
        elif isinstance(event, NodeOnline | NodeOffline):
            for status in list(self._status_listeners):
                status(event.seat, isinstance(event, NodeOnline))

    # --- the device layer's ``interfaces.SeatNodeLink`` seam (node = seat id) ---------------
    def tags(self, node: int, slot: str) -> frozenset[bytes]:
        """UIDs on this node's hole-card readers (``"cards"``) or player reader (``"player"``)."""
        if node != self.seat:
            return frozenset()
        player = slot == "player"
        return frozenset(
            uid for i, uid in self._present.items() if (i == self._player_reader) == player
        )

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def subscribe_status(self, listener: Callable[[int, bool], None]) -> Callable[[], None]:
        """Call ``listener(seat, online)`` when the node comes online or goes offline."""
        self._status_listeners.append(listener)
        return lambda: self._status_listeners.remove(listener)

    def set_light(self, node: int, state: LightState) -> None:
        """A device-layer light state as a ring command (BLINK shows as the pulsing ring)."""
        if node != self.seat:
            return
        mode = {
            LightMode.OFF: RingMode.OFF,
            LightMode.ON: RingMode.TURN,
            LightMode.BLINK: RingMode.ALL_IN,
        }[state.mode]
        self.set_ring(RingCommand(mode, state.colour.value))

    # --- LED ring -------------------------------------------------------------------------
    def set_ring(self, command: RingCommand) -> None:
        """Send an LED ring command (delivered reliably; the latest is resent after a reboot)."""
        self._ring = (command, self._clock())
        self._send_ring(command, command.remaining_s)

    def _send_ring(self, command: RingCommand, remaining_s: float) -> None:
        r, g, b = command.colour
        body = L.led_body(
            int(command.mode), (r, g, b), int(remaining_s * 1000), int(command.total_s * 1000)
        )
        self.endpoint.send(L.T_LED, body)
        self.tick()

    # --- the line -------------------------------------------------------------------------
    def _now_ms(self) -> int:
        return int(self._clock() * 1000)

    def tick(self) -> None:
        """Retransmit, send a heartbeat when due, and mark the node offline when silent."""
        now = self._now_ms()
        self.endpoint.poll(now)
        self._write_out()
        if self.online and not self.endpoint.peer_alive(now, self.offline_after_ms):
            self._go_offline("no heartbeat")

    def _go_offline(self, why: str, level: int = logging.WARNING) -> None:
        self.online = False
        if self.seat is not None:
            log.log(level, "seat node %d offline (%s)", self.seat, why)
            self._emit(NodeOffline(self.seat))

    def _write_out(self) -> None:
        data = self.endpoint.output()
        if data:
            self._writer.write(data)

    def feed(self, data: bytes) -> None:
        """Take bytes received from the node (the read loop calls this)."""
        before = self.endpoint.stats.frames_ok
        frames = self.endpoint.feed(data, self._now_ms())
        heard = self.endpoint.stats.frames_ok > before
        for frame in frames:
            self._on_frame(frame)
        if heard and not self.online and self.seat is not None:
            self.online = True
            assert self.firmware is not None and self._node_boot is not None
            self._emit(NodeOnline(self.seat, self.firmware, self._node_boot))
        self._write_out()

    def _on_frame(self, frame: _LinkFrame) -> None:
        if frame.ftype == L.T_HELLO:
            self._on_hello(frame.body)
            return
        if self.seat is None:
            self.dropped_before_hello += 1
            return
        seat = self.seat
        if frame.ftype == L.T_BUTTON:
            self._emit(SeatButtonPressed(seat))
            return
        index = frame.body[0]
        uid = bytes(frame.body[1:])
        name = self.reader_name(seat, index, index == self._player_reader)
        if frame.ftype == L.T_CARD_ARRIVED:
            if self._present.get(index) == uid:
                return  # re-announced after a reboot: already known
            old = self._present.get(index)
            if old is not None:
                self._emit(CardLeft(name, old))
            self._present[index] = uid
            self._emit(CardArrived(name, uid))
        elif frame.ftype == L.T_CARD_LEFT:
            if self._present.get(index) == uid:
                del self._present[index]
            self._emit(CardLeft(name, uid))

    def _on_hello(self, body: bytes) -> None:
        hello: tuple[int, int, int, tuple[int, int, int], int, int] = L.parse_hello(body)
        _proto, boot, seat, firmware, _readers, player = hello
        rebooted = boot != self._node_boot
        if self.seat is not None and seat != self.seat:
            log.warning("seat node on this line changed seat id %d -> %d", self.seat, seat)
            self._present.clear()
        elif rebooted and self._present and self.seat is not None:
            # the node restarted and forgot its reads: it announces again what it still
            # reads, so what it had said before may have been lifted in between
            old, self._present = self._present, {}
            for index, uid in old.items():
                name = self.reader_name(seat, index, index == self._player_reader)
                self._emit(CardLeft(name, uid))
        self.seat = seat
        self.firmware = firmware
        self._node_boot = boot
        self._player_reader = player
        if rebooted or not self.online:
            self.online = True
            self._emit(NodeOnline(seat, firmware, boot))
        if rebooted and self._ring is not None:
            command, at = self._ring
            left = max(0.0, command.remaining_s - (self._clock() - at))
            self._send_ring(command, left)

    async def _read_loop(self) -> None:
        why = "its line closed"
        try:
            while True:
                data = await self._reader.read(4096)
                if not data:
                    break
                self.feed(data)
                await self._writer.drain()
        except OSError as exc:  # serial.SerialException is one: the port vanished or failed
            self.line_error = why = " ".join(str(exc).split()) or type(exc).__name__
        if self.online:  # whoever opened the line says it is lost (seatlines: a warning)
            self._go_offline(why, logging.INFO)

    async def _tick_loop(self) -> None:
        assert self._tick_s is not None
        with contextlib.suppress(OSError):  # the line failed: the read loop says so
            while not self.closed:
                await asyncio.sleep(self._tick_s)
                self.tick()
                await self._writer.drain()


class SeatNodeLinks:
    """Several seat nodes, one line each, behind the device layer's one-link seam.

    Give the table's ``profile`` and each link names its card events as the profile
    names the readers (``seat3``, ``player3``), as ``TableHardware`` does.
    """

    def __init__(self, links: list[SeatNodeLink], *, profile: Profile | None = None) -> None:
        self.links = links
        if profile is not None:
            names = profile_reader_name(profile)
            for link in links:
                link.reader_name = names

    def _for(self, node: int) -> SeatNodeLink | None:
        return next((link for link in self.links if link.seat == node), None)

    def tags(self, node: int, slot: str) -> frozenset[bytes]:
        link = self._for(node)
        return link.tags(node, slot) if link is not None else frozenset()

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        undo = [link.subscribe(listener) for link in self.links]

        def unsubscribe() -> None:
            for u in undo:
                u()

        return unsubscribe

    def subscribe_status(self, listener: Callable[[int, bool], None]) -> Callable[[], None]:
        """Call ``listener(seat, online)`` when any node comes online or goes offline."""
        undo = [link.subscribe_status(listener) for link in self.links]

        def unsubscribe() -> None:
            for u in undo:
                u()

        return unsubscribe

    def set_light(self, node: int, state: LightState) -> None:
        link = self._for(node)
        if link is not None:
            link.set_light(node, state)


#: where hardware/README.md tells how seat-node ports get their names and permissions
PORTS_HELP = "hardware/README.md, seat nodes"


def port_problem(port: str, exc: OSError) -> str:
    """One line: why seat-node port ``port`` did not open, and the fix."""
    code = exc.errno  # pyserial's SerialException carries the open's errno
    if code == errno.ENOENT:
        return (f"seat-node port {port} does not exist: plug the node in, or check its udev "
                f"rule and the profile's port ({PORTS_HELP})")
    if code in (errno.EACCES, errno.EPERM):
        return (f"no permission to open seat-node port {port}: add this user to the dialout "
                "group (sudo usermod -aG dialout $USER, then log in again) or give the port "
                f'GROUP="dialout" in its udev rule ({PORTS_HELP})')
    if code == errno.EBUSY:
        return (f"seat-node port {port} is busy: another program holds it (is a second "
                "controller or a serial terminal running?)")
    detail = " ".join(str(exc).split())
    return f"cannot open seat-node port {port}: {detail} (is it a serial port?)"


async def open_seat_link(port: str, *, baudrate: int = 115200, **kwargs: Any) -> SeatNodeLink:
    """A ``SeatNodeLink`` on serial port ``port`` (e.g. ``/dev/ttyACM0``); not started.
    A port that does not open is a ``DeviceAbsentError`` whose one line says the fix."""
    try:
        import serial_asyncio_fast
    except ImportError:
        raise DriverMissingError(
            "pyserial-asyncio-fast is not installed: pip install pyserial-asyncio-fast"
        ) from None
    try:
        reader, writer = await serial_asyncio_fast.open_serial_connection(
            url=port, baudrate=baudrate
        )
    except OSError as exc:  # serial.SerialException is an OSError
        raise DeviceAbsentError(port_problem(port, exc)) from None
    return SeatNodeLink(reader, writer, **kwargs)
