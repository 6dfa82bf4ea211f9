"""What the table shows between the journal and the players: the blinds display and the
seat lights, worked out from the table's state after each change (DESIGN.md data flow 5)."""

from __future__ import annotations

from enum import Enum
from typing import TYPE_CHECKING

from controller.devices.interfaces import BlindsFrame

from .base import Stage
from .lights import light_plan

if TYPE_CHECKING:
    from .table import Table


class Keep(Enum):
    """``show_blinds``: keep the time the display shows."""

    KEEP = "keep"


KEEP = Keep.KEEP


def show_blinds(table: Table, seconds_left: int | Keep | None = KEEP) -> None:
    """The blinds display's level, blinds, ante and button are the table's (the hand's
    level while a hand is played: LEVEL-1); the level's time is the clock panel's, kept
    as shown unless the level clock hands over ``seconds_left`` with a new level."""
    pos = table.positions
    number, level = ((table.hand_level_no, table.hand_level) if table.hand is not None
                     else (table.level_no, table.level))
    button = pos.button if pos is not None else (
        table.previous.button if table.previous is not None else table.button)
    shown = table.hardware.blinds.frame
    clocks = table.clocks
    asked = (shown, level, number, button, seconds_left, clocks.on_break, clocks.unsynced)
    if _same(asked, table._blinds_asked):
        return  # nothing it shows has changed since the last call (most calls)
    table._blinds_asked = asked
    left = shown.seconds_left if shown is not None and clocks.level else None
    if not isinstance(seconds_left, Keep):
        left = seconds_left
    frame = BlindsFrame(number, level.small_blind, level.big_blind, level.ante, button,
                        left, on_break=clocks.on_break, unsynced=clocks.unsynced)
    if frame != shown:
        table.hardware.blinds.show(frame)
        table._blinds_asked = (table.hardware.blinds.frame, *asked[1:])


def _same(a: tuple[object, ...], b: tuple[object, ...] | None) -> bool:
    """The same frame shown and level (by identity), the same other inputs."""
    return b is not None and a[0] is b[0] and a[1] is b[1] and a[2:] == b[2:]


def release_light(table: Table, seat: int) -> None:
    """The clocks' panel hands ``seat``'s light back (nothing to do if it shows the
    table's state still)."""
    light = table.lights.lights.get(seat)
    if light is not None and light.state == table.lights.shown.get(seat):
        return
    table.lights.shown.pop(seat, None)
    table._lit = ()
    table._changed = True


def show_lights(table: Table) -> None:
    """Whose turn it is, all-ins, who shows next, the winners of the pot being pushed,
    and seats with an open prompt; or the colour-up's own plan while it runs."""
    colour_up = table.colour_up.light_plan()
    if colour_up is not None:
        lit = ("colour_up", *colour_up.items())
        if lit != table._lit:
            table._lit = lit
            table.lights.show(colour_up)
        return
    hand, pos = table.hand, table.positions
    problems = tuple(p.event.seat for p in table.prompts if p.event.seat is not None)
    turn = to_show = None
    all_in: tuple[int, ...] = ()
    winners: tuple[int, ...] = ()
    if hand is not None and pos is not None:
        dealt = pos.dealt
        all_in = tuple(dealt[i] for i in range(len(dealt))
                       if hand.stacks[i] == 0 and not hand.folded[i])
        if table.stage is Stage.AWARDING and table.awarded < len(hand.awards):
            winners = tuple(dealt[p] for p, c in hand.awards[table.awarded].shares if c)
        turn = dealt[hand.actor] if hand.actor is not None else None
        nxt = hand.next_to_show
        to_show = dealt[nxt] if nxt is not None else None
    wanted = (turn, all_in, to_show, winners, problems)
    if wanted == table._lit:
        return
    table._lit = wanted
    table.lights.show(light_plan(seats=table.lights.lights, turn=turn, all_in=all_in,
                                 winners=winners, to_show=to_show, problems=problems))
