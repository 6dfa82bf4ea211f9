"""What the chip race tests share: the chip set most of them play with, and short ways to
plan a colour-up, count a race, deal its cards and take a snapshot of it."""

from __future__ import annotations

from collections.abc import Mapping

from controller.chiprace import ChipRace, ChipSet, ColourUpPlan, plan_colour_up
from controller.rules.cards import Card

CHIPS = ChipSet.of({25: "green", 100: "black", 500: "purple", 1000: "yellow"})


def c(text: str) -> Card:
    return Card.parse(text)


def plan(counts: Mapping[int, Mapping[int, int]], stacks: Mapping[int, int],
         leaving: tuple[int, ...] = (25,), chip_set: ChipSet = CHIPS,
         **kw: object) -> ColourUpPlan:
    return plan_colour_up(chip_set, leaving, counts, stacks=stacks, **kw)  # type: ignore[arg-type]


def counted_race(stacks: Mapping[int, int], counts: Mapping[int, int],
                 **kw: object) -> ChipRace:
    """A race with every seat counted; ``counts[seat]`` is its number of T25 chips."""
    race = ChipRace(CHIPS, [25], stacks=stacks, **kw)  # type: ignore[arg-type]
    for seat in stacks:
        race.count(seat, {25: counts.get(seat, 0)})
    return race


def deal_all(race: ChipRace, cards: Mapping[int, str]) -> None:
    for seat, text in cards.items():
        for token in text.split():
            race.deal(seat, c(token))


def snapshot(race: ChipRace) -> tuple[object, ...]:
    return (race.phase, tuple(race.log), tuple(race.cards), dict(race.counted), race.plan,
            race.result)
