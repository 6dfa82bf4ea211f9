"""The big blind's option against all-ins for no more than its bet (RULES.md BET-1,
BLIND-2), and every PHH action PokerKit writes, read by Pitboss.

When every opponent went all-in for no more than the big blind (or folded), nobody can
answer a raise, but the big blind still acts: BET-1 (every active player acts at least
once) and BLIND-2 (the option). It may check or fold (BET-2); a raise could never be
called (POT-3: it would all come back), so the engine refuses it (BET-1). PokerKit writes
that check as ``cc``; leaving it out is legal too (RULES.md Appendix C): dealing the flop
passes the option. Hand.replay and the PHH reader read both forms.

Random hands are played in PokerKit, written as PHH by PokerKit, and read by
controller.rules.phh and controller.rules.replay to the same finishing stacks. The engine
follows along only to keep PokerKit from the raises RULES.md Appendix C lists as its
departures (BET-8, BET-9, FL-1, STRADDLE-5): each one left out is checked to be one of
them.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.rules.actions import Check
from controller.rules.cards import format_cards, parse_cards
from controller.rules.config import LIVE_CASH, LIVE_TOURNAMENT, RulesProfile, Variant
from controller.rules.errors import IllegalActionError
from controller.rules.game import GameConfig, Straddle
from controller.rules.hand import Hand, Phase
from controller.rules.phh import loads
from controller.rules.replay import history_from_hand, replay_history
from controller.rules.view import view_of
from tests.needs import need_module
from tests.rules.randplay import Step, apply_step, shuffled_deck

pokerkit = need_module("pokerkit", "pokerkit is the test oracle (test extra)")
from tests.rules.oracle import pokerkit_game  # noqa: E402 (after the oracle check)
from tests.rules.test_differential_pokerkit import configs  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:A card being dealt:UserWarning")

NT, PO, FT = Variant.NT, Variant.PO, Variant.FT
HOLES = ("AhQh", "4h5s", "6c7d", "8h9h", "TcJd", "QsKs")
FLOP, TURN, RIVER = parse_cards("Ac8sAd"), parse_cards("Kc"), parse_cards("7h")


def dealt(stacks: tuple[int, ...], profile: RulesProfile = LIVE_CASH, **kw: Any) -> Hand:
    hand = Hand(GameConfig(NT, stacks, 1, 2, **kw), profile)
    for p in range(len(stacks)):
        hand.deal_hole(p, parse_cards(HOLES[p]))
    return hand


def to_the_option() -> Hand:
    """Three players, blinds 1-2: the button folds, the small blind calls all-in for the
    blind; the big blind, position 1, has nobody left to bet against."""
    hand = dealt((2, 100, 100))
    hand.fold()  # the button
    hand.call()  # the small blind, all-in for 2
    return hand


def run_out(hand: Hand) -> None:
    for cards in (FLOP, TURN, RIVER):
        hand.deal_board(cards)
    while hand.phase is Phase.SHOWDOWN:
        hand.show()


# ---------------------------------------------------------------- the engine
def test_bet_1_blind_2_big_blind_checks_its_option_after_all_ins_for_no_more_than_the_big_blind(
) -> None:
    hand = to_the_option()
    assert hand.phase is Phase.BETTING and hand.actor == 1
    assert hand.can_check() and hand.call_amount == 0
    assert hand.min_raise_to is None  # nobody could answer a raise
    with pytest.raises(IllegalActionError, match=r"\(BET-1\)"):
        hand.bet_or_raise_to(4)
    view = view_of(hand)
    assert (view.to_act, view.can_check, view.can_bet_or_raise, view.can_fold) == (
        1, True, False, True)
    hand.check()
    view = view_of(hand)
    assert (view.phase, view.to_act) == (Phase.DEAL_BOARD, None)
    run_out(hand)
    assert hand.stacks == [4, 98, 100]  # the small blind's trip aces win the 4


def test_bet_1_blind_2_leaving_the_big_blinds_check_out_is_legal_too() -> None:
    checked, dealt_on = to_the_option(), to_the_option()
    checked.check()
    assert dealt_on.can_deal_board(FLOP)
    checked.deal_board(FLOP)
    dealt_on.deal_board(FLOP)  # the option passes unexercised: as a check, unlogged
    assert dealt_on.snapshot()[:-1] == checked.snapshot()[:-1]  # all but the log length
    assert not any(isinstance(a, Check) for a in dealt_on.log)
    # after the flop the big blind is alone with chips: no option there (BLIND-2 is preflop)
    assert dealt_on.phase is Phase.DEAL_BOARD
    with pytest.raises(IllegalActionError, match=r"\(BET-1\)"):
        dealt_on.check()
    for hand in (checked, dealt_on):
        hand.deal_board(TURN)
        hand.deal_board(RIVER)
        while hand.phase is Phase.SHOWDOWN:
            hand.show()
    assert dealt_on.stacks == checked.stacks == [4, 98, 100]


def test_bet_1_blind_2_the_big_blind_may_fold_its_option() -> None:
    hand = to_the_option()
    hand.fold()  # BET-2: a fold is always open on one's turn
    assert hand.is_complete  # POT-4: the small blind is the last hand left
    assert hand.stacks == [4, 98, 100]


def test_bet_1_blind_2_the_option_stands_heads_up_and_after_a_kill() -> None:
    heads_up = dealt((100, 2))  # index 1 is the button and small blind
    heads_up.call()  # all-in for the blind
    assert heads_up.actor == 0 and heads_up.can_check()
    killed = dealt((2, 100, 100))
    killed.kill(2, "DEAL-5")  # the button's hand is dead before it acts
    killed.call()
    assert killed.actor == 1 and killed.can_check()


def test_straddle_2_bet_1_the_straddler_keeps_the_option_alike() -> None:
    straddled = dealt((100, 4, 100, 100), straddle=Straddle.UTG)
    straddled.fold()  # the button
    straddled.fold()  # the small blind
    straddled.call()  # the big blind, all-in for the straddle
    assert straddled.actor == 2 and straddled.can_check()  # STRADDLE-2
    assert straddled.min_raise_to is None


def test_bet_1_no_option_when_nobody_else_could_act_this_round() -> None:
    # Everyone but the big blind is all-in from the antes and blinds: no betting at all
    hand = dealt((2, 100, 1), antes=(1, 1, 1))
    assert hand.phase is Phase.DEAL_BOARD and hand.actor is None
    with pytest.raises(IllegalActionError, match=r"\(BET-1\)"):
        hand.check(1)


def test_bet_1_blind_2_replay_and_undo_read_both_forms() -> None:
    checked, dealt_on = to_the_option(), to_the_option()
    checked.check()
    for hand in (checked, dealt_on):
        run_out(hand)
        again = Hand.replay(hand.config, hand.log, hand.profile)
        assert again.snapshot() == hand.snapshot()
    assert len(checked.log) == len(dealt_on.log) + 1
    option = to_the_option()
    option.check()
    assert option.undo() == Check(1) and option.actor == 1 and option.can_check()


# ---------------------------------------------------------------- PHH, as PokerKit writes it
def pokerkit_text(game: Any, state: Any) -> str:
    """PokerKit's PHH of a finished hand. Its writer leaves ``ante_trimming_status`` at
    false whatever the game's was: say what was played."""
    history = pokerkit.HandHistory.from_game_state(
        game, state, ante_trimming_status=game.ante_trimming_status)
    return str(history.dumps())


