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
from functools import lru_cache
from pathlib import PurePath
from typing import Final

from controller.rules.cards import Card
from controller.rules.errors import CardError, HandHistoryError
from controller.rules.phh_amounts import (
    Number,
    Result,
    decimal_places,
    exact,
    number_at,
    numbers_at,
    whole_all,
    whole_one,
)
from controller.rules.phh_text import parse_document, toml_key, toml_value

#: Action kinds: deal hole, deal board, fold, check/call, complete/bet/raise to,
#: show/muck, stand pat/discard, post bring-in, and a no-op (empty or comment only).
ACTION_KINDS: Final = frozenset({"dh", "db", "f", "cc", "cbr", "sm", "sd", "pb", "noop"})

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
_KNOWN: Final = frozenset({
    *_ALWAYS, *_SCALAR_AMOUNTS, "blinds_or_straddles", "ante_trimming_status",
    "finishing_stacks", "winnings", "players", "seats", "seat_count",
})
_MAX_DECIMALS: Final = 6



@dataclass(frozen=True, slots=True)
class PhhAction:
    """One action: ``d dh p1 AsKd``, ``d db 7h8h9c``, ``p1 f``, ``p1 cc``, ``p1 cbr 300``...

    ``actor`` is the 0-based player (``p1`` is 0): the one acting, or for ``dh`` the one
    dealt to; ``None`` for ``db`` and ``noop``. ``amount`` is the ``cbr`` total in the
    smallest unit. ``cards`` holds the cards (``None`` entries for ``??``); for ``sm`` and
    ``sd`` ``cards is None`` means a muck or standing pat (``p1 sm -`` is read as the
    player's dealt cards). ``text`` is the notation as read (not compared); :func:`dumps`
    writes :func:`format_action` of the fields.
    """

    actor: int | None
    kind: str
    amount: int | None = None
    cards: tuple[Card | None, ...] | None = None
    text: str = field(default="", compare=False)
    comment: str | None = None

    def __post_init__(self) -> None:
        problem = _action_problem(self)
        if problem:
            raise HandHistoryError(f"invalid action {self.kind!r}: {problem}")


def _action_problem(a: PhhAction) -> str | None:
    if a.kind not in ACTION_KINDS:
        return f"kind must be one of {sorted(ACTION_KINDS)}"
    if (a.actor is None) != (a.kind in ("db", "noop")):
        return "only 'db' and 'noop' have no player" if a.actor is None else "takes no player"
    if a.actor is not None and a.actor < 0:
        return "player index is 0-based and cannot be negative"
    if (a.amount is None) != (a.kind != "cbr"):
        return "'cbr' needs an amount and only 'cbr' has one"
    if a.amount is not None and a.amount < 0:
        return "amount cannot be negative"
    if a.kind in ("dh", "db") and not a.cards:
        return "a deal needs at least one card"
    if a.kind not in ("dh", "db", "sm", "sd") and a.cards is not None:
        return "takes no cards"
    if a.cards == ():
        return "cards, when given, are at least one card (None means none)"
    return None


