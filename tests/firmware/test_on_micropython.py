"""The seat node's logic on real MicroPython (the WebAssembly port, under node).

``tests/firmware/mpy/run.mjs`` loads the npm package ``@micropython/micropython-webassembly-
pyscript``, writes ``firmware/*.py`` and the fakes into its filesystem and runs
``node_checks.py``. Needs ``node`` and ``npm ci`` run in ``tests/firmware/mpy``.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from tests.needs import missing

MPY = Path(__file__).parent / "mpy"
PACKAGE = MPY / "node_modules" / "@micropython" / "micropython-webassembly-pyscript"


def test_the_firmware_logic_passes_its_checks_on_micropython() -> None:
    node = shutil.which("node")
    if node is None:
        missing("node is not installed: the MicroPython (WebAssembly) checks need Node 20+")
    if not (PACKAGE / "micropython.mjs").is_file():
        missing(f"the MicroPython npm package is not installed: run `npm ci` in {MPY}")
    proc = subprocess.run(
        [node, "run.mjs", "node_checks.py"],
        cwd=MPY,
        capture_output=True,
        text=True,
        timeout=300,
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert "check_whole_node_from_main_build" in out
    assert " 0 failed" in out
    assert "FAIL" not in out


def test_a_failing_check_on_micropython_fails_the_run(tmp_path: Path) -> None:
    # the runner must not swallow a Python exception (or every check above would be moot)
    node = shutil.which("node")
    if node is None or not (PACKAGE / "micropython.mjs").is_file():
        missing(
            "node or the MicroPython npm package is absent (run `npm ci` in tests/firmware/mpy)"
        )
    script = tmp_path / "boom.py"
    script.write_text("from firmware import link\nassert link.crc16(b'x') == 0, 'boom'\n")
    proc = subprocess.run(
        [node, "run.mjs", str(script)], cwd=MPY, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 1
    assert "boom" in proc.stderr
