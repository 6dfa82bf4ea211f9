"""The clocks wired to the table (issue 5): the shot clock on the display, the buzzer and the
seat light; rulings on expiry (CLOCK-9 house rule, CLOCK-3); clock calls, extension chips,
pauses; the level clock on the blinds display (LEVEL-1). All in the mock's virtual time."""

from __future__ import annotations

import asyncio
import itertools
import time
from pathlib import Path

from controller.clocks.shot_clock import ShotClockConfig
from controller.clocks.timebank import ExtensionChips
from controller.devices.events import CardArrived
from controller.devices.interfaces import (
    BEEP_EXPIRED,
    BEEP_SHORT,
    BEEP_WARNING,
    BlindsFrame,
    Colour,
    LightState,
)
from controller.devices.mock import MockTable
from controller.devices.profile import load_profile
from controller.events import (
    ActionAccepted,
    ClockCalled,
    HandStarted,
    JournalEvent,
    LevelSet,
    Paused,
    Rejected,
    Resumed,
    ShotClockReport,
)
from controller.rules.actions import Call, Check, Fold, Kill
from controller.rules.config import LIVE_TOURNAMENT
from controller.table.lights import TURN, Level
from controller.table.table import Table

from .conftest import DECKMAP, Rig, uid

HANDS = {1: "AsKs", 3: "QdQc", 5: "7h2c"}
FRAMES = Path(__file__).resolve().parents[2] / "docs" / "frames"


def dealt(rig: Rig) -> Rig:
    rig.start()
    rig.dealer.deal(HANDS)
    return rig


def left(rig: Rig) -> float:
    shot = rig.table.clocks.shot
    assert shot is not None
    deadline = shot.deadline
    assert deadline is not None
    return deadline - rig.table.clock()


def test_clock_9_the_countdown_shows_beeps_and_folds_a_player_facing_a_bet(rig3: Rig) -> None:
    hw = dealt(rig3).hw
    hw.assert_shot_clock("30", Colour.GREEN, blink=False)  # action reached the button
    hw.buzzer.played.clear()  # type: ignore[attr-defined]
    rig3.dealer.step(left(rig3) - 9.5)  # mid-second: 9.5 s left
    hw.assert_shot_clock("10", Colour.AMBER, blink=True)
    hw.assert_light(5, LightState.blink(Colour.AMBER))
    for _ in range(7):
        rig3.dealer.step(1.0)
    hw.assert_shot_clock("3", Colour.RED, blink=True)
    hw.assert_light(5, LightState.blink(Colour.RED))
    rig3.dealer.step(1.0)
    rig3.dealer.step(1.0)
    hw.assert_shot_clock("1", Colour.RED, blink=True)
    rig3.dealer.step(left(rig3))  # the last instant is still the player's (CLOCK-3)
    hw.assert_shot_clock("0", Colour.RED, blink=False)
    assert not rig3.rulings()
    rig3.dealer.step(0.001)
    (ruled,) = rig3.rulings()
    assert (ruled.hand_no, ruled.seat, ruled.ruling, ruled.rule) == (1, 5, "fold", "CLOCK-9")
    folded = rig3.last(ActionAccepted)
    assert isinstance(folded, ActionAccepted)
    assert rig3.seat_of(folded.player) == 5 and folded.rules_action() == Fold(2)
    assert folded.source == "clock"
    # a beep each second from 10, the distinct signals at 3 and at 0
    hw.assert_beeped(*[BEEP_SHORT] * 7, BEEP_WARNING, BEEP_SHORT, BEEP_SHORT, BEEP_EXPIRED)
    assert rig3.seat_to_act() == 1
    hw.assert_shot_clock("30", Colour.GREEN)  # the small blind's clock started at once
    hw.assert_light(5, LightState.off())  # the light was handed back to the table
    hw.assert_light(1, TURN)


def test_clock_9_a_player_who_can_check_is_checked(rig3: Rig) -> None:
    t = dealt(rig3).table
    t.call()  # button
    t.call()  # small blind: the big blind may check
    assert rig3.seat_to_act() == 3
    rig3.dealer.step(left(rig3) + 0.001)
    checked = rig3.last(ActionAccepted)
    assert isinstance(checked, ActionAccepted) and checked.rules_action() == Check(1)
    assert rig3.rulings()[-1].ruling == "check"
    assert t.stage.value == "playing" and t.hand is not None and t.hand.actor is None


