"""A table run offline under a house file, exporting its own hands as PHH: through the real
``pitboss`` command line (subprocesses), as a technician types it, and the exporter
(:class:`controller.sync.hand_history.HandFiles`) on its own for what the command line
cannot easily show (a void hand, a write error)."""

from __future__ import annotations

import json
import logging
import socket
import stat
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from controller.events import HandEnded, JournalEvent, PlayerSeated, PublicEvent
from controller.sync.hand_history import HandFiles
from controller.sync.journal import Journal
from controller.sync.messages import EventMessage, parse_message
from controller.table.virtual import VirtualTable

ROOT = Path(__file__).resolve().parents[2]
HOUSES = ROOT / "deploy" / "houses"


def pitboss(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "controller.cli", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout)


def run_table(db: Path, *args: str, table: str = "T9") -> subprocess.CompletedProcess[str]:
    return pitboss("table", "run", "--profile", "virtual", "--table", table, "--db", str(db),
                   *args)


def journaled(db: Path, table: str = "T9") -> list[PublicEvent]:
    """Every public event the journal holds, in order."""
    journal = Journal(db, table=table, read_only=True)
    try:
        return [parse_message(EventMessage, p.public).event
                for p in journal.parcels(0, limit=100_000)]
    finally:
        journal.close()


def replayed(directory: Path) -> list[dict[str, object]]:
    """``pitboss replay DIR --json``: one object per hand."""
    proc = pitboss("replay", "--json", str(directory))
    assert "Traceback" not in proc.stderr, proc.stderr
    return [json.loads(line) for line in proc.stdout.splitlines()]


def test_cash_house_offline_export_replays_every_hand_with_its_rake(tmp_path: Path) -> None:
    db, out = tmp_path / "t9.db", tmp_path / "hands"
    proc = run_table(db, "--offline", "--house", str(HOUSES / "casino-plo.toml"),
                     "--autoplay", "20", "--export-phh", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "OFFLINE table T9" in proc.stdout and "journal keeps every event" in proc.stdout
    ended = {e.hand_no: e for e in journaled(db) if isinstance(e, HandEnded)}
    files = sorted(out.glob("*.phh"))
    assert len(ended) == 20 and {f.name for f in files} == {f"T9-{n}.phh" for n in ended}
    assert stat.S_IMODE(out.stat().st_mode) == 0o700
    assert all(stat.S_IMODE(f.stat().st_mode) == 0o600 for f in files)
    raked = 0
    for number, event in ended.items():  # RAKE-8: the file's rake is the table's
        data = tomllib.loads((out / f"T9-{number}.phh").read_text())
        assert data["variant"] == "PO" and data["_rake"]["kind"] == "brackets"
        assert data["_rake_taken"] == event.rake
        assert "??" not in "".join(data["actions"])  # the table's own file: every card
        raked += event.rake > 0
    assert raked  # some hands saw a flop and paid
    outcomes = replayed(out)
    assert len(outcomes) == 20 and all(o["ok"] for o in outcomes), outcomes


def test_offline_makes_no_connection_and_keeps_the_backlog(tmp_path: Path) -> None:
    with socket.socket() as broker:  # a broker that would see any connection attempt
        broker.bind(("127.0.0.1", 0))
        broker.listen(8)
        broker.setblocking(False)
        port = broker.getsockname()[1]
        proc = run_table(tmp_path / "t9.db", "--offline", "--autoplay", "2",
                         "--broker", f"127.0.0.1:{port}")
        assert proc.returncode == 0, proc.stderr
        with pytest.raises(BlockingIOError):
            broker.accept()
    journal = Journal(tmp_path / "t9.db", table="T9", read_only=True)
    try:  # nothing was sent: a later run without --offline sends all of it
        assert journal.outbox_size() == journal.last_seq > 0 and journal.acked == 0
    finally:
        journal.close()


def test_restart_without_house_plays_the_journaled_house(tmp_path: Path) -> None:
    db, out = tmp_path / "t9.db", tmp_path / "hands"
    first = run_table(db, "--offline", "--house", str(HOUSES / "casino-plo.toml"),
                      "--autoplay", "2", "--export-phh", str(out))
    assert first.returncode == 0, first.stderr
    again = run_table(db, "--offline", "--autoplay", "2", "--export-phh", str(out))
    assert again.returncode == 0, again.stderr
    hands = {int(f.stem.split("-")[1]): tomllib.loads(f.read_text())
             for f in out.glob("*.phh")}
    assert sorted(hands) == [1, 2, 3, 4]
    assert all(h["variant"] == "PO" and "_rake" in h for h in hands.values())
    assert sum(e.kind == "house_set" for e in journaled(db)) == 1  # the same file


def test_tournament_house_seats_its_field_and_plays_offline(tmp_path: Path) -> None:
    db, out = tmp_path / "t8.db", tmp_path / "hands"
    proc = run_table(db, "--offline", "--house", str(HOUSES / "hexapro-sng.toml"),
                     "--autoplay", "6", "--speed", "0", "--export-phh", str(out),
                     table="T8")
    assert proc.returncode == 0, proc.stderr
    events = journaled(db, "T8")
    seated = [e for e in events if isinstance(e, PlayerSeated)]
    assert len(seated) >= 3 and all(e.stack == 500 for e in seated)  # SNG-1, the field
    assert sum(isinstance(e, HandEnded) for e in events) == len(list(out.glob("*.phh")))
    outcomes = replayed(out)
    assert outcomes and all(o["ok"] for o in outcomes), outcomes


def test_a_broken_house_file_is_refused_with_its_field_line_and_rule(tmp_path: Path) -> None:
    house = tmp_path / "broken.toml"
    house.write_text((HOUSES / "casino-plo.toml").read_text()
                     .replace("big_blind = 40", "big_blind = 10"))
    proc = run_table(tmp_path / "t9.db", "--offline", "--house", str(house),
                     "--autoplay", "1")
    assert proc.returncode == 2
    assert "broken.toml line 11: stakes.small_blind:" in proc.stderr
    assert "(BLIND-1)" in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "t9.db").exists()  # refused before the table starts


