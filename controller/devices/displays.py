"""The two displays: rendering (Pillow, shared by every backend) and the luma/chip backends.

- Button and blinds: an SSD1306 128x64 OLED via ``luma.oled``; the mock renders the same
  frame into ``luma.core``'s dummy device, which a test (or a person) can save as PNG.
- The dealer's display beside the keypad: an SSD1306 128x64 OLED too, six text lines.
- Shot clock: a MAX7219 four-digit seven-segment via ``luma.led_matrix``, or an HT16K33
  backpack via our own small driver; the mock draws coloured seven-segment digits.
  Seven-segment LEDs have one colour: the frame's colour is kept but not shown there.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, Final, Protocol

from PIL import Image, ImageDraw, ImageFont

from .errors import DeviceAbsentError
from .interfaces import BlindsFrame, ShotClockFrame

BLINK_PERIOD_S = 0.5  # on half, off half


class LumaDevice(Protocol):
    """What we use of a luma.core device (ssd1306, dummy...)."""

    size: tuple[int, int]
    mode: str

    def display(self, image: Image.Image) -> None: ...

    def cleanup(self) -> None: ...


@functools.lru_cache(maxsize=16)
def _font(size: int) -> Any:
    """Pillow's built-in font at ``size``: decoded once per size, not once per frame."""
    return ImageFont.load_default(size=size)


def _money(n: int) -> str:
    if n >= 1_000_000 and n % 100_000 == 0:
        return f"{n / 1_000_000:g}M"
    if n >= 10_000 and n % 1000 == 0:
        return f"{n // 1000}K"
    return str(n)


def render_blinds(frame: BlindsFrame, size: tuple[int, int], mode: str) -> Image.Image:
    """The button-and-blinds frame: level and button on top, blinds large; along the
    bottom the game (``PLO``, ``FLHE 100/200``: the players see what is dealt), the ante
    and the level's time."""
    w, h = size
    fg: Any = 255 if mode == "1" else (255, 255, 255)
    img = Image.new(mode, size)
    draw = ImageDraw.Draw(img)
    label = "BREAK" if frame.on_break else f"LEVEL {frame.level}"
    if frame.unsynced:  # the level clock counts alone until the host syncs it again
        label = f"{'BREAK' if frame.on_break else f'L{frame.level}'} UNSYNCED"
    button = "" if frame.button_seat is None else f"BTN {frame.button_seat}"
    room = w - draw.textlength(button, font=_font(12)) - 4
    label_px = 12
    while label_px > 8 and draw.textlength(label, font=_font(label_px)) > room:
        label_px -= 1  # a long label (UNSYNCED) shrinks rather than run into the button
    draw.text((0, 12 - label_px), label, font=_font(label_px), fill=fg)
    if button:
        draw.text((w - draw.textlength(button, font=_font(12)), 0), button, font=_font(12),
                  fill=fg)
    blinds = f"{_money(frame.small_blind)}/{_money(frame.big_blind)}"
    size_px = 26
    while size_px > 10 and draw.textlength(blinds, font=_font(size_px)) > w:
        size_px -= 2
    tw = draw.textlength(blinds, font=_font(size_px))
    draw.text(((w - tw) / 2, 16), blinds, font=_font(size_px), fill=fg)
    time = ""
    if frame.seconds_left is not None:
        m, s = divmod(max(0, frame.seconds_left), 60)
        time = f"{m}:{s:02d}"
        draw.text(
            (w - draw.textlength(time, font=_font(12)), h - 14), time, font=_font(12), fill=fg
        )
    room = w - (draw.textlength(time, font=_font(12)) + 4 if time else 0)
    bottom, px = _bottom_line(draw, frame, room)
    if bottom:
        draw.text((0, h - 2 - px), bottom, font=_font(px), fill=fg)
    return img


def _bottom_line(draw: ImageDraw.ImageDraw, frame: BlindsFrame, room: float) -> tuple[str, int]:
    """The game and the ante in ``room`` pixels, and the font size: shrunk rather than run
    into the time; still too long, the game's limits (``FLHE 100/200`` -> ``FLHE``) give
    way to the ante, which the players pay."""
    ante = f"ANTE {_money(frame.ante)}" if frame.ante else ""
    for game in dict.fromkeys((frame.game, frame.game.split(" ")[0])):
        text = " ".join(p for p in (game, ante) if p)
        for px in range(12, 7, -1):
            if draw.textlength(text, font=_font(px)) <= room:
                return text, px
    return ante or frame.game.split(" ")[0], 8


