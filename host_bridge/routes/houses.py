"""The houses (issue 18): the shipped house files, and changing the house a table plays.

A change is checked with the table's own reader first (a 422 naming the field, line and
rule; nothing sent), then sent as the ``set_house`` command on the path every table
command takes (:func:`~host_bridge.routes.commands.deliver`: audit row, command id, the
reply). The table refuses a change during a hand (LEVEL-1): that is a 409 naming the
rule. A change it takes is journaled (``house_set``) and shown on the floor.
"""

from __future__ import annotations

import re

from fastapi import APIRouter, status

from controller.clocks.house import House
from controller.events import HouseView, SetHouse
from host_bridge.deps import BridgeDep, Commander, Reader, SessionDep, SettingsDep
from host_bridge.houses import HouseRefused, check_house_text, shipped, shipped_text
from host_bridge.routes.commands import deliver
from host_bridge.routes.tables import AUTH, NOT_FOUND, Responses, TableId, table_or_404
from host_bridge.schemas import (
    HouseChange,
    HouseChangePublic,
    HouseRefusalPublic,
    HousesPublic,
    Message,
)

router = APIRouter(tags=["houses"])

_RULE = re.compile(r"\(([A-Z]+-\d+)\)")
CHANGE_RESPONSES: Responses = {
    **AUTH, **NOT_FOUND,
    404: {"model": HouseRefusalPublic, "description": "no such table, or no shipped house "
          "of that name (the list is in ``houses``)"},
    409: {"model": HouseRefusalPublic, "description": "the table is offline (nothing sent), "
          "or it refused the house (e.g. during a hand: LEVEL-1); ``rule`` names the rule"},
    422: {"model": HouseRefusalPublic, "description": "a house a table cannot play: its "
          "field, line and rule; nothing was sent"},
    503: {"model": Message, "description": "no broker connection; nothing was sent"},
    504: {"model": Message, "description": "the table did not reply in time"}}


def house_view(house: House) -> HouseView:
    """What the floor shows of a house (as the table's ``house_set`` says it)."""
    return HouseView.model_validate({"name": house.name, "game": house.variant.value,
                                     "kind": house.kind, "unit": house.unit,
                                     "label": house.label})


@router.get("/houses", responses=AUTH)
def list_houses(settings: SettingsDep, _who: Reader) -> HousesPublic:
    """The shipped houses (``houses_dir``): file name, name, kind, unit and label, or the
    error that keeps a file from being played. Any role."""
    listed, problem = shipped(settings.houses_dir)
    return HousesPublic(directory=str(settings.houses_dir), data=listed, count=len(listed),
                        problem=problem)


@router.post("/tables/{table_id}/house", responses=CHANGE_RESPONSES)
async def change_house(table_id: TableId, body: HouseChange, session: SessionDep,
                       settings: SettingsDep, bridge: BridgeDep,
                       who: Commander) -> HouseChangePublic:
    """Play another house at the table from its next hand: ``house`` names a shipped one
    (GET /api/v1/houses), or ``text`` is a whole house file. Checked first (422 naming
    the field, line and rule), then sent as ``set_house``; the table refuses a change
    during a hand (409, LEVEL-1). Roles: ``floor``, ``director``, ``admin``."""
    table_or_404(session, table_id)
    if body.house is not None:
        text, source = shipped_text(settings.houses_dir, body.house)
    else:
        assert body.text is not None  # HouseChange holds exactly one
        text, source = body.text, "the house text"
    house = check_house_text(text, source)
    command_id, reply = await deliver(table_id, SetHouse(text=text), session, bridge, who,
                                      body.command_id)
    if reply.status != "ok":
        why = reply.error or "no reason given"
        rule = _RULE.findall(why)
        raise HouseRefused(status.HTTP_409_CONFLICT, HouseRefusalPublic(
            detail=f"table {table_id!r} refused the house {house.name!r}: {why}",
            rule=rule[-1] if rule else None, command_id=command_id))
    return HouseChangePublic(command_id=command_id, table_id=table_id, status="ok",
                             data=reply.data, house=house_view(house))
