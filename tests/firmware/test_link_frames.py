"""The link's framing: CRC, COBS, frame checks, and that no byte sequence crashes the decoder."""

from __future__ import annotations

import binascii

import pytest
from hypothesis import given
from hypothesis import strategies as st

from firmware import link as L

DATA_TYPES = (L.T_HELLO, L.T_CARD_ARRIVED, L.T_CARD_LEFT, L.T_BUTTON, L.T_LED)
BODY_LEN = {
    L.T_ACK: (0, 0),
    L.T_HEARTBEAT: (0, 0),
    L.T_HELLO: (11, 11),
    L.T_CARD_ARRIVED: (5, 11),
    L.T_CARD_LEFT: (5, 11),
    L.T_BUTTON: (1, 1),
    L.T_LED: (12, 12),
}


@st.composite
def frames(draw: st.DrawFn) -> L.LinkFrame:
    ftype = draw(st.sampled_from(sorted(BODY_LEN)))
    lo, hi = BODY_LEN[ftype]
    body = draw(st.binary(min_size=lo, max_size=hi))
    return L.LinkFrame(ftype, draw(st.integers(0, 0xFFFF)), body)


def wire(frame: L.LinkFrame) -> bytes:
    return L.encode_frame(frame.ftype, frame.seq, frame.body)


def raw_with_crc(payload: bytes) -> bytes:
    crc = binascii.crc_hqx(payload, 0xFFFF)
    return payload + bytes((crc >> 8, crc & 0xFF))


# --- CRC and COBS -------------------------------------------------------------------------


def test_crc16_matches_the_ccitt_false_check_value() -> None:
    assert L.crc16(b"123456789") == 0x29B1
    assert L.crc16_table(b"123456789") == 0x29B1


@given(st.binary(max_size=64))
def test_crc16_table_agrees_with_binascii_on_any_data(data: bytes) -> None:
    # MicroPython runs the table; CPython runs binascii.crc_hqx. They must agree.
    assert L.crc16_table(data) == binascii.crc_hqx(data, 0xFFFF)


@given(st.binary(max_size=600))
def test_cobs_round_trips_and_never_emits_a_zero(data: bytes) -> None:
    enc = L.cobs_encode(data)
    assert 0 not in enc
    assert len(enc) <= len(data) + len(data) // 254 + 1
    assert L.cobs_decode(enc) == data


def test_cobs_decode_rejects_a_zero_inside_and_a_block_past_the_end() -> None:
    assert L.cobs_decode(b"\x03a\x00b") is None
    assert L.cobs_decode(b"\x05ab") is None
    assert L.cobs_decode(b"") is None


# --- Frames -------------------------------------------------------------------------------


@given(frames())
def test_every_valid_frame_decodes_to_itself(frame: L.LinkFrame) -> None:
    dec = L.FrameDecoder()
    assert dec.feed(wire(frame)) == [frame]
    assert dec.stats.rejected() == 0


@given(st.lists(frames(), max_size=8), st.data())
def test_frames_survive_any_chunking_of_the_stream(
    sent: list[L.LinkFrame], data: st.DataObject
) -> None:
    stream = b"".join(wire(f) for f in sent)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=10)))
    dec = L.FrameDecoder()
    got: list[L.LinkFrame] = []
    prev = 0
    for cut in [*cuts, len(stream)]:
        got += dec.feed(stream[prev:cut])
        prev = cut
    assert got == sent


@given(st.binary(max_size=300))
def test_decoder_survives_any_bytes_and_counts_what_it_throws_away(junk: bytes) -> None:
    dec = L.FrameDecoder()
    got = dec.feed(junk)
    for f in got:
        lo, hi = BODY_LEN[f.ftype]
        assert lo <= len(f.body) <= hi
    assert dec.stats.frames_ok == len(got)
    # every non-empty delimited piece is either a good frame or a counted rejection
    pieces = [p for p in junk.split(b"\x00")[:-1] if p]
    assert dec.stats.frames_ok + dec.stats.rejected() == len(pieces)


@given(st.lists(st.one_of(frames(), st.binary(min_size=1, max_size=40)), max_size=12))
def test_good_frames_are_recovered_between_garbage(items: list[L.LinkFrame | bytes]) -> None:
    stream = b""
    sent = []
    for item in items:
        if isinstance(item, L.LinkFrame):
            stream += wire(item)
            sent.append(item)
        else:
            stream += item + b"\x00"  # garbage, then the line resynchronises
    dec = L.FrameDecoder()
    got = iter(dec.feed(stream))
    # every good frame comes out, in order (garbage could only add, never hide, a frame)
    assert all(any(g == s for g in got) for s in sent)


@given(frames(), st.data())
def test_a_single_flipped_bit_is_rejected_and_counted(
    frame: L.LinkFrame, data: st.DataObject
) -> None:
    w = bytearray(wire(frame))
    pos = data.draw(st.integers(0, len(w) - 2))  # not the delimiter
    w[pos] ^= 1 << data.draw(st.integers(0, 7))
    dec = L.FrameDecoder()
    assert dec.feed(bytes(w) + b"\x00") == []
    assert dec.stats.rejected() >= 1


