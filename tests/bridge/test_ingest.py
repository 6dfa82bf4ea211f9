"""Ingest: each event stored and applied once, in seq order, whatever the broker does;
acks name the highest contiguous seq; gaps are asked for again; status marks tables."""

from __future__ import annotations

import json
import logging

import pytest
from sqlalchemy import func, select

from controller.events import (
    BreakStarted,
    CardBurned,
    ClockSynced,
    HandReleased,
    LevelSet,
    PlayerBusted,
    SeatAdjustment,
    StackAdjusted,
)
from controller.sync.messages import SecureCards, parse_host_ack
from host_bridge.bridge import Bridge
from host_bridge.ingest import FeedItem, IngestResult
from host_bridge.models import EventRecord, Hand, HoleCards, PokerTable, Seat
from tests.bridge.conftest import ManualClock
from tests.bridge.tablesim import WireTable, showdown_hand


def acks(result: IngestResult) -> list[tuple[str, int, int]]:
    """The acks and resend requests in a result, as (kind, a, b)."""
    out = []
    for message in result.outbound:
        ack = parse_host_ack(message.payload)
        if ack.kind == "ack":
            out.append(("ack", ack.acked, ack.acked))
        else:
            out.append(("resend", ack.from_seq, ack.to_seq))
    return out


def table_row(bridge: Bridge, table: str = "t1") -> PokerTable:
    with bridge.ingest._sessions() as session:
        row = session.get(PokerTable, table)
        assert row is not None
        return row


def event_count(bridge: Bridge) -> int:
    with bridge.ingest._sessions() as session:
        return session.scalar(select(func.count()).select_from(EventRecord)) or 0


def test_duplicate_event_is_stored_once_and_acked_again(bridge: Bridge) -> None:
    wire = WireTable()
    msg = wire.seat(1, "alice", 500)
    first = bridge.ingest.take(*msg)
    again = bridge.ingest.take(*msg)
    assert acks(first) == [("ack", 1, 1)]
    assert acks(again) == [("ack", 1, 1)]  # the table may have missed the first ack
    assert event_count(bridge) == 1
    assert bridge.ingest.duplicates == 1
    with bridge.ingest._sessions() as session:
        seats = session.scalars(select(Seat)).all()
    assert [(s.seat, s.player_id, s.stack) for s in seats] == [(1, "alice", 500)]


def test_gap_asks_for_a_resend_then_reordered_events_apply_in_seq_order(bridge: Bridge) -> None:
    wire = WireTable()
    m1, m2, m3, m4 = (wire.seat(1, "alice", 500), wire.seat(2, "bob", 400),
                      wire.event(LevelSet(level=3)),
                      wire.seat(3, "carol", 300))
    assert acks(bridge.ingest.take(*m1)) == [("ack", 1, 1)]
    assert acks(bridge.ingest.take(*m4)) == [("ack", 1, 1), ("resend", 2, 3)]
    assert acks(bridge.ingest.take(*m3)) == [("ack", 1, 1)]  # same gap: not asked again
    assert table_row(bridge).level == 1  # seq 3 waits for seq 2
    assert acks(bridge.ingest.take(*m2)) == [("ack", 4, 4)]
    row = table_row(bridge)
    assert (row.acked_seq, row.level) == (4, 3)
    with bridge.ingest._sessions() as session:
        applied = session.scalars(select(EventRecord.seq).where(EventRecord.applied)).all()
    assert sorted(applied) == [1, 2, 3, 4]


def test_a_gap_is_asked_again_only_after_the_timeout_without_progress(
        bridge: Bridge, clock: ManualClock) -> None:
    """#17: one outstanding resend request per table; other traffic does not re-ask it,
    a second with nothing landing for ``resend_after_s`` does."""
    wire = WireTable()
    msgs = [wire.event(LevelSet(level=n)) for n in range(1, 60)]
    bridge.ingest.take(*msgs[0])
    assert ("resend", 2, 2) in acks(bridge.ingest.take(*msgs[2]))
    for message in msgs[3:]:  # plenty of other traffic, above the gap
        assert [a for a in acks(bridge.ingest.take(*message)) if a[0] == "resend"] == []
    clock.now += bridge.settings.resend_after_s
    assert ("resend", 2, 2) in acks(bridge.ingest.take(*msgs[-1]))  # a duplicate, late


def test_hole_dealt_is_not_acked_until_its_secure_cards_arrive(bridge: Bridge) -> None:
    wire = WireTable()
    for seat, name in ((1, "a"), (2, "b"), (3, "c")):
        bridge.ingest.take(*wire.seat(seat, name, 1000))
    messages = wire.hand(1, (1, 2, 3), showdown_hand())
    hand_started, hole_event, hole_cards, next_event = messages[:4]
    assert hole_cards[0].endswith("/secure/cards")
    bridge.ingest.take(*hand_started)
    assert acks(bridge.ingest.take(*hole_event)) == [("ack", 4, 4)]
    # the next event shows the cards of seq 5 went missing: ask for seq 5 again
    assert acks(bridge.ingest.take(*next_event)) == [("ack", 4, 4), ("resend", 5, 5)]
    assert acks(bridge.ingest.take(*hole_cards)) == [("ack", 5, 5)]


