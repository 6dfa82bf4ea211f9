"""One process per journal (DESIGN.md, Principles): the writer of a journal holds an
exclusive ``flock`` on a lock file beside it (``t1.db`` -> ``t1.db.lock``) for as long as
the journal is open.

The lock is the kernel's: it goes with the process, so a controller that is SIGKILLed or
loses its power leaves no stale lock, and the next start takes it at once. The file holds
who took it (pid, host, boot, command, start time) only so that a second controller can say
which process to stop; it is never deleted (deleting it would let two processes lock two
different files of the same name).

A reader (a tool, a test looking at what a controller wrote) opens the journal read-only
and needs no lock: ``Journal(path, table=..., read_only=True)``.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import sys
import time
from pathlib import Path

from controller.sync.errors import JournalError

LOCK_SUFFIX = ".lock"


class JournalInUse(JournalError):
    """Another process holds the journal's lock: one controller per journal."""


def lock_path(journal: str | Path) -> Path:
    """The lock file of a journal: beside it, the journal's name plus ``.lock``."""
    journal = Path(journal)
    return journal.with_name(journal.name + LOCK_SUFFIX)


def default_owner() -> str:
    """What this process is, for the message another one shows: the program and its first
    words without options, e.g. ``pitboss table run``."""
    words = [Path(sys.argv[0]).name if sys.argv and sys.argv[0] else "python"]
    for word in sys.argv[1:3]:
        if word.startswith("-"):
            break
        words.append(word)
    return " ".join(words)


class JournalLock:
    """The exclusive lock on one journal, held from :meth:`acquire` to :meth:`release`."""

    def __init__(self, journal: str | Path, *, boot: str, owner: str | None = None) -> None:
        self.journal = str(journal)
        self.path = lock_path(journal)
        self.boot = boot
        self.owner = owner or default_owner()
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        """True while this object holds the lock."""
        return self._fd is not None

    def acquire(self) -> None:
        """Take the lock without waiting and write who holds it; :class:`JournalInUse`
        naming the holder if another process (or another open journal) has it."""
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)  # not inherited
        except OSError as exc:
            raise JournalError(f"cannot open the journal's lock file {self.path}: "
                               f"{exc.strerror}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise JournalInUse(self._in_use_line()) from None
        except OSError as exc:
            os.close(fd)
            raise JournalError(f"cannot lock the journal {self.journal} ({self.path}): "
                               f"{exc.strerror}") from None
        holder = {"pid": os.getpid(), "host": socket.gethostname(), "boot": self.boot,
                  "command": self.owner, "started": time.time()}
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, json.dumps(holder).encode() + b"\n", 0)
        except OSError:
            pass  # the lock holds without its note; a second controller just says less
        self._fd = fd

    def release(self) -> None:
        """Let the lock go (closing the file descriptor releases it)."""
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)

    def __del__(self) -> None:  # a journal dropped without close() is no writer either
        self.release()

    def _in_use_line(self) -> str:
        """One line naming the process that holds the lock and what to do."""
        try:
            holder = json.loads(self.path.read_text(encoding="utf-8") or "null")
        except (OSError, ValueError):
            holder = None
        if not isinstance(holder, dict) or not isinstance(holder.get("pid"), int):
            who = "another process (it has not written its pid yet)"
        else:
            details = [str(holder.get("command") or "?")]
            started = holder.get("started")
            if isinstance(started, int | float):
                stamp = time.localtime(started)
                same_day = time.strftime("%Y-%m-%d", stamp) == time.strftime("%Y-%m-%d")
                details.append("started " + time.strftime(
                    "%H:%M:%S" if same_day else "%Y-%m-%d %H:%M:%S", stamp))
            if holder.get("boot"):
                details.append(f"boot {holder['boot']}")
            host = holder.get("host")
            where = f" on {host}" if host and host != socket.gethostname() else ""
            who = f"pid {holder['pid']}{where} ({', '.join(details)})"
        return f"the journal {self.journal} is in use by {who}: stop that controller first"
