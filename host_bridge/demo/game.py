"""What the demo's tables play: a small tournament run by the bridge's director, or (where
the director cannot run one) cash games where the bots play on and on.

The tournament is created in the bridge's own :class:`~host_bridge.routes.director.DirectorRoom`
(the one its API serves), so the director page and the players' clock screen show the
demo's tournament live, and its podium once it is over.

A game names its tables, gives each controller its options, starts once the tables are
up, reports its standing to the terminal view, and closes before the tables stop.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from host_bridge.demo.options import DemoOptions
from host_bridge.demo.progress import Standing

if TYPE_CHECKING:
    from host_bridge.routes.director import DirectorRoom

log = logging.getLogger(__name__)


def table_ids(tables: int) -> list[str]:
    """``T1``, ``T2``, ... as the tables report themselves."""
    return [f"T{n}" for n in range(1, tables + 1)]


def share(players: int, tables: int) -> list[int]:
    """Players per table, as even as can be (the first tables take one more)."""
    base, extra = divmod(players, tables)
    return [base + (1 if n < extra else 0) for n in range(tables)]


class FloorGame(Protocol):
    """What the demo asks of a game."""

    def table_ids(self) -> list[str]:
        """The tables, by id."""

    def table_options(self, table: str) -> tuple[str, ...]:
        """Extra ``pitboss table run`` options for ``table``."""

    def description(self) -> str:
        """A few words for the terminal."""

    async def start(self, room: DirectorRoom) -> None:
        """Begin, the tables being up (``room``: the bridge's tournaments, as its API
        serves them)."""

    def tournament_id(self) -> str | None:
        """The tournament's id at the bridge (its pages' ``?t=``), once created."""

    def standing(self) -> Standing:
        """Where the game stands now."""

    def podium(self) -> list[str]:
        """The finishing places and prizes, best first, once the game is over."""

    def summary(self) -> list[str]:
        """Lines for the end of the run."""

    async def close(self) -> None:
        """Stop whatever the game runs in the bridge."""


class CashGame:
    """Cash tables: each seats its own bots (the players shared out) and deals on."""

    def __init__(self, options: DemoOptions, site: str) -> None:
        self.options = options
        self.site = site
        self._ids = table_ids(options.tables)
        self._players = dict(zip(self._ids, share(options.players, options.tables),
                                 strict=True))

    def table_ids(self) -> list[str]:
        return list(self._ids)

    def table_options(self, table: str) -> tuple[str, ...]:
        return ("--autoplay", "0", "--players", str(self._players[table]),
                "--seed", f"{self.options.seed}-{table}")

    def description(self) -> str:
        return f"cash games, {self.options.players} bots"

    async def start(self, room: DirectorRoom) -> None:
        return None

    def tournament_id(self) -> str | None:
        return None

    def standing(self) -> Standing:
        return Standing(name="cash games")

    def podium(self) -> list[str]:
        return []

    def summary(self) -> list[str]:
        return []

    async def close(self) -> None:
        return None


def tournament_available() -> bool:
    """Whether this installation's director can run a tournament over live tables."""
    try:
        from host_bridge.director import service  # noqa: F401
    except ImportError:
        return False
    return True


# ------------------------------------------------------------------------ the tournament
NAMES = ("ana", "ben", "cleo", "dev", "eli", "fay", "gus", "hal", "ivy", "jon", "kim", "leo",
         "mia", "ned", "oli", "pam", "quin", "rex", "sol", "tia", "uma", "vic", "wes", "xia",
         "yan", "zoe")
STRUCTURE = "turbo"  # the director's structure (its blinds, antes): 25/50, 75/150, 150/300...
LEVEL_SECONDS = 600.0  # a level lasts 10 minutes of tournament time (30 s at --speed 20)
ACTION_SECONDS = 4.0  # tournament time per bot action: a hand takes a minute or two
SHOT_CLOCK_S = 30.0  # seconds per action; now and then a bot thinks into the countdown
BREAK = (2, 300.0, (25,))  # after level 2: 5 minutes, and the 25 chips colour up