def test_secure_cards_before_their_event_wait_for_it(bridge: Bridge) -> None:
    wire = WireTable()
    for seat, name in ((1, "a"), (2, "b"), (3, "c")):
        bridge.ingest.take(*wire.seat(seat, name, 1000))
    hand_started, hole_event, hole_cards = wire.hand(1, (1, 2, 3), showdown_hand())[:3]
    bridge.ingest.take(*hand_started)
    assert acks(bridge.ingest.take(*hole_cards))[0] == ("ack", 4, 4)
    assert acks(bridge.ingest.take(*hole_event)) == [("ack", 5, 5)]


def test_a_whole_hand_delivered_twice_and_shuffled_ends_in_the_same_state(
        bridge: Bridge) -> None:
    wire = WireTable()
    messages = [wire.seat(s, n, 1000) for s, n in ((1, "a"), (2, "b"), (3, "c"))]
    messages += wire.hand(1, (1, 2, 3), showdown_hand())
    shuffled = messages[::-1] + messages  # worst order first, then everything again
    for topic, payload in shuffled:
        bridge.ingest.take(topic, payload)
    row = table_row(bridge)
    assert row.acked_seq == len([m for m in messages if m[0].endswith("/event")])
    assert not row.hand_in_progress
    with bridge.ingest._sessions() as session:
        stacks = {s.seat: s.stack for s in session.scalars(select(Seat))}
    assert stacks == {1: 995, 2: 970, 3: 1035}


def test_same_seq_with_another_payload_is_a_conflict_and_the_first_stands(
        bridge: Bridge) -> None:
    wire = WireTable()
    bridge.ingest.take(*wire.seat(1, "alice", 500))
    other = WireTable(seq=iter([1]))
    bridge.ingest.take(*other.seat(1, "mallory", 9999))
    assert bridge.ingest.conflicts == 1
    with bridge.ingest._sessions() as session:
        seat = session.get(Seat, ("t1", 1))
        assert seat is not None and seat.player_id == "alice"


def test_status_marks_the_table_online_then_offline_in_arrival_order(bridge: Bridge) -> None:
    wire = WireTable()
    will = wire.status(False)  # a Will is built at connect time: the oldest ts of the three
    online = wire.status(True)
    bridge.ingest.take(*online)
    assert table_row(bridge).online
    bridge.ingest.take(*will)  # the table died: the broker publishes its Will
    assert not table_row(bridge).online
    bridge.ingest.take(*online)
    assert table_row(bridge).online


def test_malformed_payloads_and_mismatched_topics_are_rejected_with_a_reason(
        bridge: Bridge) -> None:
    wire = WireTable()
    assert "JSON" in bridge.ingest.take(wire.topics.event, b"{nope").rejected[0]
    topic, payload = wire.seat(1, "alice", 500)
    wrong = topic.replace("/t1/", "/t2/")
    assert "names table 't1'" in bridge.ingest.take(wrong, payload).rejected[0]
    newer = json.loads(payload) | {"schema": 3}
    assert "schema version" in bridge.ingest.take(topic, json.dumps(newer).encode()).rejected[0]
    older = json.loads(payload) | {"schema": 1}
    reason = bridge.ingest.take(topic, json.dumps(older).encode()).rejected[0]
    assert "schema version 1 is not supported" in reason and "table_changed" in reason
    assert event_count(bridge) == 0


def test_hole_cards_never_reach_the_log(bridge: Bridge,
                                       caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="host_bridge")
    wire = WireTable()
    messages = [wire.seat(s, n, 1000) for s, n in ((1, "a"), (2, "b"), (3, "c"))]
    messages += wire.hand(1, (1, 2, 3), showdown_hand())
    for topic, payload in messages[::-1]:  # reversed: gaps and resends get logged
        bridge.ingest.take(topic, payload)
    assert caplog.records  # something was logged
    text = "\n".join(r.getMessage() for r in caplog.records)
    for secret in ("AsKs", "'As'", "\"As\"", "Ks"):
        assert secret not in text


def test_a_batch_is_one_transaction_with_one_ack_per_table(bridge: Bridge) -> None:
    t1, t2 = WireTable("t1"), WireTable("t2")
    batch = [t1.seat(1, "a", 100), t2.seat(1, "b", 100), t1.seat(2, "c", 100),
             t2.seat(3, "d", 100)]
    result = bridge.ingest.take_many(batch)
    acked = sorted((parse_host_ack(o.payload).table, acks(IngestResult(outbound=[o]))[0])
                   for o in result.outbound)
    assert acked == [("t1", ("ack", 2, 2)), ("t2", ("ack", 2, 2))]
    assert len([f for f in result.feed if f["type"] == "event"]) == 4


