"""The dealer's terminal: key or tap -> intent applied -> display and tablet updated
(budget p99 <= 20 ms). Prints figures; asserts nothing about time.

    .venv/bin/python tests/benchmarks/bench_terminal.py [--hands N] [--peers N] [--quick]
        [--dir PATH]   (pitboss bench terminal ...)

One process, one event loop, the real parts as the table runs them: a journal in a
temporary directory (``--dir``: on the SD card, for a Pi's figure), fsync on, and its
outbox, ``TableJournal``, a ``Table`` on the virtual profile's ``MockTable`` with the
tests' known deck, ``open_desk``; the keypad read by ``run_keypad`` from the tests' fake
evdev device, the dealer's display redrawn by ``run_dealer_display`` on the mock's luma
dummy, and the tablet served by ``serve_tablet`` on 127.0.0.1 (a free port) with two
tablets' SSE streams open on ``/api/stream`` (httpx2). Three players play whole hands (a
raise and two calls, checks, a bet, a fold and a call, a bet and a call, a bet and a
fold); each betting command, the DEAL that starts a hand and the one that pushes its pot
goes in by the keypad or a tap, alternately. Cards are placed at the mock readers between
them, untimed. Printed, each against the budget:

1. key press (the fake device's events queued) -> the dealer's display drew a new frame
   with the change;
2. key press -> the tablet's SSE frame with the change received;
3. tablet tap (``POST /api/command``) -> the HTTP answer, -> the SSE frame on a second
   tablet, -> the dealer's display frame;

then the desk's own part (``Desk.do``, ``Desk.screen``) and peers measured in the same
run, so each figure reads as a ratio too: one event journaled (append + fsync) through the
outbox alone, a bare uvicorn ASGI app on the same loop answering a POST, and pushing one
SSE frame of the same size.

The tablets' HTTP clients run on the table's loop too (one process, as asked of the
benchmark): a figure includes their sending and parsing, which a real tablet does on its
own CPU, so it is an upper bound of what the table itself adds.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import httpx2

from controller.app import TableJournal, open_desk
from controller.devices.displays import LumaDealerDisplay
from controller.devices.mock import MockTable
from controller.devices.profile import load_profile
from controller.sync.journal import Journal
from controller.sync.outbox import Outbox
from controller.table.lights import Level
from controller.table.table import Table
from controller.terminal.desk import Desk
from controller.terminal.keymap import KeyMap, load_keymap
from controller.terminal.keypad import run_dealer_display, run_keypad
from controller.terminal.screen import Screen
from controller.terminal.tablet import serve_tablet, tablet_token
from tests.benchmarks.terminal_parts import Trace, bare_uvicorn, cancel, journal_alone, stuck
from tests.table.conftest import DECKMAP, Dealer
from tests.terminal.fakes import FakeInputs, FakeKeypad

BUDGET_P99_MS = 20.0
KEYPAD = "/dev/input/by-id/usb-Genovation_ControlPad_CP48-event-kbd"
STACK = 10_000_000  # nobody goes broke in a run
HOLE = ("AhKh", "2c3d", "9s9d")  # to the seats in the order they are dealt
STREETS = {"flop": ("2d", "3h4h5s"), "turn": ("8h", "Jc"), "river": ("Jd", "Qd")}
# one hand: commands (verb [amount]) and, between them, cards at the readers (untimed)
HAND = ("deal", "hole", "bet 300", "call", "call",
        "flop", "check", "check", "bet 400", "fold", "call",
        "turn", "check", "bet 1000", "call",
        "river", "bet 500", "fold", "deal", "gather")  # DEAL: the pot pushed


def _public(screen: Screen) -> dict[str, Any]:
    """The screen as a tablet receives it (JSON, without the app's ``seq``)."""
    loaded: dict[str, Any] = json.loads(json.dumps(screen.as_json()))
    return loaded


def _without_seq(frame: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in frame.items() if k != "seq"}


async def _listen(client: httpx2.AsyncClient, path: str, trace: Trace[dict[str, Any]]) -> None:
    """An SSE client: each ``data:`` line timed as it arrives, then parsed."""
    async with client.stream("GET", path) as response:
        response.raise_for_status()
        async for line in response.aiter_lines():
            if line.startswith("data: "):
                at = time.perf_counter()  # arrived; parsing it is the reader's
                trace.add(json.loads(line[6:]), at)


# ---------------------------------------------------------------------------- figures
@dataclass
class Figures:
    key_display: list[float] = field(default_factory=list)
    key_sse: list[float] = field(default_factory=list)
    tap_answer: list[float] = field(default_factory=list)
    tap_sse: list[float] = field(default_factory=list)
    tap_display: list[float] = field(default_factory=list)
    events: list[int] = field(default_factory=list)  # journaled per command
    do: list[float] = field(default_factory=list)  # Desk.do: the command carried out
    journaling: list[float] = field(default_factory=list)  # of each Desk.do: the journal's
    full_gc: list[float] = field(default_factory=list)  # the collector's full passes
    screen: list[float] = field(default_factory=list)  # Desk.screen: one frame built
    hands: int = 0
    frame_bytes: int = 0
    answer_bytes: int = 0
    tap_bytes: int = 0


def _pct(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _spread(ms: Sequence[float], *, budget: bool = True) -> str:
    p99 = _pct(ms, 0.99)
    over = sum(x > BUDGET_P99_MS for x in ms)
    verdict = (f", {over} over {BUDGET_P99_MS:g} ms; budget p99 <= {BUDGET_P99_MS:g} ms: "
               f"{'met' if p99 <= BUDGET_P99_MS else 'MISSED'}") if budget else ""
    return (f"p50 {statistics.median(ms):.2f} ms, p99 {p99:.2f} ms, max {max(ms):.2f} ms "
            f"({len(ms)}{verdict})")


# ---------------------------------------------------------------------------- the station
@dataclass
class Station:
    """The table, its desk, the keypad and the two tablets, as the benchmark drives them."""

    table: Table
    hw: MockTable
    desk: Desk
    journal: Journal
    outbox: Outbox
    dealer: Dealer
    pad: FakeKeypad
    keymap: KeyMap
    display: Trace[tuple[str, ...]]
    tablet_a: Trace[dict[str, Any]]  # the tablet that taps: its own stream
    tablet_b: Trace[dict[str, Any]]  # a second tablet (the kiosk on the Pi's screen)
    tapper: httpx2.AsyncClient
    tasks: tuple[asyncio.Task[None], ...]

    def check(self) -> None:
        for task in self.tasks:  # one that died says why
            if task.done():
                task.result()
                raise RuntimeError(f"bench_terminal: the {task.get_name()} task ended")

    async def settled(self) -> None:
        """The display and both tablets show the table as it is now."""
        self.check()
        screen = self.desk.screen()
        lines, public = screen.lines(), _public(screen)
        await self.display.showing(lambda shown: shown == lines, "the current screen")
        for tablet in (self.tablet_a, self.tablet_b):
            await tablet.showing(lambda frame: _without_seq(frame) == public,
                                 "the current screen")
        for trace in (self.display, self.tablet_a, self.tablet_b):
            trace.trim()

    def cards(self, step: str) -> None:
        if step == "hole":
            reads = self.table.reads
            assert reads is not None, "DEAL did not start a deal"
            hole = dict(zip(reads.dealt, HOLE, strict=False))
            for k in range(2):
                for seat in reads.dealt:
                    self.dealer.place(f"seat{seat}", hole[seat][2 * k:2 * k + 2])
        elif step == "gather":
            self.dealer.gather()
        else:
            burn, board = STREETS[step]
            self.dealer.street(burn, board)

    async def key(self, verb: str, amount: int | None, figures: Figures) -> None:
        """The amount keyed digit by digit (settled, untimed), then the command key timed:
        to the display frame and the first tablet's SSE frame with the change."""
        if amount is not None:
            for digit in str(amount):
                self.pad.press(self.keymap.code_of(digit))
            await self._keys_read()
            await self.settled()
        window = self._window()
        t0 = time.perf_counter()
        self.pad.press(self.keymap.code_of(verb))
        await self._keys_read()  # the reader has handled it: the command was carried out
        self._accepted(f"key {verb}")
        shown, sent = await window.changed(self.tablet_a, f"key {verb}")
        figures.key_display.append((shown - t0) * 1000)
        figures.key_sse.append((sent - t0) * 1000)
        figures.events.append(self.journal.last_seq - window.seq)

    async def _keys_read(self) -> None:
        """Until the keypad's reader has handled every key pressed (or said why not)."""
        async with stuck("the keypad's reader never handled the keys pressed"):
            await self.pad.settle()

    async def tap(self, verb: str, amount: int | None, figures: Figures) -> None:
        """A tap as the page sends it (the turn of the frame it shows), timed to the HTTP
        answer, the second tablet's SSE frame and the dealer's display frame."""
        window = self._window()
        body: dict[str, object] = {"verb": verb, "turn": window.turn}
        if amount is not None:
            body["amount"] = amount
        payload = json.dumps(body).encode()
        t0 = time.perf_counter()
        response = await self.tapper.post("/api/command", content=payload,
                                          headers={"content-type": "application/json"})
        answered = time.perf_counter()
        response.raise_for_status()
        reply = response.json()["reply"]
        if not reply["accepted"]:
            raise RuntimeError(f"bench_terminal: tap {verb} refused: {reply['line']}")
        drawn, sent = await window.changed(self.tablet_b, f"tap {verb}")
        figures.tap_answer.append((answered - t0) * 1000)
        figures.tap_sse.append((sent - t0) * 1000)
        figures.tap_display.append((drawn - t0) * 1000)
        figures.events.append(self.journal.last_seq - window.seq)
        figures.tap_bytes = len(payload)
        figures.answer_bytes = len(response.content)

    def _window(self) -> Window:
        """What everything shows before a timed command (the station is settled)."""
        lines, frame = self.display.last, self.tablet_a.last
        assert lines is not None and frame is not None
        return Window(self, self.journal.last_seq, lines, frame["turn"],
                      len(self.display.seen), len(self.tablet_a.seen), len(self.tablet_b.seen))

    def _accepted(self, what: str) -> None:
        reply = self.desk.reply
        if reply is None or not reply.accepted:
            raise RuntimeError(f"bench_terminal: {what} refused: "
                               f"{reply.line if reply else 'no reply'}")


@dataclass(frozen=True)
class Window:
    """One timed command: what was shown before it, and where each trace stood. The
    frames that carry its change are told apart by what they show (the display's lines
    differ; a tablet frame has another ``turn``: the clocks' beat does not), so nothing
    is computed between the press and the frames; that they show the table as it now is
    is checked afterwards."""

    station: Station
    seq: int
    lines: tuple[str, ...]
    turn: str
    display_mark: int
    a_mark: int
    b_mark: int

    async def changed(self, tablet: Trace[dict[str, Any]], what: str) -> tuple[float, float]:
        """When the display and ``tablet`` showed the change."""
        s = self.station
        mark = self.a_mark if tablet is s.tablet_a else self.b_mark
        drawn, lines = await s.display.first(self.display_mark,
                                             lambda x: x != self.lines, what)
        sent, frame = await tablet.first(mark, lambda f: f["turn"] != self.turn, what)
        screen = s.desk.screen()
        if lines != screen.lines() or frame["turn"] != screen.turn:
            raise RuntimeError(f"bench_terminal: after {what} the display or a tablet drew "
                               "a frame that is not the table's screen")
        return drawn, sent


@contextlib.asynccontextmanager
async def station(tmp: Path) -> AsyncIterator[Station]:
    """The whole terminal of one journaled table, on this loop."""
    profile = load_profile("virtual")
    assert profile.keypad is not None
    keymap = load_keymap(profile.keypad.map)
    journal = Journal(tmp / "table.db", table="T1")
    try:
        async with Outbox(journal) as outbox:
            hw = MockTable(profile)
            try:
                sink = TableJournal(outbox)
                table = Table(hw, sink=sink, levels=(Level(50, 100),), deck=DECKMAP)
                desk = open_desk(table, sink)
                for seat in (1, 2, 3):
                    assert table.take_seat(seat, f"p{seat}", STACK)
                assert table.set_button(1)
                display = _recorded_display(hw)
                inputs = FakeInputs()
                pad = inputs.plug(KEYPAD)
                assert hw.dealer_display is not None
                token = tablet_token(tmp / "tablet.token")
                port: asyncio.Future[int] = asyncio.get_running_loop().create_future()
                tasks = (
                    asyncio.create_task(run_keypad(desk, KEYPAD, keymap, opener=inputs.open),
                                        name="keypad"),
                    asyncio.create_task(run_dealer_display(desk, hw.dealer_display),
                                        name="dealer-display"),
                    asyncio.create_task(serve_tablet(desk, host="127.0.0.1", port=0,
                                                     token=token, ready=port.set_result),
                                        name="tablet"))
                try:
                    async with stuck("the tablet's port"):
                        either: set[asyncio.Future[Any]] = {tasks[2], port}
                        await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
                    if tasks[2].done():
                        tasks[2].result()
                    url = f"http://127.0.0.1:{port.result()}"
                    bearer = {"authorization": f"Bearer {token}"}
                    async with httpx2.AsyncClient(base_url=url, headers=bearer) as a, \
                            httpx2.AsyncClient(base_url=url, headers=bearer) as b:
                        trace_a: Trace[dict[str, Any]] = Trace("the tapping tablet's stream")
                        trace_b: Trace[dict[str, Any]] = Trace("the second tablet's stream")
                        streams = (asyncio.create_task(_listen(a, "/api/stream", trace_a),
                                                       name="stream-a"),
                                   asyncio.create_task(_listen(b, "/api/stream", trace_b),
                                                       name="stream-b"))
                        try:
                            s = Station(table, hw, desk, journal, outbox, Dealer(table, hw),
                                        pad,
                                        keymap, display, trace_a, trace_b, a,
                                        (*tasks, *streams))
                            await s.settled()
                            yield s
                        finally:
                            await cancel(streams)
                finally:
                    await cancel(tasks)
            finally:
                hw.close()
    finally:
        journal.close()


def _recorded_display(hw: MockTable) -> Trace[tuple[str, ...]]:
    """The dealer display's frames, each timed when the luma device has it."""
    display = hw.dealer_display
    assert isinstance(display, LumaDealerDisplay), "the virtual profile has a dealer display"
    trace: Trace[tuple[str, ...]] = Trace("the dealer's display")
    show = display.show

    def recorded(lines: Sequence[str]) -> None:
        before = display.frames
        show(lines)
        if display.frames != before:
            trace.add(display.lines)

    display.show = recorded  # type: ignore[method-assign]
    return trace


def _timed(figures: Figures, desk: Desk, outbox: Outbox) -> None:
    """The desk's own part of each command, timed where the keypad and the tablet call
    it: ``do`` (the intent submitted, its events journaled, the reply), of it the time in
    the journal (``record_now``: append + fsync), and ``screen`` (each face builds one
    per change)."""
    do, screen, record_now = desk.do, desk.screen, outbox.record_now
    journaling = [0.0]

    def timed_record(events: Any) -> list[int]:
        t0 = time.perf_counter()
        try:
            return record_now(events)
        finally:
            journaling[0] += (time.perf_counter() - t0) * 1000

    def timed_do(command: Any, origin: Any = None) -> Any:
        journaling[0] = 0.0
        t0 = time.perf_counter()
        try:
            return do(command, origin)
        finally:
            figures.do.append((time.perf_counter() - t0) * 1000)
            figures.journaling.append(journaling[0])

    def timed_screen() -> Screen:
        t0 = time.perf_counter()
        try:
            return screen()
        finally:
            figures.screen.append((time.perf_counter() - t0) * 1000)

    desk.do = timed_do  # type: ignore[method-assign]
    desk.screen = timed_screen  # type: ignore[method-assign]
    outbox.record_now = timed_record  # type: ignore[method-assign]


@contextlib.contextmanager
def _full_collections(figures: Figures) -> Iterator[None]:
    """Each full (generation 2) pass of the garbage collector, timed: the process's own
    pauses, which land on whatever command is under way."""
    started = [0.0]

    def watch(phase: str, info: dict[str, int]) -> None:
        if info["generation"] == 2:
            if phase == "start":
                started[0] = time.perf_counter()
            else:
                figures.full_gc.append((time.perf_counter() - started[0]) * 1000)

    gc.callbacks.append(watch)
    try:
        yield
    finally:
        gc.callbacks.remove(watch)


async def play(tmp: Path, hands: int) -> Figures:
    """``hands`` whole hands at a fresh station."""
    figures = Figures()
    async with station(tmp) as s:
        _timed(figures, s.desk, s.outbox)
        with _full_collections(figures):
            await _hands(s, hands, figures)
        last = s.tablet_b.seen[-1][1]
        figures.frame_bytes = len(json.dumps(last, separators=(",", ":")))
    return figures


async def _hands(s: Station, hands: int, figures: Figures) -> None:
    """The commands alternate between the keypad and the tablet, shifted by one each hand
    so every command of the hand is timed at both."""
    for hand in range(hands):
        n = hand
        for step in HAND:
            verb, _, number = step.partition(" ")
            amount = int(number) if number else None
            if verb in ("hole", "gather", *STREETS):
                s.cards(verb)
            elif n % 2 == 0:
                await s.key(verb, amount, figures)
                n += 1
            else:
                await s.tap(verb, amount, figures)
                n += 1
            await s.settled()
        figures.hands += 1


# ---------------------------------------------------------------------------- main
async def run(tmp: Path, hands: int, peers: int) -> None:
    figures = await play(tmp, hands)
    fsync = await journal_alone(tmp, peers)
    posts, pushes = await bare_uvicorn(figures.answer_bytes, figures.frame_bytes,
                                       figures.tap_bytes, peers)
    events = statistics.mean(figures.events)
    print(f"terminal: {figures.hands} hands, 3 players, journal fsync on; "
          f"{len(figures.key_display)} keys and {len(figures.tap_answer)} taps timed; "
          f"{events:.1f} events journaled per command (each fsynced on its own); tablet "
          f"frame {figures.frame_bytes} bytes, two tablets streaming")
    print(f"1. key press -> dealer display frame updated: {_spread(figures.key_display)}")
    print(f"2. key press -> tablet SSE frame with the change: {_spread(figures.key_sse)}")
    print(f"3. tablet tap -> HTTP answer: {_spread(figures.tap_answer)}")
    print(f"   tablet tap -> SSE frame on a second tablet: {_spread(figures.tap_sse)}")
    print(f"   tablet tap -> dealer display frame updated: {_spread(figures.tap_display)}")
    print(f"   of which the desk carrying a command out (Desk.do: intent applied, events "
          f"journaled, reply): {_spread(figures.do, budget=False)}; building one screen "
          f"(Desk.screen, once per face per change): p50 "
          f"{statistics.median(figures.screen):.2f} ms")
    print(f"   of Desk.do, the journal (append + fsync of its events): "
          f"{_spread(figures.journaling, budget=False)}")
    gcs = figures.full_gc
    print(f"   full garbage collections during the hands: {len(gcs)}"
          + (f", longest {max(gcs):.1f} ms (one lands on the command under way)"
             if gcs else ""))
    print(f"peer: one event journaled alone (append + fsync): {_spread(fsync, budget=False)}; "
          f"a command's journaling p50 is "
          f"{statistics.median(figures.journaling) / statistics.median(fsync):.1f}x that")
    print(f"peer: bare uvicorn ASGI app on this loop, POST -> answer: "
          f"{_spread(posts, budget=False)}; tap -> answer p50 is "
          f"{statistics.median(figures.tap_answer) / statistics.median(posts):.1f}x that")
    print(f"peer: bare uvicorn SSE frame pushed -> received: {_spread(pushes, budget=False)}; "
          f"key -> SSE p50 is {statistics.median(figures.key_sse) / statistics.median(pushes):.1f}"
          "x that")


def main(argv: Sequence[str] | None = None, prog: str | None = None) -> int:
    """Run the benchmark; print the figures."""
    parser = argparse.ArgumentParser(
        prog=prog, description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--hands", type=int, default=200,
                        help="whole hands played, 15 timed commands each (default 200)")
    parser.add_argument("--peers", type=int, default=1000,
                        help="samples of each peer (default 1000)")
    parser.add_argument("--quick", action="store_true",
                        help="a few hands and peers: that it runs, not figures to quote")
    parser.add_argument("--dir", type=Path, default=None,
                        help="where the journals go (a temporary directory in it, removed "
                        "after; default: the system's temporary directory)")
    args = parser.parse_args(argv)
    hands, peers = (3, 30) if args.quick else (args.hands, args.peers)
    if hands < 1 or peers < 1:
        parser.error("--hands and --peers must be at least 1")
    if args.dir is not None and not args.dir.is_dir():
        parser.error(f"--dir {args.dir} is not a directory: create it or name another")
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory(prefix="bench-terminal-", dir=args.dir) as tmp:
        asyncio.run(run(Path(tmp), hands, peers))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
