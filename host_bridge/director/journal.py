"""The director's journal in the bridge's store: every input it acted on, in order.

The tournament director is a pure model driven by inputs (the set-up, registrations,
the start, the tables' hand reports and seat changes, the floor operations it carried out,
the level changes, hand-for-hand). Each input is written here *before* it is applied
(write-ahead), one row per input, numbered per tournament. After a restart the model is
rebuilt by replaying the rows through the same code: the model is deterministic given its
inputs and the seeded ``random.Random`` it draws seats with, so replay reproduces it
exactly, without a second serialisation of every model object to keep in step.

Bridge side (SQLAlchemy); not part of the pure core.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import JSON, Float, Integer, String, UniqueConstraint, func, select
from sqlalchemy.orm import Mapped, Session, mapped_column, sessionmaker

from host_bridge.models import ID, Base


class DirectorRecord(Base):
    """One input of one tournament's director, in the order it was applied."""

    __tablename__ = "director_log"
    __table_args__ = (UniqueConstraint("tournament", "seq"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    tournament: Mapped[str] = mapped_column(String(ID), index=True)
    seq: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(32))
    body: Mapped[dict[str, Any]] = mapped_column(JSON)
    at: Mapped[float] = mapped_column(Float)  # wall-clock seconds (time.time)


@dataclass(frozen=True, slots=True)
class Input:
    """One journaled input."""

    seq: int
    kind: str
    body: dict[str, Any]
    at: float


class DirectorJournal:
    """Appends a tournament's inputs and reads them back for replay."""

    def __init__(self, sessions: sessionmaker[Session]) -> None:
        self._sessions = sessions
        self._seq: dict[str, int] = {}

    def append_many(self, tournament: str, inputs: Sequence[tuple[str, dict[str, Any]]],
                    at: float) -> None:
        """Write ``inputs`` (kind, body) in one transaction, numbered after the last."""
        if not inputs:
            return
        with self._sessions() as session, session.begin():
            seq = self._seq.get(tournament)
            if seq is None:
                seq = session.scalar(select(func.max(DirectorRecord.seq)).where(
                    DirectorRecord.tournament == tournament)) or 0
            for kind, body in inputs:
                seq += 1
                session.add(DirectorRecord(tournament=tournament, seq=seq, kind=kind,
                                           body=body, at=at))
        self._seq[tournament] = seq

    def replay(self, tournament: str) -> Iterator[Input]:
        """The tournament's inputs in order."""
        with self._sessions() as session:
            rows = session.execute(select(DirectorRecord.seq, DirectorRecord.kind,
                                          DirectorRecord.body, DirectorRecord.at).where(
                DirectorRecord.tournament == tournament).order_by(DirectorRecord.seq)).all()
        for row in rows:
            yield Input(row.seq, row.kind, dict(row.body), row.at)
        self._seq[tournament] = rows[-1].seq if rows else 0

    def latest(self) -> str | None:
        """The tournament created last, if any."""
        with self._sessions() as session:
            return session.scalar(select(DirectorRecord.tournament).where(
                DirectorRecord.kind == "create").order_by(DirectorRecord.id.desc()).limit(1))