def pokerkit_replays(text: str) -> list[int]:
    *_, last = pokerkit.HandHistory.loads(text)
    return list(last.stacks)


def test_bet_1_blind_2_reads_the_big_blinds_check_as_pokerkit_writes_it() -> None:
    config = GameConfig(NT, (2, 100, 100), 1, 2)
    game = pokerkit_game(config)
    state = game(config.stacks, config.players)
    for p in range(3):
        state.deal_hole(HOLES[p])
    state.fold()
    state.check_or_call()
    assert state.actor_index == 1 and state.checking_or_calling_amount == 0  # the option
    state.check_or_call()
    for cards in (FLOP, TURN, RIVER):
        state.deal_board(format_cards(cards))
    text = pokerkit_text(game, state)
    assert "'p3 f', 'p1 cc', 'p2 cc'" in text
    for profile in (LIVE_CASH, LIVE_TOURNAMENT):
        (history,) = loads(text)
        hand = replay_history(history, profile)
        assert hand.stacks == list(state.stacks) == [4, 98, 100]
        assert sum(isinstance(a, Check) for a in hand.log) == 1
    # Pitboss writes the check as PokerKit does, and PokerKit reads it (the cash profile
    # logs each show; the tournament one tables all-in hands at once, unlogged)
    assert "p2 cc" in export(hand := replay_history(history))
    assert pokerkit_replays(export(hand)) == hand.stacks
    # and the same file without the check
    (history,) = loads(text.replace(", 'p2 cc'", ""))
    assert replay_history(history).stacks == [4, 98, 100]


def export(hand: Hand) -> str:
    from controller.rules.phh import dumps

    return dumps(history_from_hand(hand))


def departure(hand: Hand, amount: int) -> str | None:
    """Why the engine refuses a raise PokerKit allows: which RULES.md Appendix C departure,
    or None if it is not one of them."""
    try:
        hand.verify_bet_or_raise_to(amount)
    except IllegalActionError as refusal:
        reason, rule = refusal.reason, refusal.rule
    else:
        return "allowed"
    if rule == "BET-8" and "the betting was not reopened" in reason:
        return "BET-8/BET-9: a raise against only short all-ins"
    if rule == "FL-1" and "capped" in reason and hand.street == 0:
        return "FL-1: a fourth raise preflop"
    if (rule in ("BET-4", "BET-8") and hand.street == 0
            and hand.config.straddle is not Straddle.NONE
            and amount < hand.current_bet + hand.min_increment):
        # PokerKit's minimum is its min_bet above the straddle; short of twice the
        # straddle the engine allows only the all-in (BET-8) or a full raise (BET-4)
        return "STRADDLE-5: the minimum raise after a straddle"
    return None


