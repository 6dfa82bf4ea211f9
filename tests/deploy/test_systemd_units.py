"""The systemd units in deploy/systemd stay true to the command line they start: the table
unit's ExecStart, with the example environment file filled in, is a valid ``pitboss table``
command naming a shipped board profile; the bridge unit starts ``pitboss bridge run``
with a settings file the bridge accepts."""

from __future__ import annotations

import configparser
import shlex
from pathlib import Path

import pytest

from controller.devices.profile import load_profile
from controller.table_runner import build_parser
from host_bridge.settings import load_settings

ROOT = Path(__file__).resolve().parents[2]
UNITS = ROOT / "deploy" / "systemd"
INSTALLED = "/opt/pitboss/"  # where the units expect the checkout


def _unit(name: str) -> configparser.SectionProxy:
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read(UNITS / name)
    return parser["Service"]


def _env(name: str) -> dict[str, str]:
    pairs = (line.split("=", 1) for line in (UNITS / name).read_text().splitlines()
             if line.strip() and not line.startswith("#"))
    return {key: value for key, value in pairs}


def _argv(exec_start: str, env: dict[str, str]) -> list[str]:
    for key, value in env.items():
        exec_start = exec_start.replace("${" + key + "}", value)
    assert "${" not in exec_start, f"an unset variable in {exec_start}"
    return shlex.split(exec_start.replace(INSTALLED, f"{ROOT}/"))


def test_the_table_unit_starts_a_valid_table_command_on_a_shipped_profile() -> None:
    service = _unit("pitboss-table.service")
    argv = _argv(service["ExecStart"], _env("table.env"))
    assert Path(argv[0]).name == "pitboss" and argv[1:3] == ["table", "run"]
    args = build_parser().parse_args(argv[2:])
    assert load_profile(args.profile).seats  # the example names a profile that loads
    assert args.mqtt_user == args.table  # the broker's ACL (%u) is keyed on the table id
    assert args.mqtt_ca and args.mqtt_password_file and args.db.startswith("/var/lib/pitboss/")
    assert service["StateDirectory"] == "pitboss" and service["Restart"] == "always"


def test_the_bridge_unit_starts_the_bridge_with_its_settings_file(tmp_path: Path) -> None:
    service = _unit("pitboss-bridge.service")
    argv = shlex.split(service["ExecStart"])
    assert argv[1:] == ["bridge", "run", "--config", "/etc/pitboss/bridge.toml"]
    (tmp_path / "ca.crt").write_text("a CA certificate\n")
    example = (ROOT / "deploy" / "bridge.toml").read_text()
    assert "/etc/pitboss/ca.crt" in example
    (tmp_path / "bridge.toml").write_text(example.replace("/etc/pitboss/", f"{tmp_path}/"))
    settings = load_settings(tmp_path / "bridge.toml")
    assert settings.mqtt_port == 8883 and settings.mqtt_tls_ca is not None
    assert settings.mqtt_username == "bridge1"  # one login per bridge (issue 17)


@pytest.mark.parametrize("unit", sorted(p.name for p in UNITS.glob("*.service")))
def test_every_unit_runs_as_the_pitboss_user_and_restarts(unit: str) -> None:
    service = _unit(unit)
    assert service["User"] == "pitboss" and service["Restart"] == "always"
