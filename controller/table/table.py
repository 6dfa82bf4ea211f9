"""The live table: device events and console keys in, rules actions through the engine,
typed events out to the journal, then the displays (DESIGN.md data flow).

One :class:`Table` runs one physical table. It is synchronous: ``handle(event)`` takes one
device event, the console methods take the dealer's input, ``pump()`` polls the hardware
and handles what came. Everything the table accepts goes to the injected ``sink`` first;
lights and the blinds display change only after.

Card reads are routed by :mod:`controller.table.reads`; the showdown, pot awards, undo and
corrections by :mod:`controller.table.showdown`.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable, Sequence
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Concatenate, ParamSpec, TypeVar

from controller.devices.events import CardArrived, CardLeft, DeviceEvent, KeyPressed
from controller.devices.interfaces import BEEP_ERROR, BlindsFrame, Clock
from controller.rules.button import Positions, first_hand, initial_button, next_hand
from controller.rules.cards import DECK, Card
from controller.rules.config import HOLE_CARDS, LIVE_CASH, RulesProfile, Variant
from controller.rules.errors import RulesError
from controller.rules.hand import Hand
from controller.rules.live import Decision, Declaration, Word
from controller.rules.rake import RakePolicy

from . import betting, reads, showdown
from .betting import Held, Pushed
from .dealing import HandReads
from .deck import DeckCount, DeckMap, Enrolment
from .events import (
    CameBack,
    Choice,
    DeckChecked,
    DeckEnrolled,
    HandStarted,
    Irregularity,
    LevelChanged,
    MisdealDeclared,
    Rejected,
    SatOut,
    SeatLeft,
    SeatTaken,
    Sink,
    TableEvent,
    is_secret,
)
from .lights import Level, SeatLights, blinds_frame, light_plan
from .seats import Roster, SeatError

if TYPE_CHECKING:  # the table is handed its hardware; it never builds it (DESIGN rooms)
    from controller.devices.hardware import TableHardware

log = logging.getLogger("pitboss.table")

MISDEAL = Choice("misdeal", "declare a misdeal: gather, reshuffle, deal again", "LIVE-25")
CONTINUE = Choice("continue", "carry on: the dealer puts it right", None)


P = ParamSpec("P")
R = TypeVar("R")


def console(method: Callable[Concatenate[Table, P], R]) -> Callable[Concatenate[Table, P], R]:
    """A dealer or floor input: once it is handled (and journaled), the displays follow."""

    def run(self: Table, /, *args: P.args, **kwargs: P.kwargs) -> R:
        self._depth += 1
        try:
            return method(self, *args, **kwargs)
        finally:
            self._depth -= 1
            if not self._depth and not self._quiet:
                self.refresh()

    functools.update_wrapper(run, method)
    return run


class Stage(StrEnum):
    """Where the table is, from the dealer's point of view."""

    IDLE = "idle"  # between hands: seats change, the deck is counted or enrolled
    ENROLLING = "enrolling"  # a new deck is read card by card at the deck reader
    DEALING = "dealing"  # hole cards going out
    PLAYING = "playing"  # betting rounds and board cards
    SHOWDOWN = "showdown"
    AWARDING = "awarding"  # pots wait for the dealer's confirmation


def nothing() -> None:
    """A choice that needs nothing from the table: the dealer puts it right by hand."""


class Prompt:
    """An open irregularity and what each of its choices does."""

    __slots__ = ("actions", "event")

    def __init__(self, event: Irregularity, actions: dict[str, Callable[[], None]]) -> None:
        self.event = event
        self.actions = actions


