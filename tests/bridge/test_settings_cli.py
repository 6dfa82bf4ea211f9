"""Settings from a TOML file and the environment, errors that name the field and the
source, and ``pitboss bridge run`` refusing bad settings before it serves anything."""

from __future__ import annotations

from pathlib import Path

import pytest

from host_bridge.cli import main
from host_bridge.settings import Role, SettingsError, load_settings

TOML = """\
site = "casino-7"
command_timeout_s = 2.5
hole_card_delay_s = 45

[[tokens]]
name = "floor-anna"
role = "floor"
token = "anna-0123456789abcdef"

[[tokens]]
name = "tv"
role = "broadcast"
token = "tv-0123456789abcdef"
"""


def test_a_toml_file_sets_everything_and_the_environment_overrides_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "bridge.toml"
    path.write_text(TOML)
    monkeypatch.setenv("PITBOSS_BRIDGE_COMMAND_TIMEOUT_S", "9")
    settings = load_settings(path)
    assert settings.site == "casino-7"
    assert settings.hole_card_delay_s == 45
    assert settings.command_timeout_s == 9  # the environment wins over the file
    assert [(t.name, t.role) for t in settings.tokens] == [("floor-anna", Role.FLOOR),
                                                           ("tv", Role.BROADCAST)]
    assert "anna-0123456789abcdef" not in repr(settings)  # tokens are secrets


def test_the_config_path_can_come_from_the_environment(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "bridge.toml"
    path.write_text(TOML)
    monkeypatch.setenv("PITBOSS_BRIDGE_CONFIG", str(path))
    assert load_settings().site == "casino-7"


def test_defaults_without_a_file(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PITBOSS_BRIDGE_CONFIG", raising=False)
    settings = load_settings()
    assert settings.database_url.startswith("sqlite:///") and settings.tokens == ()


@pytest.mark.parametrize(("text", "message"), [
    ("command_timeout_s = 0\n", "command_timeout_s: Input should be greater than 0"),
    ("[[tokens]]\nname = \"x\"\nrole = \"king\"\ntoken = \"0123456789abcdefgh\"\n",
     "tokens.0.role: Input should be"),
    ("[[tokens]]\nname = \"x\"\nrole = \"admin\"\ntoken = \"short\"\n",
     "a token must be at least 16 characters"),
    ("colour = 3\n", "colour: Extra inputs are not permitted"),
    ("site = \n", "is not valid TOML"),
])
def test_bad_settings_name_the_field_and_the_file(tmp_path: Path, text: str,
                                                  message: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(SettingsError) as caught:
        load_settings(path)
    assert message in str(caught.value)
    assert str(path) in str(caught.value)


def test_a_missing_settings_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(SettingsError, match="does not exist"):
        load_settings(tmp_path / "nope.toml")


def test_bridge_run_exits_2_on_bad_settings(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.toml"
    path.write_text("listen_port = 0\n")
    assert main(["run", "--config", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("pitboss bridge: invalid bridge settings")
    assert "listen_port" in err


def test_bridge_run_exits_2_when_the_store_cannot_be_opened(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "ok.toml"
    path.write_text(TOML)
    bad_db = f"sqlite:///{tmp_path / 'no-such-dir' / 'x.db'}"
    assert main(["run", "--config", str(path), "--database-url", bad_db]) == 2
    assert "cannot migrate the store" in capsys.readouterr().err
