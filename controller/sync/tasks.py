"""Stopping a named task for sure, and telling of an outage without flooding the log.

On Python 3.11, ``asyncio.wait_for`` (which aiomqtt uses for every publish) can swallow a
cancellation that arrives just as the awaited call completes (CPython gh-86296); the task
then carries on as if nothing had happened. :func:`stop` cancels again until it ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import Any


async def stop(task: asyncio.Task[Any] | None, *, grace: float = 0.5) -> None:
    """Cancel ``task`` (again, every ``grace`` seconds, if a cancel is lost) and wait for it."""
    if task is None:
        return
    while not task.done():
        task.cancel()
        await asyncio.wait({task}, timeout=grace)
    with contextlib.suppress(asyncio.CancelledError, Exception):
        task.result()


class OutageReport:
    """A connection that keeps retrying says so at WARNING when it goes down, then once a
    minute while it stays down; the retries between are DEBUG."""

    def __init__(self, log: logging.Logger, *, every_s: float = 60.0) -> None:
        self.log = log
        self.every_s = every_s
        self.since: float | None = None  # monotonic time it went down
        self._said = 0.0  # when that was last said at WARNING

    def down(self, error: object, retry_in: float) -> None:
        """Another failed attempt; the next is in ``retry_in`` seconds."""
        now = time.monotonic()
        if self.since is None:
            self.since = self._said = now
            self.log.warning("%s; reconnecting in %.2f s", error, retry_in)
        elif now - self._said >= self.every_s:
            self._said = now
            self.log.warning("%s; still down after %.0f s, retrying every %.2f s", error,
                             now - self.since, retry_in)
        else:
            self.log.debug("%s; reconnecting in %.2f s", error, retry_in)

    def up(self) -> None:
        """Connected again."""
        self.since = None