def format_action(action: PhhAction, unit_scale: int = 1) -> str:
    """The canonical PHH notation of ``action`` (amount divided by ``unit_scale``)."""
    kind, who = action.kind, f"p{(action.actor or 0) + 1}"
    cards = "" if action.cards is None else "".join(
        "??" if c is None else str(c) for c in action.cards)
    if kind == "noop":
        body = ""
    elif kind == "db":
        body = f"d db {cards}"
    elif kind == "dh":
        body = f"d dh {who} {cards}"
    elif kind == "cbr":
        body = f"{who} cbr {_amount_text(action.amount or 0, unit_scale)}"
    else:
        body = f"{who} {kind} {cards}".rstrip()
    if action.comment is None:
        return body
    return f"{body} # {action.comment}" if body else f"# {action.comment}"


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
    for name, value in (("antes", h.antes), ("blinds_or_straddles", h.blinds_or_straddles),
                        ("finishing_stacks", h.finishing_stacks), ("winnings", h.winnings),
                        ("players", h.players), ("seats", h.seats)):
        if value is not None and len(value) != n:
            return f"{name} has {len(value)} entries for {n} players (one per player)"
    # every amount but the actions' (a PhhAction refuses a negative one itself)
    forced = [*h.antes, *(h.blinds_or_straddles or ()), *h.starting_stacks,
              *(a for a in (h.min_bet, h.small_bet, h.big_bet, h.bring_in) if a is not None)]
    if min(forced, default=0) < 0:
        return "amounts cannot be negative"
    if min((*(h.finishing_stacks or ()), *(h.winnings or ())), default=0) < 0:
        return "finishing_stacks and winnings cannot be negative"
    scale = h.unit_scale
    if scale < 1 or 10 ** (len(str(scale)) - 1) != scale:
        return f"unit_scale must be a power of ten, not {scale}"
    if scale > 1 and all(a % 10 == 0 for a in h.play_amounts()):
        return f"unit_scale {scale} is larger than the amounts need (use the smallest)"
    if max([a.actor for a in h.actions if a.actor is not None], default=-1) >= n:
        for i, action in enumerate(h.actions, 1):
            if action.actor is not None and action.actor >= n:
                return f"action {i} {format_action(action)!r} names p{action.actor + 1} of {n}"
    return None


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
    if not isinstance(actions_raw, list) or not set(map(type, actions_raw)) <= _STR_ONLY:
        raise fail("actions must be an array of strings")
    parsed, whole = _parse_actions(actions_raw, where)
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
                     else _scaled_actions(parsed, scale)),
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


_STR_ONLY: Final = frozenset({str})


# An action read from its text alone: a PhhAction, or its parts where the amount has
# decimals (the file's unit scale, known once every amount is read, makes it whole) or
# where it shows the cards dealt before it ('sm -', resolved by _parse_actions).
_Parsed = tuple[int | None, str, Decimal | None, tuple[Card | None, ...] | None, str, str | None]
# Reading an action is pure, and a corpus repeats a small vocabulary ('p2 cc', 'p3 f'...):
# the actions read last are kept (a bounded cache), in the spirit of string interning.
_REMEMBERED_ACTIONS: Final = 4096
_ACTIONS_ONLY: Final = frozenset({PhhAction})
# the cards of a card text of one or two cards ('As', 'AsKd', '??'), read so far
_CARD_TEXT: Final[dict[str, tuple[Card | None, ...]]] = {"??": (None,)}


def _parse_actions(texts: Sequence[str], where: str) -> tuple[list[PhhAction | _Parsed], bool]:
    """The actions read from their texts, and whether every one is a PhhAction already
    (no amount with decimals waits for the file's unit scale)."""
    try:
        out = list(map(_read_action, texts))
    except (HandHistoryError, CardError):
        out = []  # read them again, one by one, to say which action is wrong
    if len(out) == len(texts) and set(map(type, out)) == _ACTIONS_ONLY:
        return out, True  # the usual hand: nothing left to resolve
    out, whole = [], True
    for index, text in enumerate(texts, 1):
        try:
            action = _read_action(text)
            if type(action) is tuple:
                if action[1] == "sm":
                    action = _show_dealt(action, out)
                else:
                    whole = False
        except (HandHistoryError, CardError) as e:
            raise HandHistoryError(
                f"{where}, action {index} {text!r}: {getattr(e, 'reason', e)}") from None
        out.append(action)
    return out, whole


