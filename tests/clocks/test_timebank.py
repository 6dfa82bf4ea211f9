"""Clock-call timings (CLOCK-1), live extension chips, online banks (CLOCK-5/6/7)."""

from __future__ import annotations

import json

import pytest

from controller.clocks import (
    Caller,
    ClockError,
    ExtensionChips,
    LegacyTimebank,
    ShotClock,
    ShotClockConfig,
    StructureError,
    TableTimebank,
    call_timing,
    profile_call_timing,
    timebank_policy,
    timebank_row,
    verify_clock_call,
)
from controller.clocks.events import (
    ActionTiming,
    ClockMode,
    ExtensionUsed,
    Ruling,
    ShotClockExpired,
    ShotClockStarted,
    ShotClockStopped,
    TimeBankEngaged,
)
from controller.rules.config import LIVE_CASH, LIVE_TOURNAMENT, ONLINE

T0 = 50.0


@pytest.mark.parametrize(("duration", "level_minutes", "seconds", "countdown"), [
    ("60+10", None, 60, 10), ("60+10", 15, 60, 10),  # 002 has no short-level variant
    ("50+10", None, 50, 10), ("50+10", 40, 50, 10),
    ("50+10", 25, 25, 5), ("50+10", 20, 25, 5),  # 004: levels of 25 minutes or less
    ("25+5", 60, 25, 5)])
def test_clock_1_call_timings(duration: str, level_minutes: float | None, seconds: int,
                              countdown: int) -> None:
    timing = call_timing(duration, level_minutes)
    assert (timing.seconds, timing.countdown_s) == (seconds, countdown)
    assert timing.rule == "CLOCK-1"


def test_clock_1_profile_defaults() -> None:
    assert profile_call_timing(LIVE_CASH).total_s == 70  # 002: one minute, then 10 s
    assert profile_call_timing(LIVE_TOURNAMENT).total_s == 60  # 004: one minute in all
    assert profile_call_timing(LIVE_TOURNAMENT, level_minutes=20).total_s == 30
    with pytest.raises(Exception, match=r"clock\.duration"):
        profile_call_timing(ONLINE)  # n/a online: the time bank governs


def test_clock_1_unknown_duration_is_refused() -> None:
    with pytest.raises(ClockError, match="60\\+10"):
        call_timing("45+15")


# -- live extension chips
def test_extension_chips_are_granted_and_reset_by_stage() -> None:
    chips = ExtensionChips(30, {"day1": 4, "final_table": 2})
    chips.enter_stage("day1", ["ann", "bob"])
    chips.take("ann")
    assert chips.chips("ann") == 3 and chips.chips("bob") == 4
    chips.enter_stage("final_table", ["ann", "bob"])
    assert chips.chips("ann") == 2 and chips.chips("bob") == 2
    with pytest.raises(ClockError, match="no extension grant"):
        chips.enter_stage("day9", ["ann"])


def test_extension_chips_travel_with_the_player_through_the_host() -> None:
    here, there = ExtensionChips(30, {"day1": 3}), ExtensionChips(30, {"day1": 3})
    here.enter_stage("day1", ["ann"])
    here.take("ann")
    there.carry_in("ann", here.carry_out("ann"))
    assert there.chips("ann") == 2 and here.chips("ann") == 0


def test_extension_adds_the_chip_time_to_the_shot_clock() -> None:
    chips = ExtensionChips(30, {"day1": 1})
    chips.enter_stage("day1", ["ann"])
    clock = ShotClock(ShotClockConfig(30), chips=chips)
    clock.start(2, T0, player="ann")
    clock.poll(T0 + 25)
    assert clock.use_extension(T0 + 25) == [ExtensionUsed(2, "ann", 30, 0, 35)]
    assert clock.deadline == T0 + 60
    with pytest.raises(ClockError, match="no extension chips left"):
        clock.use_extension(T0 + 26)


def test_extension_chips_cannot_beat_a_called_clock_by_default() -> None:
    chips = ExtensionChips(30, {"day1": 5})
    chips.enter_stage("day1", ["ann"])
    clock = ShotClock(ShotClockConfig(30), chips=chips)
    clock.start(2, T0, player="ann")
    clock.call_clock(T0 + 1, call_timing("50+10"))
    with pytest.raises(ClockError, match="CLOCK-3"):
        clock.use_extension(T0 + 2)
    assert chips.chips("ann") == 5


def test_extension_state_round_trips_through_json() -> None:
    chips = ExtensionChips(30, {"day1": 3})
    chips.enter_stage("day1", ["ann", "bob"])
    chips.take("bob")
    again = ExtensionChips(30, {"day1": 3})
    again.restore(json.loads(json.dumps(chips.state())))
    assert (again.chips("ann"), again.chips("bob"), again.stage) == (3, 2, "day1")


# -- online banks
def test_clock_5_rows() -> None:
    assert timebank_row("cash") == timebank_row("tournament")
    assert timebank_row("cash").first_hand_s == 15 and timebank_row("cash").cap_s == 30
    assert timebank_row("sng").every_nth_hand == 5
    assert timebank_row("hexapro", 10).cap_s == 20
    assert timebank_row("hexapro", 25).first_hand_s == 30


