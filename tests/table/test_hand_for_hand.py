"""Tournament play at the live table: hand-for-hand (TOURN-22), busted players leave at
once, the host-seated virtual table deals only with two players or more, sitting-out
players are dealt and folded (BLIND-7)."""

from __future__ import annotations

from controller.events import (
    HandEnded,
    HandForHandSet,
    HandReleased,
    HandStarted,
    JournalEvent,
    PlayerBusted,
    Rejected,
)
from controller.table.lights import Level
from controller.table.table import Stage
from controller.table.virtual import VirtualTable


def host_seated(stacks: dict[int, int], seed: int = 3) -> VirtualTable:
    """A tournament virtual table seated the way the host seats it."""
    vt = VirtualTable(0, seed=seed, tournament=True, levels=(Level(50, 100),))
    for seat, stack in stacks.items():
        assert vt.table.take_seat(seat, f"p{seat}", stack)
    return vt


def started(vt: VirtualTable) -> list[HandStarted]:
    return [e for e in vt.events if isinstance(e, HandStarted)]


def rejections(vt: VirtualTable) -> list[Rejected]:
    return [e for e in vt.events if isinstance(e, Rejected)]


def test_tourn_22_hand_for_hand_deals_one_hand_per_release() -> None:
    vt = host_seated({1: 20_000, 4: 20_000, 7: 20_000})
    t = vt.table
    assert vt.play_hand() and vt.play_hand()
    assert t.set_hand_for_hand(True)
    assert vt.dealing_held() is not None and "hand-for-hand" in vt.dealing_held()  # type: ignore[operator]
    assert not vt.play_hand()
    vt.press("deal")  # the dealer cannot deal past the hold either
    assert rejections(vt)[-1].rule == "TOURN-22" and t.stage is Stage.IDLE
    for expected in (3, 4):
        assert t.release_hand()
        assert vt.dealing_held() is None
        assert vt.play_hand()
        assert t.hand_no == expected
        assert not vt.play_hand()  # exactly one hand per release
    assert t.hand_no == 4
    released = [e for e in vt.events if isinstance(e, HandReleased)]
    assert [e.hand_no for e in released] == [3, 4]
    assert t.set_hand_for_hand(False)
    assert vt.play_hand() and vt.play_hand()  # off: the table deals on its own again
    assert [e.on for e in vt.events if isinstance(e, HandForHandSet)] == [True, False]
    vt.check_chips()


def test_tourn_22_turned_on_during_a_hand_the_hand_finishes_then_the_table_waits() -> None:
    vt = host_seated({2: 20_000, 3: 20_000, 5: 20_000})
    t = vt.table
    assert vt.play_hand(during=lambda: t.set_hand_for_hand(True))
    assert t.hand_no == 1 and t.stage is Stage.IDLE
    assert any(isinstance(e, HandEnded) and e.hand_no == 1 for e in vt.events)
    assert not vt.play_hand()
    assert len(started(vt)) == 1


def test_tourn_22_next_hand_refused_off_during_a_hand_or_twice() -> None:
    vt = host_seated({1: 20_000, 2: 20_000})
    t = vt.table
    assert not t.release_hand()  # not playing hand-for-hand
    assert "not playing hand-for-hand" in rejections(vt)[-1].reason
    assert t.set_hand_for_hand(True)
    assert not t.set_hand_for_hand(True)
    assert "already on" in rejections(vt)[-1].reason
    assert t.release_hand()
    assert not t.release_hand()  # one release, one hand
    assert "already released" in rejections(vt)[-1].reason
    refused: list[str] = []

    def floor_releases_mid_hand() -> None:
        assert not t.release_hand()
        refused.append(rejections(vt)[-1].reason)

    assert vt.play_hand(during=floor_releases_mid_hand)
    assert "still being played" in refused[0]
    assert not vt.play_hand()


def test_tourn_22_a_misdeal_is_dealt_again_without_a_new_release() -> None:
    vt = host_seated({1: 20_000, 2: 20_000, 3: 20_000})
    t = vt.table
    assert vt.play_hand()
    assert t.set_hand_for_hand(True) and t.release_hand()
    vt.press("deal")
    assert t.stage is Stage.DEALING
    assert t.misdeal("two cards exposed", "LIVE-25")
    assert vt.dealing_held() is None  # LIVE-25: the same hand again
    assert vt.play_hand()
    hands = started(vt)
    assert [e.hand_no for e in hands] == [1, 2, 3]
    assert hands[2].seats == hands[1].seats and hands[2].button == hands[1].button
    assert not vt.play_hand()


def test_tourn_busted_player_leaves_the_seat_at_once() -> None:
    vt = host_seated({1: 100, 2: 100, 3: 50_000, 4: 50_000}, seed=5)
    t = vt.table
    for _ in range(200):
        if any(isinstance(e, PlayerBusted) for e in vt.events):
            break
        assert vt.play_hand()
        vt.check_chips()
    busts = [e for e in vt.events if isinstance(e, PlayerBusted)]
    assert busts, "no player busted in 200 hands"
    bust = busts[0]
    events: list[JournalEvent] = list(vt.events)
    at = events.index(bust)
    ended = events[at - 1]
    assert isinstance(ended, HandEnded) and ended.hand_no == bust.hand_no
    (hand,) = [e for e in started(vt) if e.hand_no == bust.hand_no]
    after = dict(zip(hand.seats, ended.stacks, strict=True))  # stacks in position order
    assert after[bust.seat] == 0  # the hand ended with no chips for them
    assert t.roster[bust.seat].player == ""  # and the seat is empty from then on
    later = [e for e in started(vt) if e.hand_no > bust.hand_no]
    assert all(bust.seat not in e.seats for e in later)


def test_host_seated_table_never_deals_with_fewer_than_two_players() -> None:
    vt = host_seated({})
    assert vt.dealing_held() == "fewer than two players are seated"
    assert not vt.play_hand()
    assert vt.table.take_seat(6, "solo", 5_000)
    assert not vt.play_hand()
    assert started(vt) == [] and rejections(vt) == []
    assert vt.table.take_seat(9, "duo", 5_000)
    assert vt.play_hand()
    first = started(vt)[0]
    assert set(first.seats) == {6, 9}


def test_host_seated_table_waits_while_paused() -> None:
    vt = host_seated({1: 5_000, 2: 5_000})
    assert vt.table.pause(True)
    assert vt.dealing_held() == "the table is paused"
    assert not vt.play_hand()
    assert vt.table.pause(False)
    assert vt.play_hand()


def test_blind_7_sitting_out_player_is_dealt_and_folded() -> None:
    vt = host_seated({1: 20_000, 2: 20_000, 3: 20_000})
    assert vt.table.sit_out(2)
    for _ in range(6):
        assert vt.play_hand()
    assert all(2 in e.seats for e in started(vt))
    # dealt and folded every time: seat 2 posts its blinds and never wins a chip
    assert vt.table.roster[2].stack < 20_000
    vt.check_chips()
