"""The clocks on the table's hardware: shot-clock digits, buzzer, seat lights, blinds display.

``ClockPanel.handle`` takes each event of ``controller.clocks`` and shows it:

- the shot clock shows the whole seconds left: steady green while the player thinks,
  amber and blinking in the final countdown, red from 3 s, blue while paused; a clock
  call is shown in amber, time-bank seconds in white;
- the buzzer beeps each countdown second and plays the distinct signals at 3 s and 0 s
  (``PanelStyle.sounds``);
- the seat's light blinks with the countdown (amber, then red) and is handed back to the
  table (``release_light``) when the player acts or the clock is cleared;
- the blinds display shows the level, its blinds and ante, and the level's time left;
  with ``time_only`` the table owns level, blinds, ante and button and the panel draws
  only the time left (one owner per field; a frame is shown only when it changes).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Protocol

from controller.clocks.events import (
    BreakStarted,
    ClockCalled,
    ClockEvent,
    CountdownTick,
    ExtensionUsed,
    LevelStarted,
    LevelTick,
    SecondsLeft,
    ShotClockCleared,
    ShotClockExpired,
    ShotClockPaused,
    ShotClockResumed,
    ShotClockStarted,
    ShotClockStopped,
    SignalKind,
    SyncChanged,
    TimeBankEngaged,
)
from controller.devices.interfaces import (
    BEEP_EXPIRED,
    BEEP_SHORT,
    BEEP_WARNING,
    BeepPattern,
    BlindsDisplay,
    BlindsFrame,
    Buzzer,
    Colour,
    LightState,
    SeatLight,
    ShotClockDisplay,
    ShotClockFrame,
)


@dataclass(frozen=True)
class PanelStyle:
    """Colours and sounds of the clocks; a house may change any of them."""

    thinking: Colour = Colour.GREEN
    countdown: Colour = Colour.AMBER
    last_seconds: Colour = Colour.RED
    last_from: int = 3  # red from this many seconds
    paused: Colour = Colour.BLUE
    called: Colour = Colour.AMBER
    bank: Colour = Colour.WHITE
    sounds: Mapping[SignalKind, BeepPattern] = field(default_factory=lambda: {
        SignalKind.BEEP: BEEP_SHORT, SignalKind.WARNING: BEEP_WARNING,
        SignalKind.FINAL: BEEP_EXPIRED})


class ClockHardware(Protocol):
    """The parts of ``controller.devices.hardware.TableHardware`` the panel uses."""

    shot_clock: ShotClockDisplay
    buzzer: Buzzer
    blinds: BlindsDisplay

    def light(self, seat: int) -> SeatLight: ...


class ClockPanel:
    """Maps clock events to the devices (see the module docstring)."""

    def __init__(self, *, shot_clock: ShotClockDisplay, buzzer: Buzzer,
                 light: Callable[[int], SeatLight], blinds: BlindsDisplay | None = None,
                 release_light: Callable[[int], None] | None = None,
                 style: PanelStyle | None = None, time_only: bool = False) -> None:
        self.shot_clock = shot_clock
        self.time_only = time_only
        self.buzzer = buzzer
        self.light = light
        self.blinds = blinds
        self.release_light = release_light
        self.style = style or PanelStyle()
        self.synced = True  # the level clock's host authority (the table draws UNSYNCED)
        self._colour = self.style.thinking  # the running clock's colour before the countdown

    @classmethod
    def for_table(cls, hardware: ClockHardware, *,
                  release_light: Callable[[int], None] | None = None,
                  style: PanelStyle | None = None) -> ClockPanel:
        """The panel on a ``TableHardware`` (the live table or ``MockTable``)."""
        return cls(shot_clock=hardware.shot_clock, buzzer=hardware.buzzer,
                   light=hardware.light, blinds=hardware.blinds,
                   release_light=release_light, style=style)

    def handle(self, event: ClockEvent) -> None:
        st = self.style
        match event:
            case ShotClockStarted(seat, seconds, _):
                self._colour = st.thinking
                self._show("" if seconds is None else seconds, st.thinking)
            case ClockCalled(seat, seconds, countdown, _):
                self._colour = st.called
                self._show(int(seconds + countdown), st.called)
                self.light(seat).set(LightState.on(st.called))
            case SecondsLeft(seat, seconds):
                self._show(seconds, self._colour)
            case CountdownTick(seat, seconds, signal):
                colour = st.last_seconds if seconds <= st.last_from else st.countdown
                self._show(seconds, colour, blink=seconds > 0)
                self.light(seat).set(LightState.blink(colour))
                self.buzzer.beep(st.sounds[signal])
            case TimeBankEngaged(seat, _):
                self._colour = st.bank
                self.shot_clock.show(replace(self.shot_clock.frame, colour=st.bank))
            case ExtensionUsed(seat, _, _, _, seconds):
                self._show(seconds, self._colour)
                self.light(seat).set(LightState.on(self._colour))
                self.buzzer.beep(st.sounds[SignalKind.BEEP])
            case ShotClockPaused(seat, seconds, _):
                self._show(self.shot_clock.frame.text if seconds is None else seconds, st.paused)
            case ShotClockResumed(seat, seconds):
                self._show("" if seconds is None else seconds, self._colour)
            case ShotClockExpired(seat, _, _):
                self._show(0, st.last_seconds)
                self.light(seat).set(LightState.on(st.last_seconds))
            case ShotClockStopped(seat, _, _) | ShotClockCleared(seat):
                self.shot_clock.show(ShotClockFrame(""))
                if self.release_light is not None:
                    self.release_light(seat)
                else:
                    self.light(seat).set(LightState.off())
            case LevelStarted(number, sb, bb, ante, bb_ante, seconds):
                if self.time_only:
                    self.level_time(seconds)
                else:
                    self._blinds(BlindsFrame(number, sb, bb, ante or bb_ante,
                                             self._button(), seconds))
            case LevelTick(number, seconds, _):
                frame = self.blinds.frame if self.blinds is not None else None
                if self.time_only:
                    self.level_time(seconds)
                elif frame is not None:
                    self._blinds(replace(frame, level=number, seconds_left=seconds))
            case BreakStarted(_, seconds, _):
                frame = self.blinds.frame if self.blinds is not None else None
                if frame is not None:
                    self._blinds(replace(frame, seconds_left=int(seconds)))
            case SyncChanged(synced):
                self.synced = synced
            case _:
                pass  # BreakDue, ColourUpDue, BreakEnded, reconciling: nothing to show

    def level_time(self, seconds: int | None) -> None:
        """Only the level's time left on the blinds display (``time_only``): the frame
        the table drew keeps its other fields, and an unchanged frame is not redrawn."""
        frame = self.blinds.frame if self.blinds is not None else None
        if frame is not None and frame.seconds_left != seconds:
            self._blinds(replace(frame, seconds_left=seconds))

    def _show(self, seconds: int | str, colour: Colour, *, blink: bool = False) -> None:
        if isinstance(seconds, int):
            self.shot_clock.show(ShotClockFrame.seconds(seconds, colour, blink))
        else:
            self.shot_clock.show(ShotClockFrame(seconds, colour, blink))

    def _button(self) -> int | None:
        frame = self.blinds.frame if self.blinds is not None else None
        return None if frame is None else frame.button_seat

    def _blinds(self, frame: BlindsFrame) -> None:
        if self.blinds is not None:
            self.blinds.show(frame)
