"""Exact equities (issue 21 item 4, host_bridge/broadcast/equity.py) held against PokerKit.

Every case is counted runout by runout with PokerKit's ``StandardHighHand`` ranking
(tests/broadcast/oracle.py) and must agree to the runout: random deals for 2 to 10
players on the flop, the turn and the river, flush-heavy deals, and preflop deals whose
deck dead cards shrink so PokerKit can deal every board. Full-deck preflop heads-up
figures are exact counts that the exhaustive loop (marked slow) re-derives with the
rules evaluator over all 1,712,304 boards.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from itertools import combinations

import pytest

from controller.rules.cards import Card
from controller.rules.errors import CardError
from controller.rules.evaluator import evaluate
from host_bridge.broadcast.equity import Share, equities
from tests.broadcast.oracle import DECK, brute_force, turn_outs

Holes = list[tuple[str, str] | None]


def deal(seed: int, players: int, board: int, dead: int = 0) -> tuple[Holes, list[str],
                                                                      list[str]]:
    """A random deal: hole cards for ``players``, ``board`` board cards, ``dead`` cards."""
    cards = random.Random(seed).sample(DECK, 2 * players + board + dead)
    holes: Holes = [(cards[2 * i], cards[2 * i + 1]) for i in range(players)]
    return holes, cards[2 * players:2 * players + board], cards[2 * players + board:]


def assert_same_as_pokerkit(holes: Holes, board: list[str], dead: Sequence[str] = ()) -> None:
    """Our shares equal PokerKit's counts over every runout, player by player."""
    ours = equities(holes, board, dead)
    for seat, (share, expected) in enumerate(zip(ours, brute_force(holes, board, dead),
                                                 strict=True)):
        if expected is None:
            assert share is None, f"seat {seat} is folded"
            continue
        assert share is not None and share.exact
        wins, splits, runouts = expected
        assert share.win * runouts == pytest.approx(wins, abs=1e-6), (seat, holes, board)
        assert share.tie * runouts == pytest.approx(splits, abs=1e-6), (seat, holes, board)
    assert sum(s.equity for s in ours if s) == pytest.approx(1.0)


@pytest.mark.parametrize("players", range(2, 11))
def test_equity_on_the_river_matches_pokerkit(players: int) -> None:
    holes, board, _ = deal(100 + players, players, 5)
    assert_same_as_pokerkit(holes, board)


@pytest.mark.parametrize("players", range(2, 11))
def test_equity_on_the_turn_matches_pokerkit(players: int) -> None:
    holes, board, _ = deal(200 + players, players, 4)
    assert_same_as_pokerkit(holes, board)


@pytest.mark.parametrize("players", [2, 3, 6, 10])
def test_equity_on_the_flop_matches_pokerkit(players: int) -> None:
    holes, board, _ = deal(300 + players, players, 3)
    assert_same_as_pokerkit(holes, board)


@pytest.mark.parametrize(("holes", "board"), [
    ([("Ah", "Kh"), ("Qh", "Qc"), ("2s", "3s")], ["7h", "9h", "Tc"]),   # two to a flush
    ([("Ah", "Kd"), ("Qh", "Jh"), ("Th", "9c")], ["2h", "5h", "8h"]),    # monotone flop
    ([("Ah", "2c"), ("Kh", "Kc"), ("9h", "8h")], ["3h", "4h", "5d", "Jh"]),  # flush draws
    ([("Ah", "2h"), ("Kc", "Kd")], ["Kh", "7h", "9h", "4s", "3c"]),      # flush v trips, river
    ([("2c", "3c"), ("4d", "5d")], ["Ah", "Kh", "Qh", "Jh", "9h"]),      # board flush splits
    ([("Ac", "2c"), ("Kd", "Qd")], ["Tc", "9c", "8c", "7c", "6c"]),      # board straight flush
])
def test_equity_with_flushes_matches_pokerkit(holes: Holes, board: list[str]) -> None:
    assert_same_as_pokerkit(holes, board)


@pytest.mark.parametrize(("players", "seed"), [(2, 1), (2, 2), (3, 3), (6, 4)])
def test_preflop_equity_matches_pokerkit_with_the_deck_cut_down(players: int,
                                                                seed: int) -> None:
    """Preflop counts five cards to come (the path a full deck takes, flush corrections
    of three to five suited cards included); dead cards leave 13 to 14 cards so PokerKit
    can deal every board. Hearts are kept live so flushes are in play."""
    rng = random.Random(seed)
    holes, _, _ = deal(seed, players, 0)
    held = {c for h in holes if h for c in h}
    hearts = [c for c in DECK if c.endswith("h") and c not in held]
    others = [c for c in DECK if c not in held and not c.endswith("h")]
    keep = rng.sample(hearts, min(6, len(hearts))) + rng.sample(others, 7)
    dead = [c for c in DECK if c not in held and c not in keep]
    assert_same_as_pokerkit(holes, [], dead)


def test_folded_players_get_none_and_their_known_cards_are_dead() -> None:
    holes: Holes = [("Ah", "Kh"), None, ("Qs", "Qc"), None]
    shares = equities(holes, ["2h", "7h", "9c"], dead=["3h", "4h"])
    assert shares[1] is None and shares[3] is None
    assert_same_as_pokerkit(holes, ["2h", "7h", "9c"], ["3h", "4h"])
    without_dead = equities(holes, ["2h", "7h", "9c"])
    assert shares[0] != without_dead[0]  # two of the flush cards gone: the dead count


