"""The floor's hands as Open Hand History (OHH 1.4.7, https://hh-specs.handhistory.org) for
the players' trackers, and a tournament's results as an Open Tournament Summary (OTS 1.1.5,
https://ts-specs.handhistory.org: OHH 1.4.3 moved tournament results there).

A stored hand (:class:`~host_bridge.models.Hand`: its PHH, seats, times, the house's unit)
becomes an ``ohh`` object through the rules room's writer
(:func:`controller.rules.ohh_write.to_ohh`); this module adds what only the floor knows
(the table's button from the hand's ``hand_started``, the table's size from its house, the
money, the tournament) and decides whose hole cards the reader may see (:class:`Viewer`):

* the full copy, every hand dealt, for the roles that may see hole cards once a hand is over
  (:data:`HOLE_CARD_ROLES`: ``broadcast``, ``director``, ``admin``);
* the public copy for every other role: no hole card but those shown at the showdown;
* a player's own copy: their own hole cards, and the cards shown, the player as the hero.

Money, converted exactly (OHH amounts are decimals of the currency; ours are ints in the
smallest unit): a ``cent`` table's amounts are euro cents, written as euros (divided by
100); a ``kr`` table's whole Danish kroner (DKK); a tournament's amounts are chips, written
as numbers, the currency being the buy-in's (the director's money is euro cents). A table
that named no house, or plays chips outside a tournament the bridge runs, writes its units
as they are, in XPM (OHH's money "with no monetary value").

Files: several hands are one ``{"ohh": ...}`` object per line with a blank line between
(the spec's storage format), served as a download.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from importlib import metadata
from typing import Any, Final

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from controller.clocks.house import HouseError, parse_house
from controller.events import HandStarted, HouseSet
from controller.rules import phh
from controller.rules.errors import RulesError
from controller.rules.ohh_write import NETWORK, OhhTable, to_ohh
from controller.sync.messages import EventMessage
from host_bridge.director.entries import Stage
from host_bridge.director.journal import DirectorRecord
from host_bridge.director.service import TournamentDirector
from host_bridge.director.standings import places
from host_bridge.models import EventRecord, Hand, StackRecord
from host_bridge.settings import Role

log = logging.getLogger(__name__)

#: roles that see every hole card of a finished hand (the others: the public copy)
HOLE_CARD_ROLES: Final = frozenset({Role.BROADCAST, Role.DIRECTOR, Role.ADMIN})
#: the house's unit -> (ISO 4217 currency, smallest units per currency unit)
CURRENCIES: Final[Mapping[str, tuple[str, int]]] = {"cent": ("EUR", 100), "kr": ("DKK", 1)}
TOURNAMENT_CURRENCY: Final = "EUR"  # the director's money: euro cents
NO_MONEY: Final = "XPM"  # OHH: "a currency with no monetary value"
TABLE_SIZE: Final = 10  # a table seats 2 to 10 (TOURN-2): when no house says
OTS_VERSION: Final = "1.1.5"
_UNSAFE: Final = re.compile(r"[^A-Za-z0-9_.-]+")


@dataclass(frozen=True, slots=True)
class Viewer:
    """Whose copy: ``full`` (every hole card), else ``player``'s own, else the public's."""

    full: bool = False
    player: str | None = None


FULL: Final = Viewer(full=True)
PUBLIC: Final = Viewer()


def viewer_for(role: Role) -> Viewer:
    """The copy a token's role gets of a finished hand."""
    return FULL if role in HOLE_CARD_ROLES else PUBLIC


@dataclass(frozen=True, slots=True)
class TournamentRef:
    """A tournament as its hands' exports see it: its OHH ``tournament_info``, its tables'
    size, and which hands are its own (a table's hands after ``since``, before ``until``)."""

    id: str
    info: Mapping[str, object]
    seats: int
    since: Mapping[str, int]
    until: Mapping[str, int]

    def owns(self, table: str, first_seq: int) -> bool:
        """Whether the hand of ``table`` that began at ``first_seq`` was this tournament's."""
        return (table in self.since and self.since[table] < first_seq
                and first_seq < self.until.get(table, 2 ** 63))


def safe_name(text: str) -> str:
    """A file name part in ASCII only (the spec: file names MUST be ASCII)."""
    return _UNSAFE.sub("_", text).strip("._") or "hands"


