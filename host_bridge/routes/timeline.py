"""A hand's dispute timeline (issue 21): each card read, key and tap, the intent it became
and its acceptance or refusal with the rule id, each correction, undo and prompt, in the
order the table journaled them (:mod:`host_bridge.timeline` builds it and says which
events are the hand's). Roles ``floor``, ``director`` and ``admin``; the reads' cards only
for ``director`` and ``admin`` once the hand is over (the roles that see hole cards).

``GET .../timeline`` is JSON, or with ``?format=csv|txt|json`` a download; so are
``.../timeline.csv``, ``.../timeline.txt`` and ``.../timeline.json`` (a file to attach to a
ruling: ``{table}-{hand}-timeline.{ext}``).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query
from fastapi.responses import Response
from sqlalchemy.orm import Session

from host_bridge import timeline
from host_bridge.deps import Principal, SessionDep, require
from host_bridge.routes.hands import HandNo, hand_or_404
from host_bridge.routes.tables import AUTH, NOT_FOUND, TableId

router = APIRouter(prefix="/tables/{table_id}/hands/{hand_no}", tags=["hands"])

Floor = Annotated[Principal, Depends(require(timeline.TIMELINE_ROLES,
                                             "read a hand's dispute timeline"))]
MEDIA = {"csv": "text/csv; charset=utf-8", "txt": "text/plain; charset=utf-8",
         "json": "application/json"}
FILES: dict[int | str, dict[str, Any]] = {200: {"content": {m: {} for m in MEDIA.values()},
                                                "description": "the timeline, or a file"}}


def _timeline(session: Session, table_id: str, hand_no: int,
              who: Principal) -> timeline.TimelinePublic:
    return timeline.build_timeline(session, hand_or_404(session, table_id, hand_no),
                                   who.role)


def _download(found: timeline.TimelinePublic, export: timeline.Export) -> Response:
    name = timeline.file_name(found.table_id, found.hand_no, export)
    return Response(timeline.timeline_file(found, export), media_type=MEDIA[export],
                    headers={"Content-Disposition": f'attachment; filename="{name}"'})


@router.get("/timeline", response_model=timeline.TimelinePublic,
            responses={**AUTH, **NOT_FOUND, **FILES})
def read_timeline(table_id: TableId, hand_no: HandNo, session: SessionDep, who: Floor,
                  format: Annotated[timeline.Export | None, Query(
                      description="csv, txt or json: the timeline as a file")] = None,
                  ) -> timeline.TimelinePublic | Response:
    """The hand's dispute timeline in seq order. Roles floor, director, admin."""
    found = _timeline(session, table_id, hand_no, who)
    return found if format is None else _download(found, format)


@router.get("/timeline.{export}", response_class=Response,
            responses={**AUTH, **NOT_FOUND, **FILES})
def download_timeline(table_id: TableId, hand_no: HandNo, export: timeline.Export,
                      session: SessionDep, who: Floor) -> Response:
    """The hand's dispute timeline as a file (csv, txt or json) to attach to a ruling.
    Roles floor, director, admin."""
    return _download(_timeline(session, table_id, hand_no, who), export)
