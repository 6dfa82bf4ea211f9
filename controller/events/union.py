"""The one union: every public table event, discriminated by ``kind``.

:data:`TableEvent` is what goes out on ``table/{id}/event``, what the journal folds, what
the host bridge parses once at its boundary and what its consumers ``match`` on. What the
table hands the journal is a :data:`JournalEvent`: a public event, or a secret one
(hole or burn cards, a card read) that the journal splits into its public face and
``secure/cards``.

Schema rules (``schema`` in the envelope is 2): a change that every reader built from this
package accepts, and that leaves old payloads valid, is additive and keeps the version: a
new event kind, a new optional field with a default, a new value of a ``Literal``.
Removing or renaming a field or kind, or changing what a field means, bumps the version.
Version 2 split version 1's ``table_changed`` (a ``change`` string) into one kind per
change.
"""

from __future__ import annotations

from typing import Annotated, Final, get_args

from pydantic import Field, TypeAdapter

from .clock import (
    BreakEnded,
    BreakStarted,
    ClockCalled,
    ClockSynced,
    LevelSet,
    Paused,
    Resumed,
    ShotClockReport,
)
from .colour_up import (
    ChipsCounted,
    ColourUpCancelled,
    ColourUpStarted,
    ColourUpStepUndone,
    RaceCardDealt,
    RaceChipsAwarded,
    RaceDealtAgain,
)
from .floor import ColourUpScheduled, DeckReport, HandForHandSet, HandReleased, TableClosed
from .hand import (
    ActionAccepted,
    ActionCorrected,
    ActionHeld,
    ActionsUndone,
    BoardDealt,
    BurnedCard,
    CardBurned,
    HandEnded,
    HandShown,
    HandStarted,
    HandVoided,
    HoleCardsDealt,
    HoleDealt,
    Irregularity,
    MisdealDeclared,
    PotAwarded,
    SecretEvent,
)
from .house import HouseSet, RakeTaken
from .inputs import CardRead, CardSeen, InputTaken
from .nodes import SeatNodeBack
from .refusal import Rejected
from .seats import (
    ButtonPlaced,
    CameBack,
    PenaltyServed,
    PlayerBusted,
    PlayerCheckedIn,
    PlayerMoved,
    PlayerRemoved,
    PlayerSeated,
    SatOut,
    SeatPresence,
    StackAdjusted,
)

PublicEvent = (
    # the hand
    HandStarted | HoleDealt | ActionAccepted | BoardDealt | CardBurned | ActionsUndone
    | ActionCorrected | ActionHeld | HandShown | PotAwarded | HandEnded | HandVoided
    | MisdealDeclared | Irregularity
    # the seats
    | PlayerSeated | PlayerRemoved | PlayerMoved | PlayerBusted | ButtonPlaced | SatOut | CameBack
    | PenaltyServed | StackAdjusted | SeatPresence | PlayerCheckedIn
    # the seat nodes (one offline is an Irregularity, the dealer's prompt)
    | SeatNodeBack
    # the clocks
    | Paused | Resumed | LevelSet | ClockCalled | ClockSynced | BreakStarted | BreakEnded
    | ShotClockReport
    # the floor
    | HandForHandSet | HandReleased | ColourUpScheduled | TableClosed | DeckReport | HouseSet
    | RakeTaken
    # the colour-up's steps (CHIPRACE-*; its outcome is a stack_adjusted)
    | ColourUpStarted | ChipsCounted | RaceCardDealt | RaceDealtAgain | RaceChipsAwarded
    | ColourUpStepUndone | ColourUpCancelled
    # a refusal: nothing changed
    | Rejected
    # the inputs, journaled before they are applied (the floor's dispute timeline)
    | InputTaken | CardRead
)
TableEvent = Annotated[PublicEvent, Field(discriminator="kind")]
"""Every public table event, discriminated by ``kind``."""

JournalEvent = PublicEvent | SecretEvent
"""What the table hands the journal: a public event, or a secret one it splits."""


def is_secret(event: JournalEvent) -> bool:
    """True for a secret event (hole or burn cards, a card read at a reader): the journal
    sends its cards on ``secure/cards`` only, and nobody writes them to an INFO log
    (CARD-4)."""
    return isinstance(event, HoleCardsDealt | BurnedCard | CardSeen)

TABLE_EVENTS: Final[TypeAdapter[PublicEvent]] = TypeAdapter(TableEvent)
"""Parses one event (a dict or JSON) into its model; refuses an unknown ``kind``."""

EVENT_TYPES: Final[tuple[type[PublicEvent], ...]] = get_args(PublicEvent)
KINDS: Final[frozenset[str]] = frozenset(
    t.model_fields["kind"].default for t in EVENT_TYPES)
"""Every kind of the union."""
