"""``pytest --hil PROFILE`` as a person runs it, in a subprocess: the option is known from
the checkout's root, only the contract suite runs, the reader tests take part (on the
mock, ``--hil virtual`` is the dry run), a real part is asked about on the terminal and
answered on stdin, and a table that cannot be opened fails in one line.

The seat nodes' part runs on the bench as a technician would run it: ``pitboss hardware
simulate tournament-10 --dir DIR`` (the real firmware on MicroPython behind
pseudo-terminals) and ``pytest --hil tournament-10 --hil-backend mock --hil-seat-ports
DIR``; the person is a small driver that reads the run's prompts, does what each asks at
the simulated nodes (a card on a node's antenna, lifted) or looks at what the node's
firmware shows on its ring, and answers."""

from __future__ import annotations

import contextlib
import os
import re
import select
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from controller.devices.backends import open_devices
from controller.devices.events import CardArrived, DeviceEvent, SeatNodeOffline, SeatNodeOnline
from controller.devices.interfaces import Colour
from controller.devices.profile import load_profile
from controller.devices.seatlines import SeatLinesThread
from controller.devices.specs import Profile
from controller.devices.table_hardware import TableHardware
from firmware import link
from tests.firmware.simnodes import BOOT_S, PACKAGE
from tests.needs import missing

ROOT = Path(__file__).resolve().parents[2]
CONTRACT = "tests/devices/test_contract.py"
READER_TESTS = (
    "test_reader_contract_empty_antenna_scans_empty",
    "test_reader_contract_card_arrives_after_the_stable_time_not_before",
    "test_reader_contract_card_leaves_after_500_ms_missing",
    "test_reader_contract_two_cards_at_one_reader_both_arrive",
)


def hil_pytest(*args: str, stdin: str | None = None,
               env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider", *args],
        cwd=ROOT, input=stdin, stdin=None if stdin is not None else subprocess.DEVNULL,
        capture_output=True, text=True, timeout=300, env={**os.environ, **(env or {})},
    )


def test_hil_virtual_is_a_dry_run_of_the_contract_suite_with_the_reader_tests() -> None:
    # a second file is given too: under --hil it is deselected, only the contract runs
    proc = hil_pytest("--hil", "virtual", CONTRACT, "tests/devices/test_keys.py")
    out = proc.stdout
    assert proc.returncode == 0, out + proc.stderr
    passed = {line.split("::")[1] for line in out.splitlines() if line.startswith("PASSED ")}
    assert {f"{name}[hil-seat1]" for name in READER_TESTS} <= passed
    assert "test_table_contract_key_press_is_an_event[hil-virtual]" in passed
    assert "SKIPPED" not in out and "test_keys.py" not in out
    assert "deselected" in out.splitlines()[-1]


def test_under_hil_a_person_answers_on_the_terminal_and_nobody_there_fails_saying_what_for(
    tmp_path: Path,
) -> None:
    """A table on the real backend whose GPIO runs on gpiozero's mock pins: its LED and
    key are real parts to the suite, so a person is asked. Answering y on stdin passes the
    lights; with stdin closed, the key test fails naming what the person was to do."""
    profile = tmp_path / "bench.toml"
    text = (ROOT / "hardware" / "virtual.toml").read_text()
    profile.write_text(text.replace('backend = "mock"', 'backend = "real"').replace(
        'number = 1\ncards = { kind = "mock" }\nlight = { kind = "mock" }',
        'number = 1\ncards = { kind = "mock" }\nlight = { kind = "led", pin = 5 }'))
    env = {"GPIOZERO_PIN_FACTORY": "mock"}
    lights = hil_pytest("--hil", str(profile), CONTRACT, "-k", "lights", stdin="y\ny\ny\n",
                        env=env)
    assert lights.returncode == 0, lights.stdout + lights.stderr
    assert ">>> Is seat 1's light on? [y/n]" in lights.stdout
    assert ">>> Is seat 1's light blinking? [y/n]" in lights.stdout
    keys = hil_pytest("--hil", str(profile), CONTRACT, "-k", "key_press", env=env)
    assert keys.returncode == 1
    assert ("--hil needs a person at the terminal to: Press and release the dealer key 'deal' "
            "(GPIO17 (pin 11) to GND) (stdin is closed)") in keys.stdout


