"""What a live table takes from its house (:mod:`controller.clocks.house`): the game, the
stakes or the tournament's structure, the rules profile, the rake, the clock, the buy-in
limits and the straddles it allows.

The house file is validated when it is read; what is left to the table is what depends on
the moment: whether this seat may straddle this hand (STRADDLE-1..6: it depends on where
the blinds are), whether this stack is a buy-in the house takes (CASH-2/7/8), and whether
a new house can be played from the next hand at this table (LEVEL-1: never during a hand;
a cash house on a cash table, a tournament house on a tournament table).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Literal

from controller.clocks.house import House
from controller.clocks.shot_clock import DEFAULT_SIGNALS, ShotClockConfig
from controller.clocks.structure import Structure
from controller.clocks.timebank import ExtensionChips
from controller.events import HouseView
from controller.rules.button import Positions
from controller.rules.config import RulesProfile, Variant
from controller.rules.errors import RulesError
from controller.rules.game import Straddle

from .hand_in_play import HandInPlay
from .lights import Level
from .seating import SeatsAndDeck
from .timing import TableClocks

KIND_RULE = "TOURN-1"  # a tournament is not a cash game: the table is one or the other
CHANGE_RULE = "LEVEL-1"
CHANGE_DURING_HAND = ("the house changes between hands: a hand is played under the rules it "
                      "began with")


def cash_level(house: House) -> Level:
    """A cash house's one untimed level: its blinds, its ante (shown on the blinds
    display) and, in fixed limit, its two bet sizes (FL-2)."""
    stakes = house.stakes
    if stakes is None:
        raise ValueError(f"house {house.name!r} is a tournament: its levels are its structure")
    return Level(stakes.small_blind, stakes.big_blind, ante=house.ante,
                 small_bet=stakes.small_bet, big_bet=stakes.big_bet)


def shot_clock_of(house: House) -> ShotClockConfig:
    """The house's shot clock: seconds per action (None: untimed until the clock is
    called, CLOCK-1) and the final countdown, with the signals that fit in it."""
    countdown = house.clock.countdown_s
    signals = {s: kind for s, kind in DEFAULT_SIGNALS.items() if s <= countdown}
    return ShotClockConfig(action_s=house.clock.shot_clock_s, countdown_s=countdown,
                           signals=signals)


def extensions_of(house: House) -> ExtensionChips | None:
    """The players' time-bank extension chips, or None when the house gives none."""
    if not house.clock.extension_chips:
        return None
    return ExtensionChips(house.clock.extension_s)


def view_of(house: House) -> HouseView:
    """What the public state and the floor show of the house."""
    game: Literal["NT", "PO", "FT"] = "PO" if house.variant is Variant.PO else \
        "FT" if house.variant is Variant.FT else "NT"
    unit: Literal["kr", "cent", "chip"] = "cent" if house.unit == "cent" else \
        "chip" if house.unit == "chip" else "kr"
    return HouseView(name=house.name, game=game, kind=house.kind, unit=unit,
                     label=house.label, multiplier=house.multiplier if house.tournament
                     else None)


@dataclass(frozen=True, slots=True)
class TableTerms:
    """What a table is built with, the house's where the caller gave nothing."""

    levels: tuple[Level, ...]
    structure: Structure | None
    profile: RulesProfile
    variant: Variant
    tournament: bool
    shot_clock: ShotClockConfig | None
    extensions: ExtensionChips | None


def terms(house: House | None, *, levels: tuple[Level, ...], structure: Structure | None,
          profile: RulesProfile | None, variant: Variant | None, tournament: bool | None,
          shot_clock: ShotClockConfig | None, shot_clock_given: bool,
          extensions: ExtensionChips | None, default_profile: RulesProfile) -> TableTerms:
    """The table's terms: each one the caller gave, else the house's, else today's
    default (no house: a cash NT table on the live cash rules)."""
    if house is None:
        return TableTerms(levels, structure, profile or default_profile,
                          variant or Variant.NT, bool(tournament), shot_clock, extensions)
    if tournament is not None and tournament != house.tournament:
        raise ValueError(f"house {house.name!r} is a {house.kind} house; the table was "
                         f"asked to be {'a tournament' if tournament else 'a cash'} table")
    if not levels and structure is None:
        if house.tournament:
            structure = house.structure
        else:
            levels = (cash_level(house),)
    return TableTerms(levels, structure, profile or house.rules, variant or house.variant,
                      house.tournament,
                      shot_clock if shot_clock_given else shot_clock_of(house),
                      extensions if extensions is not None else extensions_of(house))


# ============================================================================ straddles
def straddle_mode(profile: RulesProfile, tournament: bool) -> str:
    """The straddles this table allows (CONF ``straddle.mode``; none in a tournament)."""
    return "off" if tournament else str(profile["straddle.mode"] or "off")


def utg_seat(positions: Positions) -> int | None:
    """The first player dealt clockwise of the big blind (STRADDLE-2); None heads-up."""
    dealt = positions.dealt
    if len(dealt) < 3:
        return None
    return dealt[dealt.index(positions.big_blind) + 1]


