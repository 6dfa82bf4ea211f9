"""Cards and decks (CARD-1), and rules profiles (RULES.md §1 CONF)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.rules.cards import DECK, Card, Deck, format_cards, parse_cards
from controller.rules.config import (
    CONF,
    LIVE_CASH,
    LIVE_TOURNAMENT,
    ONLINE,
    house_profile,
    profile_named,
)
from controller.rules.errors import CardError, ConfigError


@pytest.mark.parametrize(("text", "index"), [("2c", 0), ("As", 51), ("Td", 33), ("T♦", 33),
                                             ("10h", 34), ("kS", 47), ("Q♠", 43)])
def test_card_parse_accepts_letters_symbols_and_ten(text: str, index: int) -> None:
    card = Card.parse(text)
    assert card == index and card is DECK[index]  # the shared instance, not a copy


@pytest.mark.parametrize("text", ["", "A", "1s", "Ax", "AsK", "??", "11h"])
def test_card_parse_rejects_what_is_not_a_card_with_the_way_to_write_one(text: str) -> None:
    with pytest.raises(CardError, match=r"rank .* then a suit"):
        Card.parse(text)


def test_card_format_and_symbols() -> None:
    ace, ten = Card.parse("As"), Card.parse("Td")
    assert (str(ace), ace.symbol(), repr(ten)) == ("As", "A♠", "Card('Td')")
    assert (ten.rank, ten.suit) == (8, 1)
    assert format_cards(parse_cards("A♠ K♦ 10c")) == "AsKdTc"
    assert format_cards(parse_cards("AsKd"), symbols=True) == "A♠K♦"


@given(st.lists(st.sampled_from(DECK), min_size=1, max_size=7, unique=True))
def test_card_format_and_parse_round_trip(cards: list[Card]) -> None:
    assert list(parse_cards(format_cards(cards))) == cards
    assert list(parse_cards(format_cards(cards, symbols=True))) == cards


def test_card_1_a_deck_is_the_52_cards_once_each() -> None:
    with pytest.raises(CardError, match="52 cards"):
        Deck(DECK[:51])
    with pytest.raises(CardError, match="As appears twice"):
        Deck((*DECK[:51], DECK[51], DECK[51])[1:])


def test_card_1_dealing_follows_the_order_passed_in() -> None:
    order = list(reversed(DECK))  # the shuffle happened outside the engine
    deck = Deck(order)
    assert deck.deal(2) == (DECK[51], DECK[50])
    assert deck.deal() == (DECK[49],) and deck.remaining == 49
    deck.deal(49)
    with pytest.raises(CardError, match="0 are left"):
        deck.deal()


def test_conf_every_key_of_rules_md_is_in_every_profile() -> None:
    assert len(CONF) == 22
    for profile in (LIVE_CASH, LIVE_TOURNAMENT, ONLINE):
        assert set(profile.values) == set(CONF)


def test_conf_live_is_the_default_and_differs_from_online_where_the_seeds_do() -> None:
    assert profile_named("live") is LIVE_CASH
    assert LIVE_CASH["pot.odd_unit"] == "all_to_first_left_of_button"  # POT-5, 004
    assert ONLINE["pot.odd_unit"] == "one_each_clockwise_from_button"  # POT-5, 003
    assert LIVE_CASH["showdown.allin_order"] == "last_aggressor_first"  # SHOW-3 cash
    assert LIVE_TOURNAMENT["showdown.allin_order"] == "table_all_at_once"  # SHOW-3 tourn.
    assert LIVE_TOURNAMENT["straddle.mode"] == "off"  # STRADDLE-6


def test_conf_house_file_overrides_single_keys_and_validates_them() -> None:
    house = house_profile('base = "online"\n"pot.odd_unit" = "all_to_first_left_of_button"\n'
                          '"halfraise.fold_allowed" = false\n', source="club.toml")
    assert house["pot.odd_unit"] == "all_to_first_left_of_button"
    assert house["halfraise.fold_allowed"] == "false"
    assert house["rake.rounding"] == ONLINE["rake.rounding"]
    assert house.name == "online+club.toml"
    with pytest.raises(ConfigError, match="POT-5"):
        house_profile('"pot.odd_unit" = "to_the_dealer"\n')
    with pytest.raises(ConfigError, match=r"unknown rules key 'pot\.odds'"):
        house_profile('"pot.odds" = 1\n')
    with pytest.raises(ConfigError, match="not valid TOML"):
        house_profile("base = \n")
    with pytest.raises(ConfigError, match="no rules profile 'casino'"):
        house_profile('base = "casino"\n')
