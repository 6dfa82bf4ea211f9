"""Write a finished hand as Open Hand History (OHH 1.4.7, https://hh-specs.handhistory.org),
the JSON that poker trackers read; :mod:`controller.rules.ohh` reads it back.

The hand comes as its PHH record (:class:`~controller.rules.phh.HandHistory`, in the
table's unit, as a table exports it) and is replayed through the engine step by step, so
every OHH amount is the engine's: what each action put in (OHH's ``amount`` of a Raise is
the chips it added, not the total), who went all-in, the pots before and after the rake
(RAKE-1..8: taken from the main pot first), the uncalled part of a bet handed back (POT-3).
OHH has no action for that return: it is written as one more pot that pays the bettor
their own chips, so that every player's finishing stack is their starting stack, less what
they put in, plus what the pots paid them, which :func:`to_ohh` checks before it answers.

Amounts are converted exactly: the table's smallest unit divided by ``per_currency_unit``
(100 cents to the euro; kr and tournament chips are whole numbers), written as JSON
numbers whose decimal text is that exact value (a float's shortest text, exact for every
amount below 10**13 units).

Which hole cards are written is the caller's choice (``OhhTable.reveal``): a player's
``Dealt Cards`` carry their cards only if they are in it. Cards a player showed (or the
rules turned up at once, SHOW-3/4) are public and are written as ``Shows Cards`` in the
Showdown round for everyone. The ``pitboss`` object carries what OHH has no field for (the
house's unit, the rules profile, the rake policy, fixed-limit bets, the rule that killed a
hand written as a Fold), so the reader replays the hand exactly as it was played.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import Final

from controller.rules.actions import (
    BetRaise,
    Call,
    Check,
    DealBoard,
    DealHole,
    Fold,
    Kill,
    Muck,
    Show,
)
from controller.rules.config import LIVE_CASH
from controller.rules.errors import HandHistoryError
from controller.rules.hand import Hand
from controller.rules.ohh import EXTENSION, GAMES, SPEC_VERSION
from controller.rules.phh import HandHistory
from controller.rules.replay import (
    RAKE_FIELD,
    RULES_FIELD,
    config_from_history,
    replay_history,
    rules_from_history,
)

NETWORK: Final = "Pitboss"
_STREETS: Final = {3: "Flop", 4: "Turn", 5: "River"}

Json = dict[str, object]


@dataclass(frozen=True, slots=True)
class OhhTable:
    """What OHH says of a hand beyond its PHH: where and when it was played, in what
    money, and whose hole cards the reader may see. ``seats`` is each player's seat in
    PHH order (small blind first, button last); ``reveal`` the player indices whose dealt
    cards are written; ``hero`` the player whose own export this is (None: the floor's
    copy, flagged ``Observed``)."""

    site_name: str
    game_number: str
    table_name: str
    start_date_utc: str
    seats: tuple[int, ...]
    dealer_seat: int
    table_size: int
    currency: str
    per_currency_unit: int = 1
    unit: str | None = None
    internal_version: str = "0.0.0"
    tournament_info: Mapping[str, object] | None = None
    reveal: frozenset[int] = frozenset()
    hero: int | None = None
    table: str | None = None
    hand_no: int | None = None


@dataclass
class _Writer:
    """The rounds as they are written, one action at a time."""

    money: _Money
    rounds: list[Json] = field(default_factory=list)
    number: int = 0
    dead_hands: dict[str, str] = field(default_factory=dict)

    def round(self, street: str, cards: Sequence[object] = ()) -> None:
        r: Json = {"id": len(self.rounds), "street": street}
        if cards:
            r["cards"] = [str(c) for c in cards]
        r["actions"] = []
        self.rounds.append(r)

    def showdown(self) -> None:
        if self.rounds[-1]["street"] != "Showdown":
            self.round("Showdown")

    def add(self, player: int, action: str, amount: int | None = None, *,
            all_in: bool = False, cards: Sequence[object] | None = None) -> int:
        self.number += 1
        a: Json = {"action_number": self.number, "player_id": player, "action": action}
        if amount is not None:
            a["amount"] = self.money(amount)
        if all_in:
            a["is_allin"] = True
        if cards is not None:
            a["cards"] = [str(c) for c in cards]
        actions = self.rounds[-1]["actions"]
        assert isinstance(actions, list)
        actions.append(a)
        return self.number


@dataclass(frozen=True, slots=True)
class _Money:
    per: int

    def __call__(self, units: int) -> int | float:
        """``units`` of the table's unit in the currency, exactly (see the module notes)."""
        if units % self.per == 0:
            return units // self.per
        return float(Fraction(units, self.per))


