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
