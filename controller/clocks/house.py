"""House files: how a card room configures one table's game, once (deploy/houses/*.toml).

A house file says everything a table needs to run its game: the game (NT, PO, FT), the
stakes or the tournament's structure, antes, which straddles are allowed (STRADDLE-1..6),
the rake schedule (RAKE-1..9), the chip set, the clock (shot clock, clock calls, time-bank
chips), the buy-in limits (CASH-2, CASH-7, CASH-8) and the rule options RULES.md §1 lets a
house choose. It is validated as a whole when it is read: an error names the field, the
line it is on and the rule, e.g. ``casino.toml line 12: stakes.big_blind: ...(BLIND-1)``.

The house lives in ``clocks`` because a tournament house carries its structure (levels,
breaks: LEVEL-2) and its clock; the rest is the rules' own data (``RulesProfile``,
``RakePolicy``). A table journals the house's text whole (``house_set``), so a restart and
the floor read the very file the table plays.

Amounts are whole units of ``unit``: ``kr`` (the casino's tables, 002), ``cent`` (the
online tables, 003) or ``chip`` (tournament chips). tomllib gives no line numbers, so
:func:`line_of` finds a key's line in the text itself (a small scan of table headers and
``key =`` lines; TOML's other forms of the same key, dotted or inline, fall back to the
table's header line).
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any, Final, Literal

from controller.rules.config import CONF, HOLE_CARDS, RulesProfile, Variant, profile_named
from controller.rules.errors import ConfigError
from controller.rules.rake import RakePolicy, rake_policy

from .errors import StructureError
from .house_text import HouseError, HouseReader, line_of
from .structure import Structure, _merge, _preset_data, structure_from_data

Kind = Literal["cash", "tournament"]
AnteKind = Literal["none", "each", "big_blind"]
UNITS: Final = ("kr", "cent", "chip")
GAME_NAMES: Final = {Variant.NT: "NLHE", Variant.PO: "PLO", Variant.FT: "FLHE"}
#: the game names of the online rake tables (RAKE-6/7) for each variant
RAKE_GAMES: Final = {Variant.NT: "NLHE", Variant.PO: "PLO"}
SCHEDULES: Final = ("none", "casino", "2023", "2019", "percentage")
STRADDLE_MODES: Final = ("off", "utg", "mississippi")
MAX_TEXT: Final = 64 * 1024  # a house file is small; a bigger one is a mistake


@dataclass(frozen=True, slots=True)
class Stakes:
    """A cash game's blinds, and for fixed limit its two bet sizes (FL-2)."""

    small_blind: int
    big_blind: int
    small_bet: int = 0
    big_bet: int = 0


@dataclass(frozen=True, slots=True)
class BuyIn:
    """The buy-in limits, in units (``rule``: CASH-8 live, CASH-2 online, CASH-7 Banzai)."""

    minimum: int
    maximum: int
    rule: str

    def problem(self, stack: int) -> str | None:
        """Why ``stack`` is not a buy-in this house takes (None: it is)."""
        if self.minimum <= stack <= self.maximum:
            return None
        if self.minimum == self.maximum:
            return f"the buy-in here is exactly {self.minimum}, not {stack}"
        return f"the buy-in here is {self.minimum} to {self.maximum}, not {stack}"


@dataclass(frozen=True, slots=True)
class HouseClock:
    """The house's clock: seconds per action (None: untimed until the clock is called),
    the final countdown, and each player's time-bank extension chips (CLOCK-*)."""

    shot_clock_s: float | None = None
    countdown_s: int = 10
    extension_chips: int = 0
    extension_s: float = 30.0


