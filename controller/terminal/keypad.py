"""The dealer's keypad: key presses in, terminal commands out, and the dealer's display.

The keypad holds no poker rule. It turns a sequence of keys into one
:class:`~controller.terminal.commands.Command` for the :class:`~controller.terminal.desk.Desk`,
which puts it to the table; the table's rules accept or refuse. The grammar, chosen so the
common actions are one key and an amount is keyed once::

    [seat SEAT] [amount [BB]] COMMAND       3 SEAT 1200 BET, 2.5 BB BET, FOLD
    n COMMAND   (a command that takes only a seat: FOLD, CALL, SHOW...): seat n
    n STRADDLE                               deal the hand with seat n's straddle
    c + c + ... CHIPS                        each chip pushed (LIVE-8, LIVE-9)
    n OPTION / n DECK                        the prompt's choice n / saved deck n
    n CORRECT [seat SEAT] [amount] ACTION    action n of the hand's log was ACTION
    seat SEAT n COUNT                        a colour-up count

While keys are pressed the entry shows on the display (``Desk.keying``); a sequence that
cannot make a command is refused there at once, with what to key instead, and stays keyed
so BACK can mend it. A command key sends the command and clears the entry; the reply (done,
or the table's refusal with its rule id) is on the display.

:func:`run_keypad` reads the USB keypad (``controller.devices.keypad``) into a
:class:`Keypad`; :func:`run_dealer_display` redraws the dealer's display from the desk's
screen when the desk says it changed: the desk's listener only sets an event, and one task
draws, so a burst of events costs one frame.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field

from controller.devices.interfaces import DealerDisplay
from controller.devices.keypad import RETRY_S, KeyDown, Opener, open_evdev, read_keys
from controller.table.intents import Origin

from .commands import Command, Reply, Verb
from .desk import Desk
from .keymap import DIGITS, KEYS, KeyMap

# a number before one of these, without SEAT, is the seat (3 FOLD: seat 3 folds)
SEAT_ONLY = frozenset({Verb.FOLD, Verb.CHECK, Verb.CALL, Verb.ALL_IN, Verb.SHOW, Verb.MUCK,
                       Verb.TIME_BANK, Verb.CALL_CLOCK, Verb.SIT_OUT, Verb.BUTTON,
                       Verb.STRADDLE})
# these take nothing keyed before them (500 DEAL is a slip, not a deal)
BARE = frozenset({Verb.DEAL, Verb.UNDO, Verb.MISDEAL, Verb.PAUSE, Verb.NEXT_LEVEL,
                  Verb.COLOUR_UP, Verb.ENROL})
CORRECTABLE = (Verb.FOLD, Verb.CHECK, Verb.CALL, Verb.BET)
NUMBER_KEYS = frozenset({*DIGITS, "00", "000", "dot"})
MAX_DIGITS = 9
SUITS = "cdhs"  # suit 1..4 of a keyed race card
RANKS = "23456789TJQKA"


class Refused(Exception):
    """A key sequence that makes no command; the message says what to key instead."""


@dataclass(frozen=True, slots=True)
class Entry:
    """What has been keyed since the last command, parsed."""

    seat: int | None = None
    fix: int | None = None  # n CORRECT: the action of the log being corrected
    chips: tuple[int, ...] = ()  # values ended with +
    number: str = ""  # digits (and a decimal point) not yet given a meaning
    bb: bool = False

    @property
    def empty(self) -> bool:
        return self == Entry()

    @property
    def text(self) -> str:
        """For the display: ``S3 fix#7 500+500+25 BB``."""
        parts = [f"S{self.seat}"] if self.seat is not None else []
        if self.fix is not None:
            parts.append(f"fix#{self.fix}")
        amount = "".join(f"{c}+" for c in self.chips) + self.number
        if amount:
            parts.append(amount + (" BB" if self.bb else ""))
        return " ".join(parts)

    def integer(self, what: str) -> int:
        if not self.number or "." in self.number:
            raise Refused(f"key {what} (a whole number) first")
        return int(self.number)


