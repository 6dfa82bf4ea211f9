"""The table's events on the wire (``table/{id}/event``), defined once; re-exported by
:mod:`controller.sync.messages`, which holds the envelopes and commands.

Players in a hand are numbered by position, as in PHH and the rules engine: ``player`` 0 is
the first seat left of the button, in the order of :attr:`HandStarted.seats`. Seats are
the table's seat numbers. Hole cards and burn cards are never in a public event: the
secret events (:class:`HoleCardsDealt`, :class:`BurnedCard`) are what the table hands
the journal, which splits each into a public face on ``event`` and a
:class:`~controller.sync.messages.SecureCards` on ``secure/cards`` with the same seq.

Schema rules (``schema`` stays 1): a change that every reader built from this module
accepts, and that leaves old payloads valid, is additive and keeps the version: a new
event kind, a new optional field with a default, a new value of a ``Literal``. Removing
or renaming a field or kind, or changing what a field means, bumps the version.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from controller.rules.actions import Action, BetRaise, Call, Check, Fold, Kill, Muck, Show
from controller.rules.cards import Card
from controller.rules.config import Variant
from controller.rules.game import GameConfig, Post, Straddle
from controller.rules.rake import RakeBracket, RakePolicy

Id = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.:-]+$")]
CardText = Annotated[str, Field(pattern=r"^[2-9TJQKA][cdhs]$")]
Chips = Annotated[int, Field(ge=0)]
SeatNo = Annotated[int, Field(ge=1, le=10)]
Count = Annotated[int, Field(ge=0)]
HandNo = Annotated[int, Field(ge=1)]
RuleId = Annotated[str, Field(max_length=32)]
Text = Annotated[str, Field(max_length=400)]


class Frozen(BaseModel):
    """A frozen wire model that refuses unknown fields."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)


# ---------------------------------------------------------------------------- game setup
class RakeSetup(Frozen):
    """:class:`~controller.rules.rake.RakePolicy` on the wire (``percent`` as ``"7/2"``)."""

    kind: Literal["percentage", "brackets"]
    percent: Annotated[str, Field(pattern=r"^\d+(/\d+)?$")] = "0"
    cap: Chips | None = None
    halved_cap: Chips | None = None
    rounding: Literal["nearest", "up"] = "nearest"
    minimum: Chips = 1
    brackets: tuple[tuple[Chips | None, Chips], ...] = ()
    no_flop_no_drop: bool = True
    unit: Annotated[str, Field(max_length=16)] = "cent"

    @classmethod
    def of(cls, policy: RakePolicy) -> RakeSetup:
        """The wire form of a rake policy."""
        return cls(kind=policy.kind, percent=str(policy.percent), cap=policy.cap,
                   halved_cap=policy.halved_cap, rounding=policy.rounding,
                   minimum=policy.minimum,
                   brackets=tuple((b.pot_to, b.rake) for b in policy.brackets),
                   no_flop_no_drop=policy.no_flop_no_drop, unit=policy.unit)

    def policy(self) -> RakePolicy:
        """The rules' rake policy (raises ``ConfigError`` if it is not a valid one)."""
        return RakePolicy(self.kind, Fraction(self.percent), self.cap, self.halved_cap,
                          self.rounding, self.minimum,
                          tuple(RakeBracket(t, r) for t, r in self.brackets),
                          self.no_flop_no_drop, self.unit)


class PostSetup(Frozen):
    """An extra forced bet by a player who is not a blind (BLIND-4, BLIND-5)."""

    player: Count
    live: Chips = 0
    dead: Chips = 0


class GameSetup(Frozen):
    """Everything of :class:`~controller.rules.game.GameConfig` but the stacks (those are
    :attr:`HandStarted.stacks`): what a host needs to replay the hand for PHH."""

    variant: Literal["NT", "PO", "FT"] = "NT"
    small_blind: Chips
    big_blind: Chips
    antes: tuple[Chips, ...] = ()
    big_blind_ante: Chips = 0
    straddle: Literal["none", "utg", "button"] = "none"
    straddle_amount: Chips = 0
    small_bet: Chips = 0
    big_bet: Chips = 0
    fl_capped: bool | None = None
    no_small_blind: bool = False
    unit: Annotated[int, Field(ge=1)] = 1
    posts: tuple[PostSetup, ...] = ()
    rake: RakeSetup | None = None

    @classmethod
    def of(cls, config: GameConfig) -> GameSetup:
        """The wire form of a hand's configuration."""
        return cls(variant=config.variant.value, small_blind=config.small_blind,
                   big_blind=config.big_blind, antes=config.antes,
                   big_blind_ante=config.big_blind_ante, straddle=config.straddle.value,
                   straddle_amount=config.straddle_amount, small_bet=config.small_bet,
                   big_bet=config.big_bet, fl_capped=config.fl_capped,
                   no_small_blind=config.no_small_blind, unit=config.unit,
                   posts=tuple(PostSetup(player=p.player_index, live=p.live, dead=p.dead)
                               for p in config.posts),
                   rake=None if config.rake is None else RakeSetup.of(config.rake))

    def config(self, stacks: tuple[int, ...]) -> GameConfig:
        """The rules' configuration for a hand with these starting stacks."""
        return GameConfig(
            Variant(self.variant), stacks, self.small_blind, self.big_blind, self.antes,
            self.big_blind_ante, Straddle(self.straddle), self.straddle_amount,
            self.small_bet, self.big_bet, self.fl_capped, self.no_small_blind, self.unit,
            None if self.rake is None else self.rake.policy(),
            tuple(Post(p.player, p.live, p.dead) for p in self.posts))


