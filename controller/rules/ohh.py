"""Read Open Hand History (OHH 1.4.x, https://hh-specs.handhistory.org) into the
:class:`~controller.rules.phh.HandHistory` the PHH reader gives, so ``pitboss replay``
checks an OHH file exactly as it checks a PHH one (:mod:`controller.rules.ohh_write`
writes them).

A file holds one or more ``{"ohh": {...}}`` objects, each separated from the next by a
blank line (the spec's storage format); :func:`loads` reads them all. Amounts are decimal
numbers of the currency, read exactly (``decimal.Decimal``, never binary floats). As in
the PHH reader, ``unit_scale`` is the smallest power of ten that makes every amount that
drives play whole. A Pitboss export carries a ``pitboss`` object (the table's unit, rules
and rake, for which OHH has no field): then the amounts are read back in the table's own
unit (cents, kr, chips; ``unit_scale`` 1, as the table's PHH of the same hand) and the hand
replays under the rules and the rake it was played under.

How OHH maps onto PHH:

* players: position order, the first seat clockwise after ``dealer_seat`` first and the
  button last (PHH's p1..pN; heads-up p1 is the big blind);
* Post SB / Post BB: a blind of the table's ``small_blind_amount`` / ``big_blind_amount``
  (the engine takes what a short stack has); Straddle, Post Extra Blind: a blind of the
  amount posted; Post Ante, Post Dead: that player's ante (dead money, as PHH antes are);
* Dealt Cards: ``d dh``; a player without one is dealt unknown cards (``??``), as many as
  the game deals;
* Fold, Check, Call: ``f``, ``cc``, ``cc``; Bet and Raise: ``cbr`` to the player's total
  for the round (OHH's amount is what the action put in); Add to Pot by a player who then
  folds: chips that player leaves in the pot (LIVE-2); Shows Cards: ``sm CARDS``; Mucks
  Cards: ``sm``; each Flop, Turn and River round's cards: ``d db``;
* the finishing stacks: the starting stack, less what the player put in, plus what the pots
  paid them. Left out when the pots paid rake or a jackpot and the file does not give the
  rake policy: the replay could not take the same, so it has nothing to compare.

Sits Down and Stands Up change nothing in the hand and are skipped; Added Chips and Player
Adjustment change a stack outside the pot and are refused. Every error names the source,
the hand and the field, e.g. ``day.ohh, hand 2: ohh.rounds[1].actions[0].amount: ...``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import Final, NoReturn

from controller.rules.cards import Card
from controller.rules.errors import CardError, HandHistoryError
from controller.rules.phh import HandHistory, PhhAction, Result
from controller.rules.replay import RAKE_FIELD, RAKE_TAKEN_FIELD, RULES_FIELD

SPEC_VERSION: Final = "1.4.7"
SPEC_URL: Final = "https://hh-specs.handhistory.org"
#: Pitboss's own object inside ``ohh`` (see ohh_schema.json, $defs/pitboss)
EXTENSION: Final = "pitboss"
#: (game_type, bet_type) -> the PHH variant Pitboss plays
VARIANTS: Final[Mapping[tuple[str, str], str]] = {
    ("Holdem", "NL"): "NT", ("Omaha", "PL"): "PO", ("Holdem", "FL"): "FT"}
GAMES: Final[Mapping[str, tuple[str, str]]] = {v: k for k, v in VARIANTS.items()}
HOLE_CARDS: Final[Mapping[str, int]] = {"Holdem": 2, "Omaha": 4}
#: the board cards each street's round deals
BOARD: Final[Mapping[str, int]] = {"Flop": 3, "Turn": 1, "River": 1}
POSTS: Final = ("Post SB", "Post BB", "Straddle", "Post Extra Blind", "Post Ante", "Post Dead")
SKIPPED: Final = ("Sits Down", "Stands Up")
REFUSED: Final = ("Added Chips", "Player Adjustment")
ACTIONS: Final = ("Dealt Cards", "Fold", "Check", "Call", "Bet", "Raise", "Shows Cards",
                  "Mucks Cards", "Add to Pot", *POSTS, *SKIPPED, *REFUSED)
_MAX_DECIMALS: Final = 6
_FORFEIT: Final = "forfeits {} (LIVE-2)"  # controller.rules.replay reads folds back by these
_DEAD: Final = "dead hand ({})"


def loads(text: str, source: str = "<string>") -> list[HandHistory]:
    """Every hand of an OHH file's text (``{"ohh": ...}`` objects separated by blank
    lines); ``source`` names it in errors. Raises :class:`HandHistoryError`."""
    decoder = json.JSONDecoder(parse_float=Decimal, parse_constant=_no_constant)
    hands: list[HandHistory] = []
    pos = 1 if text.startswith("\ufeff") else 0  # a byte-order mark some editors write
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            break
        where = f"{source}, hand {len(hands) + 1}"
        try:
            doc, pos = decoder.raw_decode(text, pos)
        except (json.JSONDecodeError, ValueError) as exc:
            problem = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
            line = f" (line {exc.lineno}, column {exc.colno})" \
                if isinstance(exc, json.JSONDecodeError) else ""
            raise HandHistoryError(f"{where}: not valid JSON{line}: {problem}; an OHH file "
                                   "holds {\"ohh\": ...} objects separated by a blank line"
                                   ) from None
        if not isinstance(doc, dict) or "ohh" not in doc:
            raise HandHistoryError(f"{where}: expected an object {{\"ohh\": {{...}}}} (the "
                                   "spec's root object), got "
                                   f"{_kind(doc) if not isinstance(doc, dict) else 'no ohh key'}")
        hands.append(history_from_ohh(doc["ohh"], where))
    if not hands:
        raise HandHistoryError(f"{source}: no hand in it: an OHH file holds one or more "
                               "{\"ohh\": ...} objects")
    return hands


def _no_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not a number JSON allows")


def looks_like_ohh(text: str) -> bool:
    """Whether a file's text is JSON (OHH) rather than TOML (PHH): a JSON object first."""
    return text.lstrip("\ufeff \t\r\n").startswith("{")


