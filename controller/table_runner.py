"""Running one table controller: the journal, the outbox, the link to the host and the
table (real hardware, or the virtual dealer and bots) in one asyncio TaskGroup.

    pitboss table run --profile virtual --table T1 --broker localhost:1883 --db t1.db
    python -m controller.app table run --profile virtual --table T1 --db t1.db --autoplay 50
    pitboss table run --profile virtual --table T3 --db t3.db --autoplay 0 --tournament \\
        --structure hexapro --multiplier 2 --speed 60
    pitboss table run --profile tournament-10 --table T1 --db t1.db --backend mock \\
        --seat-ports /tmp/seats      # the seat nodes of `pitboss hardware simulate`
    pitboss table run --profile virtual --table T9 --db t9.db --offline \\
        --house deploy/houses/casino-plo.toml --autoplay 20 --export-phh hands/

A live table (no ``--autoplay``) opens its profile's seat-node ports first and keeps them
open (:func:`open_hardware`, ``controller.devices.seatlines``): a node unplugged and
plugged back is offline, then back, without a restart.

A cash virtual table seats its own bots and plays ``--autoplay N`` hands (0: forever). A
tournament table (``--tournament``) starts empty: the host's director seats, removes and
moves the players by command, the bots play whoever is seated, and a hand is dealt
whenever at least two players are seated and the table is not paused, not on a break and
not held for hand-for-hand (TOURN-22); it runs until the host closes it. A player who ends
a hand with no chips leaves the seat (``player_busted``). ``--speed X``: virtual time runs
at least X times as fast as real time, so levels and breaks move on between hands.

``--house FILE`` (``deploy/houses/*.toml``) sets the game, stakes or structure, rules,
rake, straddles, buy-ins and clock in one file (it replaces ``--game``; a tournament house
makes a tournament table). The first boot journals it (``house_set``); a restart without
``--house`` plays the journaled one again. A tournament house with ``--autoplay`` seats its
field of bots (``players``, else 6 or fewer), so an offline sit & go plays by itself.

``--offline``: no broker at all. The table plays and journals every event; a later run
without ``--offline`` sends the backlog. ``--export-phh DIR`` writes each finished hand as
``DIR/<table>-<hand_no>.phh`` once its events are journaled
(:class:`controller.sync.hand_history.HandFiles`).

How events are journaled and commands carried out is :mod:`controller.app`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import logging
import os
import sys
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from pathlib import Path

from controller.app import (
    TableCommands,
    TableJournal,
    open_desk,
    recover,
)
from controller.clocks.structure import Structure, load_structure, preset
from controller.devices.backends import open_devices
from controller.devices.errors import DeviceAbsentError
from controller.devices.profile import load_profile
from controller.devices.seatlines import SeatLines
from controller.devices.table_hardware import TableHardware
from controller.events import (
    CloseTable,
    Command,
    JournalEvent,
    JsonScalar,
    PublicState,
)
from controller.rules.config import Variant
from controller.sync.commands import CommandDesk
from controller.sync.errors import JournalError
from controller.sync.hand_history import HandFiles
from controller.sync.journal import Journal
from controller.sync.journal_lock import JournalInUse
from controller.sync.link import LinkSettings, TableLink
from controller.sync.outbox import Outbox
from controller.table import intents
from controller.table.table import Table
from controller.table.virtual import VirtualTable
from controller.table_setup import (
    HouseMismatch,
    build_table,
    first_boot,
    house_and_export,
    table_house,
)
from controller.table_setup import RunOptions as RunOptions  # callers import it from here
from controller.terminal.desk import Desk
from controller.terminal.keymap import load_keymap
from controller.terminal.keypad import run_dealer_display, run_keypad
from controller.terminal.tablet import serve_tablet, tablet_token

log = logging.getLogger("pitboss.app")

DEFAULT_TABLET = "0.0.0.0:8080"  # the Pi's kiosk browser and tablets on the table's network
GAMES = {"nlhe": Variant.NT, "plo": Variant.PO, "flhe": Variant.FT}  # --game
IDLE_WAKE_S = 0.1  # a tournament table with no hand to deal looks again at least this often
CLOSE_LINGER_S = 3.0  # a closed table waits at most this long for the host's last acks
DEFAULT_OPTIONS = RunOptions()


class WakingCommands:
    """The table's commands, waking the virtual dealer after each one (a player seated,
    a hand released, the table closed...) so it never polls in a tight loop."""

    def __init__(self, inner: TableCommands) -> None:
        self.inner = inner
        self.wake = asyncio.Event()
        self.closing = False  # the table accepted CloseTable (journaled just after)

    def perform(self, command: Command, command_id: str
                ) -> tuple[Mapping[str, JsonScalar], Sequence[JournalEvent]]:
        try:
            reply = self.inner.perform(command, command_id)
        finally:
            self.wake.set()
        if isinstance(command, CloseTable):
            self.closing = True  # no hand may start while the close is being journaled
        return reply


def load_structure_option(name: str, multiplier: float | None = None) -> Structure:
    """``--structure``: a preset name (``hexapro``...) or a house TOML file (LEVEL-2)."""
    path = Path(name)
    if path.suffix == ".toml":
        return load_structure(path.read_text(encoding="utf-8"), multiplier=multiplier,
                              source=name)
    return preset(name, multiplier=multiplier)


# ============================================================================ the hardware
@contextlib.asynccontextmanager
async def open_hardware(profile_name: str, *, backend: str | None = None,
                        seat_ports: str | Path | None = None) -> AsyncIterator[TableHardware]:
    """A live table's hardware, in real time: the profile's seat-node ports are opened
    first (each supervised: a node unplugged and plugged back comes back by itself; a
    wrong port or permission is one line), then its parts are built on ``backend`` (the
    profile's own by default) over them; everything is closed on exit."""
    profile = load_profile(profile_name)
    lines = SeatLines(profile, directory=seat_ports)
    if not lines.lines:
        if seat_ports is not None:
            raise DeviceAbsentError(f"--seat-ports {seat_ports}: profile {profile.name} has "
                                    "no seat nodes; leave the option out")
        hardware = open_devices(profile, backend=backend, clock=time.monotonic)
        try:
            yield hardware
        finally:
            hardware.close()
        return
    async with lines:
        await report_seat_nodes(lines)
        hardware = open_devices(profile, backend=backend, clock=time.monotonic,
                                seat_link=lines)
        try:
            yield hardware
        finally:
            hardware.close()


def seat_nodes_back(table: Table, hardware: TableHardware, state: PublicState) -> None:
    """Seat nodes the journal had offline when the controller stopped and that answer now
    are back: journaled, so the floor stops showing them (a node still silent was just
    reported offline again by the hardware)."""
    for seat in state.seat_nodes_offline:
        if seat not in hardware.offline_seats:
            table.submit(intents.SeatNodeBack(seat))


async def report_seat_nodes(lines: SeatLines) -> None:
    """Wait for the seat nodes' hello (a node that does not answer is reported offline),
    then print which are online and their firmware, e.g. ``SEATNODES online=10/10``."""
    await lines.heard()
    online, offline = lines.online(), lines.offline()
    firmware = sorted({".".join(map(str, v)) for v in lines.firmware.values()})
    print(f"SEATNODES online={len(online)}/{len(lines.nodes())} "
          f"offline={','.join(map(str, offline)) or '-'} "
          f"firmware={','.join(firmware) or '-'}", flush=True)


async def _autoplay(vt: VirtualTable, outbox: Outbox, hands: int) -> None:
    """The virtual dealer and bots play ``hands`` hands (0: until cancelled)."""
    played = 0
    while not hands or played < hands:
        if outbox.state.closed:
            return
        vt.play_hand()
        played += 1
        await asyncio.sleep(0)  # the link and the command desk get their turn
    print(f"PLAYED hands={outbox.state.hand_no} last_seq={outbox.last_seq}", flush=True)


async def _tournament_autoplay(vt: VirtualTable, outbox: Outbox, commands: WakingCommands,
                               options: RunOptions) -> None:
    """Tournament: deal a hand whenever one may be dealt (at most ``autoplay`` hands when
    it is above 0), and otherwise sleep until a command or ``IDLE_WAKE_S``; until the
    table is closed. Virtual time keeps up with ``speed`` x real time."""
    loop = asyncio.get_running_loop()
    clock = vt.hardware.virtual_clock
    real0, virtual0 = loop.time(), clock.now
    limit = options.autoplay or 0
    played = 0
    while not (commands.closing or outbox.state.closed):
        if options.speed > 0:
            vt.advance(virtual0 + (loop.time() - real0) * options.speed - clock.now)
            ahead = clock.now - (virtual0 + (loop.time() - real0) * options.speed)
            if options.pace > 0 and ahead > 0:  # paced: no faster than the clocks (demo)
                commands.wake.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(commands.wake.wait(), ahead / options.speed)
                continue
        if limit and played >= limit and not vt.host_seated:
            break  # its own bots' sit & go (a tournament house): the hands asked for
        if (not limit or played < limit) and vt.play_hand():
            played += 1
            await asyncio.sleep(0)  # the link and the command desk get their turn
            continue
        if options.speed == 0 and not vt.host_seated and vt.skip_break():
            continue  # virtual time follows the hands only: its own game's break passes
        commands.wake.clear()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(commands.wake.wait(), IDLE_WAKE_S)
    print(f"PLAYED hands={outbox.state.hand_no} last_seq={outbox.last_seq}", flush=True)


async def _drained(outbox: Outbox) -> None:
    while outbox.acked < outbox.last_seq:
        await asyncio.sleep(0.02)
    print(f"DRAINED acked={outbox.acked}", flush=True)


async def _until_closed(outbox: Outbox) -> None:
    while not outbox.state.closed:
        await asyncio.sleep(0.1)
    log.warning("the table is closed")


async def _handed_over(outbox: Outbox, limit_s: float = CLOSE_LINGER_S) -> None:
    """The table is closed: before the link goes, let the host take what is left (its
    acks say it holds every event; the close command's reply went out just before)."""
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(limit_s):
            while outbox.acked < outbox.last_seq:
                await asyncio.sleep(0.02)


def _offline_notice(table_id: str, outbox: Outbox) -> None:
    print(f"OFFLINE table {table_id}: no broker; the journal keeps every event "
          f"({outbox.size} not yet sent), and a run without --offline sends them",
          flush=True)


async def run_table(profile_name: str, *, site: str, table_id: str, broker: str,
                    db_path: str | Path, options: RunOptions = DEFAULT_OPTIONS) -> int:
    """Run one table until it is closed, cancelled, or (autoplay) done; 0 when it ends."""
    host, _, port = broker.rpartition(":")
    # one process per journal: a second controller stops here, before recover() voids
    # the first one's hand (JournalInUse names the holder)
    journal = Journal(db_path, table=table_id, owner="pitboss table run")
    try:
        recover(journal)
        house = table_house(journal.state, options.house)
        tournament = house.tournament if house is not None else options.tournament
        options = dataclasses.replace(options, tournament=tournament)
        async with contextlib.AsyncExitStack() as devices, Outbox(journal) as outbox:
            hardware = None
            if options.autoplay is None:
                hardware = await devices.enter_async_context(open_hardware(
                    profile_name, backend=options.backend, seat_ports=options.seat_ports))
            sink = TableJournal(outbox)
            files = None if options.export_phh is None else HandFiles(
                options.export_phh, table_id, after=journal.last_seq, state=journal.state)
            with sink.muted():
                table, vt = build_table(profile_name, journal, sink, options, house,
                                        hardware, db_path)
            first_boot(table, journal, outbox, sink, house,
                       host_seated=vt.host_seated if vt is not None else tournament)
            if hardware is not None:
                seat_nodes_back(table, hardware, journal.state)
            if options.table_ready is not None:
                options.table_ready(table, sink)
            commands = WakingCommands(TableCommands(table, sink))
            desk = CommandDesk(outbox, commands)
            settings = LinkSettings(site=site, host=host or "127.0.0.1",
                                    port=int(port or 1883), username=options.mqtt_user,
                                    password=options.mqtt_password, tls_ca=options.mqtt_ca,
                                    tls_cert=options.mqtt_cert, tls_key=options.mqtt_key)
            terminal = None if vt is not None else open_desk(table, sink)
            if options.offline:
                _offline_notice(table_id, outbox)
            async with (contextlib.nullcontext() if options.offline
                        else TableLink(settings, outbox, desk)):
                if options.ready is not None:
                    options.ready(journal, outbox)
                await _play(table, outbox, options, vt, commands, terminal, db_path, files)
    finally:
        journal.close()
    return 0


async def _export(files: HandFiles, outbox: Outbox) -> None:
    """Follow the journal and write each finished hand; a bug here stops the export,
    never the table (the journal keeps every hand)."""
    try:
        await files.follow(outbox)
    except Exception:
        log.exception("the PHH export stopped; the table plays on and the journal keeps "
                      "every hand")


async def _play(table: Table, outbox: Outbox, options: RunOptions,
                vt: VirtualTable | None, commands: WakingCommands, terminal: Desk | None,
                db_path: str | Path, files: HandFiles | None = None) -> None:
    async with asyncio.TaskGroup() as tg:
        watch = tg.create_task(_until_closed(outbox), name="table-closed")
        export = None if files is None else tg.create_task(_export(files, outbox),
                                                            name="phh-export")
        if vt is not None:
            dealer = (_tournament_autoplay(vt, outbox, commands, options)
                      if options.tournament else _autoplay(vt, outbox, options.autoplay or 0))
            await tg.create_task(dealer, name="virtual-dealer")
            if options.drain:
                await tg.create_task(_drained(outbox), name="drain")
                watch.cancel()
            elif options.offline and options.autoplay:  # no host to wait for: done
                watch.cancel()
        else:
            hardware = table.hardware
            tasks = [tg.create_task(hardware.run(), name="hardware"),
                     tg.create_task(table.run(), name="table")]
            if terminal is not None:
                tasks += _dealers_terminal(tg, terminal, table, options, db_path)
            await watch
            for task in tasks:
                task.cancel()
        if files is not None and export is not None:
            await asyncio.wait([watch])  # the table is closed, or the dealer is done
            export.cancel()
            await asyncio.wait([export])
            await files.catch_up(outbox)  # every hand journaled is written
    if outbox.state.closed:
        await _handed_over(outbox)


def _dealers_terminal(tg: asyncio.TaskGroup, desk: Desk, table: Table, options: RunOptions,
                      db_path: str | Path) -> list[asyncio.Task[None]]:
    """The dealer's terminal of a live table: the keypad the profile names (evdev), the
    dealer's display, and the tablet page (``--tablet``), each a task of the table's
    group; the desk redraws after every device event too (an enrolment's reads)."""
    table.input_watchers.append(desk.changed)
    hardware = table.hardware
    assert isinstance(hardware, TableHardware)  # a live table's, from open_hardware
    profile = hardware.profile
    tasks = []
    if hardware.dealer_display is not None:
        tasks.append(tg.create_task(run_dealer_display(desk, hardware.dealer_display),
                                    name="dealer-display"))
    pad = profile.keypad  # on the mock backend the Pi's own parts are mocks: no keypad
    mocked = (options.backend or profile.backend) == "mock"
    if pad is not None and pad.kind == "evdev" and pad.device is not None and not mocked:
        tasks.append(tg.create_task(run_keypad(desk, pad.device, load_keymap(pad.map),
                                               profile=profile.source), name="keypad"))
    if options.tablet is not None:
        host, _, port = options.tablet.rpartition(":")
        token_file = Path(options.tablet_token_file or f"{db_path}.tablet-token")
        token = tablet_token(token_file)
        shown = "127.0.0.1" if host in ("", "0.0.0.0") else host

        def ready(bound: int) -> None:
            print(f"TABLET http://{shown}:{bound}/ token={token_file}", flush=True)

        tasks.append(tg.create_task(serve_tablet(desk, host=host or "0.0.0.0",
                                                 port=int(port), token=token, ready=ready),
                                    name="tablet"))
    return tasks


def _print_ready(journal: Journal, outbox: Outbox) -> None:
    print(f"READY boot={journal.boot} last_seq={journal.last_seq} "
          f"hand_no={outbox.state.hand_no}", flush=True)


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``pitboss table`` (the systemd unit in deploy/ is checked
    against it)."""
    parser = argparse.ArgumentParser(prog="pitboss table",
                                     description="The table controller.")
    sub = parser.add_subparsers(dest="action", required=True)
    run = sub.add_parser("run", help="run the table controller")
    run.add_argument("--profile", required=True, help="board profile, e.g. virtual")
    run.add_argument("--table", required=True, help="table id, e.g. T1")
    run.add_argument("--broker", default="localhost:1883", help="host:port of the broker")
    run.add_argument("--db", required=True, help="the journal (SQLite)")
    run.add_argument("--site", default="default")
    run.add_argument("--autoplay", type=int, default=None,
                     help="virtual table: bots play this many hands (0: no limit)")
    run.add_argument("--players", type=int, default=6, help="cash: bots seated at the start")
    run.add_argument("--seed", default="0")
    run.add_argument("--drain", action="store_true",
                     help="after autoplay, exit once the host holds every event")
    run.add_argument("--house", default=None, metavar="FILE",
                     help="the house file (deploy/houses/*.toml): game, stakes or structure, "
                          "rules, rake, straddles, buy-ins, clock; replaces --game, and a "
                          "tournament house makes a tournament table (journaled: a restart "
                          "without --house plays it again)")
    run.add_argument("--offline", action="store_true",
                     help="no broker at all: the table plays and journals every event; a "
                          "later run without --offline sends the backlog")
    run.add_argument("--export-phh", default=None, metavar="DIR",
                     help="write each finished hand as DIR/<table>-<hand_no>.phh (PHH with "
                          "every hole card: files 0600, DIR made 0700)")
    run.add_argument("--tournament", action="store_true",
                     help="a tournament table: it starts empty, the host seats the players "
                          "(live-tournament rules), and it runs until the host closes it")
    run.add_argument("--structure", default=None,
                     help="the blind structure (levels, antes, breaks): a preset (hexapro, "
                          "hexapro_extreme) or a house .toml file (LEVEL-2)")
    run.add_argument("--multiplier", type=float, default=None,
                     help="the structure's multiplier (HexaPro: 2, 3, 5, 10, 25...)")
    run.add_argument("--speed", type=float, default=1.0,
                     help="tournament virtual table: virtual time runs at least this many "
                          "times as fast as real time (levels, breaks); 0: it follows the "
                          "hands only, and a break of the table's own game passes at once")
    run.add_argument("--shot-clock", type=float, default=None, metavar="SECONDS",
                     help="seconds per action on the shot clock (virtual table: none unless "
                          "given; its bots then think into the final countdown now and then)")
    run.add_argument("--pace", type=float, default=0.0,
                     help="tournament virtual table: virtual seconds per bot action; above 0 "
                          "hands are dealt no faster than --speed allows (a watchable demo)")
    login = run.add_argument_group("a floor broker with TLS and passwords (deploy/mosquitto)")
    login.add_argument("--mqtt-user", default=None,
                       help="the table's user name on the broker (its table id)")
    login.add_argument("--mqtt-password-file", default=None,
                       help="a file holding the password (or set PITBOSS_MQTT_PASSWORD)")
    login.add_argument("--mqtt-ca", default=None,
                       help="CA certificate: connect with TLS and verify the broker")
    login.add_argument("--mqtt-cert", default=None, help="client certificate (optional)")
    login.add_argument("--mqtt-key", default=None, help="client key (optional)")
    live = run.add_argument_group("a live table's hardware (without --autoplay)")
    live.add_argument("--backend", default=None, metavar="NAME",
                      help="the device backend (default: the profile's); 'mock' runs a real "
                           "profile's Pi-attached readers, keys and displays as mocks while "
                           "its seat nodes stay on their serial lines")
    live.add_argument("--seat-ports", default=None, metavar="DIR",
                      help="open the seat-node ports in DIR instead of where the profile "
                           "says (/dev/pitboss-seat3 -> DIR/pitboss-seat3): the simulated "
                           "nodes of 'pitboss hardware simulate PROFILE --dir DIR'")
    terminal = run.add_argument_group("a live table's dealer's terminal and decks")
    terminal.add_argument("--tablet", default=DEFAULT_TABLET, metavar="HOST:PORT",
                          help="serve the dealer's tablet page there (default %(default)s; "
                               "port 0: any free port; 'off': not served)")
    terminal.add_argument("--tablet-token-file", default=None, metavar="FILE",
                          help="the tablet's sign-in token (made on first use, mode 0600; "
                               "default: beside the journal, DB.tablet-token)")
    terminal.add_argument("--decks", default=None, metavar="DIR",
                          help="the saved decks (default: 'decks' beside the journal)")
    terminal.add_argument("--game", choices=sorted(GAMES), default=None,
                          help="the game dealt (not with --house, which sets it): "
                               "no-limit hold'em (default), pot-limit "
                               "Omaha, fixed-limit hold'em (its bets: the big blind and "
                               "twice it, FL-2)")
    run.add_argument("--log", default="WARNING")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """``pitboss table run --profile virtual --table T1 --broker localhost:1883 --db PATH``."""
    parser = build_parser()
    args = parser.parse_args(argv)
    password = os.environ.get("PITBOSS_MQTT_PASSWORD")
    if args.mqtt_password_file is not None:
        try:
            password = Path(args.mqtt_password_file).read_text().strip()
        except OSError as exc:
            parser.error(f"--mqtt-password-file: {exc.strerror}: {args.mqtt_password_file}")
    for option, path in (("--mqtt-ca", args.mqtt_ca), ("--mqtt-cert", args.mqtt_cert),
                         ("--mqtt-key", args.mqtt_key)):
        if path is not None and not Path(path).is_file():
            parser.error(f"{option}: no such file: {path}")
    logging.basicConfig(level=args.log, stream=sys.stderr,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    if args.speed < 0:
        parser.error(f"--speed {args.speed}: give 0 (virtual time follows the hands only) "
                     "or a positive factor")
    house, export = house_and_export(parser, args)
    structure: Structure | None = None
    if args.structure is not None:
        try:
            structure = load_structure_option(args.structure, args.multiplier)
        except (OSError, ValueError) as exc:  # StructureError is a ValueError
            parser.error(f"--structure {args.structure}: {exc}")
    options = RunOptions(autoplay=args.autoplay, players=args.players, seed=args.seed,
                         drain=args.drain, structure=structure, ready=_print_ready,
                         tournament=args.tournament, speed=args.speed, pace=args.pace,
                         shot_clock_s=args.shot_clock,
                         mqtt_user=args.mqtt_user, mqtt_password=password,
                         mqtt_ca=args.mqtt_ca, mqtt_cert=args.mqtt_cert,
                         mqtt_key=args.mqtt_key, backend=args.backend,
                         seat_ports=args.seat_ports,
                         tablet=None if args.tablet == "off" else args.tablet,
                         tablet_token_file=args.tablet_token_file, decks=args.decks,
                         game=GAMES[args.game or "nlhe"], house=house,
                         offline=args.offline, export_phh=export)
    if options.tablet is not None:
        _, colon, port = options.tablet.rpartition(":")
        if not colon or not port.isdigit() or int(port) > 65535:
            parser.error(f"--tablet {args.tablet}: give HOST:PORT (e.g. 0.0.0.0:8080), "
                         "or 'off'")
    try:
        return asyncio.run(run_table(args.profile, site=args.site, table_id=args.table,
                                     broker=args.broker, db_path=args.db, options=options))
    except KeyboardInterrupt:  # Ctrl-C: everything journaled is already durable
        return 130
    except JournalInUse as exc:  # another controller runs on this journal: leave it be
        print(f"pitboss table: {exc}", file=sys.stderr)
        return 2
    except JournalError as exc:  # the journal would not open (another table's, unreadable)
        print(f"pitboss table: {exc}", file=sys.stderr)
        return 1
    except HouseMismatch as exc:  # --house of the other kind than the journal's table
        print(f"pitboss table: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # python -m controller.table_runner [table] run ...
    sys.exit(main(sys.argv[2:] if sys.argv[1:2] == ["table"] else sys.argv[1:]))
