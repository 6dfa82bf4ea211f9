"""A table as the bridge hears it: wire messages built from hands played with the rules
engine, and a fake broker publisher that answers commands like a table would."""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from controller.events import (
    ActionAccepted,
    BoardDealt,
    GameSetup,
    HandEnded,
    HandStarted,
    HoleDealt,
    PlayerSeated,
    PotAwarded,
    PublicState,
)
from controller.rules.actions import BetRaise, Call, Check, DealBoard, DealHole, Fold, Muck, Show
from controller.rules.cards import parse_cards
from controller.rules.config import Variant
from controller.rules.game import GameConfig
from controller.rules.hand import Hand
from controller.rules.rake import RakePolicy
from controller.sync.messages import (
    CommandMessage,
    EventMessage,
    ReplyMessage,
    SecureCards,
    StateMessage,
    StatusMessage,
)
from controller.sync.topics import Topics

SITE = "test"


@dataclass
class WireTable:
    """Builds a table's messages with increasing seq, as the controller would send them."""

    table: str = "t1"
    boot: str = "boot-1"
    seq: Iterator[int] = field(default_factory=lambda: itertools.count(1))
    ts: float = 1000.0

    @property
    def topics(self) -> Topics:
        """This table's topics."""
        return Topics(SITE, self.table)

    def _env(self, seq: int | None = None) -> dict[str, Any]:
        self.ts += 1
        return {"table": self.table, "boot": self.boot,
                "seq": next(self.seq) if seq is None else seq, "ts": self.ts}

    def status(self, online: bool = True) -> tuple[str, bytes]:
        """The retained status message."""
        return self.topics.status, StatusMessage(
            **self._env(0), status="online" if online else "offline").to_wire()

    def state(self, state: PublicState) -> tuple[str, bytes]:
        """The retained public snapshot."""
        return self.topics.state, StateMessage(**self._env(0), state=state).to_wire()

    def event(self, body: Any) -> tuple[str, bytes]:
        """One event with the next seq."""
        return self.topics.event, EventMessage(**self._env(), event=body).to_wire()

    def seat(self, seat: int, player: str, stack: int) -> tuple[str, bytes]:
        """A player seated."""
        return self.event(PlayerSeated(seat=seat, player=player,
                                       stack=stack))

    def hand(self, hand_no: int, seats: Sequence[int], hand: Hand, *,
             with_config: bool = False) -> list[tuple[str, bytes]]:
        """The messages of a finished ``hand`` (an engine hand already played out): its
        events, and a secure/cards message after each hole_dealt, same seq. With
        ``with_config`` the hand_started carries the whole game setup, as tables send it
        now; without, it is a payload from before ``config`` existed."""
        cfg = hand.config
        out = [self.event(HandStarted(hand_no=hand_no, seats=tuple(seats), stacks=cfg.stacks,
                                      small_blind=cfg.small_blind, big_blind=cfg.big_blind,
                                      config=GameSetup.of(cfg) if with_config else None))]
        for action in hand.log:
            if isinstance(action, DealHole):
                env = self._env()
                out.append((self.topics.event, EventMessage(**env, event=HoleDealt(
                    hand_no=hand_no, player=action.player,
                    count=len(action.cards))).to_wire()))
                out.append((self.topics.secure_cards, SecureCards(
                    **env, hand_no=hand_no, player=action.player,
                    cards=tuple(None if c is None else str(c)
                                for c in action.cards)).to_wire()))
            elif isinstance(action, DealBoard):
                out.append(self.event(BoardDealt(hand_no=hand_no,
                                                 cards=tuple(str(c) for c in action.cards))))
            else:
                out.append(self.event(_accepted(hand_no, action)))
        for award in hand.awards:
            out.append(self.event(PotAwarded(hand_no=hand_no, amount=award.amount,
                                             shares=award.shares)))
        out.append(self.event(HandEnded(hand_no=hand_no, stacks=tuple(hand.stacks),
                                        rake=hand.rake)))
        return out


def _accepted(hand_no: int, action: object) -> ActionAccepted:
    if isinstance(action, Fold):
        return ActionAccepted(hand_no=hand_no, player=action.player, action="fold")
    if isinstance(action, Check):
        return ActionAccepted(hand_no=hand_no, player=action.player, action="check")
    if isinstance(action, Call):
        return ActionAccepted(hand_no=hand_no, player=action.player, action="call",
                              amount=action.amount)
    if isinstance(action, BetRaise):
        return ActionAccepted(hand_no=hand_no, player=action.player, action="bet_raise",
                              amount=action.to)
    if isinstance(action, Show):
        return ActionAccepted(hand_no=hand_no, player=action.player, action="show",
                              cards=tuple(str(c) for c in action.cards))
    assert isinstance(action, Muck), action
    return ActionAccepted(hand_no=hand_no, player=action.player, action="muck")


def showdown_hand(rake: RakePolicy | None = None) -> Hand:
    """Three players, 1000 each, blinds 5/10: a raise, a call, a fold, checked down to a
    showdown where player 1 shows and player 0 mucks... or shows, as the rules call them;
    raked by ``rake`` if given."""
    hand = Hand(GameConfig(variant=Variant.NT, stacks=(1000, 1000, 1000), small_blind=5,
                           big_blind=10, rake=rake))
    for player, cards in enumerate(("AsKs", "7c2d", "QhQd")):
        hand.deal_hole(player, parse_cards(cards))
    hand.bet_or_raise_to(30, 2)  # UTG (the button, three-handed, is last) raises
    hand.fold(0)
    hand.call(1)
    hand.deal_board(parse_cards("2h5c9s"))
    hand.check(1)
    hand.check(2)
    hand.deal_board(parse_cards("Td"))
    hand.check(1)
    hand.check(2)
    hand.deal_board(parse_cards("3h"))
    hand.check(1)
    hand.check(2)
    while not hand.is_complete:
        hand.show()
    return hand


class FakeBroker:
    """The publisher seam in tests: records every publish; a command to a table is
    answered by ``answer`` (None: no reply, so the bridge times out)."""

    def __init__(self) -> None:
        self.published: list[tuple[str, bytes, int, bool]] = []
        self.answer: Callable[[CommandMessage], ReplyMessage | None] | None = self.ok
        self.deliver: Callable[[str, bytes], Any] | None = None  # the bridge's receive

    @staticmethod
    def ok(command: CommandMessage) -> ReplyMessage:
        """A table that accepts everything."""
        return ReplyMessage(table=command.table, boot="boot-1", seq=0, ts=0.0,
                            command_id=command.command_id, status="ok",
                            data={"change": command.command.name})

    async def publish(self, topic: str, payload: bytes, qos: int, retain: bool) -> None:
        """Record, and answer commands on the loop (as a broker round trip would)."""
        self.published.append((topic, payload, qos, retain))
        if topic.endswith("/cmd") and self.answer is not None and self.deliver is not None:
            command = CommandMessage.model_validate_json(payload)
            reply = self.answer(command)
            if reply is not None:
                deliver = self.deliver
                asyncio.get_running_loop().call_soon(
                    lambda: asyncio.ensure_future(deliver(Topics(SITE, command.table).reply,
                                                          reply.to_wire())))

    def commands(self) -> list[dict[str, Any]]:
        """The command payloads published, decoded."""
        return [json.loads(p) for t, p, _, _ in self.published if t.endswith("/cmd")]
