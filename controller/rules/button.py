"""The button and the blinds from hand to hand (BTN-1..8, BLIND-4..7, DEAL-3, CASH-4, TOURN-4/21).

The live table keeps one :class:`SeatStatus` per occupied seat and asks for each hand's
:class:`Positions`: :func:`first_hand` for a new table, :func:`next_hand` after that. Seats
are numbered 1..10 clockwise; the button may sit on an empty seat (dead button, BTN-5).
:meth:`Positions.game_config` gives the engine its set-up, players in position order.

Decisions where the rulebook is silent or marked [interp] (read literally, decided here):

* BTN-2 cash: the BB goes to the next player clockwise who is not sitting out (CASH-4),
  new players included: the BB reaching a new player is how they are dealt in without a
  post. When the previous BB is gone or sits out, the hand has no SB (BTN-2.4). The button
  is the first player counter-clockwise of the SB position who played the previous hand
  and is dealt now.
* Nobody is dealt in between the button and the SB (or the BB, when there is no SB): the
  engine's layout has none, TOURN-4/BTN-7 forbid it in tournaments, and in cash the only
  players there did not play the previous hand; they wait one hand.
* BLIND-4 cash entry: ``post_bb`` posts a live BB out of position; ``wait_for_bb`` waits;
  ``wait_or_post_bb`` posts when the player asked to (:attr:`SeatStatus.wants_to_post`).
  BLIND-6/CASH-11: a player moved from a closed cash table (``transferred``) is dealt at
  once without a post. Heads-up there is no post: the non-BB player is the button and posts
  the SB (BTN-3).
* Missed blinds (BLIND-5 is online-only and is the only rule): with the online entry modes
  a returning player who missed a blind waits for the BB. With ``post_bb`` (live, 002 §3:
  "posts the BB to join") they post a live BB if they missed the BB, plus the SB dead if they
  missed the SB [conv: the casino practice for dead money]; a player who missed only the SB
  posts it dead. Being dealt in clears what was missed (:func:`after_hand`).
* A cash table that cannot deal two players this way (for example two players left, one
  waiting for the BB) is set up afresh: everyone present is dealt, the BB moves on as
  usual, the player before it posts the SB and the one before that has the button.
* BTN-5 ``stuck_button``: the BB and SB move as with ``dead_button``; the button stays on a
  player: the first player counter-clockwise of the SB position, new players skipped.
* Tournament players with ``new`` (late entry, re-entry, moved from a broken table) take
  over the duties of their seat: the BB, the SB position or the button seat (BTN-7).
* The first hand ignores ``new``: every player present starts together.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import IntFlag
from typing import Any, Final

from controller.rules.config import RulesProfile, Variant
from controller.rules.errors import IllegalActionError, RulesError
from controller.rules.game import GameConfig, Post

SEATS: Final = 10  # seats are numbered 1..SEATS clockwise


class Missed(IntFlag):
    """The blinds a cash player missed while sitting out (BLIND-5)."""

    NONE = 0
    SMALL = 1
    BIG = 2


@dataclass(frozen=True, slots=True)
class SeatStatus:
    """One occupied seat, as the table knows it before a hand."""

    seat: int  # 1..10
    stack: int  # chips, smallest unit
    sitting_out: bool = False
    new: bool = False  # joined since the last hand (BLIND-4; tournaments: BTN-7)
    wants_to_post: bool = False  # BLIND-4 wait_or_post_bb: post a BB out of position
    missed_blinds: Missed = Missed.NONE  # BLIND-5; kept up to date by after_hand()
    transferred: bool = False  # BLIND-6/CASH-11: from a closed cash table, joins unposted

    def __post_init__(self) -> None:
        if not 1 <= self.seat <= SEATS or self.stack < 0:
            raise RulesError(f"seat {self.seat} with stack {self.stack}: seats are 1..{SEATS}"
                             " and stacks are not negative")


@dataclass(frozen=True, slots=True)
class BlindPost:
    """An extra post at a seat: a live BB, a dead SB, or both (BLIND-4, BLIND-5)."""

    seat: int
    live_big: bool = True  # counts toward the call
    dead_small: bool = False  # goes to the pot


@dataclass(frozen=True, slots=True)
class Positions:
    """One hand's layout, by seat."""

    button: int  # may be an empty seat (dead button, BTN-5)
    small_blind: int | None  # the seat posting the SB; None when the hand has no SB
    big_blind: int
    dealt: tuple[int, ...]  # engine position order: index 0 first left of the button
    posts: tuple[BlindPost, ...] = ()
    auto_fold: tuple[int, ...] = ()  # dealt but sitting out: blinds posted, folded (BLIND-7)
    small_blind_seat: int | None = None  # the SB position even when nobody posts (BTN-5)
    waiting: tuple[int, ...] = ()  # present, able to play, not dealt this hand
    missed: tuple[tuple[int, Missed], ...] = ()  # sitting-out seats a blind passed (BLIND-5)

    def __post_init__(self) -> None:
        d = self.dealt
        if len(d) < 2 or len(set(d)) != len(d):
            raise RulesError(f"a hand deals two or more distinct seats, not {d}", "BTN-3")
        if len(d) == 2:
            ok = d == (self.big_blind, self.button) and self.small_blind == self.button
        elif self.small_blind is None:
            ok = d[0] == self.big_blind
        else:
            ok = d[:2] == (self.small_blind, self.big_blind)
        if not ok or list(d) != _clockwise(d, self.button):
            raise RulesError(f"seats {d} are not in position order for button {self.button}, "
                             f"SB {self.small_blind}, BB {self.big_blind}", "BTN-3")
        if not {p.seat for p in self.posts} <= set(d) - {self.small_blind, self.big_blind}:
            raise RulesError("posts come from dealt players other than the blinds", "BLIND-4")
        if not set(self.auto_fold) <= set(d):
            raise RulesError("only dealt seats can be folded for an absent player", "BLIND-7")

    @property
    def sb_position(self) -> int:
        """The seat of the SB position (the SB itself, the button heads-up)."""
        if self.small_blind is not None:
            return self.small_blind
        return self.small_blind_seat if self.small_blind_seat is not None else self.button

    @property
    def heads_up(self) -> bool:
        """Exactly two players dealt in (BTN-3)."""
        return len(self.dealt) == 2

    def index_of(self, seat: int) -> int:
        """The engine's player index of a dealt seat."""
        return self.dealt.index(seat)

    def game_config(self, variant: Variant, stacks: Mapping[int, int], small_blind: int,
                    big_blind: int, **kw: Any) -> GameConfig:
        """The engine's set-up for this hand; ``stacks`` by seat (others ignored)."""
        posts = tuple(Post(self.index_of(p.seat), big_blind if p.live_big else 0,
                           small_blind if p.dead_small else 0) for p in self.posts)
        return GameConfig(variant, tuple(stacks[s] for s in self.dealt), small_blind,
                          big_blind, no_small_blind=self.small_blind is None, posts=posts,
                          **kw)


