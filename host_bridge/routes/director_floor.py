"""The director's discipline on the floor (issue 19): penalties and disqualification
(PEN-1..7), cancellation with compensation (CANCEL-1..9, CRASH-4), move slips to print
(TOURN-19..21) and the HexaPro sit & go (SNG-1..7), under the director's prefix.

Roles: every role reads; ``director`` and ``admin`` act. Every action is journaled with
who took it (:class:`~host_bridge.director.journal.FloorDecision`); a refusal by the rules
is a 409 naming the rule, and changes nothing. The work is the service's collaborator
:class:`~host_bridge.director.discipline.Discipline`.
"""

from __future__ import annotations

import html
import logging
from typing import Any

from fastapi import APIRouter, status
from fastapi.responses import HTMLResponse

from controller.rules.errors import RulesError
from host_bridge.director.discipline import compensation_rows, verify_sit_and_go
from host_bridge.director.entries import Stage
from host_bridge.director.options import TournamentOptions
from host_bridge.director.schemas import (
    CancelCreate,
    CancelPreviewPublic,
    CompensationPublic,
    FloorPublic,
    PenaltyCreate,
    SitAndGoCreate,
    TournamentPublic,
)
from host_bridge.director.service import TournamentDirector
from host_bridge.routes.director import (
    AUTH,
    NONE,
    REFUSED,
    Director,
    PlayerId,
    Reader,
    Room,
    TournamentId,
    actor,
    invalid,
    refused,
)
from host_bridge.settings import Role

log = logging.getLogger(__name__)
router = APIRouter(prefix="/director", tags=["director"])


def floor_public(director: TournamentDirector) -> FloorPublic:
    return FloorPublic.model_validate(director.discipline.public())


@router.get("/tournaments/{tid}/floor", responses={**AUTH, **NONE})
async def read_floor(tid: TournamentId, room: Room, _who: Reader) -> FloorPublic:
    """Penalties (hands left, warned, serving), the sit & go's multiplier and payouts,
    the cancellation, the decisions taken with who took them, the confirmed moves.
    Roles: all."""
    return floor_public(await room.ready(tid))


@router.post("/tournaments/{tid}/penalties", responses={**AUTH, **NONE, **REFUSED})
async def give_penalty(tid: TournamentId, body: PenaltyCreate, room: Room,
                       who: Director) -> FloorPublic:
    """A penalty (PEN-1..7): ``warning``; ``hands`` or ``rounds`` (a round is one hand per
    player at the table, PEN-2) sent to the player's table, which deals them in and kills
    their hand (PEN-4); ``removal`` for 15 minutes (PEN-3, warning-first rules only);
    ``exclude`` (PEN-6, placed now) or ``disqualify`` (PEN-7, no prize): the chips leave
    play. Refused (409) naming the rule. Roles: ``director``, ``admin``."""
    director = await room.ready(tid)
    try:
        await director.discipline.penalise(body.player, body.penalty, body.count,
                                           actor(who), body.reason)
    except RulesError as exc:
        raise refused(exc) from None
    log.info("%s (%s) gave %s a %s penalty (%d) in %s", who.name, Role(who.role).value,
             body.player, body.penalty, body.count, director.id)
    return floor_public(director)


def _preview(director: TournamentDirector) -> CancelPreviewPublic:
    d = director.discipline
    if d.cancelled is not None:
        comp, cause = d.compensation, d.public()["cancelled"]["rule"]
    else:
        comp, cause = d.preview(), None
    rows = [CompensationPublic.model_validate(r) for r in compensation_rows(comp)]
    rules = sorted({r.rule for r in rows}) or ["CANCEL-1"]
    return CancelPreviewPublic(stage=director.model.stage.value, rule=", ".join(rules),
                               cause_rule=cause, compensation=rows,
                               total=sum(r.total for r in rows))


@router.delete("/tournaments/{tid}/players/{player}", responses={**AUTH, **NONE, **REFUSED})
async def unregister_player(tid: TournamentId, player: PlayerId, room: Room,
                            who: Director) -> dict[str, Any]:
    """TOURN-7: a player leaves the field before the start; their buy-in and fee are
    refunded (``refund`` in cents). Refused (409) once play has started (TOURN-7) or for a
    player not registered (TOURN-6). Roles: ``director``, ``admin``."""
    director = await room.ready(tid)
    try:
        refund = director.discipline.unregister(player, actor(who))
    except RulesError as exc:
        raise refused(exc) from None
    log.info("%s (%s) unregistered %s from %s", who.name, Role(who.role).value, player,
             director.id)
    return {"player": player, "refund": refund.total, "rule": "TOURN-7",
            "entries": len(director.model.entries)}


