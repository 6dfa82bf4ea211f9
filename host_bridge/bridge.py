"""The bridge's core, one per process: ingest, the command desk and the live feed, joined
to the broker through a :class:`~host_bridge.ingest.Publisher`."""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor

from sqlalchemy.orm import Session, sessionmaker

from controller.events import HandEnded, HandVoided, MisdealDeclared
from controller.sync.messages import EventMessage, SecureCards, StatusMessage
from host_bridge.db import writer_sessions
from host_bridge.dispatch import CommandDesk
from host_bridge.ingest import Ingest, IngestResult, Parsed, Publisher, PublishFailed, event_item
from host_bridge.live import FloorFeed, HoleCardRelease
from host_bridge.settings import BridgeSettings

log = logging.getLogger(__name__)


class NoBroker:
    """The publisher of a bridge without a broker connection: every publish fails."""

    async def publish(self, topic: str, payload: bytes, qos: int, retain: bool) -> None:
        """Refuse, saying why."""
        raise PublishFailed("this bridge has no broker connection, so nothing can reach the "
                            "tables; check mqtt_host/mqtt_port and the broker")


class Bridge:
    """Everything that is not HTTP: what tables send in, and what goes out to them."""

    def __init__(self, settings: BridgeSettings, sessions: sessionmaker[Session],
                 publisher: Publisher | None = None, *,
                 clock: Callable[[], float] = time.time) -> None:
        self.settings = settings
        self.clock = clock
        self.host_boot = f"{settings.bridge_id}-{uuid.uuid4().hex[:8]}"
        self.publisher: Publisher = publisher if publisher is not None else NoBroker()
        sessions = writer_sessions(sessions)
        self.ingest = Ingest(sessions, settings.site, host_boot=self.host_boot, clock=clock,
                             resend_after=settings.resend_after_s)
        self.desk = CommandDesk(sessions, self.publisher, settings.site,
                                host_boot=self.host_boot, timeout_s=settings.command_timeout_s,
                                clock=clock)
        self.feed = FloorFeed()
        self.feed.start_at(self.ingest.acked_seqs())
        self.hole_cards = HoleCardRelease(self.feed, settings.hole_card_delay_s, clock=clock)
        # the store work runs here, one batch at a time, so the event loop stays free for
        # the broker, the API and the feed while a batch is written
        self._store = ThreadPoolExecutor(max_workers=1, thread_name_prefix="bridge-ingest")
        # called with each stored batch's applied events, typed, in each table's seq order,
        # on the event loop (the tournament director, issue 9); an observer must not block
        self.observers: list[Callable[[Sequence[EventMessage]], None]] = []
        # the bridge's own broker connection (issue 17, item 7): None while no MQTT link
        # tracks it (no broker configured); while it is down, and after it comes back
        # until a table's retained status is heard again, that table's online is unknown
        self.broker_connected: bool | None = None
        self.broker_lost_at: float | None = None
        self._heard: set[str] = set()  # tables whose status came on this connection

    def broker_down(self, *, stopping: bool = False) -> None:
        """The broker connection is lost (or not made yet, or ``stopping``: the bridge
        leaves it): every table's state unknown. Only a loss is a WARNING."""
        if self.broker_connected is False:
            return
        if stopping:
            log.info("the bridge has left the broker (stopping)")
        elif self.broker_connected:
            log.warning("the bridge has lost the broker: tables' states are unknown until "
                        "it is back")
        self.broker_connected, self.broker_lost_at = False, self.clock()
        self._heard.clear()
        self.feed.publish({"type": "broker", "connected": False, "since": self.broker_lost_at})

    def broker_up(self) -> None:
        """Connected and subscribed again: each table is known again once its retained
        status arrives."""
        self.broker_connected, self.broker_lost_at = True, None
        self._heard.clear()
        self.feed.publish({"type": "broker", "connected": True, "since": None})

    def table_online(self, table_id: str, stored: bool) -> bool | None:
        """What the floor is told of a table's ``online``: the stored flag, or None
        (unknown) while the broker connection is down or the table not heard since."""
        if self.broker_connected is None:
            return stored
        return stored if self.broker_connected and table_id in self._heard else None

    def attach(self, publisher: Publisher) -> None:
        """Send through ``publisher`` from now on (the MQTT link, once it exists)."""
        self.publisher = publisher
        self.desk.publisher = publisher

    async def receive(self, topic: str, payload: bytes) -> IngestResult:
        """Take one inbound MQTT message: store it, answer it, tell the feed."""
        return await self.receive_many([(topic, payload)])

    async def receive_many(self, messages: Sequence[tuple[str, bytes]]) -> IngestResult:
        """Take a batch in one transaction, then publish the acks it produced."""
        result = await self.store_many(messages)
        await self.send(result)
        return result

    def admit(self, topic: str, payload: bytes) -> Parsed:
        """Check one inbound message as it arrives (on the event loop) and tell the live
        feed at once: a public event is pushed before it is stored (the table journaled it
        before sending it; only its ack waits for the store), hole cards are held for the
        broadcast role's delay."""
        parsed = self.ingest.parse(topic, payload)
        message = parsed.message
        if isinstance(message, EventMessage):
            self.feed.offer(parsed.item or event_item(message))
            match message.event:
                case HandEnded(hand_no=hand_no) | HandVoided(hand_no=hand_no) \
                        | MisdealDeclared(hand_no=hand_no):
                    self.hole_cards.hand_over(message.table, hand_no)
        elif isinstance(message, SecureCards):
            self.hole_cards.hold(message)
        return parsed

    async def store_many(self, messages: Sequence[tuple[str, bytes]]) -> IngestResult:
        """Admit a batch, then store it (see :meth:`store_admitted`)."""
        return await self.store_admitted([self.admit(t, p) for t, p in messages])

    async def store_admitted(self, batch: Sequence[Parsed]) -> IngestResult:
        """Apply admitted messages on the ingest thread; resolve their replies and settle
        the feed (whatever the store applied that the feed has not had yet)."""
        loop = asyncio.get_running_loop()
        result = await loop.run_in_executor(self._store, self.ingest.apply, batch)
        for parsed in batch:
            if isinstance(parsed.message, StatusMessage):
                self._heard.add(parsed.message.table)
        for reply in result.replies:
            self.desk.resolve(reply)
        for item in result.feed:
            self.feed.settle(item)
        for observe in self.observers:
            try:
                observe(result.applied)
            except Exception:  # an observer's bug must not stop ingest
                log.exception("a bridge observer failed on a batch")
        return result

    async def send(self, result: IngestResult) -> None:
        """Publish a stored batch's acks and resend requests, all at once."""
        async def one(topic: str, payload: bytes, qos: int, retain: bool) -> None:
            try:
                await self.publisher.publish(topic, payload, qos, retain)
            except PublishFailed as exc:
                log.warning("could not publish to %s: %s", topic, exc)

        await asyncio.gather(*(one(o.topic, o.payload, o.qos, o.retain)
                               for o in result.outbound))