def straddle_seats(positions: Positions, *, profile: RulesProfile, variant: Variant,
                   tournament: bool) -> tuple[int, ...]:
    """The seats that may straddle the hand laid out as ``positions``: the button first
    under Mississippi (STRADDLE-3), then UTG (STRADDLE-2); () when none may."""
    seats: list[int] = []
    for seat in (positions.button, utg_seat(positions)):
        if seat is None or seat in seats:
            continue
        try:
            straddle_of(seat, lambda: positions, profile=profile, variant=variant,
                        tournament=tournament)
        except RulesError:
            continue
        seats.append(seat)
    return tuple(seats)


def straddle_of(seat: int, layout: Callable[[], Positions], *, profile: RulesProfile,
                variant: Variant, tournament: bool) -> Straddle:
    """Which straddle ``seat`` puts out for the next hand, laid out as ``layout()`` says
    (asked only once the game allows a straddle at all); raises :class:`RulesError` with
    the rule and the reason when it may not."""
    if tournament:
        raise RulesError("tournaments have no straddles", "STRADDLE-6")
    if variant is Variant.FT:
        raise RulesError("straddles are for no-limit and pot-limit cash games, not fixed "
                         "limit", "STRADDLE-6")
    mode = straddle_mode(profile, tournament)
    if mode == "off":
        raise RulesError("this house plays no straddles", "STRADDLE-1")
    positions = layout()
    dealt = positions.dealt
    if len(dealt) < 3:
        raise RulesError(f"a straddle needs three or more players; {len(dealt)} are dealt "
                         "in", "STRADDLE-2")
    if seat not in dealt:
        raise RulesError(f"seat {seat} is not dealt in this hand", "STRADDLE-2")
    if seat in positions.auto_fold:
        raise RulesError(f"seat {seat} sits out: an absent player does not straddle",
                         "STRADDLE-2")
    if any(post.seat == seat for post in positions.posts):
        raise RulesError(f"seat {seat} posts a blind to come in this hand and cannot also "
                         "straddle", "BLIND-4")
    if seat == utg_seat(positions):
        return Straddle.UTG
    if mode == "mississippi" and seat == positions.button == dealt[-1]:
        return Straddle.BUTTON
    utg = utg_seat(positions)
    if mode == "mississippi":
        raise RulesError(f"seat {seat} may not straddle: the button (seat "
                         f"{positions.button}) or the first player left of the big blind "
                         f"(seat {utg}) straddles", "STRADDLE-3")
    raise RulesError(f"seat {seat} may not straddle: only the first player left of the big "
                     f"blind (seat {utg}) straddles here", "STRADDLE-2")


# ============================================================================ changing it
def change_refusal(new: House, *, tournament: bool, structure: Structure | None,
                   timed_levels: bool) -> tuple[str, str] | None:
    """Why this table cannot play ``new`` from the next hand (reason, rule), or None.

    A cash table plays cash houses and a tournament table tournament houses (the seats,
    stacks and clocks of one are not the other's). A tournament's level clock runs the
    structure it started with: a house with another structure needs a new table (the
    director moves the players), so only a house with the same structure is taken (its
    rules, clock or game may differ)."""
    if new.tournament != tournament:
        return (f"house {new.name!r} is a {new.kind} house and this is a "
                f"{'tournament' if tournament else 'cash'} table: a tournament is not a "
                "cash game; open a new table for it", KIND_RULE)
    if tournament and new.structure != structure:
        return ("a running tournament keeps its structure: this house's levels differ "
                "from the ones on the level clock; start a new table under it", "LEVEL-2")
    if not tournament and timed_levels:
        return ("this cash table's levels run on a level clock: a cash house's stakes "
                "replace untimed levels only", "LEVEL-2")
    return None


def adopt(house: House, *, play: HandInPlay, clocks: TableClocks, seating: SeatsAndDeck
          ) -> None:
    """Between hands, the table's parts take up ``house`` (its change was allowed by
    :func:`change_refusal`): the game and rules for the next hand, a cash house's one
    level (its stakes), the shot clock for the next action (a shot clock stays off on a
    table built without one), the extension chips' worth and a newcomer's grant."""
    if not house.tournament:
        clocks.levels, clocks.level_no = (cash_level(house),), 1
    play.variant, play.profile = house.variant, house.rules
    clocks.p = replace(clocks.p, profile=house.rules)  # clock calls (CLOCK-1/2)
    if clocks.shot is not None:
        clocks.shot.config = shot_clock_of(house)
    if seating.extensions is not None:
        seating.extensions.seconds = house.clock.extension_s
    seating.grant = house.clock.extension_chips


__all__ = [
    "CHANGE_DURING_HAND",
    "CHANGE_RULE",
    "KIND_RULE",
    "TableTerms",
    "adopt",
    "cash_level",
    "change_refusal",
    "extensions_of",
    "shot_clock_of",
    "straddle_mode",
    "straddle_of",
    "straddle_seats",
    "terms",
    "utg_seat",
    "view_of",
]
