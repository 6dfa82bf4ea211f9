"""The field before the start: a player leaving it (TOURN-7) and a field too small to play
(CANCEL-9). Kept apart from :mod:`.cancel`, which the tournament imports: these act on the
:class:`~.tournament.Tournament` itself (no import circle)."""

from __future__ import annotations

from .cancel import Compensation
from .entries import Entry, Stage
from .errors import DirectorError
from .tournament import Tournament


def cancel_below_minimum(t: Tournament) -> dict[str, Compensation]:
    """CANCEL-9 / TOURN-8: a field below its minimum at the start is cancelled, every
    buy-in and fee refunded (CANCEL-1). Refused when the field is big enough or play has
    begun: then the director cancels the event for what it is (:meth:`Tournament.cancel`)."""
    verify_below_minimum(t)
    return t.cancel()


def verify_below_minimum(t: Tournament) -> None:
    """Raise (CANCEL-9) unless the field never started and is below its minimum."""
    if t.stage is not Stage.REGISTERING:
        raise DirectorError(f"the tournament is {t.stage.value}: only a field that never "
                            "started is cancelled for too few entrants", "CANCEL-9")
    if len(t.entries) >= t.setup.min_entrants:
        raise DirectorError(f"{len(t.entries)} entrants reach the minimum "
                            f"{t.setup.min_entrants}: start it, or cancel it as the "
                            "director", "CANCEL-9")


def unregister(t: Tournament, player: str) -> Compensation:
    """TOURN-7: before the start a player may leave the field; their buy-in and fee are
    refunded in full. After the start they are not (play it out or be eliminated)."""
    e = verify_unregister(t, player)
    del t.entries[e.key]
    del t.current[player]
    t.issued -= e.stack
    return Compensation(refund=e.paid_pool + e.paid_fees, rule="TOURN-7")


def verify_unregister(t: Tournament, player: str) -> Entry:
    """Raise unless ``player`` is registered (TOURN-6) and play has not started (TOURN-7);
    their entry."""
    e = t.entry(player)  # TOURN-6: not registered
    if t.stage is not Stage.REGISTERING:
        raise DirectorError(f"the tournament is {t.stage.value}: once play has started the "
                            "buy-in and fee are not refundable", "TOURN-7")
    return e
