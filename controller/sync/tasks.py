"""Stopping a named task for sure.

On Python 3.11, ``asyncio.wait_for`` (which aiomqtt uses for every publish) can swallow a
cancellation that arrives just as the awaited call completes (CPython gh-86296); the task
then carries on as if nothing had happened. :func:`stop` cancels again until it ends.
"""

from __future__ import annotations

import asyncio
import contextlib
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
