"""Main and side pots, and splitting a pot between tied winners (POT-1, POT-2, POT-5)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Pot:
    """One pot: its amount and who may win it (players still holding cards)."""

    amount: int
    eligible: tuple[int, ...]


def build_pots(contributions: Sequence[int], live: Sequence[bool]) -> list[Pot]:
    """Layer the pot by each player's total contribution (POT-1).

    The main pot comes first; each side pot holds what only some players could match.
    Chips of folded or dead players stay in the pot (POT-7). A layer that no live player
    reached (only possible with dead money above every live stake) joins the pot below it.
    """
    levels = sorted({c for c, alive in zip(contributions, live, strict=True) if alive and c})
    if len(levels) == 1 and max(contributions) <= levels[0]:  # one pot, the common case
        return [Pot(sum(contributions),
                    tuple(i for i, c in enumerate(contributions) if live[i] and c))]
    pots: list[Pot] = []
    previous = 0
    for level in levels:
        amount = 0
        for c in contributions:
            if c > previous:
                amount += (c if c < level else level) - previous
        eligible = tuple(i for i, c in enumerate(contributions) if live[i] and c >= level)
        if amount:
            pots.append(Pot(amount, eligible))
        previous = level
    dead_above = sum(c - previous for c in contributions if c > previous)
    if dead_above:
        if pots:
            last = pots[-1]
            pots[-1] = Pot(last.amount + dead_above, last.eligible)
        else:  # nobody live put anything in: it all goes to whoever is live (POT-4)
            pots.append(Pot(dead_above, tuple(i for i, alive in enumerate(live) if alive)))
    return pots


def pots_with_dead_money(contributions: Sequence[int], live: Sequence[bool],
                         dead_money: int) -> list[Pot]:
    """:func:`build_pots`, with money that is nobody's stake (the big blind ante, ANTE-2;
    dead posts, BLIND-5) in the main pot, which every live player can win (ANTE-4, POT-7).
    """
    pots = build_pots(contributions, live)
    if dead_money:
        add_dead_money(pots, dead_money, live)
    return pots


def add_dead_money(pots: list[Pot], dead_money: int, live: Sequence[bool]) -> None:
    """Put ``dead_money`` in the main pot (ANTE-4, POT-7): every player holding cards can
    win it, the one who paid it too, and nobody else's stake grows by it.

    A player all-in on a dead post alone put no stake in, so no pot layered by the stakes
    (``pots``) is theirs: the dead money is then a pot of its own ahead of those, which
    every player holding cards can win (as PokerKit does with dead antes).
    """
    everyone = tuple(i for i, alive in enumerate(live) if alive)
    if pots and pots[0].eligible == everyone:
        pots[0] = Pot(pots[0].amount + dead_money, everyone)
    else:
        pots.insert(0, Pot(dead_money, everyone))


def pots_in_the_middle(gathered: Sequence[int], stakes: Sequence[int], live: Sequence[bool],
                       all_in: Sequence[bool], dead_money: int) -> list[Pot]:
    """The main pot and side pots as they lie in the middle during a hand (POT-1).

    ``gathered``: each player's chips from the rounds already over (antes included);
    ``stakes``: each player's whole contribution so far, bets in front included. A side
    pot starts at each all-in player's stake: an all-in player can win the pots up to it
    (BET-10), a player holding cards with chips behind can win them all (unless they fold
    later), a player who folded none (POT-7: their chips stay). Money that is nobody's
    stake (the big blind ante, ANTE-2; dead posts, BLIND-5) is in the main pot
    (:func:`add_dead_money`). Once a betting round is over,
    these are the pots :func:`build_pots` makes of the same contributions.
    """
    n = len(gathered)
    pots: list[Pot] = []
    previous = 0
    for cap in sorted({stakes[i] for i in range(n) if all_in[i]}):
        amount = sum((g if g < cap else cap) - previous for g in gathered if g > previous)
        if amount:
            pots.append(Pot(amount, tuple(i for i in range(n) if live[i]
                                          and (not all_in[i] or stakes[i] >= cap))))
        previous = cap
    above = sum(g - previous for g in gathered if g > previous)
    if above:
        free = tuple(i for i in range(n) if live[i] and not all_in[i])
        if free:
            pots.append(Pot(above, free))
        elif pots:  # dead money above every live stake joins the pot below it
            pots[-1] = Pot(pots[-1].amount + above, pots[-1].eligible)
        else:
            pots.append(Pot(above, tuple(i for i in range(n) if live[i])))
    if dead_money:
        add_dead_money(pots, dead_money, live)
    return pots


def split_pot(amount: int, winners: Sequence[int], unit: int, *, each: bool) -> dict[int, int]:
    """Split ``amount`` between tied ``winners`` as evenly as the ``unit`` allows (POT-5).

    ``winners`` are position indices, so ascending order is clockwise from the first seat
    left of the button. Leftover units go one each clockwise from that seat (``each``,
    online) or all to the first winner left of the button (live, 004 §3.4). Anything
    smaller than a unit (odd dead money) goes with the first leftover unit.
    """
    order = sorted(winners)
    k = len(order)
    share = amount // (k * unit) * unit
    result = dict.fromkeys(order, share)
    leftover = amount - share * k
    if not leftover:
        return result
    units, crumbs = divmod(leftover, unit)
    if each:
        for j in range(units):
            result[order[j]] += unit
        result[order[0]] += crumbs
    else:
        result[order[0]] += leftover
    return result