def test_clock_3_an_action_at_the_instant_the_time_runs_out_goes_to_the_player(
        rig3: Rig) -> None:
    t = dealt(rig3).table
    rig3.dealer.step(left(rig3))
    shot = t.clocks.shot
    assert shot is not None and shot.deadline == t.clock()  # the very instant
    assert t.call()
    accepted = rig3.last(ActionAccepted)
    assert isinstance(accepted, ActionAccepted)
    assert accepted.rules_action() == Call(2, 10) and accepted.source == "console"
    assert not rig3.rulings()


def test_clock_9_an_action_after_the_time_ran_out_is_too_late(rig3: Rig) -> None:
    t = dealt(rig3).table
    rig3.hw.advance(left(rig3) + 0.01)  # time passes; no tick before the dealer's key
    assert not t.call(seat=5)  # the clock ruled first: seat 5 is folded
    assert rig3.rulings()
    rejected = rig3.last(Rejected)
    assert isinstance(rejected, Rejected) and rejected.rule == "BET-2"


def test_clock_3_a_called_clock_runs_out_into_a_dead_hand(rig3: Rig) -> None:
    t = dealt(rig3).table
    rig3.dealer.press("call_clock")
    called = rig3.last(ClockCalled)
    assert isinstance(called, ClockCalled)
    assert (called.seat, called.seconds, called.countdown_s) == (5, 60, 10)  # cash 60+10
    assert called.caller == "dealer" and called.rule == "CLOCK-1"
    rig3.hw.assert_shot_clock("70", Colour.AMBER)
    assert not t.call_clock()  # already called
    rig3.dealer.step(left(rig3) + 0.001)
    ruled = rig3.rulings()[-1]
    assert (ruled.ruling, ruled.rule) == ("dead_hand", "CLOCK-3")
    killed = rig3.last(ActionAccepted)
    assert isinstance(killed, ActionAccepted) and killed.rules_action() == Kill(2, "CLOCK-3")
    assert rig3.seat_to_act() == 1


def test_clock_1_the_clock_is_called_only_on_the_player_to_act(rig3: Rig) -> None:
    t = dealt(rig3).table
    assert not t.call_clock(3)
    assert t.call_clock(5, caller="floor")
    called = rig3.last(ClockCalled)
    assert isinstance(called, ClockCalled) and called.caller == "floor"


def test_the_pause_key_stops_the_clock_and_it_resumes_with_the_time_left(rig3: Rig) -> None:
    t = dealt(rig3).table
    rig3.dealer.step(5.0)
    rig3.dealer.press("pause")
    assert rig3.of(Paused | Resumed)[-1] == Paused()
    rig3.hw.assert_shot_clock("25", Colour.BLUE)
    rig3.dealer.step(600.0)
    assert not rig3.rulings() and rig3.seat_to_act() == 5
    rig3.dealer.press("pause")
    assert rig3.of(Paused | Resumed)[-1] == Resumed()
    assert abs(left(rig3) - 25.0) < 1e-6  # the time that was left, not a fresh clock
    assert t.call()


def test_the_clock_stops_while_the_dealer_counts_an_all_in() -> None:
    rig = Rig(seats={1: 1000, 3: 1000, 5: 300}, button=5)
    t = dealt(rig).table
    t.raise_to(300)  # the button is all-in
    t.all_in_count()  # the small blind asks for a count
    rig.dealer.step(120.0)
    assert not rig.rulings() and rig.seat_to_act() == 1
    t.all_in_count(False)
    rig.dealer.step(left(rig) + 0.001)
    assert rig.rulings()


def test_the_clock_waits_for_the_last_card_of_the_street(rig3: Rig) -> None:
    t = dealt(rig3).table
    t.call()
    t.call()
    t.check()  # the big blind: the flop is due
    rig3.hw.assert_shot_clock("")
    rig3.dealer.step(300.0)  # the dealer takes their time: nobody is on the clock
    assert not rig3.rulings()
    rig3.dealer.street("2d", "3d4dTd")
    assert rig3.seat_to_act() == 1
    rig3.hw.assert_shot_clock("30", Colour.GREEN)