def version() -> str:
    """Pitboss's version, OHH's ``internal_version``."""
    try:
        return metadata.version("pitboss")
    except metadata.PackageNotFoundError:
        return "0.0.0"


def utc(ts: float) -> str:
    """A POSIX time as OHH writes dates: ISO 8601, UTC."""
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


# ---------------------------------------------------------------- tournaments


def _journal_time(session: Session, tid: str, kind: str | None, *, last: bool = False
                  ) -> float | None:
    when = func.max(DirectorRecord.at) if last else func.min(DirectorRecord.at)
    query = select(when).where(DirectorRecord.tournament == tid)
    if kind is not None:
        query = query.where(DirectorRecord.kind == kind)
    value = session.scalar(query)
    return None if value is None else float(value)


def _speed(seconds: int) -> dict[str, object]:
    """OHH's speed names by level length, as we read them (the spec gives no bounds)."""
    kind = "Normal" if seconds >= 600 else "Turbo" if seconds >= 300 else "Hyper-Turbo"
    return {"type": kind, "round_time": seconds}


def _cents(amount: int) -> int | float:
    return amount // 100 if amount % 100 == 0 else float(amount) / 100


def _flags(director: TournamentDirector) -> list[str]:
    setup = director.model.setup
    flags = [name for name, on in (
        ("SNG", setup.sit_and_go), ("Rebuy", bool(setup.rebuy_levels)),
        ("Re-Entry", setup.re_entry), ("Bounty", bool(setup.bounty)),
        ("Progressive-Bounty", setup.progressive is not None)) if on]
    return flags


def tournament_info(session: Session, director: TournamentDirector) -> dict[str, object]:
    """OHH's ``tournament_info`` of a tournament the bridge runs."""
    setup = director.model.setup
    start = (_journal_time(session, director.id, "start")
             or _journal_time(session, director.id, None) or 0.0)
    info: dict[str, object] = {
        "tournament_number": director.id, "name": setup.name, "start_date_utc": utc(start),
        "currency": TOURNAMENT_CURRENCY, "buyin_amount": _cents(setup.buy_in - setup.bounty),
        "fee_amount": _cents(setup.fee), "initial_stack": setup.stack,
        "type": "STT" if len(director.views) == 1 else "MTT", "flags": _flags(director),
        "speed": _speed(int(setup.structure.levels[0].seconds))}
    if setup.bounty:
        info["bounty_fee_amount"] = _cents(setup.bounty)
    return info


def tournament_refs(session: Session, directors: Sequence[TournamentDirector]
                    ) -> list[TournamentRef]:
    """Every tournament of the bridge, each with the span of each of its tables' events
    that is its own (up to the next tournament over the same table)."""
    refs = []
    for d in directors:
        since = {w: d.since.get(w, 0) for w in d.views}
        until = {}
        for w, s in since.items():
            later = [o.since.get(w, 0) for o in directors
                     if o is not d and w in o.views and o.since.get(w, 0) > s]
            if later:
                until[w] = min(later)
        refs.append(TournamentRef(d.id, tournament_info(session, d),
                                  d.model.setup.seats_per_table, since, until))
    return refs


def tournament_of(refs: Iterable[TournamentRef], hand: Hand) -> TournamentRef | None:
    """The tournament a hand was played in: the latest one over its table before it, if the
    hand was played for chips (a cash house after the tournament is not its)."""
    if hand.unit not in (None, "chip"):
        return None
    owners = [r for r in refs if r.owns(hand.table_id, hand.first_seq)]
    return max(owners, key=lambda r: r.since[hand.table_id], default=None)


# ---------------------------------------------------------------- hands


def hands_of_day(session: Session, table_id: str, day: date) -> list[Hand]:
    """A table's hands that started on the UTC ``day`` (the day they were played)."""
    start = datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp()
    return list(session.scalars(select(Hand).where(
        Hand.table_id == table_id, Hand.started_ts >= start, Hand.started_ts < start + 86400,
        Hand.status == "ended").order_by(Hand.hand_no)))


def hands_of_tournament(session: Session, ref: TournamentRef) -> list[Hand]:
    """The tournament's hands at each of its tables, in the order they started."""
    out: list[Hand] = []
    for table, since in ref.since.items():
        query = select(Hand).where(Hand.table_id == table, Hand.first_seq > since,
                                   Hand.status == "ended")
        if table in ref.until:
            query = query.where(Hand.first_seq < ref.until[table])
        out += session.scalars(query)
    return sorted(out, key=lambda h: (h.started_ts, h.table_id, h.hand_no))


