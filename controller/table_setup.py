"""Setting a table up for ``pitboss table run`` (wiring beside :mod:`controller.table_runner`,
which keeps that file small): :class:`RunOptions`, the house it runs under (``--house
FILE``: the command line's checks, the house a restart plays, the bots a tournament house
seats on a virtual table), building the table, and its first boot.

A house file replaces ``--game``; ``--tournament`` follows the house's kind (a tournament
house makes a tournament table; with a cash house it is an error); ``--structure`` and
``--multiplier`` are for tournament houses (the multiplier drawn overrides the file's,
SNG-3). A restart without ``--house`` plays the house the journal last set (its text is
in the journal's state), so the table keeps playing the same file.
"""

from __future__ import annotations

import argparse
import logging
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.app import DEFAULT_LEVELS, TableJournal, restore
from controller.clocks.house import House, HouseError, load_house, parse_house
from controller.clocks.shot_clock import ShotClockConfig
from controller.clocks.structure import Structure
from controller.devices.table_hardware import TableHardware
from controller.events import PlayerSeated, PublicState
from controller.rules.config import LIVE_CASH, LIVE_TOURNAMENT, Variant
from controller.sync.hand_history import HandFiles
from controller.sync.journal import Journal
from controller.sync.outbox import Outbox
from controller.table import intents
from controller.table.deck import DeckLibrary
from controller.table.house_play import view_of
from controller.table.lights import Level
from controller.table.table import Table
from controller.table.virtual import VirtualTable

log = logging.getLogger("pitboss.app")

@dataclass(frozen=True)
class RunOptions:
    """How a table runs besides where: the virtual dealer and bots, and when to stop."""

    autoplay: int | None = None  # virtual table only: play hands with bots (0: no limit)
    players: int = 6  # cash: the bots seated at the start (a tournament starts empty)
    seed: str = "0"
    drain: bool = False  # after autoplay, wait until the host holds every event, then stop
    levels: Sequence[Level] = DEFAULT_LEVELS
    structure: Structure | None = None  # a tournament's structure (replaces levels)
    ready: Callable[[Journal, Outbox], None] | None = None
    tournament: bool = False  # the host seats the players; live-tournament rules
    speed: float = 1.0  # tournament virtual table: virtual time >= speed x real time
    # tournament virtual table: virtual seconds per bot action; above 0 the dealer also
    # waits so virtual time does not run ahead of speed x real time (the demo's pace)
    pace: float = 0.0
    # the shot clock's seconds per action (None: the table's default, 30 s on a real table
    # and none on the virtual one); with it, a share of the bots' decisions run into the
    # final countdown (``slow``), now and then out of time
    shot_clock_s: float | None = None
    slow: float = 0.1
    # a floor broker (deploy/mosquitto): the table's user name (its id), password, TLS files
    mqtt_user: str | None = None
    mqtt_password: str | None = None
    mqtt_ca: str | None = None
    mqtt_cert: str | None = None
    mqtt_key: str | None = None
    # a live table (no autoplay): the device backend (None: the profile's; "mock" runs a
    # real profile's Pi-attached parts as mocks, its seat nodes still on their serial
    # lines), and a directory holding the seat-node ports instead of where the profile
    # says (/dev/pitboss-seat3 -> DIR/pitboss-seat3: `pitboss hardware simulate`)
    backend: str | None = None
    seat_ports: str | None = None
    # called with the live table and its sink once the table is built and restored
    # (tests and tools attach a dealer's terminal: controller.app.open_desk)
    table_ready: Callable[[Table, TableJournal], None] | None = None
    # a live table's dealer's terminal and deck: the tablet page's address (None: not
    # served), the file holding its token (None: beside the journal), the saved decks'
    # directory (None: ``decks`` beside the journal), and the game dealt
    tablet: str | None = None  # the command line serves it by default (DEFAULT_TABLET)
    tablet_token_file: str | None = None
    decks: str | None = None
    game: Variant = Variant.NT
    house: House | None = None  # --house: the game, stakes or structure, rules, rake...
    offline: bool = False  # no broker: the journal keeps everything for a later run
    export_phh: str | None = None  # a directory: each finished hand as <table>-<no>.phh


class HouseMismatch(Exception):
    """``--house`` names a house of the other kind than the one the journal's table plays."""


def house_from_args(path: str, *, game: str | None, tournament: bool, structure: str | None,
                    multiplier: float | None) -> House:
    """``--house FILE`` checked against the options it replaces; raises HouseError (its
    message names the file, line, field and rule) or ValueError (a clash of options)."""
    if game is not None:
        raise ValueError(f"--game {game} and --house {path}: the house file sets the game; "
                         "give one of them")
    house = load_house(path)
    if house.tournament:
        if multiplier is not None:  # SNG-3: the multiplier drawn for this game
            house = parse_house(house.text, house.source, multiplier=multiplier)
        return house
    if tournament:
        raise ValueError(f"--tournament: {house.source} is a cash house ({house.name!r}); a "
                         "tournament table needs a tournament house (kind = \"tournament\")")
    for option, value in (("--structure", structure), ("--multiplier", multiplier)):
        if value is not None:
            raise ValueError(f"{option}: {house.source} is a cash house ({house.name!r}); "
                             "a structure and its multiplier are for tournament houses")
    return house