def test_clock_6_hexapro_extreme_uses_the_hexapro_rows_by_multiplier() -> None:
    assert timebank_row("hexapro_extreme", 125) == timebank_row("hexapro", 25)
    assert timebank_row("hexapro_extreme", 1000) == timebank_row("hexapro", 1000)
    assert timebank_row("hexapro_extreme", 20) == timebank_row("hexapro", 1.5)
    with pytest.raises(StructureError, match="multiplier"):
        timebank_row("hexapro_extreme")


def test_clock_6_example_1_bank_is_not_refilled_and_grows_every_nth_hand() -> None:
    bank = TableTimebank(timebank_row("cash"))
    for hand in range(1, 11):
        bank.hand_started("p")
        if hand == 1:
            assert bank.balance("p") == 15
        if hand == 3:
            bank.spend("p", 12)
            assert bank.balance("p") == 3
    assert bank.balance("p") == 8  # hand 10 added 5


def test_clock_6_bank_is_capped_and_can_reach_zero() -> None:
    bank = TableTimebank(timebank_row("cash"))
    for _ in range(100):
        bank.hand_started("p")
    assert bank.balance("p") == 30
    bank.spend("p", 45)
    assert bank.balance("p") == 0


def test_clock_7_legacy_bank_floor_growth_and_cap() -> None:
    bank = LegacyTimebank()
    bank.hand_started("p")
    assert bank.balance("p") == 10
    bank.hand_started("p")
    assert bank.balance("p") == 10.25
    bank.spend("p", 10.25)
    bank.hand_started("p")
    assert bank.balance("p") == 10  # at least 10 s at the start of every hand
    for _ in range(200):
        bank.hand_started("p")
    assert bank.balance("p") == 30


def test_timebank_model_selects_the_policy() -> None:
    assert isinstance(timebank_policy(ONLINE, "cash"), TableTimebank)
    legacy = ONLINE.with_overrides({"timebank.model": "legacy"})
    assert isinstance(timebank_policy(legacy, "cash"), LegacyTimebank)
    assert timebank_policy(LIVE_TOURNAMENT, "tournament") is None


def test_clock_5_shot_clock_spends_the_online_bank_after_the_decision_time() -> None:
    bank = TableTimebank(timebank_row("cash"))
    bank.hand_started("p")
    clock = ShotClock(ShotClockConfig(20), bank=bank)
    assert clock.start(1, T0, player="p") == [ShotClockStarted(1, 35, ClockMode.ACTION)]
    events = clock.poll(T0 + 20)
    assert TimeBankEngaged(1, 15) in events
    assert clock.acted(T0 + 26) == [ShotClockStopped(1, ActionTiming.IN_TIME, 6)]
    assert bank.balance("p") == 9


def test_clock_5_bank_is_untouched_when_the_player_acts_in_time() -> None:
    bank = TableTimebank(timebank_row("cash"))
    bank.hand_started("p")
    clock = ShotClock(ShotClockConfig(20), bank=bank)
    clock.start(1, T0, player="p")
    assert clock.acted(T0 + 19.9)[-1].bank_used_s == 0  # type: ignore[union-attr]
    assert bank.balance("p") == 15


def test_clock_9_bank_runs_out_then_check_or_fold_and_the_bank_is_empty() -> None:
    bank = TableTimebank(timebank_row("sng"))
    bank.hand_started("p")
    clock = ShotClock(ShotClockConfig(15), bank=bank)
    clock.start(1, T0, player="p", can_check=False)
    events = clock.poll(T0 + 26)
    assert events[-1] == ShotClockExpired(1, Ruling.FOLD, "CLOCK-9")
    assert bank.balance("p") == 0


# -- CLOCK-2: who may call the clock
@pytest.mark.parametrize(("rule", "caller", "kwargs", "allowed"), [
    ("in_pot", Caller.PLAYER, {"in_pot": True}, True),
    ("in_pot", Caller.PLAYER, {"in_pot": False}, False),
    ("in_pot", Caller.DEALER, {}, True),  # 002: the dealer or manager in extreme cases
    ("at_table", Caller.PLAYER, {"at_table": True}, True),
    ("at_table", Caller.PLAYER, {"at_table": False}, False),
    ("floor_approval", Caller.PLAYER, {"in_pot": True}, False),
    ("floor_approval", Caller.PLAYER, {"floor_approved": True}, True),
    ("floor_approval", Caller.DEALER, {}, False),
    ("floor_approval", Caller.FLOOR, {}, True),
])
def test_clock_2_who_may_call_the_clock(rule: str, caller: Caller, kwargs: dict[str, bool],
                                        allowed: bool) -> None:
    if allowed:
        verify_clock_call(rule, caller, **kwargs)
    else:
        with pytest.raises(ClockError, match="CLOCK-2"):
            verify_clock_call(rule, caller, **kwargs)


def test_clock_2_profiles_name_a_caller_rule() -> None:
    verify_clock_call(LIVE_CASH.text("clock.caller"), Caller.PLAYER, in_pot=True)
    with pytest.raises(ClockError):
        verify_clock_call(LIVE_TOURNAMENT.text("clock.caller"), Caller.PLAYER, in_pot=True)
