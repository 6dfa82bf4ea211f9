"""Commissioning a table: every part its profile names, checked with a person at the table.

``pitboss hardware check PROFILE`` (``controller/hardware_check.py``) runs this walk: a
test card on each reader in turn (raw scans for a few seconds: read rate and misses, so a
weak antenna shows), each key pressed (the GPIO keys and the USB keypad's), each seat
light lit and confirmed, the buzzer, a test frame on each display, each seat node's
firmware version and seat id. The result is a ``Report`` (``commissioning_report.py``).

The parts come opened one by one (``commissioning_bench.open_bench``), so a part missing
or miswired is a failed step naming its pin, bus or port, and the walk goes on. The
person is a port, ``technicians.Technician``: the console one, the mock's hands and a
scripted one in the tests walk the same steps. Time is a port too, ``Pace``: real time
on a table, virtual time on the mock (three seconds per antenna cost nothing there).
Waiting for a person runs on a daemon thread, so the event loop (and the seat-node lines
and the keypad on it) keeps running while they read the question.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Protocol, TypeVar

from .commissioning_bench import (
    Bench,
    KeypadCheck,
    SeatLines,
    buzzer_where,
    display_where,
    gpio_at,
    has_dealer_display,
    key_where,
    light_where,
    node_port,
    one_line,
    reader_where,
    seat_node_ports,
)
from .commissioning_report import ReadRate, Report, Status, Step
from .errors import DeviceError
from .events import KeyPressed
from .interfaces import (
    BEEP_WARNING,
    BlindsFrame,
    CardReader,
    Colour,
    LightState,
    ShotClockFrame,
)
from .keypad import KeyDown
from .specs import Profile, ReaderSpec
from .technicians import (
    BuzzerPlayed,
    DisplayShows,
    LiftCard,
    LightLit,
    PlaceCard,
    PressKey,
    PressKeypadKey,
    Sight,
    Technician,
)

T = TypeVar("T")

SECTIONS = ("nodes", "readers", "keys", "lights", "buzzer", "displays")
"""The walk's sections, in the order they run (seat nodes first: their readers need them)."""

TEST_BLINDS = BlindsFrame(
    level=88, small_blind=500, big_blind=1000, ante=100, button_seat=8, seconds_left=8 * 60 + 58
)
TEST_BLINDS_WORDS = "LEVEL 88, BTN 8, 500/1000, ANTE 100 and 8:58"
TEST_SHOT_CLOCK = ShotClockFrame("8888", Colour.RED)  # every segment of every digit
TEST_BEEP = BEEP_WARNING
TEST_DEALER_LINES = ("DEALER DISPLAY TEST", "123456789012345678901", "> 8888")
TEST_DEALER_WORDS = ("'DEALER DISPLAY TEST' on top, 21 digits below it across the whole "
                     "width, and '> 8888' inverted")


# ------------------------------------------------------------------ time
class Pace(Protocol):
    """The walk's clock and sleep."""

    def now(self) -> float: ...

    async def sleep(self, seconds: float) -> None: ...


class RealPace:
    """A real table: the monotonic clock, asyncio's sleep."""

    def now(self) -> float:
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


class VirtualPace:
    """The mock: time moves only when the walk sleeps (other tasks still get their turn)."""

    def __init__(self, start: float = 0.0) -> None:
        self.t = start

    def now(self) -> float:
        return self.t

    async def sleep(self, seconds: float) -> None:
        self.t += seconds
        await asyncio.sleep(0)


# ------------------------------------------------------------------ the walk
@dataclass(frozen=True, slots=True)
class Settings:
    """How long and how strict: the command's options."""

    seconds: float = 3.0  # raw scans per antenna while the card lies there
    wait_s: float = 15.0  # for a card to be placed or taken, a key, a node's hello
    min_rate: float = 0.95  # an antenna reading the card in fewer scans is weak
    sections: tuple[str, ...] = SECTIONS
    firmware: tuple[int, int, int] | None = None  # the version seat nodes should run


