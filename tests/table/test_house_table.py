"""The table plays a house (issue 18, "At the table"): the house file sets the game, the
stakes, antes, rake, buy-ins and straddles; the dealer's deal intent carries a straddle
(STRADDLE-1..6); the host's ``set_house`` changes the house between hands only (LEVEL-1),
journaled whole so a restart plays the very same file; the virtual table plays a house."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.app import TableCommands, TableJournal, restore
from controller.clocks.house import House, load_house, parse_house
from controller.devices.mock import MockTable
from controller.devices.profile import load_profile
from controller.events import (
    BurnedCard,
    HandEnded,
    HandStarted,
    HoleCardsDealt,
    HouseSet,
    JournalEvent,
    PlayerSeated,
    PublicState,
    Rejected,
    SeatPlayer,
    SetHouse,
)
from controller.rules.cards import DECK
from controller.rules.config import Variant
from controller.sync.errors import CommandRefused
from controller.sync.journal import Journal
from controller.sync.ledger import fold
from controller.sync.outbox import Outbox
from controller.table import intents as i
from controller.table.lights import Level
from controller.table.table import Stage, Table
from controller.table.virtual import VirtualTable

from .conftest import DECKMAP, Dealer

HOUSES = Path(__file__).resolve().parents[2] / "deploy" / "houses"


def house(name: str) -> House:
    return load_house(HOUSES / f"{name}.toml")


def cash_text(*, straddle: str = "utg", game: str = "NT", antes: str = "",
              buy_in: str = "") -> str:
    """A small cash house, 20/40 kr, with the straddle mode and sections given."""
    return (f'name = "Test {game} 20/40"\nkind = "cash"\ngame = "{game}"\nunit = "kr"\n'
            f'rules = "live"\nseats = 10\n\n[stakes]\nsmall_blind = 20\nbig_blind = 40\n\n'
            f'[straddle]\nmode = "{straddle}"\n{antes}{buy_in}')


class HouseRig:
    """A table built from a house, players seated, the button placed."""

    def __init__(self, built: House, seats: dict[int, int] | None = None,
                 button: int | None = 1) -> None:
        self.hw = MockTable(load_profile("virtual"))
        self.events: list[JournalEvent] = []
        self.table = Table(self.hw, sink=self.events.append, deck=DECKMAP, house=built)
        for seat, stack in (seats or {}).items():
            assert self.table.take_seat(seat, f"p{seat}", stack)
        if button is not None and not built.tournament:
            assert self.table.set_button(button)
        self.dealer = Dealer(self.table, self.hw)

    def hole(self) -> None:
        """The dealer deals the hole cards: the betting starts."""
        reads = self.table.reads
        assert reads is not None
        cards = iter(str(c) for c in DECK)
        self.dealer.deal({seat: "".join(next(cards) for _ in range(reads.per_seat))
                          for seat in reads.dealt})
        assert self.table.stage is Stage.PLAYING

    def deal(self, straddle: int | None = None) -> Rejected | None:
        """The dealer's deal, with a straddle; the refusal, or None if dealt."""
        return self.table.submit(i.Deal(straddle)).refusal

    def started(self) -> HandStarted:
        found = [e for e in self.events if isinstance(e, HandStarted)]
        assert found, "no hand started"
        return found[-1]

    def public(self) -> PublicState:
        """The journal's public state after everything the table emitted."""
        state = PublicState()
        for event in self.events:
            if isinstance(event, (HoleCardsDealt, BurnedCard)):  # the journal splits them
                state = fold(state, event.public())
            else:
                state = fold(state, event)
        return state


FOUR = {1: 4_000, 2: 4_000, 3: 4_000, 4: 4_000}  # button 1: SB 2, BB 3, UTG 4


# ============================================================================ straddles
def test_straddle_1_utg_straddle_is_a_third_blind_of_twice_the_big_blind() -> None:
    rig = HouseRig(parse_house(cash_text(straddle="utg")), FOUR)
    assert rig.deal(straddle=4) is None
    started = rig.started()
    assert started.config is not None and started.config.straddle == "utg"
    hand = rig.table.hand
    assert hand is not None
    assert hand.bets[rig.table.position_of(4) or 0] == 80  # 2 x BB 40
    stakes = rig.public().stakes
    assert stakes is not None and stakes.straddle == 80  # the public state shows it


