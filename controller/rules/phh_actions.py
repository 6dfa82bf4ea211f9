"""The actions of a PHH hand (:mod:`controller.rules.phh`): :class:`PhhAction`, its
notation written (:func:`format_action`) and read (:func:`read_actions`).

Reading is the hot path of ``pitboss replay`` on a corpus (``pitboss bench phh``): the
usual texts (``p3 f``, ``p2 cc``, ``d dh p1 AsKd``, ``p2 cbr 300``, ``d db 7h8h9c``...)
are read with string methods and tables of the format's small vocabulary, built once
(players ``p1``..``p99``; the bare actions of ``p1``..``p10``; the deck's cards and pairs
of cards, filled as they are read); anything else goes through the general reader, which
also words every error. Both give the same actions (tests/rules/test_phh_fast.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import Final

from controller.rules.cards import Card
from controller.rules.errors import CardError, HandHistoryError
from controller.rules.phh_amounts import amount_text

#: Action kinds: deal hole, deal board, fold, check/call, complete/bet/raise to,
#: show/muck, stand pat/discard, post bring-in, and a no-op (empty or comment only).
ACTION_KINDS: Final = frozenset({"dh", "db", "f", "cc", "cbr", "sm", "sd", "pb", "noop"})


@dataclass(frozen=True, slots=True)
class PhhAction:
    """One action: ``d dh p1 AsKd``, ``d db 7h8h9c``, ``p1 f``, ``p1 cc``, ``p1 cbr 300``...

    ``actor`` is the 0-based player (``p1`` is 0): the one acting, or for ``dh`` the one
    dealt to; ``None`` for ``db`` and ``noop``. ``amount`` is the ``cbr`` total in the
    smallest unit. ``cards`` holds the cards (``None`` entries for ``??``); for ``sm`` and
    ``sd`` ``cards is None`` means a muck or standing pat (``p1 sm -`` is read as the
    player's dealt cards). ``text`` is the notation as read (not compared);
    :func:`~controller.rules.phh.dumps` writes :func:`format_action` of the fields.
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
        body = f"{who} cbr {amount_text(action.amount or 0, unit_scale)}"
    else:
        body = f"{who} {kind} {cards}".rstrip()
    if action.comment is None:
        return body
    return f"{body} # {action.comment}" if body else f"# {action.comment}"


# ---------------------------------------------------------------- reading


# An action read from its text alone: a PhhAction, or its parts where the amount has
# decimals (the file's unit scale, known once every amount is read, makes it whole) or
# where it shows the cards dealt before it ('sm -', resolved by read_actions).
Parsed = tuple[int | None, str, Decimal | None, tuple[Card | None, ...] | None, str, str | None]

_NEW: Final = object.__new__
_SET_FIELDS: Final = tuple(vars(PhhAction)[name].__set__ for name in (
    "actor", "kind", "amount", "cards", "text", "comment"))


def _compiled() -> bool:
    """Whether PhhAction is a compiled class (mypyc), which makes its own objects fast."""
    try:
        _NEW(PhhAction)
    except TypeError:  # object.__new__(PhhAction) is not safe
        return True
    return False


_COMPILED: Final = _compiled()


def _checked(actor: int | None, kind: str, amount: int | None,
             cards: tuple[Card | None, ...] | None, text: str) -> PhhAction:
    """A PhhAction (no comment) whose fields the reader has just made valid (a known kind,
    an actor >= 0 where one belongs, cards read, an amount >= 0 for 'cbr' only): built
    without checking them again (``PhhAction.__post_init__``), the reader's hot path."""
    if _COMPILED:
        return PhhAction(actor, kind, amount, cards, text)
    action: PhhAction = _NEW(PhhAction)
    set_actor, set_kind, set_amount, set_cards, set_text, set_comment = _SET_FIELDS
    set_actor(action, actor)
    set_kind(action, kind)
    set_amount(action, amount)
    set_cards(action, cards)
    set_text(action, text)
    set_comment(action, None)
    return action


# The format's vocabulary, made once: the players p1..p99, and the actions of p1..p10
# that hold nothing but the player (frozen, equal by value: shared by every hand).
_PLAYERS: Final = {f"p{i + 1}": i for i in range(99)}
_BARE_KINDS: Final = ("f", "cc", "pb", "sm", "sd")
_BARE: Final = {f"p{i + 1} {kind}": _checked(i, kind, None, None, f"p{i + 1} {kind}")
                for i in range(10) for kind in _BARE_KINDS}
# the cards of a card text of one or two cards ('As', 'AsKd', '??'), read so far: at most
# 53 + 53 x 53 entries, the deck's, never the corpus's
_CARD_TEXT: Final[dict[str, tuple[Card | None, ...]]] = {"??": (None,)}
_READ_ERRORS: Final = (HandHistoryError, CardError)


def read_actions(texts: Sequence[str], where: str) -> tuple[list[PhhAction | Parsed], bool]:
    """The actions read from their texts, and whether every one is a PhhAction already
    (no amount with decimals waits for the file's unit scale). Raises HandHistoryError
    naming the action that is wrong (``where``: the hand, for the message). The texts
    are checked to be strings here: ``texts`` is a TOML array as read."""
    bare, usual = _BARE.get, _read_usual
    try:  # the usual hand: every text of a usual shape, read in one go
        out = [bare(text) or usual(text) for text in texts]
        if all(out):  # (no None: a PhhAction has no truth value of its own)
            return out, True  # type: ignore[return-value]  # no None: checked just above
    except (*_READ_ERRORS, AttributeError, TypeError):  # not a string, a bad card...
        pass  # read them again, one by one, to say which action is wrong
    if not all(type(text) is str for text in texts):
        raise HandHistoryError(f"{where}: actions must be an array of strings")
    parsed: list[PhhAction | Parsed] = []
    whole = True
    for index, text in enumerate(texts, 1):
        try:
            action = _read_action(text)
            if type(action) is tuple:
                if action[1] == "sm":
                    action = _show_dealt(action, parsed)
                else:
                    whole = False
        except _READ_ERRORS as e:
            raise HandHistoryError(
                f"{where}, action {index} {text!r}: {getattr(e, 'reason', e)}") from None
        parsed.append(action)
    return parsed, whole


def _read_action(text: str) -> PhhAction | Parsed:
    """One action from its text: the usual shapes quickly, anything else in general."""
    return _BARE.get(text) or _read_usual(text) or _read_any_action(text)


def _read_usual(text: str) -> PhhAction | None:
    """The action when its text has one of the usual shapes (one space apart, no other
    white space, no comment; every word a known player, kind, cards or a whole amount),
    else None (the general reader then reads it, or says what is wrong with it)."""
    words = text.split(" ")
    count = len(words)
    if count == 4:
        if words[0] == "d" and words[1] == "dh":  # d dh p1 AsKd
            actor, cards = _PLAYERS.get(words[2]), _known_cards(words[3])
            if actor is not None and cards is not None:
                return _checked(actor, "dh", None, cards, text)
        return None
    if count == 3:
        first, kind, last = words
        if first == "d":
            cards = _known_cards(last) if kind == "db" else None
            return None if cards is None else _checked(None, "db", None, cards, text)
        actor = _PLAYERS.get(first)
        if actor is None:
            return None
        if kind == "cbr":  # p2 cbr 300 (a whole amount)
            if len(last) < 19 and last.isascii() and last.isdigit():
                return _checked(actor, "cbr", int(last), None, text)
        elif kind == "sm" or kind == "sd":  # p1 sm AsKd
            cards = _known_cards(last)
            return None if cards is None else _checked(actor, kind, None, cards, text)
        return None
    if count == 2 and words[1] in _BARE_KINDS:  # p11 f (p1..p10 are in _BARE)
        actor = _PLAYERS.get(words[0])
        return None if actor is None else _checked(actor, words[1], None, None, text)
    return None


def _read_any_action(text: str) -> PhhAction | Parsed:
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


def _show_dealt(parsed: Parsed, before: list[PhhAction | Parsed]) -> PhhAction:
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


def scaled_actions(parsed: list[PhhAction | Parsed], scale: int) -> tuple[PhhAction, ...]:
    """The actions with every amount in the smallest unit (``scale``: the file's)."""
    if scale == 1 and all(type(a) is PhhAction for a in parsed):
        return tuple(parsed)  # type: ignore[arg-type]  # all PhhAction, checked just above
    return tuple(_at_scale(a, scale) for a in parsed)


def _at_scale(action: PhhAction | Parsed, scale: int) -> PhhAction:
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


def _known_cards(word: str) -> tuple[Card | None, ...] | None:
    """The cards of ``word`` (at least one), or None where it is not cards written
    together ('AsKd', '??'): then the general reader reads the action."""
    cards = _CARD_TEXT.get(word)
    if cards is not None:
        return cards
    if not word or len(word) % 2:
        return None
    try:
        return _cards(word)  # no white space gets through: a card is two of its letters
    except CardError:
        return None


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


__all__ = ["ACTION_KINDS", "Parsed", "PhhAction", "format_action", "read_actions",
           "scaled_actions"]
