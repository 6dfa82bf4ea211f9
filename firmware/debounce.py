"""Debouncing for a seat node: card presence at an RFID reader, and the seat button.

Times are milliseconds from ``time.ticks_ms()`` and compared with ``ticks_diff`` so the
node keeps working when the tick counter wraps.
"""

try:
    from time import ticks_diff  # type: ignore[attr-defined]
except ImportError:  # CPython, for the tests

    def ticks_diff(a, b):  # type: ignore[no-redef]
        return a - b


CARD_ARRIVED = 1
CARD_LEFT = 2


class CardPresence:
    """Turns a reader's raw UID reads into debounced arrivals and departures.

    A UID arrives once it has been read for ``stable_ms`` (without another UID read in
    between); a present card leaves once it has not been read for ``leave_ms`` (RFID reads
    flicker, so a single failed read is not a departure). A card swapped for another is a
    departure then an arrival, on consecutive updates. ``update`` returns ``None`` or one
    ``(CARD_ARRIVED | CARD_LEFT, uid)`` event.
    """

    def __init__(self, stable_ms=60, leave_ms=300):
        self.stable_ms = stable_ms
        self.leave_ms = leave_ms
        self.present = None  # debounced UID on the reader
        self._seen_at = 0  # last read of the present UID
        self._candidate = None  # a UID read but not yet stable
        self._cand_since = 0
        self._cand_at = 0

    def update(self, uid, now):
        if uid is None:
            if self._candidate is not None and ticks_diff(now, self._cand_at) >= self.leave_ms:
                self._candidate = None
            if self.present is not None and ticks_diff(now, self._seen_at) >= self.leave_ms:
                gone = self.present
                self.present = None
                return (CARD_LEFT, gone)
            return None
        if uid == self.present:
            self._seen_at = now
            self._candidate = None
            return None
        if uid != self._candidate:
            self._candidate = uid
            self._cand_since = now
        self._cand_at = now
        if ticks_diff(now, self._cand_since) < self.stable_ms:
            return None
        if self.present is not None:  # swapped: the old card leaves first
            gone = self.present
            self.present = None
            return (CARD_LEFT, gone)
        self.present = uid
        self._seen_at = now
        self._candidate = None
        return (CARD_ARRIVED, uid)


class ButtonDebounce:
    """A push button read as a level; ``update`` is True once per press held ``stable_ms``."""

    def __init__(self, stable_ms=20, active_low=True):
        self.stable_ms = stable_ms
        self.active_low = active_low
        self.pressed = False
        self._raw = False
        self._raw_since = 0

    def update(self, level, now):
        raw = (not level) if self.active_low else bool(level)
        if raw != self._raw:
            self._raw = raw
            self._raw_since = now
        if raw != self.pressed and ticks_diff(now, self._raw_since) >= self.stable_ms:
            self.pressed = raw
            return raw
        return False