def test_an_extension_chip_adds_its_seconds_once_per_chip() -> None:
    chips = ExtensionChips(30, {"day1": 1})
    rig = Rig(seats={1: 1000, 3: 1000, 5: 1000}, button=5, extensions=chips)
    chips.enter_stage("day1", ["player1", "player3", "player5"])
    t = dealt(rig).table
    rig.dealer.step(25.0)
    assert not t.use_extension(1)  # not on the clock
    assert t.use_extension(5)
    taken = rig.last(ShotClockReport)
    assert taken == ShotClockReport(hand_no=1, seat=5, what="extension", seconds=30,
                                    chips_left=0)
    assert abs(left(rig) - 35.0) < 1e-6
    rig.hw.assert_shot_clock("35")
    assert not t.use_extension(5)  # no chip left
    rig.dealer.step(35.001)
    assert rig.rulings()


def test_the_table_runs_without_a_shot_clock_when_told() -> None:
    rig = Rig(seats={1: 1000, 3: 1000, 5: 1000}, button=5, shot_clock=None)
    t = dealt(rig).table
    rig.dealer.step(3600.0)
    assert not rig.rulings() and rig.seat_to_act() == 5
    assert not t.call_clock()
    rejected = rig.last(Rejected)
    assert isinstance(rejected, Rejected) and rejected.rule == "CLOCK-1"


def test_undo_takes_the_clock_back_to_the_player_again(rig3: Rig) -> None:
    t = dealt(rig3).table
    t.call()
    assert rig3.seat_to_act() == 1
    rig3.dealer.step(20.0)
    assert t.undo(1)
    assert rig3.seat_to_act() == 5
    assert abs(left(rig3) - 30.0) < 1e-6  # a fresh clock for the button


# ---------------------------------------------------------------- the level clock
def level_rig() -> Rig:
    levels = (Level(100, 200, 200, 600), Level(200, 400, 400, 600))
    return Rig(seats={2: 20_000, 4: 20_000, 7: 20_000}, button=7, levels=levels,
               profile=LIVE_TOURNAMENT, tournament=True, shot_clock=None)


def test_level_1_a_new_level_applies_from_the_next_hand() -> None:
    rig = level_rig()
    t = rig.table
    rig.dealer.step(599.0)
    rig.start()  # the deal key one second before the level ends
    rig.dealer.step(2.0)  # level 2 is on the clock during the hand
    changed = rig.last(LevelSet)
    assert isinstance(changed, LevelSet) and changed.clock is not None
    assert without_clock(changed) == LevelSet(level=2, small_blind=200, big_blind=400,
                                              ante=400)
    first = rig.of(HandStarted)[-1]
    assert (first.small_blind, first.big_blind, first.level) == (100, 200, 1)
    assert t.hand_level.big_blind == 200
    rig.hw.assert_blinds(BlindsFrame(1, 100, 200, 200, 7, 599))  # the hand's level
    t.misdeal("the floor voids the hand", None)
    rig.hw.assert_blinds(BlindsFrame(2, 200, 400, 400, 7, 599))
    rig.dealer.gather()
    rig.start()
    started = rig.of(HandStarted)[-1]
    assert (started.small_blind, started.big_blind, started.level) == (200, 400, 2)


def without_clock(event: object) -> object:
    """The event without its clock snapshot (the snapshot's time is not the point)."""
    assert isinstance(event, LevelSet)
    return event.model_copy(update={"clock": None})


def recorded(rig: Rig) -> list[BlindsFrame]:
    """Every frame the blinds display is told to show from now on."""
    shown: list[BlindsFrame] = []
    real_show = rig.hw.blinds.show

    def show(frame: BlindsFrame) -> None:
        shown.append(frame)
        real_show(frame)

    rig.hw.blinds.show = show  # type: ignore[method-assign]
    return shown


def test_the_panel_draws_the_level_time_once_a_second_and_the_table_the_rest() -> None:
    rig = level_rig()
    shown = recorded(rig)
    for _ in range(40):
        rig.dealer.step(0.25)  # ten seconds, ticked four times a second
    rig.table.set_button(2)  # the table's field changes: one frame, the time kept
    assert [f.seconds_left for f in shown[:10]] == list(range(599, 589, -1))
    assert all(a != b for a, b in itertools.pairwise(shown))  # no duplicate
    assert shown[-1] == BlindsFrame(1, 100, 200, 200, 2, 590)
    assert len(shown) == 11