def test_under_hil_a_table_that_cannot_be_opened_fails_in_one_line() -> None:
    if Path("/dev/spidev0.0").exists():
        pytest.skip("this machine has SPI: the test needs one without")
    proc = hil_pytest("--hil", "sixmax-pi", CONTRACT, "-k", "unknown_seat")
    assert proc.returncode == 1
    assert ("--hil sixmax-pi: the table cannot be opened: SPI bus 0 is not available "
            "(/dev/spidev0.0 missing)") in proc.stdout


# ------------------------------------------------------------------ seat nodes on the bench
GUARD = 240.0  # seconds before a stuck run fails (not a budget: a shared, loaded machine)
LOOK_S = 5.0  # how long the bench person watches a ring before saying it is not so
PROMPT = re.compile(r">>> (?P<text>[^\n]*?)(?P<kind>, then press Enter | \[y/n\] )$")
STAND_IN = ": a mock stands in for it under --hil-backend mock, so it is not tested here"
SEAT_NODE_TESTS = {f"{name}[hil-seat1]" for name in READER_TESTS} | {
    "test_table_contract_lights_take_each_state[hil-tournament-10]"}
# what a person sees of each ring mode the firmware renders (firmware/leds.py)
LOOKS = {link.LED_OFF: "off", link.LED_TURN: "on", link.LED_ALL_IN: "blinking"}


def need_simulator() -> None:
    if shutil.which("node") is None or not (PACKAGE / "micropython.mjs").is_file():
        missing("node or the MicroPython npm package is absent (run `npm ci` in "
                "tests/firmware/mpy): the simulated seat nodes run on it")


