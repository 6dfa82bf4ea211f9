"""The floor's alert conditions (issue 20): what needs a person, worked out from what the
bridge knows of a table (its :class:`~host_bridge.alerts_watch.TableWatch`, its stored
row), of the tournament it belongs to (the director's model and plan), of the commands
sent to it and of the payloads that conflicted on its topics.

Each :class:`Condition` has a stable id per condition and table ("offline:T7"), so an
alert keeps its identity (and its acknowledgement) while the condition lasts, a kind and
a severity, and two lines: ``text``, what is wrong; ``action``, what clears it. Pure: no
I/O; the board (:mod:`host_bridge.alerts`) gathers the facts and diffs the results.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from host_bridge.alerts_watch import TableWatch
from host_bridge.director.entries import Stage
from host_bridge.director.service import TournamentDirector

Severity = Literal["high", "medium", "low"]
RANK: dict[str, int] = {"high": 0, "medium": 1, "low": 2}
#: a hand is never "unusually long" before this, whatever the table's median
MIN_LONG_HAND_S = 120.0


@dataclass(frozen=True, slots=True)
class Condition:
    """One condition that needs (or may need) a person; ``since`` when it began, if known
    (else when the board first saw it)."""

    id: str
    table: str | None
    kind: str
    severity: Severity
    text: str
    action: str
    since: float | None = None


@dataclass(frozen=True, slots=True)
class StoredTable:
    """A table's row as the store has it: ``online`` as the bridge knows it (None:
    unknown, the broker link is down), closed, paused, and the players seated."""

    online: bool | None
    closed: bool
    paused: bool
    seated: int


@dataclass(frozen=True, slots=True)
class Unanswered:
    """Commands a table did not answer in time since it last answered one."""

    command: str
    sender: str
    at: float
    count: int


@dataclass(frozen=True, slots=True)
class Conflicts:
    """A table's conflicting payloads lately: how many, the latest seq and time, and
    whether the table's resends confirmed what was stored for every one of them."""

    count: int
    seq: int
    last_at: float
    confirmed: bool


@dataclass(frozen=True, slots=True)
class HandLimits:
    """When a hand is unusually long: past ``seconds``, or past ``factor`` times the
    table's median hand (never under :data:`MIN_LONG_HAND_S`)."""

    seconds: float
    factor: float

    def limit(self, median: float | None) -> float:
        if median is None:
            return self.seconds
        return min(self.seconds, max(MIN_LONG_HAND_S, self.factor * median))


def is_running(director: TournamentDirector | None) -> bool:
    """A tournament in play (its tables are its own)."""
    return director is not None and director.model.stage is Stage.RUNNING


# -- one table ---------------------------------------------------------------------------
def table_conditions(wire: str, watch: TableWatch, stored: StoredTable | None,
                     director: TournamentDirector | None, now: float,
                     limits: HandLimits) -> list[Condition]:
    """Everything that needs a person at one table. A closed table needs nobody; an
    offline one is one alert (what it would report is not known)."""
    if watch.closed or (stored is not None and stored.closed):
        return []
    if stored is not None and stored.online is False:
        return [Condition(f"offline:{wire}", wire, "table_offline", "high",
                          "offline: the table has lost its link to the bridge",
                          "Check the table's power and network; it reconnects by itself")]
    out: list[Condition] = []
    if watch.nodes:
        seats = ", ".join(str(s) for s in sorted(watch.nodes))
        out.append(Condition(
            f"nodes:{wire}", wire, "seat_node_offline", "medium",
            f"seat node {seats} not answering: its cards are not read, its lights are dark",
            "Check the node's cable and power; the dealer keys that seat's cards meanwhile",
            min(watch.nodes.values())))
    if watch.faults:
        faults = sorted(watch.faults.items())
        action = ("Count the deck again at the deck reader (find the missing cards) or "
                  "enrol a new deck" if "deck" in watch.faults else
                  "Check that reader: a card left on it, an antenna overlap, a second deck")
        out.append(Condition(f"device:{wire}", wire, "device_fault", "medium",
                             "; ".join(f.text for _, f in faults), action,
                             min(f.at for _, f in faults)))
    out += _play(wire, watch, now, limits)
    held = held_reason(watch, director)
    if held is not None:
        severity, text, action = held
        out.append(Condition(f"held:{wire}", wire, "held", severity, text, action,
                             watch.paused.at if watch.paused else None))
    if not is_running(director) and stored is not None and stored.seated == 1:
        out.append(Condition(f"single:{wire}", wire, "short_handed", "medium",
                             "one player seated: no hand can be dealt",
                             "Seat players from the waiting list, or close the table"))
    return out