@dataclass(frozen=True)
class Played:
    """A hand PokerKit played: its PHH as PokerKit writes it, the finishing stacks, who
    was pushed chips from a pot, and the betting steps (for messages)."""

    text: str
    stacks: list[int]
    winners: set[int]
    steps: list[Step]


def play_in_pokerkit(config: GameConfig, rng: random.Random, seen: set[str]) -> Played:
    """A random hand played by PokerKit's own legal actions, and its PHH as PokerKit writes
    it; the raises Appendix C lists as PokerKit's departures are left out."""
    game = pokerkit_game(config)
    state = game(config.stacks, config.players)
    hand = Hand(config, LIVE_TOURNAMENT)  # only to leave the departures out
    deck = shuffled_deck(rng)
    per = 4 if config.variant is PO else 2
    for player in range(config.players):
        cards = [deck.pop() for _ in range(per)]
        hand.deal_hole(player, cards)
        state.deal_hole(format_cards(cards))
    steps: list[Step] = []
    while state.status:
        if state.actor_index is not None:
            assert hand.actor == state.actor_index, steps
            if hand.can_deal_board(deck[:-4:-1]):  # betting, yet the flop may come
                seen.add("cc: the big blind's option")
            options: list[Step] = [("cc",)]
            if state.can_fold():
                options.append(("f",))
            if state.can_complete_bet_or_raise_to():
                low = state.min_completion_betting_or_raising_to_amount
                high = state.max_completion_betting_or_raising_to_amount
                for amount in sorted({low, high, rng.randint(low, high)}):
                    why = departure(hand, amount)
                    assert why is not None, (steps, amount, "PokerKit allows, Pitboss not")
                    if why == "allowed":
                        options.append(("cbr", amount))
                    else:
                        seen.add(why)
            weights = [5 if o[0] == "cc" else 1 for o in options]  # showdowns, mucks
            step = rng.choices(options, weights)[0]
            apply_step(hand, step)
            steps.append(step)
            if step[0] == "f":
                state.fold()
            elif step[0] == "cc":
                state.check_or_call()
            else:
                state.complete_bet_or_raise_to(step[1])  # type: ignore[misc]
        else:
            assert state.can_deal_board(), steps
            cards = [deck.pop() for _ in range(3 if not hand.board else 1)]
            if hand.phase is Phase.BETTING:  # the option PokerKit does not ask for
                seen.add("db: the option left out")
            hand.deal_board(cards)
            state.deal_board(format_cards(cards))
    winners = {i for op in state.operations if isinstance(op, pokerkit.ChipsPushing)
               for i, amount in enumerate(op.amounts) if amount}
    return Played(pokerkit_text(game, state), list(state.stacks), winners, steps)


def read_and_compare(played: Played, seen: set[str]) -> None:
    """Pitboss reads PokerKit's PHH to the same finishing stacks. PokerKit re-forms the
    pots after the losers muck, so tied pots may split their odd units differently (at
    most one a pot, POT-2, see test_differential_pokerkit); the winners agree."""
    (history,) = loads(played.text)
    for action in history.actions:
        seen.add(action.kind if action.kind != "sm" or action.cards else "sm: a muck")
    for profile in (LIVE_TOURNAMENT, LIVE_CASH):
        hand = replay_history(history, profile)
        assert hand.is_complete, played
        if any(award.split for award in hand.awards):
            assert sum(hand.stacks) == sum(played.stacks), played
            assert all(abs(a - b) <= len(hand.awards)
                       for a, b in zip(hand.stacks, played.stacks, strict=True)), played
            ours = {i for award in hand.awards for i, share in award.shares if share}
            assert ours == played.winners, played
        else:
            assert hand.stacks == played.stacks, played


@pytest.mark.parametrize("variant", [NT, PO, FT], ids=["nt", "po", "ft"])
@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(data=st.data(), seed=st.integers(0, 2**32))
def test_phh_every_action_pokerkit_writes_reads_to_the_same_stacks(
        variant: Variant, data: st.DataObject, seed: int) -> None:
    config = data.draw(configs(variant))
    read_and_compare(play_in_pokerkit(config, random.Random(seed), set()), set())


@pytest.mark.parametrize("variant", [NT, PO, FT], ids=["nt", "po", "ft"])
def test_phh_pokerkit_writes_every_action_kind_and_pitboss_reads_them(variant: Variant
                                                                       ) -> None:
    # Seeded hands, short stacks among deep ones so all-ins and options come up; every
    # action kind PokerKit writes for the variant must have been read at least once.
    rng = random.Random(17)
    seen: set[str] = set()
    for _ in range(300):
        n = rng.randint(2, 6)
        stacks = tuple(rng.choice([1, 2, 3, 4, 10, 60, 200, 1000, 1000]) for _ in range(n))
        if stacks[0 if n == 2 else 1] <= 2:
            continue  # a big blind short of the blind: see test_differential_pokerkit
        config = GameConfig(variant, stacks, 1, 2, small_bet=2, big_bet=4, fl_capped=True)
        read_and_compare(play_in_pokerkit(config, rng, seen), seen)
    assert {"dh", "db", "f", "cc", "cbr", "sm", "sm: a muck",
            "cc: the big blind's option"} <= seen, seen
