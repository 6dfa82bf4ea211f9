"""Replay a hand history (PHH) through the engine, and export a finished hand as PHH.

PHH numbers players as the engine does (position order from the first seat left of the
button, the button last; heads-up ``p1`` is the big blind), so actions map one to one.
Show/muck (``sm``) lines are applied in the order the rules call the players to show
(SHOW-2/3), whatever order the file lists them in: the file says what each player did,
the rulebook says when.

PHH has no rake. A raked hand's policy and the amount taken are written as user fields
(PHH keeps keys with a leading underscore for the writer's own use), in the file's units::

    _rake = {kind = "percentage", percent = "7/2", cap = 100, halved_cap = 50,
             rounding = "nearest", minimum = 1, no_flop_no_drop = true, unit = "cent"}
    _rake = {kind = "brackets", brackets = [{pot_to = 1000, rake = 20}, ..., {rake = 200}],
             rounding = "nearest", minimum = 0, no_flop_no_drop = true, unit = "kr"}
    _rake_taken = 60

:func:`config_from_history` rebuilds the :class:`RakePolicy` from ``_rake``, so the replay
takes the same rake and ends with the same stacks (RAKE-1..8); :func:`rake_taken` reads
``_rake_taken`` for the replay to compare with the engine's.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from decimal import Decimal
from fractions import Fraction

from controller.rules.actions import (
    BetRaise,
    Call,
    Check,
    DealBoard,
    DealHole,
    Fold,
    Kill,
    Muck,
    Show,
)
from controller.rules.cards import Card
from controller.rules.config import CONF, LIVE_CASH, RulesProfile, Variant
from controller.rules.errors import ConfigError, HandHistoryError, IllegalActionError
from controller.rules.game import GameConfig, Post, Straddle
from controller.rules.hand import Hand, Phase
from controller.rules.phh import HandHistory, PhhAction, Result
from controller.rules.rake import ROUNDINGS, RakeBracket, RakePolicy

SUPPORTED = frozenset(v.value for v in Variant)
_VARIANTS = {v.value: v for v in Variant}
_INT_ONLY = frozenset({int})
RAKE_FIELD = "_rake"  # the rake policy (a user field: PHH has no rake)
RAKE_TAKEN_FIELD = "_rake_taken"  # the rake the hand paid
RULES_FIELD = "_rules"  # the rules profile the hand was played under (CONF keys)
_Amount = Callable[[str, object], int]  # a field's amount in the smallest unit
_RAKE_KEYS = ("kind", "percent", "cap", "halved_cap", "rounding", "minimum", "brackets",
              "no_flop_no_drop", "unit")


def config_from_history(history: HandHistory) -> GameConfig:
    """The engine's setup for a PHH hand; raises HandHistoryError if it cannot be played."""
    if history.variant not in SUPPORTED:
        raise HandHistoryError(f"variant {history.variant!r} is not supported: Pitboss plays "
                               + ", ".join(sorted(SUPPORTED)))
    n = history.player_count
    forced = list(history.blinds_or_straddles or [0] * n)
    sb, bb = forced[0], forced[1]
    if (n > 2 and 0 <= sb <= bb and not any(forced[2:]) and not any(history.antes)
            and RAKE_FIELD not in history.extra):  # the usual hand: two blinds, nothing else
        try:  # (BLIND-1: index 0 the small blind, index 1 the big blind)
            return GameConfig(_VARIANTS[history.variant], history.starting_stacks, sb, bb,
                              small_bet=history.small_bet or 0, big_bet=history.big_bet or 0)
        except ConfigError as exc:
            raise HandHistoryError(f"cannot set up this hand: {exc}") from None
    no_small_blind = n > 2 and bb == 0 and sb > 0  # BTN-5: index 0 posts the big blind
    if no_small_blind:
        sb, bb, forced = 0, sb, [0, *forced[:1], *forced[2:]]
    # Beyond the blinds: a post of at most the big blind is a new or returning player's
    # blind (BLIND-4/5); a larger one is a straddle (STRADDLE-1), at UTG or the button.
    straddle, straddle_amount, straddler = Straddle.NONE, 0, None
    live = {i: x for i, x in enumerate(forced) if i > 1 and 0 < x <= bb}
    extra = [(i, x) for i, x in enumerate(forced) if i > 1 and x > bb]
    if len(extra) == 1 and extra[0][0] in (2, n - 1):
        straddle = Straddle.UTG if extra[0][0] == 2 else Straddle.BUTTON
        straddler, straddle_amount = extra[0]
    elif extra:
        raise HandHistoryError(f"blinds_or_straddles {forced} has more than one straddle "
                               "(STRADDLE-1 allows one)")
    # Heads-up, PHH (after PokerKit) writes antes like blinds, small blind poster first,
    # while p1 is the big blind: reversed, they are in position order.
    antes = list(history.antes[::-1] if n == 2 else history.antes)
    big = 0 if n == 2 or no_small_blind else 1
    small = None if no_small_blind else 1 if n == 2 else 0
    # PHH antes with ante_trimming_status false are dead money (PokerKit's reading, and how
    # history_from_hand writes them). Above the ante everyone pays, the big blind's extra
    # is the big blind ante (ANTE-2) and another player's a dead post (BLIND-5): both
    # nobody's stake. Only the small blind's or the straddler's extra stays their own ante.
    base = min(antes)
    big_blind_ante, antes[big] = antes[big] - base, base
    dead = {i: a - base for i, a in enumerate(antes) if a > base and i not in (small, straddler)}
    for i in dead:
        antes[i] = base
    posts = tuple(Post(i, live.get(i, 0), dead.get(i, 0)) for i in sorted({*live, *dead}))
    try:
        return GameConfig(
            Variant(history.variant), tuple(history.starting_stacks), sb, bb,
            antes=tuple(antes) if any(antes) else (), big_blind_ante=big_blind_ante,
            straddle=straddle, straddle_amount=straddle_amount,
            small_bet=history.small_bet or 0, big_bet=history.big_bet or 0,
            no_small_blind=no_small_blind, posts=posts, rake=rake_from_history(history))
    except ConfigError as exc:
        raise HandHistoryError(f"cannot set up this hand: {exc}") from None