def parse(keys: list[str]) -> Entry:
    """The entry the keys make, or :class:`Refused` at the first key that does not fit."""
    e = Entry()
    for key in keys:
        if key in NUMBER_KEYS:
            if e.bb:
                raise Refused("BB ends the amount: press the command key, or BACK")
            digit = "." if key == "dot" else key
            if digit == "." and "." in e.number:
                raise Refused("an amount has one decimal point")
            if len(e.number.replace(".", "")) + len(digit) > MAX_DIGITS:
                raise Refused(f"at most {MAX_DIGITS} digits: BACK or CLEAR")
            e = Entry(e.seat, e.fix, e.chips, e.number + digit, e.bb)
        elif key == "seat":
            if e.seat is not None:
                raise Refused(f"seat {e.seat} is named already: BACK to change it")
            if e.chips or e.bb:
                raise Refused("name the seat first: seat number, SEAT, then the amount")
            e = Entry(e.integer("the seat number"), e.fix, (), "", False)
        elif key == "correct":
            if e.fix is not None:
                raise Refused(f"action {e.fix} is being corrected: press what it should "
                              "have been")
            e = Entry(e.seat, e.integer("the action's number in the log"), e.chips, "", e.bb)
        elif key == "bb":
            if e.bb or e.chips or not e.number:
                raise Refused("key the amount in big blinds, then BB: 3 BB BET")
            e = Entry(e.seat, e.fix, e.chips, e.number, True)
        elif key == "plus":
            if e.bb:
                raise Refused("chips are keyed in chips, not big blinds")
            e = Entry(e.seat, e.fix, (*e.chips, e.integer("the chip's value")), "", False)
        else:
            raise Refused(f"{key!r} is not a key the keypad knows")
    return e


@dataclass
class Keypad:
    """The key sequencer of one dealer terminal (one keypad)."""

    desk: Desk
    keymap: KeyMap
    keys: list[str] = field(default_factory=list)

    def press(self, key: str) -> Reply | None:
        """One key pressed: the entry grows, or a command goes to the desk (its reply
        returned; the display shows it too)."""
        role = KEYS.get(key)
        if key == "clear":
            self._reset()
            return None
        if key == "back":
            if self.keys:
                self.keys.pop()
                self.desk.keying(self.shown(parse(self.keys)))
            return None
        if role is None or role.verb is None or key == "correct":
            try:
                entry = parse([*self.keys, key])
            except Refused as why:  # the key is not taken; what was keyed stays
                return self.desk.say(Reply(False, str(why)))
            self.keys.append(key)
            self.desk.keying(self.shown(entry))
            return None
        try:
            command = self.command(role.verb, parse(self.keys))
        except Refused as why:
            return self.desk.say(Reply(False, str(why)))
        keys = " ".join((*self.keys, key))  # the journal's record of what was pressed
        self._reset()
        return self.desk.do(command, Origin("keypad", f"keys: {keys}"))

    def unknown(self, code: str) -> Reply:
        """A key the map does not name (a keypad programmed otherwise)."""
        return self.desk.say(Reply(False, (
            f"{code} is no key of map {self.keymap.name}: reprogram that key, or add it to "
            f"{self.keymap.source}")))

    def shown(self, e: Entry) -> str:
        """The entry as the display shows it; an action being corrected is named from the
        hand's log (``fix#7 S1 call 100``), so the dealer sees what the number points at."""
        if e.fix is None:
            return e.text
        line = next((x for x in self.desk.screen().log if x.index == e.fix), None)
        what = ("not an action" if line is None else
                f"S{line.seat} {line.action}" + (f" {line.amount}" if line.amount else ""))
        return f"{e.text} ({what})"

    def _reset(self) -> None:
        self.keys.clear()
        self.desk.keying("")

    # ------------------------------------------------------------------ the grammar
    def command(self, verb: Verb, e: Entry) -> Command:
        """The command ``verb`` makes of entry ``e``, or :class:`Refused`."""
        name = verb.replace("_", " ").upper()
        if e.fix is not None:
            return self._correction(verb, e)
        if verb in BARE:
            if not e.empty:
                raise Refused(f"{name} takes nothing keyed before it: CLEAR, then {name}")
            return Command(verb)
        if verb in SEAT_ONLY:
            if e.chips or e.bb or (e.number and e.seat is not None):
                raise Refused(f"{name} takes a seat, not an amount: CLEAR, then [seat] {name}")
            seat = e.integer("the seat number") if e.number else e.seat
            return Command(verb, seat=seat)
        if verb is Verb.BET:
            if e.chips:
                raise Refused("+ is for CHIPS: key the bet's total, then BET")
            amount, bb = _amount(e)
            return Command(verb, seat=e.seat, amount=amount, bb=bb)
        if verb is Verb.CHIPS:
            if e.chips:
                if e.bb:
                    raise Refused("chips are keyed in chips, not big blinds")
                last = (int(e.number),) if e.number else ()
                return Command(verb, seat=e.seat, chips=(*e.chips, *last))
            amount, bb = _amount(e)
            return Command(verb, seat=e.seat, amount=amount, bb=bb)
        if verb is Verb.COUNT:
            if e.chips:
                counts = (*e.chips, e.integer("the last count")) if e.number else e.chips
                if len(counts) % 2:
                    raise Refused("key each chip's value and its count: 25 + 7 + 100 + 2 COUNT")
                return Command(verb, seat=e.seat, chips=counts)
            return Command(verb, seat=e.seat,
                           amount=e.integer("the count") if e.number else None)
        if verb is Verb.CHOOSE:
            return Command(verb, index=e.integer("the choice's number") if e.number else None)
        if verb is Verb.DECK:
            return Command(verb, name=self._deck(e))
        if verb is Verb.RACE_CARD:
            return Command(verb, seat=e.seat, name=_card(e.number))
        return Command(verb, seat=e.seat)

    def _correction(self, verb: Verb, e: Entry) -> Command:
        assert e.fix is not None
        if verb not in CORRECTABLE:
            raise Refused(f"action {e.fix} should have been FOLD, CHECK, CALL or BET: press "
                          "one (CLEAR to give up)")
        seat = e.seat
        amount, bb = _amount(e) if verb is Verb.BET else (None, None)
        if verb is not Verb.BET and e.number:
            if seat is not None:
                raise Refused(f"{verb.upper()} takes no amount: CLEAR and key again")
            seat = e.integer("the seat number")
        if seat is None:  # the seat of that action, as the display's log lists it
            seat = next((line.seat for line in self.desk.screen().log
                         if line.index == e.fix), None)
        return Command(Verb.CORRECT, seat=seat, index=e.fix, action=verb, amount=amount,
                       bb=bb)

    def _deck(self, e: Entry) -> str:
        decks = self.desk.screen().decks
        listed = "; ".join(f"{n} {d}" for n, d in enumerate(decks, start=1)) or "none saved"
        n = e.integer("the deck's number") if e.number else 0
        if not 1 <= n <= len(decks):
            raise Refused(f"key the deck's number, then DECK ({listed})")
        return decks[n - 1]