class Simulator:
    """``pitboss hardware simulate PROFILE --dir DIR`` as a technician starts it: commands
    on its stdin, its reports (one a line) collected by a thread."""

    def __init__(self, profile: str, directory: Path) -> None:
        self.directory = directory
        self.lines: list[str] = []
        self._grew = threading.Condition()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "controller.cli", "hardware", "simulate", profile,
             "--dir", str(directory)], cwd=ROOT, text=True, stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self._reader = threading.Thread(target=self._read, name="simulator-out", daemon=True)
        self._reader.start()
        self.wait_for(r"^READY ", BOOT_S + 10)

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            with self._grew:
                self.lines.append(raw.rstrip("\n"))
                self._grew.notify_all()
        with self._grew:
            self._grew.notify_all()

    def send(self, command: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()

    def wait_for(self, pattern: str, timeout: float, since: int = 0) -> str | None:
        """The first report from ``since`` on matching ``pattern``, or None in time."""
        wanted = re.compile(pattern)
        deadline = time.monotonic() + timeout
        with self._grew:
            while True:
                for line in self.lines[since:]:
                    if wanted.search(line):
                        return line
                since = len(self.lines)
                left = deadline - time.monotonic()
                if left <= 0 or self.proc.poll() is not None:
                    return None
                self._grew.wait(left)

    def ring(self, node: int) -> tuple[int, tuple[int, int, int], bool] | None:
        """Node ``node``'s ring as its firmware last showed it: mode, colour, link lost."""
        with self._grew:
            for line in reversed(self.lines):
                words = line.split()
                if words[:2] == ["ring", str(node)]:
                    r, g, b = map(int, words[3].split(","))
                    return int(words[2]), (r, g, b), words[4] == "1"
        return None

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.send("quit")
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


@dataclass
class BenchPerson:
    """The person at the bench: does what a prompt asks at the simulated seat nodes and
    answers what a node's firmware shows; a prompt it does not understand ends the run."""

    sim: Simulator
    profile: Profile
    held: dict[tuple[int, int], int] = field(default_factory=dict)  # (node, antenna): card
    asked: list[tuple[str, str]] = field(default_factory=list)  # (prompt, answer)

    def antennas(self, reader: str) -> tuple[int, tuple[int, ...]]:
        spec = self.profile.readers[reader]
        assert spec.kind == "seatnode" and spec.node is not None, \
            f"the bench was asked about {reader}, which is not on a seat node"
        return spec.node, (2,) if spec.slot == "player" else (0, 1)

    def lift(self, node: int, antenna: int) -> None:
        del self.held[node, antenna]
        self.sim.send(f"lift {node} {antenna}")

    def answer(self, prompt: str) -> str:
        answer = self._answer(prompt)
        self.asked.append((prompt, answer))
        return answer

    def _answer(self, prompt: str) -> str:
        if m := re.fullmatch(r"Place test card (\d+) on reader (\S+) \(.*\)", prompt):
            node, antennas = self.antennas(m[2])
            antenna = next(a for a in antennas if (node, a) not in self.held)
            tag = bytes.fromhex(f"04c1{int(m[1]):02x}{node:02x}5e7a90")  # any card will do
            self.held[node, antenna] = int(m[1])
            self.sim.send(f"place {node} {antenna} {tag.hex()}")
            return ""
        if m := re.fullmatch(r"Take test card (\d+) off reader (\S+)", prompt):
            node, antennas = self.antennas(m[2])
            at = next(a for a in antennas if self.held.get((node, a)) == int(m[1]))
            self.lift(node, at)
            return ""
        if m := re.fullmatch(r"Make sure no card lies on reader (\S+) \(.*\)", prompt):
            node, antennas = self.antennas(m[1])
            for a in antennas:
                if (node, a) in self.held:
                    since = len(self.sim.lines)
                    self.lift(node, a)
                    self.sim.wait_for(rf"^card {node} {a} left ", LOOK_S, since)
            return ""
        if m := re.fullmatch(r"Is seat (\d+)'s light (off|on|blinking)(?: \((\w+)\))?\?",
                             prompt):
            ring_node = self.profile.seats[int(m[1]) - 1].light.node
            assert ring_node is not None
            colour = None if m[3] is None else Colour[m[3].upper()].value
            deadline = time.monotonic() + LOOK_S
            while time.monotonic() < deadline:  # a person looks until it is so, or not
                ring = self.sim.ring(ring_node)
                if ring is not None and not ring[2] and LOOKS.get(ring[0]) == m[2] and (
                        colour is None or ring[1] == colour):
                    return "y"
                time.sleep(0.02)
            return "n"
        raise AssertionError(f"the bench person cannot do what the HIL run asks: {prompt!r}")


def drive(proc: subprocess.Popen[bytes], person: BenchPerson) -> str:
    """Read the HIL run's output; answer each prompt through ``person``; all its output."""
    assert proc.stdout is not None and proc.stdin is not None
    out, handled = b"", 0
    deadline = time.monotonic() + GUARD
    fd = proc.stdout.fileno()
    try:
        while True:
            ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                raise AssertionError(f"the HIL run stalled for {GUARD:.0f} s; it said: "
                                     f"{out.decode(errors='replace')[-2000:]}")
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            out += chunk
            prompt = PROMPT.search(out[handled:].decode(errors="replace"))
            if prompt is not None:
                handled = len(out)
                proc.stdin.write(person.answer(prompt["text"]).encode() + b"\n")
                proc.stdin.flush()
    finally:
        if proc.poll() is None and time.monotonic() >= deadline:
            proc.kill()
        proc.wait(30)
    return out.decode(errors="replace")


@pytest.fixture(scope="module")
def simulated_nodes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Simulator]:
    need_simulator()
    sim = Simulator("tournament-10", tmp_path_factory.mktemp("bench") / "ports")
    yield sim
    sim.close()


def test_hil_tournament_10_tests_its_seat_nodes_over_their_serial_lines_on_the_bench(
    simulated_nodes: Simulator,
) -> None:
    sim, started = simulated_nodes, len(simulated_nodes.lines)
    person = BenchPerson(sim, load_profile("tournament-10"))
    proc = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider",
         "--hil", "tournament-10", "--hil-backend", "mock",
         "--hil-seat-ports", str(sim.directory), CONTRACT],
        cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = drive(proc, person)
    assert proc.returncode == 0, out
    passed = {line.split("::")[1] for line in out.splitlines() if line.startswith("PASSED ")}
    # the seat node's reader and ring: tested over the lines, by the person, none skipped
    assert passed >= SEAT_NODE_TESTS, out
    skipped = [line for line in out.splitlines() if line.startswith("SKIPPED ")]
    assert skipped and all(STAND_IN in line for line in skipped), out
    for part in ("reader board1 (MFRC522", "reader muck (", "the dealer key 'deal'",
                 "the blinds display", "the buzzer"):
        assert any(part in line for line in skipped), (part, out)
    # the cards were read by the node's firmware, the answers came from its ring
    reports = sim.lines[started:]
    for antenna in (0, 1):
        assert any(r.startswith(f"card 1 {antenna} arrived 04c1") for r in reports), reports
        assert any(r.startswith(f"card 1 {antenna} left 04c1") for r in reports), reports
    lights = [(q, a) for q, a in person.asked if q.startswith("Is seat 1's light")]
    assert lights == [("Is seat 1's light on (green)?", "y"),
                      ("Is seat 1's light blinking (red)?", "y"),
                      ("Is seat 1's light off?", "y")], person.asked
    summary = out.strip().splitlines()[-1]
    assert re.fullmatch(r"=* ?\d+ passed, \d+ skipped in .*", summary), summary
    print(f"HIL run: {summary}; asked: {len(person.asked)} prompts")