def to_ohh(history: HandHistory, table: OhhTable) -> Json:
    """The ``ohh`` object of a finished hand (without the ``{"ohh": ...}`` wrapper).
    Raises :class:`HandHistoryError` if the hand cannot be replayed or is unfinished."""
    if history.unit_scale != 1:
        raise HandHistoryError("write OHH from a hand in the table's own unit (unit_scale 1, "
                               "as a table exports it)")
    if len(table.seats) != history.player_count:
        raise HandHistoryError(f"{len(table.seats)} seats given for "
                               f"{history.player_count} players")
    config = config_from_history(history)
    profile = rules_from_history(history) or LIVE_CASH
    final = replay_history(history, profile)
    if not final.is_complete:
        raise HandHistoryError("the hand is not finished: only a finished hand has an OHH")
    money = _Money(table.per_currency_unit)
    writer = _Writer(money)
    hand = Hand(config, profile)
    paid = _posts(hand, writer)
    returned = _play(hand, final, writer, table.reveal, paid)
    pots, wins = _pots(hand, money, returned)
    if [s - p + w for s, p, w in zip(config.stacks, paid, wins, strict=True)] != hand.stacks:
        raise HandHistoryError(f"the OHH pots do not account for the stacks {hand.stacks}: "
                               "the hand cannot be written")
    return _document(history, table, config.small_blind, config.big_blind,
                     max((*config.antes, config.big_blind_ante)), writer, pots)


def _posts(hand: Hand, writer: _Writer) -> list[int]:
    """The forced bets as the engine took them (a short stack pays what it has), in the
    Preflop round: antes, the blinds, the straddle, other posts, dead money. Returns what
    each player has paid so far."""
    cfg = hand.config
    n = cfg.players
    writer.round("Preflop")
    paid = [cfg.stacks[i] - hand.stacks[i] for i in range(n)]
    live = list(hand.bets)
    antes = [(cfg.antes[i] if cfg.antes else 0)
             + (cfg.big_blind_ante if i == cfg.big_blind_index else 0) for i in range(n)]
    ante = [min(antes[i], paid[i] - live[i]) for i in range(n)]
    names = {cfg.small_blind_index: "Post SB", cfg.big_blind_index: "Post BB",
             cfg.straddle_index: "Straddle"}
    for i in range(n):
        if ante[i]:
            writer.add(i, "Post Ante", ante[i], all_in=paid[i] == cfg.stacks[i])
    for i in range(n):
        if live[i]:
            writer.add(i, names.get(i, "Post Extra Blind"), live[i],
                       all_in=paid[i] == cfg.stacks[i])
    for i in range(n):
        if paid[i] - live[i] - ante[i]:
            writer.add(i, "Post Dead", paid[i] - live[i] - ante[i],
                       all_in=paid[i] == cfg.stacks[i])
    return paid


def _play(hand: Hand, final: Hand, writer: _Writer, reveal: frozenset[int],
          paid: list[int]) -> list[int]:
    """Every logged action again, written as it changed the hand; returns the chips each
    player had handed back (POT-3), for :func:`_pots`."""
    starts = hand.config.stacks
    returned = [0] * len(starts)
    for action in final.log:
        before, bet, street = list(hand.contrib), hand.current_bet, hand.street
        shown = list(hand.shown)
        hand.apply(action)
        delta = [a - b for a, b in zip(hand.contrib, before, strict=True)]
        for q, d in enumerate(delta):
            if d < 0:  # the part nobody matched goes back (POT-3): paid back as a pot
                returned[q] -= d

        def all_in(p: int) -> bool:
            return paid[p] - returned[p] == starts[p]
        match action:
            case DealHole(player=p, cards=cards):
                if p in reveal and None not in cards:
                    writer.add(p, "Dealt Cards", cards=cards)
            case DealBoard():
                writer.round(_STREETS[len(hand.board)], action.cards)
            case Fold(player=p) | Kill(player=p) as gone:
                if isinstance(gone, Fold) and gone.forfeit:
                    paid[p] += gone.forfeit
                    writer.add(p, "Add to Pot", gone.forfeit, all_in=all_in(p))
                number = writer.add(p, "Fold")
                if isinstance(gone, Kill):
                    writer.dead_hands[str(number)] = gone.rule
            case Check(player=p):
                writer.add(p, "Check")
            case Call(player=p) | BetRaise(player=p):
                put = max(delta[p], 0)
                paid[p] += put
                name = "Call" if isinstance(action, Call) else \
                    "Bet" if street > 0 and bet == 0 else "Raise"
                writer.add(p, name, put, all_in=all_in(p))
            case Show(player=p, cards=cards):
                writer.showdown()
                writer.add(p, "Shows Cards", cards=cards)
            case Muck(player=p):
                writer.showdown()
                writer.add(p, "Mucks Cards")
        _tabled(hand, shown, action, writer)
    return returned