# ---------------------------------------------------------------- seat arithmetic
def _after(a: int, x: int) -> int:
    """How far ``x`` is clockwise from ``a`` (1..SEATS; a seat is SEATS from itself)."""
    return (x - a - 1) % SEATS + 1


def _clockwise(seats: Sequence[int], start: int) -> list[int]:
    """``seats`` ordered clockwise from the one after ``start`` (``start`` last)."""
    return sorted(seats, key=lambda s: _after(start, s))


def _first_after(seats: Sequence[int], start: int) -> int:
    return _clockwise(seats, start)[0]


def _between(a: int, b: int, x: int) -> bool:
    """``x`` strictly between ``a`` and ``b`` going clockwise."""
    return 0 < _after(a, x) < _after(a, b) and x != a


def _check_seats(seats: Sequence[SeatStatus]) -> dict[int, SeatStatus]:
    table = {s.seat: s for s in seats}
    if len(table) != len(seats):
        raise RulesError("each seat can be listed only once")
    return table


def _is_online(profile: RulesProfile) -> bool:
    """Whether the profile is an online one: its online-only keys (timebank) are set."""
    return profile["timebank.model"] is not None


def _players(seats: Sequence[SeatStatus], tournament: bool) -> list[int]:
    """Seats that can be dealt: chips, and in cash not sitting out (CASH-4, BLIND-7)."""
    return sorted(s.seat for s in seats if s.stack > 0 and (tournament or not s.sitting_out))


# ---------------------------------------------------------------- can a hand start
def verify_can_start(seats: Sequence[SeatStatus], *, tournament: bool, profile: RulesProfile,
                     previous: Positions | None = None) -> None:
    """Raise unless a hand can start with these seats.

    Two players with chips are needed (BTN-3 is the smallest hand); in cash sitting-out
    players do not count (CASH-4). Online cash (DEAL-3) needs three, or two when the
    previous hand had three or more.
    """
    _check_seats(seats)
    players = _players(seats, tournament)
    if len(players) < 2:
        raise IllegalActionError(
            f"a hand needs two players with chips{'' if tournament else ' not sitting out'}"
            f"; there {'is' if len(players) == 1 else 'are'} {len(players)}",
            "BLIND-7" if tournament else "CASH-4")
    after_three = previous is not None and len(previous.dealt) >= 3
    if not tournament and _is_online(profile) and len(players) < 3 and not after_three:
        raise IllegalActionError("an online cash hand starts with three players not sitting "
                                 "out, or two right after a hand of three or more", "DEAL-3")


