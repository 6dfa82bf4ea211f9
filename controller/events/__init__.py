"""The table's one vocabulary (DESIGN.md, rooms: ``events/``): every table event and
change, the host's commands and the public state, each a frozen pydantic model.

- :mod:`.hand`: the hand in play (and the secret hole and burn cards); :mod:`.game` its
  game setup.
- :mod:`.seats`: players seated, removed, moved, busted, sitting out; stacks adjusted.
- :mod:`.clock`: pause, levels, breaks, the host's sync, clock calls, the shot clock.
- :mod:`.floor`: hand-for-hand, colour-ups scheduled, the table closed, the deck.
- :mod:`.colour_up`: the colour-up's steps (its outcome is a ``stack_adjusted``).
- :mod:`.nodes`: a seat node back after it was reported offline.
- :mod:`.refusal`: an input the table refused, with the rule and the reason.
- :mod:`.inputs`: the inputs themselves (reads, keys, taps, clock rulings), journaled
  before they are applied (a card read's card is secret, like a hole card).
- :mod:`.state`: the public state. :mod:`.commands`: the host's commands.
- :mod:`.union`: :data:`TableEvent`, the one discriminated union (``kind``).

This package imports ``controller.rules`` (types) and pydantic only; the MQTT envelopes
that carry these models are :mod:`controller.sync.messages`.
"""

from .base import Change, Frozen
from .clock import (
    BreakEnded,
    BreakStarted,
    ClockCalled,
    ClockSnapshot,
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
from .commands import (
    COMMAND_NAMES,
    AddChips,
    CallClock,
    CloseTable,
    Command,
    HandForHand,
    JsonScalar,
    MovePlayer,
    NextHand,
    Pause,
    RemovePlayer,
    Resume,
    ScheduleColourUp,
    SeatPlayer,
    SetHouse,
    SetLevel,
    SyncClock,
)
from .floor import ColourUpScheduled, DeckReport, HandForHandSet, HandReleased, TableClosed
from .game import GameSetup, PostSetup, RakeSetup
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
    HandStep,
    HandVoided,
    HoleCardsDealt,
    HoleDealt,
    Irregularity,
    MisdealDeclared,
    MoveName,
    PotAwarded,
    ReplayedStep,
    SecretEvent,
    move_of,
)
from .house import HOUSE_TEXT_MAX, HouseSet, HouseView, RakeTaken
from .inputs import CardRead, CardSeen, InputSource, InputTaken
from .nodes import SEAT_NODE_OFFLINE, SeatNodeBack
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
    SeatAdjustment,
    SeatPresence,
    StackAdjusted,
    StackReason,
)
from .state import HandLayout, PublicState, SeatView
from .union import (
    EVENT_TYPES,
    KINDS,
    TABLE_EVENTS,
    JournalEvent,
    PublicEvent,
    TableEvent,
    is_secret,
)

__all__ = [
    "COMMAND_NAMES",
    "EVENT_TYPES",
    "HOUSE_TEXT_MAX",
    "KINDS",
    "SEAT_NODE_OFFLINE",
    "TABLE_EVENTS",
    "ActionAccepted",
    "ActionCorrected",
    "ActionHeld",
    "ActionsUndone",
    "AddChips",
    "BoardDealt",
    "BreakEnded",
    "BreakStarted",
    "BurnedCard",
    "ButtonPlaced",
    "CallClock",
    "CameBack",
    "CardBurned",
    "CardRead",
    "CardSeen",
    "Change",
    "ChipsCounted",
    "ClockCalled",
    "ClockSnapshot",
    "ClockSynced",
    "CloseTable",
    "ColourUpCancelled",
    "ColourUpScheduled",
    "ColourUpStarted",
    "ColourUpStepUndone",
    "Command",
    "DeckReport",
    "Frozen",
    "GameSetup",
    "HandEnded",
    "HandForHand",
    "HandForHandSet",
    "HandLayout",
    "HandReleased",
    "HandShown",
    "HandStarted",
    "HandStep",
    "HandVoided",
    "HoleCardsDealt",
    "HoleDealt",
    "HouseSet",
    "HouseView",
    "InputSource",
    "InputTaken",
    "Irregularity",
    "JournalEvent",
    "JsonScalar",
    "LevelSet",
    "MisdealDeclared",
    "MoveName",
    "MovePlayer",
    "NextHand",
    "Pause",
    "Paused",
    "PenaltyServed",
    "PlayerBusted",
    "PlayerCheckedIn",
    "PlayerMoved",
    "PlayerRemoved",
    "PlayerSeated",
    "PostSetup",
    "PotAwarded",
    "PublicEvent",
    "PublicState",
    "RaceCardDealt",
    "RaceChipsAwarded",
    "RaceDealtAgain",
    "RakeSetup",
    "RakeTaken",
    "Rejected",
    "RemovePlayer",
    "ReplayedStep",
    "Resume",
    "Resumed",
    "SatOut",
    "ScheduleColourUp",
    "SeatAdjustment",
    "SeatNodeBack",
    "SeatPlayer",
    "SeatPresence",
    "SeatView",
    "SecretEvent",
    "SetHouse",
    "SetLevel",
    "ShotClockReport",
    "StackAdjusted",
    "StackReason",
    "SyncClock",
    "TableClosed",
    "TableEvent",
    "is_secret",
    "move_of",
]