def hands_of_player(session: Session, player: str, day: date | None = None) -> list[Hand]:
    """The hands a player was dealt into (the stacks the floor recorded when each ended),
    in the order they started; ``day``: only those that started on that UTC day."""
    keys = select(StackRecord.table_id, StackRecord.hand_no).where(
        StackRecord.player_id == player, StackRecord.hand_no.is_not(None)).distinct()
    wanted = {(t, n) for t, n in session.execute(keys)}
    if not wanted:
        return []
    query = select(Hand).where(Hand.table_id.in_({t for t, _ in wanted}),
                               Hand.status == "ended")
    if day is not None:
        start = datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp()
        query = query.where(Hand.started_ts >= start, Hand.started_ts < start + 86400)
    found = [h for h in session.scalars(query) if (h.table_id, h.hand_no) in wanted]
    return sorted(found, key=lambda h: (h.started_ts, h.table_id, h.hand_no))


class HandFacts:
    """What a hand's export needs from the table's events: the button of its
    ``hand_started`` and the size of the house in force (cached per house)."""

    def __init__(self, session: Session) -> None:
        self._session = session
        self._sizes: dict[int, int] = {}

    def _event(self, table: str, seq: int) -> Any:
        payload = self._session.scalar(select(EventRecord.payload).where(
            EventRecord.table_id == table, EventRecord.seq == seq))
        return None if payload is None else EventMessage.model_validate_json(payload).event

    def button(self, hand: Hand) -> int:
        """The button's seat (a dead button's empty seat too, BTN-5); the last seat in
        position order when the table did not say."""
        started = self._event(hand.table_id, hand.first_seq)
        if isinstance(started, HandStarted) and started.button is not None:
            return started.button
        return hand.seats[-1]

    def table_size(self, hand: Hand) -> int:
        """The seats of the house in force when the hand started."""
        seq = self._session.scalar(select(func.max(EventRecord.seq)).where(
            EventRecord.table_id == hand.table_id, EventRecord.kind == "house_set",
            EventRecord.seq < hand.first_seq))
        if seq is None:
            return TABLE_SIZE
        if seq not in self._sizes:
            event = self._event(hand.table_id, seq)
            size = TABLE_SIZE
            if isinstance(event, HouseSet):
                try:
                    size = parse_house(event.text, event.house.name).seats
                except (HouseError, RulesError, ValueError):
                    size = TABLE_SIZE  # a text this version no longer reads
            self._sizes[seq] = size
        return self._sizes[seq]


def hand_ohh(hand: Hand, viewer: Viewer, facts: HandFacts, *, site: str,
             tournament: TournamentRef | None = None) -> dict[str, object] | None:
    """The ``ohh`` object of a finished hand as ``viewer`` may see it; None when the hand
    has no history or the viewer is a player who was not dealt in. Raises
    :class:`RulesError` if the stored history cannot be written (the message says why)."""
    if hand.status != "ended" or hand.phh is None:
        return None
    history = phh.loads(hand.phh, f"hand {hand.hand_no} at table {hand.table_id}")[0]
    names = history.players or ()
    hero = names.index(viewer.player) if viewer.player in names else None
    if viewer.player is not None and hero is None:
        return None
    reveal = (frozenset(range(history.player_count)) if viewer.full
              else frozenset({hero}) if hero is not None else frozenset())
    if tournament is not None:
        currency, per = TOURNAMENT_CURRENCY, 1
    else:
        currency, per = CURRENCIES.get(hand.unit or "", (NO_MONEY, 1))
    table = OhhTable(
        site_name=site, game_number=f"{hand.table_id}-{hand.hand_no}",
        table_name=hand.table_id, start_date_utc=utc(hand.started_ts),
        seats=tuple(hand.seats), dealer_seat=facts.button(hand),
        table_size=tournament.seats if tournament else facts.table_size(hand),
        currency=currency, per_currency_unit=per, unit=hand.unit, internal_version=version(),
        tournament_info=tournament.info if tournament else None, reveal=reveal, hero=hero,
        table=hand.table_id, hand_no=hand.hand_no)
    return to_ohh(history, table)