def can_start(seats: Sequence[SeatStatus], *, tournament: bool, profile: RulesProfile,
              previous: Positions | None = None) -> bool:
    """Whether :func:`verify_can_start` would accept these seats."""
    try:
        verify_can_start(seats, tournament=tournament, profile=profile, previous=previous)
    except RulesError:
        return False
    return True


# ---------------------------------------------------------------- laying out a hand
def _layout(button: int, small_blind: int | None, big_blind: int, dealt: Sequence[int],
            **extra: Any) -> Positions:
    """Positions with ``dealt`` put in engine order (index 0 first left of the button)."""
    if len(dealt) == 2:  # BTN-3: the button posts the SB; index 0 is the BB
        other = next(s for s in dealt if s != big_blind)
        extra.pop("small_blind_seat", None)
        return Positions(other, other, big_blind, (big_blind, other), **extra)
    return Positions(button, small_blind, big_blind, tuple(_clockwise(dealt, button)), **extra)


def initial_button(seats: Sequence[SeatStatus], *, profile: RulesProfile,
                   drawn: int | None = None) -> int:
    """The first button of a tournament (BTN-4): the last occupied seat, or the draw."""
    if profile.text("tourn.initial_button") == "last_occupied_seat":
        return max(s.seat for s in seats)
    if drawn is None:
        raise RulesError("the button is drawn at this event: give the drawn seat", "BTN-4")
    return drawn


def first_hand(seats: Sequence[SeatStatus], *, button: int, tournament: bool,
               profile: RulesProfile) -> Positions:
    """The first hand at a table: the SB and BB are the next two players after ``button``.

    ``button`` comes from the table: a random player in cash (BTN-1), the draw or the last
    occupied seat in a tournament (BTN-4, :func:`initial_button`), where it may be an
    empty seat. Cash has no dead button, so there it must be a player.
    """
    verify_can_start(seats, tournament=tournament, profile=profile)
    table = _check_seats(seats)
    players = _players(seats, tournament)
    order = _clockwise(players, button)
    if len(order) == 2:  # BTN-3: the button's player, or the next one, posts the SB
        small = button if button in order else order[0]
        bb = next(s for s in order if s != small)
        return _finish(_layout(small, small, bb, order), table, tournament)
    if not tournament and button not in players:
        raise RulesError(f"the first button of a cash table goes to a player; seat {button} "
                         "is not one", "BTN-1")
    return _finish(_layout(button, order[0], order[1], order), table, tournament)


def _finish(pos: Positions, table: Mapping[int, SeatStatus], tournament: bool) -> Positions:
    if tournament:  # BLIND-7: absent players are dealt, post, and are folded
        folded = tuple(s for s in pos.dealt if table[s].sitting_out)
        if folded:
            return replace(pos, auto_fold=folded)
    return pos


def next_hand(previous: Positions, seats: Sequence[SeatStatus], *, tournament: bool,
              profile: RulesProfile) -> Positions:
    """The next hand's layout after ``previous``, given who is seated now."""
    verify_can_start(seats, tournament=tournament, profile=profile, previous=previous)
    table = _check_seats(seats)
    if tournament:
        return _finish(_next_tournament(previous, table, profile), table, tournament)
    return _next_cash(previous, table, profile)


def _next_tournament(previous: Positions, table: Mapping[int, SeatStatus],
                     profile: RulesProfile) -> Positions:
    """BTN-5/6/7: the BB moves one player; SB on the previous BB's seat; button behind."""
    players = _players(list(table.values()), True)
    bb = _first_after(players, previous.big_blind)  # BTN-5: never skips, never repeats
    sb_seat = previous.big_blind
    if profile.text("tourn.button_mode") == "dead_button":
        button = previous.sb_position  # may be empty: a dead button
    else:  # stuck_button (003 §46): the button stays on a player
        old = [s for s in players if s not in (bb, sb_seat) and not table[s].new]
        button = _clockwise(old, sb_seat)[-1] if old else previous.sb_position
    sb = sb_seat if sb_seat in players and sb_seat != bb else None
    # BTN-7, TOURN-4/21: nobody is dealt between the button and the SB position
    waiting = [s for s in players if _between(button, sb_seat, s)]
    dealt = [s for s in players if s not in waiting]
    if len(dealt) < 3 or button in (bb, sb):  # BTN-6: heads-up, the other player has the
        dealt = _heads_up_pair(players, bb)  # button and the SB
        return _layout(dealt[1], dealt[1], bb, dealt,
                       waiting=tuple(s for s in players if s not in dealt))
    return _layout(button, sb, bb, dealt, small_blind_seat=sb_seat, waiting=tuple(waiting))