@lru_cache(maxsize=_REMEMBERED_ACTIONS)
def _read_action(text: str) -> PhhAction | _Parsed:
    words = text.split(" ")
    # the usual shapes: one space apart, no other white space (printable), no comment
    if len(words) > 2 and "#" not in text and text.isprintable():
        first, kind, last = words[0], words[1], words[-1]
        if first == "d":
            if len(words) == 4 and kind == "dh" and last:  # d dh p1 AsKd
                return _checked(_player(words[2]), "dh", None, _cards(last), text, None)
            if len(words) == 3 and kind == "db" and last:  # d db AsKd7c
                return _checked(None, "db", None, _cards(last), text, None)
        elif len(words) == 3 and last:
            if kind == "cbr" and len(last) < 19 and last.isascii() and last.isdigit():
                return _checked(_player(first), "cbr", int(last), None, text, None)
            if (kind == "sm" or kind == "sd") and last != "-":  # p1 sm AsKd
                return _checked(_player(first), kind, None, _cards(last), text, None)
    return _read_any_action(text)


def _read_any_action(text: str) -> PhhAction | _Parsed:
    body, hash_, after = text.partition("#")
    comment = after.strip() if hash_ else None
    words = body.split()
    if not words:
        return PhhAction(None, "noop", None, None, text, comment)
    if words[0] == "d":
        if len(words) == 3 and words[1] == "db":
            return PhhAction(None, "db", None, _cards(words[2]), text, comment)
        if len(words) == 4 and words[1] == "dh":
            return PhhAction(_player(words[2]), "dh", None, _cards(words[3]), text, comment)
        raise HandHistoryError("unknown dealer action: expected 'd db CARDS' or 'd dh pN CARDS'")
    actor, kind, args = _player(words[0]), words[1] if len(words) > 1 else "", words[2:]
    if kind in ("f", "cc", "pb") and not args:
        return PhhAction(actor, kind, None, None, text, comment)
    if kind == "cbr" and len(args) == 1:
        word = args[0]
        if len(word) < 19 and word.isascii() and word.isdigit():  # the usual whole amount
            return PhhAction(actor, kind, int(word), None, text, comment)
        try:
            amount = Decimal(word)
        except ArithmeticError:
            amount = Decimal("NaN")
        if not amount.is_finite() or amount < 0:
            raise HandHistoryError(f"'cbr' needs an amount >= 0, got {word!r}")
        return actor, kind, amount, None, text, comment
    if kind in ("sm", "sd") and len(args) <= 1:
        if not args:
            return PhhAction(actor, kind, None, None, text, comment)
        if kind == "sm" and args[0] == "-":
            return actor, kind, None, None, text, comment
        return PhhAction(actor, kind, None, _cards(args[0]), text, comment)
    raise HandHistoryError(
        f"unknown action {' '.join(words[1:])!r}: a player may 'f', 'cc', 'cbr AMOUNT', "
        "'sm [CARDS|-]', 'sd [CARDS]' or 'pb'")


_NEW: Final = object.__new__
_SET_FIELDS: Final = tuple(PhhAction.__dict__[name].__set__ for name in (
    "actor", "kind", "amount", "cards", "text", "comment"))


def _checked(actor: int | None, kind: str, amount: int | None,
             cards: tuple[Card | None, ...] | None, text: str,
             comment: str | None) -> PhhAction:
    """A PhhAction whose fields the reader has just made valid (a known kind, an actor
    >= 0 where one belongs, cards read, an amount >= 0 for 'cbr' only): built without
    checking them again (``PhhAction.__post_init__``), the reader's hot path."""
    action: PhhAction = _NEW(PhhAction)
    set_actor, set_kind, set_amount, set_cards, set_text, set_comment = _SET_FIELDS
    set_actor(action, actor)
    set_kind(action, kind)
    set_amount(action, amount)
    set_cards(action, cards)
    set_text(action, text)
    set_comment(action, comment)
    return action