def _play(wire: str, watch: TableWatch, now: float, limits: HandLimits) -> list[Condition]:
    """The dealer's prompts, the clocks and the hand's length."""
    out: list[Condition] = []
    if watch.prompts:
        last = watch.prompts[-1]
        rule = f" ({last.rule})" if last.rule else ""
        where = f"seat {last.seat}: " if last.seat is not None else ""
        more = f" (and {len(watch.prompts) - 1} more)" if len(watch.prompts) > 1 else ""
        out.append(Condition(
            f"prompt:{wire}", wire, "prompt_open", "high",
            f"{last.what.replace('_', ' ')}: {where}{last.reason}{rule}{more}",
            "Go to the table: the dealer's screen waits for the floor's decision",
            watch.prompts[0].at))
    if watch.clock_on is not None:
        seat, at = watch.clock_on
        out.append(Condition(f"clock:{wire}", wire, "clock_called", "low",
                             f"the clock is called on seat {seat} (CLOCK-1)",
                             "Nothing unless asked: the player acts, or the shot clock "
                             "rules when it runs out", at))
    if watch.shot is not None:
        out.append(Condition(f"shot:{wire}", wire, "shot_clock_expired", "low",
                             watch.shot.text, "Settle any dispute at the table; this "
                             "clears when the hand ends", watch.shot.at))
    hand = watch.hand
    if hand is not None:
        median = watch.median_hand_s()
        limit = limits.limit(median)
        if now - hand.at > limit:
            usual = f"; its median hand is {median:.0f} s" if median is not None else ""
            out.append(Condition(
                f"hand:{wire}", wire, "hand_too_long", "medium",
                f"hand {hand.hand_no} is taking unusually long (over {limit / 60:.0f} min"
                f"{usual})", "Go to the table: a dispute, a missed key or a stuck screen "
                "may hold the hand", hand.at))
    return out


def held_reason(watch: TableWatch, director: TournamentDirector | None
                ) -> tuple[Severity, str, str] | None:
    """Why the table does not deal, when a person may need to know: paused (by whom, or
    for the director's work), a colour-up, the table's own break. A tournament's break and
    hand-for-hand are one floor-wide alert each (:func:`tournament_conditions`), a table
    stopped short-handed a ``short_handed`` one."""
    if watch.paused is not None:
        if is_running(director):
            assert director is not None
            number = director.numbers.get(watch.table)
            if number is not None and number in director.model.floor.stopped_tables():
                return None  # its short_handed alert says why
            if number is not None and director.dealing.day_over(number):
                return ("low", "held: its last hands of the day are played (TOURN-27)",
                        "Nothing to do: the tournament resumes at the next session")
            if director.busy:
                return ("low", "held while the director moves players (balancing, a table "
                        "broken or the final table drawn)",
                        "Nothing to do: the director resumes it when the moves are done")
        who = watch.paused.text
        return ("medium", f"paused by {who}" if who else "paused at the table",
                "Resume it from its card when the reason is over")
    if watch.colour_up is not None:
        return ("low", "colour-up in progress: the dealer races off the small chips "
                "(CHIPRACE-1)", "Watch the chip race; hands start again when the stacks "
                "are confirmed")
    if watch.on_break is not None and not is_running(director):
        return ("low", f"on a break {watch.on_break.text}",
                "Nothing to do: hands start again when the break ends")
    return None