def _tabled(hand: Hand, shown_before: Sequence[bool], action: object,
            writer: _Writer) -> None:
    """Hands the rules turned up at once (SHOW-3/4): public, so written as shown."""
    for q, now in enumerate(hand.shown):
        if now and not shown_before[q] and not (isinstance(action, Show) and action.player == q):
            cards = hand.hole[q]
            if cards is not None and None not in cards:
                writer.showdown()
                writer.add(q, "Shows Cards", cards=cards)


def _pots(hand: Hand, money: _Money, returned: Sequence[int]) -> tuple[list[Json], list[int]]:
    """The pots before the rake, the rake each paid (the main pot first, RAKE-1), who won
    what; then the uncalled chips handed back, one pot each. With what each player was
    paid in all."""
    pots: list[Json] = []
    owed = hand.rake
    awards = iter(hand.awards)
    wins = [0] * len(returned)
    for pot in hand.pots():
        take = min(owed, pot.amount)
        owed -= take
        shares: tuple[tuple[int, int], ...] = ()
        if pot.amount - take:
            award = next(awards, None)
            shares = award.shares if award is not None else ()
        for player, won in shares:
            wins[player] += won
        pots.append({"number": len(pots), "amount": money(pot.amount), "rake": money(take),
                     "player_wins": [{"player_id": p, "win_amount": money(w)}
                                     for p, w in shares]})
    for player, back in enumerate(returned):
        if back:
            wins[player] += back
            pots.append({"number": len(pots), "amount": money(back), "rake": 0,
                         "player_wins": [{"player_id": player, "win_amount": money(back)}]})
    return pots, wins


def _document(history: HandHistory, table: OhhTable, small: int, big: int, ante: int,
              writer: _Writer, pots: list[Json]) -> Json:
    money = writer.money
    game, bet_type = GAMES[history.variant]
    doc: Json = {
        "spec_version": SPEC_VERSION, "site_name": table.site_name, "network_name": NETWORK,
        "internal_version": table.internal_version,
        "tournament": table.tournament_info is not None}
    if table.tournament_info is not None:
        doc["tournament_info"] = dict(table.tournament_info)
    doc.update({
        "game_number": table.game_number, "start_date_utc": table.start_date_utc,
        "table_name": table.table_name, "game_type": game,
        "bet_limit": {"bet_type": bet_type, "bet_cap": 0}, "table_size": table.table_size,
        "currency": table.currency, "dealer_seat": table.dealer_seat,
        "small_blind_amount": money(small), "big_blind_amount": money(big),
        "ante_amount": money(ante)})
    if table.hero is not None:
        doc["hero_player_id"] = table.hero
    else:
        doc["flags"] = ["Observed"]
    names = history.players or tuple(f"seat {s}" for s in table.seats)
    doc["players"] = [{"id": i, "seat": seat, "name": names[i],
                       "starting_stack": money(history.starting_stacks[i])}
                      for i, seat in enumerate(table.seats)]
    doc["rounds"] = writer.rounds
    doc["pots"] = pots
    doc[EXTENSION] = _extension(history, table, writer)
    return doc


def _extension(history: HandHistory, table: OhhTable, writer: _Writer) -> Json:
    ext: Json = {"unit": table.unit, "per_currency_unit": table.per_currency_unit}
    if table.table is not None:
        ext["table"] = table.table
    if table.hand_no is not None:
        ext["hand_no"] = table.hand_no
    for key, name in (("rules", RULES_FIELD), ("rake", RAKE_FIELD)):
        if name in history.extra:
            ext[key] = _plain(history.extra[name])
    if history.variant == "FT":
        ext["small_bet"], ext["big_bet"] = history.small_bet or 0, history.big_bet or 0
    if writer.dead_hands:
        ext["dead_hands"] = dict(writer.dead_hands)
    return ext


def _plain(value: object) -> object:
    """A TOML value as JSON takes it (a decimal as its number)."""
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


__all__ = ["NETWORK", "OhhTable", "to_ohh"]
