"""The virtual table: the ``virtual`` board profile on mock hardware, simulated players and
a simulated dealer, in virtual time. It plays complete hands headless and checks that no
chip is made or lost after each one.

    vt = VirtualTable(players=6, seed=7)
    summary = vt.play_hands(1000)

The dealer shuffles with the ``random.Random`` it is given, places every card at the mock
readers (hole cards one at a time clockwise, a burn at the muck before each street, the
board at the board reader), keys in the chips each player pushes, pushes folded hands to
the muck, and presses the console keys (``deal`` to start, to show and to push each pot).
Players are bots that pick a legal action at random. Time is the mock's virtual clock:
``pace`` virtual seconds pass per action (so levels move on), and ``speed`` slows a run
down to a multiple of real time for a demo.

Given a house (:mod:`controller.clocks.house`) the table plays it: its game, stakes or
structure, rules, rake and clock; the bots buy in inside its limits (CASH-2/7/8) or with
the tournament's starting stack, and a cash bot that busts buys in again. Where the house
allows straddles the dealer deals about one hand in seven with one (STRADDLE-1..3).

In a tournament the table may also start empty (``players=0``): the host seats and removes
the players (``take_seat``/``leave_seat`` through its commands), the bots play whoever is
seated, a player left with no chips is busted by the table, and :meth:`dealing_held` says
why a hand cannot be dealt now (fewer than two players, paused, a break, hand-for-hand).
"""

from __future__ import annotations

import random
import time
from collections import Counter, deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from controller.chiprace import Phase as RacePhase
from controller.clocks.house import House
from controller.clocks.shot_clock import ShotClockConfig
from controller.clocks.structure import Structure
from controller.devices.mock import MockTable
from controller.devices.profile import load_profile
from controller.events import (
    HandEnded,
    JournalEvent,
    PlayerRemoved,
    PlayerSeated,
    Rejected,
    StackAdjusted,
)
from controller.rules.config import LIVE_CASH, LIVE_TOURNAMENT, RulesProfile, Variant
from controller.rules.hand import Hand, Phase
from controller.rules.rake import RakePolicy

from . import intents as i
from .deck import DeckMap
from .house_play import shot_clock_of
from .lights import Level
from .ports import Sink
from .table import Stage, Table


class ChipsNotConserved(AssertionError):
    """Chips were made or lost: the stacks do not add up to what was bought in."""


@dataclass(frozen=True, slots=True)
class PlaySummary:
    """What ``play_hands`` did."""

    hands: int
    misdeals: int
    rejected: int
    irregularities: int
    seconds: float  # wall time
    virtual_seconds: float

    @property
    def hands_per_second(self) -> float:
        return self.hands / self.seconds if self.seconds else float("inf")


_CASH_LEVELS = (Level(50, 100),)  # cash: no level clock
STRADDLES = 0.15  # the share of hands dealt with a straddle, where the house allows one
TO_THE_MAX = 0.2  # of a house's bots' raises: to the most they may (NL all-in, PL the
#                  pot, FL the bet); a table without a house keeps its bots' old mix