@functools.lru_cache(maxsize=1)
def _cell_font() -> Any:
    """Pillow's built-in bitmap font: 6x11 pixel cells, so a 128-pixel line holds 21
    characters, what ``Screen.lines()`` cuts its lines to."""
    return ImageFont.load_default_imagefont()


DEALER_LINE_PX = 10  # six lines on a 64-pixel panel (the cell's last row is blank)


def render_dealer(lines: Sequence[str], size: tuple[int, int], mode: str) -> Image.Image:
    """The dealer display's text: one line per row from the top, as many as fit; the
    entry line (``> ...``) drawn inverted so the dealer finds what is being keyed."""
    w, h = size
    fg: Any = 255 if mode == "1" else (255, 255, 255)
    bg: Any = 0 if mode == "1" else (0, 0, 0)
    img = Image.new(mode, size)
    draw = ImageDraw.Draw(img)
    font = _cell_font()
    for row, text in enumerate(lines[: max(1, h // DEALER_LINE_PX)]):
        y = row * DEALER_LINE_PX
        if text.startswith(">"):
            draw.rectangle((0, y, w - 1, y + DEALER_LINE_PX - 1), fill=fg)
            draw.text((1, y - 1), text, font=font, fill=bg)
        else:
            draw.text((1, y - 1), text, font=font, fill=fg)
    return img


# seven segments a..g as polygons in a 20x36 cell
_SEGMENTS: Final[dict[str, list[tuple[float, float]]]] = {
    "a": [(3, 0), (17, 0), (14, 3), (6, 3)],
    "b": [(17, 1), (20, 4), (20, 16), (17, 17), (17, 4)],
    "c": [(17, 19), (20, 20), (20, 32), (17, 35), (17, 20)],
    "d": [(3, 36), (6, 33), (14, 33), (17, 36)],
    "e": [(0, 20), (3, 19), (3, 32), (0, 35)],
    "f": [(0, 4), (3, 1), (3, 17), (0, 16)],
    "g": [(3, 18), (6, 16.5), (14, 16.5), (17, 18), (14, 19.5), (6, 19.5)],
}
SEGMENTS_OF: Final = {
    "0": "abcdef", "1": "bc", "2": "abdeg", "3": "abcdg", "4": "bcfg", "5": "acdfg",
    "6": "acdefg", "7": "abc", "8": "abcdefg", "9": "abcdfg", "-": "g", " ": "",
    "E": "adefg", "P": "abefg", "A": "abcefg", "U": "bcdef", "S": "acdfg", "L": "def",
}  # fmt: skip
# the same glyphs as segment bits (a = bit 0 ... g = bit 6), as the HT16K33 wants them
SEGMENT_BITS: Final = {
    ch: sum(1 << "abcdefg".index(s) for s in segs) for ch, segs in SEGMENTS_OF.items()
}


def render_shot_clock(
    frame: ShotClockFrame, size: tuple[int, int], mode: str, *, lit: bool = True
) -> Image.Image:
    """Four seven-segment digits, right-aligned, in the frame's colour (blank when not lit)."""
    img = Image.new(mode, size)
    if not lit:
        return img
    draw = ImageDraw.Draw(img)
    w, h = size
    scale = min(w / (4 * 28), h / 40)
    colour: Any = 255 if mode == "1" else frame.colour.value
    dim: Any = 0 if mode == "1" else tuple(c // 8 for c in frame.colour.value)
    text = frame.text[-4:].rjust(4)
    x0 = (w - 4 * 28 * scale) / 2
    y0 = (h - 36 * scale) / 2
    for i, ch in enumerate(text):
        lit_segs = SEGMENTS_OF.get(ch.upper(), "g")
        for seg, poly in _SEGMENTS.items():
            pts = [(x0 + (i * 28 + 4 + x) * scale, y0 + y * scale) for x, y in poly]
            draw.polygon(pts, fill=colour if seg in lit_segs else dim)
    return img


def _blink_lit(frame: ShotClockFrame, now: float) -> bool:
    return not frame.blink or (now % BLINK_PERIOD_S) < BLINK_PERIOD_S / 2


class LumaBlindsDisplay:
    """The blinds display on any luma device (ssd1306 on the table, dummy in the mock)."""

    def __init__(self, device: LumaDevice) -> None:
        self.device = device
        self._frame: BlindsFrame | None = None

    @property
    def frame(self) -> BlindsFrame | None:
        return self._frame

    def show(self, frame: BlindsFrame) -> None:
        self.device.display(render_blinds(frame, self.device.size, self.device.mode))
        self._frame = frame

    def close(self) -> None:
        self.device.cleanup()


class LumaDealerDisplay:
    """The dealer's display on any luma device (ssd1306 beside the keypad, dummy in the
    mock): a redraw only when the lines changed (an I2C frame costs ~25 ms at 400 kHz)."""

    def __init__(self, device: LumaDevice) -> None:
        self.device = device
        self._lines: tuple[str, ...] = ()
        self.frames = 0  # frames sent to the panel

    @property
    def lines(self) -> tuple[str, ...]:
        return self._lines

    def show(self, lines: Sequence[str]) -> None:
        wanted = tuple(lines)
        if wanted == self._lines and self.frames:
            return
        self.device.display(render_dealer(wanted, self.device.size, self.device.mode))
        self._lines = wanted
        self.frames += 1

    def close(self) -> None:
        self.device.cleanup()


class LumaShotClock:
    """The shot clock drawn as seven-segment digits on a pixel device (the mock's dummy)."""

    def __init__(self, device: LumaDevice) -> None:
        self.device = device
        self._frame = ShotClockFrame()
        self._lit = True

    @property
    def frame(self) -> ShotClockFrame:
        return self._frame

    def show(self, frame: ShotClockFrame) -> None:
        self._frame = frame
        self._draw(True)

    def refresh(self, now: float) -> None:
        lit = _blink_lit(self._frame, now)
        if lit != self._lit:
            self._draw(lit)

    def _draw(self, lit: bool) -> None:
        self._lit = lit
        size, mode = self.device.size, self.device.mode
        self.device.display(render_shot_clock(self._frame, size, mode, lit=lit))

    def close(self) -> None:
        self.device.cleanup()


class SevenSegmentShotClock:
    """A MAX7219 seven-segment clock through ``luma.core.virtual.sevensegment``."""

    def __init__(self, segments: Any) -> None:
        self.segments = segments  # luma.core.virtual.sevensegment over a max7219 device
        self._frame = ShotClockFrame()
        self._lit = True

    @property
    def frame(self) -> ShotClockFrame:
        return self._frame

    def show(self, frame: ShotClockFrame) -> None:
        self._frame = frame
        self._lit = True
        self.segments.text = frame.text[-4:].rjust(4)

    def refresh(self, now: float) -> None:
        lit = _blink_lit(self._frame, now)
        if lit != self._lit:
            self._lit = lit
            self.segments.text = self._frame.text[-4:].rjust(4) if lit else "    "

    def close(self) -> None:
        self.segments.device.cleanup()


class SMBusLike(Protocol):
    def write_byte(self, address: int, value: int) -> None: ...

    def write_i2c_block_data(self, address: int, register: int, data: list[int]) -> None: ...


_HT_SYSTEM_ON: Final = 0x21
_HT_DISPLAY_ON: Final = 0x81
_HT_BLINK_2HZ: Final = 0x02
_HT_DIMMING: Final = 0xE0
_HT_DIGIT_ADDR: Final = (0x00, 0x02, 0x06, 0x08)  # Adafruit 4-digit backpack; 0x04 is the colon


class HT16K33ShotClock:
    """An HT16K33 four-digit backpack; the chip blinks by itself. Given its bus and address."""

    def __init__(self, bus: SMBusLike, address: int = 0x70, *, brightness: int = 15) -> None:
        self.bus = bus
        self.address = address
        self._frame = ShotClockFrame()
        self._ram = [0] * 10  # display RAM 0x00..0x09: four digits and the colon
        try:
            bus.write_byte(address, _HT_SYSTEM_ON)
        except OSError as exc:
            raise DeviceAbsentError(
                f"no HT16K33 answers on I2C at 0x{address:02X} ({exc}): check the wiring, "
                "the backpack's address jumpers and `address` in the profile"
            ) from None
        bus.write_byte(address, _HT_DIMMING | (brightness & 0x0F))
        bus.write_byte(address, _HT_DISPLAY_ON)

    @property
    def frame(self) -> ShotClockFrame:
        return self._frame

    def show(self, frame: ShotClockFrame) -> None:
        text = frame.text[-4:].rjust(4)
        for addr, ch in zip(_HT_DIGIT_ADDR, text, strict=True):
            self._ram[addr] = SEGMENT_BITS.get(ch.upper(), SEGMENT_BITS["-"])
        self.bus.write_i2c_block_data(self.address, 0x00, self._ram)
        self.bus.write_byte(self.address, _HT_DISPLAY_ON | (_HT_BLINK_2HZ if frame.blink else 0))
        self._frame = frame

    def refresh(self, now: float) -> None:
        """Nothing to do: the chip blinks on its own."""

    def close(self) -> None:
        self.bus.write_byte(self.address, 0x80)  # display off