def test_hil_on_the_pi_backend_fails_the_parts_this_machine_lacks_in_one_line(
    simulated_nodes: Simulator,
) -> None:
    """Without --hil-backend every part of the table is the table's: the seat nodes open,
    the Pi's SPI readers cannot, and the run fails saying so and how to bench-test."""
    if Path("/dev/spidev1.0").exists():
        pytest.skip("this machine has SPI bus 1: the test needs one without")
    proc = hil_pytest("--hil", "tournament-10", "--hil-seat-ports",
                      str(simulated_nodes.directory), CONTRACT, "-k", "unknown_seat")
    assert proc.returncode == 1
    assert ("--hil tournament-10: the table cannot be opened: SPI bus 1 is not available "
            "(/dev/spidev1.0 missing)") in proc.stdout
    assert "--hil-backend mock tests them alone" in proc.stdout


def test_hil_seat_ports_that_do_not_open_fail_in_one_line(tmp_path: Path) -> None:
    proc = hil_pytest("--hil", "tournament-10", "--hil-backend", "mock", "--hil-seat-ports",
                      str(tmp_path), CONTRACT, "-k", "unknown_seat", "-v")
    assert proc.returncode == 1
    assert (f"hil: table tournament-10, on the mock backend, seat-node ports under "
            f"{tmp_path}") in proc.stdout  # the run's header says what is tested where
    assert (f"--hil tournament-10: the table cannot be opened: seat-node port "
            f"{tmp_path}/pitboss-seat1 does not exist: plug the node in") in proc.stdout
    assert "(9 more seat-node port(s) did not open either)" in proc.stdout


def test_hil_seat_ports_without_hil_is_a_usage_error() -> None:
    proc = hil_pytest("--hil-seat-ports", "/tmp", CONTRACT)
    assert proc.returncode == 4
    assert "--hil-seat-ports goes with --hil PROFILE" in proc.stderr


def test_seat_lines_on_a_thread_of_their_own_serve_a_table_polled_from_this_one(
    simulated_nodes: Simulator,
) -> None:
    """What --hil opens a table with: the lines' loop runs in its thread, the table is
    polled from the test's; a card a node reads, and the node unplugged and plugged back,
    reach the table through the listeners the loop's thread calls."""
    sim, profile = simulated_nodes, load_profile("tournament-10")
    tag = bytes.fromhex("04d00d5e7a9001")

    def until(event: DeviceEvent, hw: TableHardware) -> list[DeviceEvent]:
        got: list[DeviceEvent] = []
        deadline = time.monotonic() + 30
        while event not in got:
            assert time.monotonic() < deadline, f"the table never heard {event}: {got}"
            got += hw.poll()
            time.sleep(0.01)
        return got

    with SeatLinesThread(profile, directory=sim.directory) as lines:
        assert lines.all_online and lines.silent() == []
        seam = lines.seam()
        hw = open_devices(profile, backend="mock", clock=time.monotonic, seat_link=seam)
        try:
            sim.send(f"place 4 1 {tag.hex()}")
            until(CardArrived("seat4", tag), hw)
            sim.send("unplug 4")
            until(SeatNodeOffline(4), hw)
            assert lines.silent() == [(4, str(sim.directory / "pitboss-seat4"))]
            sim.send("plug 4")
            until(SeatNodeOnline(4), hw)
            assert hw.reader("seat4").scan() == {tag}  # announced again by the node
        finally:
            sim.send("lift 4 1")
            hw.close()
            seam.detach()
    with pytest.raises(RuntimeError, match="not open"):
        seam.tags(4, "cards")
