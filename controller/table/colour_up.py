"""The colour-up at the live table (issue 6; RULES.md §18, CHIPRACE-1..6).

The race is :class:`controller.chiprace.ChipRace` (pure); this module runs it at the table.
It starts by the dealer's ``colour_up`` key (the lowest chip in play leaves, now); by the
floor's ``ScheduleColourUp(at_level)`` (:meth:`ColourUp.schedule`: the lowest chip leaves
at the level clock's break before ``at_level``, or else the deal key of its first hand
starts the colour-up instead); or by a level-clock break that lists denominations
(``BreakStarted``, :meth:`ColourUp.on_break`). One that comes during a hand waits for it.

The stage is ``COLOUR_UP`` until the stacks are confirmed: no hand starts, no seat changes.
Each step is prompted on the blinds display and the seat lights
(:mod:`controller.table.colour_up_screen`), so players can watch (CHIPRACE-5):

1. COUNT: the dealer keys in each seat's leaving chips (:meth:`ColourUp.count`).
2. DEAL: one race card face up per odd chip (CHIPRACE-6.2), read at the seat readers with
   the deck's UID map, or keyed in when a reader fails (:meth:`ColourUp.key_card`). An
   unknown UID is reported, never guessed; a card at a seat due none, or seen twice,
   opens a prompt: take it back, or deal the race again (also the ``misdeal`` key).
3. AWARD: the cards are ranked (rank, then suit: CHIPRACE-6.3); the ``deal`` key says the
   chips were handed out.
4. CONFIRM: the ``deal`` key confirms the new stacks. They are journaled and sent as ONE
   event (``StackAdjusted``, ``reason`` "colour_up", with a one-line note), then the
   roster takes them and the leaving chips are out of play.

Every step is journaled too (``ColourUpStarted``, ``ChipsCounted``, ``RaceCardDealt``,
``RaceDealtAgain``, ``RaceChipsAwarded``, ``ColourUpStepUndone``, ``ColourUpCancelled``):
a dispute about a chip race is settled from the record.

``undo`` takes back the last step (with none, it calls the colour-up off).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from controller.chiprace import (
    DEFAULT_SUIT_ORDER,
    ChipRace,
    ChipSet,
    ColourUpResult,
    Phase,
    Rounding,
    Start,
)
from controller.chiprace.chips import check_settings
from controller.devices.interfaces import BlindsDisplay, LightState
from controller.events import (
    ChipsCounted,
    ColourUpCancelled,
    ColourUpScheduled,
    ColourUpStarted,
    ColourUpStepUndone,
    RaceCardDealt,
    RaceChipsAwarded,
    RaceDealtAgain,
    SeatAdjustment,
    StackAdjusted,
)
from controller.rules.cards import Card
from controller.rules.errors import RulesError

from .base import WORD, Choice, Prompt, Stage, clip
from .colour_up_screen import Screen, pixels_of, prompt_screen, render_screen, seat_lights
from .ports import HandView, Refuse, Sink
from .seats import Roster

DEFAULT_CHIP_SET: Final = ChipSet.of({  # [conv] any whole stack fits; a house sets its own
    1: "white", 5: "red", 25: "green", 100: "black", 500: "purple", 1000: "yellow",
    5000: "orange", 25000: "grey", 100000: "pink"})
RACE_MISDEAL: Final = Choice("misdeal", "take every race card back and deal the race again",
                             "CHIPRACE-6")
TAKE_BACK: Final = Choice("continue", "take the card back and deal on", "CHIPRACE-6")


@dataclass(frozen=True)
class ColourUpSettings:
    """The table's chips in play and how its races are run (CHIPRACE-2, CHIPRACE-6)."""

    chip_set: ChipSet = DEFAULT_CHIP_SET
    start: Start = "seat_1"  # CHIPRACE-2; "left_of_dealer": left of the button (house)
    rounding: Rounding = "half_up"  # CHIPRACE-6.4
    suit_order: str = DEFAULT_SUIT_ORDER  # CHIPRACE-6.3, lowest first
    deal_when_decided: bool = False  # deal cards even when they cannot change the outcome
    strict_order: bool = False  # refuse a race card out of the clockwise order

    def __post_init__(self) -> None:
        check_settings(self.start, self.rounding, self.suit_order)