# ---------------------------------------------------------------- reading one hand


def _kind(value: object) -> str:
    return "null" if value is None else type(value).__name__


class _Fields:
    """Typed reads of one hand's JSON, each error naming the field's path."""

    def __init__(self, where: str) -> None:
        self.where = where

    def fail(self, path: str, problem: str) -> HandHistoryError:
        return HandHistoryError(f"{self.where}: {path}: {problem}")

    def mapping(self, value: object, path: str) -> Mapping[str, object]:
        if not isinstance(value, dict):
            raise self.fail(path, f"must be an object, got {_kind(value)}")
        return value

    def array(self, doc: Mapping[str, object], key: str, path: str) -> list[object]:
        value = doc.get(key)
        if not isinstance(value, list):
            raise self.fail(f"{path}.{key}", f"must be an array, got {_kind(value)}")
        return value

    def text(self, doc: Mapping[str, object], key: str, path: str) -> str:
        value = doc.get(key)
        if not isinstance(value, str):
            raise self.fail(f"{path}.{key}", f"must be a string, got {_kind(value)}")
        return value

    def integer(self, doc: Mapping[str, object], key: str, path: str) -> int:
        value = doc.get(key)
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(f"{path}.{key}", f"must be a whole number, got {value!r}")
        return value

    def amount(self, doc: Mapping[str, object], key: str, path: str, *,
               required: bool = True) -> Fraction | None:
        value = doc.get(key)
        if value is None and not required:
            return None
        if isinstance(value, bool) or not isinstance(value, int | Decimal):
            raise self.fail(f"{path}.{key}", f"must be a number, got {value!r}")
        if value < 0:
            raise self.fail(f"{path}.{key}", f"cannot be negative, got {value}")
        return Fraction(value)

    def cards(self, doc: Mapping[str, object], key: str, path: str) -> tuple[Card, ...]:
        value = doc.get(key)
        if not isinstance(value, list) or not value:
            raise self.fail(f"{path}.{key}", f"must be an array of cards such as [\"As\", "
                            f"\"Kd\"], got {value!r}")
        try:
            return tuple(Card.parse(c) if isinstance(c, str) else _bad_card(c) for c in value)
        except CardError as exc:
            raise self.fail(f"{path}.{key}", exc.reason) from None


def _bad_card(value: object) -> Card:
    raise CardError(f"a card is a string such as \"As\", not {value!r}")


@dataclass
class _Hand:
    """What one hand's rounds and pots say, amounts exact, before they are scaled."""

    n: int
    antes: list[Fraction]
    blinds: list[Fraction]
    put: list[Fraction]
    wins: list[Fraction]
    dealt: list[tuple[Card, ...] | None]
    steps: list[tuple[int | None, str, object]] = field(default_factory=list)
    forfeits: dict[int, Fraction] = field(default_factory=dict)
    taken: Fraction = Fraction(0)  # rake and jackpot the pots paid


