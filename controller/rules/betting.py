"""Who acts next in a betting round and how much they may bet or raise (BET-1..9, PL-3,
FL-1).

Plain functions of the round's state: the hand passes exactly what each one reads and
keeps the state itself.
"""

from __future__ import annotations

from collections.abc import Sequence

from controller.rules.config import Variant
from controller.rules.errors import IllegalActionError


def next_to_act(start: int, stacks: Sequence[int], folded: Sequence[bool],
                bets: Sequence[int], acted: Sequence[int], current: int,
                active: int, option: bool) -> int | None:
    """The first player from ``start`` on, clockwise, who still has to act (BET-1).

    A player acts if they hold cards, have chips behind (all-in players take no further
    part) and either have not acted this round or face more than they put in. ``active``
    counts the players holding cards with chips behind: the last of them, owing nothing,
    has nobody left to bet against and does not act, with one exception.

    ``option``: the preflop round is under way (some player could act when it began). Then
    a last active player who owes nothing and has not acted yet is the big blind (or the
    straddler) whose opponents all went all-in for no more than its bet or folded: it
    keeps its option and still acts (BET-1: every active player acts at least once;
    BLIND-2, STRADDLE-2). Nobody could answer a raise (POT-3), so it may check or fold
    (BET-2); PokerKit records that check as ``cc``. Leaving the check out is legal too
    (RULES.md Appendix C): dealing the flop closes the round
    (:meth:`~controller.rules.hand.Hand.deal_board`).
    """
    n = len(stacks)
    for k in range(start, start + n):
        i = k if k < n else k - n
        if stacks[i] and not folded[i] and (acted[i] < 0 or bets[i] < current):
            if active == 1 and bets[i] >= current:
                # BET-1: nobody left to bet against, but the option stands (BLIND-2)
                return i if option and acted[i] < 0 else None
            return i
    return None


def raise_bounds(player: int, stacks: Sequence[int], bets: Sequence[int],
                 folded: Sequence[bool], *, current: int, min_increment: int,
                 reopened: bool, capped: bool, fixed_size: int | None,
                 pot_limit: int | None) -> tuple[int, int]:
    """(min, max) bet-or-raise totals for ``player``; raises naming the rule if they may not.

    ``reopened``: the betting is open to them (BET-8/9: they have not acted yet, or a full
    raise came since). ``capped``: fixed limit's bets and raises are used up (FL-1).
    ``fixed_size``: fixed limit's bet this street, else None. ``pot_limit``: the pot-limit
    maximum total (PL-3), else None.
    """
    all_in_to = stacks[player] + bets[player]
    if all_in_to <= current:
        raise IllegalActionError(f"player {player} has no chips beyond a call", "BET-6")
    if not any(i != player and not folded[i] and stacks[i] + bets[i] > current
               for i in range(len(stacks))):  # POT-3: it would all come back uncalled
        raise IllegalActionError("no other player can put in more than the current bet: "
                                 "only check, call or fold", "BET-1")
    if not reopened:
        raise IllegalActionError(
            f"player {player} already acted and faces only a short all-in: call or fold "
            "(the betting was not reopened)", "BET-8")
    if fixed_size is not None:
        if capped:
            raise IllegalActionError("the betting is capped at one bet and three raises "
                                     "this round", "FL-1")
        low = high = current + fixed_size
    else:
        low = current + min_increment  # BET-3, BET-4 (min_increment starts at the BB)
        high = all_in_to
        if pot_limit is not None:  # PL-3, but never below the minimum (BET-3: a small
            high = max(low, pot_limit)  # pot still allows a full bet)
    if all_in_to < low:  # BET-8: an all-in short of the minimum is still allowed
        return all_in_to, all_in_to
    return low, min(high, all_in_to)


def verify_raise_total(player: int, amount: int, bounds: tuple[int, int], variant: Variant,
                       current: int) -> None:
    """Raise unless ``amount`` is within ``bounds`` (from :func:`raise_bounds`), naming the
    rule it breaks (BET-4, BET-6, BET-8, PL-3, FL-1)."""
    low, high = bounds
    if low <= amount <= high:
        return
    word = "bet" if current == 0 else "raise"
    if low == high:
        raise IllegalActionError(f"player {player} can {word} only to {low}, not {amount}",
                                 "FL-1" if variant is Variant.FT else "BET-8")
    rule = "BET-4" if amount < low else "PL-3" if variant is Variant.PO else "BET-6"
    raise IllegalActionError(f"a {word} must be to between {low} and {high}, not {amount}",
                             rule)
