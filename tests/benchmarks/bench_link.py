"""Link frames decoded per second on the Pi side (budget: >= 50,000/s).

Run: .venv/bin/python tests/benchmarks/bench_link.py

Feeds a stream of typical seat-node frames (card arrivals and departures, button presses,
heartbeats) in 4 KiB reads, as a serial port hands them over, to
1. ``FrameDecoder`` alone (COBS, length, CRC, type checks), and
2. ``LinkEndpoint.feed`` (the above plus sequence/replay checks and writing acks),
and prints frames per second for each, best of 5 runs.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from firmware import link as L

FRAMES = 100_000
CHUNK = 4096
BUDGET = 50_000


def make_stream(n: int) -> bytes:
    out = bytearray()
    uid = bytes.fromhex("04a1b2c3d4e5f6")
    for seq in range(n):
        kind = seq % 4
        if kind == 0:
            out += L.encode_frame(L.T_CARD_ARRIVED, seq & 0xFFFF, L.card_body(seq % 3, uid))
        elif kind == 1:
            out += L.encode_frame(L.T_CARD_LEFT, seq & 0xFFFF, L.card_body(seq % 3, uid))
        elif kind == 2:
            out += L.encode_frame(L.T_BUTTON, seq & 0xFFFF, b"\x00")
        else:
            out += L.encode_frame(L.T_HEARTBEAT, 0)
    return bytes(out)


def chunks(stream: bytes) -> list[bytes]:
    return [stream[i : i + CHUNK] for i in range(0, len(stream), CHUNK)]


def bench_decoder(parts: list[bytes]) -> float:
    dec = L.FrameDecoder(accept=L.CONTROLLER_ACCEPTS)
    t0 = time.perf_counter()
    n = 0
    for part in parts:
        n += len(dec.feed(part))
    dt = time.perf_counter() - t0
    assert n == FRAMES and dec.stats.rejected() == 0
    return n / dt


def bench_endpoint(parts: list[bytes]) -> float:
    ep = L.LinkEndpoint(L.CONTROLLER_ACCEPTS)
    t0 = time.perf_counter()
    for i, part in enumerate(parts):
        ep.feed(part, i)
        ep.output()
    dt = time.perf_counter() - t0
    assert ep.stats.frames_ok == FRAMES and ep.stats.rejected() == 0
    return FRAMES / dt


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__)
    parser.parse_args(argv)  # no options: --help says what it measures
    stream = make_stream(FRAMES)
    parts = chunks(stream)
    print(
        f"{FRAMES} frames, {len(stream)} bytes ({len(stream) / FRAMES:.1f} B/frame), "
        f"{CHUNK} B reads"
    )
    dec = max(bench_decoder(parts) for _ in range(5))
    ep = max(bench_endpoint(parts) for _ in range(5))
    print(f"FrameDecoder.feed:   {dec:>10,.0f} frames/s")
    print(f"LinkEndpoint.feed:   {ep:>10,.0f} frames/s (with seq checks and acks)")
    verdict = "within" if ep >= BUDGET else "MISSES"
    print(f"budget >= {BUDGET:,} frames/s decoded on the Pi side: {verdict}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
