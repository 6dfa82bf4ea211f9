"""The live feed's hub: every subscriber (a browser's WebSocket) gets its own queue.

A public event reaches the feed as soon as it is parsed (:meth:`FloorFeed.offer`, on the
event loop), not after it is stored: the table journaled it before sending it, and the
store only decides when it is acknowledged. Per table, events go out once each and in seq
order: one that arrives above a gap is held until the gap fills (never shown before), and
what the store applies is offered again (:meth:`FloorFeed.settle`) so nothing it applied is
missed.
A table's new public state (``state`` items: the hand in play as the table's rules engine
sees it, the stakes in force; :func:`host_bridge.ingest.state_item`) goes out once the
store has kept it, and only when it changed.

Items are public, except ``hole_cards`` items: those go only to privileged subscribers
(the ``broadcast`` role) and only once the configured delay has passed since the cards
arrived or the hand is over (:class:`HoleCardRelease`). A subscriber too slow to keep up
is dropped rather than slowing ingest.
"""

from __future__ import annotations

import asyncio
import heapq
import time
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass

from controller.sync.messages import SecureCards
from host_bridge.ingest import FeedItem

__all__ = ["DROPPED", "HOLD_LIMIT", "QUEUE_LIMIT", "FloorFeed", "HoleCardRelease"]

QUEUE_LIMIT = 1000
# Events held above a gap, per table: a gap normally fills within a resend's round trip.
# Beyond these (a lost event the table has not resent yet, another bridge behind a shared
# subscription took it, a forged seq) an event is not held: it reaches the feed when the
# store applies it (:meth:`FloorFeed.settle`). The feed never skips a gap (#17).
HOLD_LIMIT = 100
DROPPED: FeedItem = {"type": "dropped", "reason": "this feed fell more than 1000 items behind; "
                     "reconnect and reload the tables"}


@dataclass(slots=True)
class _Subscriber:
    queue: asyncio.Queue[FeedItem]
    privileged: bool


class FloorFeed:
    """Fans feed items out to subscribers, each table's events once and in seq order."""

    def __init__(self) -> None:
        self._subscribers: list[_Subscriber] = []
        self._fed: dict[str, int] = {}  # table -> highest seq pushed
        self._held: dict[str, dict[int, FeedItem]] = {}  # table -> seq -> item above a gap
        # told (table, seq) each time the table's contiguous fed seq moves up to seq
        self.fed_watchers: list[Callable[[str, int], None]] = []

    @property
    def subscribers(self) -> int:
        """How many are listening."""
        return len(self._subscribers)

    def start_at(self, acked: Mapping[str, int]) -> None:
        """Each known table's stored seq (at start): its next event is the one after."""
        for table, seq in acked.items():
            self._fed[table] = max(self._fed.get(table, 0), seq)

    def fed_seq(self, table: str) -> int:
        """The highest seq of ``table`` pushed to the feed."""
        return self._fed.get(table, 0)

    def publish(self, item: FeedItem, *, private: bool = False) -> None:
        """Queue ``item`` for every subscriber (only the privileged ones if ``private``);
        never blocks."""
        for sub in list(self._subscribers):
            if private and not sub.privileged:
                continue
            if sub.queue.qsize() >= QUEUE_LIMIT - 1:
                self._subscribers.remove(sub)
                sub.queue.put_nowait(DROPPED)
            else:
                sub.queue.put_nowait(item)

    def offer(self, item: FeedItem) -> bool:
        """An event item as it arrives: pushed at once if it is the table's next seq (with
        the held ones it unblocks), held if it is above a gap, ignored if already pushed.
        True if it was pushed."""
        table, seq = item["table"], item["seq"]
        fed = self._fed.get(table, 0)
        if seq <= fed:
            return False
        if seq > fed + 1:  # ahead of the contiguous seq: never shown before the gap fills
            held = self._held.setdefault(table, {})
            if seq in held or len(held) < HOLD_LIMIT:
                held.setdefault(seq, item)  # the first payload stands, as in the store
            return False
        self._push(table, seq, item)
        return True

    def settle(self, item: FeedItem) -> None:
        """An item from the store: an applied event is pushed if the feed has not had it
        (the store applies in seq order, so the feed moves up to it); others as they are."""
        if item.get("type") != "event":
            self.publish(item)
        elif item["seq"] > self._fed.get(item["table"], 0):
            self._push(item["table"], item["seq"], item)

    def _push(self, table: str, seq: int, item: FeedItem) -> None:
        self.publish(item)
        self._fed[table] = seq
        held = self._held.get(table)
        if held:
            for old in [s for s in held if s <= seq]:
                del held[old]
            while (nxt := held.pop(seq + 1, None)) is not None:
                seq += 1
                self.publish(nxt)
                self._fed[table] = seq
            if not held:
                del self._held[table]
        for watcher in self.fed_watchers:  # what waited for the feed to reach a seq
            watcher(table, seq)

    @asynccontextmanager
    async def subscribe(self, *, privileged: bool = False) -> AsyncIterator[
            asyncio.Queue[FeedItem]]:
        """A queue of items for as long as the context lasts; ``privileged`` (the
        ``broadcast`` role) also gets the released hole cards."""
        sub = _Subscriber(asyncio.Queue(QUEUE_LIMIT), privileged)
        self._subscribers.append(sub)
        try:
            yield sub.queue
        finally:
            if sub in self._subscribers:
                self._subscribers.remove(sub)


