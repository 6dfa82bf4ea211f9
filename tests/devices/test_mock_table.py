"""The mock backend as the table layer and a person use it: drive, assert, look at frames."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from controller.devices.events import CardArrived, CardLeft, DeviceEvent, KeyPressed
from controller.devices.interfaces import (
    BEEP_EXPIRED,
    BlindsFrame,
    Colour,
    LightState,
    ShotClockFrame,
)
from controller.devices.mock import MockTable
from controller.devices.profile import load_profile

FRAMES = Path(__file__).resolve().parents[2] / "docs" / "frames"
UID = bytes.fromhex("04a1b2c3d4e5f6")


@pytest.fixture
def table() -> MockTable:
    return MockTable(load_profile("virtual"))


def test_mock_card_at_seat_arrives_then_leaves_in_virtual_time(table: MockTable) -> None:
    table.drive_card_placed("seat3", UID)
    assert table.advance(0.025) == []
    assert table.advance(0.01) == [CardArrived("seat3", UID)]
    assert table.present("seat3") == {UID}
    table.drive_card_lifted("seat3", UID)
    assert table.advance(0.495) == []
    assert table.advance(0.01) == [CardLeft("seat3", UID)]


def test_sixmax_led_light_drives_its_gpio_pin() -> None:
    table = MockTable(load_profile("sixmax-pi"))
    table.set_light(2, LightState.on())
    assert table.pin_factory.pin(27).state  # seat 2's LED is GPIO27
    table.set_light(2, LightState.off())
    assert not table.pin_factory.pin(27).state


def test_unknown_key_lists_the_keys(table: MockTable) -> None:
    with pytest.raises(KeyError, match="this table has deal, undo"):
        table.drive_key_press("shuffle")


def test_shot_clock_blinks_in_virtual_time(table: MockTable) -> None:
    table.shot_clock.show(ShotClockFrame.seconds(5, Colour.RED, blink=True))
    lit = table.frame("shot_clock").getbbox()
    table.virtual_clock.advance(0.25 - table.virtual_clock.now % 0.5)  # off half
    table.poll()
    assert lit is not None and table.frame("shot_clock").getbbox() is None
    table.assert_shot_clock("5", Colour.RED, blink=True)


def test_shot_clock_frame_is_drawn_in_the_frame_colour(table: MockTable) -> None:
    table.shot_clock.show(ShotClockFrame.seconds(8, Colour.AMBER))
    colours = {c for _, c in table.frame("shot_clock").getcolors(100_000)}
    assert Colour.AMBER.value in colours
    assert Colour.GREEN.value not in colours


def test_buzzer_records_patterns(table: MockTable) -> None:
    table.buzzer.beep(BEEP_EXPIRED)
    table.assert_beeped(BEEP_EXPIRED)
    with pytest.raises(AssertionError, match="buzzer played"):
        table.assert_beeped()


def test_frames_save_as_png_for_a_person_to_look_at(table: MockTable) -> None:
    table.blinds.show(BlindsFrame(7, 200, 400, 50, button_seat=3, seconds_left=754))
    table.shot_clock.show(ShotClockFrame.seconds(25, Colour.AMBER))
    FRAMES.mkdir(parents=True, exist_ok=True)
    for display in ("blinds", "shot_clock"):
        path = table.save_frame(display, FRAMES / f"{display}.png")
        assert path.stat().st_size > 200
    assert table.frame("blinds").getbbox() is not None


def test_async_run_delivers_card_and_key_events() -> None:
    async def scenario() -> list[DeviceEvent]:
        # real time here: the loop sleeps until the debounce deadline, nobody polls
        live = MockTable(load_profile("virtual"), clock=asyncio.get_running_loop().time)
        runner = asyncio.create_task(live.run())
        await asyncio.sleep(0)
        got: list[DeviceEvent] = []
        live.drive_card_placed("board1", UID)
        live.drive_key_press("undo")
        async with asyncio.timeout(2):
            async for event in live.events():
                got.append(event)
                if len(got) == 2:
                    break
        runner.cancel()
        live.close()
        return got

    got = asyncio.run(scenario())
    assert set(got) == {CardArrived("board1", UID), KeyPressed("undo")}
