"""Read and write the Poker Hand History format (PHH, a TOML dialect from the phh-std project).

A ``.phh`` file holds one hand as top-level TOML keys; a ``.phhs`` file holds several,
each in a table (``[1]``, ``[2]``, ...). :func:`loads` and :func:`load` return a list of
:class:`HandHistory` either way; :func:`dumps` and :func:`dump_many` write them back, and
reading what they write gives equal objects (the round trip).

Player order: ``p1 ... pN`` is position order starting from the small blind, the button
last. Heads-up the forced bets are reverse-assigned, so ``p1`` is the big blind and ``p2``
the button/small blind (checked against every shared file: ``p2`` acts first preflop
heads-up, ``p3`` with three or more players). In :class:`PhhAction`, ``actor`` is the
0-based index: ``p1`` is ``0``.

Amounts are ``int`` in the smallest unit. A file may write amounts with decimals (a
cash-game stack of ``1259450.25``): ``unit_scale`` is then the smallest power of ten that
makes every amount that drives play whole (forced bets, bet sizes, starting stacks,
``cbr`` amounts), and every amount is stored multiplied by it; :func:`dumps` divides it
back out. Results (``finishing_stacks``, ``winnings``) are multiplied by the same scale but
never decide it: where they are still not whole (the Pluribus half-chip quirk,
``10162.5`` in a 1-chip game) they are kept exactly as :class:`~fractions.Fraction` and
:attr:`HandHistory.finishing_stacks_fractional` says so. A replay compares such a hand with
the odd-chip rule applied (POT-5), never with the half chip.

Decimals are read exactly (``decimal.Decimal``), never through binary floats. Fields the
engine does not use (``event``, ``hand``, ``day``, ``time``, ``time_zone``, user fields...)
are kept in :attr:`HandHistory.extra` as TOML gave them (floats as ``Decimal``).
Unknown stacks written as ``inf`` are refused: the engine replays finite stacks only.

Reading and writing text is pure; :mod:`controller.phh_files` reads files and walks
folders for the tools and tests that replay them.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from operator import attrgetter
from pathlib import PurePath
from typing import Any, Final

from controller.rules.errors import HandHistoryError
from controller.rules.phh_actions import (
    ACTION_KINDS,
    PhhAction,
    format_action,
    read_actions,
    scaled_actions,
)
from controller.rules.phh_amounts import (
    Number,
    Result,
    amount_text,
    decimal_places,
    exact,
    number_at,
    numbers_at,
    whole_all,
    whole_one,
)
from controller.rules.phh_text import parse_document, toml_key, toml_value

#: Required fields per variant (phh-std "Required Fields"); other variants need the
#: fields every hand needs.
VARIANT_FIELDS: Final[Mapping[str, tuple[str, ...]]] = {
    **dict.fromkeys(("NT", "NS", "PO", "N2L1D"), ("blinds_or_straddles", "min_bet")),
    **dict.fromkeys(("FT", "FO/8", "F2L3D", "FB"), ("blinds_or_straddles", "small_bet", "big_bet")),
    **dict.fromkeys(("F7S", "F7S/8", "FR"), ("bring_in", "small_bet", "big_bet")),
}
_ALWAYS: Final = ("variant", "antes", "starting_stacks", "actions")
_SCALAR_AMOUNTS: Final = ("min_bet", "small_bet", "big_bet", "bring_in")
_REQUIRED: Final = {variant: (*_ALWAYS, *fields) for variant, fields in VARIANT_FIELDS.items()}
_ALWAYS_SET: Final = frozenset(_ALWAYS)
_REQUIRED_SET: Final = {variant: frozenset(keys) for variant, keys in _REQUIRED.items()}
_KNOWN: Final = frozenset({
    *_ALWAYS, *_SCALAR_AMOUNTS, "blinds_or_straddles", "ante_trimming_status",
    "finishing_stacks", "winnings", "players", "seats", "seat_count",
})
_MAX_DECIMALS: Final = 6



@dataclass(frozen=True, slots=True)
class HandHistory:
    """One hand as PHH describes it; amounts in the smallest unit (see the module notes).

    Per-player arrays are in PHH player order (small blind first, button last) and all
    have one entry per player. ``extra`` keeps every other top-level key as read.
    """

    variant: str
    antes: tuple[int, ...]
    starting_stacks: tuple[int, ...]
    actions: tuple[PhhAction, ...] = ()
    blinds_or_straddles: tuple[int, ...] | None = None
    min_bet: int | None = None
    small_bet: int | None = None
    big_bet: int | None = None
    bring_in: int | None = None
    ante_trimming_status: bool = False
    finishing_stacks: tuple[Result, ...] | None = None
    winnings: tuple[Result, ...] | None = None
    players: tuple[str, ...] | None = None
    seats: tuple[int, ...] | None = None
    seat_count: int | None = None
    unit_scale: int = 1
    extra: Mapping[str, object] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        problem = _hand_problem(self)
        if problem:
            raise HandHistoryError(problem)

    @property
    def player_count(self) -> int:
        """How many players were dealt in (the length of every per-player array)."""
        return len(self.starting_stacks)

    @property
    def finishing_stacks_fractional(self) -> bool:
        """True when a finishing stack is not a whole unit (the Pluribus half chips)."""
        return any(isinstance(s, Fraction) for s in self.finishing_stacks or ())

    def play_amounts(self) -> Iterator[int]:
        """Every amount that drives play: forced bets, bet sizes, stacks, ``cbr`` totals."""
        yield from self.antes
        yield from self.blinds_or_straddles or ()
        yield from (a for a in (self.min_bet, self.small_bet, self.big_bet, self.bring_in)
                    if a is not None)
        yield from self.starting_stacks
        yield from (a.amount for a in self.actions if a.amount is not None)


def _hand_problem(h: HandHistory) -> str | None:
    n = len(h.starting_stacks)
    if n < 2:
        return f"a hand needs at least 2 players, starting_stacks has {n}"
    blinds, finishing, winnings = h.blinds_or_straddles, h.finishing_stacks, h.winnings
    if (len(h.antes) != n or (blinds is not None and len(blinds) != n)
            or (finishing is not None and len(finishing) != n)
            or (winnings is not None and len(winnings) != n)
            or (h.players is not None and len(h.players) != n)
            or (h.seats is not None and len(h.seats) != n)):
        for name, value in (("antes", h.antes), ("blinds_or_straddles", blinds),
                            ("finishing_stacks", finishing), ("winnings", winnings),
                            ("players", h.players), ("seats", h.seats)):
            if value is not None and len(value) != n:
                return f"{name} has {len(value)} entries for {n} players (one per player)"
    # every amount but the actions' (a PhhAction refuses a negative one itself)
    forced = [*h.antes, *(blinds or ()), *h.starting_stacks,
              *(a for a in (h.min_bet, h.small_bet, h.big_bet, h.bring_in) if a is not None)]
    if min(forced) < 0:
        return "amounts cannot be negative"
    if min((*(finishing or ()), *(winnings or ())), default=0) < 0:
        return "finishing_stacks and winnings cannot be negative"
    scale = h.unit_scale
    if scale != 1:
        if scale < 1 or 10 ** (len(str(scale)) - 1) != scale:
            return f"unit_scale must be a power of ten, not {scale}"
        if all(a % 10 == 0 for a in h.play_amounts()):
            return f"unit_scale {scale} is larger than the amounts need (use the smallest)"
    seated = _SEATED[n] if n < len(_SEATED) else frozenset({None, *range(n)})
    if not seated.issuperset(map(_ACTOR, h.actions)):
        for i, action in enumerate(h.actions, 1):
            if action.actor is not None and action.actor >= n:
                return f"action {i} {format_action(action)!r} names p{action.actor + 1} of {n}"
    return None


# who may act in a hand of n players: None (the dealer) and 0 .. n - 1
_SEATED: Final = tuple(frozenset({None, *range(n)}) for n in range(11))
_ACTOR: Final = attrgetter("actor")


# ---------------------------------------------------------------- reading


def loads(text: str, source: str = "<string>", *, fast: bool = True) -> list[HandHistory]:
    """Read PHH text: one hand (top-level keys) or several (tables ``[1]``, ``[2]`` ...).

    ``source`` names the text in errors (a file name). Raises :class:`HandHistoryError`.
    ``fast=False`` reads the TOML with :mod:`tomllib` alone: the reference that the fast
    reader (:mod:`controller.rules.phh_text`) is held to; the hands are the same.
    """
    return _loads(text, source, fast)[0]


def loads_file(text: str, name: str, *, fast: bool = True) -> list[HandHistory]:
    """Read the text of a file called ``name``: a ``.phh`` holds exactly one hand
    (top-level keys), a ``.phhs`` hands in tables. Reading the file is the caller's
    (:mod:`controller.phh_files`): the rules room does no I/O."""
    suffix = _suffix(name)
    hands, single = _loads(text, name, fast)
    if suffix == ".phh" and not single:
        raise HandHistoryError(f"{name}: a .phh file holds one hand as top-level keys; "
                               "hands in tables ([1], [2], ...) belong in a .phhs file")
    if suffix == ".phhs" and single:
        raise HandHistoryError(f"{name}: a .phhs file holds hands in tables ([1], [2], ...); "
                               "one hand as top-level keys belongs in a .phh file")
    return hands


def _suffix(name: str) -> str:
    """``PurePath(name).suffix``, read with str methods where the name is a plain path."""
    base = name.rpartition("/")[2]
    if not base or base in (".", "..") or "\\" in name:
        return PurePath(name).suffix
    dot = base.rfind(".")
    return base[dot:] if 0 < dot < len(base) - 1 else ""


def _loads(text: str, source: str, fast: bool) -> tuple[list[HandHistory], bool]:
    # The fast reader returns exactly what tomllib returns, or None for TOML beyond what
    # PHH files use: tomllib, the reference, reads those and words every TOML error.
    doc = parse_document(text) if fast else None
    if doc is None:
        try:
            doc = tomllib.loads(text, parse_float=Decimal)
        except tomllib.TOMLDecodeError as e:
            raise HandHistoryError(
                f"{source}: not valid TOML (PHH is a TOML dialect): {e}") from None
    # one hand at the top (a .phh, 'variant' there) has no hand tables to look for
    tables = {} if "variant" in doc else {k: v for k, v in doc.items() if isinstance(v, dict)}
    if not tables:
        return [_hand_from_table(doc, f"{source}, hand 1")], True
    if len(tables) != len(doc):
        loose = ", ".join(repr(k) for k in doc if k not in tables)
        raise HandHistoryError(
            f"{source}: top-level field(s) {loose} sit beside hand tables ([1], [2], ...): "
            "a .phh has one hand's fields at the top, a .phhs only hand tables")
    hands = [_hand_from_table(t, f"{source}, hand [{k}]") for k, t in tables.items()]
    return hands, False


def _hand_from_table(table: Mapping[str, object], where: str) -> HandHistory:
    try:
        hand = _usual_hand(table, where)
    except HandHistoryError:
        hand = None  # read it again below, to say what is wrong with it
    return _any_hand(table, where) if hand is None else hand


def _usual_hand(table: Mapping[str, Any], where: str) -> HandHistory | None:
    """The hand when its table is the usual one: a variant's required fields, every amount
    a whole number >= 0 (so nothing to scale), every field of the type it takes. None for
    anything else: :func:`_any_hand` reads it then, and says what is wrong with it. The
    hand is the one :func:`_any_hand` gives (tests/rules/test_phh_fast.py)."""
    get = table.get
    variant = get("variant")
    if type(variant) is not str or not table.keys() >= _REQUIRED_SET.get(variant, _ALWAYS_SET):
        return None
    actions, antes, stacks = get("actions"), get("antes"), get("starting_stacks")
    if type(actions) is not list or type(antes) is not list or type(stacks) is not list:
        return None
    amounts = antes + stacks
    blinds, finishing, winnings = get("blinds_or_straddles"), get("finishing_stacks"), get(
        "winnings")
    for array in (blinds, finishing, winnings):
        if array is not None:
            if type(array) is not list:
                return None
            amounts += array
    scalars = [get("min_bet"), get("small_bet"), get("big_bet"), get("bring_in")]
    amounts += [v for v in scalars if v is not None]
    if not _INT_ONLY.issuperset(map(type, amounts)) or min(amounts, default=0) < 0:
        return None
    players, seats = get("players"), get("seats")
    seat_count, trimming = get("seat_count"), get("ante_trimming_status", False)
    if ((players is not None and (type(players) is not list
                                  or not _STR_ONLY.issuperset(map(type, players))))
            or (seats is not None and (type(seats) is not list
                                       or not _INT_ONLY.issuperset(map(type, seats))))
            or (seat_count is not None and type(seat_count) is not int)
            or type(trimming) is not bool):
        return None
    parsed, whole = read_actions(actions, where)
    if not whole:
        return None
    min_bet, small_bet, big_bet, bring_in = scalars
    return HandHistory(
        variant, tuple(antes), tuple(stacks), tuple(parsed),  # type: ignore[arg-type]
        None if blinds is None else tuple(blinds),
        min_bet, small_bet, big_bet, bring_in, trimming,
        None if finishing is None else tuple(finishing),
        None if winnings is None else tuple(winnings),
        None if players is None else tuple(players),
        None if seats is None else tuple(seats),
        seat_count, 1, {k: v for k, v in table.items() if k not in _KNOWN})


_INT_ONLY: Final = frozenset({int})
_STR_ONLY: Final = frozenset({str})


def _any_hand(table: Mapping[str, object], where: str) -> HandHistory:
    """The hand of any table (amounts with decimals, the odd 'sm -'...), or the error."""
    def fail(problem: str) -> HandHistoryError:
        return HandHistoryError(f"{where}: {problem}")

    get = table.get
    variant = get("variant")
    if not isinstance(variant, str):
        raise fail("'variant' is missing or not a string (e.g. variant = \"NT\")")
    required = _REQUIRED.get(variant, _ALWAYS)
    if not all(k in table for k in required):
        missing = [k for k in required if k not in table]
        raise fail(f"missing required field(s) {', '.join(missing)} for variant {variant!r}")
    actions_raw = table["actions"]
    if not isinstance(actions_raw, list):
        raise fail("actions must be an array of strings")
    parsed, whole = read_actions(actions_raw, where)
    antes, whole_antes = numbers_at(table, "antes", fail)
    stacks, whole_stacks = numbers_at(table, "starting_stacks", fail)
    blinds, whole_blinds = numbers_at(table, "blinds_or_straddles", fail)
    finishing = numbers_at(table, "finishing_stacks", fail)[0]
    winnings = numbers_at(table, "winnings", fail)[0]
    antes, stacks = antes or [], stacks or []
    scalars = [number_at(table, k, fail) for k in _SCALAR_AMOUNTS]
    scale = 1  # ints only (the usual file): nothing to scale
    ints = (whole and whole_antes and whole_stacks and whole_blinds
            and all(type(v) is int for v in scalars if v is not None))
    if not ints:
        driving = [*antes, *stacks, *(blinds or ()), *(v for v in scalars if v is not None),
                   *(p[2] for p in parsed if type(p) is tuple and p[2] is not None)]
        decimals = max((decimal_places(v) for v in driving), default=0)
        if decimals > _MAX_DECIMALS:
            raise fail(f"amounts have {decimals} decimal places; at most {_MAX_DECIMALS} "
                       "are read")
        scale = 10 ** decimals
    players, seats = get("players"), get("seats")
    if players is not None and (not isinstance(players, list)
                                or not all(isinstance(p, str) for p in players)):
        raise fail("players must be an array of strings")
    if seats is not None and (not isinstance(seats, list) or not all(
            type(s) is int for s in seats)):
        raise fail("seats must be an array of integers")
    seat_count, trimming = get("seat_count"), get("ante_trimming_status", False)
    if seat_count is not None and type(seat_count) is not int:
        raise fail(f"seat_count must be an integer, got {seat_count!r}")
    if not isinstance(trimming, bool):
        raise fail(f"ante_trimming_status must be true or false, got {trimming!r}")
    min_bet, small_bet, big_bet, bring_in = scalars
    try:
        return HandHistory(
            variant=variant,
            antes=whole_all(antes, scale),
            starting_stacks=whole_all(stacks, scale),
            actions=(tuple(parsed) if ints  # type: ignore[arg-type]  # all PhhAction
                     else scaled_actions(parsed, scale)),
            blinds_or_straddles=None if blinds is None else whole_all(blinds, scale),
            min_bet=whole_one(min_bet, scale),
            small_bet=whole_one(small_bet, scale),
            big_bet=whole_one(big_bet, scale),
            bring_in=whole_one(bring_in, scale),
            ante_trimming_status=trimming,
            finishing_stacks=None if finishing is None else exact(finishing, scale),
            winnings=None if winnings is None else exact(winnings, scale),
            players=None if players is None else tuple(players),
            seats=None if seats is None else tuple(seats),
            seat_count=seat_count,
            unit_scale=scale,
            extra={k: v for k, v in table.items() if k not in _KNOWN},
        )
    except HandHistoryError as e:
        raise fail(e.reason) from None


# ---------------------------------------------------------------- writing


def dumps(hand: HandHistory) -> str:
    """The hand as ``.phh`` text that :func:`loads` reads back equal."""
    return "\n".join(_lines(hand)) + "\n"


def dumps_pair(hand: HandHistory, other_actions: Sequence[PhhAction]) -> tuple[str, str]:
    """The hand as ``.phh`` text, and the same hand with ``other_actions`` in place of its
    actions (as many; a public copy with the hole cards masked), written once: only the
    lines of the actions that differ are written again."""
    if len(other_actions) != len(hand.actions):
        raise HandHistoryError(f"{len(other_actions)} actions to put in place of "
                               f"{len(hand.actions)}")
    lines = list(_lines(hand))
    first = lines.index("actions = [") + 1
    other = lines.copy()
    for i, (mine, theirs) in enumerate(zip(hand.actions, other_actions, strict=True)):
        if theirs is not mine and theirs != mine:
            other[first + i] = f"  {toml_value(format_action(theirs, hand.unit_scale))},"
    return "\n".join(lines) + "\n", "\n".join(other) + "\n"


def dump_many(hands: Iterable[HandHistory]) -> str:
    """Several hands as ``.phhs`` text, in tables ``[1]``, ``[2]``, ... in the order given."""
    return "\n".join(f"[{i}]\n" + dumps(h) for i, h in enumerate(hands, 1))


def _lines(h: HandHistory) -> Iterator[str]:
    s = h.unit_scale

    def amounts(values: Sequence[Result]) -> str:
        return "[" + ", ".join(amount_text(v, s) for v in values) + "]"

    yield f"variant = {toml_value(h.variant)}"
    yield f"ante_trimming_status = {toml_value(h.ante_trimming_status)}"
    yield f"antes = {amounts(h.antes)}"
    if h.blinds_or_straddles is not None:
        yield f"blinds_or_straddles = {amounts(h.blinds_or_straddles)}"
    for key in _SCALAR_AMOUNTS:
        value = getattr(h, key)
        if value is not None:
            yield f"{key} = {amount_text(value, s)}"
    yield f"starting_stacks = {amounts(h.starting_stacks)}"
    yield "actions = ["
    yield from (f"  {toml_value(format_action(a, s))}," for a in h.actions)
    yield "]"
    if h.finishing_stacks is not None:
        yield f"finishing_stacks = {amounts(h.finishing_stacks)}"
    if h.winnings is not None:
        yield f"winnings = {amounts(h.winnings)}"
    for key in ("players", "seats", "seat_count"):
        value = getattr(h, key)
        if value is not None:
            yield f"{key} = {toml_value(value)}"
    for key, value in h.extra.items():
        if key in _KNOWN:
            raise HandHistoryError(f"extra field {key!r} is a HandHistory field; set it there")
        yield f"{toml_key(key)} = {toml_value(value)}"


__all__ = [
    "ACTION_KINDS", "VARIANT_FIELDS", "HandHistory", "Number", "PhhAction", "Result",
    "dump_many", "dumps", "dumps_pair", "format_action", "loads", "loads_file",
]