def _amount(e: Entry) -> tuple[int | None, float | None]:
    """The amount keyed, in chips or else in big blinds (the desk multiplies)."""
    if not e.number:
        return None, None
    if e.bb:
        return None, float(e.number)
    if "." in e.number:
        raise Refused("an amount with a decimal point is in big blinds: add BB")
    return int(e.number), None


def _card(number: str) -> str:
    """``14.4`` -> ``As``: rank 2..14 (ace 14 or 1), suit 1..4 (c d h s)."""
    rank, _, suit = number.partition(".")
    if not (rank.isdigit() and suit.isdigit() and 1 <= int(rank) <= 14
            and 1 <= int(suit) <= 4):
        raise Refused("key the race card as rank.suit, then RACE CARD: 14.4 is As (rank "
                      "2-14, ace 14 or 1; suit 1-4: c d h s)")
    r = int(rank)
    return RANKS[12 if r in (1, 14) else r - 2] + SUITS[int(suit) - 1]


# ---------------------------------------------------------------- the tasks
async def run_keypad(desk: Desk, device: str, keymap: KeyMap, *, opener: Opener = open_evdev,
                     profile: str = "the board profile", retry_s: float = RETRY_S) -> None:
    """Read the keypad at ``device`` (its ``[keypad] device``) into ``desk`` until
    cancelled. Raises a ``DeviceError`` at once when the keypad cannot be opened; one
    unplugged later is reported on the display and picked up again when it is back."""
    pad = Keypad(desk, keymap)

    def status(connected: bool, message: str) -> None:
        pad.keys.clear()
        desk.keying("")
        desk.say(Reply(connected, message))

    keys = read_keys(device, keymap.by_code(), opener=opener, profile=profile,
                     on_status=status, retry_s=retry_s)
    try:
        async for down in keys:
            handle(pad, down)
    finally:
        with contextlib.suppress(RuntimeError):  # already closing
            await keys.aclose()


def handle(pad: Keypad, down: KeyDown) -> Reply | None:
    """One key from the device: a key of the map, or the message about one that is not."""
    return pad.press(down.key) if down.key is not None else pad.unknown(down.code)


async def run_dealer_display(desk: Desk, display: DealerDisplay, *,
                             refresh_s: float = 1.0) -> None:
    """Keep ``display`` showing the desk's screen until cancelled: redrawn when the desk
    says it changed (coalesced), and every ``refresh_s`` for the shot clock's seconds
    (an unchanged frame is not sent)."""
    changed = asyncio.Event()
    stop = desk.subscribe(changed.set)
    try:
        while True:
            changed.clear()
            display.show(desk.screen().lines())
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(refresh_s):
                    await changed.wait()
    finally:
        stop()