def player_names(players: int) -> tuple[str, ...]:
    """``ana``, ``ben``, ... then ``ana2``, ``ben2``..."""
    return tuple(NAMES[i % len(NAMES)] + (str(i // len(NAMES) + 1) if i >= len(NAMES) else "")
                 for i in range(players))


def structure_toml(levels: Sequence[tuple[int, int, int]], level_seconds: float,
                   brk: tuple[int, float, tuple[int, ...]]) -> str:
    """The structure as a house TOML file, for the tables' ``--structure``."""
    rows = ", ".join(f"[{sb}, {bb}, {ante}]" for sb, bb, ante in levels)
    after, seconds, colour = brk
    return (f'name = "Pitboss demo"\ncolumns = ["small_blind", "big_blind", "ante"]\n'
            f"level_minutes = {level_seconds / 60:g}\nlevels = [{rows}]\n\n[[breaks]]\n"
            f"after_level = {after}\nminutes = {seconds / 60:g}\n"
            f"colour_up = [{', '.join(str(c) for c in colour)}]\n")


class TournamentClock:
    """Tournament time: the host's monotonic clock run ``speed`` times as fast."""

    def __init__(self, speed: float) -> None:
        self.speed = speed
        self._start = time.monotonic()

    def __call__(self) -> float:
        return self._start + (time.monotonic() - self._start) * self.speed


class TournamentGame(CashGame):
    """A small freezeout with fast clocks, run by the bridge's tournament director: the
    seat draw, levels every 10 minutes of tournament time, a break after level 2 where
    the 25 chips colour up (the chip race at every table), tables broken and players
    moved as the field shrinks, hand-for-hand on the bubble, eliminations to a winner."""

    def __init__(self, options: DemoOptions, site: str, data: Path) -> None:
        super().__init__(options, site)
        self.structure_file = data / "structure.toml"
        from host_bridge.director.options import STRUCTURES

        levels, _ = STRUCTURES[STRUCTURE]  # the director's levels, so both sides agree
        self.structure_file.write_text(structure_toml(levels, LEVEL_SECONDS, BREAK))
        self.director: Any = None
        self._runner: asyncio.Task[None] | None = None
        self.error: str | None = None

    def table_options(self, table: str) -> tuple[str, ...]:
        return ("--autoplay", "0", "--tournament", "--structure", str(self.structure_file),
                "--speed", f"{self.options.speed:g}", "--pace", f"{ACTION_SECONDS:g}",
                "--shot-clock", f"{SHOT_CLOCK_S:g}",
                "--seed", f"{self.options.seed}-{table}")

    def description(self) -> str:
        return (f"a tournament of {self.options.players} players, clocks at "
                f"{self.options.speed:g}x")

    def tournament_options(self) -> Any:
        from host_bridge.director.options import TournamentOptions

        # full tables at the draw: the first table breaks once the rest fit elsewhere
        seats = max(2, -(-self.options.players // self.options.tables))
        seed = int.from_bytes(hashlib.sha256(self.options.seed.encode()).digest()[:4], "big")
        return TournamentOptions(
            name="Pitboss demo", tables=dict.fromkeys(self._ids, seats),
            players=player_names(self.options.players), structure=STRUCTURE,
            level_seconds=LEVEL_SECONDS, breaks=(BREAK,), starting_stack=5_000,
            buy_in=10_000, seed=seed, sync_every_s=10 * self.options.speed)

    async def start(self, room: DirectorRoom) -> None:
        """Create the tournament in the bridge's room (the API, the director page and the
        clock screen serve that very director; the room hands it its tables' reports),
        then make the seat draw."""
        director = await room.create(self.tournament_options(),
                                     clock=TournamentClock(self.options.speed))
        self.director = director
        await director.start()
        self._runner = asyncio.create_task(self._run(), name="demo-tournament")

    async def _run(self) -> None:
        try:
            await self.director.run_until_winner()
        except Exception as exc:  # shown on the screen; the floor keeps serving
            self.error = f"the tournament stopped: {exc!r}"

    def tournament_id(self) -> str | None:
        return None if self.director is None else str(self.director.id)

    def standing(self) -> Standing:
        if self.director is None:
            return Standing(name="Pitboss demo", note="seating the players...")
        try:
            s = self.director.status()
        except Exception as exc:  # the screen must not stop the floor
            log.exception("the director's status failed")
            return Standing(name="Pitboss demo", note=f"the director's status failed: {exc!r}")
        blinds = s.get("blinds") or {}
        places = s.get("places") or []
        winner = next((p["player"] for p in places if p.get("place") == 1), None)
        finished = s.get("stage") == "finished"
        note = self.error
        if note is None and s.get("on_break"):
            note = f"break: {s.get('seconds_left', 0) / 60:.1f} min left (colour-up)"
        elif note is None and (s.get("hand_for_hand") or {}).get("on"):
            note = "hand-for-hand on the bubble"
        return Standing(
            name=str(s.get("name", "")), players_left=s.get("players_left"),
            entrants=s.get("entries"), level=s.get("level"),
            blinds=f"{blinds.get('small_blind', 0):,}/{blinds.get('big_blind', 0):,}"
            if blinds else None, winner=winner if finished else None, finished=finished,
            note=note)

    def summary(self) -> list[str]:
        if self.director is None:
            return []
        try:
            s = self.director.status()
        except Exception as exc:
            return [f"the director's status failed: {exc!r}"]
        lines = []
        if s.get("stage") == "finished":
            podium = ", ".join(f"{p['place']}. {p['player']}" for p in s.get("places", [])[:3])
            lines.append(f"tournament over: {podium}")
        else:
            lines.append(f"tournament {s.get('stage')}: {s.get('players_left')} of "
                         f"{s.get('entries')} players left at level {s.get('level')}")
        f = s.get("figures") or {}
        anomalies = self.director.anomalies
        lines.append(f"director: {f.get('hands', 0)} hands, {f.get('moves', 0)} players "
                     f"moved, {f.get('breaks', 0)} table(s) broken, "
                     f"{f.get('h4h_hands', 0)} hand-for-hand hands; invariants checked "
                     f"{f.get('checks', 0)} times, {len(anomalies)} anomalies")
        lines += [f"  anomaly: {a}" for a in anomalies[:5]]
        return lines

    def podium(self) -> list[str]:
        """``1. ana  $80.00`` lines: every paid place, then the next few places."""
        if self.director is None:
            return []
        try:
            s = self.director.status()
        except Exception as exc:
            return [f"the director's status failed: {exc!r}"]
        if s.get("stage") != "finished":
            return []
        paid = int(s.get("places_paid") or 0)
        shown = sorted(s.get("places") or [], key=lambda p: p["place"])[:max(3, paid)]
        return [f"{_place(p):>5}. {p['player']:<8} {_money(int(p.get('prize') or 0))}"
                for p in shown]

    async def close(self) -> None:
        if self.director is not None:
            await self.director.stop()
        if self._runner is not None:
            self._runner.cancel()
            await asyncio.gather(self._runner, return_exceptions=True)


def _place(place: dict[str, Any]) -> str:
    """``3``, or ``3-4`` for a shared place."""
    best, worst = place["place"], place.get("place_to", place["place"])
    return str(best) if best == worst else f"{best}-{worst}"


def _money(cents: int) -> str:
    """Prizes are cents; the podium shows dollars (``-`` for an unpaid place)."""
    return f"${cents / 100:,.2f}" if cents else "-"