def _show_dealt(parsed: _Parsed, before: list[PhhAction | _Parsed]) -> PhhAction:
    """``pN sm -``: the player shows the cards dealt to them (``dh``), less the ones they
    discarded (``sd``), in the order dealt."""
    actor = parsed[0]
    assert actor is not None
    dealt: list[Card | None] = []
    for a in before:
        if type(a) is PhhAction and a.actor == actor and a.cards is not None:
            if a.kind == "dh":
                dealt.extend(a.cards)
            elif a.kind == "sd":
                for card in a.cards:
                    if card in dealt:
                        dealt.remove(card)
    if not dealt:
        raise HandHistoryError(f"'sm -' shows the cards dealt to p{actor + 1}, "
                               "who was dealt none")
    return PhhAction(actor, "sm", None, tuple(dealt), parsed[4], parsed[5])


def _scaled_actions(parsed: list[PhhAction | _Parsed], scale: int) -> tuple[PhhAction, ...]:
    if scale == 1 and all(type(a) is PhhAction for a in parsed):
        return tuple(parsed)  # type: ignore[arg-type]  # all PhhAction, checked just above
    return tuple(_at_scale(a, scale) for a in parsed)


def _at_scale(action: PhhAction | _Parsed, scale: int) -> PhhAction:
    """The action with its amount in the smallest unit."""
    if type(action) is PhhAction:
        if action.amount is None or scale == 1:
            return action
        return PhhAction(action.actor, action.kind, action.amount * scale, action.cards,
                         action.text, action.comment)
    actor, kind, amount, cards, text, comment = action  # type: ignore[misc]
    return PhhAction(actor, kind, None if amount is None else int(Fraction(amount) * scale),
                     cards, text, comment)


def _player(word: str) -> int:
    digits = word[1:]  # p1, p2, ... (p0 and p01 are no players)
    if word[:1] == "p" and digits.isascii() and digits.isdigit() and digits[0] != "0":
        return int(digits) - 1
    raise HandHistoryError(f"{word!r} is not a player: write p1, p2, ... (or d for the dealer)")


def _cards(word: str) -> tuple[Card | None, ...]:
    known = _CARD_TEXT
    cards = known.get(word)  # a card, or a pair of them: hold'em's hole cards
    if cards is not None:
        return cards
    if len(word) % 2:
        raise HandHistoryError(f"{word!r} does not split into two-character cards ('AsKd', '??')")
    pieces = [word[i:i + 2] for i in range(0, len(word), 2)]
    for piece in pieces:
        if piece not in known:
            known[piece] = (Card.parse(piece),)  # raises for a text that is no card
    cards = tuple([c for piece in pieces for c in known[piece]])
    if len(word) == 4:
        known[word] = cards  # at most 53 x 53 pairs: the deck's, never the corpus's
    return cards


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
        return "[" + ", ".join(_amount_text(v, s) for v in values) + "]"

    yield f"variant = {toml_value(h.variant)}"
    yield f"ante_trimming_status = {toml_value(h.ante_trimming_status)}"
    yield f"antes = {amounts(h.antes)}"
    if h.blinds_or_straddles is not None:
        yield f"blinds_or_straddles = {amounts(h.blinds_or_straddles)}"
    for key in _SCALAR_AMOUNTS:
        value = getattr(h, key)
        if value is not None:
            yield f"{key} = {_amount_text(value, s)}"
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


def _amount_text(value: Result, scale: int) -> str:
    if scale == 1 and type(value) is int:  # nearly every amount: a whole number of units
        return str(value)
    exact = Fraction(value) / scale
    if exact.denominator == 1:
        return str(exact.numerator)
    for places in range(1, 31):
        shifted = exact * 10 ** places
        if shifted.denominator == 1:
            digits = str(abs(shifted.numerator)).rjust(places + 1, "0")
            sign = "-" if shifted < 0 else ""
            return f"{sign}{digits[:-places]}.{digits[-places:]}"
    raise HandHistoryError(f"{value} / {scale} has no exact decimal form to write in PHH")


__all__ = [
    "ACTION_KINDS", "VARIANT_FIELDS", "HandHistory", "Number", "PhhAction", "Result",
    "dump_many", "dumps", "dumps_pair", "format_action", "loads", "loads_file",
]