def history_from_ohh(ohh: object, where: str) -> HandHistory:
    """One ``ohh`` object as the hand history the PHH reader would give; ``where`` names
    it in errors (``file, hand 3``)."""
    f = _Fields(where)
    doc = f.mapping(ohh, "ohh")
    game, bet_type = f.text(doc, "game_type", "ohh"), f.text(
        f.mapping(doc.get("bet_limit"), "ohh.bet_limit"), "bet_type", "ohh.bet_limit")
    variant = VARIANTS.get((game, bet_type))
    if variant is None:
        raise f.fail("ohh.game_type", f"{game} {bet_type} is not a game Pitboss plays: "
                     "Holdem NL, Omaha PL or Holdem FL")
    ext = f.mapping(doc[EXTENSION], f"ohh.{EXTENSION}") if EXTENSION in doc else None
    order = _players(f, doc)
    ids = {pid: i for i, (pid, _, _, _) in enumerate(order)}
    small = f.amount(doc, "small_blind_amount", "ohh", required=False) or Fraction(0)
    big = f.amount(doc, "big_blind_amount", "ohh", required=False) or Fraction(0)
    n = len(order)
    hand = _Hand(n, [Fraction(0)] * n, [Fraction(0)] * n, [Fraction(0)] * n,
                 [Fraction(0)] * n, [None] * n)
    _rounds(f, doc, hand, ids, (small, big), _dead_hands(f, ext), HOLE_CARDS[game])
    _pots(f, doc, hand, ids)
    return _history(f, doc, hand, order, variant, game, big, ext)


def _players(f: _Fields, doc: Mapping[str, object]) -> list[tuple[int, int, str, Fraction]]:
    """(id, seat, name, starting stack) of those dealt in, in PHH's position order."""
    dealer = f.integer(doc, "dealer_seat", "ohh")
    seated = []
    for k, raw in enumerate(f.array(doc, "players", "ohh")):
        path = f"ohh.players[{k}]"
        p = f.mapping(raw, path)
        if p.get("is_sitting_out") is True:
            continue
        stack = f.amount(p, "starting_stack", path)
        assert stack is not None
        name = p.get("name")
        seated.append((f.integer(p, "id", path), f.integer(p, "seat", path),
                       name if isinstance(name, str) and name else f"seat {p.get('seat')}",
                       stack))
    if len(seated) < 2:
        raise f.fail("ohh.players", f"a hand needs at least 2 players dealt in, not "
                     f"{len(seated)}")
    for key, what in ((0, "id"), (1, "seat")):
        values = [s[key] for s in seated]
        if len(set(values)) != len(values):
            raise f.fail("ohh.players", f"two players have the same {what}")
    seated.sort(key=lambda s: s[1])
    first = next((k for k, s in enumerate(seated) if s[1] > dealer), 0)  # left of the button
    return seated[first:] + seated[:first]


def _dead_hands(f: _Fields, ext: Mapping[str, object] | None) -> Mapping[str, str]:
    raw = (ext or {}).get("dead_hands", {})
    dead = f.mapping(raw, f"ohh.{EXTENSION}.dead_hands")
    if not all(isinstance(v, str) for v in dead.values()):
        raise f.fail(f"ohh.{EXTENSION}.dead_hands", "maps action numbers to rule ids")
    return {k: str(v) for k, v in dead.items()}


def _rounds(f: _Fields, doc: Mapping[str, object], hand: _Hand, ids: Mapping[int, int],
            nominal: tuple[Fraction, Fraction], dead: Mapping[str, str], holes: int) -> None:
    """Walk the rounds in order of their id, as the hand was played."""
    raw = [(f.mapping(r, f"ohh.rounds[{k}]"), k)
           for k, r in enumerate(f.array(doc, "rounds", "ohh"))]
    rounds = sorted(raw, key=lambda rk: f.integer(rk[0], "id", f"ohh.rounds[{rk[1]}]"))
    if not rounds or rounds[0][0].get("street") != "Preflop":
        raise f.fail("ohh.rounds", "every hand has round 0, Preflop")
    bets = [Fraction(0)] * hand.n
    for r, k in rounds:
        path = f"ohh.rounds[{k}]"
        street = f.text(r, "street", path)
        if street in BOARD:
            cards = f.cards(r, "cards", path)
            if len(cards) != BOARD[street]:
                raise f.fail(f"{path}.cards", f"the {street} deals {BOARD[street]} "
                             f"card(s), not {len(cards)}")
            hand.steps.append((None, "db", cards))
            bets = [Fraction(0)] * hand.n
        elif street not in ("Preflop", "Showdown"):
            raise f.fail(f"{path}.street", f"must be Preflop, Flop, Turn, River or Showdown, "
                         f"not {street!r}")
        for j, a in enumerate(f.array(r, "actions", path)):
            _action(f, f.mapping(a, f"{path}.actions[{j}]"), f"{path}.actions[{j}]", hand,
                    ids, bets, nominal, dead, holes)
    if hand.forfeits:
        i = next(iter(hand.forfeits))
        raise f.fail("ohh.rounds", f"player {_id_of(ids, i)} adds chips to the pot and does "
                     "not fold: Pitboss reads Add to Pot only as chips a folding player "
                     "leaves in the pot (LIVE-2)")


