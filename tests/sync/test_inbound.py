"""Everything the host can send, over a real broker: commands with replies, and malformed
payloads fuzzed on every inbound topic (cmd, host/ack, host/status) while the table plays.
Nothing malformed may change the table, stop the link or disturb the event stream."""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Callable
from pathlib import Path

from controller.events import Change, PlayerSeated
from controller.sync.messages import AckMessage, EventMessage, parse_message
from controller.sync.topics import Topics
from tests.sync.conftest import Mosquitto
from tests.sync.floor import FloorRecorder
from tests.sync.harness import GUARD, assert_host_matches_table, drained, running_table

TOPICS = Topics("test", "t1")


def mangled(rng: random.Random) -> bytes:
    """A payload that is wrong in one of many ways."""
    good = {"schema": 2, "table": "t1", "boot": "host-1", "seq": rng.randint(0, 9),
            "ts": time.time()}
    choices: list[Callable[[], bytes]] = [
        lambda: bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 40))),
        lambda: b"",
        lambda: b"\xff\xfe{}",
        lambda: b"[" * 5000,  # deep nesting
        lambda: json.dumps(rng.choice([None, 1, "x", [1], 1.5])).encode(),
        lambda: json.dumps({**good, "schema": rng.choice([0, 1, 3, "2", None])}).encode(),
        lambda: json.dumps({**good, "kind": "ack",
                            "acked": rng.choice([-1, "5", 10**30])}).encode(),
        lambda: json.dumps({**good, "kind": "ack", "acked": 10**9}).encode(),  # the future
        lambda: json.dumps({**good, "kind": "resend", "from_seq": 5, "to_seq": 2}).encode(),
        lambda: json.dumps({**good, "kind": "nack"}).encode(),
        lambda: json.dumps({**good, "table": "t2", "kind": "ack", "acked": 1}).encode(),
        lambda: json.dumps({**good, "online": "yes"}).encode(),
        lambda: json.dumps({**good, "command_id": "z" * 65, "command": {"name": "pause"}}).encode(),
        lambda: json.dumps({**good, "command_id": "f1", "command": {"name": "set_level",
                                                                    "level": -3}}).encode(),
        lambda: json.dumps({**good, "command_id": "f2", "command": "pause"}).encode(),
        lambda: json.dumps({**good, "command_id": "f3", "command": {"name": "pause",
                                                                    "extra": 1}}).encode(),
    ]
    payload: bytes = rng.choice(choices)()
    if rng.random() < 0.2 and len(payload) > 4:  # and sometimes truncate it
        payload = payload[: rng.randrange(1, len(payload))]
    return payload


def test_commands_round_trip_over_mqtt(broker: Mosquitto, tmp_path: Path) -> None:
    async def scenario() -> None:
        async with FloorRecorder(broker.port) as host, \
                running_table(tmp_path / "t1.db", broker.port) as stack:
            async with asyncio.timeout(GUARD):
                ok = await host.command("t1", "p-1", {"name": "pause"})
                again = await host.command("t1", "p-1", {"name": "pause"})
                nope = await host.command("t1", "p-2", {"name": "pause"})
                unknown = await host.command("t1", "p-3", {"name": "teleport"})
                schema = await host.command("t1", "p-4", {"name": "resume"}, schema=3)
            assert ok["status"] == "ok" and again == ok and stack.desk.performed == 1
            assert "already paused" in nope["error"]
            assert "unknown command 'teleport'" in unknown["error"]
            assert "schema version 3" in schema["error"]
            assert stack.outbox.state.paused
            await drained(host, stack)
            assert host.tables["t1"].state.paused  # the host saw the change as an event

    asyncio.run(scenario())


