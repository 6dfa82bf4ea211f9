"""What the seat lights and the button-and-blinds display show, from the table's state.

Seat lights: whose turn it is (white), all-in players (amber), the player the showdown
waits for (blinking white), winners of the pot being awarded (blinking green), a seat with
an irregularity the dealer must resolve (blinking red); everything else off.
Only changes are sent to the hardware: a light or a frame is set when it differs.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from controller.devices.interfaces import BlindsFrame, Colour, LightState, SeatLight

TURN = LightState.on(Colour.WHITE)
ALL_IN = LightState.on(Colour.AMBER)
TO_SHOW = LightState.blink(Colour.WHITE)
WINNER = LightState.blink(Colour.GREEN)
PROBLEM = LightState.blink(Colour.RED)
OFF = LightState.off()


@dataclass(frozen=True, slots=True)
class Level:
    """One blind level: blinds, the big blind ante, and how long it lasts (None: no clock)."""

    small_blind: int
    big_blind: int
    ante: int = 0
    seconds: int | None = None
    small_bet: int = 0  # fixed limit: the bet preflop and on the flop (FL-2: set by the structure)
    big_bet: int = 0  # fixed limit: the bet on the turn and the river


def light_plan(*, seats: Iterable[int], turn: int | None = None, all_in: Iterable[int] = (),
               to_show: int | None = None, winners: Iterable[int] = (),
               problems: Iterable[int] = ()) -> dict[int, LightState]:
    """Each seat's light; a later rule wins: problem > winner > to show > turn > all-in."""
    plan = dict.fromkeys(seats, OFF)
    for s in all_in:
        plan[s] = ALL_IN
    if turn is not None:
        plan[turn] = TURN
    if to_show is not None:
        plan[to_show] = TO_SHOW
    for s in winners:
        plan[s] = WINNER
    for s in problems:
        plan[s] = PROBLEM
    return plan


class SeatLights:
    """The table's seat lights, set only when they change."""

    def __init__(self, lights: Mapping[int, SeatLight]) -> None:
        self.lights = dict(lights)
        self.shown: dict[int, LightState] = {s: light.state for s, light in self.lights.items()}

    def show(self, plan: Mapping[int, LightState]) -> int:
        """Apply a plan; return how many lights changed."""
        if plan == self.shown:
            return 0
        changed = 0
        for seat, light in self.lights.items():
            want = plan.get(seat, OFF)
            if self.shown.get(seat) != want:
                light.set(want)
                self.shown[seat] = want
                changed += 1
        return changed


def blinds_frame(level_no: int, level: Level, button: int | None,
                 seconds_left: float | None) -> BlindsFrame:
    """The button-and-blinds frame: level, blinds, ante, button seat, time to the next level."""
    left = None if seconds_left is None else max(0, int(seconds_left + 0.999))
    return BlindsFrame(level_no, level.small_blind, level.big_blind, level.ante, button, left)
