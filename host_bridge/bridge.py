"""The bridge's core, one per process: ingest, the command desk and the live feed, joined
to the broker through a :class:`~host_bridge.ingest.Publisher`."""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable, Sequence

from sqlalchemy.orm import Session, sessionmaker

from host_bridge.dispatch import CommandDesk
from host_bridge.ingest import Ingest, IngestResult, Publisher, PublishFailed
from host_bridge.live import FloorFeed
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
        self.ingest = Ingest(sessions, settings.site, host_boot=self.host_boot, clock=clock,
                             resend_after=settings.resend_after_events)
        self.desk = CommandDesk(sessions, self.publisher, settings.site,
                                host_boot=self.host_boot, timeout_s=settings.command_timeout_s,
                                clock=clock)
        self.feed = FloorFeed()

    def attach(self, publisher: Publisher) -> None:
        """Send through ``publisher`` from now on (the MQTT link, once it exists)."""
        self.publisher = publisher
        self.desk.publisher = publisher

    async def receive(self, topic: str, payload: bytes) -> IngestResult:
        """Take one inbound MQTT message: store it, answer it, tell the feed."""
        return await self.receive_many([(topic, payload)])

    async def receive_many(self, messages: Sequence[tuple[str, bytes]]) -> IngestResult:
        """Take a batch in one transaction, then publish the acks it produced."""
        result = self.ingest.take_many(messages)
        for reply in result.replies:
            self.desk.resolve(reply)
        for item in result.feed:
            self.feed.publish(item)
        for out in result.outbound:
            try:
                await self.publisher.publish(out.topic, out.payload, out.qos, out.retain)
            except PublishFailed as exc:
                log.warning("could not publish to %s: %s", out.topic, exc)
        return result