def test_malformed_payloads_on_every_inbound_topic_change_nothing(broker: Mosquitto,
                                                                  tmp_path: Path) -> None:
    rng = random.Random(2024)

    async def scenario() -> None:
        async with FloorRecorder(broker.port) as host, \
                running_table(tmp_path / "t1.db", broker.port) as stack:
            player = asyncio.create_task(stack.play(6, pace=0.001), name="virtual-table")
            sent = 0
            while not player.done():
                for topic in (TOPICS.cmd, TOPICS.ack, TOPICS.host_status):
                    await host.publish(topic, mangled(rng))
                    sent += 1
                await asyncio.sleep(0.002)
            await player
            await drained(host, stack)
            assert stack.link.rejected > 0 and stack.link.connects == 1  # never knocked off
            assert stack.desk.performed == 0  # no fuzzed command was carried out
            events = [parse_message(EventMessage, p).event
                      for p in host.tables["t1"].events.values()]
            changes = [e for e in events if isinstance(e, Change)]
            assert all(isinstance(c, PlayerSeated) for c in changes)  # only the seating
            assert host.replies  # malformed commands were answered, with errors only
            assert all(r["status"] == "error" for r in host.replies.values())
            assert_host_matches_table(host, stack.journal)
            assert sent > 50

    asyncio.run(scenario())


def test_an_ack_of_the_future_is_ignored(broker: Mosquitto, tmp_path: Path) -> None:
    async def scenario() -> None:
        async with FloorRecorder(broker.port, ack=False) as host, \
                running_table(tmp_path / "t1.db", broker.port) as stack:
            await stack.play(1)
            await host.publish(TOPICS.ack, AckMessage(table="t1", boot="h", seq=1, ts=0.0,
                                                      acked=stack.outbox.last_seq + 5).to_wire())
            await host.publish(TOPICS.ack, AckMessage(table="t1", boot="h", seq=2, ts=0.0,
                                                      acked=2).to_wire())
            async with asyncio.timeout(GUARD):
                while stack.outbox.acked != 2:
                    await asyncio.sleep(0.01)
            assert stack.link.rejected == 1 and stack.outbox.size == stack.outbox.last_seq - 2

    asyncio.run(scenario())


def test_host_coming_online_gets_everything_unacknowledged_again(broker: Mosquitto,
                                                                  tmp_path: Path) -> None:
    async def scenario() -> None:
        async with FloorRecorder(broker.port, ack=False) as host, \
                running_table(tmp_path / "t1.db", broker.port) as stack:
            await stack.play(1)
            rec = host.tables["t1"]
            async with asyncio.timeout(GUARD):
                await host.until(lambda: rec.contiguous == stack.outbox.last_seq)
            assert rec.duplicates == 0 and stack.outbox.acked == 0
            await host.announce(True)  # host/status turns online: resend from the last ack
            async with asyncio.timeout(GUARD):
                await host.until(lambda: rec.duplicates == stack.outbox.last_seq)
            assert rec.conflicts == []

    asyncio.run(scenario())


def test_a_command_sent_while_the_table_is_down_is_answered_after_restart(
        broker: Mosquitto, tmp_path: Path) -> None:
    """The persistent session (clean_start false, session expiry) keeps QoS 1 commands."""
    import signal

    from tests.sync.conftest import start_node

    async def scenario() -> None:
        async with FloorRecorder(broker.port) as host:
            node = start_node(tmp_path / "t1.db", broker.port, "--pace", "0.01")
            try:
                async with asyncio.timeout(GUARD):
                    await host.until(lambda: host.statuses.get("t1", [])[-1:] == ["online"])
                node.send_signal(signal.SIGKILL)
                node.communicate()
                async with asyncio.timeout(GUARD):
                    await host.until(lambda: host.statuses["t1"][-1] == "offline")
                await host.publish(TOPICS.cmd, json.dumps({
                    "schema": 2, "table": "t1", "boot": "host-1", "seq": 1, "ts": 0.0,
                    "command_id": "while-down", "command": {"name": "set_level",
                                                            "level": 7}}).encode())
                node = start_node(tmp_path / "t1.db", broker.port, "--pace", "0.01")
                async with asyncio.timeout(GUARD):
                    await host.until(lambda: "while-down" in host.replies)
                assert host.replies["while-down"]["status"] == "ok"
            finally:
                node.kill()
                node.communicate()

    asyncio.run(scenario())
