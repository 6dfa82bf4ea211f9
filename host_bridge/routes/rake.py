"""The rake ledger (issue 18): per table and UTC day, the hands ended, the hands raked, and
the rake taken, in the unit of the house each hand was played under.

It is a query over the stored hands (each ``hand_ended`` sets a hand's ``rake`` and
``ended_ts``; its ``unit`` is the house's in force when it started): nothing is kept twice,
so the ledger can never disagree with the hands. ``?format=csv`` is the cashier's copy.
"""

from __future__ import annotations

import csv
import io
from datetime import UTC, date, datetime, timedelta
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query
from fastapi.responses import Response
from sqlalchemy import case, func, select
from sqlalchemy.orm import Session

from host_bridge.deps import BridgeDep, Cashier, SessionDep
from host_bridge.models import Hand
from host_bridge.routes.tables import AUTH
from host_bridge.schemas import RakePublic, RakeRow

router = APIRouter(tags=["rake"])

UNKNOWN_UNIT = "unit"  # a hand played before its table named a house
CSV_COLUMNS = ("day", "table", "hands", "raked_hands", "rake", "unit")


def day_bounds(day: date) -> tuple[float, float]:
    """The UTC day's first second and the next day's, as POSIX timestamps."""
    start = datetime(day.year, day.month, day.day, tzinfo=UTC)
    return start.timestamp(), (start + timedelta(days=1)).timestamp()


def ledger(session: Session, day: date, table: str | None = None) -> list[RakeRow]:
    """The day's rake per table and unit, from the hands that ended that day (UTC)."""
    start, end = day_bounds(day)
    query = (select(Hand.table_id, Hand.unit, func.count(),
                    func.sum(case((Hand.rake > 0, 1), else_=0)), func.sum(Hand.rake))
             .where(Hand.status == "ended", Hand.ended_ts >= start, Hand.ended_ts < end)
             .group_by(Hand.table_id, Hand.unit).order_by(Hand.table_id, Hand.unit))
    if table is not None:
        query = query.where(Hand.table_id == table)
    return [RakeRow(table_id=table_id, day=day, hands=hands, raked_hands=int(raked or 0),
                    rake=int(rake or 0), unit=unit or UNKNOWN_UNIT)
            for table_id, unit, hands, raked, rake in session.execute(query)]


def as_csv(rows: list[RakeRow]) -> str:
    """The ledger as CSV, one row per table and unit, with a header."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for row in rows:
        writer.writerow((row.day.isoformat(), row.table_id, row.hands, row.raked_hands,
                         row.rake, row.unit))
    return out.getvalue()


@router.get("/rake", response_model=RakePublic, responses={
    **AUTH, 200: {"content": {"text/csv": {}},
                  "description": "the ledger (JSON, or CSV with format=csv)"}})
def read_rake(session: SessionDep, bridge: BridgeDep, _who: Cashier,
              day: Annotated[date | None, Query(description="the UTC day, YYYY-MM-DD; "
                                                "today if left out")] = None,
              table: Annotated[str | None, Query(min_length=1, max_length=64,
                                                 pattern=r"^[A-Za-z0-9_.:-]+$")] = None,
              format: Annotated[Literal["json", "csv"], Query()] = "json") -> Any:
    """The rake ledger of one UTC day: per table, the hands ended, the hands raked and the
    rake, in the house's unit (kr, cent; ``unit`` where no house was named); the totals
    per unit. ``table`` keeps one table; ``format=csv`` for the cashier. Roles:
    ``floor``, ``director``, ``admin``."""
    when = day or datetime.fromtimestamp(bridge.clock(), UTC).date()
    rows = ledger(session, when, table)
    if format == "csv":
        return Response(as_csv(rows), media_type="text/csv; charset=utf-8", headers={
            "Content-Disposition": f'attachment; filename="rake-{when.isoformat()}.csv"'})
    totals: dict[str, int] = {}
    for row in rows:
        totals[row.unit] = totals.get(row.unit, 0) + row.rake
    return RakePublic(day=when, data=rows, totals=totals)