async def on_thread(fn: Callable[[], T]) -> T:
    """``fn()`` on a daemon thread: a person reading a question holds up neither the event
    loop nor, on Ctrl-C, the interpreter's exit (``asyncio.to_thread``'s pool would)."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[T] = loop.create_future()

    def settle(result: T | None, error: BaseException | None) -> None:
        if done.done():
            return
        if error is not None:
            done.set_exception(error)
        else:
            done.set_result(result)  # type: ignore[arg-type]

    def work() -> None:
        try:
            result, error = fn(), None
        except BaseException as exc:  # handed to the awaiting task
            result, error = None, exc
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile (Ctrl-C)
            loop.call_soon_threadsafe(settle, result, error)

    threading.Thread(target=work, name="technician", daemon=True).start()
    return await done


class Walk:
    """One commissioning walk over a bench; ``await run()`` gives the report, and
    ``report(complete=False)`` what was found so far when it is interrupted."""

    def __init__(
        self, bench: Bench, technician: Technician, *, pace: Pace, settings: Settings
    ) -> None:
        self.bench = bench
        self.tech = technician
        self.pace = pace
        self.settings = settings
        self.steps: list[Step] = []
        self.started = datetime.now(UTC)
        self._t0 = time.monotonic()

    @property
    def profile(self) -> Profile:
        return self.bench.profile

    def record(self, step: Step) -> Step:
        self.steps.append(step)
        self.tech.result(step)
        return step

    def report(self, *, complete: bool = True) -> Report:
        return Report(
            self.profile.name,
            self.profile.source,
            self.bench.backend,
            self.started,
            time.monotonic() - self._t0,
            tuple(self.steps),
            complete,
        )

    async def run(self) -> Report:
        self.tech.progress(
            f"Commissioning table {self.profile.name} ({self.profile.source}) on the "
            f"{self.bench.backend} backend: {', '.join(self.settings.sections)}"
        )
        for section in SECTIONS:
            if section in self.settings.sections:
                await getattr(self, f"_{section}")()
        return self.report()

    async def until(self, done: Callable[[], bool], seconds: float, every: float) -> bool:
        """Poll ``done`` until it holds (True) or ``seconds`` have passed (False)."""
        deadline = self.pace.now() + seconds
        while not done():
            if self.pace.now() >= deadline:
                return False
            await self.pace.sleep(every)
        return True

    def _unopened(self, part: str) -> bool:
        step = self.bench.unopened.get(part)
        if step is not None:
            self.record(step)
        return step is not None

    def _passed_over(self, part: str, kind: str, check: str) -> bool:
        """True when ``part`` is not checked: it did not open (its failed step is
        recorded), or it is a stand-in (``kind = "mock"``) in a profile for real
        hardware, so there is nothing on the table to look at."""
        if self._unopened(part):
            return True
        if kind == "mock" and self.bench.backend != "mock":
            self.record(Step(part, check, Status.SKIP, 'a stand-in (kind = "mock" in the '
                             "profile): nothing on the table to check", "mock"))
            return True
        return False

    async def _confirm(self, question: str, sight: Sight) -> bool | None:
        return await on_thread(lambda: self.tech.confirm(question, sight))

    # -- seat nodes
    async def _nodes(self) -> None:
        ports = seat_node_ports(self.profile)
        if not ports:
            return
        lines = self.bench.lines
        if lines is None:
            self.record(Step(
                "seat nodes", "firmware", Status.SKIP,
                f"the {self.bench.backend} backend opened no seat-node lines: give "
                "--seat-ports DIR to check simulated nodes", ", ".join(ports),
            ))  # fmt: skip
            return
        for port, node in ports.items():
            await self._node(port, node, lines)

    async def _node(self, port: str, node: int, lines: SeatLines) -> None:
        part = f"seat node {node}"
        path = lines.paths.get(port)
        where = node_port(port, path)
        deploy = f"pitboss firmware deploy {path or port} --seat {node}"
        line = lines.lines.get(port)
        if line is None:
            why = lines.errors.get(port, "not opened")
            self.record(Step(
                part, "open", Status.FAIL,
                f"cannot open its line: {why}: check the node's USB cable and power, and the "
                f"udev rule that names it {port}", where,
            ))  # fmt: skip
            return
        wait = self.settings.wait_s
        self.tech.progress(f"Waiting for seat node {node} on {where} to say hello...")
        if not await self.until(lambda: line.firmware is not None, wait, 0.05):
            self.record(Step(
                part, "firmware", Status.FAIL,
                f"did not say hello in {wait:g} s: check that it is powered and runs the "
                f"firmware ({deploy})", where,
            ))  # fmt: skip
            return
        firmware, seat = line.firmware, line.seat
        assert firmware is not None
        version = ".".join(map(str, firmware))
        expected = self.settings.firmware
        if seat != node:
            detail = (
                f"the node on {port} says it is seat {seat}, the profile expects node {node}: "
                f"swap the cables back, fix the udev rule for {port}, or redeploy ({deploy})"
            )
            self.record(Step(part, "seat id", Status.FAIL, detail, where))
        if expected is not None and firmware != expected:
            want = ".".join(map(str, expected))
            self.record(Step(
                part, "firmware", Status.FAIL,
                f"runs firmware {version}, this controller expects {want}: {deploy}", where,
            ))  # fmt: skip
        elif seat == node:
            self.record(Step(part, "firmware", Status.PASS, f"firmware {version}, seat {seat}",
                             where))

    # -- readers
    async def _readers(self) -> None:
        names = list(self.profile.readers)
        if any(name in self.bench.readers for name in names):
            await on_thread(lambda: self.tech.prompt(
                f"Readers: have a test card ready. Each reader in turn asks for it; "
                f"{self.settings.seconds:g} s of scans each. Press Enter to start."
            ))  # fmt: skip
        for name in names:
            spec = self.profile.readers[name]
            if not self._passed_over(f"reader {name}", spec.kind, "read rate"):
                await self._reader(name, self.bench.readers[name], spec)

    def _scan(self, reader: CardReader) -> tuple[frozenset[bytes], str | None]:
        try:
            return reader.scan(), None
        except DeviceError as exc:
            return frozenset(), one_line(exc)

    async def _reader(self, name: str, reader: CardReader, spec: ReaderSpec) -> None:
        part, where = f"reader {name}", reader_where(spec, self.bench.path(spec.port))
        poll, wait = self.profile.debounce.poll_s, self.settings.wait_s
        errors: list[str] = []

        def reads_a_card() -> bool:
            tags, error = self._scan(reader)
            if error:
                errors.append(error)
            return bool(tags)

        self.tech.instruct(f"Put the test card on reader {name} ({where}).", PlaceCard(name))
        if not await self.until(reads_a_card, wait, poll):
            answered = f" (the chip answered wrongly: {errors[-1]})" if errors else ""
            self.record(Step(
                part, "read rate", Status.FAIL,
                f"read no card in {wait:g} s{answered}: check that the card lies on the "
                "antenna, then the reader's wiring and power", where,
            ))  # fmt: skip
            self.tech.instruct(f"Take the card off {name}.", LiftCard(name))
            return
        rate = await self._measure(reader, poll)
        if rate.rate < self.settings.min_rate:
            self.record(Step(
                part, "read rate", Status.FAIL,
                f"weak antenna: {rate.summary()}, below {self.settings.min_rate:.0%}: check the "
                "antenna's cable and its distance to the felt, or try another card",
                where, rate.figures(),
            ))  # fmt: skip
        else:
            self.record(Step(part, "read rate", Status.PASS, rate.summary(), where,
                             rate.figures()))
        self.tech.instruct(f"Take the card off {name}.", LiftCard(name))
        if not await self.until(lambda: not self._scan(reader)[0], wait, poll):
            self.record(Step(
                part, "card taken away", Status.FAIL,
                f"still reads a tag {wait:g} s after the card was to be taken away: look for "
                "another tag near the antenna", where,
            ))  # fmt: skip

    async def _measure(self, reader: CardReader, poll: float) -> ReadRate:
        scans = reads = errors = 0
        start = self.pace.now()
        while self.pace.now() - start < self.settings.seconds:
            tags, error = self._scan(reader)
            scans += 1
            reads += bool(tags)
            errors += error is not None
            await self.pace.sleep(poll)
        return ReadRate(scans, reads, errors, self.pace.now() - start)

    # -- keys
    async def _keys(self) -> None:
        wait = self.settings.wait_s
        events = self.bench.key_events
        for key, pin in self.profile.keys.items():
            part, where = f"key '{key}'", key_where(pin)
            if self._unopened(part):
                continue
            events.clear()
            self.tech.instruct(f"Press the '{key}' key ({where}) within {wait:g} s.",
                               PressKey(key))

            def pressed() -> list[str]:
                return [e.key for e in list(events) if isinstance(e, KeyPressed)]

            await self.until(lambda: bool(pressed()), wait, 0.01)
            got = pressed()
            if got[:1] == [key]:
                self.record(Step(part, "press", Status.PASS, "pressed", where))
            elif got:
                other = got[0]
                other_at = gpio_at(self.profile.keys.get(other))
                self.record(Step(
                    part, "press", Status.FAIL,
                    f"'{other}' ({other_at}) fired instead: the wires of '{key}' and '{other}' "
                    "may be swapped (or another key was pressed)", where,
                ))  # fmt: skip
            else:
                self.record(Step(
                    part, "press", Status.FAIL,
                    f"no press in {wait:g} s: check the switch and its wire from "
                    f"{gpio_at(pin)} to GND", where,
                ))  # fmt: skip

        await self._keypad()

    async def _keypad(self) -> None:
        pad = self.bench.keypad
        if pad is None:
            return
        downs: deque[KeyDown] = deque()
        failed: list[str] = []

        async def pump() -> None:
            try:
                async for down in pad.read():
                    downs.append(down)
            except DeviceError as exc:
                failed.append(one_line(exc))

        task = asyncio.create_task(pump(), name="commissioning-keypad")
        try:
            await asyncio.sleep(0)  # read() opens the keypad on its first step
            for key, cap in pad.keys:
                if failed:
                    self.record(Step("keypad", "open", Status.FAIL,
                                     f"cannot be opened: {failed[0]}", pad.where))
                    return
                await self._keypad_key(pad, key, cap, downs, failed)
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _keypad_key(self, pad: KeypadCheck, key: str, cap: str, downs: deque[KeyDown],
                          failed: list[str]) -> None:
        wait = self.settings.wait_s
        part = f"keypad key '{cap}'"
        downs.clear()
        self.tech.instruct(f"Press the keypad's '{cap}' key within {wait:g} s.",
                           PressKeypadKey(key, cap))
        await self.until(lambda: bool(downs) or bool(failed), wait, 0.01)
        if not downs:
            why = f"the keypad was lost: {failed[0]}" if failed else f"no press in {wait:g} s"
            self.record(Step(part, "press", Status.FAIL,
                             f"{why}: check the keypad's USB cable", pad.where))
            return
        down = downs[0]
        if down.key == key:
            self.record(Step(part, "press", Status.PASS, f"sent {down.code}", pad.where))
        elif down.key is None:
            self.record(Step(
                part, "press", Status.FAIL,
                f"sent {down.code}, which the key map does not name: is this the keypad the "
                "map is for? (evtest shows what each key sends)", pad.where,
            ))  # fmt: skip
        else:
            self.record(Step(
                part, "press", Status.FAIL,
                f"sent {down.code}, which the key map gives to '{down.key}': fix the map, or "
                "another key was pressed", pad.where,
            ))  # fmt: skip

    # -- lights, buzzer, displays: a person looks
    async def _asked(self, part: str, check: str, where: str, question: str, sight: Sight,
                     fix: str) -> None:
        answer = await self._confirm(question, sight)
        if answer is None:
            self.record(Step(part, check, Status.SKIP, "nobody answered", where))
        elif answer:
            self.record(Step(part, check, Status.PASS, "confirmed", where))
        else:
            self.record(Step(part, check, Status.FAIL, f"not seen: {fix}", where))

    async def _lights(self) -> None:
        for seat in self.profile.seats:
            part = f"seat {seat.number} light"
            if self._passed_over(part, seat.light.kind, "lit"):
                continue
            light = self.bench.lights[seat.number]
            where = light_where(seat.light, self.bench.path(seat.light.port))
            ring = seat.light.kind == "seatnode_ring"
            state = LightState.on(Colour.GREEN)
            try:
                light.set(state)
            except DeviceError as exc:
                self.record(Step(part, "lit", Status.FAIL, f"cannot be lit: {one_line(exc)}",
                                 where))
                continue
            fix = (
                "check the ring's cable on the seat node"
                if ring
                else f"check the LED on {gpio_at(seat.light.pin)}, its resistor and its polarity"
            )
            await self._asked(part, "lit", where,
                              f"Is seat {seat.number}'s light on{' (green)' if ring else ''}?",
                              LightLit(seat.number, state), fix)
            with contextlib.suppress(DeviceError):
                light.set(LightState.off())

    async def _buzzer(self) -> None:
        if self._passed_over("buzzer", self.profile.buzzer.kind, "beep"):
            return
        buzzer = self.bench.buzzer
        assert buzzer is not None
        where = buzzer_where(self.profile.buzzer)
        buzzer.beep(TEST_BEEP)
        await self._asked("buzzer", "beep", where, "Did the buzzer beep twice?",
                          BuzzerPlayed(TEST_BEEP),
                          f"check the buzzer on {gpio_at(self.profile.buzzer.pin)}, its "
                          "transistor and its 5 V supply")

    async def _displays(self) -> None:
        if not self._passed_over("blinds display", self.profile.blinds_display.kind,
                                 "test frame"):
            blinds = self.bench.blinds
            assert blinds is not None
            spec = self.profile.blinds_display
            blinds.show(TEST_BLINDS)
            await self._asked("blinds display", "test frame", display_where(spec),
                              f"Does the blinds display read {TEST_BLINDS_WORDS}?",
                              DisplayShows("blinds", TEST_BLINDS),
                              f"check its wiring ({display_where(spec)}) and its 3.3 V supply")
        if not self._passed_over("shot clock", self.profile.shot_clock.kind, "test frame"):
            clock = self.bench.shot_clock
            assert clock is not None
            spec = self.profile.shot_clock
            clock.show(TEST_SHOT_CLOCK)
            clock.refresh(self.pace.now())
            await self._asked("shot clock", "test frame", display_where(spec),
                              "Does the shot clock show 8888, every segment of every digit lit?",
                              DisplayShows("shot_clock", TEST_SHOT_CLOCK),
                              f"a dark digit or segment is a loose wire or a bad module "
                              f"({display_where(spec)})")
            clock.show(ShotClockFrame(""))
        dealer_kind = self.profile.dealer_display.kind
        if has_dealer_display(self.profile) and not self._passed_over(
            "dealer display", dealer_kind, "test frame"
        ):
            dealer = self.bench.dealer_display
            if dealer is None:
                return  # the backend builds no dealer display: nothing was opened
            spec = self.profile.dealer_display
            dealer.show(TEST_DEALER_LINES)
            await self._asked("dealer display", "test frame", display_where(spec),
                              f"Does the dealer display show {TEST_DEALER_WORDS}?",
                              DisplayShows("dealer", TEST_DEALER_LINES),
                              f"check its wiring ({display_where(spec)}) and its 3.3 V supply")
            dealer.show(())


async def commission(
    bench: Bench, technician: Technician, *, pace: Pace, settings: Settings = Settings()
) -> Report:
    """Walk ``bench`` with ``technician``; the report of every check."""
    return await Walk(bench, technician, pace=pace, settings=settings).run()
