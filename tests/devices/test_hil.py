"""``pytest --hil PROFILE`` as a person runs it, in a subprocess: the option is known from
the checkout's root, only the contract suite runs, the reader tests take part (on the
mock, ``--hil virtual`` is the dry run), a real part is asked about on the terminal and
answered on stdin, and a table that cannot be opened fails in one line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

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
