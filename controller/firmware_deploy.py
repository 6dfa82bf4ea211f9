"""``pitboss firmware deploy PORT``: install the seat-node firmware on a board with mpremote.

Copies ``firmware/*.py`` to ``/firmware/`` on the board and ``firmware/main.py`` to
``/main.py`` (what MicroPython runs at boot); with ``--seat N`` it also writes
``/seat_config.py`` so the node says hello as seat N. Then it soft-resets the board.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

FIRMWARE_DIR = Path(__file__).resolve().parents[1] / "firmware"
SKIP = {"pyrightconfig.json"}
_MKDIR = "import os\ntry:\n os.mkdir('/firmware')\nexcept OSError:\n pass"


def firmware_files(firmware_dir: Path = FIRMWARE_DIR) -> list[tuple[Path, str]]:
    """(local file, path on the board) for every file a node needs, main.py last."""
    files = sorted(p for p in firmware_dir.glob("*.py") if p.name not in SKIP)
    if not any(p.name == "main.py" for p in files):
        raise FileNotFoundError(f"no main.py in {firmware_dir}")
    pairs = [(p, f":firmware/{p.name}") for p in files]
    pairs.append((firmware_dir / "main.py", ":main.py"))
    return pairs


def deploy_command(
    mpremote: str, port: str, files: list[tuple[Path, str]], extra: list[tuple[Path, str]]
) -> list[str]:
    """One mpremote invocation: connect, make /firmware, copy each file, soft-reset."""
    # `fs mkdir` fails when the folder exists (a second deploy): make it from Python instead
    cmd = [mpremote, "connect", port, "exec", _MKDIR, "+"]
    for local, remote in [*files, *extra]:
        cmd += ["fs", "cp", str(local), remote, "+"]
    cmd += ["soft-reset"]
    return cmd


def _port_exists(port: str) -> bool:
    # mpremote also takes shortcuts (a0, u0, c0...) and "auto"; only check real paths
    return not port.startswith("/") or Path(port).exists()


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="pitboss firmware deploy",
        description="Install the seat-node firmware on a MicroPython board with mpremote.",
    )
    parser.add_argument("port", help="serial port of the board, e.g. /dev/ttyACM0 (or 'auto')")
    parser.add_argument("--seat", type=int, help="seat id this node reports (0-254)")
    parser.add_argument("--mpremote", default=None, help="mpremote executable to use")
    parser.add_argument(
        "--dry-run", action="store_true", help="print the mpremote command, run nothing"
    )
    args = parser.parse_args(argv)

    if args.seat is not None and not 0 <= args.seat <= 254:
        print(f"{parser.prog}: error: --seat must be 0..254, not {args.seat}", file=sys.stderr)
        return 2
    mpremote = args.mpremote or shutil.which("mpremote")
    if mpremote is None:
        local = Path(sys.executable).parent / "mpremote"
        mpremote = str(local) if local.exists() else None
    if mpremote is None:
        print(
            f"{parser.prog}: mpremote is not installed. Install it with `pip install mpremote` "
            "(in the project's .venv; the table extra has it), then run this again.",
            file=sys.stderr,
        )
        return 2
    if not args.dry_run and not _port_exists(args.port):
        print(
            f"{parser.prog}: serial port {args.port} does not exist. Is the board plugged in? "
            "`mpremote connect list` shows the ports it sees.",
            file=sys.stderr,
        )
        return 2

    files = firmware_files()
    with tempfile.TemporaryDirectory() as tmp:
        extra: list[tuple[Path, str]] = []
        if args.seat is not None:
            seat_file = Path(tmp) / "seat_config.py"
            seat_file.write_text(f"SEAT = {args.seat}\n")
            extra.append((seat_file, ":seat_config.py"))
        cmd = deploy_command(mpremote, args.port, files, extra)
        if args.dry_run:
            print(" ".join(cmd))
            return 0
        print(f"copying {len(files) + len(extra)} files to {args.port} ...")
        try:
            proc = subprocess.run(cmd, check=False)
        except OSError as exc:
            print(f"{parser.prog}: cannot run {mpremote}: {exc}", file=sys.stderr)
            return 2
    if proc.returncode != 0:
        print(
            f"{parser.prog}: mpremote failed (exit {proc.returncode}) on {args.port}: is the board "
            "running MicroPython, and is no other program holding the port?",
            file=sys.stderr,
        )
        return 1
    print(f"seat-node firmware installed on {args.port}; the board has been reset")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