class VirtualTable:
    """A complete table with bots and a dealer, headless, in virtual time."""

    def __init__(
        self,
        players: int | None = None,
        *,
        seed: int | None = None,
        rng: random.Random | None = None,
        profile: str = "virtual",
        rules: RulesProfile | None = None,
        tournament: bool = False,
        variant: Variant | None = None,
        stack: int | None = None,
        levels: Sequence[Level] = _CASH_LEVELS,
        structure: Structure | None = None,  # a tournament's (replaces levels; issue 5)
        rake: RakePolicy | None = None,
        sink: Sink | None = None,
        keep_events: int = 2_000,
        pace: float = 0.0,
        fold_to_muck: float = 0.5,
        shot_clock: ShotClockConfig | None = None,
        slow: float = 0.0,
        house: House | None = None,
    ) -> None:
        """``shot_clock``: the table's shot clock (None: none, the default for throughput;
        bots act at once, so with ``pace`` below its time it never runs out). ``slow``:
        with a shot clock, the share of decisions a bot thinks over into the final
        countdown; one in eight of those runs out of time (the clock rules, CLOCK-*).
        ``players=0`` (tournament only): the table starts empty and the host seats it;
        None: 6, or the house's (a sit & go's field, at most its seats). ``house``: the
        game, stakes or structure, rules, rake and shot clock of every one not given;
        ``stack``: each bot's buy-in (default: drawn inside the house's limits, the
        tournament's starting stack, or 10,000)."""
        self.rng = rng or random.Random(seed)
        self.hardware = MockTable(load_profile(profile))
        self.house = house
        if house is not None:
            tournament = house.tournament
            if players is None:
                players = house.players or min(6, house.seats)
        players = 6 if players is None else players
        if players > len(self.hardware.lights) or players < (0 if tournament else 2) \
                or players == 1:
            raise ValueError(f"{players} players do not fit the {profile} table "
                             f"(2..{len(self.hardware.lights)}, or 0 in a tournament the "
                             "host seats)")
        self.events: deque[JournalEvent] = deque(maxlen=keep_events)
        self.counts: Counter[str] = Counter()  # events by class name (``HandEnded``...)
        self._outer = sink
        self.bought_in = 0  # chips seated, less chips that left with their players
        self.rake = 0
        stable = self.hardware.profile.debounce.stable_s
        self._settle = stable + 0.001  # one card becomes a read
        self._gone = self.hardware.profile.debounce.gone_s + 0.001
        self.uids = [self.rng.randbytes(7) for _ in range(52)]
        if house is None:
            self.table = Table(
                self.hardware, sink=self._sink,
                levels=() if structure is not None else levels, structure=structure,
                deck=DeckMap.from_order(self.uids),
                profile=rules or (LIVE_TOURNAMENT if tournament else LIVE_CASH),
                variant=variant or Variant.NT, tournament=tournament, rake=rake,
                shot_clock=shot_clock)
        else:  # the house's, unless given here
            given = levels is not _CASH_LEVELS and structure is None
            self.table = Table(
                self.hardware, sink=self._sink, levels=levels if given else (),
                structure=structure, deck=DeckMap.from_order(self.uids), profile=rules,
                variant=variant, rake=rake,
                shot_clock=shot_clock or shot_clock_of(house), house=house)
        shot = self.table.clocks.shot
        config = None if shot is None else shot.config
        self.players = players
        self.stack = stack
        self.tournament = tournament
        self.pace = pace
        self.fold_to_muck = fold_to_muck
        self.slow = slow if config is not None and config.action_s else 0.0
        self._action_s = config.action_s if config is not None else None
        self._countdown_s = config.countdown_s if config is not None else 0
        self.host_seated = players == 0  # the host seats and removes the players
        self._placed: list[tuple[str, bytes]] = []
        for seat in range(1, players + 1):
            self._seat(seat)
        if players:
            self.table.submit(i.PlaceButton(self.rng.randint(1, players)))  # BTN-1, BTN-4: the draw

    # ------------------------------------------------------------------ plumbing
    def _sink(self, event: JournalEvent) -> None:
        self.events.append(event)
        self.counts[type(event).__name__] += 1
        if isinstance(event, HandEnded):
            self.rake += event.rake
        elif isinstance(event, PlayerSeated):
            self.bought_in += event.stack
        elif isinstance(event, PlayerRemoved):
            self.bought_in -= event.stack or 0
        elif isinstance(event, StackAdjusted):  # a chip race changes the chips in play; a
            self.bought_in += sum(a.after - a.before for a in event.seats)  # rebuy buys some
        if self._outer is not None:
            self._outer(event)

    def buy_in(self) -> int:
        """A bot's chips as it sits down: the table's ``stack``, else a buy-in drawn
        inside the house's limits (CASH-2/7/8; 100 big blinds without limits), or the
        tournament's starting stack."""
        house = self.house
        if self.stack is not None:
            return self.stack
        if house is None:
            return 10_000
        if house.tournament:
            return house.starting_stack or 10_000
        if house.buy_in is not None:
            return self.rng.randint(house.buy_in.minimum, house.buy_in.maximum)
        return 100 * (house.stakes.big_blind if house.stakes is not None else 100)

    def _seat(self, seat: int) -> None:
        self.table.submit(i.TakeSeat(seat, f"bot{seat}", self.buy_in()))

    def _step(self, seconds: float) -> None:
        for event in self.hardware.advance(seconds, step=seconds):
            self.table.handle(event, refresh=False)
        self.table.tick()

    def place(self, reader: str, card: int) -> None:
        """The dealer puts ``card`` at ``reader`` and it becomes a stable read."""
        uid = self.uids[card]
        self.hardware.drive_card_placed(reader, uid)
        self._placed.append((reader, uid))
        self._step(self._settle)

    def press(self, key: str) -> None:
        self.hardware.drive_key_press(key)
        self.hardware.drive_key_release(key)
        self._step(0.0)

    def check_chips(self) -> None:
        """Raise :class:`ChipsNotConserved` unless every chip bought in is accounted for."""
        on_table = self.table.roster.total_chips()
        hand = self.table.hand
        if hand is not None:  # stacks are in the hand while it runs
            pos = self.table.positions
            assert pos is not None
            in_hand = sum(hand.stacks) + hand.pot_total
            if hand.payouts is not None:
                in_hand = sum(hand.stacks)
            on_table += in_hand - sum(self.table.roster[s].stack for s in pos.dealt)
            if in_hand + hand.rake != sum(hand.config.stacks):
                raise ChipsNotConserved(f"hand {self.table.hand_no}: {in_hand} in the hand, "
                                        f"{sum(hand.config.stacks)} brought in")
        if on_table + self.rake != self.bought_in:
            raise ChipsNotConserved(f"after hand {self.table.hand_no}: {on_table} on the table"
                                    f" + {self.rake} rake, {self.bought_in} bought in")

    # ------------------------------------------------------------------ one hand
    def _gather(self) -> None:
        for reader, uid in self._placed:
            self.hardware.drive_card_lifted(reader, uid)
        self._placed.clear()
        self._step(self._gone)
        self.hardware.forget_history()  # the mock records every pin change: keep it flat

    def count_deck(self) -> None:
        """The dealer runs the whole deck over the deck reader at the shuffle (CARD-1)."""
        for uid in self.uids:
            self.hardware.drive_card_placed("deck", uid)
        self._step(self._settle)
        for uid in self.uids:
            self.hardware.drive_card_lifted("deck", uid)
        self._step(self._gone)

    def _refill(self) -> None:
        t = self.table
        for s in list(t.roster.seats.values()):
            if s.player and s.stack == 0:
                t.submit(i.LeaveSeat(s.number))
                if not self.tournament:
                    self._seat(s.number)
        if len(t.roster.playing()) < 2:  # a tournament is over: a new one
            for s in list(t.roster.occupied()):
                t.submit(i.LeaveSeat(s.number))
            t.submit(i.NewGame())
            for number in range(1, self.players + 1):
                self._seat(number)
            t.submit(i.PlaceButton(self.rng.randint(1, self.players)))

    def advance(self, seconds: float) -> None:
        """Let ``seconds`` of virtual time pass at the idle table (levels and breaks run)."""
        if seconds > 0:
            self._step(seconds)

    def skip_break(self) -> bool:
        """The table's own level clock is on a break: let the rest of it pass in virtual
        time at once (virtual time that follows the hands only, ``--speed 0``); True if
        there was a break to pass."""
        level = self.table.clocks.level
        if level is None or not level.on_break or level.paused:
            return False
        self.advance(level.seconds_left(self.table.clock()) + 0.001)
        return True

    def dealing_held(self) -> str | None:
        """Why the next hand cannot be dealt now; None when it can."""
        t = self.table
        if t.stage is not Stage.IDLE:
            return f"hand {t.hand_no} is under way ({t.stage})"
        if sum(1 for s in t.roster.occupied() if s.stack > 0) < 2:
            return "fewer than two players are seated"
        if t.clocks.paused:
            return "the table is paused"
        if t.clocks.level is not None and t.clocks.level.on_break:
            return "the tournament is on a break"
        return t.hand_for_hand.holds(t.redeal is not None)

    def _draw_button(self) -> None:
        """BTN-4: before a host-seated table's first hand, the button is drawn among the
        seated players."""
        t = self.table
        if t.previous is None and t.redeal is None:
            seated = [s.number for s in t.roster.occupied()]
            if t.button not in seated:
                t.submit(i.PlaceButton(self.rng.choice(seated)))

    def _colour_up(self) -> None:
        """The dealer runs the colour-up under way as at a real table: keys in each
        seat's count (the fewest leaving chips its stack can hold), puts down the race
        cards at the seats' readers, then the deal key twice (chips handed out, stacks
        confirmed); a refused step calls the colour-up off."""
        t = self.table
        race = t.colour_up.race
        if race is None:
            return
        order = list(range(52))
        self.rng.shuffle(order)
        deck = iter(order)
        for seat, _ in race.expect().due:
            counted = tuple(t.colour_up.smallest_count(seat).items())
            if not t.submit(i.CountColourUp(seat, counted)):
                t.submit(i.CancelColourUp(f"seat {seat}'s stack holds no whole count"))
                self._gather()
                return
        for _ in range(52):
            to = race.expect().seat
            if race.phase is not RacePhase.DEAL or to is None:
                break
            self.place(f"seat{to}", next(deck))
        if not (t.key("deal") and t.key("deal")):  # handed out, then confirmed
            t.submit(i.CancelColourUp("the race could not be settled"))
        self._gather()

    def play_hand(self, during: Callable[[], object] | None = None) -> bool:
        """Play one hand to its end; False if it could not start. ``during`` is called
        once, when the hole cards are out (the floor acting while a hand runs)."""
        t = self.table
        if self.host_seated:
            if t.stage is Stage.COLOUR_UP:  # a break's colour-up began between hands (the
                self._colour_up()           # host's break): the dealer runs it now
            if self.dealing_held() is not None:
                return False
            self._draw_button()
        else:
            self._refill()
        self._deal()
        if t.stage is Stage.COLOUR_UP:  # a colour-up came due (CHIPRACE-*): run it, deal
            self._colour_up()
            self.press("deal")
        if t.stage is not Stage.DEALING:
            return False
        hand_no = t.hand_no
        order = list(range(52))
        self.rng.shuffle(order)
        deck = iter(order)
        assert t.reads is not None
        dealt, per_seat = t.reads.dealt, t.reads.per_seat
        for _ in range(per_seat):
            for seat in dealt:
                self.place(f"seat{seat}", next(deck))
        if during is not None:
            during()
        guard = 0
        while t.hand_no == hand_no and t.hand is not None:
            guard += 1
            if guard > 500:
                raise RuntimeError(f"hand {hand_no} is stuck at {t.stage}")
            self._next_move(deck)
        self._gather()
        return True

    def _deal(self) -> None:
        """The dealer starts the hand: the deal key, or about one hand in seven where the
        house allows a straddle, the deal with one of the seats that may put it out
        (the button under Mississippi, or UTG: STRADDLE-1..3)."""
        t = self.table
        seats = t.straddle_seats() if self.house is not None else ()
        if seats and self.rng.random() < STRADDLES:
            t.submit(i.Deal(straddle=self.rng.choice(seats)))
            self._step(0.0)
        else:
            self.press("deal")

    def _next_move(self, deck: Iterator[int]) -> None:
        t = self.table
        hand = t.hand
        if t.prompts:  # the dealer carries on past anything the table flagged
            key = next(iter(t.prompts[-1].actions))
            t.submit(i.Choose("continue" if "continue" in t.prompts[-1].actions else key))
            return
        if t.stage is Stage.AWARDING or t.stage is Stage.SHOWDOWN:
            if t.stage is Stage.SHOWDOWN and hand is not None and hand.can_muck() \
                    and self.rng.random() < 0.3:
                t.submit(i.Muck())
            else:
                self.press("deal")
            return
        assert hand is not None
        if hand.phase is Phase.DEAL_BOARD:
            self.place("muck", next(deck))  # the burn (CARD-8), then the street
            for _ in range(3 if hand.street == 0 else 1):
                self.place("board1", next(deck))
            return
        if hand.actor is None:
            raise RuntimeError(f"hand {t.hand_no}: nobody to act at {hand.phase}")
        if self.slow and self.rng.random() < self.slow and self._think(hand):
            return  # the time ran out: the clock ruled for the bot
        self._bot(hand.actor)
        if self.pace:
            self._step(self.pace)

    def _think(self, hand: Hand) -> bool:
        """A bot thinks into the final countdown (the display counts down, the buzzer
        beeps), now and then until the time runs out; True if the clock ruled."""
        assert self._action_s is not None
        actor, acted = hand.actor, len(hand.log)
        if self.rng.random() < 0.125:
            wait = self._action_s + 0.5  # past the time: the table checks or folds
        else:
            wait = self._action_s - self.rng.uniform(0.5, max(1.0, self._countdown_s))
        left = wait - self.pace  # the last pace already ran on this player's clock

        def ruled() -> bool:
            return self.table.hand is not hand or hand.actor != actor or len(hand.log) != acted

        while left > 0 and not ruled():  # second by second: the display and buzzer follow
            self._step(min(1.0, left))
            left -= 1.0
        return ruled()

    def _bot(self, position: int) -> None:
        t = self.table
        hand = t.hand
        assert hand is not None
        seat = t.seat_of(position)
        r = self.rng.random()
        owed = hand.current_bet - hand.bets[position]
        low, high = hand.min_raise_to, hand.max_raise_to
        if owed > 0 and r < 0.25:
            if self.rng.random() < self.fold_to_muck:
                assert t.reads is not None
                for card in t.reads.hole[seat]:
                    self.hardware.drive_card_lifted(f"seat{seat}", self.uids[card])
                    self.place("muck", card)
            else:
                t.submit(i.Fold())
        elif low is not None and high is not None and r > 0.8:
            x = self.rng.random()  # the least, the most (NL: all in), or in between
            most = TO_THE_MAX if self.house is not None else 0.0  # without: as ever
            to = low if x < 0.7 - most else high if x < 0.7 else self.rng.randint(low, high)
            t.submit(i.ChipsPushed(to - hand.bets[position]))  # silently, in one motion
        elif owed > 0:
            t.submit(i.ChipsPushed(hand.call_amount) if self.rng.random() < 0.5 else i.Call())
        else:
            t.submit(i.Check())

    # ------------------------------------------------------------------ many hands
    def play_hands(self, n: int, *, speed: float | None = None,
                   check_every: int = 1) -> PlaySummary:
        """Play ``n`` complete hands, checking chip conservation after each
        ``check_every`` hands; ``speed`` paces a demo at that multiple of real time."""
        start = time.perf_counter()
        v0 = self.hardware.virtual_clock.now
        played = 0
        while played < n:
            v_before = self.hardware.virtual_clock.now
            if not self.play_hand():
                last = [e for e in self.events if isinstance(e, Rejected)][-1:]
                raise RuntimeError(f"no hand could start: {last}")
            played += 1
            if check_every and played % check_every == 0:
                self.check_chips()
            if speed:
                time.sleep((self.hardware.virtual_clock.now - v_before) / speed)
        return PlaySummary(played, self.counts["MisdealDeclared"], self.counts["Rejected"],
                           self.counts["Irregularity"], time.perf_counter() - start,
                           self.hardware.virtual_clock.now - v0)
