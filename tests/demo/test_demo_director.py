"""``pitboss demo`` runs on the bridge's real director (issue 19): while the demo plays, the
director API (and so the director page and the players' clock screen) serves the demo's
tournament live; at the winner the demo prints the podium and the pages and stays up,
still serving the finished tournament, until Ctrl-C.

Checked as a tournament director would: through the bridge's REST API with the token the
demo printed, against a real Mosquitto (the sync tests' fixture).
"""

from __future__ import annotations

import json
import os
import re
import signal
import threading
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from tests.demo.conftest import WAIT_S, descendants, start_demo, wait_for
from tests.demo.test_demo import TABLE_PROCESS
from tests.sync.conftest import Mosquitto, free_port

PLAYERS, TABLES = 8, 2


class Output:
    """The demo's output, read on a thread so its pipe never fills while the test polls."""

    def __init__(self, stream: Any) -> None:
        self.lines: list[str] = []
        self._thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._thread.start()

    def _read(self, stream: Any) -> None:
        for line in stream:
            self.lines.append(line)

    @property
    def text(self) -> str:
        return "".join(self.lines)

    def join(self) -> str:
        self._thread.join(WAIT_S)
        return self.text


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:  # ended since it was listed
        return b""


def get(port: int, path: str, token: str | None = None) -> Any:
    """``GET path`` on the demo's bridge; the JSON answer."""
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}")
    if token is not None:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.load(answer)


def test_the_director_api_serves_the_demo_tournament_and_the_podium_stays_until_ctrl_c(
        mosquitto: Mosquitto, tmp_path: Path) -> None:
    port = free_port()
    demo = start_demo("--headless", "--tables", str(TABLES), "--players", str(PLAYERS),
                      "--speed", "200", "--broker", f"127.0.0.1:{mosquitto.port}",
                      "--port", str(port), "--data", str(tmp_path / "floor"))
    assert demo.stdout is not None
    out = Output(demo.stdout)
    try:
        wait_for(lambda: "director token" in out.text, "the tokens were printed", demo)
        found = re.search(r"director token (\S+)", out.text)
        assert found is not None, out.text
        token = found.group(1)
        listed: list[dict[str, Any]] = []

        def running() -> bool:
            try:
                listed[:] = get(port, "/api/v1/director/tournaments", token)
            except urllib.error.URLError:  # the demo stopped: wait_for shows its output
                return False
            return any(t["stage"] in ("running", "finished") for t in listed)

        # the API's own room holds the demo's tournament, live
        wait_for(running, "the director API listed the demo's tournament", demo)
        assert len(listed) == 1, listed
        tid = listed[0]["id"]
        assert listed[0]["name"] == "Pitboss demo"
        assert listed[0]["entries"] == PLAYERS
        assert listed[0]["level"] >= 1 and 1 <= listed[0]["players_left"] <= PLAYERS
        assert sorted(listed[0]["tables"]) == ["T1", "T2"]
        wait_for(lambda: f"director page: http://127.0.0.1:{port}/dashboard/director.html"
                 f"?t={tid}" in out.text, "the director page's address was printed", demo)
        assert f"players' clock: http://127.0.0.1:{port}/clock/{tid}" in out.text

        # at the winner: the podium is printed and the demo stays up, still serving
        wait_for(lambda: "Ctrl-C stops the demo" in out.text.split("the tournament is over",
                                                                   1)[-1]
                 and "the tournament is over" in out.text, "the podium was printed", demo)
        places = get(port, f"/api/v1/director/tournaments/{tid}/places", token)
        assert places["winner"] is not None
        first = [p for p in places["places"] if p["place"] == 1]
        assert [p["player"] for p in first] == [places["winner"]]
        assert first[0]["prize"] == places["prizes"][0] > 0
        podium = out.text.split("the tournament is over", 1)[1]
        assert re.search(rf"^\s+1\. {places['winner']}\s+\$[\d,]+\.\d\d$", podium,
                         re.MULTILINE), podium
        clock = get(port, f"/api/v1/public/tournaments/{tid}/clock")  # the players' screen
        assert clock["stage"] == "finished" and clock["winner"] == places["winner"]
        # every table closed at the end and its process ended (where the demo used to
        # stop): the demo has seen it, and serves on
        wait_for(lambda: "every table has closed; the bridge and its pages serve on until "
                 "Ctrl-C" in out.text, "the demo saw every table close", demo)
        assert not [p for p in descendants(demo.pid) if TABLE_PROCESS in _cmdline(p)]
        assert all(t["closed"] for t in get(port, "/api/v1/tables", token)["data"])
        assert get(port, "/api/v1/director/tournaments", token)[0]["stage"] == "finished"
        assert demo.poll() is None, out.text
        assert "demo stopped" not in out.text

        os.killpg(demo.pid, signal.SIGINT)
        demo.wait(timeout=WAIT_S)
    finally:
        if demo.poll() is None:
            os.killpg(demo.pid, signal.SIGKILL)
            demo.wait()
    text = out.join()
    assert demo.returncode == 0, text
    assert "demo stopped: stopped on request" in text