def _id_of(ids: Mapping[int, int], index: int) -> int:
    return next(pid for pid, i in ids.items() if i == index)


def _action(f: _Fields, a: Mapping[str, object], path: str, hand: _Hand,
            ids: Mapping[int, int], bets: list[Fraction], nominal: tuple[Fraction, Fraction],
            dead: Mapping[str, str], holes: int) -> None:
    kind = f.text(a, "action", path)
    if kind not in ACTIONS:
        raise f.fail(f"{path}.action", f"{kind!r} is not an OHH action ({', '.join(ACTIONS)})")
    if kind in SKIPPED:
        return
    if kind in REFUSED:
        raise f.fail(f"{path}.action", f"{kind} changes a stack outside the pot during the "
                     "hand; Pitboss replays hands whose stacks change only through the pot")
    pid = a.get("player_id")
    if isinstance(pid, bool) or not isinstance(pid, int) or pid not in ids:
        raise f.fail(f"{path}.player_id", f"must name a player dealt in ({sorted(ids)}), "
                     f"got {pid!r}")
    i = ids[pid]
    amount = f.amount(a, "amount", path, required=kind in (*POSTS, "Call", "Bet", "Raise",
                                                            "Add to Pot")) or Fraction(0)
    hand.put[i] += amount
    if kind == "Dealt Cards":
        cards = f.cards(a, "cards", path)
        if len(cards) != holes:
            raise f.fail(f"{path}.cards", f"this game deals {holes} hole cards, not {len(cards)}")
        hand.dealt[i] = cards
    elif kind in ("Post SB", "Post BB"):
        hand.blinds[i] = max(nominal[kind == "Post BB"], amount)
        bets[i] += amount
    elif kind in ("Straddle", "Post Extra Blind"):
        hand.blinds[i] += amount
        bets[i] += amount
    elif kind in ("Post Ante", "Post Dead"):
        hand.antes[i] += amount
    elif kind == "Add to Pot":
        hand.forfeits[i] = hand.forfeits.get(i, Fraction(0)) + amount
    elif kind == "Fold":
        number = a.get("action_number")
        rule = dead.get(str(number))
        forfeit = hand.forfeits.pop(i, None)
        hand.steps.append((i, "f", ("dead", rule) if rule else ("forfeit", forfeit)))
    elif kind in ("Check", "Call"):
        bets[i] += amount
        hand.steps.append((i, "cc", None))
    elif kind in ("Bet", "Raise"):
        bets[i] += amount
        hand.steps.append((i, "cbr", bets[i]))
    elif kind == "Shows Cards":
        hand.steps.append((i, "sm", f.cards(a, "cards", path)))
    else:  # Mucks Cards
        hand.steps.append((i, "sm", None))


def _pots(f: _Fields, doc: Mapping[str, object], hand: _Hand, ids: Mapping[int, int]) -> None:
    for k, raw in enumerate(f.array(doc, "pots", "ohh")):
        path = f"ohh.pots[{k}]"
        pot = f.mapping(raw, path)
        for key in ("rake", "jackpot"):
            hand.taken += f.amount(pot, key, path, required=False) or Fraction(0)
        for j, w in enumerate(f.array(pot, "player_wins", path)):
            wpath = f"{path}.player_wins[{j}]"
            win = f.mapping(w, wpath)
            pid = win.get("player_id")
            if isinstance(pid, bool) or not isinstance(pid, int) or pid not in ids:
                raise f.fail(f"{wpath}.player_id", f"must name a player dealt in, got {pid!r}")
            hand.wins[ids[pid]] += f.amount(win, "win_amount", wpath) or Fraction(0)


# ---------------------------------------------------------------- the hand history