def ohh_file(hands: Iterable[dict[str, object]]) -> str:
    """Hands as an .ohh file: one ``{"ohh": ...}`` per line, a blank line between."""
    return "".join(json.dumps({"ohh": h}, ensure_ascii=False) + "\n\n" for h in hands)


def export_hands(hands: Sequence[Hand], viewer: Viewer, facts: HandFacts, *, site: str,
                 refs: Sequence[TournamentRef] = ()) -> tuple[list[dict[str, object]], int]:
    """The hands' ``ohh`` objects as ``viewer`` may see them, and how many hands that ended
    could not be written (no PHH, or one that does not replay: logged)."""
    out, skipped = [], 0
    for hand in hands:
        if hand.phh is None:
            skipped += 1
            continue
        try:
            doc = hand_ohh(hand, viewer, facts, site=site, tournament=tournament_of(refs, hand))
        except RulesError as exc:
            log.warning("table %s hand %d has no OHH: %s", hand.table_id, hand.hand_no, exc)
            skipped += 1
            continue
        if doc is not None:
            out.append(doc)
    return out, skipped


# ---------------------------------------------------------------- tournament summary


def tournament_summary(session: Session, director: TournamentDirector, *, site: str
                       ) -> dict[str, object]:
    """The tournament's Open Tournament Summary (``ots`` object): buy-in, fee, pool, every
    entry's place and prize (re-entries are entries of their own, TOURN-6), rebuys and
    add-ons. Money in euros, chips as numbers."""
    model, setup = director.model, director.model.setup
    info = tournament_info(session, director)
    placed = {p["entry"]: p for p in places(model)}
    finishes: list[dict[str, object]] = []
    for key, entry in model.entries.items():
        if key in placed:
            finishes.append({"player_name": entry.player, "still_playing": False,
                             "finish_position": placed[key]["place"],
                             "prize": _cents(placed[key]["prize"])})
        else:
            finishes.append({"player_name": entry.player, "still_playing": True})
    finishes.sort(key=lambda f: (f["still_playing"], f.get("finish_position", 0)))
    done = model.stage in (Stage.FINISHED, Stage.CANCELLED)
    end = _journal_time(session, director.id, None, last=True) if done else None
    summary: dict[str, object] = {
        "spec_version": OTS_VERSION, "site_name": site, "network_name": NETWORK,
        "internal_version": version(), "tournament_number": director.id,
        "tournament_name": setup.name, "start_date_utc": info["start_date_utc"],
        "end_date_utc": None if end is None else utc(end), "currency": TOURNAMENT_CURRENCY,
        "buyin_amount": info["buyin_amount"], "fee_amount": info["fee_amount"],
        "initial_stack": setup.stack, "type": info["type"], "flags": info["flags"],
        "speed": info["speed"], "prize_pool": _cents(model.pool.total),
        "player_count": len(model.entries), "tournament_finishes_and_winnings": finishes}
    if setup.bounty:
        summary["bounty_fee_amount"] = summary["bounty_value_amount"] = _cents(setup.bounty)
    if setup.rebuy_levels or setup.re_entry:
        summary["rebuy_cost"] = _cents(setup.rebuy_price or setup.buy_in)
    if setup.add_on:
        summary["addon_cost"] = _cents(setup.add_on_price or setup.buy_in)
    rebuys = _rebuys(director)
    if rebuys:
        summary["tournament_rebuys"] = rebuys
    return summary


def _rebuys(director: TournamentDirector) -> list[dict[str, object]]:
    """Per player: rebuys, or re-entries in a re-entry event (OTS counts one or the
    other in ``rebuys``), and add-ons; only players who made any."""
    re_entry = director.model.setup.re_entry
    counts: dict[str, list[int]] = {}  # player -> [entries, rebuys, add-ons]
    for entry in director.model.entries.values():
        c = counts.setdefault(entry.player, [0, 0, 0])
        c[0] += 1
        c[1] += entry.rebuys
        c[2] += int(entry.add_on)
    out: list[dict[str, object]] = []
    for player, (entries, rebuys, add_ons) in counts.items():
        bought = rebuys + (entries - 1 if re_entry else 0)
        if bought or add_ons:
            out.append({"player_name": player, "rebuys": bought, "addons": add_ons})
    return out
