"""The person a commissioning walk talks to: the ``Technician`` port, what it is asked to
do (``Task``) and to look at (``Sight``, typed, so a mock can answer from its own state),
and the two technicians the command uses.

- ``ConsoleTechnician``: a person at the table with a terminal. Instructions and results
  are printed with rich; questions are answered y/n on stdin; a closed stdin (a run
  nobody watches) answers nothing, so those checks are reported as skipped, never as
  passed.
- ``MockHands``: nobody at a mock table. It does each task on the mock part (a card
  placed on a ``MockCardReader``, a key's mock pin driven low and high) and answers each
  question from the part's own state (the light's state and pin, the frame the display
  drew, the buzzer's record), saying what it looked at. So ``pitboss hardware check
  virtual`` is a dry run of the walk a technician makes, and it fails if a step did not
  actually light, draw or beep. A part it cannot handle (a simulated seat node) goes to
  the ``helper`` technician, when there is one.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from gpiozero.pins.mock import MockPin
from rich.console import Console
from rich.markup import escape

from .commissioning_bench import Bench
from .commissioning_report import Status, Step
from .displays import LumaBlindsDisplay, LumaDealerDisplay, LumaShotClock
from .gpio import GpioBuzzer, GpioKeys, GpioLight
from .interfaces import BeepPattern, BlindsFrame, LightMode, LightState, ShotClockFrame
from .stand_ins import MockBuzzer, MockCardReader, MockSeatLight


# ------------------------------------------------------------------ the person
@dataclass(frozen=True, slots=True)
class PlaceCard:
    """Put test card ``card`` on ``reader``'s antenna."""

    reader: str
    card: int = 1


@dataclass(frozen=True, slots=True)
class LiftCard:
    """Take test card ``card`` off ``reader``'s antenna."""

    reader: str
    card: int = 1


@dataclass(frozen=True, slots=True)
class PressKey:
    """Press (and release) the dealer key ``key``."""

    key: str


@dataclass(frozen=True, slots=True)
class PressKeypadKey:
    """Press the USB keypad's key ``key`` (its keycap reads ``cap``)."""

    key: str
    cap: str


Task = PlaceCard | LiftCard | PressKey | PressKeypadKey


@dataclass(frozen=True, slots=True)
class LightLit:
    """Seat ``seat``'s light should show ``state``."""

    seat: int
    state: LightState


@dataclass(frozen=True, slots=True)
class BuzzerPlayed:
    """The buzzer should just have played ``pattern``."""

    pattern: BeepPattern


@dataclass(frozen=True, slots=True)
class DisplayShows:
    """Display ``display`` (``blinds``, ``shot_clock``, ``dealer``) should show ``frame``
    (the dealer display's frame is its lines)."""

    display: str
    frame: BlindsFrame | ShotClockFrame | tuple[str, ...]


Sight = LightLit | BuzzerPlayed | DisplayShows
"""What a yes/no question asks the person to look at (a mock answers from its own state)."""


class Technician(Protocol):
    """The person at the table. ``prompt`` and ``confirm`` may block: the walk calls them
    on a thread of their own."""

    def progress(self, text: str) -> None:
        """Say what is going on (one line)."""
        ...

    def result(self, step: Step) -> None:
        """A check has ended."""
        ...

    def prompt(self, text: str) -> None:
        """Ask the person to get ready; return when they are (Enter)."""
        ...

    def instruct(self, text: str, task: Task) -> None:
        """Ask for ``task``; return at once (the table notices when it is done)."""
        ...

    def confirm(self, question: str, sight: Sight) -> bool | None:
        """Ask a yes/no question about ``sight``; ``None`` when nobody answered."""
        ...


STYLE = {Status.PASS: "green", Status.FAIL: "bold red", Status.SKIP: "yellow"}
YES, NO = ("y", "yes"), ("n", "no")


def test_card_uid(card: int = 1) -> bytes:
    """The UID of mock test card ``card`` (7 bytes, as an NTAG's)."""
    return bytes([0x04, 0xC0, 0xFF, 0xEE, 0x00, 0x00, card & 0xFF])


