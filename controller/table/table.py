"""The live table with the dealer's shorthands: :class:`Table` is
:class:`~controller.table.live_table.LiveTable` (every input as an intent down one path,
the parts it composes) plus one method per dealer or floor input, each building its
intent (``controller.table.intents``) and submitting it; True when accepted. A caller
that wants the events or the refusal's rule uses :meth:`LiveTable.submit` directly.
A :class:`Table` also runs on its hardware: each device event becomes its intent
(``handle``), ``pump`` polls, ``run`` handles events and wakes the clocks on the loop.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence

from controller.clocks.events import ClockEvent
from controller.clocks.house import House
from controller.clocks.runner import ClockRunner
from controller.devices.events import (
    CardArrived,
    CardLeft,
    DeviceEvent,
    KeyPressed,
    SeatNodeOffline,
    SeatNodeOnline,
)
from controller.rules.button import Positions
from controller.rules.errors import RulesError
from controller.rules.hand import Hand
from controller.rules.live import Decision, Declaration

from . import intents as i
from .base import CONTINUE, MISDEAL, Prompt, Stage, nothing
from .dealer_view import ChoiceView, DealerView, PromptView
from .dealing import HandReads
from .deck import DeckCheck, DeckCount, DeckMap, Enrolment
from .house_play import straddle_seats
from .lights import Level
from .live_table import LiveTable, Outcome
from .ports import Held

__all__ = ["CONTINUE", "MISDEAL", "Outcome", "Prompt", "Stage", "Table", "nothing"]

_READER = i.Origin("reader")


class Table(LiveTable):
    """One live table on its hardware, with a method per dealer or floor input."""

    # ================================================================ on its hardware
    def pump(self) -> int:
        """Poll the hardware, handle every event, refresh the displays; return the count."""
        events = self.hardware.poll()
        for event in events:
            self.handle(event, refresh=False)
        self.tick()
        return len(events)

    def handle(self, event: DeviceEvent, *, refresh: bool = True) -> Outcome:
        """One device event as its intent, journaled as an input from its device first;
        the displays follow unless ``refresh`` is False."""
        intent: i.Intent
        origin: i.Origin | None = None
        if isinstance(event, CardArrived):
            intent, origin = i.CardPlaced(event.reader, event.uid), _READER
        elif isinstance(event, CardLeft):
            intent = i.CardLifted(event.reader, event.uid)  # not journaled: see input_journal
        elif isinstance(event, KeyPressed):
            intent, origin = i.Key(event.key), i.Origin("keypad", f"key {event.key}")
        elif isinstance(event, SeatNodeOffline):
            intent = i.SeatNodeLost(event.seat)
            origin = i.Origin("node", f"seat {event.seat}'s node stopped answering")
        elif isinstance(event, SeatNodeOnline):
            intent = i.SeatNodeBack(event.seat)
            origin = i.Origin("node", f"seat {event.seat}'s node answers again")
        else:
            return Outcome(True)  # a key released, a button held: nothing for the table
        self._quiet = not refresh
        try:
            return self.submit(intent, origin)
        finally:
            self._quiet = False

    def submit_from(self, origin: i.Origin, intent: i.Intent) -> Outcome:
        """``intent`` from the dealer's keypad or tablet (``origin``: which, and the keys
        or the tap), journaled as an input before it is applied."""
        return self.submit(intent, origin)

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
            for watcher in self.input_watchers:  # the dealer's terminal redraws (a read
                watcher()  # in an enrolment or a count journals nothing)

    async def _ticker(self, tick_s: float) -> None:
        while True:
            self.tick()
            await asyncio.sleep(tick_s)


    # ================================================================ what the table is at
    @property
    def stage(self) -> Stage:
        return self.play.stage

    @property
    def hand(self) -> Hand | None:
        return self.play.hand

    @property
    def positions(self) -> Positions | None:
        return self.play.positions

    @property
    def reads(self) -> HandReads | None:
        return self.play.reads

    @property
    def held(self) -> dict[int, Held]:
        return self.play.held

    @property
    def prompts(self) -> list[Prompt]:
        return self.play.prompts

    @property
    def hand_no(self) -> int:
        return self.play.hand_no

    @property
    def previous(self) -> Positions | None:
        return self.play.previous

    @property
    def redeal(self) -> Positions | None:
        return self.play.redeal

    @property
    def button(self) -> int | None:
        return self.play.button

    @property
    def hand_level(self) -> Level:
        return self.play.level or self.clocks.levels[0]

    @property
    def hand_level_no(self) -> int:
        return self.play.hand_level_no

    @property
    def levels(self) -> tuple[Level, ...]:
        return self.clocks.levels

    @property
    def level_no(self) -> int:
        return self.clocks.level_no

    @property
    def level(self) -> Level:
        return self.clocks.current

    @property
    def deck(self) -> DeckMap | None:
        return self.seating.deck

    @property
    def enrolment(self) -> Enrolment | None:
        return self.seating.enrolment

    @property
    def count(self) -> DeckCount | None:
        return self.seating.count

    @property
    def deck_check(self) -> DeckCheck | None:
        """The last count at the shuffle, cards by name, for the dealer's screen (the
        journal has the counts only)."""
        return self.seating.checked

    @property
    def penalties(self) -> dict[str, int]:
        return self.seating.penalties

    def seat_of(self, position: int) -> int:
        return self.play.seat_of(position)

    def position_of(self, seat: int) -> int | None:
        return self.play.position_of(seat)

    def seconds_left(self) -> float | None:
        """The level's time left on the level clock (None: levels are not timed)."""
        return self.clocks.seconds_left()

    def dealer_view(self) -> DealerView:
        """What the dealer's terminal shows beside the public state (see
        :mod:`controller.table.dealer_view`)."""
        prompts = self.play.prompts
        latest = prompts[-1] if prompts else None
        prompt = None if latest is None else PromptView(
            kind=latest.kind, text=latest.text, rule=latest.event.rule, seat=latest.seat,
            choices=tuple(ChoiceView(c.key, c.text, c.rule) for c in latest.choices))
        race = self.colour_up.race
        enrolment = self.seating.enrolment
        enrolling = None
        if enrolment is not None:
            nxt = enrolment.next_card
            enrolling = (f"{len(enrolment.uids)}/52, next {nxt}" if nxt is not None
                         else "52/52: finish the enrolment")
        left = self.clocks.seconds_left()
        deck = self.seating.deck
        level = self.clocks.current
        return DealerView(
            stage=self.play.stage, variant=str(self.variant), level=self.clocks.level_no,
            small_blind=level.small_blind, big_blind=level.big_blind,
            ante=level.ante if self.tournament or self.house is not None else 0,
            prompt=prompt, prompts=len(prompts),
            shot_clock=self.hardware.shot_clock.frame.text,
            level_seconds_left=None if left is None else int(left),
            colour_up=None if race is None else race.next_prompt().text,
            deck_version=None if deck is None else deck.version,
            deck_name=None if deck is None else deck.name,
            decks=() if self.seating.decks is None else self.seating.decks.names(),
            deck_count=self.seating.count_line(),
            enrolling=enrolling, counting_all_in=self.clocks.counting,
            paused=self.clocks.paused,
            chips=tuple((d.value, d.colour) for d in self.colour_up.chip_set.denominations),
            house_label="" if self.house is None else self.house.label)


    def key(self, name: str) -> bool:
        return self.submit(i.Key(name)).accepted

    def start_hand(self, straddle: int | None = None) -> bool:
        """The deal key; ``straddle``: the seat that put out a straddle (STRADDLE-1..4)."""
        return self.submit(i.Deal(straddle)).accepted

    def set_house(self, house: House) -> bool:
        return self.submit(i.SetHouse(house)).accepted

    def straddle_seats(self) -> tuple[int, ...]:
        """The seats that may straddle the next hand (the button first under
        Mississippi, then UTG); () during a hand or when the house allows none."""
        if self.play.stage is not Stage.IDLE:
            return ()
        try:
            positions = self.play.next_positions()
        except RulesError:
            return ()
        return straddle_seats(positions, profile=self.profile, variant=self.variant,
                              tournament=self.tournament)

    def act(self, word: str, to: int = 0, *, seat: int | None = None) -> bool:
        """What a player said, keyed by the dealer: ``fold``, ``check``, ``call``, or
        ``raise`` to a total of ``to``; binding (LIVE-2/3), out of turn held (LIVE-12)."""
        intents: dict[str, i.Intent] = {"fold": i.Fold(seat), "check": i.Check(seat),
                                        "call": i.Call(seat), "raise": i.RaiseTo(to, seat)}
        intent = intents.get(word)
        if intent is None:
            return self._refuse(f"{word!r} is not an action word: fold, check, call, raise",
                                "LIVE-1", "console").accepted
        return self.submit(intent).accepted

    def fold(self, seat: int | None = None) -> bool:
        return self.submit(i.Fold(seat)).accepted

    def check(self, seat: int | None = None) -> bool:
        return self.submit(i.Check(seat)).accepted

    def call(self, seat: int | None = None) -> bool:
        return self.submit(i.Call(seat)).accepted

    def raise_to(self, to: int, seat: int | None = None) -> bool:
        return self.submit(i.RaiseTo(to, seat)).accepted

    def chips(self, chips: int | Sequence[int], *, seat: int | None = None,
              declared: Declaration | None = None) -> bool:
        """The chips a player pushed in one motion (the total, or each chip's value) and
        what they said; the live rules (LIVE-1..14) say what it means."""
        pushed = chips if isinstance(chips, int) else tuple(chips)
        return self.submit(i.ChipsPushed(pushed, seat, declared)).accepted

    def show(self, seat: int | None = None) -> bool:
        return self.submit(i.Show(seat)).accepted

    def muck(self, seat: int | None = None) -> bool:
        return self.submit(i.Muck(seat)).accepted

    def confirm(self) -> bool:
        return self.submit(i.Confirm()).accepted

    def undo(self, count: int = 1, reason: str = "") -> bool:
        return self.submit(i.Undo(count, reason)).accepted

    def correct(self, index: int, action: Decision, reason: str) -> bool:
        return self.submit(i.Correct(index, action, reason)).accepted

    def resolve(self, key: str) -> bool:
        """Answer the latest open prompt that offers ``key`` (the misdeal key included)."""
        return self.submit(i.Choose(key)).accepted

    def misdeal(self, reason: str, rule: str | None = "LIVE-25") -> bool:
        return self.submit(i.DeclareMisdeal(reason, rule)).accepted

    def call_clock(self, seat: int | None = None, *, caller: str = "dealer") -> bool:
        return self.submit(i.CallClock(seat, caller)).accepted

    def use_extension(self, seat: int) -> bool:
        return self.submit(i.UseTimeBank(seat)).accepted

    def pause(self, paused: bool = True) -> bool:
        return self.submit(i.Pause(paused)).accepted

    def all_in_count(self, counting: bool = True) -> bool:
        return self.submit(i.CountAllIn(counting)).accepted

    def next_level(self) -> bool:
        return self.submit(i.NextLevel()).accepted

    def sync_clock(self, level: int, seconds_left: float, on_break: bool = False) -> bool:
        return self.submit(i.SyncClock(level, seconds_left, on_break)).accepted

    def take_seat(self, seat: int, player: str, stack: int, *,
                  extension_chips: int | None = None, penalty_hands: int | None = None,
                  buy_in: bool = True) -> bool:
        return self.submit(i.TakeSeat(seat, player, stack, extension_chips, penalty_hands,
                                      buy_in)).accepted

    def leave_seat(self, seat: int) -> bool:
        return self.submit(i.LeaveSeat(seat)).accepted

    def add_chips(self, seat: int, player: str, chips: int, reason: str) -> bool:
        return self.submit(i.AddChips(seat, player, chips, reason)).accepted

    def sit_out(self, seat: int) -> bool:
        return self.submit(i.SitOut(seat)).accepted

    def come_back(self, seat: int) -> bool:
        return self.submit(i.ComeBack(seat)).accepted

    def assign(self, card_uid: bytes, player: str, seat: int) -> bool:
        return self.submit(i.AssignSeat(card_uid, player, seat)).accepted

    def set_button(self, seat: int) -> bool:
        return self.submit(i.PlaceButton(seat)).accepted

    def new_game(self) -> bool:
        return self.submit(i.NewGame()).accepted

    def begin_enrolment(self, order: Sequence[int] | None = None,
                        name: str | None = None) -> bool:
        return self.submit(i.BeginEnrolment(order, name)).accepted

    def finish_enrolment(self) -> bool:
        return self.submit(i.FinishEnrolment()).accepted

    def choose_deck(self, name: str) -> bool:
        return self.submit(i.ChooseDeck(name)).accepted

    def set_hand_for_hand(self, on: bool) -> bool:
        return self.submit(i.SetHandForHand(on)).accepted

    def release_hand(self) -> bool:
        return self.submit(i.ReleaseHand()).accepted
