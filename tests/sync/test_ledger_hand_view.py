"""The hand in play in the table's public state (``PublicState.hand``): the ledger's fold
replays the public log through the rules engine, so the seat to act, the amount to call and
the raise limits are the engine's, step by step, whatever the forced bets.

Each hand here is played by an engine that knows the hole cards; its public events are
folded into the state, and after every step the state's view must equal that engine's own
:func:`view_of` (positions as seats), besides the numbers each test names.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path

import pytest

from controller.events import (
    ActionAccepted,
    ActionsUndone,
    BoardDealt,
    GameSetup,
    HandEnded,
    HandStarted,
    HoleDealt,
    MisdealDeclared,
    PlayerSeated,
    PublicEvent,
    PublicState,
    SeatView,
)
from controller.events.state import PublicHand
from controller.rules.actions import Action
from controller.rules.cards import DECK, parse_cards
from controller.rules.config import LIVE_CASH, LIVE_TOURNAMENT, RulesProfile, Variant
from controller.rules.game import GameConfig, Post, Straddle
from controller.rules.hand import Hand
from controller.rules.view import view_of
from controller.sync.hand_view import LIVE_HANDS
from controller.sync.journal import Journal
from controller.sync.ledger import fold

BOARDS = {"2h", "5c", "9s", "Td", "3h"}


class Played:
    """A hand the engine plays with its hole cards; the ledger folds its public events."""

    def __init__(self, seats: Sequence[int], config: GameConfig,
                 profile: RulesProfile | None = None, *, hand_no: int = 1,
                 state: PublicState | None = None, level: int = 3, read: bool = True
                 ) -> None:
        self.seats = tuple(seats)
        self.hand_no = hand_no
        self.hand = Hand(config, profile or LIVE_CASH)
        self.state = state or PublicState(seats=tuple(
            SeatView(seat=s, player=f"p{s}", stack=n)
            for s, n in sorted(zip(self.seats, config.stacks, strict=True))))
        self.events: list[PublicEvent] = []
        self.fold(HandStarted(
            hand_no=hand_no, seats=self.seats, stacks=config.stacks,
            small_blind=config.small_blind, big_blind=config.big_blind,
            ante=max(config.antes, default=0), level=level,
            config=GameSetup.of(config, profile)))
        deck = [c for c in DECK if str(c) not in BOARDS]  # the boards the tests deal
        random.Random(hand_no).shuffle(deck)
        for player in range(len(self.seats)):
            self.hand.deal_hole(player, [deck.pop(), deck.pop()] if read else [None, None])
            self.fold(HoleDealt(hand_no=hand_no, player=player, count=2))

    @property
    def view(self) -> PublicHand:
        assert self.state.hand is not None
        return self.state.hand

    def fold(self, event: PublicEvent) -> None:
        self.state = fold(self.state, event)
        self.events.append(event)
        if self.state.hand_in_progress:
            assert_engine_view(self.state, self.hand, self.seats)

    def did(self, action: Action) -> None:
        """An action the engine just took, as the table reports it."""
        self.fold(ActionAccepted.of(self.hand_no, action))

    def board(self, text: str) -> None:
        cards = parse_cards(text)
        self.hand.deal_board(cards)
        self.fold(BoardDealt(hand_no=self.hand_no, cards=tuple(str(c) for c in cards)))

    def turn(self) -> tuple[int | None, int, int | None]:
        """The seat to act, the amount to call, the minimum raise total, as the state has
        them."""
        return self.view.to_act, self.view.to_call, self.view.min_raise_to


def assert_engine_view(state: PublicState, hand: Hand, seats: tuple[int, ...]) -> None:
    """The state's hand is the engine's view of ``hand``, field by field, as seats."""
    view, got = view_of(hand), state.hand
    assert got is not None, "no hand view while a hand is in progress"

    def seat(p: int | None) -> int | None:
        return None if p is None else seats[p]

    assert (got.stage, got.street, got.to_act, got.to_call, got.min_raise_to,
            got.max_raise_to, got.current_bet, got.pot_total, got.next_to_show) == (
        view.phase.value, view.street.value, seat(view.to_act), view.to_call,
        view.min_raise_to, view.max_raise_to, view.current_bet, view.pot_total,
        seat(view.next_to_show))
    assert got.board == tuple(str(c) for c in view.board)
    assert [(p.seat, p.stack, p.bet, p.folded, p.all_in, p.mucked) for p in got.players] == \
        list(zip(seats, view.stacks, view.bets, view.folded, view.all_in, view.mucked,
                 strict=True))
    assert [(p.amount, p.seats) for p in got.pots] == [
        (p.amount, tuple(seats[i] for i in p.eligible)) for p in view.pots]
    assert set(got.legal) == {m for m, ok in (
        ("fold", view.can_fold), ("check", view.can_check), ("call", view.can_call),
        ("bet_raise", view.can_bet_or_raise)) if ok}


NT = Variant.NT


# ---------------------------------------------------------------------------- forced bets
def test_ante_4_a_player_all_in_for_the_ante_is_passed_over_preflop() -> None:
    # seat 6 (under the gun) has 10 chips: the ante takes them all, so the button acts
    played = Played((2, 4, 6, 8), GameConfig(NT, (1000, 1000, 10, 1000), 50, 100,
                                             antes=(10, 10, 10, 10)))
    assert played.turn() == (8, 100, 200)
    assert played.view.legal == ("fold", "call", "bet_raise")
    assert played.view.max_raise_to == 990  # all-in: the ante is gone from the stack
    assert [p.all_in for p in played.view.players] == [False, False, True, False]
    assert [(p.amount, p.seats) for p in played.view.pots] == [(40, (2, 4, 6, 8))]
    assert played.view.pot_total == 190
    assert played.state.stakes is not None and (
        played.state.stakes.small_blind, played.state.stakes.big_blind,
        played.state.stakes.ante, played.state.stakes.level) == (50, 100, 10, 3)
    played.did(played.hand.call())
    assert played.turn() == (2, 50, 200)  # the small blind completes


def test_ante_2_the_big_blind_ante_is_dead_money_in_the_main_pot() -> None:
    played = Played((1, 2, 3), GameConfig(NT, (1000, 1000, 1000), 50, 100,
                                          big_blind_ante=100))
    assert played.turn() == (3, 100, 200)
    assert played.view.pot_total == 250
    assert played.state.stakes is not None and played.state.stakes.big_blind_ante == 100


def test_straddle_2_the_straddle_sets_the_call_and_keeps_its_option() -> None:
    played = Played((1, 2, 3, 4), GameConfig(NT, (1000,) * 4, 50, 100,
                                             straddle=Straddle.UTG, straddle_amount=200))
    assert played.turn() == (4, 200, 400)  # first left of the straddler (seat 3)
    assert played.state.stakes is not None and played.state.stakes.straddle == 200
    played.did(played.hand.call())
    assert played.turn() == (1, 150, 400)
    played.did(played.hand.call())
    assert played.turn() == (2, 100, 400)
    played.did(played.hand.call())
    assert played.turn() == (3, 0, 400)  # the straddler's option (STRADDLE-2)
    assert played.view.legal == ("fold", "check", "bet_raise")


def test_blind_4_a_live_post_may_check_when_the_action_comes_back_unraised() -> None:
    played = Played((1, 2, 3, 4, 5), GameConfig(NT, (1000,) * 5, 50, 100,
                                                posts=(Post(3, live=100),)))
    assert played.turn() == (3, 100, 200)
    played.did(played.hand.call())
    assert played.turn() == (4, 0, 200)  # the post is live: it counts toward the call
    assert "check" in played.view.legal and "call" not in played.view.legal


def test_btn_3_heads_up_the_button_posts_the_small_blind_and_acts_first() -> None:
    played = Played((7, 3), GameConfig(NT, (1000, 1000), 50, 100))  # seat 3: the button
    assert played.turn() == (3, 50, 200)
    played.did(played.hand.call())
    assert played.turn() == (7, 0, 200)  # BLIND-2: the big blind's option
    played.did(played.hand.check())
    assert (played.view.stage, played.view.to_act) == ("deal_board", None)
    played.board("2h5c9s")
    assert played.turn() == (7, 0, 100)  # after the flop the big blind acts first
    assert played.view.street == "flop" and played.view.board == ("2h", "5c", "9s")


def test_blind_2_the_big_blind_may_check_or_raise_when_everyone_limps() -> None:
    played = Played((4, 5, 6), GameConfig(NT, (1000,) * 3, 50, 100))
    played.did(played.hand.call())  # the button
    played.did(played.hand.call())  # the small blind completes
    assert played.turn() == (5, 0, 200)
    assert played.view.legal == ("fold", "check", "bet_raise")
    played.did(played.hand.check())
    assert played.view.stage == "deal_board" and played.view.to_act is None
    assert [(p.amount, p.seats) for p in played.view.pots] == [(300, (4, 5, 6))]


def test_pot_1_an_all_in_call_makes_a_side_pot_and_is_passed_over() -> None:
    played = Played((1, 5, 9), GameConfig(NT, (300, 1000, 1000), 50, 100))
    played.did(played.hand.bet_or_raise_to(400))  # the button (seat 9)
    assert played.turn() == (1, 250, None)  # a raise would be more than seat 1 has
    assert played.view.legal == ("fold", "call")
    played.did(played.hand.call())  # all-in for 300
    assert played.turn() == (5, 300, 700)
    played.did(played.hand.call())
    assert [(p.amount, p.seats) for p in played.view.pots] == [(900, (1, 5, 9)),
                                                              (200, (5, 9))]
    played.board("2h5c9s")
    assert played.turn() == (5, 0, 100)  # seat 1 is all-in: the big blind is first
    assert [p.all_in for p in played.view.players] == [True, False, False]


def test_show_3_the_rules_profile_of_the_hand_decides_who_shows_first() -> None:
    config = GameConfig(NT, (1000, 1000, 1000), 50, 100)
    shown: dict[str, int | None] = {}
    for profile in (LIVE_CASH, LIVE_TOURNAMENT):
        # no card was read at the seats, so neither profile can table a hand by itself
        played = Played((2, 4, 6), config, profile, read=False)
        played.did(played.hand.bet_or_raise_to(1000))  # the button, all-in
        played.did(played.hand.call())
        played.did(played.hand.call())
        for text in ("2h5c9s", "Td", "3h"):
            played.board(text)
        shown[profile.name] = played.view.next_to_show
    # cash: the last aggressor first; tournament: every hand at once, from the button's left
    assert shown == {"live": 6, "live-tournament": 2}


# ---------------------------------------------------------------------------- the hand's life
def test_live_25_a_misdeal_clears_the_hand_and_the_redeal_shows_it_again() -> None:
    config = GameConfig(NT, (1000, 1000, 1000), 50, 100, antes=(5, 5, 5))
    played = Played((1, 2, 3), config)
    first = played.turn()
    played.fold(MisdealDeclared(hand_no=1, stacks=config.stacks, reason="a card flashed",
                                rule="LIVE-25"))
    state = played.state
    assert (state.hand, state.game, state.hand_in_progress, state.redeal) == (
        None, None, False, True)
    assert state.stakes is not None and state.stakes.ante == 5  # still the blinds in force
    again = Played((1, 2, 3), config, hand_no=2, state=state)
    assert again.turn() == first == (3, 100, 200)


def test_a_hand_ended_leaves_no_hand_view_and_the_stakes_in_force() -> None:
    played = Played((1, 2), GameConfig(NT, (1000, 1000), 50, 100))
    played.did(played.hand.fold())
    assert played.view.stage == "complete" and played.view.to_act is None
    played.fold(HandEnded(hand_no=1, stacks=tuple(played.hand.stacks)))
    assert played.state.hand is None and played.state.game is None
    assert played.state.stakes is not None and played.state.stakes.big_blind == 100


def test_deal_6_an_undo_shows_the_engine_view_of_the_shorter_log() -> None:
    played = Played((1, 2, 3), GameConfig(NT, (1000,) * 3, 50, 100))
    before = played.turn()
    played.did(raised := played.hand.bet_or_raise_to(300))
    assert played.turn() == (1, 250, 500)
    played.hand.undo()
    played.fold(ActionsUndone(hand_no=1, actions=(ActionAccepted.of(1, raised),)))
    assert played.turn() == before == (3, 100, 200)


def test_a_whole_hand_is_replayed_once_then_kept_step_by_step() -> None:
    replays = LIVE_HANDS.replays
    played = Played((1, 2, 3, 4, 5, 6), GameConfig(NT, (1000,) * 6, 50, 100))
    while not played.hand.is_complete:
        if played.hand.actor is not None:
            played.did(played.hand.check_or_call())
        elif played.hand.next_to_show is not None:
            played.did(played.hand.show())
        else:
            played.board({0: "2h5c9s", 3: "Td", 4: "3h"}[len(played.hand.board)])
    assert len(played.events) > 20
    assert LIVE_HANDS.replays - replays == 1  # the hand's start; each step after it is one


def test_a_log_the_engine_refuses_leaves_no_view_and_is_still_journaled() -> None:
    state = PublicState(seats=(SeatView(seat=1, player="a", stack=100),
                               SeatView(seat=2, player="b", stack=100)))
    state = fold(state, HandStarted(hand_no=1, seats=(1, 2), stacks=(100, 100),
                                    small_blind=1, big_blind=2))  # an old table: no config
    assert state.hand is not None and state.hand.to_act is None  # cards not dealt yet
    state = fold(state, ActionAccepted(hand_no=1, player=0, action="check"))
    assert state.hand is None and state.hand_in_progress and len(state.hand_log) == 1


def test_the_hand_view_survives_a_restart_and_a_json_round_trip(tmp_path: Path) -> None:
    played = Played((1, 3, 5), GameConfig(NT, (500, 800, 1200), 25, 50, antes=(5, 5, 5)))
    played.did(played.hand.bet_or_raise_to(150))
    played.did(played.hand.call())
    journal = Journal(tmp_path / "t.db", table="t1")
    try:
        journal.append([PlayerSeated(seat=s, player=f"p{s}", stack=n)
                        for s, n in ((1, 500), (3, 800), (5, 1200))])
        journal.append(played.events)
        assert journal.state.hand == played.state.hand
    finally:
        journal.close()
    reopened = Journal(tmp_path / "t.db", table="t1")
    try:
        assert reopened.state.hand == played.state.hand  # replayed from the journal
        assert reopened.state.hand is not None and reopened.state.hand.to_act == 3
    finally:
        reopened.close()
    again = PublicState.model_validate_json(played.state.model_dump_json())
    assert again == played.state


@pytest.mark.parametrize("seed", range(40))
def test_random_hands_match_the_engine_at_every_step(seed: int) -> None:
    rng = random.Random(seed)
    n = rng.randint(2, 9)
    config = GameConfig(
        NT, tuple(rng.choice((30, 200, 1000, 5000)) for _ in range(n)), 10, 20,
        antes=(rng.choice((0, 5)),) * n if rng.random() < 0.5 else (),
        big_blind_ante=20 if rng.random() < 0.2 else 0,
        straddle=Straddle.UTG if n > 3 and rng.random() < 0.3 else Straddle.NONE,
        straddle_amount=40)
    played = Played(tuple(rng.sample(range(1, 11), n)), config)  # checks every step
    boards = iter(("2h5c9s", "Td", "3h"))
    while not played.hand.is_complete:
        hand = played.hand
        if hand.actor is not None:
            low, high = hand.min_raise_to, hand.max_raise_to
            roll = rng.random()
            if roll < 0.2 and hand.call_amount:
                played.did(hand.fold())
            elif roll > 0.8 and low is not None and high is not None:
                played.did(hand.bet_or_raise_to(rng.choice((low, high))))
            else:
                played.did(hand.check_or_call())
        elif hand.next_to_show is not None:
            played.did(hand.show())
        else:
            played.board(next(boards))