# ---------------------------------------------------------------- what it is given
class OpenPrompt:
    """The hand's prompt desk, as far as the colour-up uses it: race problems are prompts
    the dealer answers like any other (the ``Choose`` intent)."""

    def __init__(self, prompt: Callable[..., None], prompts: Callable[[], list[Prompt]],
                 close: Callable[[Sequence[Prompt]], None]) -> None:
        self.open = prompt
        self.all = prompts
        self.close = close


@dataclass(frozen=True, slots=True)
class ColourUpPorts:
    """What the colour-up is given of the table: the hand (read-only), the seats, the
    journal, refusals, prompts, the level in force, the blinds display it draws over and
    the seat lights it plans."""

    view: HandView
    roster: Roster
    emit: Sink
    reject: Refuse
    prompts: OpenPrompt
    level_no: Callable[[], int]
    levels: Callable[[], int]
    blinds: BlindsDisplay
    lights: Callable[[], Mapping[int, object]]
    lights_changed: Callable[[], None]


class ColourUp:
    """The table's colour-up flow (see the module docstring)."""

    def __init__(self, ports: ColourUpPorts, settings: ColourUpSettings | None = None) -> None:
        self.p = ports
        self.settings = settings or ColourUpSettings()
        self.chip_set = self.settings.chip_set  # in play now: a colour-up removes chips
        self.race: ChipRace | None = None
        self.trigger = ""
        self.scheduled: int | None = None  # the level the floor's colour-up is due at
        self.pending: tuple[tuple[int, ...], str] | None = None  # waits for the hand
        self._prompts: list[Prompt] = []  # the table prompts the race opened
        self._screen: Screen | None = None
        self._drawn_over: object = None  # the blinds frame the last screen covered

    # ================================================================ triggers
    def start(self, leaving: Iterable[int] | None = None, trigger: str = "dealer") -> bool:
        """Start a colour-up now; ``leaving`` defaults to the lowest chip in play."""
        t = self.p
        if self.race is not None:
            return t.reject("a colour-up is under way: finish it first", "CHIPRACE-1",
                            "colour_up")
        if t.view.stage is not Stage.IDLE:
            if trigger != "dealer" and t.view.stage is not Stage.ENROLLING:
                self.pending = (tuple(leaving or ()), trigger)  # after the hand in play
                return True
            return t.reject(f"a colour-up waits until the table is between hands "
                            f"({t.view.stage} now)", "CHIPRACE-1", "colour_up")
        values = tuple(leaving or ()) or (self.chip_set.lowest.value,)
        stacks = {s.number: s.stack for s in t.roster.occupied() if s.stack > 0}
        if not stacks:
            return t.reject("nobody has chips at this table: nothing to colour up",
                            "CHIPRACE-1", "colour_up")
        button = (t.view.previous.button if t.view.previous is not None
                  else t.view.button)
        s = self.settings
        try:
            race = ChipRace(self.chip_set, values, stacks=stacks,
                            seats_in_order=sorted(t.roster.seats), dealer_seat=button,
                            start=s.start, rounding=s.rounding, suit_order=s.suit_order,
                            deal_when_decided=s.deal_when_decided,
                            strict_order=s.strict_order)
        except RulesError as exc:
            return t.reject(f"cannot colour up: {exc.reason}", exc.rule, "colour_up")
        order = tuple(seat for seat, _ in race.expect().due)
        t.emit(ColourUpStarted(leaving=tuple(sorted(set(values), reverse=True)),
                               trigger=clip(trigger, WORD), seats=order))
        self.race, self.trigger, self.pending = race, trigger, None
        return True

    def schedule(self, level: int) -> bool:
        """The floor's colour-up of the lowest chips before the first hand of ``level``."""
        t = self.p
        if level <= t.level_no():
            return t.reject(f"level {level} has begun already (the table is at level "
                            f"{t.level_no()}); colour up now with the colour_up key",
                            "CHIPRACE-1", "colour_up")
        if level > t.levels():
            return t.reject(f"the table's structure has {t.levels()} levels, not {level}",
                            "LEVEL-6", "colour_up")
        t.emit(ColourUpScheduled(level=level))
        self.scheduled = level
        return True

    def on_break(self, after_level: int, denominations: Iterable[int] = ()) -> bool:
        """The level clock's break after ``after_level`` began: colour up the
        ``denominations`` it lists, or the floor's colour-up due at the next level."""
        leaving = tuple(denominations)
        due = self.scheduled is not None and self.scheduled == after_level + 1
        if self.race is not None or not (leaving or due):
            return False
        if due:
            self.scheduled = None
        return self.start(leaving or None, "break" if leaving else "floor")

    def allows_hand(self) -> bool:
        """The gate at the deal key: no hand during a colour-up; a colour-up due now
        (scheduled for this level, or a break's that waited for the hand) starts instead."""
        t = self.p
        if self.race is not None:
            t.reject(f"finish the colour-up first: {self.race.next_prompt().title}",
                     "CHIPRACE-1", "deal")
            return False
        if self.pending is not None:
            leaving, trigger = self.pending
            self.pending = None
            self.start(leaving or None, trigger)
            return False
        if self.scheduled is not None and t.level_no() >= self.scheduled:
            self.scheduled = None  # one attempt: a refusal (reason shown) lets play go on
            self.start(None, "floor")
            return False
        return True

    # ================================================================ the dealer's input
    def key(self, name: str) -> bool:
        """A console key; True if the colour-up took it (the table handles the others)."""
        if name == "colour_up":
            if self.race is None:
                self.start(None, "dealer")
            else:
                self.p.reject("a colour-up is under way: finish it first",
                                  "CHIPRACE-1", "colour_up")
            return True
        race = self.race
        if race is None:
            return False
        if name == "deal":
            if race.phase is Phase.AWARD:
                self.award()
            elif race.phase is Phase.CONFIRM:
                self.confirm()
            else:
                self.p.reject(f"the colour-up waits for: {race.next_prompt().text}",
                                  "CHIPRACE-6", "deal")
            return True
        if name == "undo":
            self.undo()
            return True
        if name == "misdeal":
            if any("misdeal" in p.actions for p in self.p.prompts.all()):
                return False  # the open prompt's choice: the table resolves it
            self.misdeal("the dealer declared a misdeal of the race")
            return True
        return False

    def count(self, seat: int, chips: int | Mapping[int, int]) -> bool:
        """The dealer keyed in ``seat``'s leaving chips: how many (one denomination
        leaving) or ``{value: how many}``; a recount replaces the count (CHIPRACE-1)."""
        t, race = self.p, self.race
        if race is None:
            return t.reject("no colour-up is under way", "CHIPRACE-1", "colour_up")
        if isinstance(chips, int):
            if len(race.leaving) != 1:
                return t.reject("several denominations leave: key in each one's count",
                                "CHIPRACE-1", "colour_up")
            chips = {race.leaving[0]: chips}
        try:
            exchange = race.verify_count(seat, chips)
        except RulesError as exc:
            return t.reject(exc.reason, exc.rule, "colour_up")
        t.emit(ChipsCounted(seat=seat, chips=exchange.counted))
        race.count(seat, chips)
        return True

    def key_card(self, seat: int, card: str | int) -> bool:
        """The dealer keys in a race card the seat's reader did not read."""
        t = self.p
        try:
            parsed = Card.parse(card) if isinstance(card, str) else Card(card)
            if self.race is None:
                return t.reject("no colour-up is under way", "CHIPRACE-1", "colour_up")
            self.race.verify_deal(seat, parsed)
        except RulesError as exc:
            return t.reject(exc.reason, exc.rule, "colour_up")
        self._deal(seat, parsed, keyed=True)
        return True

    def card_at_seat(self, seat: int, card: Card, seen_at_seat: int | None) -> None:
        """A race card read at ``seat``'s reader (the table routes reads here during a
        colour-up); ``seen_at_seat``: another seat's reader had it last."""
        race = self.race
        if race is None:
            return
        dealt = {rc.card: rc.seat for rc in race.cards}
        if dealt.get(card) == seat:
            return  # its own race card read again
        if card in dealt or (seen_at_seat is not None and seen_at_seat != seat):
            other = dealt.get(card, seen_at_seat or 0)
            self._problem("two_readers", f"the card was seen at seat {other} and now at seat "
                          f"{seat}: one deck, one card in one place", "CARD-1", seat, card)
            return
        if race.phase is not Phase.DEAL:
            self._problem("wrong_place", f"a card reached seat {seat}, but no race card is "
                          f"due ({race.phase})", "CHIPRACE-6", seat, card)
            return
        due = dict(race.expect().due)
        if seat not in due:
            racing = race.plan is not None and any(s.seat == seat for s in race.plan.racers)
            kind, why = (("too_many", f"seat {seat} has its race cards already") if racing
                         else ("empty_seat", f"seat {seat} has no odd chips and gets no "
                               "race card"))
            self._problem(kind, why, "CHIPRACE-6", seat, card)
            return
        try:
            race.verify_deal(seat, card)
        except RulesError as exc:
            self._problem("out_of_order", exc.reason, exc.rule, seat, card)
            return
        self._deal(seat, card, keyed=False)

    def _deal(self, seat: int, card: Card, *, keyed: bool) -> None:
        assert self.race is not None
        self.p.emit(RaceCardDealt(seat=seat, card=str(card), keyed=keyed))  # face up
        self.race.deal(seat, card, keyed=keyed)

    def _problem(self, kind: str, reason: str, rule: str | None, seat: int,
                 card: Card) -> None:
        def again() -> None:
            self.misdeal(f"the dealer chose to deal the race again ({kind})")

        options: list[tuple[Choice, Callable[[], None]]] = [(TAKE_BACK, lambda: None)]
        if self.race is not None and self.race.cards:
            options.append((RACE_MISDEAL, again))
        self.p.prompts.open(kind, reason, rule, seat, options, cards=(card,))
        self._prompts.append(self.p.prompts.all()[-1])

    def misdeal(self, reason: str) -> bool:
        """Take every race card back: the race is dealt again."""
        t, race = self.p, self.race
        if race is None or not race.can_misdeal():
            return t.reject("no race card to take back", "CHIPRACE-6", "misdeal")
        t.emit(RaceDealtAgain(reason=clip(reason)))
        race.misdeal(reason)
        self._close_prompts()
        return True

    def award(self) -> bool:
        """The dealer handed the raced chips out (CHIPRACE-1, -3, -6.3)."""
        t, race = self.p, self.race
        if race is None:
            return t.reject("no colour-up is under way", "CHIPRACE-1", "colour_up")
        try:
            result = race.verify_award()
        except RulesError as exc:
            return t.reject(exc.reason, exc.rule, "colour_up")
        t.emit(RaceChipsAwarded(
            chip=result.plan.race_chip.value,
            winners=tuple((a.seat, None if a.card is None else str(a.card))
                          for a in result.awards),
            rescued=tuple(s.seat for s in result.seats if s.rescued)))
        race.award()
        self._close_prompts()
        return True

    def confirm(self) -> bool:
        """The new stacks are confirmed: journaled and sent as one event, then in play."""
        t, race = self.p, self.race
        if race is None:
            return t.reject("no colour-up is under way", "CHIPRACE-1", "colour_up")
        try:
            result = race.verify_confirm()
        except RulesError as exc:
            return t.reject(exc.reason, exc.rule, "colour_up")
        plan = result.plan
        t.emit(StackAdjusted(reason="colour_up", note=clip(self.note(result)), seats=tuple(
            SeatAdjustment(seat=s.seat, before=s.stack_before, after=s.stack_after)
            for s in result.seats)))  # the colour-up as ONE event
        race.confirm()
        for s in result.seats:
            t.roster[s.seat].stack = s.stack_after
        self.chip_set = plan.remaining
        self._finish()
        return True

    def undo(self) -> bool:
        """Take back the last step; with none, the colour-up is called off."""
        t, race = self.p, self.race
        if race is None:
            return t.reject("no colour-up is under way", "CHIPRACE-1", "undo")
        if not race.log:
            return self.cancel("the dealer's undo key before the first count")
        step = race.log[-1]
        t.emit(ColourUpStepUndone(what=clip(type(step).__name__, WORD)))
        race.undo()
        self._close_prompts()
        return True

    def cancel(self, reason: str) -> bool:
        """Call the colour-up off before the stacks are confirmed; nothing changes."""
        t = self.p
        if self.race is None:
            return t.reject("no colour-up is under way", "CHIPRACE-1", "colour_up")
        t.emit(ColourUpCancelled(reason=clip(reason)))
        self._finish()
        return True

    def _finish(self) -> None:
        self.race = None
        self._close_prompts()

    def _close_prompts(self) -> None:
        if self._prompts:
            self.p.prompts.close(self._prompts)
            self._prompts.clear()
            self.p.lights_changed()

    def smallest_count(self, seat: int) -> dict[int, int]:
        """The fewest leaving chips ``seat``'s stack can hold: what is left must be whole
        chips still in play (a virtual dealer's count; a real one counts the chips)."""
        race, stack = self.race, self.p.roster[seat].stack
        if race is None:
            return {}
        rest = stack % self.chip_set.without(race.leaving).unit
        count: dict[int, int] = {}
        for value in (v for v in race.leaving if v <= rest):
            count[value], rest = divmod(rest, value)
        return count

    # ================================================================ what it shows
    def note(self, result: ColourUpResult) -> str:
        """The colour-up in one line for the journal and the floor."""
        plan = result.plan
        chip = plan.race_chip.label
        gone = " + ".join(plan.chip_set.label(v) for v in sorted(plan.leaving))
        parts = [f"{gone} left play; {plan.chips_raced} x {chip} raced "
                 f"({plan.odd_value} in odd chips)"]
        if result.awards:
            parts.append("won: " + ", ".join(
                f"seat {a.seat}" + (f" {a.card}" if a.card is not None else "")
                for a in result.awards))
        rescued = [s.seat for s in result.seats if s.rescued]
        if rescued:
            parts.append(f"one {chip} so as not to be raced out (CHIPRACE-3): seat "
                         + ", ".join(str(s) for s in rescued))
        keyed = [rc for rc in result.cards if rc.keyed]
        if keyed:
            parts.append("keyed in: " + ", ".join(f"seat {rc.seat} {rc.card}" for rc in keyed))
        return "; ".join(parts)

    def screen(self) -> Screen | None:
        """The prompt screen for the step the colour-up is at (None: no colour-up)."""
        if self.race is None:
            return None
        frame = self.p.blinds.frame
        problem = next((p for p in reversed(self.p.prompts.all())
                        if any(p is q for q in self._prompts)), None)
        return prompt_screen(self.race, self.chip_set, problem,
                             frame.seconds_left if frame is not None else None)

    def light_plan(self) -> dict[int, LightState] | None:
        """The seat lights during a colour-up (None: the table's own plan applies)."""
        if self.race is None:
            return None
        return seat_lights(self.race, self.p.lights(), self.p.prompts.all())

    def refresh(self) -> None:
        """Draw the prompt screen over the blinds display (after the table's refresh);
        when the colour-up is over, the blinds frame comes back. A colour-up that
        waited for the hand in play starts once the table is between hands."""
        if self.race is None and self.pending is None and self._screen is None:
            return  # no colour-up: the table's frame is on the display
        t = self.p
        if self.pending is not None and self.race is None and t.view.stage is Stage.IDLE:
            leaving, trigger = self.pending
            self.pending = None
            self.start(leaving or None, trigger)
            return
        blinds = t.blinds
        frame = blinds.frame
        screen = self.screen()
        if screen is None:
            if self._screen is not None:
                self._screen = self._drawn_over = None
                if frame is not None:
                    blinds.show(frame)  # draw the table's frame again
            return
        if screen == self._screen and frame is self._drawn_over:
            return
        self._screen, self._drawn_over = screen, frame
        device = pixels_of(blinds)
        if device is not None:
            device.display(render_screen(screen, device.size, device.mode))