@pytest.mark.parametrize(("args", "says"), [
    (["--game", "plo"], "--game plo and --house"),
    (["--tournament"], "is a cash house"),
    (["--multiplier", "3"], "--multiplier: casino-plo.toml is a cash house"),
    (["--drain"], "--drain waits for the host's acks and --offline has no host"),
])
def test_options_that_clash_with_the_house_are_refused(tmp_path: Path, args: list[str],
                                                       says: str) -> None:
    proc = run_table(tmp_path / "t9.db", "--offline", "--house",
                     str(HOUSES / "casino-plo.toml"), "--autoplay", "1", *args)
    assert proc.returncode == 2 and says in proc.stderr, proc.stderr


# ---------------------------------------------------------------- the exporter on its own
def journal_of_hands(tmp_path: Path, hands: int, *, cut_short: bool) -> Journal:
    """A journal holding ``hands`` hands of a virtual table, then (``cut_short``) one more
    that a crash cut short and the restart voided (CRASH-1)."""
    journal = Journal(tmp_path / "t1.db", table="T1")

    def sink(event: JournalEvent) -> None:
        journal.append([event])

    vt = VirtualTable(3, seed=5, sink=sink)
    for _ in range(hands):
        vt.play_hand()

    def crash() -> None:
        raise RuntimeError("power cut")

    if cut_short:
        with pytest.raises(RuntimeError):
            vt.play_hand(during=crash)
        assert journal.void_open_hand("the controller restarted (CRASH-1)") is not None
    return journal


def test_crash_1_a_void_hand_writes_nothing(tmp_path: Path) -> None:
    journal = journal_of_hands(tmp_path, 2, cut_short=True)
    files = HandFiles(HandFiles.prepare(tmp_path / "hands"), "T1", after=0)
    for parcel in journal.parcels(0, limit=100_000):
        files.take(parcel)
    journal.close()
    assert [p.name for p in files.written] == ["T1-1.phh", "T1-2.phh"]
    assert sorted(p.name for p in (tmp_path / "hands").iterdir()) == ["T1-1.phh", "T1-2.phh"]
    assert "bot" in (tmp_path / "hands" / "T1-1.phh").read_text()  # the players' names


def test_a_write_error_is_one_warning_naming_the_file_and_the_export_goes_on(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    journal = journal_of_hands(tmp_path, 2, cut_short=False)
    parcels = journal.parcels(0, limit=100_000)
    journal.close()
    second = next(i for i, p in enumerate(parcels)
                  if b'"hand_started"' in p.public and b'"hand_no":2' in p.public)
    directory = HandFiles.prepare(tmp_path / "hands")
    files = HandFiles(directory, "T1", after=0)
    (directory / "T1-1.phh").mkdir()  # hand 1's file cannot be written
    with caplog.at_level(logging.WARNING):
        for parcel in parcels[:second]:
            files.take(parcel)
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and str(directory / "T1-1.phh") in warnings[0]
    for parcel in parcels[second:]:
        files.take(parcel)
    assert [p.name for p in files.written] == ["T1-2.phh"]
    assert not list(directory.glob(".*.tmp"))  # no half-written file left behind