# ---------------------------------------------------------------- the rake's user fields


def rake_fields(policy: RakePolicy, taken: int | None) -> dict[str, object]:
    """The user fields of a raked hand: ``_rake`` (the policy, an inline table) and
    ``_rake_taken`` (what the hand paid; None: the hand did not finish)."""
    table: dict[str, object] = {"kind": policy.kind}
    if policy.kind == "percentage":
        table["percent"] = str(policy.percent)
        if policy.cap is not None and policy.halved_cap is not None:
            table["cap"], table["halved_cap"] = policy.cap, policy.halved_cap
    else:
        table["brackets"] = [{"rake": b.rake} if b.pot_to is None
                             else {"pot_to": b.pot_to, "rake": b.rake}
                             for b in policy.brackets]
    table.update(rounding=policy.rounding, minimum=policy.minimum,
                 no_flop_no_drop=policy.no_flop_no_drop, unit=policy.unit)
    fields: dict[str, object] = {RAKE_FIELD: table}
    if taken is not None:
        fields[RAKE_TAKEN_FIELD] = taken
    return fields


def rules_field(profile: RulesProfile) -> dict[str, object]:
    """The ``_rules`` user field: the profile's name and every CONF key it sets, so the
    file replays under the rules it was played under (POT-5's odd chip, SHOW-3...)."""
    return {"name": profile.name,
            **{k: v for k, v in sorted(profile.values.items()) if v is not None}}


def rules_from_history(history: HandHistory) -> RulesProfile | None:
    """The rules profile of the file's ``_rules`` field (None: the file has none); keys
    it leaves out are unset. Raises HandHistoryError naming a key or value that is wrong."""
    raw = history.extra.get(RULES_FIELD)
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise HandHistoryError(f"{RULES_FIELD} must be a table of rules keys, not {raw!r}")
    values = {k: v for k, v in raw.items() if k != "name"}
    try:
        return RulesProfile(str(raw.get("name", "file")), {
            **dict.fromkeys(CONF), **{k: _conf_value(k, v) for k, v in values.items()}})
    except ConfigError as exc:
        raise HandHistoryError(f"{RULES_FIELD}: {exc}") from None


def _conf_value(key: str, value: object) -> str | int:
    if key not in CONF:
        raise ConfigError(f"{key!r} is not a rules key of RULES.md §1")
    if isinstance(value, bool):
        return "true" if value else "false"
    if not isinstance(value, (str, int)):
        raise ConfigError(f"{key} cannot be {value!r}", CONF[key].rules)
    return value