class Table:
    """One live table on its hardware."""

    def __init__(
        self,
        hardware: TableHardware,
        *,
        sink: Sink,
        levels: Sequence[Level],
        deck: DeckMap | None = None,
        deck_path: str | Path | None = None,
        profile: RulesProfile = LIVE_CASH,
        variant: Variant = Variant.NT,
        tournament: bool = False,
        rake: RakePolicy | None = None,
        clock: Clock | None = None,
    ) -> None:
        if not levels:
            raise ValueError("a table needs at least one blind level")
        self.hardware = hardware
        self.sink = sink
        self.levels = tuple(levels)
        self.profile = profile
        self.variant = variant
        self.tournament = tournament
        self.rake = None if tournament else rake  # RAKE-9: tournaments are not raked
        self.clock: Clock = clock or hardware.clock
        self.deck_path = Path(deck_path) if deck_path is not None else None
        if deck is None and self.deck_path is not None and self.deck_path.exists():
            deck = DeckMap.load(self.deck_path)
        self.deck = deck
        seat_numbers = sorted(hardware.lights)
        self.roster = Roster(len(seat_numbers))
        self.lights = SeatLights(hardware.lights)
        self.stage = Stage.IDLE
        self.hand_no = 0
        self.hand: Hand | None = None
        self.positions: Positions | None = None
        self.reads: HandReads | None = None
        self.held: dict[int, Held] = {}  # by position, out of turn (LIVE-12)
        self.forfeits: dict[int, int] = {}  # by position: chips left in the pot on a fold
        self.prompts: list[Prompt] = []
        self.awarded = 0  # pots confirmed so far in AWARDING
        self.level_no = 1
        self.level_started = self.clock()
        self.hand_level: Level = self.levels[0]
        self.button: int | None = None  # the first hand's button (BTN-1, BTN-4 draw)
        self.previous: Positions | None = None
        self.redeal: Positions | None = None  # after a misdeal: the same positions again
        self.enrolment: Enrolment | None = None
        self.count: DeckCount | None = None
        self.where: dict[bytes, str] = {}  # uid -> the card reader it lies on now
        self.seat_reader = {spec.cards.name: spec.number for spec in hardware.profile.seats}
        self.player_reader = {spec.player.name: spec.number for spec in hardware.profile.seats}
        self.board_readers = frozenset(r.name for r in hardware.profile.board)
        self.muck_reader = hardware.profile.muck.name
        self.deck_reader = hardware.profile.deck.name
        self._shown_blinds: BlindsFrame | None = None
        self._depth = 0  # console calls under way (the displays follow the outermost)
        self._quiet = False  # pump(): one refresh after the whole batch
        self._changed = True  # something the lights show may have changed
        self._lit: tuple[object, ...] = ()  # what the lights were last told to show
        self.refresh()

    # ================================================================ plumbing
    def emit(self, event: TableEvent) -> None:
        """To the journal first; logged without secrets."""
        self.sink(event)
        self._changed = True
        if is_secret(event):
            log.debug("%s (secret, seat %s)", type(event).__name__, getattr(event, "seat", "-"))
        elif isinstance(event, Rejected | Irregularity):
            log.info("%s: %s", type(event).__name__, event.reason)

    def reject(self, reason: str, rule: str | None = None, source: str = "") -> bool:
        self.emit(Rejected(reason, rule, source))
        self.hardware.buzzer.beep(BEEP_ERROR)
        return False

    def prompt(self, kind: str, reason: str, rule: str | None, seat: int | None,
               options: Sequence[tuple[Choice, Callable[[], None]]],
               cards: tuple[Card, ...] = ()) -> None:
        event = Irregularity(self.hand_no, kind, reason, rule, seat,
                             tuple(c for c, _ in options), cards)
        self.prompts.append(Prompt(event, {c.key: fn for c, fn in options}))
        self.emit(event)
        self.hardware.buzzer.beep(BEEP_ERROR)

    def seat_of(self, position: int) -> int:
        assert self.positions is not None
        return self.positions.dealt[position]

    def position_of(self, seat: int) -> int | None:
        if self.positions is None or seat not in self.positions.dealt:
            return None
        return self.positions.dealt.index(seat)

    # ================================================================ input
    def pump(self) -> int:
        """Poll the hardware, handle every event, refresh the displays; return the count."""
        events = self.hardware.poll()
        for event in events:
            self.handle(event, refresh=False)
        self.tick()
        return len(events)

    async def run(self, *, tick_s: float = 0.25) -> None:
        """Handle the hardware's events as they come, and keep the level clock and its
        display ticking, on the running loop until cancelled. Run ``hardware.run()``
        alongside: it scans the readers."""
        async with asyncio.TaskGroup() as tg:
            tg.create_task(self._consume(), name="table-events")
            tg.create_task(self._ticker(tick_s), name="table-tick")

    async def _consume(self) -> None:
        async for event in self.hardware.events():
            self.handle(event)

    async def _ticker(self, tick_s: float) -> None:
        while True:
            self.tick()
            await asyncio.sleep(tick_s)

    def handle(self, event: DeviceEvent, *, refresh: bool = True) -> None:
        """One device event; the displays follow unless ``refresh`` is False."""
        self._quiet = not refresh
        try:
            if isinstance(event, CardArrived):
                reads.card_arrived(self, event.reader, event.uid)
            elif isinstance(event, CardLeft):
                reads.card_left(self, event.reader, event.uid)
            elif isinstance(event, KeyPressed):
                self.key(event.key)
        except RulesError as exc:  # the engine refused: say why, change nothing more
            self.reject(exc.reason, exc.rule, type(event).__name__)
        finally:
            self._quiet = False
        if refresh:
            self.refresh()

    @console
    def key(self, name: str) -> None:
        """A console key: ``deal`` starts a hand, shows the next hand or confirms a pot;
        ``undo`` takes back the last action; ``misdeal``; ``next_level``. ``pause`` and
        ``call_clock`` belong to the clocks and are not handled here."""
        if name == "deal":
            if self.stage is Stage.IDLE:
                self.start_hand()
            elif self.stage is Stage.SHOWDOWN:
                self.show()
            elif self.stage is Stage.AWARDING:
                self.confirm()
            else:
                self.reject(f"the deal key does nothing while {self.stage}", None, "deal")
        elif name == "undo":
            self.undo(1, "dealer's undo key")
        elif name == "misdeal":
            self.resolve("misdeal")
        elif name == "next_level":
            self.next_level()

    # ================================================================ seats
    def _between_hands(self, what: str) -> bool:
        if self.stage not in (Stage.IDLE, Stage.ENROLLING):
            return self.reject(f"{what} waits until the hand is over", None, "seats")
        return True

    @console
    def take_seat(self, seat: int, player: str, stack: int) -> bool:
        if not self._between_hands("taking a seat"):
            return False
        try:
            self.roster.take(seat, player, stack)
        except SeatError as exc:
            return self.reject(str(exc), None, "seats")
        self.emit(SeatTaken(seat, player, stack))
        return True

    @console
    def leave_seat(self, seat: int) -> bool:
        if not self._between_hands("leaving"):
            return False
        try:
            left = self.roster.leave(seat)
        except SeatError as exc:
            return self.reject(str(exc), None, "seats")
        self.emit(SeatLeft(seat, left.player, left.stack))
        return True

    @console
    def sit_out(self, seat: int) -> bool:
        try:
            self.roster.sit_out(seat)
        except SeatError as exc:
            return self.reject(str(exc), None, "seats")
        self.emit(SatOut(seat))
        return True

    @console
    def come_back(self, seat: int) -> bool:
        try:
            self.roster.come_back(seat)
        except SeatError as exc:
            return self.reject(str(exc), None, "seats")
        self.emit(CameBack(seat))
        return True

    def assign(self, card_uid: bytes, player: str, seat: int) -> bool:
        """The floor's seat assignment, checked when the player card is read."""
        try:
            self.roster.assign(card_uid, player, seat)
        except SeatError as exc:
            return self.reject(str(exc), None, "seats")
        return True

    # ================================================================ deck
    @console
    def begin_enrolment(self, order: Sequence[int] | None = None) -> bool:
        """Read a new deck at the deck reader one card at a time: 2c 2d 2h 2s 3c ... As,
        or in the ``order`` the dealer states."""
        if not self._between_hands("enrolling a deck"):
            return False
        try:
            self.enrolment = Enrolment(self.deck.version if self.deck else 0,
                                       DECK if order is None else order)
        except ValueError as exc:
            return self.reject(str(exc), "CARD-1", "deck")
        self.stage = Stage.ENROLLING
        return True

    @console
    def finish_enrolment(self) -> bool:
        if self.enrolment is None:
            return self.reject("no deck is being enrolled", None, "deck")
        try:
            deck = self.enrolment.finish()
        except ValueError as exc:
            return self.reject(str(exc), "CARD-1", "deck")
        if self.deck_path is not None:
            deck.save(self.deck_path)
        self.deck = deck
        self.enrolment = None
        self.stage = Stage.IDLE
        self.emit(DeckEnrolled(deck.version, deck.digest))
        return True

    def _finish_count(self) -> None:
        if self.count is None or not self.count.reads:
            self.count = None
            return
        complete, missing, twice, unknown = self.count.result()
        self.count = None
        self.emit(DeckChecked(complete, missing, twice, unknown))

    # ================================================================ levels
    @property
    def level(self) -> Level:
        return self.levels[min(self.level_no, len(self.levels)) - 1]

    @console
    def next_level(self) -> None:
        if self.level_no >= len(self.levels):
            self.reject("this is the last level of the structure", None, "next_level")
            return
        self.level_no += 1
        self.level_started = self.clock()
        lv = self.level
        self.emit(LevelChanged(self.level_no, lv.small_blind, lv.big_blind, lv.ante))

    def seconds_left(self) -> float | None:
        seconds = self.level.seconds
        return None if seconds is None else seconds - (self.clock() - self.level_started)

    def tick(self) -> None:
        """Move the level on when its time is up (a hand keeps the level it began in:
        DEAL-4), then refresh the displays."""
        left = self.seconds_left()
        if left is not None and left <= 0 and self.level_no < len(self.levels):
            self.next_level()
        self.refresh()

    # ================================================================ hand start
    @console
    def start_hand(self) -> bool:
        """The dealer's first shuffle is done: start the next hand (DEAL-4)."""
        if self.stage is not Stage.IDLE:
            return self.reject(f"a hand is already under way ({self.stage})", "DEAL-4", "deal")
        if self.deck is None:
            return self.reject("no deck is enrolled: enrol one at the deck reader", "CARD-1",
                               "deal")
        self._finish_count()
        level = self.level
        ante = level.ante if self.tournament else 0
        try:
            positions = self._next_positions()
            stacks = {s.number: s.stack for s in self.roster.occupied()}
            config = positions.game_config(self.variant, stacks, level.small_blind,
                                           level.big_blind, big_blind_ante=ante,
                                           rake=self.rake)
            hand = Hand(config, self.profile)
        except RulesError as exc:
            return self.reject(exc.reason, exc.rule, "deal")
        self.redeal = None
        self.hand_no += 1
        self.hand, self.positions, self.hand_level = hand, positions, level
        self.reads = HandReads(positions.dealt, HOLE_CARDS[self.variant])
        self.reads.dead.update(positions.auto_fold)
        self.held.clear()
        self.forfeits.clear()
        self.prompts.clear()
        self.awarded = 0
        self.stage = Stage.DEALING
        self.emit(HandStarted(self.hand_no, positions.button, positions.small_blind,
                              positions.big_blind, positions.dealt, config.stacks,
                              level.small_blind, level.big_blind, ante))
        return True

    @console
    def new_game(self) -> bool:
        """A fresh start (a new table or event): the next hand is a first hand."""
        if not self._between_hands("a new game"):
            return False
        self.previous = self.redeal = None
        self.button = None
        return True

    @console
    def set_button(self, seat: int) -> bool:
        """Where the button starts: a random player in cash (BTN-1), the draw in a
        tournament (BTN-4); only before the table's first hand."""
        if self.previous is not None or self.stage is not Stage.IDLE:
            return self.reject("the button moves by the rules once play has begun", "BTN-2",
                               "button")
        if seat not in self.roster.seats:
            return self.reject(f"there is no seat {seat}", "BTN-1", "button")
        self.button = seat
        return True

    def _next_positions(self) -> Positions:
        """The rules' layout for the next hand (BTN-1..7); raises with the rule if none."""
        redeal, self.redeal = self.redeal, None
        if redeal is not None and all(self.roster[s].stack > 0 for s in redeal.dealt):
            return redeal  # LIVE-25: the same hand again (unless a player has left since)
        seats = self.roster.statuses()
        if self.previous is not None:
            return next_hand(self.previous, seats, tournament=self.tournament,
                             profile=self.profile)
        if self.tournament:
            button = initial_button(seats, profile=self.profile, drawn=self.button)
        elif self.button is None:
            raise RulesError("place the button on a player first (set_button)", "BTN-1")
        else:
            button = self.button
        return first_hand(seats, button=button, tournament=self.tournament,
                          profile=self.profile)

    # ================================================================ betting
    def act(self, word: str, to: int = 0, *, seat: int | None = None) -> bool:
        """What a player said, keyed by the dealer: ``fold``, ``check``, ``call``, or
        ``raise`` to a total of ``to``; binding (LIVE-2/3), out of turn held (LIVE-12)."""
        if word not in ("fold", "check", "call", "raise"):
            return self.reject(f"{word!r} is not an action word: fold, check, call, raise",
                               "LIVE-1", "console")
        declared = (Declaration(Word.RAISE_TO, amount=to) if word == "raise"
                    else Declaration(Word(word)))
        return self.chips(0, seat=seat, declared=declared)

    def fold(self, seat: int | None = None) -> bool:
        return self.act("fold", seat=seat)

    def check(self, seat: int | None = None) -> bool:
        return self.act("check", seat=seat)

    def call(self, seat: int | None = None) -> bool:
        return self.act("call", seat=seat)

    def raise_to(self, to: int, seat: int | None = None) -> bool:
        return self.act("raise", to, seat=seat)

    @console
    def chips(self, chips: Pushed, *, seat: int | None = None,
              declared: Declaration | None = None) -> bool:
        """The chips a player pushed in one motion (the total, or each chip's value) and
        what they said; the live rules (LIVE-1..14) say what it means."""
        return betting.push(self, chips, seat=seat, declared=declared)

    def fold_from_muck(self, position: int) -> None:
        """LIVE-16: the hand touched the muck: folded, or dead until its turn."""
        betting.fold_from_muck(self, position)

    def advance(self) -> None:
        """After any change: dead hands fold in turn, held actions bind or are released,
        and the stage follows the engine's phase."""
        betting.advance(self)


    # ================================================================ prompts, misdeal
    @console
    def resolve(self, key: str) -> bool:
        """Answer the latest open prompt that offers ``key`` (the misdeal key included)."""
        for prompt in reversed(self.prompts):
            if key in prompt.actions:
                self.prompts.remove(prompt)
                self._changed = True
                prompt.actions[key]()
                return True
        if key == "misdeal":
            if self.stage is Stage.DEALING:
                self.misdeal("the dealer declared a misdeal during the deal", "LIVE-25")
                return True
            return self.reject("a misdeal is declared only before substantial action, as "
                               "BTN-8 allows; the floor can still void the hand", "LIVE-25",
                               "misdeal")
        return self.reject(f"no open prompt offers {key!r}", None, "console")

    @console
    def misdeal(self, reason: str, rule: str | None = "LIVE-25") -> bool:
        """Void the hand: bets go back, the blinds stay where they were, dealt again."""
        if self.hand is None or self.stage in (Stage.IDLE, Stage.ENROLLING):
            return self.reject("there is no hand to void", rule, "misdeal")
        self.emit(MisdealDeclared(self.hand_no, reason, rule))
        self.redeal = self.positions
        self._clear_hand()
        return True

    def _clear_hand(self) -> None:
        self.hand = None
        self.positions = None
        self.reads = None
        self.held.clear()
        self.forfeits.clear()
        self.prompts.clear()
        self.stage = Stage.IDLE

    # ================================================================ showdown, undo
    @console
    def show(self, seat: int | None = None) -> bool:
        return showdown.show(self, seat)

    @console
    def muck(self, seat: int | None = None) -> bool:
        return showdown.muck(self, seat)

    @console
    def confirm(self) -> bool:
        return showdown.confirm(self)

    @console
    def undo(self, count: int = 1, reason: str = "") -> bool:
        return showdown.undo(self, count, reason)

    @console
    def correct(self, index: int, action: Decision, reason: str) -> bool:
        return showdown.correct(self, index, action, reason)

    # ================================================================ displays
    def refresh(self) -> None:
        """Lights and the blinds display from the state (after the journal has it)."""
        if self._changed:
            self._changed = False
            self._show_lights()
        pos = self.positions
        level = self.hand_level if self.hand is not None else self.level
        button = pos.button if pos is not None else (
            self.previous.button if self.previous is not None else self.button)
        frame = blinds_frame(self.level_no, level, button, self.seconds_left())
        if frame != self._shown_blinds:
            self.hardware.blinds.show(frame)
            self._shown_blinds = frame

    def release_light(self, seat: int) -> None:
        """Another part (the clocks' panel) lit ``seat`` and hands it back: the next
        refresh shows the table's state on it again."""
        self.lights.shown.pop(seat, None)
        self._lit = ()
        self._changed = True

    def _show_lights(self) -> None:
        hand, pos = self.hand, self.positions
        problems = tuple(p.event.seat for p in self.prompts if p.event.seat is not None)
        turn = to_show = None
        all_in: tuple[int, ...] = ()
        winners: tuple[int, ...] = ()
        if hand is not None and pos is not None:
            dealt = pos.dealt
            all_in = tuple(dealt[i] for i in range(len(dealt))
                           if hand.stacks[i] == 0 and not hand.folded[i])
            if self.stage is Stage.AWARDING and self.awarded < len(hand.awards):
                winners = tuple(dealt[p] for p, c in hand.awards[self.awarded].shares if c)
            turn = dealt[hand.actor] if hand.actor is not None else None
            nxt = hand.next_to_show
            to_show = dealt[nxt] if nxt is not None else None
        wanted = (turn, all_in, to_show, winners, problems)
        if wanted == self._lit:
            return
        self._lit = wanted
        self.lights.show(light_plan(seats=self.lights.lights, turn=turn, all_in=all_in,
                                    winners=winners, to_show=to_show, problems=problems))
