"""The terminal benchmark's parts that are not the table (``pitboss bench terminal``,
tests/benchmarks/bench_terminal.py): a trace of what an observer saw, with the time each
item came; and the peers measured beside the table's figures: one event journaled alone,
and a bare uvicorn ASGI app answering a POST and pushing an SSE frame."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, Generic, TypeVar

import httpx2
import uvicorn

from controller.events import LevelSet
from controller.sync.journal import Journal
from controller.sync.outbox import Outbox

WAIT_S = 10.0  # a frame not seen in this long: the terminal is stuck (not a budget)
T = TypeVar("T")


class Trace(Generic[T]):
    """What one observer saw (a display frame, an SSE frame), each with the time it was
    seen; a waiter looks through what arrived after a mark."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.seen: list[tuple[float, T]] = []
        self._arrived = asyncio.Event()

    def add(self, item: T, at: float | None = None) -> None:
        self.seen.append((time.perf_counter() if at is None else at, item))
        self._arrived.set()

    def trim(self) -> None:
        """Forget all but the last item: a run keeps no history, so the heap (and the
        garbage collector's passes over it) stays the table's own, not the benchmark's."""
        del self.seen[:-1]

    @property
    def last(self) -> T | None:
        return self.seen[-1][1] if self.seen else None

    async def first(self, mark: int, match: Callable[[T], bool], what: str
                    ) -> tuple[float, T]:
        """The first item after index ``mark`` that ``match``es, with its time."""
        async with stuck(f"{self.name} never showed {what}"):
            while True:
                for at, item in self.seen[mark:]:
                    if match(item):
                        return at, item
                mark = len(self.seen)
                self._arrived.clear()
                await self._arrived.wait()

    async def showing(self, match: Callable[[T], bool], what: str) -> None:
        """Until the last item seen ``match``es (nothing is left on its way)."""
        async with stuck(f"{self.name} never settled on {what}"):
            while not self.seen or not match(self.seen[-1][1]):
                self._arrived.clear()
                await self._arrived.wait()


@contextlib.asynccontextmanager
async def stuck(message: str) -> AsyncIterator[None]:
    try:
        async with asyncio.timeout(WAIT_S):
            yield
    except TimeoutError:
        raise RuntimeError(f"bench_terminal: {message} within {WAIT_S:g} s: the terminal "
                           "is stuck; run tests/terminal to find out why") from None


async def cancel(tasks: Sequence[asyncio.Task[None]]) -> None:
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


async def journal_alone(tmp: Path, n: int) -> list[float]:
    """One event journaled through an outbox (append + fsync on the journal's thread), as
    ``TableJournal`` does for each of the table's events."""
    journal = Journal(tmp / "peer.db", table="P1")
    out = []
    try:
        async with Outbox(journal) as outbox:
            for level in range(2, n + 2):
                t0 = time.perf_counter()
                outbox.record_now([LevelSet(level=level)])
                out.append((time.perf_counter() - t0) * 1000)
    finally:
        journal.close()
    return out


class BareApp:
    """The least an ASGI app can do for the same requests: answer a POST with a body of
    the tablet's answer's size, and push an SSE frame of the tablet's frame's size when
    told."""

    def __init__(self, answer_bytes: int, frame_bytes: int) -> None:
        self.answer = b'{"x":"' + b"a" * max(0, answer_bytes - 8) + b'"}'
        self.frame = b"data: " + b"f" * frame_bytes + b"\n\n"
        self.push = asyncio.Event()
        self.closing = False

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        if scope["path"] == "/stream":
            await send({"type": "http.response.start", "status": 200,
                        "headers": [(b"content-type", b"text/event-stream")]})
            while not self.closing:
                await send({"type": "http.response.body", "body": self.frame,
                            "more_body": True})
                self.push.clear()
                await self.push.wait()
            await send({"type": "http.response.body", "body": b"", "more_body": False})
            return
        while (await receive()).get("more_body"):
            pass
        await send({"type": "http.response.start", "status": 200, "headers": [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(self.answer)).encode())]})
        await send({"type": "http.response.body", "body": self.answer})


class _Server(uvicorn.Server):
    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:  # as serve_tablet: the loop's owner has them
        yield


async def bare_uvicorn(answer_bytes: int, frame_bytes: int, tap_bytes: int, n: int
                       ) -> tuple[list[float], list[float]]:
    """The peer of the tablet's HTTP and SSE paths: uvicorn configured as ``serve_tablet``
    configures it, on this loop, with a socket set up the same way (TCP_NODELAY), and the
    same httpx2 client; returns (POST -> answer, push -> SSE frame received) in ms."""
    app = BareApp(answer_bytes, frame_bytes)
    sock = socket.create_server(("127.0.0.1", 0))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    server = _Server(uvicorn.Config(app, lifespan="off", ws="none", access_log=False,
                                    log_level="warning", timeout_graceful_shutdown=2))
    serving = asyncio.create_task(server.serve(sockets=[sock]), name="bare-uvicorn")
    posts: list[float] = []
    pushes: list[float] = []
    try:
        async with stuck("the bare uvicorn app's start"):
            while not server.started:
                await asyncio.sleep(0.005)
        url = f"http://127.0.0.1:{sock.getsockname()[1]}"
        body = b'{"verb":"' + b"c" * max(0, tap_bytes - 12) + b'"}'
        async with httpx2.AsyncClient(base_url=url) as client, \
                httpx2.AsyncClient(base_url=url) as listener:
            trace: Trace[int] = Trace("the bare SSE stream")

            async def listen() -> None:
                async with listener.stream("GET", "/stream") as response:
                    async for line in response.aiter_lines():
                        if line.startswith("data: "):
                            trace.add(len(line))

            stream = asyncio.create_task(listen(), name="bare-stream")
            try:
                await trace.showing(lambda _: True, "its first frame")
                for _ in range(n):
                    t0 = time.perf_counter()
                    response = await client.post("/answer", content=body,
                                                 headers={"content-type": "application/json"})
                    response.json()
                    posts.append((time.perf_counter() - t0) * 1000)
                    mark = len(trace.seen)
                    t0 = time.perf_counter()
                    app.push.set()
                    pushed, _ = await trace.first(mark, lambda _: True, "a pushed frame")
                    pushes.append((pushed - t0) * 1000)
            finally:
                await cancel([stream])
    finally:
        app.closing = True  # the stream ends, so the server can stop
        app.push.set()
        server.should_exit = True
        async with stuck("the bare uvicorn app's stop"):
            await serving
        sock.close()
    return posts, pushes
