"""``pitboss firmware deploy``: the file list and the mpremote command it runs (no board here)."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from controller import firmware_deploy as fd


def fake_mpremote(tmp_path: Path, exit_code: int = 0) -> tuple[Path, Path]:
    log = tmp_path / "calls.txt"
    tool = tmp_path / "mpremote"
    tool.write_text(
        f'#!/bin/sh\nprintf "%s\\n" "$@" > {log}\n'
        f'for a in "$@"; do case "$a" in */seat_config.py) cat "$a" >> {log};; esac; done\n'
        f"exit {exit_code}\n"
    )
    tool.chmod(tool.stat().st_mode | stat.S_IEXEC)
    return tool, log


def test_every_firmware_module_goes_to_the_board_and_main_to_its_root() -> None:
    pairs = fd.firmware_files()
    remote = [r for _, r in pairs]
    for name in ("link.py", "seatnode.py", "debounce.py", "leds.py", "mfrc522.py", "__init__.py"):
        assert f":firmware/{name}" in remote
    assert remote[-1] == ":main.py"
    assert all(local.exists() for local, _ in pairs)


def test_deploy_runs_one_mpremote_call_with_the_port_and_the_seat(tmp_path: Path) -> None:
    tool, log = fake_mpremote(tmp_path)
    port = tmp_path / "ttyACM0"
    port.touch()
    assert fd.main([str(port), "--seat", "5", "--mpremote", str(tool)]) == 0
    args = log.read_text().splitlines()
    assert args[:3] == ["connect", str(port), "exec"]
    assert ":firmware/link.py" in args and ":main.py" in args and ":seat_config.py" in args
    assert args[-2] == "soft-reset"  # the last line is the seat file's contents
    assert args[-1] == "SEAT = 5"


def test_a_missing_port_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tool, log = fake_mpremote(tmp_path)
    assert fd.main(["/dev/ttyNOPE9", "--mpremote", str(tool)]) == 2
    assert "/dev/ttyNOPE9 does not exist" in capsys.readouterr().err
    assert not log.exists()


def test_missing_mpremote_is_a_clear_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(fd.shutil, "which", lambda name: None)
    monkeypatch.setattr(fd.sys, "executable", str(tmp_path / "python"))
    assert fd.main(["/dev/ttyACM0"]) == 2
    assert "pip install mpremote" in capsys.readouterr().err


def test_a_failing_mpremote_fails_the_deploy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tool, _ = fake_mpremote(tmp_path, exit_code=1)
    assert fd.main(["auto", "--mpremote", str(tool)]) == 1
    assert "mpremote failed" in capsys.readouterr().err


def test_a_seat_out_of_range_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert fd.main(["auto", "--seat", "300", "--dry-run"]) == 2
