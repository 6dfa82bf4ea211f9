"""Replay a hand history (PHH) through the engine, and export a finished hand as PHH.

PHH numbers players as the engine does (position order from the first seat left of the
button, the button last; heads-up ``p1`` is the big blind), so actions map one to one.
Show/muck (``sm``) lines are applied in the order the rules call the players to show
(SHOW-2/3), whatever order the file lists them in: the file says what each player did,
the rulebook says when.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
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
from controller.rules.config import LIVE_CASH, RulesProfile, Variant
from controller.rules.errors import ConfigError, HandHistoryError, IllegalActionError
from controller.rules.game import GameConfig, Post, Straddle
from controller.rules.hand import Hand, Phase
from controller.rules.phh import HandHistory, PhhAction, Result

SUPPORTED = frozenset(v.value for v in Variant)


def config_from_history(history: HandHistory) -> GameConfig:
    """The engine's setup for a PHH hand; raises HandHistoryError if it cannot be played."""
    if history.variant not in SUPPORTED:
        raise HandHistoryError(f"variant {history.variant!r} is not supported: Pitboss plays "
                               + ", ".join(sorted(SUPPORTED)))
    n = history.player_count
    forced = list(history.blinds_or_straddles or [0] * n)
    sb, bb = forced[0], forced[1]
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
            no_small_blind=no_small_blind, posts=posts)
    except ConfigError as exc:
        raise HandHistoryError(f"cannot set up this hand: {exc}") from None


def replay_history(history: HandHistory, profile: RulesProfile = LIVE_CASH) -> Hand:
    """Play every action of ``history``; raises HandHistoryError naming the action that fails."""
    hand = Hand(config_from_history(history), profile)
    pending: dict[int, PhhAction] = {}
    for number, action in enumerate(history.actions, 1):
        try:
            if action.kind == "sm":
                assert action.actor is not None
                pending[action.actor] = action
            else:
                _apply(hand, action)
            _drain_showdown(hand, pending)
        except IllegalActionError as exc:
            text = action.text or action.kind
            raise HandHistoryError(f"action {number} ({text!r}) is illegal: {exc}") from None
    try:
        while hand.phase is Phase.SHOWDOWN:  # hands the file did not show: cards speak
            hand.show()
    except IllegalActionError as exc:
        raise HandHistoryError(f"the showdown cannot finish: {exc}") from None
    return hand


def _apply(hand: Hand, action: PhhAction) -> None:
    kind = action.kind
    if kind == "dh":
        assert action.actor is not None and action.cards is not None
        hand.deal_hole(action.actor, action.cards)
    elif kind == "db":
        assert action.cards is not None
        if None in action.cards:
            raise HandHistoryError("a board card is unknown (??): the board must be read")
        hand.deal_board([c for c in action.cards if c is not None])
    elif kind == "f":
        _fold(hand, action)
    elif kind == "cc":
        hand.check_or_call(action.actor)
    elif kind == "cbr":
        assert action.amount is not None
        hand.bet_or_raise_to(action.amount, action.actor)
    elif kind == "noop":
        return
    else:
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
    """The PHH record of a hand (to export each finished hand).

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
    return HandHistory(
        variant=cfg.variant.value, antes=tuple(antes), starting_stacks=cfg.stacks,
        actions=tuple(actions), blinds_or_straddles=tuple(forced),
        min_bet=cfg.big_blind if cfg.variant is not Variant.FT else None,
        small_bet=cfg.small_bet or None, big_bet=cfg.big_bet or None,
        ante_trimming_status=False, finishing_stacks=finishing,
        players=tuple(players) if players is not None else None)