class ConsoleTechnician:
    """A person at a terminal: rich output, answers on stdin (``ask`` reads one line)."""

    def __init__(
        self, console: Console | None = None, *, ask: Callable[[str], str] | None = None,
        terminal: bool | None = None,
    ) -> None:
        self.console = console or Console(highlight=False, soft_wrap=True)
        self._ask = ask or self.console.input
        # answers typed at a terminal follow the question on its line; from a pipe (a
        # script, a log) the question is a whole line, so a reader of the output sees it
        self.terminal = sys.stdin.isatty() if terminal is None else terminal

    def progress(self, text: str) -> None:
        self.console.print(escape(text))

    def result(self, step: Step) -> None:
        mark = f"[{STYLE[step.status]}]{step.status.value.upper():4}[/]"
        self.console.print(f"{mark} {escape(step.part)} / {escape(step.check)}: "
                           f"{escape(step.detail)}")

    def _line(self, text: str) -> str | None:
        try:
            return self._ask(text)
        except EOFError:
            return None

    def prompt(self, text: str) -> None:
        self.console.print(f"[bold]{escape(text)}[/]")
        self._line("")

    def instruct(self, text: str, task: Task) -> None:
        self.console.print(f"[bold cyan]> {escape(text)}[/]")

    def confirm(self, question: str, sight: Sight) -> bool | None:
        while True:
            ask = f"[bold]{escape(question)}[/] \\[y/n] "
            if not self.terminal:
                self.console.print(ask)
                ask = ""
            answer = self._line(ask)
            if answer is None:
                self.console.print("(no answer: stdin is closed)")
                return None
            word = answer.strip().lower()
            if word in YES or word in NO:
                return word in YES
            self.console.print("Please answer y or n.")


class MockHands:
    """Does the tasks on a mock bench and answers from the mock parts' state; ``say``
    shows it all (a ``ConsoleTechnician`` in the command)."""

    def __init__(self, bench: Bench, say: ConsoleTechnician, *,
                 helper: ConsoleTechnician | None = None) -> None:
        self.bench = bench
        self.say = say
        self.helper = helper

    def progress(self, text: str) -> None:
        self.say.progress(text)

    def result(self, step: Step) -> None:
        self.say.result(step)

    def prompt(self, text: str) -> None:
        self.say.progress(f"{text} (mock: nobody to wait for)")

    def instruct(self, text: str, task: Task) -> None:
        done = self._do(task)
        if done is None and self.helper is not None:
            self.helper.instruct(text, task)
            return
        self.say.progress(f"> {text} ({done or 'not a mock part, and nobody here to do it'})")

    def _do(self, task: Task) -> str | None:
        """Do ``task`` on a mock part; what was done, or None when the part is not a mock."""
        if isinstance(task, PlaceCard | LiftCard):
            reader = self.bench.readers.get(task.reader)
            if not isinstance(reader, MockCardReader):
                return None
            if isinstance(task, PlaceCard):
                reader.place(test_card_uid(task.card))
                return "mock: card placed"
            reader.lift(test_card_uid(task.card))
            return "mock: card taken away"
        if isinstance(task, PressKeypadKey):
            return None  # a USB keypad has no mock: only a person presses it
        keys = self.bench.keys.get(task.key)
        if not isinstance(keys, GpioKeys):
            return None
        pin = keys.button(task.key).pin
        if not isinstance(pin, MockPin):
            return None
        pin.drive_low()
        pin.drive_high()
        return f"mock: {pin.info.name} driven low and high"

    def confirm(self, question: str, sight: Sight) -> bool | None:
        seen = self._look(sight)
        if seen is None:
            if self.helper is not None:
                return self.helper.confirm(question, sight)
            self.say.progress(f"{question} (mock: nothing to look at: no answer)")
            return None
        ok, what = seen
        self.say.progress(f"{question} {'yes' if ok else 'no'} (mock: {what})")
        return ok

    def _look(self, sight: Sight) -> tuple[bool, str] | None:
        """(what the mock part shows matches, what it shows), or None: not a mock part."""
        if isinstance(sight, LightLit):
            light = self.bench.lights.get(sight.seat)
            if isinstance(light, MockSeatLight):
                return light.state == sight.state, f"the light is {light.state.mode.value}"
            if isinstance(light, GpioLight) and isinstance(light.device.pin, MockPin):
                lit = bool(light.device.value)
                want = sight.state.mode is not LightMode.OFF
                level = "high" if lit else "low"
                return lit == want, f"{light.device.pin.info.name} is {level}"
            return None
        if isinstance(sight, BuzzerPlayed):
            buzzer = self.bench.buzzer
            if isinstance(buzzer, MockBuzzer) or (
                isinstance(buzzer, GpioBuzzer) and isinstance(buzzer.device.pin, MockPin)
            ):
                played = buzzer.played[-1:]
                names = [p.name for p in played] or ["nothing"]
                return played == [sight.pattern], f"the buzzer played {names[0]}"
            return None
        assert isinstance(sight, DisplayShows)
        display = {"blinds": self.bench.blinds, "shot_clock": self.bench.shot_clock,
                   "dealer": self.bench.dealer_display}.get(sight.display)
        if isinstance(display, LumaDealerDisplay):
            shown: object = display.lines
        elif isinstance(display, LumaBlindsDisplay | LumaShotClock):
            shown = display.frame
        else:
            return None
        image = getattr(display.device, "image", None)  # luma's dummy keeps the last frame
        if image is None:
            return None
        drawn = image.getbbox() is not None
        return shown == sight.frame and drawn, f"it shows {shown}, {'drawn' if drawn else 'blank'}"
