"""What a tournament on the floor is created from: :class:`TournamentOptions`, plain data
that the REST API, the demo and the journal share (the journal stores it as JSON).

Pure: builds the :class:`~host_bridge.director.setup.TournamentSetup` and the rules
profile; no I/O.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any, Final

from controller.clocks.structure import Break, Structure, structure
from controller.rules.config import RulesProfile, profile_named

from .errors import DirectorError
from .payouts import PayoutStructure
from .setup import TournamentSetup

#: Blind levels (small blind, big blind, ante) of the built-in structures.
STANDARD: Final = ((25, 50, 0), (50, 100, 0), (75, 150, 25), (100, 200, 25), (150, 300, 50),
                   (200, 400, 50), (300, 600, 75), (400, 800, 100), (600, 1200, 200),
                   (1000, 2000, 300), (1500, 3000, 500), (2000, 4000, 500),
                   (3000, 6000, 1000), (5000, 10000, 1000), (8000, 16000, 2000),
                   (10000, 20000, 3000), (15000, 30000, 5000), (25000, 50000, 5000))
TURBO: Final = STANDARD[::2]
STRUCTURES: Final = {"standard": (STANDARD, 20 * 60.0), "turbo": (TURBO, 10 * 60.0)}
ADD_ON_BREAK: Final = 2  # TOURN-12: the break between levels 2 and 3
_WIRE_ID = re.compile(r"^[A-Za-z0-9_.:-]{1,64}$")


def paid_places(entries: int) -> tuple[int, ...]:
    """The house payout: about one in eight paid (at least one), descending, in basis
    points adding to 10,000 (TOURN-1)."""
    places = max(1, min(entries // 8, 27)) if entries > 2 else 1
    weights = [places - i + places // 2 for i in range(places)]
    bps = [10_000 * w // sum(weights) for w in weights]
    bps[0] += 10_000 - sum(bps)
    return tuple(bps)


def house_payouts() -> PayoutStructure:
    sizes = (8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 1000, 100_000)
    return PayoutStructure(tuple((n, paid_places(n)) for n in sizes))


@dataclass(frozen=True, slots=True)
class TournamentOptions:
    """A tournament as the floor creates it. Money in cents, chips in chips.

    ``tables`` maps the tables' wire ids ("T1") to their seats; the director numbers them
    1, 2, ... in the order given (that is also the announced break order, TOURN-21).
    """

    name: str
    tables: dict[str, int]
    players: tuple[str, ...] = ()
    structure: str = "standard"  # a STRUCTURES key
    level_seconds: float = 0.0  # 0: the structure's
    breaks: tuple[tuple[int, float, tuple[int, ...]], ...] = ()  # (after level, s, colour-up)
    starting_stack: int = 5_000
    buy_in: int = 10_000
    fee: int = 0
    late_registration_levels: int = 0
    seed: int = 0
    profile: str = "live-tournament"
    hand_for_hand_margin: int = 1  # hand-for-hand with this many players off the money
    sync_every_s: float = 30.0  # SyncClock to every table this often
    auto_balance: bool = True  # carry out balancing/breaking at once, or wait for confirm
    close_tables_at_end: bool = True
    payouts: tuple[int, ...] = field(default=())  # basis points by place; () house table
    # time-bank extension chips each player holds from the start, and from the final
    # table on (issue 5: granted and reset by the tournament's stage); 0: none granted
    time_bank_start: int = 0
    time_bank_final_table: int = 0
    # TOURN-10: rebuys during the first ``rebuy_levels`` levels (0: none), each of the
    # starting stack for ``rebuy_price`` (None: the buy-in) plus ``rebuy_fee``; TOURN-12:
    # the add-on in the break after level 2 (``breaks`` must hold it), likewise priced
    rebuy_levels: int = 0
    rebuy_price: int | None = None
    rebuy_fee: int = 0
    add_on: bool = False
    add_on_price: int | None = None
    add_on_fee: int = 0
    # issue 19, the director's money (money.py): TOURN-4/6 re-entry (``max_entries`` per
    # player, the first included), TOURN-15 surrender, TOURN-17 ``bounty`` cents of each
    # buy-in and a ``progressive`` (paid, added) split in basis points, TOURN-29 deals
    re_entry: bool = False
    max_entries: int = 1
    surrender: bool = False
    bounty: int = 0
    progressive: tuple[int, int] | None = None
    deals: bool = True

    def verify(self) -> None:
        """Raise :class:`DirectorError` naming the field that cannot be used."""
        if not self.name.strip() or len(self.name) > 64:
            raise DirectorError("name: give a name of 1 to 64 characters", "TOURN-1")
        if not self.tables:
            raise DirectorError("tables: a tournament needs at least one table", "TOURN-2")
        for wire, seats in self.tables.items():
            if not _WIRE_ID.match(wire):
                raise DirectorError(f"tables: {wire!r} is not a table id", "TOURN-2")
            if not 2 <= seats <= 10:
                raise DirectorError(f"tables: {wire} has {seats} seats; 2 to 10", "BTN-3")
        if self.structure not in STRUCTURES:
            raise DirectorError(f"structure: {self.structure!r} is not one of "
                                f"{', '.join(STRUCTURES)}", "LEVEL-2")
        if len(set(self.players)) != len(self.players):
            raise DirectorError("players: a player is listed twice", "TOURN-6")
        if any(not _WIRE_ID.match(p) for p in self.players):
            raise DirectorError("players: ids are 1 to 64 letters, digits or _.:-", "TOURN-6")
        if self.level_seconds < 0 or 0 < self.level_seconds < 1:
            raise DirectorError("level_minutes: a level lasts at least a second", "LEVEL-2")
        if self.sync_every_s <= 0:
            raise DirectorError("sync_every_s: must be positive", "LEVEL-2")
        if self.rebuy_levels < 0:
            raise DirectorError("rebuy_levels: rebuys are open 0 or more levels", "TOURN-10")
        if self.add_on and not any(after == ADD_ON_BREAK for after, _, _ in self.breaks):
            raise DirectorError(f"breaks: the add-on is taken in the break after level "
                                f"{ADD_ON_BREAK} (TOURN-12); add that break", "TOURN-12")

    @property
    def table_numbers(self) -> dict[str, int]:
        return {wire: i for i, wire in enumerate(self.tables, 1)}

    @property
    def seats_per_table(self) -> int:
        return max(self.tables.values())

    def rules_profile(self) -> RulesProfile:
        try:
            return profile_named(self.profile)
        except Exception as exc:
            raise DirectorError(f"profile: {exc}", "TOURN-1") from None

    def level_structure(self) -> Structure:
        levels, seconds = STRUCTURES[self.structure]
        breaks = [Break(after, length, tuple(colour),  # TOURN-12: the add-on's break
                        add_on=self.add_on and after == ADD_ON_BREAK)
                  for after, length, colour in self.breaks]
        try:
            return structure(levels, level_minutes=(self.level_seconds or seconds) / 60,
                             breaks=breaks, name=self.structure)
        except Exception as exc:
            raise DirectorError(f"breaks: {exc}", "LEVEL-2") from None

    def setup(self) -> TournamentSetup:
        pay = (PayoutStructure(((100_000, self.payouts),)) if self.payouts
               else house_payouts())
        return TournamentSetup(
            name=self.name, structure=self.level_structure(), buy_in=self.buy_in, fee=self.fee,
            starting_stack=self.starting_stack, seats_per_table=self.seats_per_table,
            late_registration_levels=self.late_registration_levels, payouts=pay,
            rebuy_levels=self.rebuy_levels, rebuy_fee=self.rebuy_fee,
            rebuy_price=self.buy_in if self.rebuy_price is None else self.rebuy_price,
            add_on=self.add_on, add_on_fee=self.add_on_fee,
            add_on_price=self.buy_in if self.add_on_price is None else self.add_on_price,
            re_entry=self.re_entry, max_entries=self.max_entries, surrender=self.surrender,
            bounty=self.bounty, progressive=self.progressive)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TournamentOptions:
        values = dict(data)
        values["players"] = tuple(values.get("players", ()))
        values["payouts"] = tuple(values.get("payouts", ()))
        values["breaks"] = tuple((int(a), float(s), tuple(c))
                                 for a, s, c in values.get("breaks", ()))
        values["tables"] = dict(values["tables"])
        if values.get("progressive") is not None:
            values["progressive"] = tuple(values["progressive"])
        return cls(**values)