def test_a_truncated_frame_is_rejected() -> None:
    w = wire(L.LinkFrame(L.T_BUTTON, 5, b"\x00"))
    dec = L.FrameDecoder()
    assert dec.feed(w[:-3] + b"\x00") == []
    assert dec.stats.rejected() == 1


def test_too_short_a_frame_is_rejected_as_short() -> None:
    dec = L.FrameDecoder()
    assert dec.feed(L.cobs_encode(raw_with_crc(b"\x02\x00")) + b"\x00") == []
    assert dec.stats.rejected_short == 1


def test_a_wrong_crc_is_rejected_as_crc() -> None:
    raw = bytearray(raw_with_crc(b"\x12\x00\x07\x00"))
    raw[-1] ^= 0x55
    dec = L.FrameDecoder()
    assert dec.feed(L.cobs_encode(bytes(raw)) + b"\x00") == []
    assert dec.stats.rejected_crc == 1


def test_an_oversized_frame_with_a_good_crc_is_rejected_as_oversize() -> None:
    raw = raw_with_crc(bytes((L.T_CARD_ARRIVED, 0, 1, 17)) + bytes(range(1, 18)))
    assert len(raw) == L.MAX_FRAME + 1
    dec = L.FrameDecoder()
    assert dec.feed(L.cobs_encode(raw) + b"\x00") == []
    assert dec.stats.rejected_oversize == 1


def test_a_runaway_stream_without_delimiter_is_one_oversize_and_then_resyncs() -> None:
    good = L.LinkFrame(L.T_BUTTON, 9, b"\x01")
    dec = L.FrameDecoder()
    got = dec.feed(b"\x07" * 50)
    got += dec.feed(b"\x07" * 5000 + b"\x00")
    got += dec.feed(wire(good))
    assert got == [good]
    assert dec.stats.rejected_oversize == 1
    assert len(dec._buf) == L.MAX_ENCODED  # the stash never grows


def test_an_unknown_type_with_a_good_crc_is_rejected_as_type() -> None:
    dec = L.FrameDecoder()
    assert dec.feed(L.cobs_encode(raw_with_crc(b"\x7f\x00\x01\x00")) + b"\x00") == []
    assert dec.stats.rejected_type == 1


def test_a_type_this_side_does_not_take_is_rejected_as_type() -> None:
    node = L.FrameDecoder(accept=L.NODE_ACCEPTS)
    card = wire(L.LinkFrame(L.T_CARD_ARRIVED, 1, b"\x00\x01\x02\x03\x04"))
    assert node.feed(card) == []
    assert node.stats.rejected_type == 1
    assert node.feed(wire(L.LinkFrame(L.T_ACK, 1, b""))) != []  # control frames always pass


@pytest.mark.parametrize(("ftype", "body_len"), [(L.T_BUTTON, 0), (L.T_LED, 11), (L.T_ACK, 1)])
def test_a_body_of_the_wrong_length_is_rejected_as_length(ftype: int, body_len: int) -> None:
    dec = L.FrameDecoder()
    payload = bytes((ftype, 0, 1, body_len)) + b"\x01" * body_len
    assert dec.feed(L.cobs_encode(raw_with_crc(payload)) + b"\x00") == []
    assert dec.stats.rejected_length == 1


def test_a_frame_cut_short_is_rejected_even_when_its_crc_passes() -> None:
    # A corrupted COBS code byte can become a delimiter and cut a frame short; if the two
    # bytes before the cut happen to be a valid CRC (1 in 65,536), only the declared body
    # length catches it (found by the flipped-bit fuzz test below).
    body = b"\xb8\xceH\xb8^{\xaa\xed\x88"
    declared = bytes((0x11, 0, 6, len(body)))
    cut = raw_with_crc(declared + body[:-1])  # one byte short, with a CRC that matches
    dec = L.FrameDecoder()
    assert dec.feed(L.cobs_encode(cut) + b"\x00") == []
    assert dec.stats.rejected_length == 1 and dec.stats.rejected_crc == 0


def test_empty_frames_between_delimiters_are_idle_line_not_errors() -> None:
    dec = L.FrameDecoder()
    assert dec.feed(b"\x00\x00\x00") == []
    assert dec.stats.rejected() == 0


def test_encode_refuses_a_body_longer_than_the_wire_allows() -> None:
    with pytest.raises(ValueError):
        L.encode_frame(L.T_LED, 0, bytes(L.MAX_BODY + 1))


# --- Bodies -------------------------------------------------------------------------------


def test_hello_and_led_bodies_round_trip() -> None:
    body = L.hello_body(0xDEADBEEF, 4, (1, 2, 3), readers=3, player_reader=2)
    assert L.parse_hello(body) == (L.PROTOCOL_VERSION, 0xDEADBEEF, 4, (1, 2, 3), 3, 2)
    led = L.led_body(L.LED_SHOT_CLOCK, (255, 170, 0), 12_500, 30_000)
    assert L.parse_led(led) == (L.LED_SHOT_CLOCK, (255, 170, 0), 12_500, 30_000)
