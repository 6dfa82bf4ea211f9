"""Hand histories for the players' trackers, as Open Hand History (OHH 1.4.7) downloads:
one hand, a table's UTC day, a tournament's hands, a player's own hands; and a
tournament's results as an Open Tournament Summary (:mod:`host_bridge.ohh` says how).

Hole cards: the roles that may see them once a hand is over (``broadcast``, ``director``,
``admin``) get every hand dealt; the other roles the public copy, with only the cards shown
at the showdown. A player's own file (``/players/{player}/ohh``) has their hole cards and
no one else's, so only those roles may fetch it (and hand it to the player). Several hands
are an ``.ohh`` file: one ``{"ohh": ...}`` per line, a blank line between (the spec's
storage format); ``X-OHH-Hands`` says how many hands it holds and ``X-OHH-Skipped`` how
many finished hands had no history to export (``phh_error`` on the hand says why).
"""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException, Path, Query, status
from fastapi.responses import Response

from controller.rules.errors import RulesError
from host_bridge import ohh
from host_bridge.deps import BridgeDep, Principal, Reader, SessionDep, require
from host_bridge.routes.director import NONE, Room, TournamentId
from host_bridge.routes.hands import HandNo, hand_or_404
from host_bridge.routes.tables import AUTH, NOT_FOUND, TableId, table_or_404
from host_bridge.schemas import Message

router = APIRouter(tags=["ohh"])

CardReader = Annotated[Principal, Depends(require(
    ohh.HOLE_CARD_ROLES, "export a player's hands with their hole cards"))]
PlayerId = Annotated[str, Path(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.:-]+$",
                               description="the player's id, as the tables seat them")]
Day = Annotated[date | None, Query(description="the UTC day the hands started, YYYY-MM-DD; "
                                   "today if left out")]
FILE = {"content": {"text/plain": {}},
        "description": "an .ohh file: one {\"ohh\": ...} per line, a blank line between"}
EMPTY: dict[int | str, dict[str, Any]] = {
    404: {"model": Message, "description": "nothing of that to export"}}
MEDIA = "text/plain; charset=utf-8"


def _download(body: str, filename: str, media: str, hands: int | None = 1,
              skipped: int = 0) -> Response:
    """A download; ``hands``: how many hands it holds (None: it holds none, a summary)."""
    headers = {"Content-Disposition": f'attachment; filename="{filename}"'}
    if hands is not None:
        headers |= {"X-OHH-Hands": str(hands), "X-OHH-Skipped": str(skipped)}
    return Response(body, media_type=media, headers=headers)


def _file(docs: list[dict[str, object]], skipped: int, name: str, what: str) -> Response:
    if not docs:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"{what} has no finished hand to "
                            f"export{f' ({skipped} had no history)' if skipped else ''}")
    return _download(ohh.ohh_file(docs), f"{ohh.safe_name(name)}.ohh", MEDIA, len(docs),
                     skipped)


def _today(bridge: BridgeDep, day: date | None) -> date:
    return day or datetime.fromtimestamp(bridge.clock(), UTC).date()


@router.get("/tables/{table_id}/hands/{hand_no}/ohh", responses={
    **AUTH, **NOT_FOUND, 200: {"content": {"application/json": {}},
                               "description": "the hand as {\"ohh\": ...}"},
    409: {"model": Message, "description": "the hand has no history (yet)"}})
def read_hand_ohh(table_id: TableId, hand_no: HandNo, session: SessionDep, bridge: BridgeDep,
                  room: Room, who: Reader) -> Response:
    """A finished hand as OHH, a download (``{table}-{hand}.ohh``). Every hole card for
    ``broadcast``, ``director`` and ``admin``; the public copy for the other roles.
    Any role."""
    hand = hand_or_404(session, table_id, hand_no)
    if hand.status != "ended" or hand.phh is None:
        why = (f"it is {hand.status}: only a finished hand has one" if hand.status != "ended"
               else hand.phh_error or "it was not exported")
        raise HTTPException(status.HTTP_409_CONFLICT,
                            f"hand {hand_no} at table {table_id!r} has no OHH: {why}")
    refs = ohh.tournament_refs(session, room.all())
    try:
        doc = ohh.hand_ohh(hand, ohh.viewer_for(who.role), ohh.HandFacts(session),
                           site=bridge.settings.site, tournament=ohh.tournament_of(refs, hand))
    except RulesError as exc:
        raise HTTPException(status.HTTP_409_CONFLICT, f"hand {hand_no} at table "
                            f"{table_id!r} has no OHH: {exc}") from None
    assert doc is not None  # an ended hand with a PHH, and no player's view
    return _download(json.dumps({"ohh": doc}, ensure_ascii=False),
                     f"{ohh.safe_name(table_id)}-{hand_no}.ohh", "application/json")