def test_straddle_1_a_house_without_straddles_refuses_one() -> None:
    rig = HouseRig(parse_house(cash_text(straddle="off")), FOUR)
    refusal = rig.deal(straddle=4)
    assert refusal is not None and refusal.rule == "STRADDLE-1"
    assert "no straddles" in refusal.reason
    assert rig.table.stage is Stage.IDLE and not any(
        isinstance(e, HandStarted) for e in rig.events)


def test_straddle_2_only_utg_straddles_and_acts_last_preflop() -> None:
    rig = HouseRig(parse_house(cash_text(straddle="utg")), FOUR)
    refusal = rig.deal(straddle=1)  # the button, not under Mississippi
    assert refusal is not None and refusal.rule == "STRADDLE-2"
    assert "seat 4" in refusal.reason  # who may
    assert rig.table.stage is Stage.IDLE
    assert rig.table.straddle_seats() == (4,)
    assert rig.deal(straddle=4) is None
    rig.hole()
    hand = rig.table.hand
    assert hand is not None and hand.actor is not None
    assert rig.table.seat_of(hand.actor) == 1  # the player after the straddler acts first
    for _ in range(3):  # the button, SB and BB call the straddle
        assert rig.table.call()
    assert hand.actor is not None and rig.table.seat_of(hand.actor) == 4  # the option


def test_straddle_2_heads_up_has_no_straddle() -> None:
    rig = HouseRig(parse_house(cash_text(straddle="mississippi")), {1: 4_000, 2: 4_000})
    refusal = rig.deal(straddle=1)
    assert refusal is not None and refusal.rule == "STRADDLE-2"
    assert rig.table.straddle_seats() == ()


def test_straddle_3_mississippi_the_button_straddles_and_the_small_blind_acts_first() -> None:
    rig = HouseRig(house("casino-nlhe"), {s: 4_000 for s in (1, 2, 3, 4, 5)})
    assert rig.table.straddle_seats() == (1, 4)  # the button first, then UTG
    refusal = rig.deal(straddle=5)
    assert refusal is not None and refusal.rule == "STRADDLE-3"
    assert rig.deal(straddle=1) is None
    rig.hole()
    started = rig.started()
    assert started.config is not None and started.config.straddle == "button"
    hand = rig.table.hand
    assert hand is not None and hand.actor is not None
    assert rig.table.seat_of(hand.actor) == 2  # the SB first, the straddler last


def test_straddle_4_no_straddle_once_the_hand_is_dealt() -> None:
    rig = HouseRig(parse_house(cash_text(straddle="utg")), FOUR)
    assert rig.deal() is None
    refusal = rig.deal(straddle=4)
    assert refusal is not None and refusal.rule == "STRADDLE-4"
    assert "before the first hole card" in refusal.reason
    started = rig.started()
    assert started.config is not None and started.config.straddle == "none"


def test_straddle_6_no_straddle_in_a_tournament() -> None:
    rig = HouseRig(house("live-tournament"), FOUR)
    refusal = rig.deal(straddle=4)
    assert refusal is not None and refusal.rule == "STRADDLE-6"
    assert rig.table.stage is Stage.IDLE


def test_straddle_6_no_straddle_in_fixed_limit() -> None:
    rig = HouseRig(house("limit-holdem"), {s: 5_000 for s in FOUR})
    refusal = rig.deal(straddle=4)
    assert refusal is not None and refusal.rule == "STRADDLE-6"


# ============================================================================ buy-ins
def test_cash_8_buy_in_outside_the_casino_limits_is_refused_and_changes_nothing() -> None:
    rig = HouseRig(house("casino-nlhe"), button=None)
    before = list(rig.events)
    outcome = rig.table.submit(i.TakeSeat(3, "p3", 1_999))
    refusal = outcome.refusal
    assert refusal is not None and refusal.rule == "CASH-8"
    assert "2000 to 10000" in refusal.reason
    assert not rig.table.roster[3].player
    assert rig.events[len(before):] == [refusal]  # only the refusal: nothing seated
    assert not rig.table.take_seat(3, "p3", 10_001)
    assert rig.table.take_seat(3, "p3", 10_000)


