"""The host bridge's settings: one :class:`BridgeSettings`, read from the arguments, then
``PITBOSS_BRIDGE_*`` environment variables, then a TOML file, then the defaults.

Tokens are secrets: they are :class:`~pydantic.SecretStr` and never printed. In TOML::

    database_url = "sqlite:///pitboss-bridge.db"
    hole_card_delay_s = 30

    [[tokens]]
    name = "floor-1"
    role = "floor"
    token = "a long random string"
"""

from __future__ import annotations

import os
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    FilePath,
    SecretStr,
    ValidationError,
    field_validator,
)
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

CONFIG_ENV = "PITBOSS_BRIDGE_CONFIG"  # path of the TOML file, when no path is given
#: the shipped house files (deploy/houses in the checkout the bridge runs from)
DEFAULT_HOUSES_DIR = Path(__file__).resolve().parent.parent / "deploy" / "houses"


class Role(StrEnum):
    """Who a token speaks for; each route names the roles it admits."""

    VIEWER = "viewer"
    FLOOR = "floor"
    DIRECTOR = "director"
    BROADCAST = "broadcast"
    ADMIN = "admin"


class TokenGrant(BaseModel):
    """One bearer token, the name the audit log records for it, and its role."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: Annotated[str, Field(min_length=1, max_length=64)]
    role: Role
    token: SecretStr

    @field_validator("token")
    @classmethod
    def _long_enough(cls, value: SecretStr) -> SecretStr:
        if len(value.get_secret_value()) < 16:
            raise ValueError("a token must be at least 16 characters (use a random string)")
        return value


class SettingsError(Exception):
    """The bridge's settings are invalid; the message names the field and the source."""


class BridgeSettings(BaseSettings):
    """Everything the bridge is configured with."""

    model_config = SettingsConfigDict(env_prefix="PITBOSS_BRIDGE_", extra="forbid",
                                      toml_file=None)

    database_url: str = "sqlite:///pitboss-bridge.db"
    site: Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.:-]+$")] = \
        "floor"
    bridge_id: Annotated[str, Field(min_length=1, max_length=64,
                                    pattern=r"^[A-Za-z0-9_.:-]+$")] = "bridge-1"
    listen_host: str = "127.0.0.1"
    listen_port: Annotated[int, Field(ge=1, le=65535)] = 8080
    mqtt_host: str = "127.0.0.1"
    mqtt_port: Annotated[int, Field(ge=1, le=65535)] = 1883
    # a floor broker with TLS and passwords (deploy/mosquitto): the bridge's login there
    mqtt_username: str | None = None
    mqtt_password: SecretStr | None = None
    mqtt_tls_ca: FilePath | None = None  # CA file: connect with TLS, verifying the broker
    command_timeout_s: Annotated[float, Field(gt=0, le=300)] = 5.0
    hole_card_delay_s: Annotated[float, Field(ge=0, le=3600)] = 30.0
    # a table's one outstanding resend request is asked again only after this many seconds
    # in which its contiguous seq did not move (#17)
    resend_after_s: Annotated[float, Field(gt=0, le=300)] = 2.0
    # the house files the floor may put on a table (GET /api/v1/houses, issue 18)
    houses_dir: Path = DEFAULT_HOUSES_DIR
    # the floor's alert "hand taking unusually long" (issue 20): a hand open longer than
    # this, or than this many times the table's median hand (host_bridge/alerts.py)
    hand_too_long_s: Annotated[float, Field(gt=0, le=86400)] = 600.0
    hand_too_long_factor: Annotated[float, Field(gt=1, le=100)] = 3.0
    tokens: tuple[TokenGrant, ...] = ()

    @field_validator("tokens")
    @classmethod
    def _distinct(cls, grants: tuple[TokenGrant, ...]) -> tuple[TokenGrant, ...]:
        secrets = [g.token.get_secret_value() for g in grants]
        if len(set(secrets)) != len(secrets):
            raise ValueError("two grants share one token; give each its own")
        return grants

    @classmethod
    def settings_customise_sources(
        cls, settings_cls: type[BaseSettings], init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource, dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (init_settings, env_settings, TomlConfigSettingsSource(settings_cls))


def load_settings(config: Path | None = None, **overrides: Any) -> BridgeSettings:
    """Settings from ``config`` (or ``$PITBOSS_BRIDGE_CONFIG``), the environment and
    ``overrides``; :class:`SettingsError` says which field is wrong and where."""
    path = config if config is not None else (
        Path(os.environ[CONFIG_ENV]) if os.environ.get(CONFIG_ENV) else None)
    if path is not None and not path.is_file():
        raise SettingsError(f"settings file {path} does not exist; pass an existing TOML "
                            f"file or unset {CONFIG_ENV}")

    class _FromFile(BridgeSettings):
        model_config = SettingsConfigDict(toml_file=path)

    try:
        return BridgeSettings.model_validate(_FromFile(**overrides).model_dump())
    except ValidationError as exc:
        where = f" (file {path} or PITBOSS_BRIDGE_* variables)" if path else \
            " (PITBOSS_BRIDGE_* variables or arguments)"
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'settings'}: {e['msg']}"
                             for e in exc.errors()[:5])
        raise SettingsError(f"invalid bridge settings{where}: {problems}") from None
    except ValueError as exc:  # a TOML syntax error
        raise SettingsError(f"settings file {path} is not valid TOML: {exc}") from None