@router.get("/tournaments/{tid}/cancellation", responses={**AUTH, **NONE, **REFUSED})
async def preview_cancellation(tid: TournamentId, room: Room,
                               _who: Reader) -> CancelPreviewPublic:
    """Who gets what if the tournament is cancelled now, by the rule of the stage reached:
    before the start (CANCEL-1), before the money (-2), in the money (-3), at the final
    table (-4), a HexaPro game (-6), bounties (-7); once cancelled, what was due. Roles:
    all."""
    director = await room.ready(tid)
    try:
        return _preview(director)
    except RulesError as exc:
        raise refused(exc) from None


@router.post("/tournaments/{tid}/cancellation", responses={**AUTH, **NONE, **REFUSED})
async def cancel_tournament(tid: TournamentId, body: CancelCreate, room: Room,
                            who: Director) -> CancelPreviewPublic:
    """Cancel: the compensation of the preview is fixed, the tournament ends cancelled,
    its tables are closed and free for another tournament. ``cause = crash``: a crash
    forced it (CRASH-4). Refused (409, CANCEL-9) once finished or cancelled. Roles:
    ``director``, ``admin``."""
    director = await room.ready(tid)
    try:
        await director.discipline.cancel(body.cause, actor(who), body.reason)
    except RulesError as exc:
        raise refused(exc) from None
    log.warning("%s (%s) cancelled tournament %s (%s)", who.name, Role(who.role).value,
                director.id, body.cause)
    return _preview(director)


def _slip(m: dict[str, Any], state: str) -> str:
    e = {k: html.escape(str(v)) for k, v in m.items()}
    origin = "new entry" if m.get("from_table") is None else \
        f"table {e['from_table']}, seat {e['from_seat']}"
    return (f'<section class="slip"><h2>Move slip — {state}</h2><p class="player">'
            f"{e['player']}</p><p>From: {origin}</p><p>To: <b>table {e['to_table']}, seat "
            f"{e['to_seat']}</b></p><p>Stack: {e['stack']}</p><p class=\"rule\">"
            f"{e['rule']}</p></section>")


@router.get("/tournaments/{tid}/move-slips", response_class=HTMLResponse,
            responses={**AUTH, **NONE})
async def move_slips(tid: TournamentId, room: Room, _who: Reader) -> HTMLResponse:
    """A print-friendly page: one slip per suggested move (player, from table/seat, to
    table/seat, stack) and per confirmed move, newest first (TOURN-19..21). Roles: all."""
    director = await room.ready(tid)
    model = director.model
    slips: list[str] = []
    for op in director.suggestions() if model.stage is Stage.RUNNING else []:
        for m in op["moves"]:
            stack = model.entry(m["player"]).stack if m["player"] in model.current else 0
            slips.append(_slip({**m, "stack": stack},
                               "waits for the hand" if m["pending"] else "suggested"))
    for m in reversed(director.discipline.moves):
        slips.append(_slip(m, f"confirmed #{m['id']}"))
    body = "".join(slips) or "<p>No moves to slip.</p>"
    name = html.escape(model.setup.name)
    return HTMLResponse(
        f"<!doctype html><html><head><meta charset=\"utf-8\"><title>Move slips — {name}"
        "</title><style>body{font-family:sans-serif}.slip{border:1px dashed #000;"
        "padding:.5em 1em;margin:.5em;width:18em;display:inline-block;"
        "break-inside:avoid}.player{font-size:1.4em;font-weight:bold}"
        "@media print{.slip{page-break-inside:avoid}}</style></head><body>"
        f"<h1>{name}</h1>{body}</body></html>")


@router.post("/sit-and-go", status_code=status.HTTP_201_CREATED,
             responses={**AUTH, **REFUSED, 422: {"description": "a field cannot be used"}})
async def create_sit_and_go(body: SitAndGoCreate, room: Room, who: Director) -> Any:
    """A HexaPro (or HexaPro Extreme) sit & go at one 3-seat table (SNG-1..7): it starts
    (POST .../start) when its three seats are filled; the multiplier is drawn then
    (SNG-3/6), journaled, shown and sent to the table with the HexaPro house, and sets
    the starting stack, level times, prize pool and payouts. Refused (409) over a table a
    live tournament uses (TOURN-1); a buy-in not on offer is a 422 (SNG-2). Roles:
    ``director``, ``admin``."""
    try:
        verify_sit_and_go(body.format, body.buy_in)
    except RulesError as exc:
        return invalid("buy_in", f"{exc.reason} ({exc.rule})")
    if len(set(body.players)) != len(body.players):
        return invalid("players", "a player is listed twice")
    options = TournamentOptions(name=f"HexaPro Sit & Go {body.table}",
                                tables={body.table: 3}, buy_in=body.buy_in, fee=body.fee,
                                starting_stack=500, seed=body.seed, payouts=(10_000,))
    try:
        options.verify()
        director = await room.create(options, by=actor(who))
    except RulesError as exc:
        raise refused(exc) from None
    director.discipline.set_sit_and_go(body.format, body.buy_in, body.fee, actor(who))
    for player in body.players:
        try:
            await director.register(player, actor(who))
        except RulesError as exc:
            return invalid("players", exc.reason)
    return TournamentPublic.model_validate(director.status())