# -- a tournament ---------------------------------------------------------------------------
def tournament_conditions(director: TournamentDirector) -> list[Condition]:
    """A running tournament's floor-wide states (its break, hand-for-hand) and its
    balancing plan: short tables to fill, a table to break (TOURN-19/21/28)."""
    if not is_running(director):
        return []
    model, tid, name = director.model, director.id, director.model.setup.name
    out: list[Condition] = []
    clock = director.level_clock
    if clock.on_break:
        leaving = clock.state()["break"]
        colour = leaving["colour_up"] if leaving else []
        chips = f", colour-up of the {', '.join(map(str, colour))}s" if colour else ""
        out.append(Condition(f"break:{tid}", None, "held", "low",
                             f"{name}: on the break after level {clock.number}{chips}",
                             "Nothing to do: the tables deal again when the break ends"))
    if director.dealing.h4h is not None:
        out.append(Condition(f"h4h:{tid}", None, "held", "medium",
                             f"{name}: hand-for-hand (TOURN-22): each table waits for the "
                             "others after every hand",
                             "Keep the tables moving; the director releases the next hand "
                             "when every table has finished"))
    confirm = ("Nothing to do: the director moves the players between hands"
               if director.options.auto_balance else
               "Confirm the moves on the director page (balancing)")
    try:
        due = director.plan.due()
    except Exception:  # a plan the floor cannot make now: its task meets it when due
        due = None
    counts = {n: c for n, c in model.floor.counts().items()
              if c > 0 and n not in model.floor.closed}
    if due is None or not counts:
        return out
    op, target = due
    if op == "balance":
        stopped = set(model.floor.stopped_tables())
        low, top = min(counts.values()), max(counts.values())
        for number in sorted(n for n, c in counts.items() if c == low):
            wire = director.wires[number]
            out.append(Condition(f"short:{wire}", wire, "short_handed",
                                 "high" if number in stopped else "medium",
                                 f"{low} players, the largest table has {top}: balancing is "
                                 "due" + (" and it stopped dealing" if number in stopped
                                          else "") + " (TOURN-19)", confirm))
    elif op == "break" and target is not None:
        wire = director.wires[target]
        out.append(Condition(f"break_table:{wire}", wire, "to_break", "medium",
                             f"to be broken: its {counts.get(target, 0)} players fit at the "
                             "other tables (TOURN-21)", confirm))
    elif op == "redraw" and target is not None:
        final = director.wires[target]
        for number in sorted(n for n in counts if n != target):
            wire = director.wires[number]
            out.append(Condition(f"break_table:{wire}", wire, "to_break", "medium",
                                 f"to be broken for the final table at {final}: every "
                                 "player redraws for a seat (TOURN-28)", confirm))
    return out


# -- the bridge's own records ----------------------------------------------------------------
def command_condition(wire: str, unanswered: Unanswered) -> Condition:
    """Commands sent to the table that got no reply in time."""
    more = f" ({unanswered.count} unanswered)" if unanswered.count > 1 else ""
    return Condition(f"command:{wire}", wire, "command_unanswered", "high",
                     f"{unanswered.command} from {unanswered.sender} got no reply in time"
                     f"{more}", "Check the table's screen and link; send the command again "
                     "once it answers (GET /api/v1/audit lists them)", unanswered.at)


def conflict_condition(wire: str, found: Conflicts) -> Condition:
    """Payloads that conflicted with what the table's topics carried before (issue 17)."""
    seen = f"{found.count} conflicting payload{'s' if found.count > 1 else ''}"
    text = (f"{seen} (latest seq {found.seq}): the table resent what was stored, so "
            "someone else published on its topics" if found.confirmed else
            f"{seen} for stored seqs (latest {found.seq}): the table is asked to resend")
    return Condition(f"conflict:{wire}", wire, "seq_conflict", "high", text,
                     f"Read GET /api/v1/tables/{wire}/conflicts, then check who else may "
                     "publish on the table's topics (the broker's ACL)", found.last_at)


def broker_condition(lost_at: float | None) -> Condition:
    """The bridge's own broker link is down: no table's state is known."""
    return Condition("offline:broker", None, "table_offline", "high",
                     "the bridge has lost the broker: no table's state is known",
                     "Check the broker and the network; the bridge reconnects by itself",
                     lost_at)


def sort_key(severity: str, acked: bool, since: float, alert_id: str
             ) -> tuple[bool, int, float, str]:
    """Unacknowledged first; then by severity; newest first within a severity."""
    return (acked, RANK.get(severity, 3), -since, alert_id)


__all__ = (
    "RANK", "Condition", "Conflicts", "HandLimits", "Severity", "StoredTable", "Unanswered",
    "broker_condition", "command_condition", "conflict_condition", "held_reason",
    "is_running", "sort_key", "table_conditions", "tournament_conditions")
