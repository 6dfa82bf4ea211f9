"""The floor page with 200 live tables in Chromium (budgets: first paint < 1 s; an update
on screen p99 < 150 ms).

Run: pitboss bench floor [--tables 200] [--loads 10] [--rate 100] [--seconds 20] [--quick]

A real bridge app (SQLite in a temporary directory) served by uvicorn on 127.0.0.1, in
this process (``tests.bridge.test_dashboard.RunningBridge``); ``--tables`` tables online
on it, nine players seated at each (``tests.bridge.reporting.ReportingWire``: each table's
messages and its public state as the controller's journal folds it). Debian's Chromium
(/usr/bin/chromium), headless, through Playwright; the token is put in the page's session
storage before the page's scripts run, as a signed-in floor person's reload has it.

1. First paint: ``--loads`` fresh page loads of /dashboard/ (a new browser context each:
   an empty cache, as a first visit), full cards and then the compact view. Times are the
   page's own Performance API, from navigation start (``performance.now()`` is 0 there):
   FCP is Chromium's first-contentful-paint (the page's first pixels, before the tables
   have been read); "cards in the DOM" is when the grid first holds every table's card (a
   MutationObserver); "cards on screen" is the start of the next animation frame after
   that, i.e. after the frame holding the cards was laid out and painted (an upper bound
   of the paint, within one frame). The budget is judged on "cards on screen". The page's
   long tasks (> 50 ms, PerformanceObserver) up to then are counted too.
2. Update on screen: with one page open (full cards), ``--rate`` updates a second for
   ``--seconds`` s, each to a table picked at random (not one of the last tables//2
   picked, so no update can be hidden by the next one to the same card): a
   ``stack_adjusted`` (a floor correction) that gives one seat a unique stack (the
   marker, 100,000 and up), and the table's state after it, as a table sends them; the
   bridge takes them as its MQTT link does (``host_bridge.mqtt.MqttLink``'s own store
   loop, without a broker: each message admitted on arrival, so on the live feed at once,
   and stored in batches of whatever has arrived). The time starts when the bridge's loop
   takes the update (Python's ``time.time()``); the page's
   MutationObserver on the grid notes when a seat's stack shows the marker
   (``performance.timeOrigin + performance.now()``, the same wall clock on one machine;
   the offset between the two clocks is measured and printed) and the next animation
   frame after it (on screen). The page's path is its own: the feed's ``stack_adjusted``
   event, folded into the table's card as the store applies it (no REST read), the card
   patched in the next frame; "of which" lines give when the page had the feed's event
   and how long from it to the card patched in the DOM. Off the path, and printed after
   the budget's line: when the bridge's "stored" item came (the store has the event), and
   the page's reconciliation reads of the tables over REST that it asks after those items
   (one per burst of "stored" items of a table, at most one in flight per table, started
   at most five a second page-wide, so they cannot queue on the bridge): how many, their
   times (Resource Timing's startTime to responseEnd), and how many updates were first
   shown only after a read of their table, asked after their event, was answered (the
   page's old path, which waited for that read, showed every one so; folding the feed,
   0 or nearly: a read may land by chance between the event and the patch).
   Updates never shown (none more shown for 5 s) are counted: superseded when the page
   showed a later stack of the same seat instead, else dropped.

The machine's load average is printed with the figures: on a shared machine, read them
beside it.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import os
import random
import shutil
import socket
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from controller.events import SeatAdjustment, StackAdjusted
from host_bridge.app import create_app
from host_bridge.ingest_parts import Parsed
from host_bridge.mqtt import MqttLink
from host_bridge.settings import Role
from tests.bridge.conftest import TOKENS, make_settings
from tests.bridge.reporting import ReportingWire
from tests.bridge.test_dashboard import (
    CHROMIUM,
    CHROMIUM_ARGS,
    RunningBridge,
    VirtualFloor,
)

BUDGET_PAINT_MS = 1000.0
BUDGET_UPDATE_P99_MS = 150.0
SEATS = 9
STACK = 10_000
MARKER_FROM = 100_000
DRAIN_S = 5.0
WAIT_MS = 60_000  # an upper bound for a page to load on a busy machine, not a budget
SCREEN = {"width": 1920, "height": 1080}

# Before the page's scripts: the token (a signed-in reload), the view, and the marks of
# the first paint (the grid's cards counted on each DOM change, until all are there).
INIT = """(([token, view, want]) => {
  sessionStorage.setItem("pitboss.token", token);
  localStorage.setItem("pitboss.floor.view", JSON.stringify(view));
  const marks = window.__bench = { cardsDom: null, cardsFrame: null, longTasks: [] };
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) marks.longTasks.push([e.startTime, e.duration]);
    }).observe({ type: "longtask", buffered: true });
  } catch (err) { /* no long task timing */ }
  const watch = new MutationObserver(() => {
    const grid = document.getElementById("grid");
    if (!grid || grid.childElementCount < want) return;
    marks.cardsDom = performance.now();
    watch.disconnect();
    requestAnimationFrame(() => { marks.cardsFrame = performance.now(); });
  });
  watch.observe(document, { childList: true, subtree: true });
})(%s);"""

READ_PAINT = """() => {
  const marks = window.__bench;
  const fcp = performance.getEntriesByName("first-contentful-paint")[0];
  const until = marks.cardsFrame;
  const long = marks.longTasks.filter(([start]) => start < until);
  return { fcp: fcp ? fcp.startTime : null, dom: marks.cardsDom, frame: until,
    longTasks: long.length, longest: Math.max(0, ...long.map(([, d]) => d)),
    cards: document.querySelectorAll("#grid > li.table-card").length };
}"""

# While the updates run: every seat stack that shows a marker, when (wall clock, ms) it
# entered the DOM and the start of the next animation frame after that.
WATCH_STACKS = """(from) => {
  const seen = window.__stacks = [];
  const clock = () => performance.timeOrigin + performance.now();
  const marker = (text) => { const n = Number(String(text).replace(/,/g, ""));
    return n >= from ? n : null; };
  const grid = document.getElementById("grid");
  new MutationObserver((records) => {
    const at = clock();
    const found = [];
    for (const r of records) {
      if (r.type === "characterData") {
        const el = r.target.parentElement;
        if (el && el.classList.contains("stack")) found.push(marker(r.target.data));
        continue;
      }
      for (const n of r.addedNodes) {
        if (n.nodeType === 3) {
          if (n.parentElement && n.parentElement.classList.contains("stack")) {
            found.push(marker(n.data));
          }
        } else if (n.nodeType === 1) {
          const stacks = n.classList.contains("stack") ? [n] : n.querySelectorAll(".stack");
          for (const s of stacks) found.push(marker(s.textContent));
        }
      }
    }
    const markers = found.filter((m) => m !== null);
    if (!markers.length) return;
    const row = markers.map((m) => [m, at, null]);
    seen.push(...row);
    requestAnimationFrame(() => { const t = clock(); for (const r of row) r[2] = t; });
  }).observe(grid, { subtree: true, childList: true, characterData: true });
  // where the time goes: the feed's event and "stored" items, the tables read over REST
  const trail = window.__trail = { event: [], stored: [], reads: [] };
  state.socket.addEventListener("message", (message) => {
    const at = clock();
    let item;
    try { item = JSON.parse(message.data); } catch { return; }
    if (item.type === "event" && item.event.kind === "stack_adjusted") {
      trail.event.push([item.event.seats[0].after, at]);
    } else if (item.type === "stored") trail.stored.push([item.table, at]);
  });
  performance.clearResourceTimings();
  performance.setResourceTimingBufferSize(1000000);
  window.__longDuring = [];
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__longDuring.push(e.duration);
    }).observe({ type: "longtask" });
  } catch (err) { /* no long task timing */ }
  return clock();
}"""


class LiveFloor(RunningBridge):
    """A bridge, serving, that ``tables`` online tables report to, nine players at each."""

    def __init__(self, tmp: Path, tables: int) -> None:
        self.floor = VirtualFloor()
        super().__init__(create_app(make_settings(tmp), publisher=self.floor))
        self.floor.deliver = self.bridge.receive
        # RunningBridge's socket is socket.socket() (proto 0), on which asyncio does not
        # set TCP_NODELAY: every REST answer (headers, then body) would wait ~40 ms for a
        # delayed ACK. uvicorn's own listening socket (getaddrinfo: IPPROTO_TCP) has it.
        self.sock.close()
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        self.sock.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.stacks: dict[tuple[str, int], int] = {}
        messages: list[tuple[str, bytes]] = []
        for n in range(1, tables + 1):
            table = f"f{n}"
            wire = self.floor.wires[table] = ReportingWire(table)
            wire.ts = time.time()
            messages.append(wire.status(True))
            for seat in range(1, SEATS + 1):
                messages.append(wire.seat(seat, f"p{seat}-{table}", STACK))
                self.stacks[table, seat] = STACK
            messages.append(wire.reported())
        self.bridge.ingest.take_many(messages)
        # as a bridge started on this stored floor would (Bridge.__init__): the feed goes
        # on from each table's stored seq. Without it every table's first update would be
        # held above a "gap" until the store applied it (the store's pace, not the feed's)
        self.bridge.feed.start_at(self.bridge.ingest.acked_seqs())
        self.app.state.alert_board.refresh()
        self.taken: dict[int, float] = {}  # marker -> when the bridge took it (s, epoch)
        self.tables: dict[int, str] = {}  # marker -> its table
        self.seats: dict[int, int] = {}  # marker -> its seat
        self.inbound: asyncio.Queue[Parsed] | None = None
        self.storing: asyncio.Task[None] | None = None

    def __enter__(self) -> Self:
        super().__enter__()

        async def start() -> None:  # the MQTT link's own store loop, without a broker
            self.inbound = asyncio.Queue()
            self.storing = asyncio.create_task(MqttLink(self.bridge)._ingest(self.inbound))

        asyncio.run_coroutine_threadsafe(start(), self.loop).result(WAIT_MS / 1000)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.storing is not None:
            self.loop.call_soon_threadsafe(self.storing.cancel)
        super().__exit__(*exc)

    def adjust(self, table: str, seat: int, marker: int) -> None:
        """One seat's stack corrected to ``marker``, then the table's state: both taken on
        the bridge's loop as its MQTT link takes a message (admitted: on the live feed at
        once; queued for the store, which takes whatever has arrived as one batch)."""
        wire = self.floor.wires[table]
        wire.ts = time.time()
        before, self.stacks[table, seat] = self.stacks[table, seat], marker
        batch = [wire.event(StackAdjusted(reason="correction", seats=(
            SeatAdjustment(seat=seat, before=before, after=marker),))), wire.reported()]
        self.tables[marker] = table
        self.seats[marker] = seat
        inbound = self.inbound
        assert inbound is not None

        def take() -> None:
            self.taken[marker] = time.time()
            for topic, payload in batch:
                inbound.put_nowait(self.bridge.admit(topic, payload))

        self.loop.call_soon_threadsafe(take)


@dataclass
class Paint:
    """One page load's marks (ms from navigation start)."""

    fcp: float
    dom: float
    frame: float
    long_tasks: int
    longest: float