# Full deck, heads-up preflop: exact counts out of C(48,5) = 1,712,304 boards (wins of the
# first, wins of the second, ties), from the exhaustive loop below.
PREFLOP_HEADS_UP = [
    (("As", "Ah"), ("Kd", "Kc"), (1388072, 317694, 6538)),  # AA v KK, no suit shared
    (("Ah", "Kh"), ("Qs", "Qc"), (787966, 917606, 6732)),   # AKs v QQ
    (("Ah", "As"), ("Kh", "Ks"), (1410336, 292660, 9308)),  # AA v KK, suits shared
    (("7c", "2d"), ("Ah", "Kd"), (551514, 1152768, 8022)),  # the worst hand v AK
]
BOARDS = 1_712_304


@pytest.mark.parametrize(("first", "second", "counts"), PREFLOP_HEADS_UP)
def test_preflop_heads_up_is_exact(first: tuple[str, str], second: tuple[str, str],
                                   counts: tuple[int, int, int]) -> None:
    a, b = equities([first, second], [])
    assert a is not None and b is not None and a.exact and b.exact
    assert a.win * BOARDS == pytest.approx(counts[0], abs=1e-6)
    assert b.win * BOARDS == pytest.approx(counts[1], abs=1e-6)
    assert a.tie * BOARDS == pytest.approx(counts[2] / 2, abs=1e-6)
    assert b.tie == a.tie


def test_preflop_aces_against_kings_are_the_published_figures() -> None:
    """AA v KK: about 81% to 18.5% with no suit shared, 82.4% to 17.1% with both shared."""
    apart = equities([("As", "Ah"), ("Kd", "Kc")], [])
    shared = equities([("Ah", "As"), ("Kh", "Ks")], [])
    assert [round(s.win * 100, 2) for s in apart if s] == [81.06, 18.55]
    assert [round(s.win * 100, 2) for s in shared if s] == [82.36, 17.09]


def exhaustive(first: tuple[str, str], second: tuple[str, str]) -> tuple[int, int, int]:
    """Every board dealt and ranked with the rules evaluator: (first wins, second, ties)."""
    a, b = [Card.parse(c) for c in first], [Card.parse(c) for c in second]
    left = [Card.parse(c) for c in DECK if c not in (*first, *second)]
    first_wins = second_wins = ties = 0
    for board in combinations(left, 5):
        x, y = evaluate([*a, *board]), evaluate([*b, *board])
        first_wins += x > y
        second_wins += y > x
        ties += x == y
    return first_wins, second_wins, ties


@pytest.mark.slow
@pytest.mark.parametrize(("first", "second", "counts"), PREFLOP_HEADS_UP)
def test_preflop_heads_up_counts_by_the_exhaustive_loop(
        first: tuple[str, str], second: tuple[str, str], counts: tuple[int, int, int]) -> None:
    assert exhaustive(first, second) == counts


@pytest.mark.parametrize("players", [2, 3, 6, 10])
def test_turn_outs_match_pokerkit(players: int) -> None:
    holes, board, _ = deal(400 + players, players, 4)
    live = [h for h in holes if h]
    shares = equities(holes, board)
    assert [s.outs for s in shares if s] == turn_outs(live, board)


def test_turn_outs_of_a_flush_and_overcard_draw() -> None:
    """AhKh v QsQc on 2h 7h 9c Td: nine hearts, three kings, three aces."""
    ahead, behind = equities([("Qs", "Qc"), ("Ah", "Kh")], ["2h", "7h", "9c", "Td"])
    assert ahead is not None and behind is not None
    assert ahead.outs == ()
    assert sorted(behind.outs) == sorted(["3h", "4h", "5h", "6h", "8h", "9h", "Th", "Jh",
                                          "Qh", "Kc", "Kd", "Ks", "Ac", "Ad", "As"])


def test_outs_only_on_the_turn() -> None:
    for board in ([], ["2h", "7h", "9c"], ["2h", "7h", "9c", "Td", "3s"]):
        assert all(s is not None and s.outs == ()
                   for s in equities([("Ah", "Kh"), ("Qs", "Qc")], board))


def test_one_live_player_has_it_all_and_nobody_live_gets_nothing() -> None:
    assert equities([None, ("2c", "7d"), None], ["Ah", "Kh", "Qh"]) == [
        None, Share(win=1.0, tie=0.0), None]
    assert equities([None, None], []) == [None, None]


@pytest.mark.parametrize(("holes", "board", "dead", "says"), [
    ([("Ah", "Kh"), ("Ah", "Qc")], [], [], "Ah appears twice"),
    ([("Ah", "Kh"), ("Qs", "Qc")], ["2h", "3h"], [], "0, 3, 4 or 5 cards"),
    ([("Ah", "Kh"), ("Qs", "Qx")], [], [], "player 1"),
    ([("Ah", "Kh"), ("Qs", "Qc")], ["2h", "3h", "4h"], ["2h"], "2h appears twice"),
])
def test_bad_questions_are_refused_with_the_reason(holes: Holes, board: list[str],
                                                   dead: list[str], says: str) -> None:
    with pytest.raises(CardError, match=says):
        equities(holes, board, dead)
