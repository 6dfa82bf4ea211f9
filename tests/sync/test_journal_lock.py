"""One process per journal (DESIGN.md, Principles; issue #17 item 1).

Two real ``pitboss table run`` processes on one journal against a real Mosquitto: the
second exits 2 with one line naming the first's pid, records no boot, voids no hand, and
the first plays on. A SIGKILLed controller leaves no stale lock: the next one starts at
once. In one process: a second writer is refused the same way, a reader opens the journal
read-only without the lock and cannot write through it."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from controller.events import HandStarted, PlayerSeated
from controller.sync.errors import JournalError
from controller.sync.journal import Journal
from controller.sync.journal_lock import JournalInUse, lock_path
from tests.sync.conftest import ROOT, Mosquitto

START_S = 30.0  # a controller's start on a busy 2-core machine, generously


def pitboss_table_run(db: Path, port: int, *extra: str) -> subprocess.Popen[str]:
    """``pitboss table run --profile virtual --table t1 ...`` (through the ``pitboss``
    command line, as the systemd unit or a technician starts it)."""
    return subprocess.Popen(
        [sys.executable, "-m", "controller.cli", "table", "run", "--profile", "virtual",
         "--table", "t1", "--broker", f"127.0.0.1:{port}", "--db", str(db), "--site", "test",
         "--autoplay", "0", *extra], cwd=ROOT, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def ready_line(proc: subprocess.Popen[str]) -> str:
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line.startswith("READY"), line + (proc.stderr.read() if proc.stderr else "")
    return line


def kinds(db: Path) -> list[str]:
    journal = Journal(db, table="t1", read_only=True)
    try:
        return [json.loads(p.public)["event"]["kind"] for p in journal.parcels(0, limit=10**9)]
    finally:
        journal.close()


def test_second_controller_on_one_journal_exits_2_naming_the_first(
        broker: Mosquitto, tmp_path: Path) -> None:
    db = tmp_path / "t1.db"
    first = pitboss_table_run(db, broker.port)
    try:
        ready_line(first)
        time.sleep(0.3)  # the bots are mid-play: the journal has a hand in progress
        second = pitboss_table_run(db, broker.port)
        out, err = second.communicate(timeout=START_S)
        assert second.returncode == 2, err
        lines = err.strip().splitlines()
        assert len(lines) == 1, err  # one line, no traceback
        assert lines[0].startswith(f"pitboss table: the journal {db} is in use by "
                                   f"pid {first.pid} (pitboss table run, started "), lines
        assert lines[0].endswith(": stop that controller first"), lines
        assert "READY" not in out
        assert first.poll() is None  # the first plays on, not knocked over
        reader = Journal(db, table="t1", read_only=True)  # a reader needs no lock
        try:
            assert len(reader.boots()) == 1  # the second never even recorded its boot
            seen = reader.last_seq
        finally:
            reader.close()
        time.sleep(0.3)
        reader = Journal(db, table="t1", read_only=True)
        try:
            assert reader.last_seq > seen  # and still journaling
        finally:
            reader.close()
    finally:
        first.send_signal(signal.SIGKILL)
        first.communicate()
    assert first.returncode == -signal.SIGKILL
    assert "hand_voided" not in kinds(db)  # the second voided nothing of the first's

    # the kernel dropped the SIGKILLed controller's lock: the next one starts at once
    third = pitboss_table_run(db, broker.port)
    try:
        ready_line(third)
    finally:
        third.send_signal(signal.SIGKILL)
        third.communicate()
    journal = Journal(db, table="t1", read_only=True)
    try:
        assert len(journal.boots()) == 2  # the first's and the third's: one at a time
    finally:
        journal.close()


def test_a_second_writer_in_one_process_is_refused_naming_this_process(
        tmp_path: Path) -> None:
    db = tmp_path / "t1.db"
    journal = Journal(db, table="t1")
    journal.append([PlayerSeated(seat=1, player="ann", stack=100),
                    PlayerSeated(seat=2, player="bob", stack=100),
                    HandStarted(hand_no=1, seats=(1, 2), stacks=(100, 100))])
    with pytest.raises(JournalInUse, match=rf"^the journal {re.escape(str(db))} is in use by pid "
                                           rf"{os.getpid()} \(.*boot {journal.boot}\): "
                                           "stop that controller first$"):
        Journal(db, table="t1")
    holder = json.loads(lock_path(db).read_text())
    assert holder["pid"] == os.getpid() and holder["boot"] == journal.boot
    assert journal.state.hand_in_progress  # the refused one voided nothing
    assert len(journal.boots()) == 1
    journal.close()
    again = Journal(db, table="t1")  # closed: the lock is free
    assert again.state.hand_in_progress
    again.close()


def test_a_reader_opens_without_the_lock_and_cannot_write(tmp_path: Path) -> None:
    db = tmp_path / "t1.db"
    writer = Journal(db, table="t1")
    writer.append([PlayerSeated(seat=1, player="ann", stack=100)])
    reader = Journal(db, table="t1", read_only=True)
    try:
        assert reader.last_seq == 1 and reader.state.seats[0].player == "ann"
        assert [p.seq for p in reader.parcels(0)] == [1]
        with pytest.raises(JournalError, match="opened read-only"):
            reader.append([PlayerSeated(seat=2, player="bob", stack=100)])
        writer.append([PlayerSeated(seat=2, player="bob", stack=100)])  # still the writer
        assert len(writer.boots()) == 1  # the reader recorded no boot
    finally:
        reader.close()
        writer.close()
    with pytest.raises(JournalError, match="journal of table t1, not t2"):
        Journal(db, table="t2", read_only=True)
    with pytest.raises(JournalError, match=r"cannot open the journal .* to read it"):
        Journal(tmp_path / "absent.db", table="t1", read_only=True)


def test_a_dropped_journal_lets_the_lock_go(tmp_path: Path) -> None:
    db = tmp_path / "t1.db"
    assert Journal(db, table="t1").last_seq == 0  # never closed, dropped
    Journal(db, table="t1").close()
