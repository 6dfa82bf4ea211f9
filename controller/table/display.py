"""What the table shows between the journal and the players: the blinds display and the
seat lights, worked out from the hand in play, the clocks and the colour-up after each
change (DESIGN.md data flow 5)."""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum

from controller.clocks.house import GAME_NAMES, House
from controller.devices.interfaces import BlindsDisplay, BlindsFrame
from controller.rules.config import Variant

from .base import Stage
from .colour_up import ColourUp
from .lights import SeatLights, light_plan
from .ports import HandView
from .timing import TableClocks


class Keep(Enum):
    """``show_blinds``: keep the time the display shows."""

    KEEP = "keep"


KEEP = Keep.KEEP


def blinds_game(house: House | None) -> str:
    """The game as the blinds display names it for the players: ``NLHE``, ``PLO``, and
    for fixed limit its bet sizes, ``FLHE 100/200`` (FL-2; the blinds are drawn beside
    it). "" without a house file: the display shows the blinds alone, as before."""
    if house is None:
        return ""
    game = GAME_NAMES[house.variant]
    stakes = house.stakes
    if house.variant is Variant.FT and stakes is not None and stakes.big_bet:
        game += f" {stakes.small_bet}/{stakes.big_bet}"
    return game


def _no_house() -> House | None:
    return None


class TableDisplays:
    """The blinds display and the seat lights of one table. ``house``: the house file the
    table plays now (it may change between hands), for the game on the blinds display."""

    def __init__(self, *, view: HandView, clocks: TableClocks, colour_up: ColourUp,
                 blinds: BlindsDisplay, lights: SeatLights,
                 house: Callable[[], House | None] = _no_house) -> None:
        self.view = view
        self.house = house
        self.clocks = clocks
        self.colour_up = colour_up
        self.blinds = blinds
        self.lights = lights
        self.changed = True  # something the lights show may have changed
        self._lit: tuple[object, ...] = ()  # what the lights were last told to show
        self._blinds_asked: tuple[object, ...] | None = None  # show_blinds' last inputs

    def refresh(self) -> None:
        """The lights and the blinds display show the state (after the journal has it);
        the colour-up's prompt screen goes over the blinds display."""
        if self.changed:
            self.changed = False
            self.show_lights()
        self.show_blinds()
        self.colour_up.refresh()

    def show_blinds(self, seconds_left: int | Keep | None = KEEP) -> None:
        """The blinds display's level, blinds, ante and button are the table's (the hand's
        level while a hand is played: LEVEL-1); the level's time is the clock panel's,
        kept as shown unless the level clock hands over ``seconds_left`` with a new
        level."""
        view, clocks = self.view, self.clocks
        pos = view.positions
        hand_level = view.level
        number, level = ((view.hand_level_no, hand_level)
                         if view.hand is not None and hand_level is not None
                         else (clocks.level_no, clocks.current))
        button = pos.button if pos is not None else (
            view.previous.button if view.previous is not None else view.button)
        shown = self.blinds.frame
        game = blinds_game(self.house())
        asked = (shown, level, number, button, seconds_left, clocks.on_break, clocks.unsynced,
                 game)
        if _same(asked, self._blinds_asked):
            return  # nothing it shows has changed since the last call (most calls)
        self._blinds_asked = asked
        left = shown.seconds_left if shown is not None and clocks.level else None
        if not isinstance(seconds_left, Keep):
            left = seconds_left
        frame = BlindsFrame(number, level.small_blind, level.big_blind, level.ante, button,
                            left, on_break=clocks.on_break, unsynced=clocks.unsynced,
                            game=game)
        if frame != shown:
            self.blinds.show(frame)
            self._blinds_asked = (self.blinds.frame, *asked[1:])

    def release_light(self, seat: int) -> None:
        """The clocks' panel hands ``seat``'s light back (nothing to do if it shows the
        table's state still)."""
        light = self.lights.lights.get(seat)
        if light is not None and light.state == self.lights.shown.get(seat):
            return
        self.lights.shown.pop(seat, None)
        self._lit = ()
        self.changed = True

    def show_lights(self) -> None:
        """Whose turn it is, all-ins, who shows next, the winners of the pot being pushed,
        and seats with an open prompt; or the colour-up's own plan while it runs."""
        colour_up = self.colour_up.light_plan()
        if colour_up is not None:
            lit = ("colour_up", *colour_up.items())
            if lit != self._lit:
                self._lit = lit
                self.lights.show(colour_up)
            return
        view = self.view
        hand, pos = view.hand, view.positions
        problems = tuple(p.seat for p in view.prompts if p.seat is not None)
        turn = to_show = None
        all_in: tuple[int, ...] = ()
        winners: tuple[int, ...] = ()
        if hand is not None and pos is not None:
            dealt = pos.dealt
            all_in = tuple(dealt[i] for i in range(len(dealt))
                           if hand.stacks[i] == 0 and not hand.folded[i])
            if view.stage is Stage.AWARDING and view.awarded < len(hand.awards):
                winners = tuple(dealt[p] for p, c in hand.awards[view.awarded].shares if c)
            turn = dealt[hand.actor] if hand.actor is not None else None
            nxt = hand.next_to_show
            to_show = dealt[nxt] if nxt is not None else None
        wanted = (turn, all_in, to_show, winners, problems)
        if wanted == self._lit:
            return
        self._lit = wanted
        self.lights.show(light_plan(seats=self.lights.lights, turn=turn, all_in=all_in,
                                    winners=winners, to_show=to_show, problems=problems))


def _same(a: tuple[object, ...], b: tuple[object, ...] | None) -> bool:
    """The same frame shown and level (by identity), the same other inputs."""
    return b is not None and a[0] is b[0] and a[1] is b[1] and a[2:] == b[2:]