@dataclass(frozen=True, slots=True)
class House:
    """One table's game, validated (see the module notes)."""

    name: str
    kind: Kind
    variant: Variant
    unit: str
    rules: RulesProfile
    seats: int = 10
    stakes: Stakes | None = None  # cash
    ante_kind: AnteKind = "none"  # cash (a tournament's antes come from its structure)
    ante: int = 0
    rake: RakePolicy | None = None  # cash only (RAKE-9)
    rake_label: str = "no rake"
    buy_in: BuyIn | None = None  # cash
    chips: tuple[tuple[int, str], ...] = ()  # (value, colour), lowest first
    clock: HouseClock = field(default_factory=HouseClock)
    structure: Structure | None = None  # tournament (LEVEL-2)
    starting_stack: int | None = None  # tournament
    multiplier: float | None = None  # HexaPro's (SNG-3): the default until one is drawn
    players: int | None = None  # a sit & go's field: it starts when every seat is filled
    text: str = field(default="", repr=False, compare=False)  # the file as read
    source: str = "house file"

    @property
    def tournament(self) -> bool:
        return self.kind == "tournament"

    @property
    def straddle_mode(self) -> str:
        """CONF ``straddle.mode``: off, utg or mississippi (always off in a tournament)."""
        return "off" if self.tournament else str(self.rules["straddle.mode"] or "off")

    @property
    def game_label(self) -> str:
        """``NLHE 20/40 kr``, ``PLO 25/50 cent``, ``FLHE 2/4 kr (4/8)``, ``NLHE tournament``."""
        game = GAME_NAMES[self.variant]
        if self.stakes is None:
            return f"{game} tournament"
        s = self.stakes
        text = f"{game} {s.small_blind}/{s.big_blind} {self.unit}"
        if self.variant is Variant.FT:
            text += f" ({s.small_bet}/{s.big_bet})"
        return text

    @property
    def label(self) -> str:
        """The one line the floor, the displays and the dealer see: game, stakes, rake,
        straddles."""
        parts = [self.game_label]
        if not self.tournament:
            parts.append(self.rake_label)
            if self.straddle_mode != "off":
                parts.append(f"straddle {self.straddle_mode}")
        return ", ".join(parts)

    def forced_bets(self, players: int) -> dict[str, Any]:
        """A cash hand's antes and limit bets as ``GameConfig`` keywords (ANTE-2/4, FL-2)."""
        kw: dict[str, Any] = {}
        if self.ante_kind == "each" and self.ante:
            kw["antes"] = (self.ante,) * players
        elif self.ante_kind == "big_blind" and self.ante:
            kw["big_blind_ante"] = self.ante
        if self.variant is Variant.FT and self.stakes is not None:
            kw["small_bet"], kw["big_bet"] = self.stakes.small_bet, self.stakes.big_bet
        return kw


# ============================================================================ reading
TOP_KEYS: Final = ("name", "kind", "game", "unit", "rules", "seats", "stakes", "antes",
                   "straddle", "rake", "buy_in", "chips", "clock", "options", "tournament")


def parse_house(text: str, source: str = "house file", *,
                multiplier: float | None = None) -> House:
    """A :class:`House` from a house file's TOML text; raises :class:`HouseError` naming
    the field, its line and the rule. ``multiplier``: a HexaPro multiplier drawn for this
    game (SNG-3), instead of the file's default."""
    if len(text.encode()) > MAX_TEXT:
        raise HouseError(f"is {len(text.encode())} bytes; a house file is at most {MAX_TEXT}",
                         source=source)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise HouseError(f"not valid TOML: {exc}", source=source) from None
    r = HouseReader(data, text, source)
    r.known([], data, TOP_KEYS)
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise r.fail(["name"], "every house has a name, e.g. name = \"Casino NLHE 20/40\"")
    kind: Kind = "tournament" if r.choice(["kind"], data.get("kind", "cash"),
                                          ("cash", "tournament")) == "tournament" else "cash"
    variant = Variant(r.choice(["game"], data.get("game", "NT"), [v.value for v in Variant],
                               "CARD-2"))
    unit = r.choice(["unit"], data.get("unit", "chip" if kind == "tournament" else "kr"),
                    UNITS)
    seats = r.whole(["seats"], data.get("seats", 10), "DEAL-1", positive=True)
    if not 2 <= seats <= 10 or seats * HOLE_CARDS[variant] + 8 > 52:
        raise r.fail(["seats"], f"{seats} seats cannot be dealt {GAME_NAMES[variant]} from "
                     "one deck; a table has 2 to 10 seats (Omaha: at most 10)", "CARD-2")
    rules = _rules(r, kind, variant)
    house: dict[str, Any] = dict(name=name.strip(), kind=kind, variant=variant, unit=unit,
                                 rules=rules, seats=seats, text=text, source=source,
                                 clock=_clock(r), chips=_chips(r))
    if kind == "cash":
        for key, rule in (("tournament", "TOURN-1"),):
            if key in data:
                raise r.fail([key], "a cash house has no tournament section; set "
                             "kind = \"tournament\"", rule)
        stakes = _stakes(r, variant)
        house.update(stakes=stakes, buy_in=_buy_in(r, stakes, rules))
        house["ante_kind"], house["ante"] = _antes(r, stakes)
        house["rake"], house["rake_label"] = _rake(r, variant, stakes, unit, rules)
    else:
        for key, rule in (("stakes", "LEVEL-2"), ("rake", "RAKE-9"), ("straddle", "STRADDLE-6"),
                          ("buy_in", "TOURN-1"), ("antes", "ANTE-1")):
            if key in data:
                why = {"stakes": "a tournament's blinds come from its structure (LEVEL-2)",
                       "rake": "tournaments have no per-hand rake; the fee is in the buy-in",
                       "straddle": "tournaments make no provision for straddles",
                       "buy_in": "a tournament's entry is the director's (registration)",
                       "antes": "a tournament's antes come from its structure"}[key]
                raise r.fail([key], why, rule)
        if variant is Variant.FT:
            raise r.fail(["game"], "a fixed-limit tournament needs limit bets per level, and "
                         "structures carry blinds and antes only; FT is a cash house here",
                         "FL-2")
        house.update(_tournament(r, multiplier))
    result = House(**house)
    if result.players is not None and result.players > seats:
        raise r.fail(["tournament", "players"], f"{result.players} players do not fit "
                     f"{seats} seats", "SNG-1")
    return result


