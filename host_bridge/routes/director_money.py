"""The director's money routes (issue 19), beside :mod:`.director` under the same
prefix (``/api/v1/director/tournaments/{tid}/...``): re-entry (TOURN-4/6), surrender
(TOURN-15), bounties and progressive knockouts (TOURN-17), deals and chops shown then
confirmed (TOURN-29), and the payouts: who was paid what.

Roles: every role reads the bounties and payouts; ``director`` and ``admin`` act and see
a deal's preview (403 otherwise, nothing changes). A refusal by the rules is a 409 naming
the rule; every action is journaled with who did it (:class:`~host_bridge.director.
journal.Actor`).
"""

from __future__ import annotations

import logging
from typing import Annotated

from fastapi import APIRouter, HTTPException, Query, status

from controller.rules.errors import RulesError
from host_bridge.director.schemas import (
    BountiesPublic,
    DealConfirm,
    DealMethod,
    DealPublic,
    PayoutsPublic,
    SurrenderCreate,
    TournamentPublic,
)
from host_bridge.director.service import TournamentDirector
from host_bridge.routes.director import (
    AUTH,
    NONE,
    PREFIX,
    REFUSED,
    Director,
    DirectorRoom,
    PlayerId,
    Reader,
    Room,
    TournamentId,
    actor,
    refused,
)
from host_bridge.settings import Role

log = logging.getLogger(__name__)
router = APIRouter(prefix="/director", tags=["director"])


async def _player(room: DirectorRoom, tid: str, player: str) -> TournamentDirector:
    director = await room.ready(tid)
    if player not in director.model.current:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"player {player!r} is not registered "
                            f"in tournament {director.id} (GET {PREFIX}/{director.id})")
    return director


@router.post("/tournaments/{tid}/players/{player}/re-entry",
             responses={**AUTH, **NONE, **REFUSED})
async def re_enter_player(tid: TournamentId, player: PlayerId, room: Room, who: Director
                          ) -> TournamentPublic:
    """TOURN-4/6: an eliminated player enters again (a new entry, a full starting stack and
    the fee), seated at once by TOURN-4, while late registration is open and entries are
    left. Roles: ``director``, ``admin``."""
    director = await _player(room, tid, player)
    try:
        await director.money.re_enter(player, actor(who))
    except RulesError as exc:
        raise refused(exc) from None
    log.info("%s (%s) re-entered %s in %s", who.name, Role(who.role).value, player, tid)
    return TournamentPublic.model_validate(director.status())


@router.post("/tournaments/{tid}/players/{player}/surrender",
             responses={**AUTH, **NONE, **REFUSED})
async def surrender_chips(tid: TournamentId, player: PlayerId, body: SurrenderCreate,
                          room: Room, who: Director) -> TournamentPublic:
    """TOURN-15: the player hands in ``chips`` so as to rebuy (while rebuys are open,
    between hands); the chips leave play and the table is given the new stack. Roles:
    ``director``, ``admin``."""
    director = await _player(room, tid, player)
    try:
        await director.money.surrender(player, body.chips, actor(who))
    except RulesError as exc:
        raise refused(exc) from None
    log.info("%s (%s): %s surrendered %d chips in %s", who.name, Role(who.role).value,
             player, body.chips, tid)
    return TournamentPublic.model_validate(director.status())


@router.get("/tournaments/{tid}/bounties", responses={**AUTH, **NONE})
async def read_bounties(tid: TournamentId, room: Room, _who: Reader) -> BountiesPublic:
    """TOURN-17: each entry's bounty, knockouts and bounty money won; a progressive
    event's split and what the house kept. Roles: all."""
    director = await room.ready(tid)
    return BountiesPublic.model_validate(director.money.bounties())


@router.get("/tournaments/{tid}/payouts", responses={**AUTH, **NONE})
async def read_payouts(tid: TournamentId, room: Room, _who: Reader) -> PayoutsPublic:
    """The payout table and who was paid what (prize or deal amount, bounties, total);
    the deal, if one was made, and who made it. Roles: all."""
    director = await room.ready(tid)
    return PayoutsPublic.model_validate(director.money.payouts())


Method = Annotated[DealMethod, Query(description="icm (CANCEL-8) or chip_chop (by chips)")]


@router.get("/tournaments/{tid}/deal", responses={**AUTH, **NONE, **REFUSED})
async def preview_deal(tid: TournamentId, room: Room, _who: Director, method: Method = "icm"
                       ) -> DealPublic:
    """TOURN-29: what each remaining player would receive from the prizes still to pay,
    by ICM or chip-chop; nothing changes. Confirm with POST. Roles: ``director``,
    ``admin``."""
    director = await room.ready(tid)
    try:
        plan = director.money.deal_plan(method)
    except RulesError as exc:
        raise refused(exc) from None
    players = {k: director.model.entries[k].player for k in plan.amounts}
    return DealPublic.model_validate(plan.to_json(players))


@router.post("/tournaments/{tid}/deal", responses={**AUTH, **NONE, **REFUSED})
async def confirm_deal(tid: TournamentId, body: DealConfirm, room: Room, who: Director
                       ) -> TournamentPublic:
    """TOURN-29: make the deal shown (its method and amounts by player); refused if the
    stacks changed since. The tournament ends; the remaining players share places 1..n,
    each paid their amount. Roles: ``director``, ``admin``."""
    director = await room.ready(tid)
    try:
        await director.money.make_deal(body.method, body.amounts, actor(who))
    except RulesError as exc:
        raise refused(exc) from None
    log.info("%s (%s) made a %s deal in %s: %s", who.name, Role(who.role).value,
             body.method, tid, body.amounts)
    return TournamentPublic.model_validate(director.status())