# ---------------------------------------------------------------------------- hand events
class HandStarted(Frozen):
    """A hand began; ``seats`` in position order, ``stacks`` before the forced bets.

    ``config`` is the whole game setup (absent in payloads from before it existed);
    ``button``, ``small_blind_seat`` and ``big_blind_seat`` the layout (BTN-1..7)."""

    kind: Literal["hand_started"] = "hand_started"
    hand_no: HandNo
    seats: tuple[SeatNo, ...]
    stacks: tuple[Chips, ...]
    small_blind: Chips = 0
    big_blind: Chips = 0
    ante: Chips = 0
    button: SeatNo | None = None
    small_blind_seat: SeatNo | None = None
    big_blind_seat: SeatNo | None = None
    level: Annotated[int, Field(ge=1)] | None = None
    config: GameSetup | None = None


class HoleDealt(Frozen):
    """A player received hole cards (public: how many, never which)."""

    kind: Literal["hole_dealt"] = "hole_dealt"
    hand_no: HandNo
    player: Count
    count: Count


MoveName = Literal["fold", "check", "call", "bet_raise", "show", "muck", "kill"]


class ActionAccepted(Frozen):
    """A betting or showdown action the rules accepted; shown cards are public.

    ``amount``: call, the chips put in; bet_raise, the total bet to. ``forfeit``: the
    engine's fold forfeit. ``forfeited``/``returned``/``owed``: chips a folding player
    leaves in the pot, chips handed back, chips still due, under the live rules
    (LIVE-2/3/7/8/10), outside the engine; ``rule`` the rule that decided; ``source``
    where it came from (console, chips, muck, held, auto)."""

    kind: Literal["action"] = "action"
    hand_no: HandNo
    player: Count
    action: MoveName
    amount: Chips | None = None
    cards: tuple[CardText, ...] = ()
    forfeit: Chips = 0
    forfeited: Chips = 0
    returned: Chips = 0
    owed: Chips = 0
    rule: RuleId | None = None
    source: Annotated[str, Field(max_length=16)] | None = None

    def move(self) -> tuple[str, int, int | None, tuple[str, ...], int]:
        """What the action did to the hand (not how it was made): undo and corrections
        match log entries by this."""
        return (self.action, self.player, self.amount, self.cards, self.forfeit)


def move_of(action: Action) -> dict[str, object]:
    """The :class:`ActionAccepted` fields of a rules action (betting or showdown)."""
    match action:
        case Fold(player=p, forfeit=f):
            return {"player": p, "action": "fold", "forfeit": f}
        case Check(player=p):
            return {"player": p, "action": "check"}
        case Call(player=p, amount=a):
            return {"player": p, "action": "call", "amount": a}
        case BetRaise(player=p, to=to):
            return {"player": p, "action": "bet_raise", "amount": to}
        case Show(player=p, cards=cards):
            return {"player": p, "action": "show", "cards": tuple(str(c) for c in cards)}
        case Muck(player=p):
            return {"player": p, "action": "muck"}
        case Kill(player=p, rule=rule):
            return {"player": p, "action": "kill", "rule": rule}
    raise ValueError(f"not a betting or showdown action: {type(action).__name__}")


def rules_action(event: ActionAccepted) -> Action:
    """The rules action an :class:`ActionAccepted` carries (for a host replaying the hand
    with :meth:`GameSetup.config` and ``Hand.replay``)."""
    p = event.player
    match event.action:
        case "fold":
            return Fold(p, event.forfeit)
        case "check":
            return Check(p)
        case "call":
            return Call(p, event.amount or 0)
        case "bet_raise":
            return BetRaise(p, event.amount or 0)
        case "show":
            return Show(p, tuple(Card.parse(c) for c in event.cards))
        case "muck":
            return Muck(p)
    return Kill(p, event.rule or "")