def rake_from_history(history: HandHistory) -> RakePolicy | None:
    """The rake policy of the file's ``_rake`` field (None: an unraked hand); amounts are
    in the file's units. Raises HandHistoryError naming the part that is wrong."""
    raw = history.extra.get(RAKE_FIELD)
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise HandHistoryError(f"{RAKE_FIELD} must be an inline table such as {{kind = "
                               f"\"percentage\", percent = \"7/2\", cap = 100}}, not {raw!r}")
    unknown = sorted(str(k) for k in raw if k not in _RAKE_KEYS)
    if unknown:
        raise HandHistoryError(f"{RAKE_FIELD} has unknown key(s) {', '.join(unknown)}; its "
                               f"keys are {', '.join(_RAKE_KEYS)}")
    scale = history.unit_scale

    def amount(key: str, value: object) -> int:
        if isinstance(value, bool) or not isinstance(value, int | Decimal):
            raise HandHistoryError(f"{RAKE_FIELD}.{key} must be an amount, not {value!r}")
        exact = Fraction(value) * scale
        if exact < 0 or exact.denominator != 1:
            raise HandHistoryError(f"{RAKE_FIELD}.{key} = {value} is not a whole amount >= 0 "
                                   "in the file's smallest unit")
        return int(exact)

    def optional(key: str) -> int | None:
        value = raw.get(key)
        return None if value is None else amount(key, value)

    kind, rounding = raw.get("kind"), raw.get("rounding", "nearest")
    if kind not in ("percentage", "brackets"):
        raise HandHistoryError(f"{RAKE_FIELD}.kind must be \"percentage\" or \"brackets\", "
                               f"not {kind!r}")
    if rounding not in ROUNDINGS:
        raise HandHistoryError(f"{RAKE_FIELD}.rounding must be one of {ROUNDINGS}, "
                               f"not {rounding!r}")
    flag, unit = raw.get("no_flop_no_drop", True), raw.get("unit", "cent")
    if not isinstance(flag, bool) or not isinstance(unit, str):
        raise HandHistoryError(f"{RAKE_FIELD}.no_flop_no_drop is true or false and "
                               f"{RAKE_FIELD}.unit a name, not {flag!r} and {unit!r}")
    minimum = optional("minimum")
    try:
        return RakePolicy(kind, _percent(raw.get("percent", "0")), optional("cap"),
                          optional("halved_cap"), rounding, 1 if minimum is None else minimum,
                          _brackets(raw.get("brackets", []), amount), flag, unit)
    except ConfigError as exc:
        raise HandHistoryError(f"{RAKE_FIELD} is not a rake policy: {exc}") from None


def _percent(value: object) -> Fraction:
    """``"7/2"`` or ``3.5`` (exact: a Decimal) or ``3``; never a binary float."""
    if isinstance(value, bool) or not isinstance(value, str | int | Decimal):
        raise HandHistoryError(f"{RAKE_FIELD}.percent must be a fraction such as \"7/2\", "
                               f"not {value!r}")
    try:
        return Fraction(value)
    except (ValueError, ZeroDivisionError):
        raise HandHistoryError(f"{RAKE_FIELD}.percent {value!r} is not a number such as "
                               "\"7/2\" or 3.5") from None


def _brackets(value: object, amount: _Amount) -> tuple[RakeBracket, ...]:
    """``[{pot_to = 1000, rake = 20}, ..., {rake = 200}]`` (the last has no upper end)."""
    if not isinstance(value, list) or not all(isinstance(b, Mapping) for b in value):
        raise HandHistoryError(f"{RAKE_FIELD}.brackets must be an array of inline tables "
                               f"{{pot_to = 1000, rake = 20}}, not {value!r}")
    out = []
    for b in value:
        if set(b) - {"pot_to", "rake"} or "rake" not in b:
            raise HandHistoryError(f"{RAKE_FIELD}.brackets entry {b!r} needs rake (and "
                                   "pot_to but in the last) and nothing else")
        top = b.get("pot_to")
        out.append(RakeBracket(None if top is None else amount("brackets.pot_to", top),
                               amount("brackets.rake", b["rake"])))
    return tuple(out)


