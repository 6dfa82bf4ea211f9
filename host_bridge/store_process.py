"""The store in a process of its own (opt-in): the bridge's event loop and its store then
no longer share one interpreter lock.

:class:`StoreProcess` stands where the bridge's :class:`~host_bridge.ingest.Ingest` stands:
:meth:`parse` runs in the bridge's process (the live feed needs it at once), :meth:`apply`
sends the batch's raw messages to a child process that runs an :class:`Ingest` of its own
on the same store and sends the :class:`~host_bridge.ingest.IngestResult` back (the
bridge's store thread waits on the pipe, which releases the lock). Acks still follow the
child's commit. The child's counters and cursors are its own; a store reachable from two
processes is needed (a SQLite file or PostgreSQL, not an in-memory SQLite).
"""

from __future__ import annotations

import contextlib
import dataclasses
import multiprocessing
import time
from collections.abc import Sequence
from multiprocessing.connection import Connection
from typing import Any

from host_bridge.ingest import Ingest, IngestResult, Parsed

_STOP = None
_CPU = "cpu"  # asks the child for its CPU time


def _serve(conn: Connection, database_url: str, site: str, host_boot: str,
           resend_after: float) -> None:
    from host_bridge.db import make_engine, session_factory, writer_sessions
    from host_bridge.mqtt import settle_gc

    engine = make_engine(database_url)
    ingest = Ingest(writer_sessions(session_factory(engine)), site, host_boot=host_boot,
                    resend_after=resend_after)
    settle_gc()
    try:
        while (batch := conn.recv()) is not _STOP:
            if batch == _CPU:
                conn.send(time.process_time())
                continue
            try:
                result = ingest.take_many(batch)
                result.outbound = [dataclasses.replace(o, body=o.payload)  # written here:
                                   for o in result.outbound]  # a pipe carries bytes
                conn.send(result)
            except Exception as exc:  # the parent raises it where apply was called
                conn.send(exc)
    except EOFError:  # the bridge went away
        pass
    finally:
        engine.dispose()


class StoreProcess:
    """An :class:`Ingest` whose :meth:`apply` runs in a child process."""

    def __init__(self, local: Ingest, database_url: str, *, host_boot: str,
                 resend_after: float = 2.0) -> None:
        self._local = local
        self.site = local.site
        context = multiprocessing.get_context("spawn")
        self._conn, child = context.Pipe()
        self._process = context.Process(
            target=_serve, args=(child, database_url, local.site, host_boot, resend_after),
            name="bridge-store", daemon=True)
        self._process.start()
        child.close()

    @property
    def pid(self) -> int:
        """The child's process id."""
        return int(self._process.pid or 0)

    def parse(self, topic: str, payload: bytes) -> Parsed:
        """Check one message, here (see :meth:`Ingest.parse`)."""
        return self._local.parse(topic, payload)

    def acked_seqs(self) -> dict[str, int]:
        """See :meth:`Ingest.acked_seqs`."""
        return self._local.acked_seqs()

    def apply(self, batch: Sequence[Parsed]) -> IngestResult:
        """Store a batch in the child process (it parses the raw messages again)."""
        self._conn.send([(p.topic, p.payload) for p in batch])
        answer: Any = self._conn.recv()
        if isinstance(answer, Exception):
            raise answer
        assert isinstance(answer, IngestResult)
        return answer

    def cpu_s(self) -> float:
        """The child's CPU time so far (seconds; for benchmarks)."""
        self._conn.send(_CPU)
        return float(self._conn.recv())

    def close(self) -> None:
        """Stop the child (it finishes the batch it is on)."""
        with contextlib.suppress(OSError, ValueError):
            self._conn.send(_STOP)
        self._process.join(10)
        if self._process.is_alive():
            self._process.kill()
        self._conn.close()
