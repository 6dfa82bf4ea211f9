"""Simulated seat nodes behind pseudo-terminals: the real firmware, on MicroPython, on the
serial ports a profile names.

    pitboss hardware simulate tournament-10 --dir /tmp/seats
    pitboss table run --profile tournament-10 --backend mock --seat-ports /tmp/seats ...

Each node is ``firmware/``'s own ``SeatNode`` (built by ``firmware/main.py``, reading
simulated MFRC522 chips at register level) stepped on MicroPython's WebAssembly build under
node (``mpy/seatnodes.mjs`` and ``mpy/seatnodes.py``). Node cannot open a pseudo-terminal,
so this process does: one per node (``os.openpty``, raw mode), with ``DIR/pitboss-seatN``
(the base name of the profile's port) linked to its slave end, and it carries the bytes
between each master and the node process over that process's stdin and stdout. The
controller opens the links as it would open the USB serial ports, with pyserial.

Commands, one a line on stdin (a technician types them; tests write them):

    place N R UIDHEX   a card's tag on node N's reader R (0, 1: hole cards; 2: player card)
    lift N R           the card leaves node N's reader R
    press N            node N's seat button, pressed and released
    unplug N           node N's USB cable is pulled: its port vanishes and it loses power
    plug N             plugged back: the port comes back (a new pty) and the node boots
    power N off|on     node N loses power (or hangs) while its line stays, as behind a
                       serial adapter or RS-485; on: it boots again (a new boot id)
    status             one line per node: its port and whether it is plugged in
    quit               (or end of input) close everything and exit

Reports, one a line on stdout:

    READY seats=1,2,... dir=DIR          every node booted and its port is there
    hello N MAJ.MIN.PATCH BOOT           node N booted: its firmware version and boot id
    card N R arrived|left UIDHEX at=T    a card frame of node N went onto its port (read
                                         back from the bytes; a retransmission is not
                                         repeated) at T, time.monotonic() (the benchmark's)
    ring N MODE R,G,B LOST               node N's LED ring changed (link.py's LED modes)
    unplugged N | plugged N PATH | power N off|on | node N PATH plugged|unplugged
    error TEXT                           a command that could not be carried out
"""

from __future__ import annotations

import argparse
import asyncio
import binascii
import contextlib
import os
import shutil
import subprocess
import sys
import time
import tty
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from firmware import link

MPY = Path(__file__).resolve().parent / "mpy"
SCRIPT = MPY / "seatnodes.mjs"
PACKAGE = MPY / "node_modules" / "@micropython" / "micropython-webassembly-pyscript"
BOOT_S = 60.0  # an upper bound for MicroPython to load on a slow, shared machine


class SimulatorError(Exception):
    """The simulator cannot start or was asked something it cannot do; one line."""


def node_command() -> list[str]:
    """``node`` and the script, or ``SimulatorError`` saying what to install."""
    node = shutil.which("node")
    if node is None:
        raise SimulatorError("node is not installed: the simulated seat nodes run MicroPython "
                             "(WebAssembly) under Node 20+ (Debian: apt-get install nodejs)")
    if not (PACKAGE / "micropython.mjs").is_file():
        npm = shutil.which("npm")
        if npm is None:
            raise SimulatorError(f"MicroPython's npm package is not installed and npm is "
                                 f"missing: install npm, then run `npm ci --prefix {MPY}`")
        print(f"installing MicroPython (WebAssembly): npm ci --prefix {MPY}", file=sys.stderr)
        done = subprocess.run([npm, "ci", "--prefix", str(MPY), "--no-audit", "--no-fund",
                               "--loglevel=error"], capture_output=True, text=True)
        if done.returncode != 0:
            raise SimulatorError(f"`npm ci --prefix {MPY}` failed: "
                                 + " ".join(done.stderr.split())[-300:])
    return [node, str(SCRIPT)]


