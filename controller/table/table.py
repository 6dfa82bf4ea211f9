"""The live table with the dealer's shorthands: :class:`Table` is
:class:`~controller.table.live_table.LiveTable` (every input as an intent down one path,
the parts it composes) plus one method per dealer or floor input, each building its
intent (``controller.table.intents``) and submitting it; True when accepted. A caller
that wants the events or the refusal's rule uses :meth:`LiveTable.submit` directly.
"""

from __future__ import annotations

from collections.abc import Sequence

from controller.rules.button import Positions
from controller.rules.hand import Hand
from controller.rules.live import Decision, Declaration

from . import intents as i
from .base import CONTINUE, MISDEAL, Prompt, Stage, nothing
from .dealer_view import ChoiceView, DealerView, PromptView
from .dealing import HandReads
from .deck import DeckCheck, DeckCount, DeckMap, Enrolment
from .lights import Level
from .live_table import LiveTable, Outcome
from .ports import Held

__all__ = ["CONTINUE", "MISDEAL", "Outcome", "Prompt", "Stage", "Table", "nothing"]


class Table(LiveTable):
    """One live table on its hardware, with a method per dealer or floor input."""

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
            ante=level.ante if self.tournament else 0, prompt=prompt, prompts=len(prompts),
            shot_clock=self.hardware.shot_clock.frame.text,
            level_seconds_left=None if left is None else int(left),
            colour_up=None if race is None else race.next_prompt().text,
            deck_version=None if deck is None else deck.version,
            deck_name=None if deck is None else deck.name,
            decks=() if self.seating.decks is None else self.seating.decks.names(),
            deck_count=self.seating.count_line(),
            enrolling=enrolling, counting_all_in=self.clocks.counting,
            paused=self.clocks.paused,
            chips=tuple((d.value, d.colour) for d in self.colour_up.chip_set.denominations))


    def key(self, name: str) -> bool:
        return self.submit(i.Key(name)).accepted

    def start_hand(self) -> bool:
        return self.submit(i.Deal()).accepted

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
                  extension_chips: int | None = None, penalty_hands: int | None = None
                  ) -> bool:
        return self.submit(i.TakeSeat(seat, player, stack, extension_chips, penalty_hands)).accepted

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
