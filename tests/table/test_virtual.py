"""The virtual table: bots and a simulated dealer play complete hands, chips conserved."""

from __future__ import annotations

from collections import Counter

import pytest

from controller.clocks.shot_clock import ShotClockConfig
from controller.devices.interfaces import BEEP_EXPIRED, BEEP_SHORT, BeepPattern
from controller.events import DeckReport, HandEnded, HandStarted, JournalEvent, ShotClockReport
from controller.rules.config import Variant
from controller.table.virtual import ChipsNotConserved, VirtualTable


def test_virtual_cash_table_plays_hands_and_conserves_chips() -> None:
    vt = VirtualTable(players=6, seed=11)
    summary = vt.play_hands(150)
    assert summary.hands == 150
    assert vt.counts["HandEnded"] == 150
    assert vt.counts["Rejected"] == 0 and vt.counts["Irregularity"] == 0
    assert vt.counts["ActionAccepted"] > 150 * 3
    vt.check_chips()


def test_virtual_tournament_moves_the_big_blind_and_conserves_chips() -> None:
    vt = VirtualTable(players=9, seed=5, tournament=True, stack=1500)
    vt.play_hands(120)
    started = [e for e in vt.events if isinstance(e, HandStarted)]
    assert len({e.big_blind_seat for e in started}) > 3
    assert vt.counts["Rejected"] == 0


def test_virtual_omaha_deals_four_cards() -> None:
    vt = VirtualTable(players=4, seed=3, variant=Variant.PO)
    vt.play_hands(40)
    assert vt.counts["HandEnded"] == 40 and vt.counts["Rejected"] == 0


def test_virtual_table_is_deterministic_for_a_seed() -> None:
    def stacks(seed: int) -> list[tuple[int, ...]]:
        vt = VirtualTable(players=5, seed=seed)
        vt.play_hands(30)
        return [e.stacks for e in vt.events if isinstance(e, HandEnded)]

    assert stacks(9) == stacks(9)
    assert stacks(9) != stacks(10)


def test_virtual_table_counts_the_deck_at_the_shuffle() -> None:
    vt = VirtualTable(players=3, seed=1)
    vt.count_deck()
    vt.play_hands(1)
    assert vt.counts["DeckReport"] == 1
    checked = next(e for e in vt.events if isinstance(e, DeckReport))
    assert checked.what == "checked" and checked.complete
    assert vt.table.deck_check is not None and vt.table.deck_check.complete


def test_check_chips_catches_a_chip_made_from_nothing() -> None:
    vt = VirtualTable(players=3, seed=1)
    vt.play_hands(2)
    vt.table.roster[1].stack += 1
    with pytest.raises(ChipsNotConserved):
        vt.check_chips()


def test_accelerated_virtual_time_moves_the_levels_on() -> None:
    from controller.table.lights import Level

    vt = VirtualTable(players=4, seed=2, tournament=True, pace=5.0,
                      levels=(Level(10, 20, 0, 60), Level(20, 40, 0, 60), Level(30, 60)))
    vt.play_hands(30)
    assert vt.counts["LevelSet"] >= 2
    assert vt.table.level_no == 3


@pytest.mark.slow
def test_virtual_soak_thousands_of_hands() -> None:
    for kw in ({}, {"tournament": True, "players": 10, "stack": 2000},
               {"variant": Variant.PO, "players": 6}):
        vt = VirtualTable(seed=2024, **kw)
        vt.play_hands(3000)
        assert vt.counts["Rejected"] == 0


def test_rake_1_a_raked_cash_table_still_accounts_for_every_chip() -> None:
    from controller.rules.rake import rake_policy

    vt = VirtualTable(players=6, seed=8, rake=rake_policy("casino"))
    vt.play_hands(60)
    assert vt.rake > 0
    vt.check_chips()


def test_only_a_tournament_table_starts_empty_for_the_host_to_seat() -> None:
    with pytest.raises(ValueError, match="0 in a tournament"):
        VirtualTable(players=0)  # a cash table seats its own bots
    with pytest.raises(ValueError):
        VirtualTable(players=1, tournament=True)
    vt = VirtualTable(players=0, tournament=True, seed=1)
    assert vt.host_seated and vt.table.roster.occupied() == []
    assert vt.dealing_held() == "fewer than two players are seated"
    vt.check_chips()  # nothing bought in, nothing on the table


def _beeps(vt: VirtualTable) -> Counter[str]:
    """What the table's buzzer plays (the virtual table forgets the mock's history
    between hands, to stay flat in memory)."""
    heard: Counter[str] = Counter()
    buzzer = vt.hardware.buzzer
    play = buzzer.beep

    def beep(pattern: BeepPattern) -> None:
        heard[pattern.name] += 1
        play(pattern)

    buzzer.beep = beep  # type: ignore[method-assign]
    return heard


class Rulings:
    """A sink counting the shot clock's rulings (CLOCK-3, CLOCK-9)."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, event: JournalEvent) -> None:
        if isinstance(event, ShotClockReport) and event.what == "ruled":
            self.count += 1


def test_clock_9_thinking_bots_hear_the_countdown_and_sometimes_run_out_of_time() -> None:
    ruled = Rulings()
    vt = VirtualTable(6, seed=3, shot_clock=ShotClockConfig(action_s=30, countdown_s=10),
                      slow=0.2, pace=2.0, sink=ruled)
    heard = _beeps(vt)
    vt.play_hands(150)  # checks chip conservation after every hand
    assert heard[BEEP_SHORT.name] > 0  # the final 10 s beeped each second
    assert heard[BEEP_EXPIRED.name] == ruled.count > 0  # and ran out now and then
    ruled = Rulings()
    quick = VirtualTable(6, seed=3, shot_clock=ShotClockConfig(action_s=30, countdown_s=10),
                         pace=2.0, sink=ruled)
    heard = _beeps(quick)
    quick.play_hands(150)
    assert ruled.count == 0 and heard[BEEP_SHORT.name] == 0
