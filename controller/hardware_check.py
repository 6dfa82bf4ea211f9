"""``pitboss hardware check PROFILE``: commission a table with a technician at it.

The walk itself is ``controller/devices/commissioning.py``; this module is its wiring:
options, the backend by name, the seat-node lines (the real ports, or ``--seat-ports DIR``
where simulated nodes sit behind pseudo-terminals named like the profile's ports), the
person (a console technician; on the mock backend the mock's own hands), the report
printed and written. It sits at the top, beside ``table_runner.py``, because it tells
the seat nodes' firmware version it expects from ``firmware/seatnode.py``, which the
device layer may not import.

Exit status: 0 when every check passed (or was skipped), 1 when one failed, 130 on
Ctrl-C (the report so far is written, marked interrupted).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
from datetime import datetime
from pathlib import Path

from controller.devices.backends import backend_factory
from controller.devices.commissioning import SECTIONS, Pace, RealPace, Settings, VirtualPace, Walk
from controller.devices.commissioning_bench import (
    KeypadCheck,
    PartMaker,
    SeatLines,
    one_line,
    open_bench,
)
from controller.devices.commissioning_report import Report
from controller.devices.errors import DeviceError, UnknownBackendError
from controller.devices.keypad import read_keys
from controller.devices.profile import Profile, load_profile
from controller.devices.seatlines import seat_ports
from controller.devices.seatlink import (
    SeatNodeLink,
    SeatNodeLinks,
    open_seat_link,
    profile_reader_name,
)
from controller.devices.technicians import ConsoleTechnician, MockHands, Technician
from controller.terminal.keymap import load_keymap
from firmware.seatnode import FIRMWARE_VERSION


def _sections(text: str) -> tuple[str, ...]:
    chosen = tuple(s.strip() for s in text.split(",") if s.strip())
    unknown = [s for s in chosen if s not in SECTIONS]
    if unknown or not chosen:
        raise argparse.ArgumentTypeError(
            f"unknown section {', '.join(unknown) or repr(text)}: choose from {', '.join(SECTIONS)}"
        )
    return chosen


def _fraction(text: str) -> float:
    value = float(text)
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"{text} is not a fraction in (0, 1], e.g. 0.95")
    return value


def _positive(text: str) -> float:
    value = float(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text} is not a positive number of seconds")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pitboss hardware check",
        description="Commission a table: a test card on each reader in turn (read rate and "
        "misses per antenna), each key, each seat light, the buzzer, a test frame on each "
        "display, each seat node's firmware. Prints a report and writes it as text and JSON.",
    )
    parser.add_argument("profile", help="board profile: a name in hardware/ or a path")
    parser.add_argument("--backend", default=None,
                        help="device backend (default: the profile's; 'mock' for a dry run)")
    parser.add_argument("--seat-ports", metavar="DIR", type=Path, default=None,
                        help="open each seat node's port as DIR/<its name> (simulated nodes: "
                        "'pitboss hardware simulate PROFILE --dir DIR')")
    parser.add_argument("--seconds", type=_positive, default=3.0,
                        help="seconds of scans per antenna while the card lies there (3)")
    parser.add_argument("--wait", type=_positive, default=15.0,
                        help="seconds to wait for a card, a key press or a node's hello (15)")
    parser.add_argument("--min-rate", type=_fraction, default=0.95,
                        help="an antenna reading the card in fewer of its scans is weak (0.95)")
    parser.add_argument("--only", type=_sections, default=SECTIONS, metavar="SECTIONS",
                        help=f"check only these, comma-separated: {', '.join(SECTIONS)}")
    parser.add_argument("--report", type=Path, default=None, metavar="FILE",
                        help="write the report here as text, and as JSON beside it (default: "
                        "commissioning-PROFILE-TIME.txt/.json in the current directory)")
    return parser


async def open_lines(
    profile: Profile, backend: str, ports_dir: Path | None
) -> tuple[SeatLines | None, list[SeatNodeLink]]:
    """The profile's seat-node lines, each opened on its own (a port that does not open is
    kept with its reason, and the others are still checked: ``seatlines.SeatLines``, the
    running table's, opens all or none); None where there are none to open (the mock
    without --seat-ports)."""
    ports = seat_ports(profile, ports_dir)
    if not ports or (backend == "mock" and ports_dir is None):
        return None, []
    lines: dict[str, SeatNodeLink] = {}
    errors: dict[str, str] = {}
    paths: dict[str, str] = {}
    for port in ports:
        paths[port.port] = port.path
        try:
            link = await open_seat_link(port.path, reader_name=profile_reader_name(profile))
        except DeviceError as exc:
            errors[port.port] = one_line(exc)
            continue
        link.start()
        lines[port.port] = link
    seam = SeatNodeLinks(list(lines.values()), profile=profile)
    return SeatLines(seam, lines, errors, paths), list(lines.values())


def keypad_check(profile: Profile) -> KeypadCheck | None:
    """The profile's USB keypad with the keys its map names; None without one (or a mock)."""
    spec = profile.keypad
    if spec is None or spec.kind != "evdev" or spec.device is None:
        return None
    keymap = load_keymap(spec.map)
    device, names = spec.device, keymap.keys()
    return KeypadCheck(
        f"USB keypad at {device}, key map {spec.map}",
        tuple((key, keymap.cap(key)) for key in names),
        lambda: read_keys(device, keymap.by_code(), profile=profile.source),
    )


def default_report_path(profile: Profile) -> Path:
    return Path.cwd() / f"commissioning-{profile.name}-{datetime.now():%Y%m%d-%H%M%S}.txt"


async def check(args: argparse.Namespace, profile: Profile, console: ConsoleTechnician) -> Report:
    backend = args.backend or profile.backend
    maker = backend_factory(backend)()
    if not isinstance(maker, PartMaker):
        raise UnknownBackendError(
            f"the {backend!r} backend builds whole tables only, so it cannot be commissioned "
            "part by part: use --backend real or mock"
        )
    lines, links = await open_lines(profile, backend, args.seat_ports)
    bench = open_bench(profile, maker, backend=backend, lines=lines, keypad=keypad_check(profile))
    technician: Technician = console
    pace: Pace = RealPace()
    if backend == "mock":
        # the mock's parts are done by its hands; a simulated seat node's by whoever
        # drives the simulator (`pitboss hardware simulate`: place N R UID), told here
        technician = MockHands(bench, console, helper=console if lines is not None else None)
        if lines is None:
            pace = VirtualPace()  # nothing outside the process keeps time: seconds cost nothing
    settings = Settings(seconds=args.seconds, wait_s=args.wait, min_rate=args.min_rate,
                        sections=args.only, firmware=FIRMWARE_VERSION)
    walk = Walk(bench, technician, pace=pace, settings=settings)
    try:
        return await walk.run()
    except asyncio.CancelledError:  # Ctrl-C: what was found so far is worth keeping
        _write(walk.report(complete=False), args, profile, console)
        raise
    finally:
        bench.close()
        for link in links:
            with contextlib.suppress(Exception):
                await link.aclose()


def _write(report: Report, args: argparse.Namespace, profile: Profile,
           console: ConsoleTechnician) -> None:
    text_path, json_path = report.write(args.report or default_report_path(profile))
    console.console.print()
    console.console.print(report.text(), markup=False, highlight=False, end="")
    console.progress(f"report written to {text_path} and {json_path}")


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    profile = load_profile(args.profile)
    console = ConsoleTechnician()
    report = asyncio.run(check(args, profile, console))
    _write(report, args, profile, console)
    return 0 if report.ok else 1
