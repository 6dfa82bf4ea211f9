"""Tournament play between hands: hand-for-hand (TOURN-22) and busted players.

Hand-for-hand: once the floor turns it on, the hand under way is finished and the table
then deals only the hands the floor releases, one release for one hand; turned off, the
table deals on its own again. A misdeal's redeal is the same hand (LIVE-25) and needs no
new release. A tournament player who ends a hand with no chips leaves the seat at once
(the floor records the elimination from :class:`~controller.table.events.PlayerBusted`).

These are parts of :class:`~controller.table.table.Table` (its ``set_hand_for_hand``,
``release_hand`` and the deal gate in ``start_hand``), kept here so the table's module
stays small.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .base import Stage
from .events import HandForHandSet, HandReleased, PlayerBusted

if TYPE_CHECKING:
    from .table import Table

RULE = "TOURN-22"


def set_hand_for_hand(table: Table, on: bool) -> bool:
    """TOURN-22: the floor turns hand-for-hand on (the hand under way finishes, then the
    table waits for each release) or off (the table deals on its own again)."""
    if on == table.hand_for_hand:
        return table.reject(f"hand-for-hand is already {'on' if on else 'off'}", RULE,
                            "hand_for_hand")
    table.hand_for_hand = on
    table.released = False
    table.emit(HandForHandSet(on))
    return True


def release_hand(table: Table) -> bool:
    """TOURN-22: hand-for-hand, the floor lets exactly one more hand be dealt."""
    if not table.hand_for_hand:
        return table.reject("the table is not playing hand-for-hand (it deals on its own); "
                            "turn hand-for-hand on first", RULE, "next_hand")
    if table.stage is not Stage.IDLE:
        return table.reject(f"hand {table.hand_no} is still being played ({table.stage}); "
                            "release the next hand once it is over", RULE, "next_hand")
    if table.released:
        return table.reject(f"hand {table.hand_no + 1} is already released and not dealt "
                            "yet; wait until it has been played", RULE, "next_hand")
    table.released = True
    table.emit(HandReleased(table.hand_no + 1))
    return True


def held(table: Table) -> str | None:
    """Why hand-for-hand holds the next deal (None: it may be dealt)."""
    if table.hand_for_hand and not table.released and table.redeal is None:
        return ("hand-for-hand: the next hand waits for the floor to release it "
                "(TOURN-22)")
    return None


def hand_dealt(table: Table) -> None:
    """A hand started: the release (if any) is used up."""
    table.released = False


def bust_players(table: Table, hand_no: int) -> None:
    """After a tournament hand: every player left with no chips leaves the seat at once."""
    for seat in [s for s in table.roster.occupied() if s.stack == 0]:
        table.roster.leave(seat.number)
        table.emit(PlayerBusted(hand_no, seat.number, seat.player))