def test_a_message_that_fails_is_rolled_back_alone_and_not_acked(
        bridge: Bridge, monkeypatch: pytest.MonkeyPatch) -> None:
    import host_bridge.ingest as ingest_module

    real_apply = ingest_module.apply_event

    def apply_but_fail_seq_2(rows: object, table: str, message: object, seq: int,
                             feed: list[FeedItem], *rest: object) -> None:
        if table == "t1" and seq == 2:
            raise RuntimeError("simulated bug")
        real_apply(rows, table, message, seq, feed, *rest)  # type: ignore[arg-type]

    monkeypatch.setattr(ingest_module, "apply_event", apply_but_fail_seq_2)
    t1, t2 = WireTable("t1"), WireTable("t2")
    result = bridge.ingest.take_many([t1.seat(1, "a", 100), t1.seat(2, "b", 100),
                                      t2.seat(1, "c", 100)])
    assert bridge.ingest.failures == 1
    assert table_row(bridge, "t1").acked_seq == 1  # seq 2 is not stored: the table resends
    assert table_row(bridge, "t2").acked_seq == 1  # the other table is not held up
    assert event_count(bridge) == 2
    assert ("ack", 1, 1) in acks(result)


def test_a_failed_phh_export_is_recorded_and_ingest_goes_on(
        bridge: Bridge, monkeypatch: pytest.MonkeyPatch) -> None:
    import host_bridge.floor_model as floor_module

    def broken(*_args: object) -> None:
        raise RuntimeError("engine bug")

    monkeypatch.setattr(floor_module, "export_hand", broken)
    wire = WireTable()
    messages = [wire.seat(s, n, 1000) for s, n in ((1, "a"), (2, "b"), (3, "c"))]
    messages += wire.hand(1, (1, 2, 3), showdown_hand())
    bridge.ingest.take_many(messages)
    row = table_row(bridge)
    assert row.acked_seq == len([m for m in messages if m[0].endswith("/event")])
    with bridge.ingest._sessions() as session:
        hand = session.scalar(select(Hand))
        assert hand is not None and hand.status == "ended" and hand.phh is None
        assert hand.phh_error == "the export failed: RuntimeError('engine bug')"


def test_a_burn_waits_for_its_secure_half_and_stores_no_card(bridge: Bridge) -> None:
    # CARD-8: which card was burned goes only to secure/cards, with the burn's seq.
    wire = WireTable()
    topic, burn = wire.event(CardBurned(hand_no=1))
    env = json.loads(burn)
    secret = SecureCards(table=env["table"], boot=env["boot"], seq=env["seq"], ts=env["ts"],
                         hand_no=1, cards=("7h",), what="burn")
    assert acks(bridge.ingest.take(topic, burn)) == [("ack", 0, 0)]  # waits for its half
    assert acks(bridge.ingest.take(wire.topics.secure_cards, secret.to_wire())) == [
        ("ack", env["seq"], env["seq"])]
    with bridge.ingest._sessions() as session:
        assert session.scalar(select(func.count()).select_from(HoleCards)) == 0


def test_chiprace_a_colour_up_moves_the_seats_stacks_in_the_floor_model(
        bridge: Bridge) -> None:
    wire = WireTable()
    bridge.ingest.take(*wire.seat(1, "alice", 1_075))
    bridge.ingest.take(*wire.seat(2, "bob", 1_050))
    bridge.ingest.take(*wire.event(StackAdjusted(reason="colour_up", seats=(
        SeatAdjustment(seat=1, before=1_075, after=1_100),
        SeatAdjustment(seat=2, before=1_050, after=1_000)))))
    with bridge.ingest._sessions() as session:
        seats = session.scalars(select(Seat).order_by(Seat.seat)).all()
    assert [(s.seat, s.stack) for s in seats] == [(1, 1_100), (2, 1_000)]


def test_a_busted_player_leaves_the_floor_model_and_clock_changes_apply_quietly(
        bridge: Bridge, caplog: pytest.LogCaptureFixture) -> None:
    wire = WireTable()
    bridge.ingest.take(*wire.seat(1, "alice", 500))
    bridge.ingest.take(*wire.seat(2, "bob", 500))
    with caplog.at_level(logging.WARNING):
        bridge.ingest.take(*wire.event(PlayerBusted(seat=2, player="bob", hand_no=4)))
        bridge.ingest.take(*wire.event(ClockSynced(level=3)))
        bridge.ingest.take(*wire.event(BreakStarted(level=3)))
        bridge.ingest.take(*wire.event(HandReleased()))
    assert not [r for r in caplog.records if "not applied" in r.getMessage()]
    with bridge.ingest._sessions() as session:
        seats = session.scalars(select(Seat)).all()
    assert [s.seat for s in seats] == [1]
    assert table_row(bridge).level == 3