def _heads_up_pair(players: Sequence[int], bb: int) -> list[int]:
    """BTN-6: the BB and the player before it (counter-clockwise), who is the button."""
    others = [s for s in players if s != bb]
    return [bb, _clockwise(others, bb)[-1]]


def _next_cash(previous: Positions, table: Mapping[int, SeatStatus],
               profile: RulesProfile) -> Positions:
    """BTN-2 with BLIND-4/5/6 and CASH-4."""
    seats = list(table.values())
    players = _players(seats, False)
    bb = _first_after(players, previous.big_blind)  # BTN-2.1
    sb_seat = previous.big_blind
    sb = sb_seat if sb_seat in players and sb_seat != bb else None  # BTN-2.2, 2.4 [interp]
    played = [s for s in players  # a new player in a seat that played is someone else
              if s in previous.dealt and s not in (bb, sb) and not table[s].new]
    missed = tuple(_missed(previous, table, bb))
    if not played:
        return _fresh_cash(players, bb, missed)
    button = _clockwise(played, sb_seat)[-1]  # BTN-2.3
    entry = profile.text("cash.new_player_entry")
    dealt: list[int] = []
    waiting: list[int] = []
    posts: list[BlindPost] = []
    for s in players:
        status = table[s]
        if _between(button, sb_seat, s) or (sb is None and _between(button, bb, s)):
            waiting.append(s)
        elif s in (bb, sb, button) or not _owes_entry(status):
            dealt.append(s)
        else:
            post = _entry_post(status, entry)
            if post is None:
                waiting.append(s)
            else:
                dealt.append(s)
                posts.append(post)
    if len(dealt) < 2:
        return _fresh_cash(players, bb, missed)
    if len(dealt) == 2:  # BTN-3: no post heads-up
        return _layout(button, sb, bb, dealt, waiting=tuple(waiting), missed=missed)
    return _layout(button, sb, bb, dealt, posts=tuple(posts), small_blind_seat=sb_seat,
                   waiting=tuple(waiting), missed=missed)


def _owes_entry(status: SeatStatus) -> bool:
    return (status.new and not status.transferred) or bool(status.missed_blinds)


def _entry_post(status: SeatStatus, entry: str) -> BlindPost | None:
    """BLIND-4 for a new player, BLIND-5 for a returning one; None: wait for the BB."""
    if status.new and not status.transferred:
        if entry == "post_bb" or (entry == "wait_or_post_bb" and status.wants_to_post):
            return BlindPost(status.seat)
        return None
    if entry != "post_bb":  # BLIND-5 (online): wait until it is their turn for the BB
        return None
    return BlindPost(status.seat, live_big=Missed.BIG in status.missed_blinds,
                     dead_small=Missed.SMALL in status.missed_blinds)


def _missed(previous: Positions, table: Mapping[int, SeatStatus], bb: int) -> Iterator[
        tuple[int, Missed]]:
    """Sitting-out seats the blinds pass this hand (BLIND-5)."""
    for s, status in sorted(table.items()):
        if not status.sitting_out:
            continue
        flag = Missed.NONE
        if _between(previous.big_blind, bb, s):
            flag |= Missed.BIG
        if s == previous.big_blind:
            flag |= Missed.SMALL
        if flag:
            yield s, flag


def _fresh_cash(players: Sequence[int], bb: int,
                missed: tuple[tuple[int, Missed], ...]) -> Positions:
    """A table set up afresh around the BB: everyone present is dealt, nobody posts."""
    order = _clockwise(players, bb)  # the BB last
    if len(order) == 2:
        return _layout(order[0], order[0], bb, order, missed=missed)
    return _layout(order[-3], order[-2], bb, order, missed=missed)


def button_passed(previous: Positions, current: Positions, seat: int) -> bool:
    """Whether the button passed ``seat`` from one hand to the next: it moved onto it or
    beyond it. CASH-9 counts these passes for an absent player (the table removes the
    stack at the second pass, if there is a waiting list)."""
    if current.button == previous.button:
        return False
    return _after(previous.button, seat) <= _after(previous.button, current.button)


def after_hand(positions: Positions, seats: Sequence[SeatStatus]) -> tuple[SeatStatus, ...]:
    """The seats carried into the next hand: dealt players are no longer new and owe
    nothing (they posted or had the BB); the blinds that passed sitting-out players are
    recorded (BLIND-5). Stacks are the table's business."""
    missed = dict(positions.missed)
    out = []
    for s in seats:
        if s.seat in positions.dealt:
            s = replace(s, new=False, wants_to_post=False, missed_blinds=Missed.NONE,
                        transferred=False)
        elif s.seat in missed:
            s = replace(s, missed_blinds=s.missed_blinds | missed[s.seat])
        out.append(s)
    return tuple(out)
