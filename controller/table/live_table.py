"""The live table: every input as an intent down one path, the hand to its one owner,
typed events out to the journal, then the displays (DESIGN.md data flow).

One :class:`Table` runs one physical table. It is synchronous: :meth:`Table.submit` takes
one intent (``controller.table.intents``) and accepts it, with the events it journaled,
or refuses it with the rule and a reason (:class:`~controller.table.table.Table` adds
``handle(event)``, one device event as its intent, ``pump()`` and ``run()``). The
house it plays (:mod:`~controller.table.house_play`) sets its game, stakes and rules
between hands. Everything the table accepts goes to the injected ``sink`` first; lights
and the blinds display change only after.

The table composes its parts, each given only the ports it needs
(:mod:`controller.table.ports`): the hand in play (:mod:`~controller.table.hand_in_play`,
the stage's one owner), seats and the deck (:mod:`~controller.table.seating`), the clocks
(:mod:`~controller.table.timing`), the colour-up (:mod:`~controller.table.colour_up`),
hand-for-hand (:mod:`~controller.table.hand_for_hand`) and the displays
(:mod:`~controller.table.display`). :class:`~controller.table.table.Table` adds the
dealer's shorthands (``fold``, ``take_seat``...), each building its intent and submitting
it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from controller.clocks.errors import ClockError
from controller.clocks.house import House
from controller.clocks.shot_clock import ShotClockConfig
from controller.clocks.structure import Structure
from controller.clocks.timebank import Caller, ExtensionChips
from controller.devices.interfaces import BEEP_ERROR, Clock
from controller.events import (
    BreakStarted,
    BurnedCard,
    CardSeen,
    ClockSnapshot,
    DeckReport,
    HoleCardsDealt,
    HouseSet,
    Irregularity,
    JournalEvent,
    Rejected,
    SeatNodeBack,
)
from controller.rules.button import Positions
from controller.rules.cards import Card
from controller.rules.config import LIVE_CASH, RulesProfile, Variant
from controller.rules.errors import RulesError
from controller.rules.hand import Hand
from controller.rules.rake import RakePolicy

from . import intents as i
from .base import CONTINUE, MISDEAL, WORD, Choice, Prompt, Stage, clip, nothing
from .clock_panel import PanelStyle
from .colour_up import ColourUp, ColourUpPorts, ColourUpSettings, OpenPrompt
from .deck import DeckLibrary, DeckMap
from .display import KEEP, Keep, TableDisplays
from .hand_for_hand import HandForHand, bust_players
from .hand_in_play import HandInPlay
from .house_play import (
    CHANGE_DURING_HAND,
    CHANGE_RULE,
    adopt,
    change_refusal,
    straddle_of,
    terms,
    view_of,
)
from .input_journal import InputJournal
from .lights import Level, SeatLights
from .ports import Sink, TableDevices
from .seating import SeatsAndDeck
from .seats import Roster
from .timing import ClockPorts, TableClocks, levels_of

__all__ = ["CONTINUE", "MISDEAL", "LiveTable", "Outcome", "Prompt", "Stage", "nothing"]

log = logging.getLogger("pitboss.table")
_SECRET = (HoleCardsDealt, BurnedCard, CardSeen)  # hole, burn, read cards: never logged
_LOGGED = (Rejected, Irregularity)  # what the dealer must read: logged with the reason


_SHOT_CLOCK = ShotClockConfig()  # the default: a 30 s shot clock, or the house's
_HAND_INTENTS = (i.Fold, i.Check, i.Call, i.RaiseTo, i.ChipsPushed, i.Show, i.Muck, i.Confirm,
                 i.Undo, i.Correct, i.Choose, i.DeclareMisdeal)


@dataclass(slots=True)
class Outcome:
    """What one intent did: accepted or not, and the events it journaled (a refusal's
    ``Rejected`` among them). True when accepted."""

    accepted: bool
    events: list[JournalEvent] = field(default_factory=list)

    def __bool__(self) -> bool:
        return self.accepted

    @property
    def refusal(self) -> Rejected | None:
        """The refusal with its rule id and reason (None: accepted)."""
        if self.accepted:
            return None
        return next((e for e in reversed(self.events) if isinstance(e, Rejected)), None)


class LiveTable:
    """One live table on its hardware."""

    def __init__(
        self,
        hardware: TableDevices,
        *,
        sink: Sink,
        levels: Sequence[Level] = (),
        structure: Structure | None = None,
        deck: DeckMap | None = None,
        decks: DeckLibrary | None = None,
        profile: RulesProfile | None = None,
        variant: Variant | None = None,
        tournament: bool | None = None,
        rake: RakePolicy | None = None,
        clock: Clock | None = None,
        shot_clock: ShotClockConfig | None = _SHOT_CLOCK,
        extensions: ExtensionChips | None = None,
        house: House | None = None,
        clock_style: PanelStyle | None = None,
        colour_up: ColourUpSettings | None = None,
        wall_clock: Callable[[], float] | None = None,
        host_timeout_s: float = 90.0,
    ) -> None:
        """``shot_clock=None``: no shot clock (nor clock calls); ``extensions``: the
        players' time-bank extension chips; a tournament ``structure`` (levels, antes,
        breaks: LEVEL-2) or plain ``levels`` (timed ones run on a level clock); ``decks``:
        the saved decks (the one last in play is played unless ``deck`` is given);
        ``wall_clock`` (epoch seconds) and ``host_timeout_s`` for the level clock (see
        :mod:`controller.table.timing`). ``house``: the game, stakes or structure, rules,
        rake (cash), shot clock and extension chips of every one not given (see
        :mod:`controller.table.house_play`); without one, a cash NT table (LIVE_CASH)."""
        t = terms(house, levels=tuple(levels), structure=structure, profile=profile,
                  variant=variant, tournament=tournament, shot_clock=shot_clock,
                  shot_clock_given=shot_clock is not _SHOT_CLOCK, extensions=extensions,
                  default_profile=LIVE_CASH)
        levels, structure, profile, variant = t.levels, t.structure, t.profile, t.variant
        tournament, shot_clock, extensions = t.tournament, t.shot_clock, t.extensions
        if house is not None and rake is None:
            rake = house.rake
        self.house = house
        if structure is not None and levels:
            raise ValueError("give the table a structure or levels, not both")
        if structure is None and not levels:
            raise ValueError("a table needs at least one blind level")
        self.hardware = hardware
        self.sink = sink
        self.structure = structure
        self.profile = profile
        self.variant = variant
        self.tournament = tournament
        self.rake = None if tournament else rake  # RAKE-9: tournaments are not raked
        self.clock: Clock = clock or hardware.clock
        prof = hardware.profile
        self.roster = Roster(len(hardware.lights))
        self.where: dict[bytes, str] = {}  # uid -> the card reader it lies on now
        self.seat_reader = {spec.cards.name: spec.number for spec in prof.seats}
        self.player_reader = {spec.player.name: spec.number for spec in prof.seats}
        self.board_readers = frozenset(r.name for r in prof.board)
        self.muck_reader = prof.muck.name
        self.deck_reader = prof.deck.name
        self._depth = 0  # intents under way (the displays follow the outermost)
        self._quiet = False  # pump(): one refresh after the whole batch
        self._outcomes: list[Outcome] = []  # the intents under way, innermost last
        self.input_watchers: list[Callable[[], None]] = []  # told after each device event
        self.play = HandInPlay(
            journal=self.emit, beep=self._beep, roster=self.roster, profile=profile,
            variant=variant, tournament=tournament,
            colouring_up=lambda: self.colour_up.race is not None,
            enrolling=lambda: self.seating.enrolment is not None,
            on_hand_over=self._hand_over)
        self.inputs = InputJournal(  # inputs journaled before they are applied (audit),
            emit=lambda event: self.sink(event),  # to the journal alone: nothing to show
            clock=self.clock, view=self.play, profile=prof,
            card_of=lambda uid: None if (d := self.seating.deck) is None else d.card(uid))
        self.clocks = TableClocks(
            ClockPorts(clock=self.clock, view=self.play, roster=self.roster, emit=self.emit,
                       reject=self.play.reject, refresh_blinds=self.refresh_blinds,
                       release_light=self.release_light,
                       rule_on_time=self.inputs.clock_ruling(self.play.clock_ruled),
                       profile=profile, shot_clock=hardware.shot_clock,
                       buzzer=hardware.buzzer, light=hardware.light, blinds=hardware.blinds),
            levels=tuple(levels) if structure is None else levels_of(structure),
            shot_clock=shot_clock, extensions=extensions, style=clock_style,
            structure=structure, wall_clock=wall_clock, host_timeout_s=host_timeout_s)
        if deck is None and decks is not None:
            deck = decks.in_play()
        self.seating = SeatsAndDeck(
            roster=self.roster, view=self.play, emit=self.emit, reject=self.play.reject,
            alerts=self.play, tournament=tournament, extensions=extensions,
            snapshot=self.clocks.snapshot, deck=deck, decks=decks, beep=self._beep,
            grant=0 if house is None else house.clock.extension_chips)
        self.hand_for_hand = HandForHand(view=self.play, emit=self.emit,
                                         reject=self.play.reject)
        self.lights = SeatLights(hardware.lights)
        self.colour_up = ColourUp(ColourUpPorts(
            view=self.play, roster=self.roster, emit=self.emit, reject=self.play.reject,
            prompts=OpenPrompt(self.play.prompt, lambda: self.play.prompts,
                               self._close_prompts),
            level_no=lambda: self.clocks.level_no, levels=lambda: len(self.clocks.levels),
            blinds=hardware.blinds, lights=lambda: self.lights.lights,
            lights_changed=self._lights_changed), colour_up)
        self.displays = TableDisplays(view=self.play, clocks=self.clocks,
                                      colour_up=self.colour_up, blinds=hardware.blinds,
                                      lights=self.lights, house=lambda: self.house)
        self.refresh()
        self.clocks.start()

    # ================================================================ the one path in
    def submit(self, intent: i.Intent, origin: i.Origin | None = None) -> Outcome:
        """One intent from the dealer's terminal, a reader, a key or the host: accepted
        (its events journaled) or refused with the rule and a reason; the displays follow
        once the outermost intent is done. One with an ``origin`` is journaled first."""
        outcome = Outcome(False)
        if not self._depth:
            self.clocks.poll()  # time ran out before this input: the clock ruled first
            if origin is not None:
                self.inputs.take(intent, origin)
        self._depth += 1
        self._outcomes.append(outcome)
        try:
            outcome.accepted = self._dispatch(intent)
        except RulesError as exc:  # the engine refused: say why, change nothing more
            outcome.accepted = self.play.reject(exc.reason, exc.rule, type(intent).__name__)
        finally:
            self._outcomes.pop()
            self._depth -= 1
            if not self._depth and not self._quiet:
                self.refresh()
        return outcome

    def _dispatch(self, intent: i.Intent) -> bool:
        if isinstance(intent, i.CardPlaced):  # the most frequent inputs first
            self._card_placed(intent.reader, intent.uid)
            return True
        if isinstance(intent, i.CardLifted):
            self._card_lifted(intent.reader, intent.uid)
            return True
        if isinstance(intent, _HAND_INTENTS):
            return self.play.take(intent)
        play, seating, clocks, colour_up = self.play, self.seating, self.clocks, self.colour_up
        match intent:
            case i.Deal(straddle=straddle):
                return self._deal(straddle)
            case i.SetHouse(house=house):
                return self._set_house(house)
            case i.SeatNodeLost(seat=seat):
                play.node_offline(seat)
                return True
            case i.SeatNodeBack(seat=seat):
                play.drop_prompts("seat_node_offline", seat)
                play.emit(SeatNodeBack(hand_no=play.hand_no, seat=seat))  # the floor clears it
                self._lights_changed()
                return True
            case i.Key(name=name):
                return self._key(name)
            case i.CallClock(seat=seat, caller=caller):
                try:
                    who = Caller(caller)
                except ValueError:
                    return play.reject(f"{caller!r} cannot call the clock here: dealer or "
                                       "floor", "CLOCK-2", "call_clock")
                return clocks.call_clock(seat, who)
            case i.UseTimeBank(seat=seat):
                return clocks.use_extension(seat)
            case i.CountAllIn(on=on):
                clocks.set_counting(on)
                return True
            case i.Pause(on=on):
                return clocks.set_paused(on)
            case i.NextLevel():
                return clocks.next_level()
            case i.SyncClock(level=level, seconds_left=left, on_break=on_break):
                return clocks.adopt(level, left, on_break)
            case i.TakeSeat() | i.LeaveSeat() | i.AddChips() | i.SitOut() | i.ComeBack() \
                    | i.AssignSeat():
                return self._seat(intent)
            case i.PlaceButton(seat=seat):
                return play.place_button(seat)
            case i.NewGame():
                if not seating.between_hands("a new game"):
                    return False
                play.new_game()
                return True
            case i.BeginEnrolment(order=order, name=name):
                return seating.begin_enrolment(order, name)
            case i.FinishEnrolment():
                return seating.finish_enrolment()
            case i.ChooseDeck(name=name):  # CARD-6: between hands
                return seating.choose_deck(name)
            case i.SetHandForHand(on=on):
                return self.hand_for_hand.set(on)
            case i.ReleaseHand():
                return self.hand_for_hand.release()
            case i.StartColourUp(leaving=leaving, trigger=trigger):
                return colour_up.start(leaving or None, trigger)
            case i.ScheduleColourUp(level=level):
                return colour_up.schedule(level)
            case i.CountColourUp(seat=seat, chips=chips):
                return colour_up.count(seat, chips if isinstance(chips, int) else dict(chips))
            case i.KeyRaceCard(seat=seat, card=card):
                return colour_up.key_card(seat, card)
            case i.CancelColourUp(reason=reason):
                return colour_up.cancel(reason)
        return play.reject(f"the table does not take {type(intent).__name__}", None, "table")

    def _seat(self, intent: i.Intent) -> bool:
        seating = self.seating
        match intent:
            case i.TakeSeat(seat=seat, player=player, stack=stack, extension_chips=chips,
                            penalty_hands=penalty, buy_in=buy_in):
                limits = None if self.house is None or not buy_in else self.house.buy_in
                why = None if limits is None else limits.problem(stack)
                if why is not None and limits is not None:  # CASH-2/7/8: nothing changes
                    return self.play.reject(f"{player}: {why}", limits.rule, "seats")
                return seating.take_seat(seat, player, stack, extension_chips=chips,
                                         penalty_hands=penalty)
            case i.LeaveSeat(seat=seat):
                return seating.leave_seat(seat)
            case i.AddChips(seat=seat, player=player, chips=chips, reason=reason):
                return seating.add_chips(seat, player, chips, reason)
            case i.SitOut(seat=seat):
                return seating.sit_out(seat)
            case i.ComeBack(seat=seat):
                return seating.come_back(seat)
            case i.AssignSeat(card_uid=uid, player=player, seat=seat):
                return seating.assign(uid, player, seat)
        return False

    def _key(self, name: str) -> bool:
        """A console key: ``deal`` starts a hand, shows the next hand or confirms a pot;
        ``undo`` takes back the last action; ``misdeal``; ``next_level``; ``pause``
        stops or restarts the clocks; ``call_clock`` calls the clock on the player to act;
        ``count`` (the dealer counts an all-in: the clock waits); ``colour_up`` starts a
        colour-up (during one, the colour-up takes the keys)."""
        if self.colour_up.key(name):
            return True
        stage = self.play.stage
        intent: i.Intent
        if name == "deal":
            if stage is Stage.IDLE:
                intent = i.Deal()
            elif stage is Stage.SHOWDOWN:
                intent = i.Show()
            elif stage is Stage.AWARDING:
                intent = i.Confirm()
            else:
                return self.play.reject(f"the deal key does nothing while {stage}", None,
                                        "deal")
        elif name == "undo":
            intent = i.Undo(1, "dealer's undo key")
        elif name == "misdeal":
            intent = i.Choose("misdeal")
        elif name == "next_level":
            intent = i.NextLevel()
        elif name == "pause":
            intent = i.Pause(not self.clocks.paused)
        elif name == "call_clock":
            intent = i.CallClock()
        elif name == "count":
            intent = i.CountAllIn(not self.clocks.counting)
        else:
            return self.play.reject(f"the console has no key {name!r}", None, "key")
        return self._dispatch(intent)

    # ================================================================ cards at the readers
    def _card_placed(self, reader: str, uid: bytes) -> None:
        seat = self.player_reader.get(reader)
        if seat is not None:
            self.seating.player_card(seat, uid)
            return
        if reader == self.deck_reader:
            self.seating.deck_read(uid)
            return
        deck = self.seating.deck
        card = deck.card(uid) if deck is not None else None
        if card is None:  # never guessed: the dealer keys it in
            self._not_of_this_deck(reader, uid)
            return
        was = self.where.get(uid)
        self.where[uid] = reader
        if self.colour_up.race is not None:  # race cards (CHIPRACE-6)
            at = self.seat_reader.get(reader)
            if at is not None:
                self.colour_up.card_at_seat(at, card, self.seat_reader.get(was or ""))
            return
        if self.play.stage not in (Stage.DEALING, Stage.PLAYING, Stage.SHOWDOWN):
            return  # between hands and while awarding, cards are gathered
        if was is not None and was != reader and self.muck_reader not in (reader, was):
            self._two_readers(card, was, reader)
        elif reader in self.seat_reader:
            self.play.card("seat", self.seat_reader[reader], card)
        elif reader in self.board_readers:
            self.play.card("board", None, card)
        elif reader == self.muck_reader:
            self.play.card("muck", None, card)

    def _not_of_this_deck(self, reader: str, uid: bytes) -> None:
        """CARD-1: a tag the deck in play does not know. A card of another saved deck is
        foreign: during a hand the dealer may call a misdeal (the card is named on the
        dealer's screen only); any other tag is unknown."""
        foreign = self.seating.foreign(uid)
        if foreign is None:
            self.emit(DeckReport(what="unknown_card", reader=clip(reader, WORD)))
            self._beep()
            return
        name, card = foreign
        self.emit(DeckReport(what="foreign_card", reader=clip(reader, WORD), name=name))
        play = self.play
        if play.stage not in (Stage.DEALING, Stage.PLAYING, Stage.SHOWDOWN):
            self._beep()
            return
        play.prompt("foreign_card", f"a card of deck {name!r} was read at {reader}: it is "
                    "not of the deck in play", "CARD-1", self.seat_reader.get(reader),
                    [(Choice("continue", "take it out of play: the dealer puts it right"),
                      nothing), play.misdeal_choice()], cards=(card,))

    def _two_readers(self, card: Card, was: str, reader: str) -> None:
        """CARD-1: one card cannot lie at two readers (an antenna overlap, a second deck)."""
        play = self.play
        play.prompt("two_readers", f"the card is read at {was} and at {reader}: one card "
                    "cannot be in two places (an antenna overlap or a second deck)", "CARD-1",
                    self.seat_reader.get(reader),
                    [(Choice("continue", f"the card is at {was}: move it clear of {reader}"),
                      nothing), play.misdeal_choice()],
                    cards=(card,))

    def _card_lifted(self, reader: str, uid: bytes) -> None:
        if self.where.get(uid) == reader:
            del self.where[uid]
        seat = self.player_reader.get(reader)
        if seat is not None:
            self.seating.player_card_left(seat)

    # ================================================================ a new hand
    def _deal(self, straddle: int | None = None) -> bool:
        """The dealer's first shuffle is done: start the next hand (DEAL-4), with the
        straddle ``straddle``'s seat put out before the first hole card (STRADDLE-1..6)."""
        play = self.play
        if straddle is not None and play.stage is not Stage.IDLE:
            return play.reject("a straddle is put out before the first hole card; this hand "
                               f"is already under way ({play.stage})", "STRADDLE-4", "deal")
        if not self.colour_up.allows_hand():  # CHIPRACE-1: none during a colour-up
            return False
        if play.stage is not Stage.IDLE:
            return play.reject(f"a hand is already under way ({play.stage})", "DEAL-4",
                               "deal")
        held = self.hand_for_hand.holds(play.redeal is not None)
        if held is not None:  # TOURN-22
            return play.reject(held, "TOURN-22", "deal")
        if self.seating.deck is None:
            return play.reject("no deck is enrolled: enrol one at the deck reader",
                               "CARD-1", "deal")
        try:  # STRADDLE-1..6: refused before anything moves
            extra: dict[str, Any] = {} if straddle is None else {"straddle": straddle_of(
                straddle, play.next_positions, profile=self.profile, variant=self.variant,
                tournament=self.tournament)}
        except RulesError as exc:
            return play.reject(exc.reason, exc.rule, "deal")
        if not self.seating.count_at_deal(lambda: self._deal(straddle)):  # CARD-1: short
            return False
        try:  # LEVEL-1: the level in force at the deal key governs the hand
            number = self.clocks.hand_started() or self.clocks.level_no
        except ClockError as exc:
            return play.reject(exc.reason, exc.rule, "deal")
        levels = self.clocks.levels
        level = levels[min(number, len(levels)) - 1]
        house = self.house
        ante = level.ante if self.tournament else 0 if house is None or \
            house.ante_kind != "each" else house.ante
        try:
            positions = play.next_positions()
            stacks = {s.number: s.stack for s in self.roster.occupied()}
            if self.tournament:  # ANTE-1: the structure's antes
                extra.update(self.clocks.forced_bets(number, len(positions.dealt)))
            elif house is not None:  # ANTE-2/4, FL-2: the cash house's antes and bets
                extra.update(house.forced_bets(len(positions.dealt)))
            if self.variant is Variant.FT and "small_bet" not in extra:  # FL-2: the level's
                extra.update(small_bet=level.small_bet, big_bet=level.big_bet)
            config = positions.game_config(self.variant, stacks, level.small_blind,
                                           level.big_blind, rake=self.rake, **extra)
            hand = Hand(config, self.profile)
        except RulesError as exc:
            self.clocks.hand_over()
            return play.reject(exc.reason, exc.rule, "deal")
        self.hand_for_hand.hand_dealt()
        play.begin(hand, positions, level, number, ante)
        return True

    def _set_house(self, house: House) -> bool:
        """Play ``house`` from the next hand (LEVEL-1: never during a hand), journaled
        whole (``house_set``) so a restart and the floor read the very file."""
        play = self.play
        if play.stage is not Stage.IDLE:
            return play.reject(CHANGE_DURING_HAND, CHANGE_RULE, "set_house")
        why = change_refusal(house, tournament=self.tournament, structure=self.structure,
                             timed_levels=self.structure is None and self.clocks.level
                             is not None)
        if why is not None:
            return play.reject(*why, "set_house")
        adopt(house, play=play, clocks=self.clocks, seating=self.seating)
        self.house, self.variant, self.profile = house, house.variant, house.rules
        self.rake = None if house.tournament else house.rake  # RAKE-9
        self.emit(HouseSet(hand_no=play.hand_no, house=view_of(house), text=house.text))
        return True

    def _hand_over(self) -> None:
        """The hand is finished or void: the clocks stop, penalties count (PEN-4), a
        tournament's busted players leave."""
        self.clocks.hand_over()
        self.seating.serve_penalties(self.play.redeal is not None)
        if self.tournament:
            bust_players(self.roster, self.emit, self.play.hand_no)

    # ================================================================ plumbing
    def emit(self, event: JournalEvent) -> None:
        """To the journal first; logged without secrets (hole and burn cards are never
        logged, not even at DEBUG; an irregularity's reason never names a card)."""
        self.sink(event)
        if self._outcomes:
            self._outcomes[-1].events.append(event)
        self.displays_changed()
        if isinstance(event, _SECRET):
            log.debug("%s (secret, hand %d)", type(event).__name__, event.hand_no)
        elif isinstance(event, _LOGGED):
            log.info("%s: %s", type(event).__name__, event.reason)
        if isinstance(event, BreakStarted):  # the break's colour-up (CHIPRACE-*), journaled
            self.colour_up.on_break(event.level, event.colour_up)

    def displays_changed(self) -> None:
        displays = getattr(self, "displays", None)
        if displays is not None:
            displays.changed = True

    _lights_changed = displays_changed

    def _beep(self) -> None:
        self.hardware.buzzer.beep(BEEP_ERROR)

    def _close_prompts(self, prompts: Sequence[Prompt]) -> None:
        self.play.prompts = [p for p in self.play.prompts if all(p is not q for q in prompts)]

    # ================================================================ running
    def tick(self) -> None:
        """Let the clocks report what happened up to now (levels move on, the shot clock
        counts down and rules), then refresh the displays."""
        self.clocks.poll()
        self.refresh()

    # ================================================================ displays
    def refresh(self) -> None:
        """The clocks follow the hand, then the lights and the blinds display show the
        state (after the journal has it)."""
        self.clocks.sync()
        self.displays.refresh()

    def refresh_blinds(self, seconds_left: int | Keep | None = KEEP) -> None:
        """The blinds display follows the table (see :meth:`TableDisplays.show_blinds`)."""
        self.displays.show_blinds(seconds_left)

    def release_light(self, seat: int) -> None:
        """The clocks' panel lit ``seat`` and hands it back: the next refresh shows the
        table's state on it again."""
        self.displays.release_light(seat)

    def restore(self, *, hand_no: int, level_no: int | None, previous: Positions | None,
                redeal: bool) -> None:
        """After a restart: the journal's last hand number, level and layout (CRASH-1; the
        hand a crash cut short was voided before)."""
        self.play.restore(hand_no, previous, redeal)
        if level_no is not None:
            self.clocks.level_no = min(level_no, len(self.clocks.levels))
        self.refresh()

    def restore_clock(self, snapshot: ClockSnapshot) -> None:
        """After a restart: the clocks continue from the journal's last snapshot (the
        journal's ``PublicState.clock``)."""
        self.clocks.restore(snapshot)
        self.refresh()

    def _refuse(self, reason: str, rule: str | None, source: str) -> Outcome:
        outcome = Outcome(False)
        self._outcomes.append(outcome)
        try:
            self.play.reject(reason, rule, source)
        finally:
            self._outcomes.pop()
        self.refresh()
        return outcome