def rake_taken(history: HandHistory) -> int | None:
    """The file's ``_rake_taken`` in the smallest unit (None: the file does not say)."""
    value = history.extra.get(RAKE_TAKEN_FIELD)
    if value is None:
        return None
    exact = (Fraction(value) * history.unit_scale
             if isinstance(value, int | Decimal) and not isinstance(value, bool) else None)
    if exact is None or exact < 0 or exact.denominator != 1:
        raise HandHistoryError(f"{RAKE_TAKEN_FIELD} must be a whole amount >= 0, "
                               f"not {value!r}")
    return int(exact)


def replay_history(history: HandHistory, profile: RulesProfile = LIVE_CASH) -> Hand:
    """Play every action of ``history``; raises HandHistoryError naming the action that fails."""
    hand = Hand(config_from_history(history), profile)
    pending: dict[int, PhhAction] = {}
    # the usual actions go straight to the engine, its methods bound once: this loop is
    # the replay's hot path (pitboss bench phh); the rest go through _apply
    deal_hole, fold, check_or_call = hand.deal_hole, hand.fold, hand.check_or_call
    bet_or_raise_to, showdown = hand.bet_or_raise_to, Phase.SHOWDOWN
    number = 0
    action: PhhAction | None = None
    try:
        for number, action in enumerate(history.actions, 1):  # noqa: B007  # the error's
            kind = action.kind
            if kind == "dh":
                deal_hole(action.actor, action.cards)  # type: ignore[arg-type]  # dh: both
            elif kind == "f" and action.comment is None:
                fold(action.actor)
            elif kind == "cc":
                check_or_call(action.actor)
            elif kind == "cbr":
                bet_or_raise_to(action.amount, action.actor)  # type: ignore[arg-type]
            elif kind == "sm":
                pending[action.actor] = action  # type: ignore[index]  # sm has a player
            else:
                _apply(hand, action)
            if pending or hand.phase is showdown:
                _drain_showdown(hand, pending)
    except IllegalActionError as exc:
        assert action is not None
        text = action.text or action.kind
        raise HandHistoryError(f"action {number} ({text!r}) is illegal: {exc}") from None
    try:
        while hand.phase is showdown:  # hands the file did not show: cards speak
            hand.show()
    except IllegalActionError as exc:
        raise HandHistoryError(f"the showdown cannot finish: {exc}") from None
    return hand


def _apply(hand: Hand, action: PhhAction) -> None:
    """The actions replay_history does not hand to the engine itself."""
    kind = action.kind
    if kind == "db":
        assert action.cards is not None
        if None in action.cards:
            raise HandHistoryError("a board card is unknown (??): the board must be read")
        hand.deal_board(action.cards)  # type: ignore[arg-type]  # no None: checked above
    elif kind == "f":
        _fold(hand, action)
    elif kind != "noop":
        raise HandHistoryError(f"action kind {kind!r} does not occur in "
                               + ", ".join(sorted(SUPPORTED)))


# PHH has no notation for a dead hand or for chips left in the pot on a fold; Pitboss
# writes them as folds with a comment in this form, and reads them back.
_DEAD = re.compile(r"dead hand \((?P<rule>[A-Z]+-\d+)\)")
_FORFEIT = re.compile(r"forfeits (?P<amount>\d+) \(LIVE-2\)")


def _fold(hand: Hand, action: PhhAction) -> None:
    comment = action.comment or ""
    assert action.actor is not None
    if dead := _DEAD.fullmatch(comment):
        hand.kill(action.actor, dead["rule"])
    elif forfeit := _FORFEIT.fullmatch(comment):
        hand.fold(action.actor, forfeit=int(forfeit["amount"]))
    else:
        hand.fold(action.actor)


def _drain_showdown(hand: Hand, pending: dict[int, PhhAction]) -> None:
    """Apply waiting show/muck lines while the next player to show has one."""
    while hand.phase is Phase.SHOWDOWN:
        nxt = hand.next_to_show
        if nxt is None or nxt not in pending:
            return
        action = pending.pop(nxt)
        if action.cards is None:
            hand.muck(nxt)
        else:
            cards = action.cards
            hand.show(nxt, None if None in cards else [c for c in cards if c is not None])
    if hand.phase is Phase.COMPLETE:
        pending.clear()  # lines after the pots were settled change nothing (POT-4)


