"""The journal: seq, boot ids, atomic batches, durability settings, outbox pruning and
crash recovery (CRASH-1), without a broker."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from controller.events import (
    ActionAccepted,
    HandEnded,
    HandStarted,
    HoleCardsDealt,
    LevelSet,
    Paused,
    PlayerSeated,
)
from controller.sync.errors import JournalError
from controller.sync.journal import Journal


def seated(path: Path, table: str = "t1") -> Journal:
    journal = Journal(path, table=table)
    journal.append([PlayerSeated(seat=s, player=f"p{s}", stack=100)
                    for s in (1, 2, 3)])
    return journal


def start(journal: Journal, hand_no: int = 1) -> None:
    journal.append([HandStarted(hand_no=hand_no, seats=(1, 2, 3), stacks=(100, 100, 100))])


def test_journal_is_wal_with_full_sync(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j.db", table="t1")
    assert journal.pragma("journal_mode") == "wal"
    assert journal.pragma("synchronous") == "2"  # FULL


def test_seq_strictly_increases_across_boots_and_events_keep_their_boot(tmp_path: Path) -> None:
    first = seated(tmp_path / "j.db")
    boot1 = first.boot
    first.close()
    second = Journal(tmp_path / "j.db", table="t1")
    assert second.boot != boot1 and second.last_seq == 3
    parcels = second.append([LevelSet(level=2)])
    assert parcels[0].seq == 4
    messages = [json.loads(p.public) for p in second.parcels(0)]
    assert [m["seq"] for m in messages] == [1, 2, 3, 4]
    assert [m["boot"] for m in messages] == [boot1] * 3 + [second.boot]
    assert [b for b, _ in second.boots()] == [boot1, second.boot]


def test_journal_of_another_table_is_refused(tmp_path: Path) -> None:
    seated(tmp_path / "j.db").close()
    with pytest.raises(JournalError, match="journal of table t1"):
        Journal(tmp_path / "j.db", table="t2")


def test_a_batch_that_does_not_follow_the_state_journals_nothing(tmp_path: Path) -> None:
    journal = seated(tmp_path / "j.db")
    before = (journal.last_seq, journal.state)
    with pytest.raises(JournalError):  # the second hand cannot start inside the first
        journal.append([HandStarted(hand_no=1, seats=(1, 2), stacks=(100, 100)),
                        HandStarted(hand_no=2, seats=(1, 2), stacks=(100, 100))])
    assert (journal.last_seq, journal.state) == before
    assert len(journal.parcels(0)) == 3


def test_chips_are_conserved_or_the_hand_end_is_refused(tmp_path: Path) -> None:
    journal = seated(tmp_path / "j.db")
    start(journal)
    with pytest.raises(JournalError, match="chips"):
        journal.append([HandEnded(hand_no=1, stacks=(100, 100, 101))])
    journal.append([HandEnded(hand_no=1, stacks=(150, 50, 100))])
    assert [s.stack for s in journal.state.seats] == [150, 50, 100]


def test_hole_cards_are_split_into_a_public_event_and_a_secure_payload(tmp_path: Path) -> None:
    journal = seated(tmp_path / "j.db")
    start(journal)
    (parcel,) = journal.append([HoleCardsDealt(hand_no=1, player=0, cards=("As", "Kd"))])
    assert b"As" not in parcel.public and b"Kd" not in parcel.public
    assert json.loads(parcel.public)["event"] == {"kind": "hole_dealt", "hand_no": 1,
                                                  "player": 0, "count": 2}
    assert parcel.secure is not None
    secure = json.loads(parcel.secure)
    assert secure["cards"] == ["As", "Kd"] and secure["seq"] == parcel.seq
    assert "As" not in journal.state.model_dump_json()


def test_crash_1_open_hand_is_voided_back_to_its_starting_stacks(tmp_path: Path) -> None:
    journal = seated(tmp_path / "j.db")
    start(journal)
    journal.append([HandEnded(hand_no=1, stacks=(120, 80, 100))])
    journal.append([HandStarted(hand_no=2, seats=(1, 2, 3), stacks=(120, 80, 100)),
                    ActionAccepted(hand_no=2, player=0, action="bet_raise", amount=60)])
    journal.close()  # the power goes

    again = Journal(tmp_path / "j.db", table="t1")
    assert again.state.hand_in_progress and again.state.hand_no == 2
    void = again.void_open_hand("restarted")
    assert void is not None
    event = json.loads(void.public)["event"]
    assert event["kind"] == "hand_voided" and event["stacks"] == [120, 80, 100]
    assert not again.state.hand_in_progress
    assert [s.stack for s in again.state.seats] == [120, 80, 100]
    assert again.void_open_hand("twice") is None  # nothing left to void
    again.close()
    third = Journal(tmp_path / "j.db", table="t1")
    assert third.state == again.state  # the checkpoint and the replay agree


def test_acks_prune_the_outbox_and_never_move_back(tmp_path: Path) -> None:
    journal = seated(tmp_path / "j.db")
    journal.append([LevelSet(level=2)])
    assert journal.outbox_size() == 4
    assert journal.acknowledge(2) == 2
    assert journal.acknowledge(1) == 2 and journal.acked == 2
    assert journal.acknowledge(99) == 0 and journal.acked == 4  # clipped to the last seq
    assert journal.pragma("synchronous") == "2"  # events are still committed FULL
    journal.close()
    assert Journal(tmp_path / "j.db", table="t1").acked == 4


def test_replies_commit_with_the_events_they_caused(tmp_path: Path) -> None:
    journal = seated(tmp_path / "j.db")
    journal.append([Paused()], reply=("c1", lambda seq: b"seq=%d" % seq))
    journal.close()
    again = Journal(tmp_path / "j.db", table="t1")
    assert again.reply_for("c1") == b"seq=4" and again.state.paused
    assert again.reply_for("c2") is None
