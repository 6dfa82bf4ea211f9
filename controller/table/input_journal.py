"""The table's inputs, journaled for audit before they are applied (the floor's dispute
timeline; events ``input`` and ``card_read``, :mod:`controller.events.inputs`).

:meth:`LiveTable.submit <controller.table.live_table.LiveTable.submit>` hands each
outermost intent that came with an :class:`~controller.table.intents.Origin` to
:meth:`InputJournal.take` first: a card read at a seat's, the board's or the muck's reader
while a hand is in play becomes the secret :class:`~controller.events.CardSeen` (the
journal sends its card on ``secure/cards`` only, as it does hole cards), any other input
an :class:`~controller.events.InputTaken` naming the intent it became. The shot clock's
rulings are inputs too (:meth:`InputJournal.clock_ruling`).

What is left out, and why: reads between hands (the dealer gathering the cards: the table
ignores them), reads at the deck reader (enrolments and counts: their own events) and at
the players' readers (check-in: its own events), and cards lifted off a reader (the table
acts on arrivals). Intents without an origin (the host's commands, which the bridge's audit
log already has, and the virtual dealer's own calls) are not inputs of the table's devices.

Cheap by design: a read costs one small model; nothing is logged (a card never at all).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from controller.devices.interfaces import Clock
from controller.devices.profile import Profile
from controller.events import CardSeen, InputTaken
from controller.rules.cards import Card

from .base import WORD, Stage, clip
from .intents import CardLifted, CardPlaced, Intent, Origin
from .ports import HandView, Sink
from .timing import RuleOnTime

_IN_HAND = frozenset({Stage.DEALING, Stage.PLAYING, Stage.SHOWDOWN})
_FIELD_TEXT = 80  # a field's value in words (a rules action, a declaration) at most


class InputJournal:
    """Journals one table's inputs (see the module docstring). ``card_of``: the card of a
    tag in the deck in play (None: not of it)."""

    def __init__(self, *, emit: Sink, clock: Clock, view: HandView, profile: Profile,
                 card_of: Callable[[bytes], Card | None]) -> None:
        self.emit = emit
        self.clock = clock
        self.view = view
        self.card_of = card_of
        self.seat_reader = {spec.cards.name: spec.number for spec in profile.seats}
        self.table_readers = frozenset((*(r.name for r in profile.board), profile.muck.name))

    def take(self, intent: Intent, origin: Origin) -> None:
        """Journal ``intent`` as an input from ``origin``, before the table applies it."""
        if type(intent) is CardPlaced:  # the most frequent input first
            self._read(intent.reader, intent.uid)
        elif not isinstance(intent, CardLifted):
            self.emit(InputTaken(
                hand_no=self.view.hand_no, source=origin.source,
                what=clip(origin.what or type(intent).__name__), at=self.clock(),
                intent=type(intent).__name__, fields=fields_of(intent),
                seat=_seat(getattr(intent, "seat", None))))

    def _read(self, reader: str, uid: bytes) -> None:
        view = self.view
        if view.stage not in _IN_HAND:
            return  # between hands the dealer gathers the cards: the table ignores them
        seat = self.seat_reader.get(reader)
        if seat is None and reader not in self.table_readers:
            return  # the deck's and the players' readers: their own events
        card = self.card_of(uid)
        at = self.clock()
        name = clip(reader, WORD)
        if card is None:  # CARD-1: the table reports it (deck event); no card to name
            self.emit(InputTaken(
                hand_no=view.hand_no, source="reader", at=at, intent="CardPlaced",
                what=f"a tag the deck in play does not know, at {name}", reader=name,
                seat=seat))
        else:
            self.emit(CardSeen(hand_no=view.hand_no, reader=name, at=at, card=str(card),
                                   seat=seat))

    def clock_ruling(self, carry_out: RuleOnTime) -> RuleOnTime:
        """``carry_out`` (the hand's way to carry out a shot clock's ruling), journaling
        the ruling as an input from the clock first (CLOCK-3, CLOCK-9)."""

        def ruled(seat: int, ruling: str, rule: str) -> None:
            self.emit(InputTaken(
                hand_no=self.view.hand_no, source="clock", at=self.clock(),
                what=clip(f"the shot clock ran out on seat {seat}: {ruling} ({rule})"),
                fields={"ruling": clip(ruling, WORD), "rule": clip(rule, WORD)},
                seat=_seat(seat)))
            carry_out(seat, ruling, rule)

        return ruled


def fields_of(intent: Intent) -> dict[str, str | int | float | bool | None]:
    """The intent's fields as JSON scalars: numbers, words and flags as they are, a tuple
    of chips as ``500+500+25``, anything else in words (clipped); a tag's UID is left out
    (it names a card of the deck)."""
    fields: dict[str, str | int | float | bool | None] = {}
    for f in dataclasses.fields(intent):
        value = getattr(intent, f.name)
        if isinstance(value, bytes):
            continue
        if value is None or isinstance(value, bool | int | float):
            fields[f.name] = value
        elif isinstance(value, tuple):
            fields[f.name] = clip("+".join(map(str, value)), _FIELD_TEXT)
        else:
            fields[f.name] = clip(str(value), _FIELD_TEXT)
    return fields


def _seat(value: object) -> int | None:
    """A seat number the event may carry (1..10), else None."""
    return value if type(value) is int and 1 <= value <= 10 else None
