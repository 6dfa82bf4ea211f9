"""The tournament director's model: entries, chips, money, eliminations, places and prizes
(TOURN-2..17, -24..26, -33, PEN-6/7, CANCEL-*, RAKE-9).

:class:`Tournament` is what the host bridge calls. It owns the seating chart
(:class:`~host_bridge.director.seating.Floor`) and the penalty book, keeps every entry's
stack between hands from the tables' reports (:meth:`Tournament.hand_ended`), and
checks after each report that chips are conserved. Every command verifies first and
raises a :class:`DirectorError` naming the rule; a refused command changes nothing.

Decisions where RULES.md is [interp] or silent (read literally; the CONF key decides):

* Places go to entries (a re-entry is a new entry, TOURN-6). They are counted from the
  bottom of the field when asked (:meth:`places`), so a late entry after a bust moves that
  bust one place down, as the final field decides (TOURN-1).
* TOURN-24 at one table: the larger starting stack finishes higher; equal stacks are
  ordered by the ``random.Random`` passed in (003). Across tables in the same
  hand-for-hand hand, ``tourn.h4h_cross_table_elim``: ``compare_start_stacks`` orders
  everyone by starting stack; ``shared_place`` gives players from different tables the
  same place, tier by tier (the best bust of each table shares the best place left, the
  next ones the next, ...), and the places' prizes are pooled and divided equally.
* TOURN-10: a player who loses all chips while a rebuy is open to them stays seated,
  "pending", until their table's next hand starts (or the rebuy period ends); then, without
  a rebuy, they are eliminated with the order of the hand they lost.
* TOURN-15 surrender: the handed-in chips leave play [interp]; only while rebuys are open.
* TOURN-17 bounty: paid when the entry is eliminated; a bust who rebuys (TOURN-10) keeps
  their bounty, as TOURN-33 says of the VIP. Without a knockout report, the bounty goes to
  the player(s) whose stack grew in the hand they lost (split equally, or all to the
  largest gain under ``shared_knockout = "largest"``, TOURN-33). The winner keeps their
  own bounty, paid with the prizes (:meth:`payouts`) [conv]. Progressive shares that do
  not add to 100 % leave a residue the house keeps (:attr:`bounty_residue`).
* PEN-7 disqualification: chips removed, buy-ins stay in the pool, no prize: the entry is
  placed at the moment (so places stay complete) and its prize is held back
  (:meth:`withheld`) [the seeds do not say where it goes].
* TOURN-25: when every remaining player would receive the same prize, :meth:`end_equal`
  ends the event with them sharing the top places.
"""

from __future__ import annotations

import random
from collections.abc import Mapping

from controller.clocks.structure import Level
from controller.clocks.timebank import ExtensionChips
from controller.rules.config import RulesProfile

from .cancel import Compensation, compensate
from .entries import Bust, Carry, Entry, HandResult, Stage, Status
from .errors import DirectorError
from .invariants import check_field
from .payouts import PrizePool, payout_table, split_cents
from .penalties import Penalties
from .seating import Floor, Move
from .setup import TournamentSetup


