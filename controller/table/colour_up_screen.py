"""The colour-up's prompt screens and seat lights (issue 6; CHIPRACE-5: players watch).

:func:`prompt_screen` says what the button-and-blinds display shows at each step of a
:class:`~controller.chiprace.ChipRace` (the table's step, a problem the dealer must
resolve first, the break's time left in the corner); :func:`render_screen` draws it for
the 128x64 SSD1306 (or the mock's dummy device). :func:`seat_lights` lights the seat
being counted (white), the seats due a race card (blinking white; the next one white),
the winners (blinking green), every new stack to confirm (green), and a seat with a
problem (blinking red).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Protocol

from controller.chiprace import ChipRace, ChipSet, Phase
from controller.devices.interfaces import Colour, LightState

from .lights import OFF, PROBLEM, TO_SHOW, TURN, WINNER

if TYPE_CHECKING:
    from PIL import Image

    from .base import Prompt

SCREEN_WIDTH: Final = 21  # characters on one line of the blinds display (128 px)
CONFIRMED: Final = LightState.on(Colour.GREEN)


@dataclass(frozen=True, slots=True)
class Screen:
    """One prompt screen of the blinds display: a header with a corner (the break's time
    left), the step's title, and up to three lines of detail."""

    header: str
    corner: str
    title: str
    lines: tuple[str, ...] = ()


def prompt_screen(race: ChipRace, chip_set: ChipSet, problem: Prompt | None,
                  seconds_left: int | None) -> Screen:
    """What the blinds display shows for ``race`` now (``chip_set``: the chips in play)."""
    left = max(0, seconds_left or 0)
    corner = "" if seconds_left is None else f"{left // 60}:{left % 60:02d}"
    leaving, cs = race.leaving, chip_set
    gone = "+".join(cs.label(v) for v in sorted(leaving))
    header = f"COLOUR-UP {gone}"
    if problem is not None:  # the card is named here, on the dealer's screen only
        return Screen(header, corner,
                      f"S{problem.seat} {problem.kind.upper().replace('_', ' ')}",
                      (f"card {' '.join(str(c) for c in problem.cards)}",
                       " or ".join(c.key.upper() for c in problem.choices)))
    prompt, phase = race.next_prompt(), race.phase
    if phase is Phase.COUNT:
        new, small = cs.without(leaving).lowest, min(leaving)
        todo, total = len(race.expect().due), len(race.counted) + len(race.expect().due)
        lines = [f"key in {gone} count"]
        if len(leaving) == 1 and new.value % small == 0:
            lines.append(f"{new.value // small} x {cs.label(small)} = 1 x {new.label}")
        lines.append(f"counted {total - todo}/{total} seats")
        return Screen(header, corner, prompt.title, tuple(lines))
    plan = race.plan
    assert plan is not None
    chip = plan.race_chip.label
    if phase is Phase.DEAL:
        return Screen(header, corner, prompt.title, (
            "face up, 1 per odd chip", f"race for {plan.chips_raced} x {chip}",
            f"dealt {len(race.cards)}/{plan.cards_needed} cards"))
    result = race.result or race.pending
    assert result is not None
    if phase is Phase.AWARD:
        won = " ".join(f"S{a.seat}" + (f" {a.card}" if a.card is not None else "")
                       for a in result.awards) or "no chip raced"
        rescued = [f"S{s.seat}" for s in result.seats if s.rescued]
        lines = [*_wrap(won)[:1 if rescued else 2]]
        if rescued:  # CHIPRACE-3
            lines.append(f"+1 {chip}: " + " ".join(rescued))
        return Screen(header, corner, prompt.title, (*lines, "DEAL: chips handed out"))
    stacks = " ".join(f"{s}:{v}" for s, v in result.stacks.items())
    return Screen(header, corner, prompt.title,
                  (*_wrap(stacks)[:2], "DEAL: confirm"))


def seat_lights(race: ChipRace, seats: Iterable[int],
                prompts: Iterable[Prompt]) -> dict[int, LightState]:
    """Each seat's light at the race's step; a seat with an open prompt blinks red."""
    plan = dict.fromkeys(seats, OFF)
    phase = race.phase
    if phase is Phase.COUNT:
        seat = race.expect().seat
        if seat is not None:
            plan[seat] = TURN
    elif phase is Phase.DEAL:
        expect = race.expect()
        for seat, _ in expect.due:
            plan[seat] = TO_SHOW
        if expect.seat is not None:
            plan[expect.seat] = TURN
    elif phase is Phase.AWARD:
        for seat in race.next_prompt().seats:
            plan[seat] = WINNER
    elif phase is Phase.CONFIRM and race.result is not None:
        for seat in race.result.stacks:
            plan[seat] = CONFIRMED
    for p in prompts:
        if p.seat in plan:
            plan[p.seat] = PROBLEM
    return plan


class _Pixels(Protocol):
    size: tuple[int, int]
    mode: str

    def display(self, image: Image.Image) -> None: ...


def pixels_of(display: object) -> _Pixels | None:
    """The pixel device behind a blinds display (luma: the OLED, or the mock's dummy)."""
    device = getattr(display, "device", None)
    if device is None or not all(hasattr(device, a) for a in ("display", "size", "mode")):
        return None
    return device  # type: ignore[no-any-return]


@functools.lru_cache(maxsize=8)
def _font(size: int) -> Any:
    """Pillow's built-in font at ``size``, decoded once per size."""
    from PIL import ImageFont

    return ImageFont.load_default(size=size)


def _wrap(text: str, width: int = SCREEN_WIDTH) -> tuple[str, ...]:
    lines: list[str] = []
    for word in text.split():
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word[:width])
    return tuple(lines)


def render_screen(screen: Screen, size: tuple[int, int], mode: str) -> Image.Image:
    """A prompt screen as the blinds display shows it: an inverted header bar, the title
    large, the details small (128x64 on the table's SSD1306)."""
    from PIL import Image, ImageDraw

    w = size[0]
    fg: Any = 255 if mode == "1" else (255, 255, 255)
    bg: Any = 0 if mode == "1" else (0, 0, 0)
    img = Image.new(mode, size)
    draw = ImageDraw.Draw(img)
    small = _font(10)
    draw.rectangle((0, 0, w - 1, 11), fill=fg)
    draw.text((1, 0), screen.header, font=small, fill=bg)
    if screen.corner:
        draw.text((w - 1 - draw.textlength(screen.corner, font=small), 0), screen.corner,
                  font=small, fill=bg)
    size_px = 13
    while size_px > 9 and draw.textlength(screen.title, font=_font(size_px)) > w:
        size_px -= 1
    draw.text((0, 13), screen.title, font=_font(size_px), fill=fg)
    for i, line in enumerate(screen.lines[:3]):
        draw.text((0, 29 + 12 * i), line, font=small, fill=fg)
    return img