def test_cash_2_online_buy_in_50_to_100_bb() -> None:
    rig = HouseRig(house("online-nlhe"), button=None)  # NL10: BB 10 cents
    for stack, ok in ((499, False), (500, True), (1_000, True), (1_001, False)):
        seat = 1 + sum(1 for s in rig.table.roster.occupied())
        outcome = rig.table.submit(i.TakeSeat(seat, f"p{stack}", stack))
        assert outcome.accepted is ok, stack
        if not ok:
            assert outcome.refusal is not None and outcome.refusal.rule == "CASH-2"


def test_cash_7_banzai_buy_in_exactly_10_bb() -> None:
    text = cash_text(straddle="off", buy_in="\n[buy_in]\nmin_bb = 10\nmax_bb = 10\n"
                     'rule = "CASH-7"\n')
    rig = HouseRig(parse_house(text), button=None)
    refusal = rig.table.submit(i.TakeSeat(1, "p1", 399)).refusal
    assert refusal is not None and refusal.rule == "CASH-7"
    assert "exactly 400" in refusal.reason
    assert rig.table.submit(i.TakeSeat(1, "p1", 401)).refusal is not None
    assert rig.table.take_seat(1, "p1", 400)


def test_cash_8_a_restart_seats_the_journals_stacks_whatever_the_limits() -> None:
    rig = HouseRig(house("casino-nlhe"), button=None)
    assert rig.table.submit(i.TakeSeat(1, "p1", 25_000, buy_in=False)).accepted


# ============================================================================ the game
def test_cash_antes_of_the_house_are_posted() -> None:
    each = parse_house(cash_text(antes='\n[antes]\nkind = "each"\namount = 5\n'))
    rig = HouseRig(each, FOUR)
    assert rig.deal() is None
    setup = rig.started().config
    assert setup is not None and setup.antes == (5, 5, 5, 5)
    bba = parse_house(cash_text(antes='\n[antes]\nkind = "big_blind"\namount = 40\n'))
    rig = HouseRig(bba, FOUR)
    assert rig.deal() is None
    setup = rig.started().config
    assert setup is not None and setup.big_blind_ante == 40 and setup.antes == ()


def test_rake_9_a_tournament_house_takes_no_rake() -> None:
    vt = VirtualTable(house=house("live-tournament"), seed=3)
    assert vt.players == 6 and vt.table.rake is None and vt.table.tournament
    vt.play_hands(40)
    ended = [e for e in vt.events if isinstance(e, HandEnded)]
    assert len(ended) == 40 and all(e.rake == 0 for e in ended)
    seated = [e for e in vt.events if isinstance(e, PlayerSeated)]
    assert seated and all(e.stack == 20_000 for e in seated)  # the starting stack


def test_rake_8_a_casino_house_rakes_its_pots() -> None:
    vt = VirtualTable(house=house("casino-nlhe"), seed=8)
    vt.play_hands(40)
    assert vt.rake > 0  # flops were seen: the casino's brackets took their share
    vt.check_chips()


def test_cash_12_no_cap_on_raises_in_a_cash_nl_house() -> None:
    rig = HouseRig(house("casino-nlhe"), {s: 10_000 for s in FOUR})
    assert rig.deal() is None
    rig.hole()
    to = 40
    for _ in range(6):  # six raises in one round: no cap (BET-5)
        to *= 2
        outcome = rig.table.submit(i.RaiseTo(to, exact=True))
        assert outcome.accepted, outcome.refusal
    hand = rig.table.hand
    assert hand is not None and hand.current_bet == 40 * 2**6