class BoardDealt(Frozen):
    """Community cards: the flop, the turn or the river."""

    kind: Literal["board"] = "board"
    hand_no: HandNo
    cards: tuple[CardText, ...]
    street: Literal["flop", "turn", "river"] | None = None


class CardBurned(Frozen):
    """A burn card went to the muck before a street (CARD-8); which card is on
    ``secure/cards`` only."""

    kind: Literal["burn"] = "burn"
    hand_no: HandNo


class ActionsUndone(Frozen):
    """The dealer took back the last actions of the street (DEAL-6), newest first: the
    hand is its log without them."""

    kind: Literal["actions_undone"] = "actions_undone"
    hand_no: HandNo
    actions: tuple[ActionAccepted, ...] = Field(min_length=1)
    reason: Text = ""


class ActionCorrected(Frozen):
    """The floor replaced entry ``index`` of the hand's log (deals count: it is the
    engine's log) and the hand was replayed from it."""

    kind: Literal["action_corrected"] = "action_corrected"
    hand_no: HandNo
    index: Count
    old: ActionAccepted
    new: ActionAccepted
    reason: Text = ""


class ActionHeld(Frozen):
    """An action out of turn is held (LIVE-12), or, ``released``, no longer binds."""

    kind: Literal["action_held"] = "action_held"
    hand_no: HandNo
    seat: SeatNo
    what: Annotated[str, Field(max_length=40)]
    released: bool = False


class HandShown(Frozen):
    """A hand tabled at the showdown with its name (``two pair, ...``)."""

    kind: Literal["hand_shown"] = "hand_shown"
    hand_no: HandNo
    player: Count
    cards: tuple[CardText, ...]
    description: Annotated[str, Field(max_length=120)] = ""


class PotAwarded(Frozen):
    """One pot after rake, with each winner's share ``(player, chips)`` (POT-2, POT-5)."""

    kind: Literal["pot_awarded"] = "pot_awarded"
    hand_no: HandNo
    amount: Chips
    shares: tuple[tuple[Count, Chips], ...]
    pot: Count = 0  # 0 the main pot, then the side pots


class HandEnded(Frozen):
    """The hand is settled; ``stacks`` after it, in the positions of :class:`HandStarted`."""

    kind: Literal["hand_ended"] = "hand_ended"
    hand_no: HandNo
    stacks: tuple[Chips, ...]
    rake: Chips = 0


class HandVoided(Frozen):
    """The hand in progress is void and every stack is back to its start (CRASH-1, DEAL-8);
    the next hand is dealt with the same layout."""

    kind: Literal["hand_voided"] = "hand_voided"
    hand_no: HandNo
    stacks: tuple[Chips, ...]
    reason: str


class MisdealDeclared(Frozen):
    """A misdeal (LIVE-25): the hand is void, bets go back (``stacks`` are the starting
    ones), and it is dealt again with the same layout, so the blinds stay posted."""

    kind: Literal["misdeal"] = "misdeal"
    hand_no: HandNo
    stacks: tuple[Chips, ...]
    reason: Text
    rule: RuleId | None = None


class Irregularity(Frozen):
    """Something the dealer must resolve (the floor may be called); never names a card."""

    kind: Literal["irregularity"] = "irregularity"
    hand_no: Count
    what: Annotated[str, Field(max_length=40)]
    reason: Text
    rule: RuleId | None = None
    seat: SeatNo | None = None
    choices: tuple[Annotated[str, Field(max_length=40)], ...] = ()


# ---------------------------------------------------------------------------- outside a hand
StackReason = Literal["colour_up", "rebuy", "add_on", "correction", "seat_change"]


class SeatAdjustment(Frozen):
    """One seat's stack before and after an adjustment."""

    seat: SeatNo
    before: Chips
    after: Chips


class StackAdjusted(Frozen):
    """Stacks changed between hands: a colour-up or chip race, a rebuy, an add-on, a
    floor correction, a seat change."""

    kind: Literal["stack_adjusted"] = "stack_adjusted"
    reason: StackReason
    seats: tuple[SeatAdjustment, ...] = Field(min_length=1)
    note: Text = ""
    command_id: Id | None = None


TableChange = Literal[
    "paused", "resumed", "level_set", "clock_called", "hand_for_hand",
    "colour_up_scheduled", "player_seated", "player_removed", "player_moved", "table_closed",
    "sat_out", "came_back", "player_busted", "hand_released", "clock_synced",
    "break_started", "break_ended", "penalty_served",
]


