"""Rules profiles (RULES.md §1 CONF) and the setup of one hand.

Where the seeds disagree, RULES.md's CONF table names a key and its values. A
:class:`RulesProfile` holds one value per key: the ``live`` profile (the default, with its
cash or tournament flavour), the ``online`` profile, or a house file that overrides single
keys of either. Profiles are validated frozen data: the table below, not ``if`` chains.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Final, NoReturn

from controller.rules.errors import ConfigError


class Variant(StrEnum):
    """The games the engine deals, by their PHH codes."""

    NT = "NT"  # no-limit Texas hold'em
    PO = "PO"  # pot-limit Omaha
    FT = "FT"  # fixed-limit Texas hold'em


HOLE_CARDS: Final = {Variant.NT: 2, Variant.PO: 4, Variant.FT: 2}  # CARD-2, CARD-3


@dataclass(frozen=True, slots=True)
class ConfKey:
    """One row of the CONF table: allowed values and each profile's default."""

    allowed: tuple[str | int, ...] | type
    live_cash: str | int | None
    live_tournament: str | int | None
    online: str | int | None
    rules: str


# RULES.md §1. ``type`` rows take any value of that type; ``None`` means "n/a" there.
CONF: Final[Mapping[str, ConfKey]] = {
    "clock.duration": ConfKey(("60+10", "50+10", "25+5"), "60+10", "50+10", None, "CLOCK-1"),
    "clock.caller": ConfKey(("in_pot", "at_table", "floor_approval"),
                            "in_pot", "floor_approval", None, "CLOCK-2"),
    "showdown.allin_order": ConfKey(("table_all_at_once", "last_aggressor_first"),
                                    "last_aggressor_first", "table_all_at_once",
                                    "table_all_at_once", "SHOW-3"),
    "pot.odd_unit": ConfKey(("one_each_clockwise_from_button", "all_to_first_left_of_button"),
                            "all_to_first_left_of_button", "all_to_first_left_of_button",
                            "one_each_clockwise_from_button", "POT-5"),
    "halfraise.fold_allowed": ConfKey(("true", "false"), "true", "false", None, "LIVE-7"),
    "undercall.mode": ConfKey(("call_or_forfeit", "tda"), "call_or_forfeit", "tda", None,
                              "LIVE-10"),
    "oot.release_on": ConfKey(("action_change", "substantial"), "substantial", "action_change",
                              None, "LIVE-12"),
    "cash.new_player_entry": ConfKey(("wait_or_post_bb", "wait_for_bb", "post_bb"),
                                     "post_bb", "post_bb", "wait_or_post_bb", "BLIND-4"),
    "tourn.initial_button": ConfKey(("last_occupied_seat", "draw"), "draw", "draw",
                                    "last_occupied_seat", "BTN-4"),
    "tourn.final_table_button": ConfKey(("seat_10", "draw"), "draw", "draw", None, "TOURN-28"),
    "tourn.button_mode": ConfKey(("dead_button", "stuck_button"), "dead_button", "dead_button",
                                 "stuck_button", "BTN-5"),
    "tourn.balance_seat": ConfKey(("bb_to_worst", "random_far_from_bb"), "bb_to_worst",
                                  "bb_to_worst", "random_far_from_bb", "TOURN-19/20"),
    "tourn.h4h_cross_table_elim": ConfKey(("compare_start_stacks", "shared_place"),
                                          "shared_place", "shared_place",
                                          "compare_start_stacks", "TOURN-24"),
    "penalty.warning_first": ConfKey(("true", "false"), None, "false", None, "PEN-3"),
    "rake.rounding": ConfKey(("nearest", "up"), None, None, "nearest", "RAKE-4"),
    "rake.table": ConfKey(("2023", "2019", "casino"), "casino", None, "2023", "RAKE-6/7/8"),
    "timebank.model": ConfKey(("table", "legacy"), None, None, "table", "CLOCK-5/7"),
    "disconnect.grace_s": ConfKey(int, None, None, 20, "CLOCK-8"),
    "banzai.max_tables_per_stake": ConfKey(int, None, None, 4, "CASH-13"),
    "straddle.mode": ConfKey(("off", "utg", "mississippi"), "utg", "off", "off", "STRADDLE-1..4"),
    "fl.max_bets": ConfKey(int, 4, 4, 4, "FL-1"),
    "bet.short_allin_aggregation": ConfKey(("successive_no_calls", "per_player_cumulative"),
                                           "successive_no_calls", "successive_no_calls",
                                           "successive_no_calls", "BET-9"),
}
# STRADDLE-6: tournaments make no provision for straddles, so the live tournament flavour
# has them off.


