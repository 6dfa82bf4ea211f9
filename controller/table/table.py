"""The live table: device events and console keys in, rules actions through the engine,
typed events out to the journal, then the displays (DESIGN.md data flow).

One :class:`Table` runs one physical table. It is synchronous: ``handle(event)`` takes one
device event, the console methods take the dealer's input, ``pump()`` polls the hardware
and handles what came. Everything the table accepts goes to the injected ``sink`` first;
lights and the blinds display change only after.

Card reads are routed by :mod:`controller.table.reads`; the showdown, pot awards, undo and
corrections by :mod:`controller.table.showdown`; seats and the deck by
:mod:`controller.table.seating`; the shot clock, clock calls, extension chips and the level
clock by :mod:`controller.table.timing`; the colour-up by :mod:`controller.table.colour_up`;
hand-for-hand by :mod:`controller.table.hand_for_hand`; the blinds display and the seat
lights by :mod:`controller.table.display`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from controller.clocks.errors import ClockError
from controller.clocks.host_clock import ClockSnapshot
from controller.clocks.runner import ClockRunner
from controller.clocks.shot_clock import ShotClockConfig
from controller.clocks.structure import Structure
from controller.clocks.timebank import Caller, ExtensionChips
from controller.devices.events import (
    CardArrived,
    CardLeft,
    DeviceEvent,
    KeyPressed,
    SeatNodeOffline,
    SeatNodeOnline,
)
from controller.devices.interfaces import BEEP_ERROR, Clock
from controller.rules.button import Positions, first_hand, initial_button, next_hand
from controller.rules.cards import Card
from controller.rules.config import HOLE_CARDS, LIVE_CASH, RulesProfile, Variant
from controller.rules.errors import RulesError
from controller.rules.hand import Hand
from controller.rules.live import Decision, Declaration, Word
from controller.rules.rake import RakePolicy

from . import betting, display, hand_for_hand, reads, showdown
from .base import CONTINUE, MISDEAL, Prompt, Stage, console, nothing
from .betting import Held, Pushed
from .clock_panel import PanelStyle
from .colour_up import ColourUp, ColourUpSettings
from .dealing import HandReads
from .deck import DeckCount, DeckMap, Enrolment
from .display import KEEP, Keep
from .events import (
    BreakStarted,
    Choice,
    HandStarted,
    Irregularity,
    LevelChanged,
    MisdealDeclared,
    Rejected,
    Sink,
    TableEvent,
    is_secret,
)
from .lights import Level, SeatLights
from .seating import SeatsAndDeck
from .seats import Roster
from .timing import TableClocks, levels_of

if TYPE_CHECKING:  # the table is handed its hardware; it never builds it (DESIGN rooms)
    from controller.clocks.events import ClockEvent
    from controller.devices.hardware import TableHardware


__all__ = ["CONTINUE", "MISDEAL", "Prompt", "Stage", "Table", "console", "nothing"]

log = logging.getLogger("pitboss.table")


class Table(SeatsAndDeck):
    """One live table on its hardware."""

    def __init__(
        self,
        hardware: TableHardware,
        *,
        sink: Sink,
        levels: Sequence[Level] = (),
        structure: Structure | None = None,
        deck: DeckMap | None = None,
        deck_path: str | Path | None = None,
        profile: RulesProfile = LIVE_CASH,
        variant: Variant = Variant.NT,
        tournament: bool = False,
        rake: RakePolicy | None = None,
        clock: Clock | None = None,
        shot_clock: ShotClockConfig | None = ShotClockConfig(),  # noqa: B008 (frozen)
        extensions: ExtensionChips | None = None,
        clock_style: PanelStyle | None = None,
        colour_up: ColourUpSettings | None = None,
        wall_clock: Callable[[], float] | None = None,
        host_timeout_s: float = 90.0,
    ) -> None:
        """``shot_clock=None``: no shot clock (nor clock calls); ``extensions``: the
        players' time-bank extension chips; a tournament ``structure`` (levels, antes,
        breaks: LEVEL-2) or plain ``levels`` (timed ones run on a level clock);
        ``wall_clock`` (epoch seconds) and ``host_timeout_s`` for the level clock (see
        :mod:`controller.table.timing`)."""
        if structure is not None and levels:
            raise ValueError("give the table a structure or levels, not both")
        if structure is None and not levels:
            raise ValueError("a table needs at least one blind level")
        self.hardware = hardware
        self.sink = sink
        self.structure = structure
        self.levels = tuple(levels) if structure is None else levels_of(structure)
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
        self.prompts: list[Prompt] = []
        self.awarded = 0  # pots confirmed so far in AWARDING
        self.level_no = 1
        self.hand_level: Level = self.levels[0]
        self.hand_level_no = 1
        self.button: int | None = None  # the first hand's button (BTN-1, BTN-4 draw)
        self.previous: Positions | None = None
        self.redeal: Positions | None = None  # after a misdeal: the same positions again
        self.hand_for_hand = False  # TOURN-22: deal only the hands the floor releases
        self.released = False  # hand-for-hand: the next hand may be dealt
        self.penalties = {}  # PEN-4/5: hands still to serve (seating.py)
        self.enrolment: Enrolment | None = None
        self.count: DeckCount | None = None
        self.where: dict[bytes, str] = {}  # uid -> the card reader it lies on now
        self.seat_reader = {spec.cards.name: spec.number for spec in hardware.profile.seats}
        self.player_reader = {spec.player.name: spec.number for spec in hardware.profile.seats}
        self.board_readers = frozenset(r.name for r in hardware.profile.board)
        self.muck_reader = hardware.profile.muck.name
        self.deck_reader = hardware.profile.deck.name
        self._depth = 0  # console calls under way (the displays follow the outermost)
        self._quiet = False  # pump(): one refresh after the whole batch
        self._changed = True  # something the lights show may have changed
        self._lit: tuple[object, ...] = ()  # what the lights were last told to show
        self._blinds_asked: tuple[object, ...] | None = None  # show_blinds' last inputs
        self.clocks = TableClocks(self, shot_clock=shot_clock, extensions=extensions,
                                  style=clock_style, structure=structure,
                                  wall_clock=wall_clock, host_timeout_s=host_timeout_s)
        self.colour_up = ColourUp(self, colour_up)  # the chips in play, CHIPRACE-*
        self.refresh()
        self.clocks.start()

    # ================================================================ plumbing
    def emit(self, event: TableEvent) -> None:
        """To the journal first; logged without secrets."""
        self.sink(event)
        self._changed = True
        if is_secret(event):
            log.debug("%s (secret, seat %s)", type(event).__name__, getattr(event, "seat", "-"))
        elif isinstance(event, Rejected | Irregularity):
            log.info("%s: %s", type(event).__name__, event.reason)
        if isinstance(event, BreakStarted):  # the break's colour-up (CHIPRACE-*), journaled
            self.colour_up.on_break(event.level, event.colour_up)

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
        """Handle the hardware's events as they come and keep the clocks running, on the
        running loop until cancelled. Run ``hardware.run()`` alongside: it scans the
        readers. On the loop's own clock (``time.monotonic``) a
        :class:`~controller.clocks.runner.ClockRunner` wakes the clocks at their deadlines;
        on another clock (the mock's virtual time) they are polled every ``tick_s``."""
        async with asyncio.TaskGroup() as tg:
            tg.create_task(self._consume(), name="table-events")
            loop = asyncio.get_running_loop()
            if self.clock is time.monotonic or self.clock == loop.time:
                runner = ClockRunner(self.clocks.clocks(), self._clock_event)
                self.clocks.kick = runner.kick
                tg.create_task(runner.run(), name="table-clocks")
            tg.create_task(self._ticker(tick_s), name="table-tick")

    def _clock_event(self, event: ClockEvent) -> None:
        self.clocks.deliver(event)
        self.refresh()

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
            self.clocks.poll()  # time ran out before this input: the clock ruled first
            if isinstance(event, CardArrived) and self.stage is Stage.COLOUR_UP:
                self.colour_up.card_arrived(event.reader, event.uid)  # race cards
            elif isinstance(event, CardArrived):
                reads.card_arrived(self, event.reader, event.uid)
            elif isinstance(event, CardLeft):
                reads.card_left(self, event.reader, event.uid)
            elif isinstance(event, KeyPressed):
                self.key(event.key)
            elif isinstance(event, SeatNodeOffline):
                self.node_offline(event.seat)
            elif isinstance(event, SeatNodeOnline):
                self.prompts = [p for p in self.prompts
                                if not (p.event.kind == "seat_node_offline"
                                        and p.event.seat == event.seat)]
                self._changed = True
        except RulesError as exc:  # the engine refused: say why, change nothing more
            self.reject(exc.reason, exc.rule, type(event).__name__)
        finally:
            self._quiet = False
        if refresh:
            self.refresh()

    @console
    def key(self, name: str) -> None:
        """A console key: ``deal`` starts a hand, shows the next hand or confirms a pot;
        ``undo`` takes back the last action; ``misdeal``; ``next_level``; ``pause``
        stops or restarts the clocks; ``call_clock`` calls the clock on the player to act;
        ``colour_up`` starts a colour-up (during one, the colour-up takes the keys)."""
        if self.colour_up.key(name):
            return
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
        elif name == "pause":
            self.pause(not self.clocks.paused)
        elif name == "call_clock":
            self.call_clock()
        elif name == "count":  # the dealer counts an all-in: the clock waits (CLOCK-*)
            self.all_in_count(not self.clocks.counting)
        else:
            self.reject(f"the console has no key {name!r}", None, "key")

    def node_offline(self, seat: int) -> None:
        """A seat node stopped answering: its readers and ring are dark. The dealer is told
        (and the host, through the journal) and may carry on, keying that seat's cards."""
        self.prompt("seat_node_offline",
                    f"seat {seat}'s node is not answering: its cards are not read and its "
                    "lights are dark; check its cable, or carry on and key its cards in",
                    None, seat, [(Choice("continue", "carry on without the seat's reader"),
                                  lambda: None)])

    # ================================================================ levels
    @property
    def level(self) -> Level:
        return self.levels[min(self.level_no, len(self.levels)) - 1]

    @console
    def next_level(self) -> None:
        """The floor moves the level on; it applies from the next hand (LEVEL-1)."""
        if self.clocks.level is not None:
            try:
                self.clocks.next_level()
            except ClockError as exc:
                self.reject(exc.reason, exc.rule, "next_level")
            return
        if self.level_no >= len(self.levels):
            self.reject("this is the last level of the structure", "LEVEL-6", "next_level")
            return
        self.level_no += 1
        lv = self.level
        self.emit(LevelChanged(self.level_no, lv.small_blind, lv.big_blind, lv.ante))

    def seconds_left(self) -> float | None:
        """The level's time left on the level clock (None: levels are not timed)."""
        return self.clocks.seconds_left()

    @console
    def sync_clock(self, level: int, seconds_left: float, on_break: bool = False) -> bool:
        """The host's level clock (the authority): the table adopts ``level`` with
        ``seconds_left`` in it (on a break when ``on_break``) and journals the difference."""
        return self.clocks.adopt(level, seconds_left, on_break)

    @console
    def restore_clock(self, snapshot: ClockSnapshot) -> None:
        """After a restart: the clocks continue from the journal's last snapshot."""
        self.clocks.restore(snapshot)

    def tick(self) -> None:
        """Let the clocks report what happened up to now (levels move on, the shot clock
        counts down and rules), then refresh the displays."""
        self.clocks.poll()
        self.refresh()

    # ================================================================ clocks
    @console
    def call_clock(self, seat: int | None = None, *, caller: str = "dealer") -> bool:
        """The clock is called on the player to act (``seat`` checks who; CLOCK-1/2);
        ``caller`` is ``dealer`` (the console key) or ``floor`` (through the host)."""
        try:
            who = Caller(caller)
        except ValueError:
            return self.reject(f"{caller!r} cannot call the clock here: dealer or floor",
                               "CLOCK-2", "call_clock")
        return self.clocks.call_clock(seat, who)

    @console
    def use_extension(self, seat: int) -> bool:
        """The player at ``seat``, on the clock, spends a time-bank extension chip."""
        return self.clocks.use_extension(seat)

    @console
    def pause(self, paused: bool = True) -> bool:
        """The floor stops (or restarts) the table's clocks."""
        return self.clocks.set_paused(paused)

    @console
    def all_in_count(self, counting: bool = True) -> None:
        """The dealer counts an all-in: the player's clock stops until the count is done."""
        self.clocks.set_counting(counting)

    # ================================================================ hand start
    @console
    def start_hand(self) -> bool:
        """The dealer's first shuffle is done: start the next hand (DEAL-4)."""
        if not self.colour_up.allows_hand():  # CHIPRACE-1: none during a colour-up
            return False
        if self.stage is not Stage.IDLE:
            return self.reject(f"a hand is already under way ({self.stage})", "DEAL-4", "deal")
        held = hand_for_hand.held(self)
        if held is not None:  # TOURN-22
            return self.reject(held, "TOURN-22", "deal")
        if self.deck is None:
            return self.reject("no deck is enrolled: enrol one at the deck reader", "CARD-1",
                               "deal")
        self._finish_count()
        try:  # LEVEL-1: the level in force at the deal key governs the hand
            number = self.clocks.hand_started() or self.level_no
        except ClockError as exc:
            return self.reject(exc.reason, exc.rule, "deal")
        level = self.levels[min(number, len(self.levels)) - 1]
        ante = level.ante if self.tournament else 0
        try:
            positions = self._next_positions()
            stacks = {s.number: s.stack for s in self.roster.occupied()}
            antes = self.clocks.forced_bets(number, len(positions.dealt)) \
                if self.tournament else {}  # ANTE-1: the structure's antes
            config = positions.game_config(self.variant, stacks, level.small_blind,
                                           level.big_blind, rake=self.rake, **antes)
            hand = Hand(config, self.profile)
        except RulesError as exc:
            self.clocks.hand_over()
            return self.reject(exc.reason, exc.rule, "deal")
        self.redeal = None
        hand_for_hand.hand_dealt(self)
        self.hand_no += 1
        self.hand, self.positions, self.hand_level = hand, positions, level
        self.hand_level_no = number
        self.reads = HandReads(positions.dealt, HOLE_CARDS[self.variant])
        self.reads.dead.update(positions.auto_fold)
        self.held.clear()
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

    # ================================================================ hand-for-hand
    @console
    def set_hand_for_hand(self, on: bool) -> bool:
        """TOURN-22: the floor turns hand-for-hand on or off."""
        return hand_for_hand.set_hand_for_hand(self, on)

    @console
    def release_hand(self) -> bool:
        """TOURN-22: hand-for-hand, the floor lets exactly one more hand be dealt."""
        return hand_for_hand.release_hand(self)

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
        self.clocks.hand_over()
        self.hand = None
        self.positions = None
        self.reads = None
        self.held.clear()
        self.prompts.clear()
        self.stage = Stage.IDLE
        self.serve_penalties()  # PEN-4: the hand counts for players serving a penalty
        if self.tournament:  # a player left with no chips leaves at once
            hand_for_hand.bust_players(self, self.hand_no)

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
        """The clocks follow the hand, then the lights and the blinds display show the
        state (after the journal has it)."""
        self.clocks.sync()
        if self._changed:
            self._changed = False
            display.show_lights(self)
        self.refresh_blinds()
        self.colour_up.refresh()  # its prompt screen over the blinds display

    def refresh_blinds(self, seconds_left: int | Keep | None = KEEP) -> None:
        """The blinds display follows the table (see :func:`display.show_blinds`)."""
        display.show_blinds(self, seconds_left)

    def release_light(self, seat: int) -> None:
        """Another part (the clocks' panel) lit ``seat`` and hands it back: the next
        refresh shows the table's state on it again."""
        display.release_light(self, seat)
