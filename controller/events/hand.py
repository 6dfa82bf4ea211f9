"""The hand in play: from ``hand_started`` to ``hand_ended`` (or its void), every step.

Hole and burn cards are never in a public event: :class:`HoleCardsDealt` and
:class:`BurnedCard` are the secret events the table hands the journal, which splits each
into its public face (:class:`HoleDealt`, :class:`CardBurned`) on ``event`` and the hidden
cards on ``secure/cards``, with the same seq.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from controller.rules.actions import Action, BetRaise, Call, Check, Fold, Kill, Muck, Show
from controller.rules.cards import Card

from .base import CardText, Chips, Count, Frozen, HandNo, LevelNo, RuleId, SeatNo, Text, Word
from .game import GameSetup
from .inputs import CardSeen


class HandStarted(Frozen):
    """A hand began; ``seats`` in position order, ``stacks`` before the forced bets.

    ``config`` is the whole game setup (None: the table did not give it; a host then
    replays No-Limit with the blinds); ``button``, ``small_blind_seat`` and
    ``big_blind_seat`` the layout (BTN-1..7); ``level`` the blind level in force."""

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
    level: LevelNo | None = None
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

    @classmethod
    def of(cls, hand_no: int, action: Action, **live: object) -> ActionAccepted:
        """The event of a rules action (betting or showdown) in hand ``hand_no``; ``live``
        adds the live-rule fields (``forfeited``, ``returned``, ``owed``, ``rule``,
        ``source``)."""
        return cls.model_validate({"hand_no": hand_no, **move_of(action), **live})

    def rules_action(self) -> Action:
        """The rules action this event carries (for a host replaying the hand with
        :meth:`GameSetup.config` and ``Hand.replay``)."""
        p = self.player
        match self.action:
            case "fold":
                return Fold(p, self.forfeit)
            case "check":
                return Check(p)
            case "call":
                return Call(p, self.amount or 0)
            case "bet_raise":
                return BetRaise(p, self.amount or 0)
            case "show":
                return Show(p, tuple(Card.parse(c) for c in self.cards))
            case "muck":
                return Muck(p)
            case "kill":
                return Kill(p, self.rule or "")


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


class ReplayedStep(Frozen):
    """A later entry of the hand's log as the replay after a correction made it (a call
    after a corrected bet puts in the new amount)."""

    index: Count
    step: ActionAccepted


class ActionCorrected(Frozen):
    """The floor replaced entry ``index`` of the hand's log (deals count: it is the
    engine's log) and the hand was replayed from it; ``replayed``: the later entries the
    replay changed, each at its index (the log after it must match the engine's)."""

    kind: Literal["action_corrected"] = "action_corrected"
    hand_no: HandNo
    index: Count
    old: ActionAccepted
    new: ActionAccepted
    reason: Text = ""
    replayed: tuple[ReplayedStep, ...] = ()


class ActionHeld(Frozen):
    """An action out of turn is held (LIVE-12), or, ``released``, no longer binds."""

    kind: Literal["action_held"] = "action_held"
    hand_no: HandNo
    seat: SeatNo
    what: Word
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
    """Something the dealer must resolve (the floor may be called); never names a card.
    ``hand_no`` 0: outside a hand."""

    kind: Literal["irregularity"] = "irregularity"
    hand_no: Count
    what: Word
    reason: Text
    rule: RuleId | None = None
    seat: SeatNo | None = None
    choices: tuple[Word, ...] = ()


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


SecretEvent = HoleCardsDealt | BurnedCard | CardSeen
"""What the journal splits: its public face on ``event``, its cards on ``secure/cards``."""
HandStep = Annotated[HoleDealt | BoardDealt | ActionAccepted, Field(discriminator="kind")]
"""An entry of the hand's log in public: a deal, a board, an action (the engine's log)."""