def table_house(state: PublicState, given: House | None) -> House | None:
    """The house the table plays: ``given`` (``--house``), else the one the journal last
    set (a restart plays the very same file), else None. A house of the other kind than
    the journal's (cash / tournament) raises :class:`HouseMismatch`: that table needs a
    journal of its own."""
    journaled = None
    if state.house_text:
        try:
            drawn = None if state.house is None else state.house.multiplier
            journaled = parse_house(state.house_text, "the journal's house",
                                    multiplier=drawn if given is None else given.multiplier)
        except HouseError as exc:
            log.warning("the journal's house cannot be played again: %s", exc)
    house = given or journaled
    if house is not None and journaled is not None and house.kind != journaled.kind:
        raise HouseMismatch(f"--house {house.source} is a {house.kind} house but the "
                            f"journal's table plays the {journaled.kind} house "
                            f"{journaled.name!r} (TOURN-1); give this table a journal of its "
                            "own (--db)")
    return house


def bots(house: House | None, *, tournament: bool, players: int) -> int | None:
    """How many bots a virtual table seats at the start: a cash table ``players``; a
    tournament house its field (None: the virtual table seats the house's ``players``,
    else up to 6, with its starting stack), so an offline sit & go plays; a host-seated
    tournament none."""
    if house is not None and house.tournament:
        return None
    return 0 if tournament else players


def journal_house(table: Table, state: PublicState, house: House | None) -> None:
    """Journal the house (``house_set``) unless the journal holds this very file already:
    the first boot, or a new file given on a restart (played from the next hand)."""
    if house is None or (state.house_text == house.text and state.house is not None
                         and state.house.multiplier == view_of(house).multiplier):
        return
    refusal = table.submit(intents.SetHouse(house)).refusal
    if refusal is not None:
        log.warning("house %r is not journaled: %s", house.name, refusal.reason)


def build_table(profile_name: str, journal: Journal, sink: TableJournal,
                options: RunOptions, house: House | None, hardware: TableHardware | None,
                db_path: str | Path) -> tuple[Table, VirtualTable | None]:
    """The table (virtual, or live on its hardware), built with its house if it has one
    (the house gives what the options leave out)."""
    tournament = house.tournament if house is not None else options.tournament
    shot_clock = (None if options.shot_clock_s is None
                  else ShotClockConfig(action_s=options.shot_clock_s))
    if options.autoplay is not None:
        # with a house, the bots buy in inside its limits (or with the tournament's
        # starting stack) and the house gives the levels and shot clock not given here
        extra: dict[str, Any] = {"levels": options.levels} if house is None else {}
        vt = VirtualTable(bots(house, tournament=tournament, players=options.players),
                          profile=profile_name, sink=sink, house=house,
                          rng=random.Random(f"{options.seed}-{journal.boot}"),
                          structure=options.structure, tournament=tournament,
                          shot_clock=shot_clock, pace=options.pace, slow=options.slow,
                          **extra)
        return vt.table, vt
    assert hardware is not None
    decks = Path(options.decks) if options.decks is not None \
        else Path(db_path).resolve().parent / "decks"
    kw: dict[str, Any] = {"house": house} if house is not None else {
        "levels": () if options.structure else options.levels,
        "profile": LIVE_TOURNAMENT if tournament else LIVE_CASH,
        "tournament": tournament, "variant": options.game}
    if house is None or options.shot_clock_s is not None:
        kw["shot_clock"] = shot_clock or ShotClockConfig()
    table = Table(hardware, sink=sink, structure=options.structure,
                  decks=DeckLibrary(decks), **kw)
    return table, None


def first_boot(table: Table, journal: Journal, outbox: Outbox, sink: TableJournal,
               house: House | None, host_seated: bool) -> None:
    """Restore the table from the journal, or journal its first boot: the bots a virtual
    table seated; then the house (``house_set``) when the journal does not hold this one
    yet (the first boot, or a new file on a restart)."""
    if journal.state.seats or host_seated:
        restore(table, journal.state, sink)
    else:  # first boot: the virtual table's bots are the players
        outbox.record_now([
            PlayerSeated(seat=s.number, player=s.player, stack=s.stack)
            for s in table.roster.occupied() if s.player])
    journal_house(table, journal.state, house)


def house_and_export(parser: argparse.ArgumentParser, args: argparse.Namespace
                     ) -> tuple[House | None, str | None]:
    """``--house`` (a HouseError names the file, line, field and rule), ``--offline``'s
    clashes, and ``--export-phh``'s directory (made 0700 now: a directory that cannot be
    made stops the command before the table starts)."""
    if args.offline and args.drain:
        parser.error("--drain waits for the host's acks and --offline has no host; give one")
    house = None
    if args.house is not None:
        try:
            house = house_from_args(args.house, game=args.game, tournament=args.tournament,
                                    structure=args.structure, multiplier=args.multiplier)
        except HouseError as exc:
            parser.error(f"--house: {exc}")
        except ValueError as exc:
            parser.error(str(exc))
    if args.export_phh is not None:
        try:
            HandFiles.prepare(args.export_phh)
        except OSError as exc:
            parser.error(f"--export-phh {args.export_phh}: cannot make or write the "
                         f"directory: {exc.strerror or exc}")
    return house, args.export_phh
