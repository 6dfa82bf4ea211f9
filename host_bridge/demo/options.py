"""What one ``pitboss demo`` run is asked for, checked before anything starts; read by the
run (:mod:`.floor`) and by the game its tables play (:mod:`.game`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


class DemoError(Exception):
    """The demo cannot run as asked; the message says what to change."""


@dataclass(frozen=True, slots=True)
class DemoOptions:
    """``pitboss demo``'s options."""

    tables: int = 4
    players: int = 24
    speed: float = 20.0
    broker: str | None = None
    host: str = "127.0.0.1"
    port: int = 8000
    data: Path | None = None
    headless: bool = False
    until_winner: bool = False
    minutes: float | None = None
    seed: str = "demo"
    mode: str = "auto"  # "tournament", "cash", or "auto": a tournament when the floor can run one

    def check(self) -> None:
        """:class:`DemoError` for options that cannot work together."""
        if not 1 <= self.tables <= 20:
            raise DemoError(f"--tables {self.tables}: run 1 to 20 tables")
        if not 2 * self.tables <= self.players <= 9 * self.tables:
            raise DemoError(f"--players {self.players} do not fit {self.tables} table(s): "
                            f"give {2 * self.tables} to {9 * self.tables} players")
        if not 0 < self.speed <= 1000:
            raise DemoError(f"--speed {self.speed}: give a factor above 0 (1 = real time)")
        if self.minutes is not None and self.minutes <= 0:
            raise DemoError("--minutes must be above 0")