def test_next_level_key_moves_the_level_clock_on() -> None:
    rig = level_rig()
    rig.dealer.step(100.0)
    shown = recorded(rig)
    rig.dealer.press("next_level")
    assert without_clock(rig.last(LevelSet)) == LevelSet(level=2, small_blind=200,
                                                         big_blind=400, ante=400)
    assert shown == [BlindsFrame(2, 200, 400, 400, 7, 600)]  # one frame: no flicker
    rig.dealer.press("next_level")  # the last level
    rejected = rig.last(Rejected)
    assert isinstance(rejected, Rejected) and rejected.rule == "LEVEL-6"


# ---------------------------------------------------------------- the asyncio path
def test_the_clock_runner_rules_on_the_loop_at_the_deadline() -> None:
    """On the loop's own clock the runner wakes the table at the deadline (no polling)."""

    async def scenario() -> list[JournalEvent]:
        hw = MockTable(load_profile("virtual"))
        events: list[JournalEvent] = []
        table = Table(hw, sink=events.append, levels=(Level(5, 10),), deck=DECKMAP,
                      clock=time.monotonic,
                      shot_clock=ShotClockConfig(action_s=0.2, countdown_s=0, signals={}))
        for seat in (1, 3, 5):
            table.take_seat(seat, f"player{seat}", 1000)
        table.set_button(5)
        task = asyncio.create_task(table.run(tick_s=3600.0))  # the ticker never helps
        await asyncio.sleep(0)
        table.start_hand()
        for seat, cards in (*((s, c[:2]) for s, c in HANDS.items()),
                            *((s, c[2:]) for s, c in HANDS.items())):
            table.handle(CardArrived(f"seat{seat}", uid(cards)))
        for _ in range(200):  # until the ruling comes (bounded; no time is asserted)
            if any(isinstance(e, ShotClockReport) and e.what == "ruled" for e in events):
                break
            await asyncio.sleep(0.02)
        task.cancel()
        return events

    events = asyncio.run(scenario())
    ruled = [e for e in events if isinstance(e, ShotClockReport) and e.what == "ruled"]
    assert ruled and ruled[0].seat == 5 and ruled[0].ruling == "fold"



def test_clock_9_virtual_table_with_a_short_shot_clock_conserves_chips() -> None:
    from controller.table.virtual import VirtualTable

    ruled: list[ShotClockReport] = []
    vt = VirtualTable(players=4, seed=3, pace=6.0,
                      shot_clock=ShotClockConfig(action_s=5, countdown_s=3),
                      sink=lambda e: ruled.extend(
                          [e] if isinstance(e, ShotClockReport) and e.what == "ruled" else []))
    vt.play_hands(25)  # each hand's chips are checked
    assert ruled


def test_shot_clock_frames_render_to_png(rig3: Rig, tmp_path: Path) -> None:
    hw = dealt(rig3).hw
    out: dict[str, Path] = {}
    rig3.dealer.step(left(rig3) - 9.5)
    out["table_shot_clock_countdown_10.png"] = hw.save_frame("shot_clock", tmp_path / "a.png")
    rig3.dealer.step(7.0)
    out["table_shot_clock_countdown_3.png"] = hw.save_frame("shot_clock", tmp_path / "b.png")
    rig3.table.pause()
    out["table_shot_clock_paused.png"] = hw.save_frame("shot_clock", tmp_path / "c.png")
    rig3.table.pause(False)
    rig3.table.call()
    rig3.table.call_clock()
    out["table_shot_clock_called.png"] = hw.save_frame("shot_clock", tmp_path / "d.png")
    sizes = {png.stat().st_size for png in out.values()}
    assert len(sizes) > 1 and min(sizes) > 100  # four frames, not all the same
    FRAMES.mkdir(parents=True, exist_ok=True)
    for name, png in out.items():
        target = FRAMES / name
        if not target.exists():  # a reference frame for people; tests never overwrite it
            target.write_bytes(png.read_bytes())
