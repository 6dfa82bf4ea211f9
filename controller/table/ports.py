"""The small ports the table's parts are given instead of the whole table.

:class:`~controller.table.hand_in_play.HandInPlay` owns the hand; the functions that carry
out its steps (:mod:`~controller.table.betting`, :mod:`~controller.table.reads`,
:mod:`~controller.table.showdown`) see it through :class:`Play`, so they never import
the owner (no import circle) and never reach the rest of the table. The clocks and the
colour-up see the hand through :class:`HandView` (read-only) and act on it only through
intents. The outside world is reached through :data:`Sink` (the journal, first: every
event a model of the one vocabulary, ``controller.events``) and :data:`Refuse` (a
refusal: journaled as ``Rejected`` with its rule, the buzzer sounds).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from controller.devices.events import DeviceEvent
from controller.devices.interfaces import (
    BlindsDisplay,
    Buzzer,
    Clock,
    SeatLight,
    ShotClockDisplay,
)
from controller.devices.profile import Profile
from controller.events import JournalEvent
from controller.rules.actions import Action as RulesAction
from controller.rules.actions import BetRaise
from controller.rules.button import Positions
from controller.rules.cards import Card
from controller.rules.config import RulesProfile, Variant
from controller.rules.hand import Hand
from controller.rules.live import Decision, OutOfTurn

from .base import Choice, Prompt, Stage
from .dealing import HandReads
from .lights import Level
from .seats import Roster


class TableDevices(Protocol):
    """What the table is wired to, as the table uses it (a backend from the devices
    registry, real or mock, provides it)."""

    @property
    def profile(self) -> Profile: ...

    @property
    def clock(self) -> Clock: ...

    @property
    def lights(self) -> Mapping[int, SeatLight]: ...

    @property
    def blinds(self) -> BlindsDisplay: ...

    @property
    def shot_clock(self) -> ShotClockDisplay: ...

    @property
    def buzzer(self) -> Buzzer: ...

    def light(self, seat: int) -> SeatLight: ...

    def poll(self) -> list[DeviceEvent]: ...

    def events(self) -> AsyncIterator[DeviceEvent]: ...

    async def run(self) -> None: ...


Sink = Callable[[JournalEvent], None]
"""Where every accepted event goes first (the journal), before any light or display: a
public event of the vocabulary, or a secret one (hole or burn cards) the journal splits."""


class Refuse(Protocol):
    """A refusal: journaled as ``Rejected`` with the rule and the input's ``source``, the
    buzzer sounds; always returns False so a caller can ``return refuse(...)``."""

    def __call__(self, reason: str, rule: str | None = None, source: str = "") -> bool: ...


Action = Callable[[], None]
"""What choosing one option of a prompt does."""


@dataclass(frozen=True, slots=True)
class Held:
    """An action out of turn waiting for the player's turn (LIVE-12)."""

    oot: OutOfTurn
    pushed: int = 0  # chips put out with it

    @classmethod
    def taken(cls, action: Decision, profile: RulesProfile, pushed: int = 0) -> Held:
        return cls(OutOfTurn.taken(action, profile), pushed)

    def after(self, between: RulesAction) -> Held:
        return Held(self.oot.after(between), self.pushed)

    @property
    def what(self) -> str:
        a = self.oot.action
        return f"raise to {a.to}" if isinstance(a, BetRaise) else type(a).__name__.lower()


class HandView(Protocol):
    """The hand in play, read-only: what the clocks, the displays and the colour-up see."""

    @property
    def stage(self) -> Stage: ...

    @property
    def hand(self) -> Hand | None: ...

    @property
    def hand_no(self) -> int: ...

    @property
    def positions(self) -> Positions | None: ...

    @property
    def previous(self) -> Positions | None: ...

    @property
    def button(self) -> int | None: ...

    @property
    def awarded(self) -> int: ...

    @property
    def level(self) -> Level | None: ...

    @property
    def hand_level_no(self) -> int: ...

    @property
    def prompts(self) -> Sequence[Prompt]: ...

    def seat_of(self, position: int) -> int: ...


class Play(Protocol):
    """The hand in play as its steps see it (betting, reads, showdown)."""

    hand: Hand | None
    hand_no: int
    positions: Positions | None
    reads: HandReads | None
    held: dict[int, Held]
    prompts: list[Prompt]
    awarded: int
    previous: Positions | None
    roster: Roster
    profile: RulesProfile
    variant: Variant

    @property
    def stage(self) -> Stage: ...

    def emit(self, event: JournalEvent) -> None: ...

    def reject(self, reason: str, rule: str | None = None, source: str = "") -> bool: ...

    def beep(self) -> None: ...

    def prompt(self, kind: str, reason: str, rule: str | None, seat: int | None,
               options: Sequence[tuple[Choice, Action]], cards: tuple[Card, ...] = ()
               ) -> None: ...

    def misdeal_choice(self) -> tuple[Choice, Action]: ...

    def drop_prompts(self, kind: str, seat: int | None = None) -> None: ...

    def seat_of(self, position: int) -> int: ...

    def position_of(self, seat: int) -> int | None: ...

    def advance(self) -> None: ...

    def hand_over(self) -> None: ...