def load_house(path: str | Path, *, multiplier: float | None = None) -> House:
    """A house file from disk (``deploy/houses/casino-nlhe.toml``); a structure file it
    names is read relative to it."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise HouseError(f"cannot be read: {exc.strerror}", source=str(path)) from None
    return parse_house(text, p.name, multiplier=multiplier)


# ============================================================================ the sections
def _rules(r: HouseReader, kind: Kind, variant: Variant) -> RulesProfile:
    base = r.data.get("rules", "live-tournament" if kind == "tournament" else "live")
    if not isinstance(base, str):
        raise r.fail(["rules"], "must be a rules profile's name: live, online, "
                     "live-tournament")
    try:
        profile = profile_named(base)
    except ConfigError as exc:
        raise r.fail(["rules"], exc.reason, exc.rule) from None
    if (kind == "tournament" or variant is Variant.FT) \
            and profile["straddle.mode"] not in (None, "off"):  # STRADDLE-6
        profile = profile.with_overrides({"straddle.mode": "off"}, profile.name)
    options = r.table("options")
    overrides: dict[str, object] = {}
    for key, value in options.items():
        if key not in CONF:
            raise r.fail(["options", key], "not a rule option of RULES.md §1; the options "
                         "are " + ", ".join(sorted(CONF)))
        if key == "straddle.mode":
            raise r.fail(["options", key], "set straddles in [straddle] mode = ...",
                         "STRADDLE-1")
        overrides[key] = value
    clock = r.table("clock")
    for key, conf in (("calls", "clock.duration"), ("caller", "clock.caller")):
        if key in clock:
            overrides[conf] = clock[key]
    straddle = r.table("straddle")
    r.known(["straddle"], straddle, ("mode",))
    if "mode" in straddle:
        overrides["straddle.mode"] = r.choice(["straddle", "mode"], straddle["mode"],
                                              STRADDLE_MODES, "STRADDLE-1")
    if kind == "tournament" and overrides.get("straddle.mode", "off") != "off":
        raise r.fail(["straddle", "mode"], "tournaments have no straddles", "STRADDLE-6")
    if variant is Variant.FT and overrides.get("straddle.mode", "off") != "off":
        raise r.fail(["straddle", "mode"], "straddles are for no-limit and pot-limit cash "
                     "games", "STRADDLE-6")
    for key, value in overrides.items():
        try:
            profile = profile.with_overrides({key: value}, profile.name)
        except ConfigError as exc:
            path = (["clock", "calls" if key == "clock.duration" else "caller"]
                    if key.startswith("clock.") else
                    ["straddle", "mode"] if key == "straddle.mode" else ["options", key])
            raise r.fail(path, exc.reason, exc.rule) from None
    return RulesProfile(f"{profile.name}+{r.source}", profile.values)


def _stakes(r: HouseReader, variant: Variant) -> Stakes:
    t = r.table("stakes")
    if not t:
        raise r.fail(["stakes"], "a cash house needs [stakes] with small_blind and big_blind",
                     "BLIND-1")
    r.known(["stakes"], t, ("small_blind", "big_blind", "small_bet", "big_bet"))
    for key in ("small_blind", "big_blind"):
        if key not in t:
            raise r.fail(["stakes", key], "is missing", "BLIND-1")
    sb = r.whole(["stakes", "small_blind"], t["small_blind"], "BLIND-1")
    bb = r.whole(["stakes", "big_blind"], t["big_blind"], "BLIND-1", positive=True)
    if sb > bb:
        raise r.fail(["stakes", "small_blind"], f"{sb} is above the big blind {bb}", "BLIND-1")
    if variant is not Variant.FT:
        for key in ("small_bet", "big_bet"):
            if key in t:
                raise r.fail(["stakes", key], "limit bets are for fixed limit (game = \"FT\")",
                             "FL-2")
        return Stakes(sb, bb)
    small = r.whole(["stakes", "small_bet"], t.get("small_bet", bb), "FL-2", positive=True)
    big = r.whole(["stakes", "big_bet"], t.get("big_bet", 2 * small), "FL-2", positive=True)
    if big < small:
        raise r.fail(["stakes", "big_bet"], f"{big} is below the small bet {small}", "FL-2")
    return Stakes(sb, bb, small, big)


def _antes(r: HouseReader, stakes: Stakes) -> tuple[AnteKind, int]:
    t = r.table("antes")
    r.known(["antes"], t, ("kind", "amount"))
    kind = r.choice(["antes", "kind"], t.get("kind", "none"), ("none", "each", "big_blind"),
                    "ANTE-1")
    amount = r.whole(["antes", "amount"], t.get("amount", 0), "ANTE-1")
    if kind == "none":
        if amount:
            raise r.fail(["antes", "amount"], "an amount with kind = \"none\"; choose each or "
                         "big_blind", "ANTE-1")
        return "none", 0
    if not amount:
        raise r.fail(["antes", "amount"], f"antes of kind {kind!r} need an amount", "ANTE-1")
    if amount > stakes.big_blind:
        raise r.fail(["antes", "amount"], f"{amount} is above the big blind {stakes.big_blind}",
                     "ANTE-1")
    return ("each" if kind == "each" else "big_blind"), amount


RAKE_KEYS: Final = ("schedule", "no_flop_no_drop", "stake", "rounding", "percent", "cap",
                    "halved_cap", "minimum")


def _rake(r: HouseReader, variant: Variant, stakes: Stakes, unit: str,
          rules: RulesProfile) -> tuple[RakePolicy | None, str]:
    t = r.table("rake")
    r.known(["rake"], t, RAKE_KEYS)
    schedule = r.choice(["rake", "schedule"], t.get("schedule", "none"), SCHEDULES, "RAKE-1")
    nfnd = t.get("no_flop_no_drop", True)
    if not isinstance(nfnd, bool):
        raise r.fail(["rake", "no_flop_no_drop"], "must be true or false", "RAKE-2")
    rounding = t.get("rounding", rules["rake.rounding"] or "nearest")
    if rounding not in ("nearest", "up"):
        raise r.fail(["rake", "rounding"], f"cannot be {rounding!r}; choose nearest or up",
                     "RAKE-4")
    nf = "" if nfnd else ", dropped before the flop too"
    if schedule == "none":
        extra = [k for k in t if k != "schedule"]
        if extra:
            raise r.fail(["rake", extra[0]], "given with schedule = \"none\"", "RAKE-1")
        return None, "no rake"
    if schedule == "casino":
        if unit != "kr":
            raise r.fail(["rake", "schedule"], "the casino's brackets are in whole kr: set "
                         "unit = \"kr\"", "RAKE-8")
        for key in ("stake", "percent", "cap", "halved_cap", "minimum"):
            if key in t:
                raise r.fail(["rake", key], "the casino's brackets have no " + key, "RAKE-8")
        return (rake_policy("casino", no_flop_no_drop=nfnd),
                f"casino rake 20-200 kr by pot{nf}")
    if unit != "cent":
        raise r.fail(["rake", "schedule"], f"a percentage rake is in cents: set unit = "
                     f"\"cent\" (the {schedule} tables' caps are cents)", "RAKE-4")
    if schedule in ("2023", "2019"):
        rule = "RAKE-6" if schedule == "2023" else "RAKE-7"
        game = RAKE_GAMES.get(variant)
        if game is None:
            raise r.fail(["rake", "schedule"], f"the {schedule} table has no "
                         f"{GAME_NAMES[variant]} rows", rule)
        for key in ("percent", "cap", "halved_cap", "minimum"):
            if key in t:
                raise r.fail(["rake", key], f"the {schedule} table sets {key}; use "
                             "schedule = \"percentage\" for your own", rule)
        stake = t.get("stake")
        if not isinstance(stake, str):
            raise r.fail(["rake", "stake"], f"name the {schedule} table's row, e.g. "
                         f"stake = \"{'NL' if variant is Variant.NT else 'PL'}10\"", rule)
        try:
            policy = rake_policy(schedule, game, stake, (stakes.small_blind, stakes.big_blind),
                                 rounding="up" if rounding == "up" else "nearest",
                                 no_flop_no_drop=nfnd)
        except ConfigError as exc:
            raise r.fail(["rake", "stake"], exc.reason, exc.rule) from None
        return policy, (f"rake {_pct(policy.percent)}% cap {policy.cap} cents "
                        f"({schedule} {stake}){nf}")
    # schedule == "percentage": the house's own percentage and caps (RAKE-1, RAKE-3..5)
    if "stake" in t:
        raise r.fail(["rake", "stake"], "a stake row is for the 2023 and 2019 tables",
                     "RAKE-6")
    raw = t.get("percent")
    try:
        percent = Fraction(str(raw)) if isinstance(raw, (int, float, str)) \
            and not isinstance(raw, bool) else None
    except (ValueError, ZeroDivisionError):
        percent = None
    if percent is None or not 0 < percent <= 100:
        raise r.fail(["rake", "percent"], f"must be a percentage above 0 and at most 100 "
                     f"(as text for exactness, e.g. \"3.5\"), not {raw!r}", "RAKE-1")
    cap = None if "cap" not in t else r.whole(["rake", "cap"], t["cap"], "RAKE-1",
                                              positive=True)
    halved = None if "halved_cap" not in t else r.whole(["rake", "halved_cap"],
                                                        t["halved_cap"], "RAKE-5")
    if halved is not None and cap is None:
        raise r.fail(["rake", "halved_cap"], "a halved cap needs the cap", "RAKE-5")
    if cap is not None and halved is None:
        if cap % 2:
            raise r.fail(["rake", "cap"], f"half of {cap} is not a whole cent: give "
                         "halved_cap", "RAKE-5")
        halved = cap // 2
    if cap is not None and halved is not None and halved > cap:
        raise r.fail(["rake", "halved_cap"], f"{halved} is above the cap {cap}", "RAKE-5")
    minimum = r.whole(["rake", "minimum"], t.get("minimum", 1), "RAKE-3")
    try:
        policy = RakePolicy("percentage", percent, cap, halved,
                            "up" if rounding == "up" else "nearest", minimum,
                            no_flop_no_drop=nfnd)
    except ConfigError as exc:
        raise r.fail(["rake"], exc.reason, exc.rule) from None
    capped = "no cap" if cap is None else f"cap {cap} cents"
    return policy, f"rake {_pct(percent)}% {capped}{nf}"


def _pct(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else f"{float(value):g}"


def _buy_in(r: HouseReader, stakes: Stakes, rules: RulesProfile) -> BuyIn | None:
    t = r.table("buy_in")
    if not t:
        return None
    r.known(["buy_in"], t, ("min", "max", "min_bb", "max_bb", "rule"))
    online = rules["timebank.model"] is not None
    rule = t.get("rule", "CASH-2" if online else "CASH-8")
    if rule not in ("CASH-2", "CASH-7", "CASH-8"):
        raise r.fail(["buy_in", "rule"], "names the buy-in rule: CASH-8 (the casino), CASH-2 "
                     "(online, 50-100 BB), CASH-7 (Banzai, exactly 10 BB)")
    bb = stakes.big_blind
    bounds: list[int] = []
    for unit_key, bb_key in (("min", "min_bb"), ("max", "max_bb")):
        if unit_key in t and bb_key in t:
            raise r.fail(["buy_in", bb_key], f"give {unit_key} or {bb_key}, not both", rule)
        if unit_key in t:
            bounds.append(r.whole(["buy_in", unit_key], t[unit_key], rule, positive=True))
        elif bb_key in t:
            bounds.append(bb * r.whole(["buy_in", bb_key], t[bb_key], rule, positive=True))
        else:
            raise r.fail(["buy_in", unit_key], f"is missing (or {bb_key}, in big blinds)", rule)
    low, high = bounds
    if low > high:
        raise r.fail(["buy_in", "max"], f"{high} is below the minimum {low}", rule)
    if low < bb:
        raise r.fail(["buy_in", "min"], f"{low} does not cover the big blind {bb}", rule)
    if rule == "CASH-7" and low != high:
        raise r.fail(["buy_in", "max"], "Banzai buys in for exactly 10 BB: min and max are "
                     "the same", rule)
    return BuyIn(low, high, rule)


def _chips(r: HouseReader) -> tuple[tuple[int, str], ...]:
    t = r.table("chips")
    r.known(["chips"], t, ("denominations",))
    rows = t.get("denominations", [])
    path = ["chips", "denominations"]
    if not isinstance(rows, list):
        raise r.fail(path, "must be a list of [value, \"colour\"] pairs")
    chips: list[tuple[int, str]] = []
    for row in rows:
        if (not isinstance(row, list) or len(row) != 2 or not isinstance(row[1], str)
                or not row[1].strip()):
            raise r.fail(path, f"each chip is [value, \"colour\"], not {row!r}", "CHIPRACE-1")
        chips.append((r.whole(path, row[0], "CHIPRACE-1", positive=True), row[1].strip()))
    chips.sort()
    values = [v for v, _ in chips]
    colours = [c.casefold() for _, c in chips]
    if len(set(values)) != len(values) or len(set(colours)) != len(colours):
        raise r.fail(path, "a value or a colour appears twice", "CHIPRACE-1")
    if any(v % values[0] for v in values):
        raise r.fail(path, f"every chip must be a whole number of the lowest ({values[0]}), "
                     "the unit (RULES.md §0)", "CHIPRACE-1")
    return tuple(chips)


def _clock(r: HouseReader) -> HouseClock:
    t = r.table("clock")
    r.known(["clock"], t, ("shot_clock_s", "countdown_s", "calls", "caller", "extension_chips",
                           "extension_s"))
    shot = r.seconds(["clock", "shot_clock_s"], t.get("shot_clock_s", 0), "CLOCK-1")
    countdown = r.whole(["clock", "countdown_s"], t.get("countdown_s", 10), "CLOCK-1")
    if shot and countdown > shot:
        raise r.fail(["clock", "countdown_s"], f"{countdown} s is longer than the "
                     f"{shot:g} s per action", "CLOCK-1")
    chips = r.whole(["clock", "extension_chips"], t.get("extension_chips", 0), "CLOCK-1")
    worth = r.seconds(["clock", "extension_s"], t.get("extension_s", 30), "CLOCK-1")
    if chips and not worth:
        raise r.fail(["clock", "extension_s"], "an extension chip must be worth some time",
                     "CLOCK-1")
    return HouseClock(shot or None, countdown, chips, worth or 30.0)


TOURNAMENT_KEYS: Final = ("structure", "multiplier", "starting_stack", "players")


def _tournament(r: HouseReader, multiplier: float | None) -> dict[str, Any]:
    t = r.table("tournament")
    r.known(["tournament"], t, TOURNAMENT_KEYS)
    raw = t.get("structure")
    path = ["tournament", "structure"]
    mult = multiplier
    if mult is None and "multiplier" in t:
        value = t["multiplier"]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
            raise r.fail(["tournament", "multiplier"], f"must be a positive number, not "
                         f"{value!r}", "SNG-3")
        mult = float(value)
    try:
        if isinstance(raw, str):
            structure = structure_from_data(_preset_data(raw), multiplier=mult, source=raw)
        elif isinstance(raw, Mapping):
            data = dict(raw)
            if "base" in data:
                data = _merge(_preset_data(str(data["base"])), data)
            structure = structure_from_data(data, multiplier=mult, source=r.source)
        else:
            raise r.fail(path, "name a preset (structure = \"hexapro\") or give the levels "
                         "in [tournament.structure]", "LEVEL-2")
    except StructureError as exc:
        raise r.fail(path, exc.reason, exc.rule) from None
    stack = t.get("starting_stack", structure.starting_stack)
    if stack is None:
        raise r.fail(["tournament", "starting_stack"], "is missing (the structure gives none)",
                     "TOURN-1")
    stack = r.whole(["tournament", "starting_stack"], stack, "TOURN-1", positive=True)
    players = None
    if "players" in t:
        players = r.whole(["tournament", "players"], t["players"], "SNG-1", positive=True)
        if players < 2:
            raise r.fail(["tournament", "players"], "a sit & go needs at least 2 players",
                         "SNG-1")
    return dict(structure=structure, starting_stack=stack, multiplier=mult, players=players)


__all__ = ["BuyIn", "House", "HouseClock", "HouseError", "Stakes", "line_of", "load_house",
           "parse_house"]
