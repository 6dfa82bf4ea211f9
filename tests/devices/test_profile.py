"""Board profiles: the shipped ones load; broken ones fail naming the line and the fix."""

from __future__ import annotations

import re

import pytest

from controller.devices.errors import ProfileError
from controller.devices.profile import (
    MAX_SEATS,
    load_profile,
    parse_profile,
    shipped_profiles,
)

SIXMAX = next(p for p in shipped_profiles() if p.stem == "sixmax-pi").read_text()


def _line_of(text: str, needle: str, nth: int = 0) -> int:
    lines = [i for i, line in enumerate(text.splitlines(), 1) if needle in line]
    return lines[nth]


@pytest.mark.parametrize("name", ["virtual", "tournament-10", "sixmax-pi"])
def test_shipped_profile_loads_with_every_seat_and_reader(name: str) -> None:
    p = load_profile(name)
    assert [s.number for s in p.seats] == list(range(1, p.seat_count + 1))
    assert {f"seat{n}" for n in range(1, p.seat_count + 1)} <= set(p.readers)
    assert {f"player{n}" for n in range(1, p.seat_count + 1)} <= set(p.readers)
    assert {"board1", "muck", "deck"} <= set(p.readers)
    assert p.debounce.gone_s == 0.5


def test_tournament_table_has_ten_seats_on_seat_nodes_and_sixmax_has_six_on_the_pi() -> None:
    t = load_profile("tournament-10")
    assert t.seat_count == MAX_SEATS
    assert {s.cards.kind for s in t.seats} == {"seatnode"}
    assert [s.cards.node for s in t.seats] == list(range(1, 11))
    six = load_profile("sixmax-pi")
    assert six.seat_count == 6
    assert {s.cards.kind for s in six.seats} == {"mfrc522"}
    assert {s.player.kind for s in six.seats} == {"pn532"}


def test_pin_used_twice_names_both_users_the_line_and_free_pins() -> None:
    text = SIXMAX.replace("misdeal = 19", "misdeal = 17")  # seat 1's LED
    with pytest.raises(ProfileError) as err:
        parse_profile(text, "six.toml")
    msg = str(err.value)
    assert err.value.line == _line_of(text, "misdeal = 17")
    assert msg.startswith(f"six.toml:{err.value.line}: GPIO17 is used twice")
    assert "key 'misdeal'" in msg and "seat 1 light" in msg
    assert f"(line {_line_of(text, 'pin = 17')})" in msg
    assert "free GPIO (19, 20, 21)" in msg  # 19 freed by the move


def test_key_on_a_bus_pin_is_a_pin_used_twice() -> None:
    text = SIXMAX.replace("misdeal = 19", "misdeal = 10")  # SPI0 MOSI
    with pytest.raises(ProfileError, match=r"GPIO10 is used twice: .*spi0 MOSI"):
        parse_profile(text, "six.toml")


def test_missing_seat_names_the_seats_line_and_how_to_fix() -> None:
    blocks = SIXMAX.split("[[seat]]")
    text = "[[seat]]".join(blocks[:4] + blocks[5:])  # drop seat 4
    with pytest.raises(ProfileError) as err:
        parse_profile(text, "six.toml")
    assert err.value.line == _line_of(text, "seats = 6")
    assert "seat 4 is missing" in str(err.value)
    assert "add a [[seat]] with number = 4, or lower `seats`" in err.value.fix


def test_unknown_reader_kind_names_the_line_and_suggests_the_known_one() -> None:
    text = SIXMAX.replace('cards = { kind = "mfrc522", bus = "spi0", cs_pin = 13 }',
                          'cards = { kind = "mfrc552", bus = "spi0", cs_pin = 13 }')  # fmt: skip
    with pytest.raises(ProfileError) as err:
        parse_profile(text, "six.toml")
    assert err.value.line == _line_of(text, '"mfrc552"')
    assert "unknown reader seat4 kind 'mfrc552'" in str(err.value)
    assert 'did you mean "mfrc522"' in err.value.fix