def profile_seats(profile_name: str, directory: Path) -> dict[int, Path]:
    """node id -> the path of its simulated port, from the profile's seat-node ports."""
    from controller.devices.profile import load_profile
    from controller.devices.seatlines import seat_ports

    seats: dict[int, Path] = {}
    for port in seat_ports(load_profile(profile_name), directory):
        for node in port.nodes:
            seats[node] = Path(port.path)
    if not seats:
        raise SimulatorError(f"profile {profile_name} has no seat nodes to simulate "
                             "(try tournament-10)")
    return seats


@dataclass
class NodePort:
    """One simulated node's serial port: a pseudo-terminal, its slave linked at ``path``.

    The slave end stays open here too, so the line lives while the controller reopens it;
    ``close`` is the cable pulled: the controller's reads fail and the path is gone."""

    seat: int
    path: Path
    master: int | None = None
    slave: int | None = None

    def open(self) -> None:
        master, slave = os.openpty()
        tty.setraw(slave)  # no echo, no line discipline: bytes as a UART carries them
        os.set_blocking(master, False)
        self.master, self.slave = master, slave
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        self.path.symlink_to(os.ttyname(slave))

    def close(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        for fd in (self.master, self.slave):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self.master = self.slave = None

    @property
    def plugged(self) -> bool:
        return self.master is not None


@dataclass
class SeatNodeSimulator:
    """The node process and the ports; ``async with`` it, then ``await command(line)``."""

    ports: dict[int, Path]
    loop_ms: int = 5
    report: Callable[[str], None] = field(default=lambda line: print(line, flush=True))
    _lines: dict[int, NodePort] = field(default_factory=dict)
    _proc: asyncio.subprocess.Process | None = None
    _pump: asyncio.Task[None] | None = None
    _wire: dict[int, tuple[Any, list[int]]] = field(default_factory=dict)  # decoder, last seq

    async def __aenter__(self) -> SeatNodeSimulator:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    async def start(self) -> None:
        command = node_command()
        for seat, path in self.ports.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            self._lines[seat] = NodePort(seat, path)
        seats = ",".join(map(str, self.ports))
        self._proc = await asyncio.create_subprocess_exec(
            *command, "--seats", seats, "--loop-ms", str(self.loop_ms), cwd=MPY,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
        assert self._proc.stdout is not None
        try:
            async with asyncio.timeout(BOOT_S):
                while True:
                    raw = await self._proc.stdout.readline()
                    if not raw:
                        raise SimulatorError("the seat-node process exited while booting "
                                             "(its error is above)")
                    line = raw.decode().strip()
                    if line.startswith("ready"):
                        break
                    if line.startswith("hello"):
                        self.report(line)
        except TimeoutError:
            await self.stop()
            raise SimulatorError(f"MicroPython did not boot the seat nodes in {BOOT_S:.0f} "
                                 "s") from None
        for port in self._lines.values():
            self._plug(port)
        self._pump = asyncio.create_task(self._from_nodes(), name="simnodes-pump")
        self.report(f"READY seats={seats} dir={next(iter(self.ports.values())).parent}")

    async def stop(self) -> None:
        loop = asyncio.get_running_loop()
        for line in self._lines.values():
            if line.master is not None:
                loop.remove_reader(line.master)
            line.close()
        if self._pump is not None:
            self._pump.cancel()
            await asyncio.gather(self._pump, return_exceptions=True)
        proc = self._proc
        if proc is not None and proc.returncode is None:
            assert proc.stdin is not None
            proc.stdin.close()  # the node process exits when its input ends
            try:
                await asyncio.wait_for(proc.wait(), 5)
            except TimeoutError:
                proc.kill()
                await proc.wait()

    # ------------------------------------------------------------------ the lines
    def _plug(self, line: NodePort) -> None:
        line.open()
        assert line.master is not None
        asyncio.get_running_loop().add_reader(line.master, self._from_port, line)

    def _from_port(self, line: NodePort) -> None:
        """Bytes the controller wrote to a node's port: to the node's UART."""
        assert line.master is not None
        try:
            data = os.read(line.master, 4096)
        except BlockingIOError:
            return
        except OSError:  # nobody at the other end just now
            return
        if data:
            self._send(f"rx {line.seat} {data.hex()}")

    def _send(self, text: str) -> None:
        proc = self._proc
        if proc is not None and proc.stdin is not None and not proc.stdin.is_closing():
            proc.stdin.write(text.encode() + b"\n")

    async def _from_nodes(self) -> None:
        proc = self._proc
        assert proc is not None and proc.stdout is not None
        while raw := await proc.stdout.readline():
            line = raw.decode().rstrip("\n")
            verb, _, rest = line.partition(" ")
            if verb == "tx":
                seat_text, _, data = rest.partition(" ")
                self._to_port(int(seat_text), binascii.unhexlify(data))
            else:
                self.report(line)
        self.report("error the seat-node process exited")

    def _to_port(self, seat: int, data: bytes) -> None:
        """Bytes a node wrote to its UART: onto its port (lost while it is unplugged, or
        when nobody reads the port and its buffer is full, as on a wire); the card frames
        among them are reported with the time they went."""
        port = self._lines.get(seat)
        if port is None or port.master is None:
            return
        with contextlib.suppress(BlockingIOError, OSError):
            os.write(port.master, data)
        at = time.monotonic()
        decoder, last = self._wire.setdefault(seat, (link.FrameDecoder(), [-1]))
        for frame in decoder.feed(data):
            if frame.ftype not in (link.T_CARD_ARRIVED, link.T_CARD_LEFT) or \
                    frame.seq == last[0]:
                continue  # not a card, or a retransmission of the one reported
            last[0] = frame.seq
            what = "arrived" if frame.ftype == link.T_CARD_ARRIVED else "left"
            self.report(f"card {seat} {frame.body[0]} {what} {bytes(frame.body[1:]).hex()} "
                        f"at={at:.6f}")

    # ------------------------------------------------------------------ commands
    async def command(self, text: str) -> bool:
        """Carry out one command line; False for ``quit``."""
        words = text.split()
        if not words:
            return True
        verb, args = words[0], words[1:]
        try:
            if verb == "quit":
                return False
            if verb == "status":
                for seat, port in self._lines.items():
                    state = "plugged" if port.plugged else "unplugged"
                    self.report(f"node {seat} {port.path} {state}")
                return True
            seat = int(args[0])
            line = self._lines.get(seat)
            if line is None:
                raise SimulatorError(f"no node {seat}: the nodes are "
                                     f"{', '.join(map(str, self._lines))}")
            if verb == "place":
                reader, uid = int(args[1]), bytes.fromhex(args[2])
                self._send(f"place {seat} {reader} {uid.hex()}")
            elif verb == "lift":
                self._send(f"lift {seat} {int(args[1])}")
            elif verb == "press":
                self._send(f"button {seat} 1")
                await asyncio.sleep(0.1)  # held longer than the node's debounce
                self._send(f"button {seat} 0")
            elif verb == "unplug":
                if line.master is not None:
                    asyncio.get_running_loop().remove_reader(line.master)
                line.close()
                self._wire.pop(seat, None)
                self._send(f"off {seat}")
                self.report(f"unplugged {seat}")
            elif verb == "power" and args[1:] in (["off"], ["on"]):
                self._send(f"{args[1]} {seat}")
                self.report(f"power {seat} {args[1]}")
            elif verb == "plug":
                if not line.plugged:
                    self._plug(line)
                    self._send(f"on {seat}")
                self.report(f"plugged {seat} {line.path}")
            else:
                raise SimulatorError(f"unknown command {text.strip()!r}: place, lift, press, "
                                     "unplug, plug, power N off|on, status, quit")
        except (IndexError, ValueError):
            self.report(f"error {text!r}: see 'pitboss hardware simulate --help' for the "
                        "commands and their arguments")
        except SimulatorError as exc:
            self.report(f"error {exc}")
        return True


async def _serve(sim: SeatNodeSimulator) -> None:
    """Commands from stdin until ``quit`` or its end."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while raw := await reader.readline():
        if not await sim.command(raw.decode()):
            return


async def simulate(profile_name: str, directory: Path, loop_ms: int) -> None:
    async with SeatNodeSimulator(profile_seats(profile_name, directory), loop_ms=loop_ms) as sim:
        await _serve(sim)


def main(argv: Sequence[str] | None = None, prog: str | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog=prog, description="Seat nodes running the real firmware on MicroPython "
        "(WebAssembly, under node), each on a pseudo-terminal where the profile puts its "
        "serial port. Commands on stdin: place N R UIDHEX, lift N R, press N, unplug N, "
        "plug N, power N off|on, status, quit.")
    parser.add_argument("profile", help="board profile whose seat nodes to simulate, e.g. "
                        "tournament-10")
    parser.add_argument("--dir", required=True, type=Path,
                        help="where the ports go (DIR/pitboss-seatN); give the same DIR to "
                             "'pitboss table run --seat-ports DIR'")
    parser.add_argument("--loop-ms", type=int, default=5,
                        help="the nodes' main-loop period in ms (the firmware's LOOP_MS: 5)")
    args = parser.parse_args(argv)
    if args.loop_ms < 1:
        parser.error(f"--loop-ms {args.loop_ms}: give 1 or more")
    try:
        asyncio.run(simulate(args.profile, args.dir, args.loop_ms))
    except SimulatorError as exc:
        print(f"{prog or 'simnodes'}: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())


# ============================================================================ the client
class SimulatorProcess:
    """``pitboss hardware simulate`` as a subprocess, for the tests and the benchmark:
    ``send`` it commands, ``expect`` its reports (each line kept in ``lines``)."""

    def __init__(self, profile: str, directory: Path, *, loop_ms: int = 5) -> None:
        self.profile = profile
        self.directory = directory
        self.loop_ms = loop_ms
        self.lines: list[str] = []
        self.stderr = b""
        self._proc: asyncio.subprocess.Process | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._grew = asyncio.Event()

    async def __aenter__(self) -> SimulatorProcess:
        root = Path(__file__).resolve().parents[2]
        self._proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "controller.cli", "hardware", "simulate", self.profile,
            "--dir", str(self.directory), "--loop-ms", str(self.loop_ms), cwd=root,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE)
        self._tasks = [asyncio.create_task(self._read_out(), name="simulator-out"),
                       asyncio.create_task(self._read_err(), name="simulator-err")]
        await self.expect(r"^READY ", timeout=BOOT_S + 10)
        return self

    async def __aexit__(self, *exc: object) -> None:
        proc = self._proc
        if proc is not None and proc.returncode is None:
            with contextlib.suppress(ConnectionError):
                await self.send("quit")
            try:
                await asyncio.wait_for(proc.wait(), 10)
            except TimeoutError:
                proc.kill()
                await proc.wait()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _read_out(self) -> None:
        assert self._proc is not None and self._proc.stdout is not None
        while raw := await self._proc.stdout.readline():
            self.lines.append(raw.decode().rstrip("\n"))
            self._grew.set()
        self._grew.set()

    async def _read_err(self) -> None:
        assert self._proc is not None and self._proc.stderr is not None
        self.stderr = await self._proc.stderr.read()

    async def send(self, command: str) -> None:
        assert self._proc is not None and self._proc.stdin is not None
        self._proc.stdin.write(command.encode() + b"\n")
        await self._proc.stdin.drain()

    async def expect(self, pattern: str, *, since: int = 0, timeout: float = 30.0) -> str:
        """The first report line from index ``since`` on that matches ``pattern``
        (a regular expression), waiting for it at most ``timeout`` seconds."""
        import re

        wanted = re.compile(pattern)
        seen = since
        try:
            async with asyncio.timeout(timeout):
                while True:
                    for line in self.lines[seen:]:
                        if wanted.search(line):
                            return line
                    seen = len(self.lines)
                    proc = self._proc
                    if proc is not None and proc.returncode is not None:
                        break
                    self._grew.clear()
                    await self._grew.wait()
        except TimeoutError:
            pass
        raise AssertionError(f"the simulator did not report {pattern!r} in {timeout} s; its "
                             f"last lines: {self.lines[-8:]}; stderr: "
                             f"{self.stderr.decode(errors='replace')[-1500:]}")