def _scale(f: _Fields, hand: _Hand, starts: Sequence[Fraction],
           ext: Mapping[str, object] | None) -> int:
    """How many of the history's smallest unit make one of the file's amounts."""
    driving = [*hand.antes, *hand.blinds, *starts,
               *(s[2] for s in hand.steps if isinstance(s[2], Fraction))]
    if ext is not None:
        per = f.integer(ext, "per_currency_unit", f"ohh.{EXTENSION}")
        if per < 1:
            raise f.fail(f"ohh.{EXTENSION}.per_currency_unit", "must be at least 1")
        if any((v * per).denominator != 1 for v in driving):
            raise f.fail(f"ohh.{EXTENSION}.per_currency_unit", f"{per} does not make every "
                         "amount a whole number of the table's unit")
        return per
    places = 0
    for v in driving:
        while (v * 10 ** places).denominator != 1:
            places += 1
            if places > _MAX_DECIMALS:
                raise f.fail("ohh", f"amounts have more than {_MAX_DECIMALS} decimal places")
    scale: int = 10 ** places
    return scale


def _history(f: _Fields, doc: Mapping[str, object], hand: _Hand,
             order: Sequence[tuple[int, int, str, Fraction]], variant: str, game: str,
             big: Fraction, ext: Mapping[str, object] | None) -> HandHistory:
    starts = [p[3] for p in order]
    scale = _scale(f, hand, starts, ext)

    def whole(v: Fraction) -> int:
        exact = v * scale
        if exact.denominator != 1:
            raise f.fail("ohh", f"amount {float(v)} is not a whole number of the hand's unit")
        return int(exact)

    def result(v: Fraction) -> Result:
        exact = v * scale
        return int(exact) if exact.denominator == 1 else exact

    n = hand.n
    actions = [PhhAction(i, "dh", cards=hand.dealt[i] or (None,) * HOLE_CARDS[game])
               for i in range(n)]
    for actor, kind, arg in hand.steps:
        actions.append(_phh_action(actor, kind, arg, whole))
    antes, blinds = [whole(v) for v in hand.antes], [whole(v) for v in hand.blinds]
    if n == 2:  # heads-up PHH writes forced bets small blind poster first (see phh.py)
        antes.reverse()
        blinds.reverse()
    extra: dict[str, object] = {}
    rake_policy = None
    if ext is not None:
        for key, name in (("rules", RULES_FIELD), ("rake", RAKE_FIELD)):
            if ext.get(key) is not None:
                extra[name] = f.mapping(ext[key], f"ohh.{EXTENSION}.{key}")
        rake_policy = extra.get(RAKE_FIELD)
        if rake_policy is not None:
            extra[RAKE_TAKEN_FIELD] = whole(hand.taken)
    finishing: tuple[Result, ...] | None = tuple(
        result(starts[i] - hand.put[i] + hand.wins[i]) for i in range(n))
    if hand.taken and rake_policy is None:
        finishing = None  # rake by a policy the file does not give: nothing to compare
    small_bet = big_bet = None
    if variant == "FT":
        small_bet, big_bet = whole(big), whole(2 * big)
        if ext is not None and "small_bet" in ext and "big_bet" in ext:
            small_bet = f.integer(ext, "small_bet", f"ohh.{EXTENSION}")
            big_bet = f.integer(ext, "big_bet", f"ohh.{EXTENSION}")
    table_size = doc.get("table_size")
    try:
        return HandHistory(
            variant=variant, antes=tuple(antes), starting_stacks=tuple(map(whole, starts)),
            actions=tuple(actions), blinds_or_straddles=tuple(blinds),
            min_bet=whole(big) if variant != "FT" else None, small_bet=small_bet,
            big_bet=big_bet, finishing_stacks=finishing,
            players=tuple(p[2] for p in order), seats=tuple(p[1] for p in order),
            seat_count=table_size if type(table_size) is int else None,
            unit_scale=1 if ext is not None else scale, extra=extra)
    except HandHistoryError as exc:
        raise f.fail("ohh", exc.reason) from None


def _phh_action(actor: int | None, kind: str, arg: object,
                whole: Callable[[Fraction], int]) -> PhhAction:
    if kind == "db":
        assert isinstance(arg, tuple)
        return PhhAction(None, "db", cards=arg)
    if kind == "cbr":
        assert isinstance(arg, Fraction)
        return PhhAction(actor, "cbr", amount=whole(arg))
    if kind == "f":
        assert isinstance(arg, tuple)
        why, value = arg
        if why == "dead":
            return PhhAction(actor, "f", comment=_DEAD.format(value))
        if isinstance(value, Fraction) and value:
            return PhhAction(actor, "f", comment=_FORFEIT.format(whole(value)))
        return PhhAction(actor, "f")
    if kind == "sm":
        return PhhAction(actor, "sm", cards=arg if isinstance(arg, tuple) else None)
    return PhhAction(actor, kind)


__all__ = ["ACTIONS", "EXTENSION", "GAMES", "HOLE_CARDS", "SPEC_URL", "SPEC_VERSION",
           "VARIANTS", "history_from_ohh", "loads", "looks_like_ohh"]