class HoleCardRelease:
    """Hole cards for the ``broadcast`` role's feed: each player's cards are released
    ``delay_s`` after they arrived, or at once when their hand is over (ended, void or a
    misdeal), whichever comes first; never to another role (private feed items)."""

    def __init__(self, feed: FloorFeed, delay_s: float, *,
                 clock: Callable[[], float] = time.time) -> None:
        self._feed = feed
        self._delay = delay_s
        self._clock = clock
        self._due: list[tuple[float, str, int]] = []  # (due, table, seq), a heap
        self._waiting: dict[str, dict[int, FeedItem]] = {}  # table -> seq -> item
        self._released: dict[str, dict[int, int]] = {}  # table -> seq -> hand_no
        self._over: dict[str, int] = {}  # table -> highest hand_no over
        # due, but above the table's contiguous fed seq: never shown ahead of it (issue 17)
        self._blocked: dict[str, dict[int, FeedItem]] = {}
        feed.fed_watchers.append(self._fed_to)
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at = 0.0

    @property
    def waiting(self) -> int:
        """How many players' hole cards are held back."""
        return sum(map(len, self._waiting.values())) + sum(map(len, self._blocked.values()))

    def hold(self, cards: SecureCards) -> None:
        """Hold one player's hole cards (a burn card is never shown); cards of a hand that
        is already over go out at once, a resend of cards already out not again."""
        table, seq = cards.table, cards.seq
        waiting = self._waiting.setdefault(table, {})
        if cards.what != "hole" or seq in waiting or seq in self._released.get(table, ()) \
                or seq in self._blocked.get(table, ()):
            return
        item: FeedItem = {"type": "hole_cards", "table": table, "seq": seq,
                          "hand_no": cards.hand_no, "player": cards.player,
                          "cards": list(cards.cards)}
        if cards.hand_no <= self._over.get(table, 0):
            self._release(item)
            return
        waiting[seq] = item
        heapq.heappush(self._due, (self._clock() + self._delay, table, seq))
        self.release_due()

    def hand_over(self, table: str, hand_no: int) -> None:
        """The hand is over at ``table``: release all its hole cards now."""
        self._over[table] = max(self._over.get(table, 0), hand_no)
        waiting = self._waiting.get(table, {})
        for seq in [s for s, item in waiting.items() if item["hand_no"] <= hand_no]:
            self._release(waiting.pop(seq))
        released = self._released.get(table, {})
        for seq in [s for s, h in released.items() if h < hand_no]:
            del released[seq]  # kept one hand back, against late resends

    def _release(self, item: FeedItem) -> None:
        table, seq = item["table"], item["seq"]
        if seq > self._feed.fed_seq(table):  # its hole_dealt is not on the feed yet: the
            self._blocked.setdefault(table, {})[seq] = item  # cards wait for the gap
            return
        self._released.setdefault(table, {})[seq] = item["hand_no"]
        self._feed.publish(item, private=True)

    def _fed_to(self, table: str, seq: int) -> None:
        """The feed reached ``seq`` at ``table``: cards that were due go out now."""
        blocked = self._blocked.get(table)
        if not blocked:
            return
        for due in sorted(s for s in blocked if s <= seq):
            self._release(blocked.pop(due))
        if not blocked:
            del self._blocked[table]

    def release_due(self) -> None:
        """Release what the delay has freed; keep a timer for the next one."""
        now = self._clock()
        while self._due and self._due[0][0] <= now:
            _, table, seq = heapq.heappop(self._due)
            item = self._waiting.get(table, {}).pop(seq, None)
            if item is not None:
                self._release(item)
        if not self._due:
            return
        at = self._due[0][0]
        if self._timer is not None:
            if self._timer_at <= at and not self._timer.cancelled():
                return  # an earlier wake-up is set: it arms the next one
            self._timer.cancel()
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self._timer = None
            return  # no loop (a synchronous caller): the next message releases them
        self._timer_at = at
        self._timer = loop.call_later(max(0.0, at - now) + 0.001, self._wake)

    def _wake(self) -> None:
        self._timer = None
        self.release_due()