def _check_value(key: str, value: object) -> str | int:
    row = CONF.get(key)
    if row is None:
        raise ConfigError(f"unknown rules key {key!r}; the keys are those of RULES.md §1: "
                          + ", ".join(sorted(CONF)))
    if isinstance(value, bool):  # TOML true/false for the true/false keys
        value = "true" if value else "false"
    if isinstance(row.allowed, type):
        if not isinstance(value, row.allowed) or isinstance(value, bool):
            raise ConfigError(f"{key} takes a {row.allowed.__name__}, not {value!r}", row.rules)
        return value  # type: ignore[return-value]  # checked against row.allowed just above
    if value not in row.allowed:
        choices = ", ".join(str(a) for a in row.allowed)
        raise ConfigError(f"{key} cannot be {value!r}; choose one of {choices}", row.rules)
    assert isinstance(value, (str, int))
    return value


@dataclass(frozen=True, slots=True)
class RulesProfile:
    """One value per CONF key; ``None`` where the key does not apply to the profile."""

    name: str
    values: Mapping[str, str | int | None] = field(repr=False)
    # the engine's typed views below, read once here: a hand asks for them every time
    _views: tuple[bool | None, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        missing = set(CONF) - set(self.values)
        if missing:
            raise ConfigError(f"profile {self.name!r} lacks keys: {', '.join(sorted(missing))}")
        for key, value in self.values.items():
            if value is not None:
                _check_value(key, value)
        views = tuple(None if self.values[key] is None else self.values[key] == value
                      for key, value in _VIEWS)  # None: unset (n/a)
        object.__setattr__(self, "_views", views)

    def __getitem__(self, key: str) -> str | int | None:
        if key not in CONF:
            _check_value(key, None)  # raises with the list of keys
        return self.values[key]

    def text(self, key: str) -> str:
        """A key's value as text; raises if the profile leaves it unset (n/a)."""
        value = self[key]
        if value is None:
            raise ConfigError(f"{key} is not set in the {self.name!r} profile", CONF[key].rules)
        return str(value)

    def number(self, key: str) -> int:
        """A numeric key's value; raises if unset."""
        value = self[key]
        if not isinstance(value, int):
            raise ConfigError(f"{key} is not set in the {self.name!r} profile", CONF[key].rules)
        return value

    def with_overrides(self, overrides: Mapping[str, object], name: str | None = None
                       ) -> RulesProfile:
        """A copy with single keys replaced (a house file); each value is validated."""
        values = dict(self.values)
        for key, value in overrides.items():
            values[key] = _check_value(key, value)
        return RulesProfile(name or f"{self.name}+house", values)

    # The engine's typed views of the keys it reads.
    @property
    def odd_unit_each(self) -> bool:
        """POT-5: one unit each clockwise (True) or all to the first winner (False)."""
        view = self._views[0]
        return self._unset("pot.odd_unit") if view is None else view

    @property
    def allin_table_at_once(self) -> bool:
        """SHOW-3: all hands turned up at once when a player is all-in."""
        view = self._views[1]
        return self._unset("showdown.allin_order") if view is None else view

    @property
    def short_allin_successive(self) -> bool:
        """BET-9: ``successive_no_calls`` (True) or ``per_player_cumulative``."""
        view = self._views[2]
        return self._unset("bet.short_allin_aggregation") if view is None else view

    def _unset(self, key: str) -> NoReturn:
        self.text(key)  # raises: the profile leaves the key unset (n/a)
        raise AssertionError(key)


# the keys and values of RulesProfile's typed views (POT-5, SHOW-3, BET-9), in its order
_VIEWS: Final = (("pot.odd_unit", "one_each_clockwise_from_button"),
                 ("showdown.allin_order", "table_all_at_once"),
                 ("bet.short_allin_aggregation", "successive_no_calls"))


def _preset(name: str, column: str) -> RulesProfile:
    return RulesProfile(name, {k: getattr(row, column) for k, row in CONF.items()})


LIVE_CASH: Final = _preset("live", "live_cash")
LIVE_TOURNAMENT: Final = _preset("live-tournament", "live_tournament")
ONLINE: Final = _preset("online", "online")
PROFILES: Final = {"live": LIVE_CASH, "live-cash": LIVE_CASH,
                   "live-tournament": LIVE_TOURNAMENT, "online": ONLINE}


def profile_named(name: str) -> RulesProfile:
    """``live`` (the default: live cash), ``live-tournament`` or ``online``."""
    try:
        return PROFILES[name]
    except KeyError:
        raise ConfigError(f"no rules profile {name!r}; choose one of "
                          + ", ".join(sorted(PROFILES))
                          + ", or a house file (TOML)") from None


def house_profile(text: str, source: str = "house file") -> RulesProfile:
    """A house profile from TOML text: ``base = "live"`` plus single keys to override.

    Keys are written as in RULES.md §1, quoted because of the dot::

        base = "live-tournament"
        "pot.odd_unit" = "one_each_clockwise_from_button"
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{source}: not valid TOML: {exc}") from None
    base = data.pop("base", "live")
    if not isinstance(base, str):
        raise ConfigError(f"{source}: base must be a profile name such as \"live\"")
    return profile_named(base).with_overrides(data, name=f"{base}+{source}")
