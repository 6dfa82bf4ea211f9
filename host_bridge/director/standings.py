"""The director's snapshot for the API, the dashboard and the demo: the field, the tables
as they report themselves, hand-for-hand, places and prizes (TOURN-1, -22, -24, -27).

Pure reading of what it is given (the model, the tables' views, what the tables are let
deal, the level clock and the time now); JSON-able values only. Hole cards are never part
of it (the director never holds any).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from controller.clocks.level_clock import LevelClock

from .entries import Stage, Status
from .floorstate import Dealing, TableView
from .tournament import Tournament


def places(t: Tournament) -> list[dict[str, Any]]:
    """Entries placed so far, best first, with their prize (cents, bounties included)."""
    pay = t.payouts() if t.stage is Stage.FINISHED else {}
    prizes = t.prizes()
    out = []
    for key, (best, worst) in t.places().items():
        e = t.entries[key]
        prize = pay.get(key, sum(prizes[p - 1] for p in range(best, worst + 1)
                                 if p <= len(prizes)) // (worst - best + 1))
        out.append({"entry": key, "player": e.player, "place": best, "place_to": worst,
                    "prize": 0 if e.status is Status.DISQUALIFIED else prize})
    return sorted(out, key=lambda p: (p["place"], p["entry"]))


def snapshot(t: Tournament, views: Mapping[str, TableView], dealing: Dealing,
             clock: LevelClock, now: float) -> dict[str, Any]:
    """The tournament now: the field, the level, money, places, and each table as it
    reports itself next to the model's chart."""
    level = t.level_in_force() if t.level else t.setup.structure.level(1)
    h4h = dealing.h4h
    lh = dealing.last_hands
    wires = {v.number: w for w, v in views.items()}
    tables = []
    for wire, view in views.items():
        chart = t.floor.tables[view.number]
        seats = sorted(set(view.seats) | set(chart.players))
        players = []
        for s in seats:
            player = view.seats.get(s) or chart.players.get(s)
            if player is None or player not in t.current:
                continue
            players.append({"seat": s, "player": player, "stack": t.entry(player).stack,
                            "arriving": view.seats.get(s) != chart.players.get(s)})
        tables.append({"table": wire, "number": view.number, "seats": chart.seats,
                       "players": players, "closed": view.closed or view.number in
                       t.floor.closed, "paused": view.paused,
                       "hand_for_hand": view.hand_for_hand, "in_hand": chart.in_hand,
                       "hands": view.hands,
                       "h4h_state": None if h4h is None or view.number not in h4h.state
                       else h4h.state[view.number].value})
    alive = t.alive()
    return {
        "name": t.setup.name, "stage": t.stage.value, "level": t.level,
        "blinds": {"small_blind": level.small_blind, "big_blind": level.big_blind,
                   "ante": level.ante},
        "on_break": clock.on_break, "seconds_left": round(clock.seconds_left(now), 1),
        "clock_paused": clock.paused,
        "players_left": len(alive), "entries": len(t.entries),
        "registered": sorted(t.current), "places_paid": t.places_paid(),
        "in_the_money": t.in_the_money, "prize_pool": t.pool.total,
        "prizes": list(t.prizes()[:t.places_paid()]),
        "chips_in_play": t.chips_in_play(),
        "average_stack": t.chips_in_play() // len(alive) if alive else 0,
        "hand_for_hand": {"on": h4h is not None, "hand": h4h.hand if h4h else 0,
                          "waiting_for": sorted(wires[n] for n, s in h4h.state.items()
                                                if s is not s.WAITING) if h4h else []},
        "last_hands": None if lh is None else {
            "card": lh.card, "done": lh.done,
            "played": {wires[n]: c for n, c in lh.dealt.items()}},
        "tables": tables,
        "places": places(t),
        "winner": (alive[0].player if t.stage is Stage.FINISHED and len(alive) == 1
                   else None),
    }
