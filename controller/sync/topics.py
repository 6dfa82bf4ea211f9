"""MQTT topic names (DESIGN.md, Wire format): one place builds and parses them."""

from __future__ import annotations

from dataclasses import dataclass

PREFIX = "pitboss/v1"


def _check_level(value: str, what: str) -> str:
    if not value or any(ch in value for ch in "/+#\x00"):
        raise ValueError(f"{what} {value!r} cannot be a topic level (empty, or has / + # NUL)")
    return value


@dataclass(frozen=True, slots=True)
class Topics:
    """The topics of one table at one site, ``pitboss/v1/{site}/...``."""

    site: str
    table: str

    def __post_init__(self) -> None:
        _check_level(self.site, "site")
        _check_level(self.table, "table id")

    @property
    def root(self) -> str:
        """``pitboss/v1/{site}``."""
        return f"{PREFIX}/{self.site}"

    @property
    def status(self) -> str:
        """Retained ``online``/``offline``; the Will sets ``offline``."""
        return f"{self.root}/table/{self.table}/status"

    @property
    def state(self) -> str:
        """Retained public snapshot, never hole cards."""
        return f"{self.root}/table/{self.table}/state"

    @property
    def event(self) -> str:
        """Each accepted event, seq strictly increasing."""
        return f"{self.root}/table/{self.table}/event"

    @property
    def secure_cards(self) -> str:
        """Hole cards; only the host may read it (broker ACL)."""
        return f"{self.root}/table/{self.table}/secure/cards"

    @property
    def cmd(self) -> str:
        """Commands from the host."""
        return f"{self.root}/table/{self.table}/cmd"

    @property
    def reply(self) -> str:
        """Replies to commands."""
        return f"{self.root}/table/{self.table}/reply"

    @property
    def ack(self) -> str:
        """Acks and resend requests from the host for this table."""
        return f"{self.root}/host/ack/{self.table}"

    @property
    def host_status(self) -> str:
        """The host's retained ``{online, ts}``."""
        return f"{self.root}/host/status"


def site_wildcards(site: str) -> dict[str, str]:
    """Subscriptions a host uses to watch every table of a site (``+`` for the table)."""
    root = f"{PREFIX}/{_check_level(site, 'site')}/table/+"
    return {name: f"{root}/{name}" for name in
            ("status", "state", "event", "secure/cards", "reply")}


def table_of(topic: str) -> str | None:
    """The table id in a ``.../table/{id}/...`` topic, or None."""
    parts = topic.split("/")
    try:
        at = parts.index("table", 3)
    except ValueError:
        return None
    return parts[at + 1] if at + 1 < len(parts) else None