class Tournament:
    """A multi-table (or one-table Sit & Go) tournament on the floor."""

    def __init__(self, setup: TournamentSetup, profile: RulesProfile,
                 tables: Mapping[int, int] | None = None, *,
                 time_bank: ExtensionChips | None = None) -> None:
        self.setup = setup
        self.profile = profile
        self.floor = Floor(profile, tables or {})
        self.penalties = Penalties(profile)
        self.stage = Stage.REGISTERING
        self.level = 0  # 0 before the start
        self.on_break_after: int | None = None
        self.entries: dict[str, Entry] = {}
        self.current: dict[str, str] = {}  # player -> their latest entry key
        self.waiting: list[str] = []  # TOURN-14 re-registrations waiting for a seat
        self.busts: list[list[list[Bust]]] = []  # groups of tiers, in elimination order
        # entry -> (start stack, table, h4h hand, knockout winners) of a bust that may rebuy
        self.pending: dict[str, tuple[int, int, int | None, tuple[str, ...]]] = {}
        self.issued = 0  # chips put into play
        self.removed = 0  # chips taken out of play (surrender, exclusion)
        self.time_bank = time_bank or ExtensionChips()  # the host's copy of every count
        self.bounty_residue = 0  # progressive shares under 100 % (TOURN-17)
        self.deal: dict[str, int] = {}  # TOURN-29: agreed cents by entry, for their prizes
        self.hands_dealt = False
        self._last_h4h: int | None = None

    # -- reading --------------------------------------------------------------------------
    def entry(self, player: str) -> Entry:
        try:
            return self.entries[self.current[player]]
        except KeyError:
            raise DirectorError(f"{player} is not registered", "TOURN-6") from None

    def alive(self) -> list[Entry]:
        return [e for e in self.entries.values() if e.in_event]

    def chips_in_play(self) -> int:
        return sum(e.stack for e in self.alive())

    @property
    def pool(self) -> PrizePool:
        collected = (sum(e.paid_pool for e in self.entries.values())
                     - self.setup.bounty * len(self.entries))  # TOURN-17: bounties aside
        if self.setup.prize_pool is not None:
            return PrizePool(self.setup.prize_pool)
        return PrizePool(max(collected, 0), self.setup.guarantee, self.setup.added)

    def prizes(self) -> tuple[int, ...]:
        if self.setup.fixed_prizes:
            return self.setup.fixed_prizes
        return payout_table(self.pool, self.setup.payouts.percentages(len(self.entries)))

    def places_paid(self) -> int:
        return sum(1 for p in self.prizes() if p > 0)

    @property
    def in_the_money(self) -> bool:
        return self.stage is Stage.RUNNING and len(self.alive()) <= self.places_paid()

    def late_registration_open(self) -> bool:
        if self.stage is Stage.REGISTERING:
            return True
        return (self.stage is Stage.RUNNING and self.level <= self.setup.late_registration_levels
                and not self.in_the_money)

    def rebuys_open(self) -> bool:
        return self.stage is Stage.RUNNING and self.level <= self.setup.rebuy_levels

    # -- registration (TOURN-6, -8, -13) ----------------------------------------------------
    def verify_register(self, player: str) -> None:
        if player in self.current:
            raise DirectorError(f"{player} is already registered; a second entry is a "
                                "re-entry", "TOURN-6")
        if not self.late_registration_open():
            raise DirectorError("registration is closed", "TOURN-5")
        if self.setup.max_entrants and len(self.entries) >= self.setup.max_entrants:
            raise DirectorError(f"the field is full ({self.setup.max_entrants})", "SNG-1")

    def register(self, player: str, rng: random.Random) -> Move | None:
        """Enter a player: before the start, or as a late entry seated by TOURN-4."""
        self.verify_register(player)
        move = None
        if self.stage is Stage.RUNNING:
            move = self.floor.suggest_late_entry(player, rng)
        self._new_entry(player, fee=self.setup.fee)
        if move is not None:
            self.floor.apply(move)
        return move

    def _new_entry(self, player: str, *, fee: int) -> Entry:
        n = sum(1 for e in self.entries.values() if e.player == player) + 1
        key = player if n == 1 else f"{player}#{n}"
        e = Entry(key, player, self.setup.stack, paid_pool=self.setup.buy_in, paid_fees=fee,
                  bounty=self.setup.bounty)
        self.entries[key] = e
        self.current[player] = key
        self.issued += e.stack
        return e

    def verify_start(self) -> None:
        if self.stage is not Stage.REGISTERING:
            raise DirectorError(f"the tournament is {self.stage}", "TOURN-1")
        if len(self.entries) < self.setup.min_entrants:
            raise DirectorError(f"{len(self.entries)} entrants, fewer than the minimum "
                                f"{self.setup.min_entrants}: cancel and refund", "TOURN-8")
        if self.setup.sit_and_go and len(self.entries) != self.setup.max_entrants:
            raise DirectorError("a Sit & Go starts when every seat is filled", "SNG-1")

    def start(self, rng: random.Random) -> list[Move]:
        """TOURN-2 seat draw and BTN-4 button; the first level begins."""
        self.verify_start()
        moves = self.floor.draw(sorted(self.current), rng)
        if self.profile.text("tourn.initial_button") == "draw":
            seat = rng.randint(1, self.setup.seats_per_table)  # one draw for the field
            for t in self.floor.tables:
                self.floor.set_button(t, min(seat, self.floor.tables[t].seats))
        else:
            for t, ts in self.floor.tables.items():
                if ts.players:
                    self.floor.set_button(t, max(ts.players))
        self.stage, self.level = Stage.RUNNING, 1
        return moves

    # -- levels and breaks (LEVEL-1, TOURN-10/12) ------------------------------------------
    def set_level(self, number: int, rng: random.Random) -> None:
        """A new level begins (LEVEL-1); closing rebuys settles pending busts (``rng``
        orders equal stacks, TOURN-24)."""
        if self.stage is not Stage.RUNNING or number < self.level:
            raise DirectorError(f"level {number} cannot follow level {self.level}", "LEVEL-1")
        self.level, self.on_break_after = number, None
        if not self.rebuys_open():
            self._settle_pending(None, rng)

    def start_break(self) -> None:
        self.on_break_after = self.level

    def level_in_force(self) -> Level:
        """The blinds for the next hand: the current level, without antes once the field is
        in the money where the structure says so (ANTE-3, 002 §31)."""
        level = self.setup.structure.level(max(self.level, 1))
        if self.setup.structure.antes_stop_in_the_money and self.in_the_money:
            return level.without_antes()
        return level

    def verify_chip_race(self, stacks: Mapping[str, int]) -> None:
        for p, chips in stacks.items():
            e = self.entry(p)
            if e.status is not Status.ACTIVE:
                raise DirectorError(f"{p} is not in play", "CHIPRACE-3")
            if chips <= 0:
                raise DirectorError(f"nobody is eliminated by a chip race ({p})", "CHIPRACE-3")
            self._between_hands(p, "CHIPRACE-1")

    def chip_race(self, stacks: Mapping[str, int]) -> int:
        """Stacks after a colour-up and chip race (CHIPRACE-1..4); returns the chips the
        race added (negative: removed), which the conservation check then accounts for."""
        self.verify_chip_race(stacks)
        delta = 0
        for p, chips in stacks.items():
            e = self.entry(p)
            delta += chips - e.stack
            e.stack = chips
        if delta > 0:
            self.issued += delta
        else:
            self.removed -= delta
        return delta

    # -- rebuys, add-on, surrender, re-entry, re-registration ------------------------------
    def _between_hands(self, player: str, rule: str) -> None:
        t, _ = self.floor.seat_of(player)
        if self.floor.tables[t].in_hand:
            raise DirectorError(f"{player}'s table is in a hand; chips change between hands",
                                rule)

    def verify_rebuy(self, player: str) -> None:
        e = self.entry(player)
        if not self.setup.rebuy_levels:
            raise DirectorError("this event has no rebuys", "TOURN-9")
        if not self.rebuys_open():
            raise DirectorError(f"rebuys closed after level {self.setup.rebuy_levels}",
                                "TOURN-10")
        if e.status not in (Status.ACTIVE, Status.PENDING):
            raise DirectorError(f"{player} is out; re-enter or re-register instead",
                                "TOURN-10")
        if e.stack > self.setup.stack and self.hands_dealt:
            raise DirectorError(f"{player} has {e.stack} chips, more than the starting stack "
                                f"{self.setup.stack}", "TOURN-10")
        self._between_hands(player, "TOURN-11")

    def rebuy(self, player: str) -> Entry:
        self.verify_rebuy(player)
        e = self.entry(player)
        chips = self.setup.rebuy_chips or self.setup.stack
        e.stack += chips
        e.rebuys += 1
        e.paid_pool += self.setup.rebuy_price
        e.paid_fees += self.setup.rebuy_fee
        e.status = Status.ACTIVE
        self.pending.pop(e.key, None)
        self.issued += chips
        return e

    def verify_add_on(self, player: str) -> None:
        e = self.entry(player)
        if not self.setup.add_on:
            raise DirectorError("this event has no add-on", "TOURN-12")
        if self.on_break_after != self.setup.add_on_break:
            raise DirectorError(f"the add-on is taken in the break after level "
                                f"{self.setup.add_on_break}", "TOURN-12")
        if e.add_on:
            raise DirectorError(f"{player} has taken the add-on", "TOURN-12")
        if e.status is not Status.ACTIVE:
            raise DirectorError(f"{player} is not in play", "TOURN-12")

    def add_on(self, player: str) -> Entry:
        self.verify_add_on(player)
        e = self.entry(player)
        chips = self.setup.add_on_chips or self.setup.stack
        e.stack += chips
        e.add_on = True
        e.paid_pool += self.setup.add_on_price
        e.paid_fees += self.setup.add_on_fee
        self.issued += chips
        return e

    def verify_surrender(self, player: str, chips: int) -> None:
        e = self.entry(player)
        if not self.setup.surrender:
            raise DirectorError("this event has no surrender", "TOURN-15")
        if not self.rebuys_open():
            raise DirectorError("surrender is for rebuying, and rebuys are closed",
                                "TOURN-15")
        if e.status is not Status.ACTIVE or not 0 < chips <= e.stack:
            raise DirectorError(f"{player} can hand in 1 to {e.stack} chips, not {chips}",
                                "TOURN-15")
        self._between_hands(player, "TOURN-15")

    def surrender(self, player: str, chips: int) -> Entry:
        self.verify_surrender(player, chips)
        e = self.entry(player)
        e.stack -= chips
        self.removed += chips
        if e.stack == 0:  # must rebuy before the next hand (TOURN-10)
            t, _ = self.floor.seat_of(player)
            e.status = Status.PENDING
            self.pending[e.key] = (chips, t, None, ())
        return e

    def _verify_out(self, player: str, what: str, rule: str, allowed: bool) -> None:
        e = self.entry(player)
        if not allowed:
            raise DirectorError(f"this event has no {what}", rule)
        if e.status is Status.DISQUALIFIED:
            raise DirectorError(f"{player} is disqualified from this event", "PEN-7")
        if e.status is not Status.OUT:
            raise DirectorError(f"{player} is still in play", rule)
        if not self.late_registration_open():
            raise DirectorError(f"{what} closed with late registration", "TOURN-5")

    def verify_re_enter(self, player: str) -> None:
        self._verify_out(player, "re-entry", "TOURN-6", self.setup.re_entry)
        if sum(1 for e in self.entries.values() if e.player == player) >= self.setup.max_entries:
            raise DirectorError(f"{player} has used all {self.setup.max_entries} entries",
                                "TOURN-6")

    def re_enter(self, player: str, rng: random.Random) -> Move:
        """TOURN-4/6/13: a new entry with a full stack and the fee, seated by TOURN-4."""
        self.verify_re_enter(player)
        move = self.floor.suggest_late_entry(player, rng)
        self._new_entry(player, fee=self.setup.fee)
        return self.floor.apply(move)

    def re_register(self, player: str, rng: random.Random) -> Move | None:
        """TOURN-14: buy in again without a second fee; waits for a seat if none is free."""
        self._verify_out(player, "re-registration", "TOURN-14", self.setup.re_register)
        if player in self.waiting:
            raise DirectorError(f"{player} is already waiting for a seat", "TOURN-14")
        try:
            move = self.floor.suggest_late_entry(player, rng)
        except DirectorError:
            self.waiting.append(player)
            return None
        self._new_entry(player, fee=0)
        return self.floor.apply(move)

    def seat_waiting(self, rng: random.Random) -> list[Move]:
        """Seat TOURN-14 waiting players, first come first served, while seats are free."""
        moves = []
        while self.waiting and self.late_registration_open():
            try:
                move = self.floor.suggest_late_entry(self.waiting[0], rng)
            except DirectorError:
                break
            self._new_entry(self.waiting.pop(0), fee=0)
            moves.append(self.floor.apply(move))
        return moves

    # -- hands ----------------------------------------------------------------------------
    def hand_started(self, table: int, rng: random.Random, *, reported: bool = False) -> None:
        """A table deals: its pending busts who did not rebuy are out (TOURN-10); ``rng``
        orders their equal starting stacks (TOURN-24). ``reported``: the table has dealt
        already (the bridge records what happened; TOURN-19 is the floor's to enforce)."""
        if self.stage is not Stage.RUNNING:
            raise DirectorError(f"the tournament is {self.stage}", "TOURN-1")
        if not reported and table in self.floor.stopped_tables():
            raise DirectorError(f"table {table} is 3 or more players short: balance first",
                                "TOURN-19")
        if self.floor.table(table).in_hand:
            raise DirectorError(f"table {table} is already playing a hand", "DEAL-4")
        self._settle_pending(table, rng)
        self.floor.hand_started(table)
        self.penalties.hand_dealt(self.floor.tables[table].players.values())  # PEN-4
        self.hands_dealt = True

    def verify_hand(self, result: HandResult) -> None:
        ts = self.floor.table(result.table)
        if not ts.in_hand:
            raise DirectorError(f"table {result.table} reported a hand it had not started",
                                "DEAL-4")
        seated = set(ts.players.values())
        if set(result.start) != set(result.end) or not set(result.start) <= seated:
            raise DirectorError(f"table {result.table}'s hand lists players not seated there",
                                "TOURN-2")
        for p, chips in result.start.items():
            if self.entry(p).stack != chips:
                raise DirectorError(f"{p} started with {chips} but the floor has "
                                    f"{self.entry(p).stack}", "POT-1")
        if sum(result.start.values()) != sum(result.end.values()):
            raise DirectorError(f"table {result.table}'s hand does not conserve chips "
                                f"({sum(result.start.values())} -> {sum(result.end.values())})",
                                "POT-1")
        if any(v < 0 for v in result.end.values()):
            raise DirectorError("a stack cannot be negative", "POT-1")

    def hand_ended(self, result: HandResult, rng: random.Random) -> list[str]:
        """Apply a finished hand: stacks, knockouts, bounties; returns the entries out."""
        self.verify_hand(result)
        if result.positions is not None:
            self.floor.hand_ended(result.table, result.positions)
        else:
            self.floor.tables[result.table].in_hand = False
        for p, chips in result.end.items():
            self.entry(p).stack = chips
        busted = sorted(p for p, chips in result.end.items() if chips == 0)
        out = []
        now: list[Bust] = []
        for p in busted:
            e = self.entry(p)
            winners = self._knockers(e, result)
            if self._may_rebuy(e):
                e.status = Status.PENDING
                self.pending[e.key] = (result.start[p], result.table, result.h4h_hand, winners)
            else:
                self._pay_bounty(e, winners)
                now.append(Bust(e.key, result.start[p], result.table))
        if now:
            out = self._eliminate(now, result.h4h_hand, rng)
        return out

    def _may_rebuy(self, e: Entry) -> bool:
        return bool(self.setup.rebuy_levels) and self.rebuys_open()

    def _knockers(self, e: Entry, result: HandResult) -> tuple[str, ...]:
        """Who knocked ``e`` out: the report's knockout, else those whose stack grew."""
        gain = {p: result.end[p] - result.start[p] for p in result.end}
        winners = tuple(result.knockouts.get(e.player) or
                        (p for p in sorted(gain) if gain[p] > 0))
        if self.setup.shared_knockout == "largest" and len(winners) > 1:  # TOURN-33
            winners = (max(winners, key=lambda w: (gain.get(w, 0), w)),)
        return winners

    def _pay_bounty(self, e: Entry, winners: tuple[str, ...]) -> None:
        """TOURN-17 on elimination (a bust who rebuys pays none, as TOURN-33's VIP)."""
        winners = tuple(w for w in winners if w in self.current)
        if not e.bounty or not winners:
            return
        paid = e.bounty
        grow = 0
        if self.setup.progressive is not None:  # TOURN-17 progressive
            paid = e.bounty * self.setup.progressive[0] // 10_000
            grow = e.bounty * self.setup.progressive[1] // 10_000
        for w, cents in zip(winners, split_cents(paid, [1] * len(winners)), strict=True):
            self.entry(w).bounty_won += cents
            self.entry(w).knockouts += 1
        for w, cents in zip(winners, split_cents(grow, [1] * len(winners)), strict=True):
            self.entry(w).bounty += cents
        self.bounty_residue += e.bounty - paid - grow
        e.bounty = 0

    def _settle_pending(self, table: int | None, rng: random.Random) -> None:
        """Pending busts sitting at ``table`` now (all when None) are out (TOURN-10)."""
        by_hand: dict[tuple[int, int | None], list[Bust]] = {}
        for key, (start, t, h4h, winners) in list(self.pending.items()):
            if table is None or self.floor.where[self.entries[key].player][0] == table:
                del self.pending[key]
                self._pay_bounty(self.entries[key], winners)
                by_hand.setdefault((t, h4h), []).append(Bust(key, start, t))
        for (_, h4h), group in sorted(by_hand.items(), key=lambda kv: kv[0][0]):
            self._eliminate(group, h4h, rng)

    def _eliminate(self, busts: list[Bust], h4h: int | None, rng: random.Random | None
                   ) -> list[str]:
        """Place the entries out in one hand (TOURN-24) and unseat them."""
        for b in busts:
            e = self.entries[b.entry]
            e.status, e.stack = Status.OUT, 0
            self.floor.unseat(e.player)
        ranked = self._tiers(busts, rng)
        last = self.busts[-1] if self.busts else None
        if h4h is not None and last is not None and self._last_h4h == h4h:
            merged = [b for tier in last for b in tier] + busts
            self.busts[-1] = self._tiers(merged, rng)
        else:
            self.busts.append(ranked)
        self._last_h4h = h4h
        if len(self.alive()) == 1:
            self.stage = Stage.FINISHED
        return [b.entry for b in busts]

    def _tiers(self, busts: list[Bust], rng: random.Random | None) -> list[list[Bust]]:
        """Best first. One table: by starting stack, ties at random (TOURN-24)."""
        if rng is None and len(busts) > 1:
            raise DirectorError("several players out at once need a draw for ties", "TOURN-24")

        def by_stack(group: list[Bust]) -> list[Bust]:
            keyed = [(b, rng.random() if rng else 0.0)
                     for b in sorted(group, key=lambda b: b.entry)]
            return [b for b, _ in sorted(keyed, key=lambda bk: (-bk[0].start, bk[1]))]

        tables = sorted({b.table for b in busts})
        if len(tables) == 1 or self.profile.text("tourn.h4h_cross_table_elim") == \
                "compare_start_stacks":
            return [[b] for b in by_stack(busts)]
        per_table = [by_stack([b for b in busts if b.table == t]) for t in tables]
        depth = max(len(x) for x in per_table)
        return [[x[i] for x in per_table if i < len(x)] for i in range(depth)]

    # -- places and prizes ------------------------------------------------------------------
    def places(self) -> dict[str, tuple[int, int]]:
        """Each placed entry's (best, worst) place; shared places span several numbers."""
        out: dict[str, tuple[int, int]] = {}
        worst = len(self.entries)
        for group in self.busts:
            for tier in reversed(group):
                best = worst - len(tier) + 1
                for b in tier:
                    out[b.entry] = (best, worst)
                worst = best - 1
        if self.stage is Stage.FINISHED:
            alive = self.alive()
            for e in alive:
                out[e.key] = (1, len(alive))  # one winner, or a TOURN-25 shared end
        return out

    def _prize_money(self) -> dict[str, int]:
        """Prize money by placed entry (TOURN-24 shared spans pooled), DQ included."""
        prizes = self.prizes()
        out: dict[str, int] = {}
        spans: dict[tuple[int, int], list[str]] = {}
        for key, span in self.places().items():
            spans.setdefault(span, []).append(key)
        for (best, worst), keys in spans.items():
            pooled = sum(prizes[p - 1] for p in range(best, worst + 1) if p <= len(prizes))
            for k, cents in zip(sorted(keys), split_cents(pooled, [1] * len(keys)),
                                strict=True):
                out[k] = cents
        return {**out, **self.deal}  # TOURN-29: a deal replaces the remaining prizes

    def withheld(self) -> dict[str, int]:
        """Prizes of disqualified entries, held back (PEN-7)."""
        return {k: v for k, v in self._prize_money().items()
                if self.entries[k].status is Status.DISQUALIFIED}

    def payouts(self) -> dict[str, int]:
        """Money in cents by entry: prizes (TOURN-24 shares) and bounties won; nothing for a
        disqualified entry (PEN-7)."""
        out = {k: 0 if self.entries[k].status is Status.DISQUALIFIED else v
               for k, v in self._prize_money().items()}
        for e in self.entries.values():
            won = e.bounty_won + (e.bounty if self.stage is Stage.FINISHED
                                  and e.status is Status.ACTIVE else 0)
            if won and e.status is not Status.DISQUALIFIED:
                out[e.key] = out.get(e.key, 0) + won
        return out

    def can_end_equal(self) -> bool:
        """TOURN-25: every remaining player would receive the same prize."""
        n = len(self.alive())
        prizes = self.prizes()
        top = [prizes[i] if i < len(prizes) else 0 for i in range(n)]
        return self.stage is Stage.RUNNING and n > 1 and len(set(top)) == 1

    def end_equal(self) -> None:
        """TOURN-25: end now, the remaining players sharing the top places."""
        if not self.can_end_equal():
            raise DirectorError("the remaining players would not all receive the same prize",
                                "TOURN-25")
        if any(t.in_hand for t in self.floor.tables.values()):
            raise DirectorError("the event ends between hands", "TOURN-25")
        self.stage = Stage.FINISHED

    # -- penalties that remove a player (PEN-6/7) -------------------------------------------
    def exclude(self, player: str, *, disqualify: bool = False) -> None:
        """PEN-6 exclusion (placed now) or PEN-7 disqualification (placed, no prize)."""
        e = self.entry(player)
        if e.status is not Status.ACTIVE:
            raise DirectorError(f"{player} is not in play", "PEN-6")
        self._between_hands(player, "PEN-6")
        self.removed += e.stack
        t, _ = self.floor.seat_of(player)
        self._eliminate([Bust(e.key, e.stack, t)], None, None)  # alone: nothing to draw
        if disqualify:
            e.status = Status.DISQUALIFIED

    # -- moves carry penalties and time-bank chips (TOURN-32, PEN-5) -----------------------
    def carry(self, player: str) -> Carry:
        return Carry(self.penalties.remaining(player), self.time_bank.chips(player))

    # -- invariants -------------------------------------------------------------------------
    def check(self) -> None:
        """Assert the invariants checked after every hand (:func:`check_field`)."""
        check_field(self.stage, self.floor, self.entries, self.places(), issued=self.issued,
                    removed=self.removed)

    # -- cancellation (CANCEL-1..4, -7) -----------------------------------------------------
    def cancel(self) -> dict[str, Compensation]:
        """Cancel now; each player's compensation by the stage reached (CANCEL-1..4, 6, 7)."""
        if self.stage in (Stage.FINISHED, Stage.CANCELLED):
            raise DirectorError(f"the tournament is {self.stage}", "CANCEL-9")
        result = compensate(self.entries.values(), self.setup, self.pool, self.prizes(),
                            started=self.stage is not Stage.REGISTERING,
                            in_the_money=self.in_the_money,
                            tables_in_play=sum(1 for ts in self.floor.tables.values()
                                               if ts.players))
        self.stage = Stage.CANCELLED
        return result
