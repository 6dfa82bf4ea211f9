"""Commissioning (``pitboss hardware check``): the walk over a mock table driven by a
scripted technician who places the card and presses the keys when asked; a weak antenna,
a dead one, swapped keys, a light nobody sees, a part that is missing or whose GPIO is
taken, each named in the report with its pin, bus or port while the walk goes on; seat
nodes' firmware and seat ids through the real firmware (CPython) on a link; and the
command itself in a subprocess, on the mock and with a person answering on stdin."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import io
import json
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import pytest
from gpiozero import LED
from gpiozero.pins.mock import MockFactory, MockPWMPin
from rich.console import Console

from controller.devices.buses import i2c_unavailable, spi_unavailable
from controller.devices.commissioning import (
    SECTIONS,
    Settings,
    VirtualPace,
    Walk,
    commission,
)
from controller.devices.commissioning_bench import (
    Bench,
    SeatLines,
    light_where,
    open_bench,
    reader_where,
)
from controller.devices.commissioning_report import Report, Status, Step
from controller.devices.hardware import RealBackend
from controller.devices.interfaces import BEEP_SHORT, CardReader
from controller.devices.mock import MockBackend
from controller.devices.profile import load_profile, parse_profile
from controller.devices.seatlink import SeatNodeLinks
from controller.devices.specs import Profile, ReaderSpec
from controller.devices.stand_ins import MockCardReader
from controller.devices.technicians import (
    BuzzerPlayed,
    ConsoleTechnician,
    MockHands,
    PlaceCard,
    PressKey,
    Sight,
    Task,
)
from firmware.seatnode import FIRMWARE_VERSION
from tests.needs import missing

ROOT = Path(__file__).resolve().parents[2]


class Scripted(MockHands):
    """A technician with a script: does what the mock's hands do, remembers every
    instruction and question, and may answer 'no', press the wrong key, or leave a card
    somewhere else."""

    def __init__(self, bench: Bench, *, no: tuple[str, ...] = (),
                 wrong_key: dict[str, str] | None = None, absent: tuple[str, ...] = ()) -> None:
        super().__init__(bench, ConsoleTechnician(Console(file=io.StringIO())))
        self.no = no  # questions containing one of these are answered no
        self.wrong_key = wrong_key or {}
        self.absent = absent  # readers the card never reaches
        self.tasks: list[Task] = []
        self.questions: list[str] = []
        self.prompts = 0

    def prompt(self, text: str) -> None:
        self.prompts += 1

    def instruct(self, text: str, task: Task) -> None:
        self.tasks.append(task)
        if isinstance(task, PressKey) and task.key in self.wrong_key:
            task = PressKey(self.wrong_key[task.key])
        if isinstance(task, PlaceCard) and task.reader in self.absent:
            return
        super().instruct(text, task)

    def confirm(self, question: str, sight: Sight) -> bool | None:
        self.questions.append(question)
        if any(word in question for word in self.no):
            return False
        return super().confirm(question, sight)


def walk(bench: Bench, tech: Scripted, **settings: object) -> Report:
    options = {"seconds": 1.0, "wait_s": 2.0, **settings}
    return asyncio.run(commission(bench, tech, pace=VirtualPace(),
                                  settings=Settings(**options)))  # type: ignore[arg-type]


@pytest.fixture
def virtual() -> Iterator[Bench]:
    profile = load_profile("virtual")
    bench = open_bench(profile, MockBackend(), backend="mock")
    yield bench
    bench.close()


def step(report: Report, part: str, check: str) -> Step:
    found = [s for s in report.steps if s.part == part and s.check == check]
    assert len(found) == 1, f"{part} / {check}: {found}"
    return found[0]


# ------------------------------------------------------------------ the mock table, walked
def test_a_scripted_technician_walks_the_virtual_table_and_every_check_passes(
    virtual: Bench,
) -> None:
    tech = Scripted(virtual)
    report = walk(virtual, tech)
    assert report.ok, report.text()
    profile = virtual.profile
    # every reader, key, light, the buzzer and three displays, in the walk's order
    parts = [s.part for s in report.steps]
    assert parts == (
        [f"reader {name}" for name in profile.readers]
        + [f"key '{key}'" for key in profile.keys]
        + [f"seat {n} light" for n in range(1, 11)]
        + ["buzzer", "blinds display", "shot clock", "dealer display"]
    )
    # the card was asked for at each reader in turn, each key was asked for
    asked = [t.reader for t in tech.tasks if isinstance(t, PlaceCard)]
    assert asked == list(profile.readers)
    assert [t.key for t in tech.tasks if isinstance(t, PressKey)] == list(profile.keys)
    assert tech.prompts == 1  # once, before the readers
    # one second of scans at the profile's 20 ms poll: about 50 scans, all reading the card
    seat3 = step(report, "reader seat3", "read rate")
    assert 49 <= seat3.figure("scans") <= 51
    assert seat3.figure("read_rate") == 1.0 and seat3.figure("misses") == 0
    assert seat3.figure("scans_per_s") == pytest.approx(50, abs=1)
    assert "Is seat 3's light on?" in tech.questions


def test_the_mock_answers_from_what_its_parts_show_so_a_step_that_did_nothing_fails(
    virtual: Bench,
) -> None:
    # a light that ignores set() (a broken driver): the mock sees it dark and says no
    virtual.lights[4].set = lambda state: None  # type: ignore[method-assign]
    report = walk(virtual, Scripted(virtual), sections=("lights",))
    lit = step(report, "seat 4 light", "lit")
    assert lit.status is Status.FAIL and lit.detail.startswith("not seen")
    assert step(report, "seat 5 light", "lit").status is Status.PASS


class WeakReader(MockCardReader):
    """An antenna that reads the card in one scan of three (a weak field)."""

    def scan(self) -> frozenset[bytes]:
        seen = super().scan()
        return seen if self.scans % 3 == 0 else frozenset()


class WeakSeat3(MockBackend):
    def reader(self, spec: ReaderSpec) -> CardReader:
        if spec.name == "seat3":
            return WeakReader(spec.name)
        return super().reader(spec)


def test_a_weak_antenna_fails_with_its_read_rate_and_misses_and_the_rest_pass() -> None:
    bench = open_bench(load_profile("virtual"), WeakSeat3(), backend="mock")
    try:
        report = walk(bench, Scripted(bench), sections=("readers",), seconds=3.0)
    finally:
        bench.close()
    weak = step(report, "reader seat3", "read rate")
    assert weak.status is Status.FAIL
    assert weak.figure("read_rate") == pytest.approx(1 / 3, abs=0.02)
    assert weak.figure("misses") == pytest.approx(weak.figure("scans") * 2 / 3, abs=2)
    assert weak.detail.startswith("weak antenna: read the card in ")
    assert "(33%) over 3.0 s" in weak.detail and "below 95%" in weak.detail
    assert report.failed == (weak,)
    text = report.text()
    assert text.index("Failed (fix these first):") < text.index("FAIL  reader seat3 / read rate")
    data = report.as_json()
    assert data["ok"] is False and data["counts"] == {"pass": 22, "fail": 1, "skip": 0}


def test_a_reader_that_reads_nothing_fails_after_the_wait_and_the_walk_goes_on(
    virtual: Bench,
) -> None:
    report = walk(virtual, Scripted(virtual, absent=("board1",)), sections=("readers",))
    dead = step(report, "reader board1", "read rate")
    assert dead.status is Status.FAIL
    assert dead.detail.startswith("read no card in 2 s: check that the card lies on the antenna")
    assert step(report, "reader muck", "read rate").status is Status.PASS
    assert step(report, "reader deck", "read rate").status is Status.PASS


def test_swapped_key_wires_are_named_with_both_gpios(virtual: Bench) -> None:
    report = walk(virtual, Scripted(virtual, wrong_key={"deal": "undo"}), sections=("keys",))
    deal = step(report, "key 'deal'", "press")
    assert deal.status is Status.FAIL
    assert deal.where == "GPIO17 (pin 11) to GND"
    assert deal.detail.startswith("'undo' (GPIO27 (pin 13)) fired instead: the wires of 'deal' "
                                  "and 'undo' may be swapped")
    assert step(report, "key 'pause'", "press").status is Status.PASS


def test_a_light_the_technician_does_not_see_fails_and_one_nobody_answers_is_skipped(
    virtual: Bench,
) -> None:
    class NoAnswer(Scripted):
        def confirm(self, question: str, sight: Sight) -> bool | None:
            return None if "seat 7" in question else super().confirm(question, sight)

    report = walk(virtual, NoAnswer(virtual, no=("seat 3",)), sections=("lights", "buzzer"))
    assert step(report, "seat 3 light", "lit").status is Status.FAIL
    unanswered = step(report, "seat 7 light", "lit")
    assert (unanswered.status, unanswered.detail) == (Status.SKIP, "nobody answered")
    assert step(report, "buzzer", "beep").status is Status.PASS
    assert report.counts() == {"pass": 9, "fail": 1, "skip": 1}


# ------------------------------------------------------------------ parts that are not there
def test_missing_buses_and_a_taken_gpio_are_named_and_the_walk_goes_on() -> None:
    """sixmax-pi on the real backend with GPIO on mock pins but no SPI or I2C bus, and
    seat 1's LED pin held by another program: each reader and display is a failed step
    naming its bus and chip select or address, the LED names its GPIO and header pin,
    and the keys, the other lights and the buzzer are still checked (and pass)."""
    factory = MockFactory(pin_class=MockPWMPin)

    def no_spi(bus: str, cs: int, **kw: object) -> object:
        raise spi_unavailable(bus, cs, OSError(errno.ENOENT, "missing"), no_cs=bool(kw))

    def no_i2c(bus: str) -> object:
        raise i2c_unavailable(bus, OSError(errno.ENOENT, "missing"))

    squatter = LED(17, pin_factory=factory)  # another program holds seat 1's LED
    maker = RealBackend(pin_factory=factory, spi_opener=no_spi, i2c_opener=no_i2c)
    bench = open_bench(load_profile("sixmax-pi"), maker, backend="real")
    try:
        report = walk(bench, Scripted(bench))
    finally:
        bench.close()
        squatter.close()
    seat3 = step(report, "reader seat3", "open")
    assert seat3.status is Status.FAIL and seat3.where == "MFRC522 on spi0, CS GPIO12 (pin 32)"
    assert "SPI bus 0 is not available (/dev/spidev0.0 missing)" in seat3.detail
    player2 = step(report, "reader player2", "open")
    assert player2.where == "PN532 on i2c1 0x24 via mux 0x70 channel 1"
    assert "I2C bus 1 is not available (/dev/i2c-1 missing)" in player2.detail
    blinds = step(report, "blinds display", "open")
    assert (blinds.status, blinds.where) == (Status.FAIL, "SSD1306 on i2c1 0x3C")
    assert step(report, "shot clock", "open").where == "HT16K33 on i2c1 0x71"
    light1 = step(report, "seat 1 light", "open")
    assert light1.where == "LED on GPIO17 (pin 11)"
    assert light1.detail.startswith("cannot be opened: GPIO17 for seat 1 light cannot be claimed")
    # the walk went on: every key, the other lights (their pins read high) and the buzzer
    assert all(step(report, f"key '{k}'", "press").status is Status.PASS for k in ("deal", "undo"))
    assert [step(report, f"seat {n} light", "lit").status for n in range(2, 7)] == [Status.PASS] * 5
    assert step(report, "buzzer", "beep").status is Status.PASS
    assert not any(s.check == "read rate" for s in report.steps)  # no card asked for
    assert all("\n" not in s.detail for s in report.steps)


# ------------------------------------------------------------------ seat nodes
TWO_NODES = """
[table]
name = "two-nodes"
seats = 2
backend = "mock"
[[seat]]
number = 1
cards = { kind = "seatnode", port = "/dev/pitboss-a", node = NODE }
light = { kind = "seatnode_ring", port = "/dev/pitboss-a", node = NODE }
player = { kind = "seatnode", port = "/dev/pitboss-a", node = NODE }
[[seat]]
number = 2
cards = { kind = "seatnode", port = "/dev/pitboss-b", node = 2 }
light = { kind = "seatnode_ring", port = "/dev/pitboss-b", node = 2 }
player = { kind = "seatnode", port = "/dev/pitboss-b", node = 2 }
[[board]]
kind = "mock"
[muck]
kind = "mock"
[deck]
kind = "mock"
[keys]
deal = 17
[blinds_display]
kind = "mock"
[shot_clock]
kind = "mock"
[buzzer]
kind = "mock"
"""


def _nodes_walk(node: int, firmware: tuple[int, int, int]) -> Report:
    """The firmware check of a two-node profile: port a has the real firmware (CPython,
    seat 4) behind a link, port b did not open."""
    from tests.firmware.test_seatlink import Table

    profile = parse_profile(TWO_NODES.replace("NODE", str(node)), "two-nodes.toml")

    class NodePace:  # the node and the link on one virtual clock, stepped as the walk waits
        def __init__(self, table: Table) -> None:
            self.table = table

        def now(self) -> float:
            return self.table.now_ms / 1000

        async def sleep(self, seconds: float) -> None:
            await self.table.run(max(5, int(seconds * 1000)))

    async def run() -> Report:
        table = Table()
        async with table.link:
            lines = SeatLines(
                SeatNodeLinks([table.link], profile=profile),
                {"/dev/pitboss-a": table.link},
                {"/dev/pitboss-b": "cannot open seat node port /dev/pitboss-b: [Errno 2] No "
                                   "such file or directory"},
                {},
            )
            bench = open_bench(profile, MockBackend(), backend="mock", lines=lines)
            tech = Scripted(bench)
            walk = Walk(bench, tech, pace=NodePace(table),
                        settings=Settings(wait_s=1.0, sections=("nodes",), firmware=firmware))
            return await walk.run()

    return asyncio.run(run())


def test_a_seat_node_says_its_firmware_and_seat_and_a_port_that_did_not_open_is_named() -> None:
    report = _nodes_walk(4, FIRMWARE_VERSION)
    ok = step(report, "seat node 4", "firmware")
    version = ".".join(map(str, FIRMWARE_VERSION))
    assert (ok.status, ok.detail, ok.where) == (Status.PASS, f"firmware {version}, seat 4",
                                                 "/dev/pitboss-a")
    missing = step(report, "seat node 2", "open")
    assert missing.status is Status.FAIL and missing.where == "/dev/pitboss-b"
    assert missing.detail.startswith("cannot open its line: cannot open seat node port "
                                     "/dev/pitboss-b: [Errno 2] No such file or directory: "
                                     "check the node's USB cable")


def test_old_firmware_and_a_node_on_the_wrong_port_each_say_how_to_fix_them() -> None:
    report = _nodes_walk(1, (9, 9, 9))
    wrong_seat = step(report, "seat node 1", "seat id")
    assert wrong_seat.detail.startswith(
        "the node on /dev/pitboss-a says it is seat 4, the profile expects node 1")
    assert "pitboss firmware deploy /dev/pitboss-a --seat 1" in wrong_seat.detail
    old = step(report, "seat node 1", "firmware")
    version = ".".join(map(str, FIRMWARE_VERSION))
    assert old.detail == (f"runs firmware {version}, this controller expects 9.9.9: "
                          "pitboss firmware deploy /dev/pitboss-a --seat 1")


def test_on_the_mock_without_seat_node_lines_the_firmware_check_says_how_to_get_them() -> None:
    profile = load_profile("tournament-10")
    bench = open_bench(profile, MockBackend(), backend="mock")
    try:
        report = walk(bench, Scripted(bench), sections=("nodes",))
    finally:
        bench.close()
    (skipped,) = report.steps
    assert skipped.status is Status.SKIP and "--seat-ports DIR" in skipped.detail


# ------------------------------------------------------------------ the console technician
def test_the_console_technician_asks_again_until_y_or_n_and_a_closed_stdin_answers_nothing() -> (
    None
):
    answers = iter(["maybe", " Y ", "no"])

    def ask(prompt: str) -> str:
        try:
            return next(answers)
        except StopIteration:
            raise EOFError from None

    out = Console(file=io.StringIO())
    tech = ConsoleTechnician(out, ask=ask)
    sight = BuzzerPlayed(BEEP_SHORT)
    assert tech.confirm("Did it beep?", sight) is True  # "maybe" asked again
    assert tech.confirm("Did it beep?", sight) is False
    assert tech.confirm("Did it beep?", sight) is None


# ------------------------------------------------------------------ the command
def pitboss(*args: str, stdin: str = "", cwd: Path,
            env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "controller.cli", "hardware", "check", *args],
        input=stdin, capture_output=True, text=True, cwd=cwd, timeout=120,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", **(env or {})},
    )


def test_the_command_runs_the_virtual_table_as_a_dry_run_and_writes_both_reports(
    tmp_path: Path,
) -> None:
    proc = pitboss("virtual", "--seconds", "0.5", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    assert "> Put the test card on reader seat1 (mock). (mock: card placed)" in proc.stdout
    assert "Is seat 3's light on? yes (mock: the light is on)" in proc.stdout
    (text_path,) = tmp_path.glob("commissioning-virtual-*.txt")
    data = json.loads(text_path.with_suffix(".json").read_text())
    assert data["schema"] == "pitboss.commissioning/1"
    assert data["ok"] is True and data["complete"] is True
    assert data["counts"] == {"pass": 43, "fail": 0, "skip": 0}
    readers = [s for s in data["steps"] if s["check"] == "read rate"]
    assert len(readers) == 23 and all(s["figures"]["read_rate"] == 1.0 for s in readers)
    assert text_path.read_text().splitlines()[3] == (
        "PASSED: 43 passed, 0 failed, 0 skipped of 43 checks")


def test_the_command_asks_a_person_on_stdin_and_names_what_it_cannot_open(
    tmp_path: Path,
) -> None:
    """sixmax-pi on the real backend, its GPIO on gpiozero's mock pins (nobody presses a
    key) and no I2C bus: the lights are asked about on stdin (seat 3 answered no, the
    questions after the third answer meet a closed stdin), each key and display is named
    with its pin or bus, and the USB keypad with its device path."""
    proc = pitboss("sixmax-pi", "--backend", "real", "--only", "keys,lights,buzzer,displays",
                   "--wait", "0.2", "--report", "out.json", stdin="y\ny\nn\n", cwd=tmp_path,
                   env={"GPIOZERO_PIN_FACTORY": "mock"})
    assert proc.returncode == 1, proc.stderr + proc.stdout
    assert "Is seat 3's light on? [y/n]" in proc.stdout
    data = json.loads((tmp_path / "out.json").read_text())
    steps = {(s["part"], s["check"]): s for s in data["steps"]}
    assert [steps[(f"seat {n} light", "lit")]["status"] for n in range(1, 7)] == [
        "pass", "pass", "fail", "skip", "skip", "skip"]
    assert steps[("seat 3 light", "lit")]["detail"] == (
        "not seen: check the LED on GPIO22 (pin 15), its resistor and its polarity")
    assert steps[("buzzer", "beep")]["detail"] == "nobody answered"
    assert steps[("key 'deal'", "press")]["detail"] == (
        "no press in 0.2 s: check the switch and its wire from GPIO4 (pin 7) to GND")
    blinds = steps[("blinds display", "open")]
    assert blinds["where"] == "SSD1306 on i2c1 0x3C"
    # here no I2C bus; on a Pi the bus is there and nothing answers at 0x3C: named either way
    assert ("the blinds display on i2c1 does not answer" if Path("/dev/i2c-1").exists()
            else "I2C bus 1 is not available (/dev/i2c-1 missing)") in blinds["detail"]
    keypad = steps[("keypad", "open")]
    assert "no keypad at /dev/input/by-id/usb-Genovation_ControlPad_CP48-event-kbd" in (
        keypad["detail"])
    assert (tmp_path / "out.txt").read_text().startswith(
        "Pitboss commissioning report: table sixmax-pi")


def test_ctrl_c_writes_the_report_so_far_marked_interrupted(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GPIOZERO_PIN_FACTORY": "mock"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "controller.cli", "hardware", "check", "sixmax-pi",
         "--backend", "real", "--only", "keys", "--report", "cut.txt"],
        cwd=tmp_path, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True, env=env)
    assert proc.stdout is not None
    out = Lines(proc.stdout)
    out.wait_for("> Press the 'deal' key")  # nobody presses it: the walk waits
    proc.send_signal(signal.SIGINT)
    assert proc.wait(timeout=20) == 130
    data = json.loads((tmp_path / "cut.json").read_text())
    assert (data["complete"], data["ok"]) == (False, False)
    assert (tmp_path / "cut.txt").read_text().splitlines()[3].startswith("INTERRUPTED: ")


def test_an_unknown_section_is_one_line_naming_the_sections(tmp_path: Path) -> None:
    proc = pitboss("virtual", "--only", "readers,lamps", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.strip() == (
        "pitboss hardware check: error: argument --only: unknown section lamps: choose from "
        f"{', '.join(SECTIONS)}")


def test_a_seat_node_part_is_named_by_its_port_and_the_device_opened_for_it() -> None:
    profile: Profile = load_profile("tournament-10")
    assert reader_where(profile.readers["seat3"]) == (
        "seat node 3 on /dev/pitboss-seat3, cards antenna")
    assert reader_where(profile.readers["seat3"], "/tmp/x/pitboss-seat3") == (
        "seat node 3 on /dev/pitboss-seat3 (opened as /tmp/x/pitboss-seat3), cards antenna")
    assert light_where(profile.seats[0].light) == "LED ring of seat node 1 on /dev/pitboss-seat1"


# ------------------------------------------------------------------ simulated seat nodes
SIM_PROFILE = TWO_NODES.replace("/dev/pitboss-a", "/dev/pitboss-seat1").replace(
    "/dev/pitboss-b", "/dev/pitboss-seat2").replace("NODE", "1")
SIM_UID = "04c0ffee000042"


class Lines:
    """A process's output lines, read on a thread of their own."""

    def __init__(self, stream: IO[str]) -> None:
        self.queue: queue.Queue[str | None] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._pump, args=(stream,), daemon=True).start()

    def _pump(self, stream: IO[str]) -> None:
        for line in stream:
            self.queue.put(line.rstrip("\n"))
        self.queue.put(None)

    def next(self, timeout: float = 30.0) -> str | None:
        line = self.queue.get(timeout=timeout)
        if line is not None:
            self.seen.append(line)
        return line

    def wait_for(self, prefix: str, timeout: float = 30.0) -> str:
        deadline = time.monotonic() + timeout
        while (line := self.next(max(0.1, deadline - time.monotonic()))) is not None:
            if line.startswith(prefix):
                return line
        raise AssertionError(f"no line starting {prefix!r} in {self.seen}")


