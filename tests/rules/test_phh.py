"""PHH read/write: the shared real hands, the action notation, errors, round trips."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.phh_files import iter_paths, load
from controller.rules.cards import DECK, Card, parse_cards
from controller.rules.errors import HandHistoryError
from controller.rules.phh import (
    VARIANT_FIELDS,
    HandHistory,
    PhhAction,
    dump_many,
    dumps,
    format_action,
    loads,
)

HEADER = """variant = "NT"
antes = [0, 0, 0]
blinds_or_straddles = [1, 2, 0]
min_bet = 2
starting_stacks = [200, 200, 200]
"""


def one(actions: list[str], header: str = HEADER) -> HandHistory:
    """The single hand of a small NT history with these actions."""
    body = header + "actions = [" + ", ".join(f'"{a}"' for a in actions) + "]\n"
    (hand,) = loads(body, "t.phh")
    return hand


# ------------------------------------------------------------ the shared real hands


@pytest.fixture(scope="module")
def shared_hands(shared_dir: Path) -> list[tuple[Path, HandHistory]]:
    return [(p, h) for p in iter_paths([shared_dir / "phh"]) for h in load(p)]


def test_every_shared_file_parses(shared_hands: list[tuple[Path, HandHistory]]) -> None:
    assert len(shared_hands) >= 2529
    variants = {h.variant for _, h in shared_hands}
    assert {"NT", "PO", "FT"} <= variants
    # every hand deals hole cards and has one starting stack per player
    assert all(h.actions[0].kind == "dh" for _, h in shared_hands)
    assert all(len(h.antes) == h.player_count >= 2 for _, h in shared_hands)


def test_every_shared_hand_round_trips(shared_hands: list[tuple[Path, HandHistory]]) -> None:
    for path, hand in shared_hands:
        assert loads(dumps(hand), str(path)) == [hand], path


def test_shared_hands_round_trip_as_one_phhs(
        shared_hands: list[tuple[Path, HandHistory]]) -> None:
    hands = [h for _, h in shared_hands[:200]]
    assert loads(dump_many(hands), "all.phhs") == hands


def test_player_order_small_blind_first_button_last(
        shared_hands: list[tuple[Path, HandHistory]]) -> None:
    # README/spec: p1 small blind ... pN button; heads-up the blinds are reversed, so the
    # button (p2) acts first preflop. Checked on every hand with plain blinds on p1, p2.
    checked = 0
    for path, hand in shared_hands:
        blinds = hand.blinds_or_straddles
        if blinds is None or any(blinds[2:]):
            continue
        first = next(a for a in hand.actions if a.kind not in ("dh", "noop"))
        expected = 1 if hand.player_count == 2 else 2
        assert first.actor == expected, path
        checked += 1
    assert checked >= 2500


def test_heads_up_file_p1_is_the_big_blind(shared_dir: Path) -> None:
    (hand,) = load(shared_dir / "phh/historical/antonius-blom-2009.phh")
    assert hand.player_count == 2
    first = next(a for a in hand.actions if a.kind != "dh")
    assert (first.actor, first.kind) == (1, "cbr")  # p2, the button, opens


def test_pluribus_half_chips_are_kept_exact_and_flagged(shared_dir: Path) -> None:
    (hand,) = load(shared_dir / "phh/pluribus/41b/204.phh")
    assert hand.finishing_stacks_fractional
    assert hand.finishing_stacks == (
        Fraction(20325, 2), 9900, 10000, Fraction(20325, 2), 10000, 9775)
    assert sum(hand.finishing_stacks) == sum(hand.starting_stacks)  # the half chips add up
    assert "10162.5" in dumps(hand)


def test_whole_pluribus_hand_is_not_flagged(shared_dir: Path) -> None:
    (hand,) = load(shared_dir / "phh/pluribus/42b/197.phh")
    assert not hand.finishing_stacks_fractional
    assert hand.finishing_stacks == (9950, 9775, 10000, 10000, 10275, 10000)
    assert all(type(s) is int for s in hand.finishing_stacks)


def test_decimal_stacks_are_scaled_to_the_smallest_unit(shared_dir: Path) -> None:
    (hand,) = load(shared_dir / "phh/historical/antonius-blom-2009.phh")
    assert hand.unit_scale == 100  # 1259450.25: cents
    assert hand.starting_stacks == (125945025, 67847350)
    assert hand.blinds_or_straddles == (50000, 100000)
    assert hand.actions[2].amount == 300000  # "p2 cbr 3000"
    assert "starting_stacks = [1259450.25, 678473.5]" in dumps(hand)
    assert "p2 cbr 3000\"" in dumps(hand)


def test_whole_floats_need_no_scale() -> None:
    hand = one(["p3 cbr 6.0"], HEADER.replace("min_bet = 2", "min_bet = 2.0")
               .replace("antes = [0, 0, 0]", "antes = [0.0, 0, 0.00]"))
    assert (hand.unit_scale, hand.min_bet, hand.actions[0].amount) == (1, 2, 6)
    assert type(hand.min_bet) is int and type(hand.antes[0]) is int


def test_unknown_hole_cards_are_none(shared_dir: Path) -> None:
    (hand,) = load(shared_dir / "phh/historical/dwan-ivey-2009.phh")
    dealt = hand.actions[1]
    assert (dealt.actor, dealt.kind, dealt.cards) == (1, "dh", (None, None))
    assert hand.extra["event"] == "Full Tilt Million Dollar Cash Game S4E12"


def test_wsop_metadata_is_kept_in_extra(shared_dir: Path) -> None:
    (hand,) = load(shared_dir / "phh/wsop-2023-43-5/1.phh")
    assert hand.extra["hand"] == 1 and hand.extra["day"] == 22
    assert hand.extra["city"] == "Las Vegas"
    assert hand.antes == (0, 120000, 0, 0, 0) and not hand.ante_trimming_status
    assert hand.players is not None and hand.players[0] == "Matthew Ashton"


# ------------------------------------------------------------ the action notation


def test_actions_of_every_kind_parse() -> None:
    hand = one(["d dh p1 AsKd", "d dh p2 ????", "d dh p3 ??Ad", "p3 f", "p1 cc", "p2 cbr 6",
                "p1 cc", "d db 7h8h9c", "p1 sm AsKd", "p2 sm", "p1 pb", "p2 sd", "p2 sd ??"])
    a = hand.actions
    assert a[0] == PhhAction(0, "dh", None, parse_cards("AsKd"))
    assert a[1].cards == (None, None) and a[2].cards == (None, Card.parse("Ad"))
    assert [x.kind for x in a[3:7]] == ["f", "cc", "cbr", "cc"]
    assert (a[5].actor, a[5].amount) == (1, 6)
    assert a[7] == PhhAction(None, "db", None, parse_cards("7h8h9c"))
    assert a[8].cards == parse_cards("AsKd") and a[9].cards is None
    assert (a[10].kind, a[11].cards, a[12].cards) == ("pb", None, (None,))


def test_show_dash_shows_the_cards_dealt() -> None:
    hand = one(["d dh p1 AsKd", "d dh p2 QhQc", "p2 sm -"])
    assert hand.actions[2] == PhhAction(1, "sm", None, parse_cards("QhQc"))


def test_comments_and_no_ops() -> None:
    hand = one(["d dh p1 AsKd # Ivey", "# Burn card 6s is exposed", "", "  p2   cc  # a # b"])
    assert hand.actions[0].comment == "Ivey" and hand.actions[0].cards == parse_cards("AsKd")
    assert hand.actions[1] == PhhAction(None, "noop", comment="Burn card 6s is exposed")
    assert hand.actions[2] == PhhAction(None, "noop")
    assert (hand.actions[3].kind, hand.actions[3].comment) == ("cc", "a # b")
    assert hand.actions[3].text == "  p2   cc  # a # b"
    assert loads(dumps(hand)) == [hand]


def test_format_action_is_canonical() -> None:
    assert format_action(PhhAction(2, "cbr", 1250), unit_scale=100) == "p3 cbr 12.5"
    assert format_action(PhhAction(2, "cbr", 1205), unit_scale=100) == "p3 cbr 12.05"
    assert format_action(PhhAction(2, "cbr", 5), unit_scale=100) == "p3 cbr 0.05"
    assert format_action(PhhAction(0, "dh", None, (None, DECK[51]))) == "d dh p1 ??As"
    assert format_action(PhhAction(None, "noop", comment="hi")) == "# hi"
    assert format_action(PhhAction(1, "sm", comment="mucks")) == "p2 sm # mucks"


def test_phhs_holds_several_hands_in_tables() -> None:
    text = "[1]\n" + HEADER + 'actions = ["p3 f"]\n\n[2]\n' + HEADER + 'actions = []\n'
    hands = loads(text, "two.phhs")
    assert len(hands) == 2 and hands[0].actions[0].kind == "f" and hands[1].actions == ()
    assert loads(dump_many(hands)) == hands


def test_iter_paths_walks_folders_sorted(tmp_path: Path) -> None:
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "z").mkdir(parents=True)
    for name in ("b/2.phh", "a/z/9.phhs", "a/1.phh", "a/notes.txt"):
        (tmp_path / name).write_text("")
    found = [p.relative_to(tmp_path).as_posix() for p in iter_paths([tmp_path])]
    assert found == ["a/1.phh", "a/z/9.phhs", "b/2.phh"]
    assert list(iter_paths([tmp_path / "a/notes.txt"])) == [tmp_path / "a/notes.txt"]


def test_load_reads_phh_and_phhs_files(tmp_path: Path) -> None:
    hand = one(["p3 f"])
    (tmp_path / "h.phh").write_text(dumps(hand))
    (tmp_path / "h.phhs").write_text(dump_many([hand, hand]))
    assert load(tmp_path / "h.phh") == [hand]
    assert load(tmp_path / "h.phhs") == [hand, hand]


# ------------------------------------------------------------ errors


@pytest.mark.parametrize(("actions", "words"), [
    (["d dh p1 AsKd", "p1 xx"], ["t.phh", "hand 1", "action 2", "'p1 xx'", "unknown action"]),
    (["d dh p1 AsKx"], ["action 1", "'d dh p1 AsKx'", "'Kx' is not a card"]),
    (["d dh p1 AsK"], ["two-character cards"]),
    (["d deal p1 AsKd"], ["unknown dealer action"]),
    (["x1 f"], ["'x1' is not a player"]),
    (["p4 f"], ["names p4 of 3"]),
    (["p1 cbr"], ["unknown action 'cbr'"]),
    (["p1 cbr lots"], ["'cbr' needs an amount", "'lots'"]),
    (["p1 cbr -5"], ["'cbr' needs an amount"]),
    (["p1 sm -"], ["'sm -'", "p1, who was dealt none"]),
    (["p1 f now"], ["unknown action 'f now'"]),
])
def test_bad_actions_name_file_hand_and_action(actions: list[str], words: list[str]) -> None:
    with pytest.raises(HandHistoryError) as e:
        one(actions)
    for word in words:
        assert word in str(e.value)


@pytest.mark.parametrize(("text", "words"), [
    ("variant = ", ["not valid TOML"]),
    ('antes = [0, 0]\nstarting_stacks = [1, 1]\nactions = []', ["'variant' is missing"]),
    ('variant = "NT"\nantes = [0, 0]\nstarting_stacks = [5, 5]\nactions = []',
     ["missing required field(s) blinds_or_straddles, min_bet", "'NT'"]),
    (HEADER.replace("antes = [0, 0, 0]", "antes = [0, 0]") + "actions = []",
     ["antes has 2 entries for 3 players"]),
    (HEADER.replace("[200, 200, 200]", "[200, inf, 200]") + "actions = []",
     ["starting_stacks", "infinite"]),
    (HEADER.replace("[200, 200, 200]", "[200, -1, 200]") + "actions = []",
     ["cannot be negative"]),
    (HEADER.replace("min_bet = 2", "min_bet = true") + "actions = []",
     ["min_bet must hold numbers"]),
    (HEADER.replace("min_bet = 2", "min_bet = 0.0000001") + "actions = []",
     ["7 decimal places"]),
    (HEADER + "actions = [1]", ["actions must be an array of strings"]),
    (HEADER + 'actions = []\nplayers = ["a", 2, "c"]', ["players must be an array of strings"]),
    ('variant = "NT"\nantes = [0]\nstarting_stacks = [5]\nactions = []\n'
     'blinds_or_straddles = [1]\nmin_bet = 1', ["at least 2 players"]),
    ("[1]\n" + HEADER + "actions = []\n[2]\nvariant = 'NT'", ["hand [2]", "missing required"]),
    ("x = 1\n[1]\n" + HEADER + "actions = []", ["field(s) 'x' sit beside hand tables"]),
])
def test_bad_histories_say_what_is_wrong(text: str, words: list[str]) -> None:
    with pytest.raises(HandHistoryError) as e:
        loads(text, "bad.phh")
    assert str(e.value).startswith("bad.phh")
    for word in words:
        assert word in str(e.value)


def test_load_checks_the_suffix_and_the_path(tmp_path: Path) -> None:
    hand = one([])
    (tmp_path / "two.phh").write_text(dump_many([hand, hand]))
    (tmp_path / "one.phhs").write_text(dumps(hand))
    with pytest.raises(HandHistoryError, match=r"two\.phh: a \.phh file holds one hand"):
        load(tmp_path / "two.phh")
    with pytest.raises(HandHistoryError, match=r"one\.phhs: a \.phhs file holds hands"):
        load(tmp_path / "one.phhs")
    with pytest.raises(HandHistoryError, match="cannot read"):
        load(tmp_path / "absent.phh")
    with pytest.raises(HandHistoryError, match="no such file or folder"):
        list(iter_paths([tmp_path / "absent"]))


def test_hand_history_rejects_inconsistent_fields() -> None:
    with pytest.raises(HandHistoryError, match="unit_scale 10 is larger than the amounts need"):
        HandHistory("NT", (0, 0), (100, 200), unit_scale=10)
    with pytest.raises(HandHistoryError, match="power of ten"):
        HandHistory("NT", (0, 0), (101, 200), unit_scale=20)
    with pytest.raises(HandHistoryError, match="players has 1 entries for 2"):
        HandHistory("NT", (0, 0), (1, 2), players=("a",))
    with pytest.raises(HandHistoryError, match="'cbr' needs an amount"):
        PhhAction(0, "cbr")
    with pytest.raises(HandHistoryError, match="kind must be one of"):
        PhhAction(0, "raise", 10)
    with pytest.raises(HandHistoryError, match="a deal needs at least one card"):
        PhhAction(0, "dh", None, ())


def test_extra_fields_of_every_toml_type_survive() -> None:
    extra = {"event": "Main", "hand": "7b", "time": dt.time(20, 15, 30),
             "time_zone": "Europe/Copenhagen", "time_limit": Decimal("30.5"),
             "_user": {"nested": [1, "two", Decimal("3.0")], "when": dt.date(2024, 2, 29)},
             "odd key": "tab\there \"quoted\" \x7f"}
    hand = HandHistory("NT", (0, 0), (100, 200), blinds_or_straddles=(1, 2), min_bet=2,
                       extra=extra)
    (back,) = loads(dumps(hand))
    assert back == hand and back.extra["time"] == dt.time(20, 15, 30)


# ------------------------------------------------------------ generated round trips

_cards = st.lists(st.none() | st.sampled_from(DECK), min_size=1, max_size=5).map(tuple)
_comment = st.none() | st.text(max_size=12).map(str.strip)
_leaf = (st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(max_size=8)
         | st.decimals(allow_nan=False) | st.dates() | st.times()
         | st.datetimes(timezones=st.none() | st.just(dt.UTC)))
_toml_value = st.recursive(_leaf, lambda inner: st.lists(inner, max_size=3)
                           | st.dictionaries(st.text(max_size=4), inner, max_size=3),
                           max_leaves=6)
_known = {"variant", "antes", "starting_stacks", "actions", "blinds_or_straddles", "min_bet",
          "small_bet", "big_bet", "bring_in", "ante_trimming_status", "finishing_stacks",
          "winnings", "players", "seats", "seat_count"}


def _action(n: int) -> st.SearchStrategy[PhhAction]:
    who = st.integers(0, n - 1)
    return st.one_of(
        st.builds(PhhAction, who, st.just("dh"), st.none(), _cards, comment=_comment),
        st.builds(PhhAction, st.none(), st.just("db"), st.none(), _cards, comment=_comment),
        st.builds(PhhAction, who, st.sampled_from(["f", "cc", "pb"]), comment=_comment),
        st.builds(PhhAction, who, st.just("cbr"), st.integers(0, 10**9), comment=_comment),
        st.builds(PhhAction, who, st.sampled_from(["sm", "sd"]), st.none(), st.none() | _cards,
                  comment=_comment),
        st.builds(PhhAction, st.none(), st.just("noop"), comment=_comment),
    )


@st.composite
def _hands(draw: st.DrawFn) -> HandHistory:
    n = draw(st.integers(2, 9))
    scale = draw(st.sampled_from([1, 10, 100]))
    stacks = draw(st.lists(st.integers(1, 10**9), min_size=n, max_size=n))
    if scale > 1:
        stacks[0] = stacks[0] * 10 + 7  # the scale must be the smallest that works
    per_player = st.lists(st.integers(0, 10**6), min_size=n, max_size=n).map(tuple)
    half = st.builds(lambda k, d: Fraction(k, d), st.integers(0, 10**9), st.sampled_from([2, 4]))
    results = st.none() | st.lists(
        (st.integers(0, 10**9) | half).map(lambda x: int(x) if x == int(x) else x),
        min_size=n, max_size=n).map(tuple)
    variant = draw(st.sampled_from(["NT", "PO", "FT", "F7S", "F2L3D", "ZZ"]))
    needed = VARIANT_FIELDS.get(variant, ())
    optional = {k: draw(st.integers(1, 10**6) if k in needed else st.none() | st.integers(1, 99))
                for k in ("min_bet", "small_bet", "big_bet", "bring_in")}
    blinds = draw(per_player if "blinds_or_straddles" in needed else st.none() | per_player)
    return HandHistory(
        variant=variant,
        antes=draw(per_player),
        starting_stacks=tuple(stacks),
        actions=tuple(draw(st.lists(_action(n), max_size=12))),
        blinds_or_straddles=blinds,
        ante_trimming_status=draw(st.booleans()),
        finishing_stacks=draw(results),
        winnings=draw(results),
        players=draw(st.none() | st.lists(st.text(max_size=6), min_size=n, max_size=n).map(tuple)),
        seats=draw(st.none() | st.lists(st.integers(1, 10), min_size=n, max_size=n).map(tuple)),
        seat_count=draw(st.none() | st.integers(2, 10)),
        unit_scale=scale,
        extra=draw(st.dictionaries(st.text(max_size=6).filter(lambda k: k not in _known),
                                   _toml_value, max_size=4)),
        **optional,
    )


@settings(max_examples=150, deadline=None)
@given(_hands())
def test_generated_histories_round_trip(hand: HandHistory) -> None:
    (back,) = loads(dumps(hand), "generated.phh")
    assert back == hand
    assert back.finishing_stacks_fractional == hand.finishing_stacks_fractional


@settings(max_examples=25, deadline=None)
@given(st.lists(_hands(), min_size=1, max_size=3))
def test_generated_hand_sets_round_trip(hands: list[HandHistory]) -> None:
    assert loads(dump_many(hands), "generated.phhs") == hands
