"""Tournament play between hands: hand-for-hand (TOURN-22) and busted players.

Hand-for-hand: once the floor turns it on, the hand under way is finished and the table
then deals only the hands the floor releases, one release for one hand; turned off, the
table deals on its own again. A misdeal's redeal is the same hand (LIVE-25) and needs no
new release. A tournament player who ends a hand with no chips leaves the seat at once
(the floor records the elimination from ``PlayerBusted``).
"""

from __future__ import annotations

from controller.events import HandForHandSet, HandReleased, PlayerBusted

from .base import Stage
from .ports import HandView, Refuse, Sink
from .seats import Roster

RULE = "TOURN-22"


class HandForHand:
    """The floor's hand-for-hand switch and the one hand it released (TOURN-22)."""

    def __init__(self, *, view: HandView, emit: Sink, reject: Refuse) -> None:
        self.view = view
        self.emit = emit
        self.reject = reject
        self.on = False
        self.released = False  # the next hand may be dealt

    def set(self, on: bool) -> bool:
        """TOURN-22: the floor turns hand-for-hand on (the hand under way finishes, then
        the table waits for each release) or off (the table deals on its own again)."""
        if on == self.on:
            return self.reject(f"hand-for-hand is already {'on' if on else 'off'}", RULE,
                               "hand_for_hand")
        self.on = on
        self.released = False
        self.emit(HandForHandSet(on=on))
        return True

    def release(self) -> bool:
        """TOURN-22: hand-for-hand, the floor lets exactly one more hand be dealt."""
        view = self.view
        if not self.on:
            return self.reject("the table is not playing hand-for-hand (it deals on its "
                               "own); turn hand-for-hand on first", RULE, "next_hand")
        if view.stage is not Stage.IDLE:
            return self.reject(f"hand {view.hand_no} is still being played ({view.stage}); "
                               "release the next hand once it is over", RULE, "next_hand")
        if self.released:
            return self.reject(f"hand {view.hand_no + 1} is already released and not dealt "
                               "yet; wait until it has been played", RULE, "next_hand")
        self.released = True
        self.emit(HandReleased(hand_no=view.hand_no + 1))
        return True

    def holds(self, redeal: bool) -> str | None:
        """Why hand-for-hand holds the next deal (None: it may be dealt); a misdeal's
        ``redeal`` needs no release."""
        if self.on and not self.released and not redeal:
            return ("hand-for-hand: the next hand waits for the floor to release it "
                    "(TOURN-22)")
        return None

    def hand_dealt(self) -> None:
        """A hand started: the release (if any) is used up."""
        self.released = False


def bust_players(roster: Roster, emit: Sink, hand_no: int) -> None:
    """After a tournament hand: every player left with no chips leaves the seat at once."""
    for seat in [s for s in roster.occupied() if s.stack == 0]:
        roster.leave(seat.number)
        emit(PlayerBusted(seat=seat.number, player=seat.player, hand_no=hand_no))
