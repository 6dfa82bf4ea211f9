"""The deck's RFID map: enrolment, storage, and the count at the shuffle (CARD-1).

Each playing card carries a tag. A deck is *enrolled* once: the dealer places its 52 cards
on the ``deck`` reader in a known order (2c 2d 2h 2s 3c ... As, the engine's card order),
and each UID is mapped to the card at that place. The map is stored as a small JSON file,
written atomically (temporary file, fsync, rename), with a version number and a SHA-256
of its content. During play a UID the map does not know is reported, never guessed.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from controller.rules.cards import DECK, Card

FORMAT = "pitboss-deck/1"


class DeckMapError(ValueError):
    """A deck map file that cannot be read, or an enrolment that cannot be completed."""


def _digest(pairs: Mapping[bytes, Card]) -> str:
    text = "\n".join(f"{uid.hex()}={DECK[c]}" for uid, c in sorted(pairs.items()))
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class DeckMap:
    """UID -> card for one enrolled deck; ``version`` grows with each enrolment."""

    cards: Mapping[bytes, Card]
    version: int = 1
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

    def card(self, uid: bytes) -> Card | None:
        """The card with this tag, or None (an unknown tag is never guessed)."""
        return self.cards.get(uid)

    def uid(self, card: int) -> bytes:
        """The tag of ``card`` (for the virtual dealer)."""
        return self._by_card[DECK[card]]

    @classmethod
    def from_order(cls, uids: Iterable[bytes], version: int = 1) -> DeckMap:
        """The map of a deck read in card order: the first UID is 2c, the last As."""
        listed = list(uids)
        if len(listed) != 52 or len(set(listed)) != 52:
            raise DeckMapError(f"a deck is 52 different tags, got {len(set(listed))} "
                               f"different of {len(listed)} (CARD-1)")
        return cls({uid: DECK[i] for i, uid in enumerate(listed)}, version)

    # -- storage
    def to_json(self) -> str:
        return json.dumps({"format": FORMAT, "version": self.version, "sha256": self.digest,
                           "cards": {uid.hex(): str(DECK[c]) for uid, c in
                                     sorted(self.cards.items(), key=lambda kv: kv[1])}},
                          indent=1)

    @classmethod
    def from_json(cls, text: str, source: str = "deck map") -> DeckMap:
        try:
            data = json.loads(text)
            if data.get("format") != FORMAT:
                raise DeckMapError(f"{source}: format is {data.get('format')!r}, not {FORMAT}")
            cards = {bytes.fromhex(u): Card.parse(c) for u, c in data["cards"].items()}
            deck = cls(cards, int(data["version"]))
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
        """Write atomically: a crash leaves the old file or the new one, never half."""
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=target.name, suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(self.to_json())
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    @classmethod
    def load(cls, path: str | Path) -> DeckMap:
        p = Path(path)
        return cls.from_json(p.read_text(encoding="utf-8"), str(p))


class Enrolment:
    """Reading a new deck at the ``deck`` reader, card by card in a known order: the
    engine's (2c 2d 2h 2s 3c ... As) unless the dealer states another (a new deck's
    order out of the box, or the cards keyed in as they come)."""

    def __init__(self, previous_version: int = 0, order: Sequence[int] = DECK) -> None:
        if sorted(order) != list(range(52)):
            raise DeckMapError("an enrolment order names each of the 52 cards once (CARD-1)")
        self.version = previous_version + 1
        self.order = tuple(DECK[c] for c in order)
        self.uids: list[bytes] = []

    @property
    def next_card(self) -> Card | None:
        """The card the dealer should place next, or None when all 52 are read."""
        return self.order[len(self.uids)] if len(self.uids) < 52 else None

    def read(self, uid: bytes) -> str | None:
        """Take one tag; return a reason if it cannot be the next card."""
        if uid in self.uids:
            return f"this tag was already read as {self.order[self.uids.index(uid)]}"
        if len(self.uids) >= 52:
            return "the deck is complete: 52 cards read"
        self.uids.append(uid)
        return None

    def finish(self) -> DeckMap:
        if len(self.uids) != 52:
            raise DeckMapError(f"{len(self.uids)} of 52 cards read; next: {self.next_card}")
        return DeckMap(dict(zip(self.uids, self.order, strict=True)), self.version)


class DeckCount:
    """The count at the shuffle: every card seen once at the ``deck`` reader (CARD-1)."""

    def __init__(self, deck: DeckMap) -> None:
        self.deck = deck
        self.seen: Counter[Card] = Counter()
        self.unknown: list[bytes] = []

    def read(self, uid: bytes) -> None:
        card = self.deck.card(uid)
        if card is None:
            if uid not in self.unknown:
                self.unknown.append(uid)
        else:
            self.seen[card] += 1

    @property
    def reads(self) -> int:
        return sum(self.seen.values()) + len(self.unknown)

    def result(self) -> DeckCheck:
        """What the count found, cards in deck order."""
        missing = tuple(c for c in DECK if not self.seen[c])
        twice = tuple(c for c in DECK if self.seen[c] > 1)
        unknown = tuple(self.unknown)
        return DeckCheck(not (missing or twice or unknown), missing, twice, unknown)


@dataclass(frozen=True, slots=True)
class DeckCheck:
    """The count at the shuffle (CARD-1): what was missing, twice or foreign. The dealer's
    screen names the cards; the journal and the host get the counts only
    (``DeckReport``)."""

    complete: bool
    missing: tuple[Card, ...]
    duplicated: tuple[Card, ...]
    unknown: tuple[bytes, ...]  # UIDs not in the deck map: a foreign card

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
        if self.unknown:
            parts.append(f"{len(self.unknown)} unknown card(s)")
        return "; ".join(parts)
