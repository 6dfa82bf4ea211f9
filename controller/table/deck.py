"""The deck's RFID map: enrolment, the table's library of saved decks, and the count at the
shuffle (CARD-1: one standard 52-card deck per hand).

Each playing card carries a tag. A deck is *enrolled* once: the dealer places its 52 cards
on the ``deck`` reader in a known order (2c 2d 2h 2s 3c ... As, the engine's card order),
and each UID is mapped to the card at that place. Every tag is checked as it comes: one
read twice, one of another saved deck (a *foreign* card) or one that is no playing card's
is refused with the reason and the enrolment goes on. The map is saved under a name in the
table's :class:`DeckLibrary`, written atomically (temporary file, fsync, rename), with a
version number and a SHA-256 of its content; the house changes decks by choosing a saved
one between hands (CARD-6). During play a UID the map does not know is reported, never
guessed; one of another saved deck is reported as foreign.

A saved map is a secret of a kind: whoever holds it can tell face-down cards with a reader.
So its file is readable by the table's user only (0600, in a 0700 directory), its UIDs are
never journaled (the journal goes to the floor: a ``DeckReport`` carries the name, the
version and the digest) and never logged.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import TypeAdapter, ValidationError

from controller.events.floor import DeckName
from controller.rules.cards import DECK, Card

FORMAT = "pitboss-deck/1"
CARD_TAG_BYTES = 7
"""The UID length of a playing card's tag: NTAG21x, ISO 14443A double-size UIDs (the seat
nodes' and the Pi's readers read 4-, 7- and 10-byte UIDs; a 4-byte UID is a MIFARE Classic:
a player card, a key fob)."""

log = logging.getLogger("pitboss.table")
_DECK_NAME: TypeAdapter[str] = TypeAdapter(DeckName)

Elsewhere = Callable[[bytes], tuple[str, Card] | None]
"""Which other saved deck a tag belongs to, and as which card (None: no other deck's)."""


class DeckMapError(ValueError):
    """A deck map file that cannot be read, or an enrolment that cannot be completed."""


def _nowhere(uid: bytes) -> tuple[str, Card] | None:
    """No other deck is known (a table without a library)."""
    return None


def not_a_card_tag(uid: bytes) -> str | None:
    """Why ``uid`` cannot be a playing card's tag (None: it can be)."""
    if len(uid) != CARD_TAG_BYTES:
        return (f"a {len(uid)}-byte tag is no playing card's (the cards carry "
                f"{CARD_TAG_BYTES}-byte NTAG tags): take it off the deck reader")
    return None


def not_a_deck_name(name: str) -> str | None:
    """Why ``name`` cannot name a saved deck (None: it can)."""
    try:
        _DECK_NAME.validate_python(name)
    except ValidationError:
        return (f"{name!r} is not a deck name: 1 to 40 letters, digits and _ . -, starting "
                "with a letter or digit (e.g. red-2)")
    return None


def _digest(pairs: Mapping[bytes, Card]) -> str:
    text = "\n".join(f"{uid.hex()}={DECK[c]}" for uid, c in sorted(pairs.items()))
    return hashlib.sha256(text.encode()).hexdigest()


def _write_private(target: Path, text: str) -> None:
    """Write atomically (a crash leaves the old file or the new one, never half), readable
    by the table's user only."""
    target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=target.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            os.fchmod(f.fileno(), 0o600)
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@dataclass(frozen=True, slots=True)
class DeckMap:
    """UID -> card for one enrolled deck; ``version`` grows with each enrolment; ``name``
    is the deck's in the library (None: not saved)."""

    cards: Mapping[bytes, Card]
    version: int = 1
    name: str | None = None
    _by_card: Mapping[Card, bytes] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        by_card: dict[Card, bytes] = {}
        for uid, card in self.cards.items():
            if card in by_card:
                raise DeckMapError(f"{DECK[card]} is mapped twice ({by_card[card].hex()} and "
                                   f"{uid.hex()}): one tag per card (CARD-1)")
            by_card[DECK[card]] = uid
        object.__setattr__(self, "_by_card", by_card)

    @property
    def digest(self) -> str:
        """SHA-256 of the (uid, card) pairs, sorted: equal maps have equal digests."""
        return _digest(self.cards)

    @property
    def label(self) -> str:
        """The deck in words, for the dealer: ``deck 'red-2'``."""
        return f"deck {self.name!r}" if self.name else f"deck version {self.version}"

    def card(self, uid: bytes) -> Card | None:
        """The card with this tag, or None (an unknown tag is never guessed)."""
        return self.cards.get(uid)

    def uid(self, card: int) -> bytes:
        """The tag of ``card`` (for the virtual dealer)."""
        return self._by_card[DECK[card]]

    def named(self, name: str) -> DeckMap:
        """This map under ``name`` (as the library saves it)."""
        return DeckMap(self.cards, self.version, name)

    @classmethod
    def from_order(cls, uids: Iterable[bytes], version: int = 1,
                   name: str | None = None) -> DeckMap:
        """The map of a deck read in card order: the first UID is 2c, the last As."""
        listed = list(uids)
        if len(listed) != 52 or len(set(listed)) != 52:
            raise DeckMapError(f"a deck is 52 different tags, got {len(set(listed))} "
                               f"different of {len(listed)} (CARD-1)")
        return cls({uid: DECK[i] for i, uid in enumerate(listed)}, version, name)

    # -- storage
    def to_json(self) -> str:
        data: dict[str, object] = {"format": FORMAT, "version": self.version}
        if self.name is not None:
            data["name"] = self.name
        data["sha256"] = self.digest
        data["cards"] = {uid.hex(): str(DECK[c]) for uid, c in
                         sorted(self.cards.items(), key=lambda kv: kv[1])}
        return json.dumps(data, indent=1)

    @classmethod
    def from_json(cls, text: str, source: str = "deck map") -> DeckMap:
        try:
            data = json.loads(text)
            if data.get("format") != FORMAT:
                raise DeckMapError(f"{source}: format is {data.get('format')!r}, not {FORMAT}")
            cards = {bytes.fromhex(u): Card.parse(c) for u, c in data["cards"].items()}
            name = data.get("name")
            deck = cls(cards, int(data["version"]), name if isinstance(name, str) else None)
        except DeckMapError:
            raise
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise DeckMapError(f"{source}: not a deck map ({exc})") from None
        if deck.digest != data.get("sha256"):
            raise DeckMapError(f"{source}: content hash does not match: the file was changed "
                               "or damaged; enrol the deck again")
        if len(deck.cards) != 52:
            raise DeckMapError(f"{source}: {len(deck.cards)} cards, a deck has 52 (CARD-1)")
        return deck

    def save(self, path: str | Path) -> None:
        """Write atomically, mode 0600: a crash leaves the old file or the new one."""
        _write_private(Path(path), self.to_json())

    @classmethod
    def load(cls, path: str | Path) -> DeckMap:
        p = Path(path)
        return cls.from_json(p.read_text(encoding="utf-8"), str(p))


class DeckLibrary:
    """The table's saved decks: ``<name>.json`` each in one directory (0700, files 0600),
    and which one is in play (``in-play``), so a restarted table plays the same deck.
    Every saved tag is indexed: a tag of one deck read while another is in play is
    *foreign* (:meth:`owner`)."""

    IN_PLAY = "in-play"

    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        self._decks: dict[str, DeckMap] = {}
        self._owner: dict[bytes, tuple[str, Card]] = {}
        self.damaged: dict[str, str] = {}  # name -> why its file cannot be read
        for path in sorted(self.directory.glob("*.json")):
            name = path.stem
            if not_a_deck_name(name) is not None:
                continue
            try:
                self._index(DeckMap.load(path).named(name))
            except (DeckMapError, OSError) as exc:
                self.damaged[name] = str(exc)
                log.warning("saved deck %r cannot be read (%s): enrol it again", name, exc)

    def _index(self, deck: DeckMap) -> None:
        assert deck.name is not None
        old = self._decks.get(deck.name)
        if old is not None:
            for uid in old.cards:
                self._owner.pop(uid, None)
        self._decks[deck.name] = deck
        self.damaged.pop(deck.name, None)
        for uid, card in deck.cards.items():
            self._owner.setdefault(uid, (deck.name, card))

    def names(self) -> tuple[str, ...]:
        """The saved decks a dealer may choose, by name."""
        return tuple(sorted(self._decks))

    def __contains__(self, name: object) -> bool:
        return name in self._decks

    def load(self, name: str) -> DeckMap:
        """The saved deck ``name``; raises with the names there are if there is none."""
        deck = self._decks.get(name)
        if deck is not None:
            return deck
        if name in self.damaged:
            raise DeckMapError(f"saved deck {name!r} cannot be read ({self.damaged[name]})")
        saved = ", ".join(self.names()) or "none yet: enrol one"
        raise DeckMapError(f"there is no saved deck {name!r}; saved decks: {saved}")

    def save(self, deck: DeckMap) -> None:
        """Save ``deck`` under its name (replacing a saved deck of that name)."""
        if deck.name is None or not_a_deck_name(deck.name) is not None:
            raise DeckMapError(f"a saved deck needs a name, not {deck.name!r}")
        deck.save(self.directory / f"{deck.name}.json")
        self._index(deck)
        log.info("deck %r saved (version %d)", deck.name, deck.version)

    def owner(self, uid: bytes) -> tuple[str, Card] | None:
        """The saved deck this tag belongs to, and its card there (None: no saved deck's)."""
        return self._owner.get(uid)

    def next_version(self) -> int:
        """The version of the next deck enrolled: above every saved deck's."""
        return max((d.version for d in self._decks.values()), default=0) + 1

    def in_play(self) -> DeckMap | None:
        """The deck last put in play (None: none, or it is no longer saved)."""
        marker = self.directory / self.IN_PLAY
        try:
            name = marker.read_text(encoding="utf-8").strip()
        except FileNotFoundError:
            return None
        deck = self._decks.get(name)
        if deck is None:
            log.warning("the deck in play, %r, is not saved any more: choose or enrol a "
                        "deck at the terminal", name)
        return deck

    def put_in_play(self, name: str) -> None:
        """Remember ``name`` as the deck in play (atomically), for the next start."""
        if name not in self._decks:
            raise DeckMapError(f"there is no saved deck {name!r} to put in play")
        _write_private(self.directory / self.IN_PLAY, name + "\n")


class Enrolment:
    """Reading a new deck at the ``deck`` reader, card by card in a known order: the
    engine's (2c 2d 2h 2s 3c ... As) unless the dealer states another (a new deck's
    order out of the box, or the cards keyed in as they come). ``elsewhere`` says which
    other saved deck a tag belongs to: such a tag is refused as foreign (CARD-1)."""

    def __init__(self, previous_version: int = 0, order: Sequence[int] = DECK, *,
                 name: str | None = None, elsewhere: Elsewhere = _nowhere) -> None:
        if sorted(order) != list(range(52)):
            raise DeckMapError("an enrolment order names each of the 52 cards once (CARD-1)")
        self.version = previous_version + 1
        self.order = tuple(DECK[c] for c in order)
        self.name = name
        self.elsewhere = elsewhere
        self.uids: list[bytes] = []

    @property
    def next_card(self) -> Card | None:
        """The card the dealer should place next, or None when all 52 are read."""
        return self.order[len(self.uids)] if len(self.uids) < 52 else None

    def read(self, uid: bytes) -> str | None:
        """Take one tag; return a reason if it cannot be the next card (CARD-1)."""
        if uid in self.uids:
            return (f"this tag was already read as {self.order[self.uids.index(uid)]}: "
                    f"place the next card, {self.next_card}")
        why = not_a_card_tag(uid)
        if why is not None:
            return why
        other = self.elsewhere(uid)
        if other is not None:
            return (f"foreign: it is the {other[1]} of deck {other[0]!r}; take it out and "
                    f"place this deck's {self.next_card}")
        if len(self.uids) >= 52:
            return "the deck is complete: 52 cards read; finish the enrolment"
        self.uids.append(uid)
        return None

    def finish(self) -> DeckMap:
        if len(self.uids) != 52:
            raise DeckMapError(f"{len(self.uids)} of 52 cards read; place the next card, "
                               f"{self.next_card}, then finish")
        return DeckMap(dict(zip(self.uids, self.order, strict=True)), self.version, self.name)


class DeckCount:
    """The count at the shuffle: every card seen once at the ``deck`` reader (CARD-1).
    ``elsewhere`` tells a card of another saved deck (foreign) from an unknown tag."""

    def __init__(self, deck: DeckMap, elsewhere: Elsewhere = _nowhere) -> None:
        self.deck = deck
        self.elsewhere = elsewhere
        self.seen: Counter[Card] = Counter()
        self.unknown: list[bytes] = []
        self.foreign: dict[bytes, tuple[str, Card]] = {}
        self.reported = False  # its complete result was journaled already

    def read(self, uid: bytes) -> None:
        card = self.deck.card(uid)
        if card is not None:
            self.seen[card] += 1
            return
        other = self.elsewhere(uid)
        if other is not None:
            self.foreign.setdefault(uid, other)
        elif uid not in self.unknown:
            self.unknown.append(uid)

    @property
    def reads(self) -> int:
        return sum(self.seen.values()) + len(self.unknown) + len(self.foreign)

    @property
    def counted(self) -> int:
        """How many of the deck's 52 cards were seen."""
        return len(self.seen)

    @property
    def complete(self) -> bool:
        """Every card seen once, nothing else (cheap: asked at each read)."""
        return (len(self.seen) == 52 and not self.unknown and not self.foreign
                and max(self.seen.values()) == 1)

    def result(self) -> DeckCheck:
        """What the count found, cards in deck order."""
        missing = tuple(c for c in DECK if not self.seen[c])
        twice = tuple(c for c in DECK if self.seen[c] > 1)
        unknown = tuple(self.unknown)
        foreign = tuple(self.foreign.values())
        return DeckCheck(not (missing or twice or unknown or foreign), missing, twice,
                         unknown, foreign)


@dataclass(frozen=True, slots=True)
class DeckCheck:
    """The count at the shuffle (CARD-1): what was missing, twice, unknown or foreign. The
    dealer's screen names the cards; the journal and the host get the counts only
    (``DeckReport``)."""

    complete: bool
    missing: tuple[Card, ...]
    duplicated: tuple[Card, ...]
    unknown: tuple[bytes, ...]  # UIDs no saved deck knows
    foreign: tuple[tuple[str, Card], ...] = ()  # cards of another saved deck: (deck, card)

    @property
    def text(self) -> str:
        """The result in words, cards by name, for the dealer."""
        if self.complete:
            return "deck complete: 52 cards"
        parts = []
        if self.missing:
            parts.append("missing " + " ".join(c.symbol() for c in self.missing))
        if self.duplicated:
            parts.append("twice " + " ".join(c.symbol() for c in self.duplicated))
        if self.foreign:
            parts.append("foreign " + " ".join(f"{c.symbol()} of {name!r}"
                                               for name, c in self.foreign))
        if self.unknown:
            parts.append(f"{len(self.unknown)} unknown card(s)")
        return "; ".join(parts)