@dataclass
class Updates:
    """The update run's outcome."""

    sent: int
    rate: float
    dom_ms: list[float] = field(default_factory=list)
    frame_ms: list[float] = field(default_factory=list)
    dropped: int = 0
    superseded: int = 0
    long_tasks: list[float] = field(default_factory=list)
    stages: dict[str, list[float]] = field(default_factory=dict)
    stored_ms: list[float] = field(default_factory=list)
    reads_ms: list[float] = field(default_factory=list)
    read_tables: int = 0
    after_read: int = 0
    offset_ms: float = 0.0
    rtt_ms: float = 0.0
    errors: int = 0


def _pct(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def _spread(values: Sequence[float]) -> str:
    return (f"p50 {_pct(values, 0.5):.0f} ms, p99 {_pct(values, 0.99):.0f} ms, "
            f"max {max(values, default=float('nan')):.0f} ms ({len(values)}")


def _load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (5 min {five:.2f}) on {os.cpu_count()} cores"


@contextmanager
def _chromium() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def _page(browser: Any, floor: LiveFloor, tables: int, compact: bool) -> Any:
    context = browser.new_context(viewport=SCREEN)
    view = {"compact": compact, "sort": "attention", "filter": "all"}
    context.add_init_script(INIT % json.dumps([TOKENS[Role.FLOOR], view, tables]))
    return context.new_page()


def first_paint(browser: Any, floor: LiveFloor, tables: int, loads: int,
                compact: bool) -> list[Paint]:
    """``loads`` fresh page loads, each until its cards are on screen."""
    out = []
    for _ in range(loads):
        page = _page(browser, floor, tables, compact)
        page.goto(f"{floor.url}/dashboard/", wait_until="commit")
        page.wait_for_function("() => window.__bench && window.__bench.cardsFrame !== null",
                               timeout=WAIT_MS)
        got = page.evaluate(READ_PAINT)
        assert got["cards"] == tables, got
        out.append(Paint(fcp=got["fcp"] or float("nan"), dom=got["dom"], frame=got["frame"],
                         long_tasks=got["longTasks"], longest=got["longest"]))
        # not while the feed says hello: the bridge would log the socket it lost then
        page.locator("#link[data-kind=live]").wait_for(timeout=WAIT_MS)
        page.context.close()
    return out


def _picks(tables: int, count: int, rng: random.Random) -> list[str]:
    """``count`` tables at random, none of the last tables//2 picked again."""
    recent: list[int] = []
    gap = max(1, tables // 2)
    out = []
    for _ in range(count):
        n = rng.randrange(1, tables + 1)
        while n in recent:
            n = rng.randrange(1, tables + 1)
        recent = [*recent, n][-gap:]
        out.append(f"f{n}")
    return out


def updates_on_screen(browser: Any, floor: LiveFloor, tables: int, rate: float,
                      seconds: float, seed: int) -> Updates:
    """Updates at ``rate`` a second for ``seconds`` to an open page; when each showed."""
    page = _page(browser, floor, tables, compact=False)
    page.goto(f"{floor.url}/dashboard/")
    page.wait_for_function("() => window.__bench && window.__bench.cardsFrame !== null",
                           timeout=WAIT_MS)
    page.locator("#link[data-kind=live]").wait_for(timeout=WAIT_MS)
    page.wait_for_timeout(500)  # the feed's hello reads the tables again: let it settle
    # the two clocks: the page's wall clock against Python's, a round trip apart
    offsets = []
    for _ in range(5):
        before = time.time() * 1000
        at = page.evaluate("() => performance.timeOrigin + performance.now()")
        after = time.time() * 1000
        offsets.append((after - before, at - (before + after) / 2))
    rtt, offset = min(offsets)
    page.evaluate(WATCH_STACKS, MARKER_FROM)
    rng = random.Random(seed)
    count = max(1, round(rate * seconds))
    picks = _picks(tables, count, rng)
    start = time.perf_counter()
    for i, table in enumerate(picks):
        delay = start + i / rate - time.perf_counter()
        if delay > 0:
            time.sleep(delay)
        floor.adjust(table, rng.randrange(1, SEATS + 1), MARKER_FROM + i)
    took = time.perf_counter() - start
    deadline = time.monotonic() + 60
    while len(floor.taken) < count and time.monotonic() < deadline:
        time.sleep(0.05)
    want = set(floor.taken)
    seen: list[list[float]] = []
    shown, still = 0, time.monotonic()
    while time.monotonic() - still < DRAIN_S:  # until all are shown, or none for 5 s
        page.wait_for_timeout(250)
        seen = page.evaluate("() => window.__stacks")
        now = {int(m) for m, _, frame in seen if frame is not None}
        if want <= now:
            break
        if len(now) > shown:
            shown, still = len(now), time.monotonic()
    long_during: list[float] = page.evaluate("() => window.__longDuring")
    trail = page.evaluate("""() => ({ ...window.__trail, reads: performance
        .getEntriesByType("resource").filter((e) => e.name.includes("/api/v1/tables/"))
        .map((e) => [e.name, performance.timeOrigin + e.startTime,
                     performance.timeOrigin + e.responseEnd]) })""")
    page.context.close()
    first: dict[int, tuple[float, float]] = {}
    for marker, dom, frame in seen:
        if frame is not None and int(marker) not in first:
            first[int(marker)] = (dom, frame)
    result = Updates(sent=count, rate=count / took, long_tasks=long_during,
                     offset_ms=offset, rtt_ms=rtt)
    for marker, taken in floor.taken.items():
        if marker not in first:
            place = floor.tables[marker], floor.seats[marker]
            if any(later > marker and (floor.tables[later], floor.seats[later]) == place
                   for later in first):
                result.superseded += 1  # the page showed a newer stack there instead
            else:
                result.dropped += 1
            continue
        dom, frame = first[marker]
        result.dom_ms.append(dom - taken * 1000)
        result.frame_ms.append(frame - taken * 1000)
    result.errors = count - len(floor.taken)
    _stages(floor, trail, first, result)
    return result


def _stages(floor: LiveFloor, trail: dict[str, list[list[Any]]],
            first: dict[int, tuple[float, float]], result: Updates) -> None:
    """Per update shown: when (ms after the bridge took it) the page had the feed's event,
    and how long from that event to the card patched in the DOM; off the path, when the
    "stored" item after the event came, the tables' reads over REST while the updates ran
    (the page's reconciliation) and the updates first shown only after a read of their
    table asked after their event was answered (the page waited for the store)."""
    events = {int(m): at for m, at in trail["event"]}
    result.stages = {"the page has the feed event": [],
                     "from the feed event to the card patched": []}
    reads = [(url.rsplit("/", 1)[-1], asked, end) for url, asked, end in trail["reads"]]
    result.reads_ms = [end - asked for _, asked, end in reads]
    result.read_tables = len({table for table, _, _ in reads})
    for marker, (shown, _frame) in first.items():
        taken, table = floor.taken[marker] * 1000, floor.tables[marker]
        if marker not in events:
            continue
        event = events[marker]
        result.stages["the page has the feed event"].append(event - taken)
        result.stages["from the feed event to the card patched"].append(shown - event)
        stored = min((at for t, at in trail["stored"] if t == table and at >= event),
                     default=None)
        if stored is not None:
            result.stored_ms.append(stored - taken)
        if any(t == table and asked >= event and end <= shown + 1 for t, asked, end in reads):
            result.after_read += 1


def _print_paint(name: str, runs: list[Paint], tables: int) -> None:
    frames = [r.frame for r in runs]
    worst = _pct(frames, 0.99)
    print(f"first paint, {name} ({len(runs)} fresh loads): FCP "
          f"p50 {_pct([r.fcp for r in runs], 0.5):.0f} ms, max "
          f"{max(r.fcp for r in runs):.0f} ms; {tables} cards in the DOM: "
          f"{_spread([r.dom for r in runs])})")
    print(f"first paint, {name} ({tables} cards on screen): {_spread(frames)}); "
          f"long tasks per load p50 {_pct([r.long_tasks for r in runs], 0.5):.0f}, "
          f"longest {max(r.longest for r in runs):.0f} ms; "
          f"budget < {BUDGET_PAINT_MS / 1000:.0f} s: "
          f"{'MET' if worst < BUDGET_PAINT_MS else 'MISSED'}")


def _print_updates(run: Updates, tables: int, seconds: float) -> None:
    p99 = _pct(run.frame_ms, 0.99)
    met = p99 < BUDGET_UPDATE_P99_MS and run.dropped == 0 and run.errors == 0
    print(f"updates: {run.sent} stack corrections to {tables} tables over {seconds:g} s "
          f"({run.rate:.0f}/s offered); page clock - Python clock {run.offset_ms:+.1f} ms "
          f"(round trip {run.rtt_ms:.1f} ms)")
    print(f"update in the DOM: {_spread(run.dom_ms)})")
    for stage, values in run.stages.items():
        print(f"   of which, {stage}: {_spread(values)})")
    print(f"update on screen: {_spread(run.frame_ms)}); dropped {run.dropped}, "
          f"superseded {run.superseded}, "
          f"not taken by the bridge {run.errors}; long tasks {len(run.long_tasks)}, longest "
          f"{max(run.long_tasks, default=0):.0f} ms; budget p99 < "
          f"{BUDGET_UPDATE_P99_MS:.0f} ms: {'MET' if met else 'MISSED'}")
    print(f"off the path, the page has the \"stored\" item: {_spread(run.stored_ms)})")
    print(f"off the path, tables read over REST (reconciliation): {len(run.reads_ms)} reads "
          f"of {run.read_tables} tables, answered in {_spread(run.reads_ms)}); updates "
          f"first shown after such a read: {run.after_read}")


def run(tables: int, loads: int, rate: float, seconds: float, seed: int) -> int:
    """The benchmark: first paint in both views, then updates on an open page."""
    print(f"floor page: {tables} tables online, {SEATS} players each; Chromium "
          f"{CHROMIUM}; {_load()}")
    with tempfile.TemporaryDirectory(prefix="bench-floor-") as tmp, \
            LiveFloor(Path(tmp), tables) as floor, _chromium() as browser:
        print(f"Chromium {browser.version}")
        full = first_paint(browser, floor, tables, loads, compact=False)
        _print_paint("full cards", full, tables)
        compact = first_paint(browser, floor, tables, loads, compact=True)
        _print_paint("compact view", compact, tables)
        print(f"after first paint: {_load()}")
        run_ = updates_on_screen(browser, floor, tables, rate, seconds, seed)
        _print_updates(run_, tables, seconds)
        print(f"after the updates: {_load()}")
    return 0


def main(argv: Sequence[str] | None = None, prog: str | None = None) -> int:
    """Run the benchmark; print the figures."""
    parser = argparse.ArgumentParser(
        prog=prog, description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--tables", type=int, default=200, help="tables online (200)")
    parser.add_argument("--loads", type=int, default=10,
                        help="fresh page loads per view for the first paint (10)")
    parser.add_argument("--rate", type=float, default=100.0,
                        help="updates per second offered to the open page (100)")
    parser.add_argument("--seconds", type=float, default=20.0,
                        help="how long the updates run (20)")
    parser.add_argument("--seed", type=int, default=20)
    parser.add_argument("--quick", action="store_true",
                        help="2 loads per view, 2 s of updates at 50/s: that it runs, not "
                        "figures to quote")
    args = parser.parse_args(argv)
    loads, rate, seconds = (2, 50.0, 2.0) if args.quick else (args.loads, args.rate,
                                                              args.seconds)
    if args.tables < 2 or loads < 1 or rate <= 0 or seconds <= 0:
        parser.error("--tables must be at least 2, --loads 1, --rate and --seconds above 0")
    if not CHROMIUM.exists() or shutil.which(str(CHROMIUM)) is None:
        print(f"no {CHROMIUM} (Debian: apt-get install -y chromium)")
        return 2
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        print("the playwright package is not installed (pip install pitboss[test])")
        return 2
    if not any(importlib.util.find_spec(m) for m in ("websockets", "wsproto")):
        print("uvicorn serves no WebSocket without the websockets package")
        return 2
    return run(args.tables, loads, rate, seconds, args.seed)


if __name__ == "__main__":
    raise SystemExit(main())