def test_fl_2_a_fixed_limit_house_refuses_a_bet_other_than_the_fixed_size() -> None:
    rig = HouseRig(house("limit-holdem"), {s: 5_000 for s in FOUR})
    assert rig.deal() is None
    rig.hole()
    setup = rig.started().config
    assert setup is not None and (setup.small_bet, setup.big_bet) == (100, 200)
    refusal = rig.table.submit(i.RaiseTo(300, exact=True)).refusal  # not 100 + 100
    assert refusal is not None and refusal.rule is not None
    assert refusal.rule.startswith("FL")
    assert rig.table.submit(i.RaiseTo(200, exact=True)).accepted


def test_a_house_sets_the_game_the_dealer_view_and_the_shot_clock() -> None:
    rig = HouseRig(house("online-plo"), {1: 5_000, 2: 5_000, 3: 5_000})
    assert rig.table.variant is Variant.PO and rig.table.house is not None
    view = rig.table.dealer_view()
    assert view.house_label.startswith("PLO 25/50 cent") and view.big_blind == 50
    shot = rig.table.clocks.shot
    assert shot is not None and shot.config.action_s == 20.0
    assert HouseRig(house("casino-nlhe")).table.clocks.shot is not None
    plain = Table(MockTable(load_profile("virtual")), sink=lambda e: None, deck=DECKMAP,
                  levels=(Level(50, 100),))
    assert plain.dealer_view().house_label == "" and plain.variant is Variant.NT


def test_extension_chips_of_the_house_are_given_to_a_player_sitting_down() -> None:
    rig = HouseRig(house("live-tournament"), FOUR)
    bank = rig.table.clocks.extensions
    assert bank is not None and bank.seconds == 30.0
    assert bank.chips("p1") == 2


# ============================================================================ set_house
def test_level_1_set_house_is_refused_during_a_hand_and_played_from_the_next() -> None:
    rig = HouseRig(parse_house(cash_text(straddle="off")), FOUR)
    assert rig.deal() is None
    plo = house("casino-plo")
    refusal = rig.table.submit(i.SetHouse(plo)).refusal
    assert refusal is not None and refusal.rule == "LEVEL-1"
    assert "between hands" in refusal.reason
    assert rig.table.variant is Variant.NT
    assert rig.table.misdeal("the test ends the hand")
    assert rig.table.submit(i.SetHouse(plo)).accepted
    assert rig.table.stage is Stage.IDLE
    rig.table.submit(i.Deal())
    started = rig.started()
    assert started.config is not None and started.config.variant == "PO"
    assert (started.small_blind, started.big_blind) == (20, 40)
    assert rig.table.reads is not None and rig.table.reads.per_seat == 4


def test_tourn_1_a_cash_house_is_refused_on_a_tournament_table() -> None:
    rig = HouseRig(house("live-tournament"), FOUR)
    assert rig.table.submit(i.SetHouse(house("live-tournament"))).accepted  # first boot
    other = house("live-tournament").text.replace("level_minutes = 30", "level_minutes = 20")
    refusal = rig.table.submit(i.SetHouse(parse_house(other))).refusal
    assert refusal is not None and refusal.rule == "LEVEL-2"  # the clock keeps its levels
    refusal = rig.table.submit(i.SetHouse(house("casino-nlhe"))).refusal
    assert refusal is not None and refusal.rule == "TOURN-1"
    cash = HouseRig(house("casino-nlhe"), FOUR)
    refusal = cash.table.submit(i.SetHouse(house("live-tournament"))).refusal
    assert refusal is not None and refusal.rule == "TOURN-1"
    assert cash.table.house is not None and cash.table.house.name == "Casino NLHE 20/40"


@pytest.fixture
def journal(tmp_path: Path) -> Iterator[Journal]:
    j = Journal(tmp_path / "t1.db", table="t1")
    try:
        yield j
    finally:
        j.close()