def test_the_command_checks_seat_nodes_simulated_on_micropython_end_to_end(
    tmp_path: Path,
) -> None:
    """Two seat nodes running the real firmware on MicroPython behind pseudo-terminals
    (``pitboss hardware simulate``), checked by ``pitboss hardware check --seat-ports``:
    each node's firmware and seat id from its hello; each seat-node reader's read rate,
    the card placed on the simulated chip when the command asks for it; each ring lit,
    answered yes on the command's stdin only once the node reported its ring green."""
    node = shutil.which("node")
    if node is None or not (ROOT / "tests/firmware/mpy/node_modules/@micropython").is_dir():
        missing("node or the MicroPython npm package is absent (npm ci in tests/firmware/mpy)")
    profile = tmp_path / "two.toml"
    profile.write_text(SIM_PROFILE)
    ports = tmp_path / "ports"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}
    sim = subprocess.Popen(
        [sys.executable, "-m", "tests.firmware.simnodes", str(profile), "--dir", str(ports)],
        cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
    check: subprocess.Popen[str] | None = None
    try:
        assert sim.stdin is not None and sim.stdout is not None
        nodes = Lines(sim.stdout)
        nodes.wait_for("READY seats=1,2", timeout=60)
        check = subprocess.Popen(
            [sys.executable, "-m", "controller.cli", "hardware", "check", str(profile),
             "--backend", "mock", "--seat-ports", str(ports), "--only", "nodes,readers,lights",
             "--seconds", "0.5", "--wait", "10", "--report", str(tmp_path / "r.txt")],
            cwd=tmp_path, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
        assert check.stdin is not None and check.stdout is not None
        out = Lines(check.stdout)
        antenna = {"seat": 0, "player": 2}  # the firmware's readers: 0, 1 hole cards; 2 player
        while (line := out.next(60)) is not None:
            place = re.match(r"> Put the test card on reader (seat|player)(\d) \(seat node", line)
            lift = re.match(r"> Take the card off (seat|player)(\d)\.", line)
            light = re.match(r"Is seat (\d)'s light on \(green\)\?", line)
            if place:
                sim.stdin.write(f"place {place[2]} {antenna[place[1]]} {SIM_UID}\n")
            elif lift:
                sim.stdin.write(f"lift {lift[2]} {antenna[lift[1]]}\n")
            elif light:  # the node's own report: its ring in TURN mode, green
                ring = nodes.wait_for(f"ring {light[1]} 2 0,200,60", timeout=10)
                check.stdin.write("y\n" if ring else "n\n")
                check.stdin.flush()
            sim.stdin.flush()
        assert check.wait(timeout=30) == 0, "\n".join(out.seen)
    finally:
        if check is not None and check.poll() is None:
            check.kill()
        if sim.stdin is not None:
            with contextlib.suppress(BrokenPipeError):
                sim.stdin.write("quit\n")
                sim.stdin.flush()
        try:
            sim.wait(timeout=10)
        except subprocess.TimeoutExpired:
            sim.kill()
    data = json.loads((tmp_path / "r.json").read_text())
    steps = {(s["part"], s["check"]): s for s in data["steps"]}
    version = ".".join(map(str, FIRMWARE_VERSION))
    assert steps[("seat node 1", "firmware")]["detail"] == f"firmware {version}, seat 1"
    assert steps[("seat node 2", "firmware")]["detail"] == f"firmware {version}, seat 2"
    for name in ("seat1", "player1", "seat2", "player2"):
        read = steps[(f"reader {name}", "read rate")]
        assert read["status"] == "pass" and read["figures"]["read_rate"] == 1.0, read
        assert "(opened as " in read["where"]
    assert [steps[(f"seat {n} light", "lit")]["status"] for n in (1, 2)] == ["pass", "pass"]
    assert data["ok"] is True
