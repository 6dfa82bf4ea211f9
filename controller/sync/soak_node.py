"""A table controller without hardware: the sync stack driven by a virtual table that
plays random legal hands with the rules engine. Crash tests run it as a subprocess and
kill it; the benchmark and the demo can use it too.

    python -m controller.sync.soak_node --db table.db --port 1883 --table t1 --hands 50

On start it voids a hand a crash cut short (CRASH-1), seats the players on first boot,
then plays; ``--hands N`` stops after N hands have been dealt in total (every boot counts),
``--more N`` after N more, and with ``--drain`` it exits once the host has acknowledged
every event.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import random
import sys
from collections.abc import Sequence
from pathlib import Path

from controller.events import (
    ActionAccepted,
    BoardDealt,
    HandEnded,
    HandStarted,
    HoleCardsDealt,
    JournalEvent,
    PlayerSeated,
    PotAwarded,
    PublicState,
)
from controller.rules.actions import Action
from controller.rules.cards import DECK, Card
from controller.rules.config import Variant
from controller.rules.game import GameConfig
from controller.rules.hand import Hand, Phase
from controller.sync.commands import CommandDesk
from controller.sync.journal import KEEP, Journal, Retention
from controller.sync.ledger import SeatingControls
from controller.sync.link import LinkSettings, TableLink
from controller.sync.outbox import EventSink, Outbox

log = logging.getLogger("controller.sync.soak_node")


class VirtualTable:
    """Plays random legal no-limit hands on the seated players and reports every event to
    its sink, as the live table will (one event per record, the hand's end as one batch)."""

    def __init__(self, sink: EventSink, state: PublicState, rng: random.Random, *,
                 blinds: tuple[int, int] = (5, 10), pace: float = 0.0) -> None:
        self._sink = sink
        self._state = state
        self._rng = rng
        self._blinds = blinds
        self._pace = pace

    def can_deal(self, state: PublicState) -> bool:
        """Whether a hand can start: open, not paused, two players with chips."""
        self._state = state
        return not (state.closed or state.paused or state.hand_in_progress) and \
            sum(1 for s in state.seats if s.stack > 0) >= 2

    async def _emit(self, events: Sequence[JournalEvent]) -> None:
        await self._sink.record(events)
        if self._pace:
            await asyncio.sleep(self._pace)

    def _choose(self, hand: Hand) -> Action:
        rng = self._rng
        roll = rng.random()
        if hand.call_amount and roll < 0.3:
            return hand.fold()
        low, high = hand.min_raise_to, hand.max_raise_to
        if low is not None and high is not None and roll > 0.9:
            return hand.bet_or_raise_to(high if roll > 0.999 else low)
        return hand.check_or_call()

    async def play_hand(self) -> None:
        """Deal and play one hand to the end."""
        st = self._state
        live = [s for s in st.seats if s.stack > 0]
        turn = st.hand_no % len(live)
        order = live[turn:] + live[:turn]  # the button moves one seat each hand
        hand_no = st.hand_no + 1
        sb, bb = self._blinds
        stacks = tuple(s.stack for s in order)
        hand = Hand(GameConfig(Variant.NT, stacks, sb, bb))
        await self._emit([HandStarted(hand_no=hand_no, seats=tuple(s.seat for s in order),
                                      stacks=stacks, small_blind=sb, big_blind=bb)])
        deck = list(DECK)
        self._rng.shuffle(deck)
        for player in range(hand.players):
            cards: list[Card] = [deck.pop(), deck.pop()]
            hand.deal_hole(player, cards)
            await self._emit([HoleCardsDealt(hand_no=hand_no, player=player,
                                             cards=tuple(str(c) for c in cards))])
        while True:
            events: list[JournalEvent] = []
            if hand.phase is Phase.BETTING:
                events.append(ActionAccepted.of(hand_no, self._choose(hand)))
            elif hand.phase is Phase.DEAL_BOARD:
                cards = [deck.pop() for _ in range(3 if not hand.board else 1)]
                hand.deal_board(cards)
                events.append(BoardDealt(hand_no=hand_no, cards=tuple(str(c) for c in cards)))
            elif hand.phase is Phase.SHOWDOWN:
                events.append(ActionAccepted.of(hand_no, hand.show()))
            if hand.is_complete:  # the last action, the pots and the end: one batch
                events += [PotAwarded(hand_no=hand_no, amount=a.amount, shares=a.shares)
                           for a in hand.awards]
                events.append(HandEnded(hand_no=hand_no, stacks=tuple(hand.stacks),
                                        rake=hand.rake))
                await self._emit(events)
                return
            await self._emit(events)


def open_table(db: str | Path, table: str, *, players: int = 6, stack: int = 20_000,
               retention: Retention = KEEP) -> Journal:
    """Open the journal, void a hand a crash cut short (CRASH-1) and, on the very first
    boot, seat ``players`` with ``stack`` each."""
    journal = Journal(db, table=table, retention=retention)
    voided = journal.void_open_hand("the controller restarted during the hand (CRASH-1)")
    if voided is not None:
        log.warning("hand %d voided after a restart: stacks rolled back",
                    journal.state.hand_no)
    if not journal.state.seats:
        journal.append([PlayerSeated(seat=i + 1, player=f"p{i + 1}", stack=stack)
                        for i in range(players)])
    return journal


async def run_node(args: argparse.Namespace) -> int:
    """Recover, seat, play and sync until done (or killed)."""
    journal = open_table(args.db, args.table, players=args.players, stack=args.stack)
    settings = LinkSettings(site=args.site, host=args.host, port=args.port)
    async with Outbox(journal) as outbox:
        desk = CommandDesk(outbox, SeatingControls(lambda: outbox.state))
        async with TableLink(settings, outbox, desk) as link:
            print(f"READY boot={journal.boot} last_seq={journal.last_seq}", flush=True)
            rng = random.Random(f"{args.seed}-{journal.boot}")
            table = VirtualTable(outbox, outbox.state, rng, pace=args.pace)
            target = args.hands or (outbox.state.hand_no + args.more if args.more else 0)
            while target == 0 or outbox.state.hand_no < target:
                if table.can_deal(outbox.state):
                    await table.play_hand()
                elif outbox.state.closed or sum(s.stack > 0 for s in outbox.state.seats) < 2:
                    break
                else:
                    await asyncio.sleep(0.05)  # paused: wait for the host to resume
            print(f"PLAYED hands={outbox.state.hand_no} last_seq={outbox.last_seq}", flush=True)
            if args.drain:
                while outbox.acked < outbox.last_seq:
                    await asyncio.sleep(0.02)
                print(f"DRAINED acked={outbox.acked} connects={link.connects}", flush=True)
            else:
                await asyncio.Event().wait()
    journal.close()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(prog="python -m controller.sync.soak_node",
                                     description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--db", required=True)
    parser.add_argument("--table", default="t1")
    parser.add_argument("--site", default="test")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=1883)
    parser.add_argument("--seed", default="0")
    parser.add_argument("--hands", type=int, default=0, help="stop after this many (0: never)")
    parser.add_argument("--more", type=int, default=0, help="stop after this many more hands")
    parser.add_argument("--players", type=int, default=6)
    parser.add_argument("--stack", type=int, default=20_000)
    parser.add_argument("--pace", type=float, default=0.0, help="seconds between events")
    parser.add_argument("--drain", action="store_true", help="exit once everything is acked")
    parser.add_argument("--log", default="WARNING")
    args = parser.parse_args(argv)
    logging.basicConfig(level=args.log, stream=sys.stderr,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    return asyncio.run(run_node(args))


if __name__ == "__main__":
    sys.exit(main())
