"""Every shipped house plays 200 hands offline with its hands out as PHH (issue 18).

Through the command line a technician types: ``pitboss table run --profile virtual --house
FILE --offline --autoplay 200 --export-phh DIR``, then ``pitboss replay --json DIR``. The
bots choose varied actions (straddles where the house allows them, raises to the limit,
all-ins); the journal then proves, hand by hand, that chips plus rake are conserved and
that the rake is what the house's schedule says, and every exported hand replays to the
stacks the table ended it with.

The default run plays one house, casino-plo (pot limit, Mississippi straddles, a casino
rake); the other six are the long soak (``-m slow``), which keeps the default run inside
its 15 minutes.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from controller.clocks.house import House, load_house
from controller.events import (
    HandEnded,
    HandStarted,
    PlayerRemoved,
    PlayerSeated,
    PublicEvent,
    RakeTaken,
    StackAdjusted,
)
from controller.rules.actions import BetRaise, Call
from controller.rules.hand import Hand
from controller.rules.phh import loads
from controller.rules.rake import rake_for
from controller.rules.replay import config_from_history, replay_history, rules_from_history
from controller.table.virtual import VirtualTable
from tests.table.test_offline_export import journaled, pitboss

ROOT = Path(__file__).resolve().parents[2]
HOUSES = sorted((ROOT / "deploy" / "houses").glob("*.toml"))
HANDS = 200


@dataclass
class Played:
    """One house's 200 hands: the journal's events and the exported files."""

    house: House
    events: list[PublicEvent]
    files: dict[int, Path]
    replayed: dict[str, dict[str, object]] = field(default_factory=dict)

    def hands(self) -> Iterator[tuple[HandStarted, HandEnded, RakeTaken | None]]:
        started: HandStarted | None = None
        rake: RakeTaken | None = None
        for event in self.events:
            if isinstance(event, HandStarted):
                started, rake = event, None
            elif isinstance(event, RakeTaken):
                rake = event
            elif isinstance(event, HandEnded):
                assert started is not None and started.hand_no == event.hand_no
                yield started, event, rake


DEFAULT_RUN = "casino-plo"  # the house the default run plays; -m slow plays them all


@pytest.fixture(scope="module", ids=lambda p: p.stem, params=[
    pytest.param(p, marks=() if p.stem == DEFAULT_RUN else pytest.mark.slow) for p in HOUSES])
def played(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Played:
    path: Path = request.param
    tmp = tmp_path_factory.mktemp(path.stem)
    db, out = tmp / "table.db", tmp / "hands"
    proc = pitboss("table", "run", "--profile", "virtual", "--table", "H1", "--db", str(db),
                   "--house", str(path), "--offline", "--autoplay", str(HANDS),
                   "--export-phh", str(out), "--seed", path.stem, "--speed", "0")
    assert proc.returncode == 0, proc.stderr
    assert f"PLAYED hands={HANDS}" in proc.stdout
    files = {int(f.stem.rsplit("-", 1)[1]): f for f in out.glob("*.phh")}
    result = Played(load_house(path), journaled(db, "H1"), files)
    replay = pitboss("replay", "--json", str(out))
    for line in replay.stdout.splitlines():
        outcome = json.loads(line)
        result.replayed[Path(str(outcome["source"])).name] = outcome
    return result


def test_every_hand_ends_and_is_exported(played: Played) -> None:
    ended = [e.hand_no for _, e, _ in played.hands()]
    assert len(ended) == HANDS and sorted(played.files) == ended


def test_rake_1_chips_plus_rake_are_conserved_in_every_hand(played: Played) -> None:
    for started, ended, rake in played.hands():
        taken = 0 if rake is None else rake.rake
        assert sum(started.stacks) == sum(ended.stacks) + taken, started.hand_no
    # and across the table: every chip bought in is on a seat or in the rake
    bought = raked = 0
    stacks: dict[int, int] = {}
    seats: tuple[int, ...] = ()
    for event in played.events:
        if isinstance(event, PlayerSeated):
            bought += event.stack
            stacks[event.seat] = event.stack
        elif isinstance(event, PlayerRemoved):
            bought -= event.stack or 0
            stacks.pop(event.seat, None)
        elif isinstance(event, StackAdjusted):
            for seat in event.seats:
                bought += seat.after - seat.before
                stacks[seat.seat] = seat.after
        elif isinstance(event, HandStarted):
            seats = event.seats
        elif isinstance(event, RakeTaken):
            raked += event.rake
        elif isinstance(event, HandEnded):
            stacks.update(zip(seats, event.stacks, strict=True))
            assert sum(stacks.values()) + raked == bought, event.hand_no


def test_rake_is_taken_as_the_houses_schedule_says(played: Played) -> None:
    policy = played.house.rake
    taken = [r for _, _, r in played.hands() if r is not None]
    if policy is None:  # RAKE-9: a tournament house; and a house with no rake takes none
        assert taken == [] and all(e.rake == 0 for _, e, _ in played.hands())
        return
    assert len(taken) == HANDS  # one rake_taken per hand of a raked house
    for rake in taken:
        assert rake.rake == rake_for(policy, rake.pot, saw_flop=rake.saw_flop,
                                     players_dealt=rake.players_dealt)
    assert sum(r.rake for r in taken) > 0  # (rake_for above: RAKE-2 no flop, no drop too)


def test_the_bots_straddle_raise_to_the_limit_and_go_all_in(played: Played) -> None:
    straddles = [s for s, _, _ in played.hands()
                 if s.config is not None and s.config.straddle != "none"]
    if played.house.straddle_mode == "off":  # STRADDLE-1/6
        assert straddles == []
    else:
        assert len(straddles) >= 5
        if played.house.straddle_mode == "mississippi":  # STRADDLE-3: the button too
            assert {s.config.straddle for s in straddles if s.config} == {"utg", "button"}
    at_limit = all_in = 0
    for path in played.files.values():
        history = loads(path.read_text(encoding="utf-8"))[0]
        profile = rules_from_history(history)
        assert profile is not None  # the table writes the rules it played under
        hand = Hand(config_from_history(history), profile)
        for action in replay_history(history, profile).log:  # step by step again
            if isinstance(action, BetRaise):
                at_limit += action.to == hand.max_raise_to
            hand.apply(action)
            actor = getattr(action, "player", None)
            all_in += isinstance(actor, int) and hand.stacks[actor] == 0 \
                and isinstance(action, BetRaise | Call)
    assert at_limit >= 10 and all_in >= 5


def test_every_exported_hand_replays_to_the_tables_stacks(played: Played) -> None:
    assert len(played.replayed) == HANDS
    for started, ended, _ in played.hands():
        path = played.files[ended.hand_no]
        outcome = played.replayed[path.name]
        assert outcome["ok"], outcome
        assert outcome["finishing_stacks"] == list(ended.stacks)
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        assert data["starting_stacks"] == list(started.stacks)
        assert data["variant"] == played.house.variant.value


def test_an_offline_tournaments_break_passes_in_virtual_time() -> None:
    """``--speed 0``: virtual time follows the hands; the table's own game does not wait
    15 real minutes on its add-on break (LEVEL-2) but lets it pass at once."""
    vt = VirtualTable(house=load_house(ROOT / "deploy" / "houses" / "live-tournament.toml"),
                      seed=2)
    assert vt.play_hand()
    vt.advance(2 * 30 * 60)  # levels 1 and 2 are over: the break after level 2
    assert vt.dealing_held() == "the tournament is on a break" and not vt.play_hand()
    assert vt.skip_break()
    assert vt.dealing_held() is None and vt.table.clocks.level_no == 3 and vt.play_hand()
    assert not vt.skip_break()  # no break now: nothing to pass