def test_unknown_display_kind_in_a_table_points_at_its_kind_line() -> None:
    text = SIXMAX.replace('kind = "ht16k33"', 'kind = "tm1637"')
    with pytest.raises(ProfileError) as err:
        parse_profile(text, "six.toml")
    assert err.value.line == _line_of(text, 'kind = "tm1637"')
    assert "max7219, ht16k33, mock" in err.value.fix


def test_i2c_address_used_twice_names_the_address_lines_not_the_table_headers() -> None:
    text = SIXMAX.replace("address = 0x71", "address = 0x3C")
    with pytest.raises(ProfileError, match=r"i2c1 address 0x3C is used twice") as err:
        parse_profile(text, "six.toml")
    # the shot clock's `address` line, not its [shot_clock] header three lines up
    assert err.value.line == _line_of(text, "address = 0x3C", nth=1)
    assert err.value.line != _line_of(text, "[shot_clock]")
    assert str(err.value).startswith(f"six.toml:{err.value.line}: ")
    assert f"by blinds display (line {_line_of(text, 'address = 0x3C')})" in str(err.value)


def test_two_readers_on_one_mux_channel_fail_at_the_channel_line() -> None:
    text = SIXMAX.replace("mux = 0x70\nchannel = 7", "mux = 0x70\nchannel = 6")
    with pytest.raises(ProfileError, match=r"mux 0x70 channel 6 address 0x24 is used twice") as err:
        parse_profile(text, "six.toml")
    # both use the PN532's default address: the key that puts the deck there is `channel`
    assert err.value.line == _line_of(text, "channel = 6", nth=1)
    assert f"(line {_line_of(text, 'channel = 6')})" in str(err.value)


def test_a_default_address_used_twice_falls_back_to_the_table_line() -> None:
    text = SIXMAX.replace('bus = "i2c1"\naddress = 0x71\n', 'bus = "i2c1"\n')
    with pytest.raises(ProfileError, match=r"i2c1 address 0x70 is used twice") as err:
        parse_profile(text, "six.toml")
    # the HT16K33's default 0x70 (the mux's address) is written nowhere in [shot_clock]
    assert err.value.line == _line_of(text, "[shot_clock]")
    assert "by shot clock and by I2C mux 0x70" in str(err.value)


def test_seat_given_twice_fails_at_the_second() -> None:
    text = SIXMAX.replace("number = 5", "number = 4")
    with pytest.raises(ProfileError, match=r"seat 4 is given twice") as err:
        parse_profile(text, "six.toml")
    assert err.value.line == _line_of(text, "number = 4", nth=1)


@pytest.mark.parametrize("seats", [1, 11])
def test_seat_count_outside_2_to_10_fails(seats: int) -> None:
    text = SIXMAX.replace("seats = 6", f"seats = {seats}")
    with pytest.raises(ProfileError, match=rf"`seats` = {seats} is out of range 2..10"):
        parse_profile(text, "six.toml")


def test_misspelt_key_is_caught_with_a_suggestion() -> None:
    text = SIXMAX.replace('[buzzer]\nkind = "gpio"\npin = 18', '[buzzer]\nkind = "gpio"\npn = 18')
    with pytest.raises(ProfileError, match=r"unknown key `pn`") as err:
        parse_profile(text, "six.toml")
    assert "did you mean `pin`" in err.value.fix


def test_toml_syntax_error_keeps_its_line() -> None:
    text = SIXMAX.replace("seats = 6", "seats = = 6")
    with pytest.raises(ProfileError) as err:
        parse_profile(text, "six.toml")
    assert err.value.line == _line_of(text, "seats = = 6")


def test_unknown_profile_name_lists_the_shipped_ones() -> None:
    with pytest.raises(ProfileError, match=re.escape("sixmax-pi, tournament-10, virtual")):
        load_profile("eightmax")
