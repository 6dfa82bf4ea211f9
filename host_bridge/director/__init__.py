"""The tournament director's pure core: the floor model the host bridge calls (issue 9).

Pure and synchronous: no I/O, no clock (times are passed in), no randomness it is not
given (a ``random.Random``). Imports only the standard library, ``controller.rules`` and
``controller.clocks``. Money is in cents, chips in whole chips.

- :mod:`.setup`: a tournament's published set-up (freezeouts, rebuys, add-ons, re-entry,
  bounties, guarantees, Sit & Gos, HexaPro jackpots).
- :mod:`.tournament`: :class:`Tournament` -- entries, hands, eliminations, places, prizes,
  cancellation.
- :mod:`.seating`: :class:`Floor` -- seat draw, late entries, balancing, breaking tables,
  final-table redraw.
- :mod:`.handforhand`: :class:`HandForHand` and :class:`LastHands` coordinators.
- :mod:`.penalties`: :class:`Penalties` that follow the player.
- :mod:`.cash`: :class:`CashFloor` -- waiting lists, buy-ins and ratholing, sit-outs, rake.
- :mod:`.payouts`, :mod:`.cancel`, :mod:`.sng`: prize pools, ICM, CANCEL-*, jackpots.
- :mod:`.options`, :mod:`.standings`: what a floor tournament is created from, and its
  snapshot (pure).
- :mod:`.floorstate`, :mod:`.floorplan`: the tables as they report themselves, what they
  are let deal, and the floor operations decided (pure; used by the bridge side).

Bridge side (not imported here; they use the bridge, the vocabulary and the wire format's
envelopes, SQLAlchemy and pydantic): :mod:`.service` (:class:`TournamentDirector`, the
model joined to real tables through the bridge; its module docstring is the API a demo
calls), composed of collaborators each given only what it needs: :mod:`.tablelink`
(commands, holding tables, waiting for reports), :mod:`.reports` (the tables' reports
applied to the model), :mod:`.floorwork` (floor operations carried out at the tables),
:mod:`.releases` (hand-for-hand and the last hands of the day), :mod:`.purchases` (rebuys
and add-ons carried to the tables); and :mod:`.journal` (its inputs in the store, replayed
after a restart) and :mod:`.schemas` (the REST API's models).
"""

from .cancel import Compensation
from .cash import CashFloor, Stake
from .entries import Carry, Entry, HandResult, Stage, Status
from .errors import DirectorError, PayoutError, SeatingError
from .handforhand import HandForHand, LastHands
from .payouts import PayoutStructure, PrizePool, icm_chop, icm_equity, payout_table
from .penalties import Penalties
from .seating import Floor, Move
from .setup import TournamentSetup, jackpot_setup
from .sng import draw_multiplier
from .tournament import Tournament

__all__ = [
    "Carry", "CashFloor", "Compensation", "DirectorError", "Entry", "Floor", "HandForHand",
    "HandResult", "LastHands", "Move", "PayoutError", "PayoutStructure", "Penalties",
    "PrizePool", "SeatingError", "Stage", "Stake", "Status", "Tournament", "TournamentSetup",
    "draw_multiplier", "icm_chop", "icm_equity", "jackpot_setup", "payout_table",
]