def expected_stacks(history: HandHistory, *, each: bool = False) -> list[int] | None:
    """``finishing_stacks`` in whole units, with half chips given by POT-5.

    Some files record a split pot in fractions of a chip; the rules give leftover units to
    the first winner left of the button (``each=False``) or one each clockwise (``each``).
    """
    if history.finishing_stacks is None:
        return None
    stacks = history.finishing_stacks
    if _INT_ONLY.issuperset(map(type, stacks)):  # whole units: no half chips to give
        return list(stacks)  # type: ignore[arg-type]  # every one an int
    whole = [int(Fraction(s).__floor__()) for s in stacks]
    leftover = sum(Fraction(s) for s in stacks) - sum(whole)
    if leftover.denominator != 1:
        raise HandHistoryError("finishing_stacks do not add up to whole units")
    odd = [i for i, s in enumerate(stacks) if Fraction(s).denominator != 1]
    units = int(leftover)
    if odd and units:
        if each:
            for j in range(units):
                whole[odd[j % len(odd)]] += 1
        else:
            whole[odd[0]] += units
    return whole


def history_from_hand(hand: Hand, *, players: Sequence[str] | None = None) -> HandHistory:
    """The PHH record of a hand (to export each finished hand); a raked hand carries its
    policy and the rake taken in the ``_rake`` and ``_rake_taken`` user fields.

    Dead hands and forfeits are folds with a comment (see ``_DEAD``, ``_FORFEIT``), which
    :func:`replay_history` reads back; other PHH tools see a fold.
    """
    cfg = hand.config
    n = cfg.players
    forced = [0] * n
    if cfg.small_blind_index is not None:
        forced[cfg.small_blind_index] = cfg.small_blind
    forced[cfg.big_blind_index] = cfg.big_blind
    if cfg.straddle_index is not None:
        forced[cfg.straddle_index] = cfg.straddle_size
    antes = list(cfg.antes or [0] * n)
    antes[cfg.big_blind_index] += cfg.big_blind_ante
    # A post's live part is a blind at that position; its dead part is written as an extra
    # ante of that player: PHH antes (ante_trimming_status false) are dead money in the
    # main pot, as the dead post is (BLIND-5, ANTE-4), and config_from_history reads the
    # extra back as the dead post.
    for post in cfg.posts:
        forced[post.player_index] += post.live
        antes[post.player_index] += post.dead
    if n == 2:  # heads-up PHH writes forced bets small blind poster first (see above)
        antes.reverse()
        forced.reverse()
    actions: list[PhhAction] = []
    for a in hand.log:
        if isinstance(a, DealHole):
            actions.append(PhhAction(a.player, "dh", cards=a.cards))
        elif isinstance(a, DealBoard):
            actions.append(PhhAction(None, "db", cards=tuple[Card | None, ...](a.cards)))
        elif isinstance(a, Fold):
            note = f"forfeits {a.forfeit} (LIVE-2)" if a.forfeit else None
            actions.append(PhhAction(a.player, "f", comment=note))
        elif isinstance(a, Kill):
            actions.append(PhhAction(a.player, "f", comment=f"dead hand ({a.rule})"))
        elif isinstance(a, Check | Call):
            actions.append(PhhAction(a.player, "cc"))
        elif isinstance(a, BetRaise):
            actions.append(PhhAction(a.player, "cbr", amount=a.to))
        elif isinstance(a, Show):
            actions.append(PhhAction(a.player, "sm", cards=tuple[Card | None, ...](a.cards)))
        elif isinstance(a, Muck):
            actions.append(PhhAction(a.player, "sm"))
    finishing: tuple[Result, ...] | None = tuple(hand.stacks) if hand.is_complete else None
    extra = {} if cfg.rake is None else rake_fields(
        cfg.rake, hand.rake if hand.is_complete else None)
    extra[RULES_FIELD] = rules_field(hand.profile)
    return HandHistory(
        variant=cfg.variant.value, antes=tuple(antes), starting_stacks=cfg.stacks,
        actions=tuple(actions), blinds_or_straddles=tuple(forced),
        min_bet=cfg.big_blind if cfg.variant is not Variant.FT else None,
        small_bet=cfg.small_bet or None, big_bet=cfg.big_bet or None,
        ante_trimming_status=False, finishing_stacks=finishing,
        players=tuple(players) if players is not None else None, extra=extra)
