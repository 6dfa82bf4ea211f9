"""``pitboss demo`` runs a tournament to its winner: checked afterwards at the bridge's
store, the way an auditor would, without trusting the demo's own report.

The director is rebuilt from its journal in the bridge's database (every input it acted
on, replayed through the same code), and the hands the bridge stored are added up one by
one.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from sqlalchemy import select

from host_bridge.db import make_engine, session_factory
from host_bridge.demo.game import player_names
from host_bridge.director.journal import DirectorJournal
from host_bridge.director.service import TournamentDirector
from host_bridge.models import Hand, PokerTable
from tests.demo.conftest import ROOT
from tests.sync.conftest import Mosquitto

PLAYERS, TABLES = 12, 3
LIMIT_S = 80.0  # the demo's own --minutes bound; a winner comes well before it


def run_demo(data: Path, broker: str, *args: str, limit_s: float = LIMIT_S
             ) -> subprocess.CompletedProcess[str]:
    """``pitboss demo --until-winner`` with a time bound; its output and exit code."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "controller.cli", "demo", "--headless", "--until-winner",
         "--minutes", f"{limit_s / 60:.3f}", "--broker", broker,
         "--port", "0", "--data", str(data), *args],
        cwd=ROOT, text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=limit_s + 60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            out, _ = proc.communicate()
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, "")


def check_tournament(data: Path, out: str, players: int, tables: int) -> dict[str, int]:
    """Audit a finished demo tournament at the bridge's store; the director's figures."""
    engine = make_engine(f"sqlite:///{data / 'bridge.db'}")
    sessions = session_factory(engine)
    try:
        director = TournamentDirector.restore(DirectorJournal(sessions), None)
        assert director is not None, "the bridge holds no tournament"
        status = director.status()
        with sessions() as session:
            stored_tables = session.scalars(select(PokerTable)).all()
            hands = session.scalars(select(Hand).where(Hand.status == "ended")).all()
    finally:
        engine.dispose()

    # one winner, holding every chip in play
    assert status["stage"] == "finished"
    assert status["players_left"] == 1
    places = status["places"]
    winners = [p for p in places if p["place"] == 1]
    assert len(winners) == 1 and winners[0]["place_to"] == 1
    assert winners[0]["player"] == status["winner"]
    assert f"won by {status['winner']}" in out
    # places unique and complete: every entrant once; a shared place is held by as many
    # players as it spans; together the places are exactly 1..N
    assert sorted(p["player"] for p in places) == sorted(player_names(players))
    held = Counter((p["place"], p["place_to"]) for p in places)
    assert all(n == worst - best + 1 for (best, worst), n in held.items()), held
    covered = sorted(n for best, worst in held for n in range(best, worst + 1))
    assert covered == list(range(1, players + 1))
    # the director's invariants (seated once, no table over its seats, chips conserved,
    # places) held after every hand, replayed from the journal
    assert director.anomalies == []
    assert director.figures["checks"] >= len(hands) > players
    # every hand exported as PHH (SHOW-3 all-in showdowns included), none logged without
    assert [(h.table_id, h.hand_no, h.phh_error) for h in hands if h.phh is None] == []
    assert "no PHH" not in out
    # chips conserved in every hand the bridge stored
    for hand in hands:
        assert hand.end_stacks is not None
        assert sum(hand.start_stacks) == sum(hand.end_stacks) + hand.rake, (
            f"{hand.table_id} hand {hand.hand_no}: {hand.start_stacks} -> {hand.end_stacks}")
    # every table closed (the last one once the winner was known), every table dealt
    assert {t.id for t in stored_tables} == {f"T{n}" for n in range(1, tables + 1)}
    assert all(t.closed for t in stored_tables), [(t.id, t.closed) for t in stored_tables]
    assert len({h.table_id for h in hands}) == tables
    return dict(director.figures)


def test_the_demo_tournament_ends_with_one_winner_and_consistent_results(
        mosquitto: Mosquitto, tmp_path: Path) -> None:
    """Against a real Mosquitto: a tournament to its winner at 200x, audited at the
    bridge; a table was broken and its players moved (12 players fit two tables of 4 once
    8 are left)."""
    data = tmp_path / "floor"
    done = run_demo(data, f"127.0.0.1:{mosquitto.port}", "--speed", "200", "--tables",
                    str(TABLES), "--players", str(PLAYERS))
    assert done.returncode == 0, done.stdout
    assert "demo stopped: the tournament is over, won by" in done.stdout, done.stdout[-3000:]
    figures = check_tournament(data, done.stdout, PLAYERS, TABLES)
    assert figures["moves"] > 0 and figures["breaks"] >= 1


def test_the_embedded_broker_runs_the_floor_and_frees_its_port(tmp_path: Path) -> None:
    """No broker installed: the embedded amqtt (MQTT 3.1.1) carries a whole tournament,
    the tables and the bridge having fallen back from MQTT 5; once the demo ends the
    broker's port is free."""
    data = tmp_path / "floor"
    done = run_demo(data, "embedded", "--speed", "200", "--tables", "2", "--players", "8")
    assert done.returncode == 0, done.stdout
    broker = re.search(r"MQTT: embedded amqtt broker at 127\.0\.0\.1:(\d+)", done.stdout)
    assert broker is not None, done.stdout
    assert "demo stopped: the tournament is over, won by" in done.stdout, done.stdout[-3000:]
    check_tournament(data, done.stdout, 8, 2)
    with socket.socket() as s:  # the broker's port is free again (nobody listens; a
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # server may bind it)
        s.bind(("127.0.0.1", int(broker.group(1))))
        s.listen()


@pytest.mark.slow
def test_the_default_demo_shows_a_whole_tournament_within_a_few_minutes(
        mosquitto: Mosquitto, tmp_path: Path) -> None:
    """The defaults (4 tables, 24 players, clocks at 20x): within a few minutes the
    floor sees a level change, a break with its colour-up and chip race, a table broken
    and its players moved, and eliminations to a winner."""
    data = tmp_path / "floor"
    done = run_demo(data, f"127.0.0.1:{mosquitto.port}", limit_s=300)
    assert done.returncode == 0, done.stdout
    out = done.stdout
    assert "demo stopped: the tournament is over, won by" in out, out[-3000:]
    assert "T1: table closed" in out or "T2: table closed" in out
    assert " moves to table " in out
    assert ": level 2" in out
    assert "the 25 chips colour up (chip race)" in out
    assert "colour-up, " in out and " stack(s) adjusted" in out
    assert out.count(" is out (seat ") == 23
    assert "0 anomalies" in out