class ClockSnapshot(Frozen):
    """The table's clocks as of wall-clock time ``at`` (epoch seconds), journaled with
    every level change, break, pause and sync so that a restarted controller continues
    them (issue 5). ``seconds_left``: of the level or break (None while a synchronised
    break waits for the hand in play); ``held_s``: the level time a synchronised break
    holds (LEVEL-3); ``host``: the host runs this clock; ``stage``/``chips``: the players'
    time-bank extension chips."""

    at: float
    level: Annotated[int, Field(ge=1)]
    phase: Literal["level", "break", "break_due"]
    seconds_left: Annotated[float, Field(ge=0)] | None = None
    held_s: Annotated[float, Field(ge=0)] = 0.0
    synchronised: bool = False
    paused: bool = False
    host: bool = False
    stage: Annotated[str, Field(max_length=40)] | None = None
    chips: tuple[tuple[Id, Count], ...] = ()


class TableChanged(Frozen):
    """A change to the table outside a hand, usually the effect of a host command."""

    kind: Literal["table_changed"] = "table_changed"
    change: TableChange
    seat: SeatNo | None = None
    player: Id | None = None
    stack: Chips | None = None
    level: Annotated[int, Field(ge=1)] | None = None
    to_table: Id | None = None
    on: bool | None = None
    command_id: Id | None = None
    colour_up: tuple[Annotated[int, Field(ge=1)], ...] = ()  # break_started: chips leaving
    offset_s: float | None = None  # clock_synced: how far the table was off (+: ahead)
    clock: ClockSnapshot | None = None  # the clocks after this change (restart)
    # player_seated: what a moved player brought (PEN-5, TOURN-32; None: nothing);
    # penalty_served: the hands still to serve (PEN-4)
    extension_chips: Count | None = None
    penalty_hands: Count | None = None


class ShotClockReport(Frozen):
    """The shot clock at ``seat``: a time-bank ``extension`` spent (``seconds`` more,
    ``chips_left``), or the time ran out and it ``ruled`` (check, fold, dead_hand: CLOCK-3/9;
    the action itself follows as an ``action``)."""

    kind: Literal["shot_clock"] = "shot_clock"
    hand_no: Count
    seat: SeatNo
    what: Literal["extension", "ruled"]
    seconds: Annotated[float, Field(ge=0)] | None = None
    chips_left: Count | None = None
    ruling: Annotated[str, Field(max_length=16)] | None = None
    rule: RuleId | None = None


class SeatPresence(Frozen):
    """A player card arrived at or left its seat's reader (DEAL-5: at the seat)."""

    kind: Literal["presence"] = "presence"
    seat: SeatNo
    present: bool


class PlayerCheckedIn(Frozen):
    """A player card was read at ``seat``; ``assigned`` is where the floor seated that
    player (None: not at this table), so ``assigned != seat`` is a player in the wrong seat."""

    kind: Literal["checked_in"] = "checked_in"
    seat: SeatNo
    player: Id
    assigned: SeatNo | None


class DeckReport(Frozen):
    """The deck: a new one ``enrolled``, ``checked`` at the shuffle (CARD-1: counts only,
    no card names), or an ``unknown_card`` read at ``reader``."""

    kind: Literal["deck"] = "deck"
    what: Literal["enrolled", "checked", "unknown_card"]
    version: Count | None = None
    complete: bool | None = None
    missing: Count = 0
    duplicated: Count = 0
    unknown: Count = 0
    reader: Annotated[str, Field(max_length=40)] | None = None


PublicEvent = (
    HandStarted | HoleDealt | ActionAccepted | BoardDealt | CardBurned | ActionsUndone
    | ActionCorrected | ActionHeld | HandShown | PotAwarded | HandEnded | HandVoided
    | MisdealDeclared | Irregularity | StackAdjusted | TableChanged | SeatPresence
    | PlayerCheckedIn | DeckReport | ShotClockReport
)
EventBody = Annotated[PublicEvent, Field(discriminator="kind")]
HandStep = Annotated[HoleDealt | BoardDealt | ActionAccepted, Field(discriminator="kind")]


# ---------------------------------------------------------------------------- secret events
class HoleCardsDealt(Frozen):
    """What the table reports when it deals hole cards: secret, never public as is."""

    hand_no: HandNo
    player: Count
    cards: tuple[CardText | None, ...]  # None: a card nobody read

    def public(self) -> HoleDealt:
        """The public face of this event: who got how many cards."""
        return HoleDealt(hand_no=self.hand_no, player=self.player, count=len(self.cards))


class BurnedCard(Frozen):
    """A burn card as the table read it: secret, never public as is."""

    hand_no: HandNo
    card: CardText

    def public(self) -> CardBurned:
        """The public face: a card was burned."""
        return CardBurned(hand_no=self.hand_no)


SecretEvent = HoleCardsDealt | BurnedCard
