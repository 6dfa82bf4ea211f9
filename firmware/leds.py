"""The seat's LED ring: whose turn it is, the shot-clock countdown, all-in, winner.

The ring is given a pixel strip (``neopixel.NeoPixel`` on the node: ``strip[i] = (r, g, b)``
then ``strip.write()``); it never creates one. ``show(now)`` renders the current mode for
that instant and writes the strip only when a pixel changed. The shot clock counts down on
the node from the time the command arrived, so the Pi sends one frame per clock, not one
per tick.
"""

try:
    from micropython import const
except ImportError:  # CPython
    const = lambda x: x  # noqa: E731


try:
    from time import ticks_diff  # type: ignore[attr-defined]
except ImportError:

    def ticks_diff(a, b):  # type: ignore[no-redef]
        return a - b


from firmware.link import (
    LED_ALL_IN,
    LED_IDLE,
    LED_OFF,
    LED_SHOT_CLOCK,
    LED_TURN,
    LED_WINNER,
)

_OFF = (0, 0, 0)
_RED = (230, 20, 20)
_AMBER = (255, 170, 0)
_LOW_FRACTION = const(4)  # last quarter of the shot clock turns red
_BLINK_MS = const(250)
_PULSE_MS = const(1000)
_CHASE_MS = const(80)
_CHASE_LEN = const(3)
_LINK_LOST_MS = const(500)


def _scale(rgb, num, den):
    return (rgb[0] * num // den, rgb[1] * num // den, rgb[2] * num // den)


class LedRing:
    """A ring of ``count`` RGB pixels showing one mode at a time."""

    def __init__(self, strip, count):
        self.strip = strip
        self.count = count
        self.mode = LED_OFF
        self.rgb = _OFF
        self.link_lost = False
        self._deadline = 0
        self._total = 0
        self._since = 0
        self._pixels = [_OFF] * count  # type: list[tuple[int, int, int]]
        self._next = [_OFF] * count  # type: list[tuple[int, int, int]]
        self.writes = 0

    def set(self, mode, rgb, remaining_ms, total_ms, now):
        """Take an LED command (see ``link.parse_led``) received at ``now``."""
        self.mode = mode
        self.rgb = rgb
        self._deadline = now + remaining_ms
        self._total = total_ms if total_ms > 0 else max(remaining_ms, 1)
        self._since = now

    def remaining_ms(self, now):
        if self.mode != LED_SHOT_CLOCK:
            return 0
        left = ticks_diff(self._deadline, now)
        return left if left > 0 else 0

    def render(self, now):
        """The pixels for instant ``now`` (a list; reused, do not keep it)."""
        px = self._next
        n = self.count
        for i in range(n):
            px[i] = _OFF
        if self.link_lost:
            if (ticks_diff(now, self._since) // _LINK_LOST_MS) % 2 == 0:
                px[0] = (40, 0, 0)
            return px
        mode = self.mode
        rgb = self.rgb
        if mode == LED_IDLE:
            dim = _scale(rgb, 1, 8)
            for i in range(n):
                px[i] = dim
        elif mode == LED_TURN:
            for i in range(n):
                px[i] = rgb
        elif mode == LED_SHOT_CLOCK:
            left = self.remaining_ms(now)
            if left == 0:
                on = (ticks_diff(now, self._deadline) // _BLINK_MS) % 2 == 0
                for i in range(n):
                    px[i] = _RED if on else _OFF
            else:
                lit = (n * left + self._total - 1) // self._total  # ceil: 1 pixel until 0
                if lit > n:
                    lit = n
                colour = _RED if left * _LOW_FRACTION <= self._total else rgb
                for i in range(lit):
                    px[i] = colour
        elif mode == LED_ALL_IN:
            phase = ticks_diff(now, self._since) % _PULSE_MS
            level = phase if phase < _PULSE_MS // 2 else _PULSE_MS - phase  # triangle
            c = _scale(rgb if rgb != _OFF else _AMBER, 64 + level * 192 // (_PULSE_MS // 2), 256)
            for i in range(n):
                px[i] = c
        elif mode == LED_WINNER:
            head = (ticks_diff(now, self._since) // _CHASE_MS) % n
            for k in range(_CHASE_LEN):
                px[(head + k) % n] = rgb
        return px

    def show(self, now):
        """Render for ``now`` and write the strip if anything changed; True if written."""
        px = self.render(now)
        if px == self._pixels:
            return False
        strip = self.strip
        for i in range(self.count):
            strip[i] = px[i]
        strip.write()
        self._pixels, self._next = px, self._pixels
        self.writes += 1
        return True
