"""What only the dealer's terminal sees of the table, beside the public state: the stage,
the open prompt with its choices (its cards included: the dealer's screen is the one place
they may show), the shot clock as the players see it, the colour-up's step and the deck.

The public part (seats, stacks, bets, whose turn, amount to call, raise range) is the
journal's :class:`~controller.events.PublicState`, the engine's answer; this adds nothing
to it that the rules decide.
"""

from __future__ import annotations

from dataclasses import dataclass

from .base import Stage


@dataclass(frozen=True, slots=True)
class ChoiceView:
    key: str
    text: str
    rule: str | None


@dataclass(frozen=True, slots=True)
class PromptView:
    """The latest open prompt: what is wrong, the rule, and the ways to resolve it."""

    kind: str
    text: str  # may name cards (the dealer's screen only)
    rule: str | None
    seat: int | None
    choices: tuple[ChoiceView, ...]


@dataclass(frozen=True, slots=True)
class DealerView:
    stage: Stage
    variant: str = "NT"  # NT (no limit), PO (pot limit Omaha), FT (fixed limit)
    level: int = 1  # the level in force for the next hand, its blinds and ante
    small_blind: int = 0
    big_blind: int = 0
    ante: int = 0
    prompt: PromptView | None = None
    prompts: int = 0  # how many are open
    shot_clock: str = ""  # the shot clock display's text ("" when dark)
    level_seconds_left: int | None = None
    colour_up: str | None = None  # the colour-up's next step, while one is under way
    deck_version: int | None = None  # the enrolled deck in play (None: none yet)
    deck_name: str | None = None
    decks: tuple[str, ...] = ()  # the saved decks the dealer may choose between hands
    deck_count: str | None = None  # the count after a hand: "counted 37/52", cards by name
    enrolling: str | None = None  # during an enrolment: "12/52, next 5c"
    counting_all_in: bool = False
    paused: bool = False
    chips: tuple[tuple[int, str], ...] = ()  # the chips in play, (value, colour), lowest first
    house_label: str = ""  # the house in force: game, stakes, rake, straddles ("" without)