def test_the_host_sets_a_house_journaled_whole_and_a_restart_plays_it(
        journal: Journal) -> None:
    casino = (HOUSES / "casino-nlhe.toml").read_text()
    online = (HOUSES / "online-nlhe.toml").read_text()

    async def run() -> None:
        async with Outbox(journal) as outbox:
            sink = TableJournal(outbox)  # the bots' seating goes to the journal
            vt = VirtualTable(3, seed=2, sink=sink, house=parse_house(casino))
            commands = TableCommands(vt.table, sink)
            built = vt.table.house
            assert built is not None and vt.table.submit(i.SetHouse(built)).accepted
            state = journal.state  # the first boot journals the house it was built with
            assert state.house is not None and state.house.name == "Casino NLHE 20/40"
            assert state.house_text == casino
            bad = casino.replace("big_blind = 40", "big_blind = 0")
            with pytest.raises(CommandRefused) as refused:
                commands.perform(SetHouse(text=bad), "c-bad")
            assert "line 11: stakes.big_blind" in refused.value.reason
            assert "BLIND-1" in refused.value.reason
            assert vt.play_hand()
            reply, events = commands.perform(SetHouse(text=online), "c-house")
            assert reply == {"change": "house_set"}
            assert [type(e) for e in events] == [HouseSet]
            outbox.record_now(events)
            state = journal.state
            assert state.house is not None and state.house.unit == "cent"
            assert state.house_text == online
            with pytest.raises(CommandRefused) as seat:  # the new house's limits (CASH-2)
                commands.perform(SeatPlayer(seat=6, player="p6", stack=400), "c-seat")
            assert "500 to 1000" in seat.value.reason
            again = Table(MockTable(load_profile("virtual")), sink=lambda e: None,
                          deck=DECKMAP, house=parse_house(casino))
            restore(again, journal.state, TableJournal(outbox))
            assert again.house is not None and again.house.text == online
            assert again.level.big_blind == 10
            stacks = {s.number: s.stack for s in again.roster.occupied()}
            assert stacks == {s.seat: s.stack for s in journal.state.seats}

    asyncio.run(run())


def test_level_1_the_host_set_house_during_a_hand_is_refused_with_the_rule(
        journal: Journal) -> None:
    async def run() -> None:
        async with Outbox(journal) as outbox:
            sink = TableJournal(outbox)
            vt = VirtualTable(3, seed=5, sink=sink, house=house("casino-nlhe"))
            commands = TableCommands(vt.table, sink)
            vt.press("deal")
            assert vt.table.stage is Stage.DEALING
            with pytest.raises(CommandRefused) as refused:
                commands.perform(SetHouse(text=(HOUSES / "casino-plo.toml").read_text()),
                                 "c-1")
            assert "LEVEL-1" in refused.value.reason
            assert vt.table.variant is Variant.NT
            assert journal.state.house is None

    asyncio.run(run())


# ============================================================================ virtual
def test_a_plo_house_virtual_table_plays_50_hands_conserving_chips() -> None:
    vt = VirtualTable(house=house("casino-plo"), seed=12)
    assert vt.players == 6 and vt.table.variant is Variant.PO
    seated = [e.stack for e in vt.events if isinstance(e, PlayerSeated)]
    assert all(2_000 <= s <= 10_000 for s in seated) and len(set(seated)) > 1
    vt.play_hands(50)  # check_chips after every hand: chips plus rake conserved
    started = [e for e in vt.events if isinstance(e, HandStarted)]
    assert any(e.config is not None and e.config.straddle == "utg" for e in started)
    assert vt.counts["Rejected"] == 0


def test_virtual_bots_straddle_raise_to_the_max_and_buy_in_again() -> None:
    vt = VirtualTable(house=house("casino-nlhe"), seed=21)
    vt.play_hands(150)
    started = [e for e in vt.events if isinstance(e, HandStarted)]
    kinds = {e.config.straddle for e in started if e.config is not None}
    assert {"utg", "button"} <= kinds
    assert vt.counts["PlayerRemoved"] > 0  # a bust: the bot bought in again
    seated = [e.stack for e in vt.events if isinstance(e, PlayerSeated)]
    assert all(2_000 <= s <= 10_000 for s in seated)
    assert vt.counts["Rejected"] == 0


def test_virtual_limit_house_plays_conserving_chips() -> None:
    vt = VirtualTable(house=house("limit-holdem"), seed=4)
    vt.play_hands(30)
    assert vt.counts["Rejected"] == 0