@router.get("/tables/{table_id}/ohh", responses={**AUTH, **NOT_FOUND, **EMPTY, 200: FILE})
def read_table_day_ohh(table_id: TableId, session: SessionDep, bridge: BridgeDep, room: Room,
                       who: Reader, day: Day = None) -> Response:
    """The hands a table played on one UTC day as an .ohh file
    (``{table}-{day}.ohh``), in hand order; hole cards as for one hand. Any role."""
    table_or_404(session, table_id)
    when = _today(bridge, day)
    docs, skipped = ohh.export_hands(
        ohh.hands_of_day(session, table_id, when), ohh.viewer_for(who.role),
        ohh.HandFacts(session), site=bridge.settings.site,
        refs=ohh.tournament_refs(session, room.all()))
    return _file(docs, skipped, f"{table_id}-{when.isoformat()}",
                 f"table {table_id!r} on {when.isoformat()}")


@router.get("/director/tournaments/{tid}/ohh",
            responses={**AUTH, **NONE, **EMPTY, 200: FILE})
async def read_tournament_ohh(tid: TournamentId, session: SessionDep, bridge: BridgeDep,
                              room: Room, who: Reader) -> Response:
    """Every hand of a tournament at its tables, in the order they started, as an .ohh
    file (``{tournament}.ohh``); tournament hands carry ``tournament_info`` and their
    amounts are chips. Hole cards as for one hand. Any role."""
    director = room.find(tid)
    refs = ohh.tournament_refs(session, room.all())
    ref = next(r for r in refs if r.id == director.id)
    docs, skipped = ohh.export_hands(
        ohh.hands_of_tournament(session, ref), ohh.viewer_for(who.role),
        ohh.HandFacts(session), site=bridge.settings.site, refs=[ref])
    return _file(docs, skipped, director.id, f"tournament {director.id}")


@router.get("/director/tournaments/{tid}/summary.ohh", responses={
    **AUTH, **NONE, 200: {"content": {"application/json": {}},
                          "description": "the Open Tournament Summary, {\"ots\": ...}"}})
async def read_tournament_summary(tid: TournamentId, session: SessionDep, bridge: BridgeDep,
                                  room: Room, _who: Reader) -> Response:
    """The tournament's results for trackers: OHH keeps them out of hand histories (1.4.3)
    and in its companion Open Tournament Summary (OTS 1.1.5), so this is ``{"ots": ...}``,
    a download named ``{tournament}.ots``: buy-in, fee, prize pool, entries, each entry's
    place and prize, rebuys and add-ons. Any role."""
    director = room.find(tid)
    summary = ohh.tournament_summary(session, director, site=bridge.settings.site)
    return _download(json.dumps({"ots": summary}, ensure_ascii=False),
                     f"{ohh.safe_name(director.id)}.ots", "application/json", hands=None)


@router.get("/players/{player}/ohh", responses={**AUTH, **EMPTY, 200: FILE})
def read_player_ohh(player: PlayerId, session: SessionDep, bridge: BridgeDep, room: Room,
                    _who: CardReader, day: Annotated[date | None, Query(
                        description="only the hands that started on this UTC day")] = None
                    ) -> Response:
    """A player's own hands as an .ohh file (``{player}.ohh``): their hole cards and the
    cards shown at the showdown, no other; the player is each hand's hero. Roles:
    ``broadcast``, ``director``, ``admin`` (the file holds hole cards)."""
    docs, skipped = ohh.export_hands(
        ohh.hands_of_player(session, player, day), ohh.Viewer(player=player),
        ohh.HandFacts(session), site=bridge.settings.site,
        refs=ohh.tournament_refs(session, room.all()))
    return _file(docs, skipped, player, f"player {player!r}"
                 + (f" on {day.isoformat()}" if day else ""))
