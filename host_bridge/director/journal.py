"""The director's journal in the bridge's store: every input it acted on, in order.

The tournament director is a pure model driven by inputs (the set-up, registrations,
the start, the tables' hand reports and seat changes, the floor operations it carried out,
the level changes, hand-for-hand). Each input is written here *before* it is applied
(write-ahead), one row per input, numbered per tournament. After a restart the model is
rebuilt by replaying the rows through the same code: the model is deterministic given its
inputs and the seeded ``random.Random`` it draws seats with, so replay reproduces it
exactly, without a second serialisation of every model object to keep in step.

The inputs are typed: :data:`DirectorInput` is one discriminated union (``kind``) of
frozen models; a table's report (:class:`TableReport`) carries the table's event as the
vocabulary's typed :data:`~controller.events.TableEvent`. A row is the input's ``kind``
and the rest of its fields as JSON; :meth:`DirectorJournal.replay` parses each row back
into its model once.

Bridge side (SQLAlchemy); not part of the pure core.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Final, Literal

from pydantic import Field, TypeAdapter, ValidationError
from sqlalchemy import JSON, Float, Integer, String, UniqueConstraint, func, select
from sqlalchemy.orm import Mapped, Session, mapped_column, sessionmaker

from controller.events import Frozen, TableEvent
from host_bridge.models import ID, Base


# ---------------------------------------------------------------------------- the inputs
class Actor(Frozen):
    """Who did it: the principal's grant name and role (every director action journaled
    with its author, issue 19)."""

    name: str
    role: str


#: an input a person caused carries ``by`` (issue 19); None: the floor's own task did it
#: (hand-for-hand by the margin, automatic balancing), or a journal older than the field
By = Actor | None


class Create(Frozen):
    """The tournament was created with these options (``TournamentOptions.to_json``);
    ``since``: each table's last stored seq then (its earlier events were not this
    tournament's: a restart does not catch up on them)."""

    kind: Literal["create"] = "create"
    options: dict[str, Any]
    id: str
    since: dict[str, int] = Field(default_factory=dict)
    by: By = None


class Register(Frozen):
    """A player entered (before the start, or late: TOURN-4)."""

    kind: Literal["register"] = "register"
    player: str
    by: By = None


class Start(Frozen):
    """The seat draw (TOURN-2) and the clock's start."""

    kind: Literal["start"] = "start"
    clock: None = None
    by: By = None


class TableReport(Frozen):
    """An event a table reported (stored by the bridge), with the table's seq."""

    kind: Literal["event"] = "event"
    table: str
    seq: int
    event: TableEvent


class Buy(Frozen):
    """A rebuy or add-on asked of a table (TOURN-10..12)."""

    kind: Literal["buy"] = "buy"
    player: str
    what: Literal["rebuy", "add_on"]
    by: By = None


class BuyRefused(Frozen):
    """The table refused that rebuy or add-on."""

    kind: Literal["buy_refused"] = "buy_refused"
    player: str
    what: Literal["rebuy", "add_on"]


class LevelUp(Frozen):
    """The host's level clock moved the tournament to level ``number``."""

    kind: Literal["level"] = "level"
    number: int


class BreakBegun(Frozen):
    """The host's level clock began a break."""

    kind: Literal["break"] = "break"


class ClockState(Frozen):
    """The host's level clock as it stood (``LevelClock.state``), to restore it."""

    kind: Literal["clock"] = "clock"
    state: dict[str, Any]


class FloorOp(Frozen):
    """A floor operation carried out: ``balance``, ``break`` a table, the ``redraw``."""

    kind: Literal["floor"] = "floor"
    op: str
    table: int | None = None
    by: By = None


class HandForHandOn(Frozen):
    """Hand-for-hand began with these tables (TOURN-22)."""

    kind: Literal["h4h_on"] = "h4h_on"
    tables: list[int]


class HandForHandOff(Frozen):
    """Hand-for-hand ended."""

    kind: Literal["h4h_off"] = "h4h_off"


class HandForHandSkip(Frozen):
    """Hand-for-hand: a table with fewer than two players skips the hand."""

    kind: Literal["h4h_skip"] = "h4h_skip"
    table: int


class LastHandsDrawn(Frozen):
    """TOURN-27: the last hands of the day; ``card`` None: drawn when applied."""

    kind: Literal["last_hands"] = "last_hands"
    card: int | None = None
    seconds_left: float
    by: By = None


# ----------------------------------------------- the director's money (issue 19, money.py)
class ReEnter(Frozen):
    """TOURN-4/6: an eliminated player re-entered (a new entry, full stack, the fee)."""

    kind: Literal["re_enter"] = "re_enter"
    player: str
    by: Actor


class Surrender(Frozen):
    """TOURN-15: a player handed in ``chips`` of their stack (they leave play)."""

    kind: Literal["surrender"] = "surrender"
    player: str
    chips: int
    by: Actor


class DealMade(Frozen):
    """TOURN-29: the remaining players' deal (``icm`` or ``chip_chop``), in cents by entry;
    the tournament ends with these amounts in place of the places' prizes."""

    kind: Literal["deal"] = "deal"
    method: Literal["icm", "chip_chop"]
    amounts: dict[str, int]
    by: Actor
# ------------------------------------------------------------ end of the director's money


# ------------------------------------ the floor's discipline (issue 19, discipline.py)
class FloorDecision(Frozen):
    """A decision the floor took by hand (penalties, cancellation, a sit & go's set-up and
    draw), with who took it; :class:`~.discipline.Discipline` applies every one."""

    by: Actor


class PenaltyGiven(FloorDecision):
    """PEN-1..7: a penalty given; ``at_table`` the players at the offender's table then
    (a round's hands, PEN-2), ``now`` wall-clock seconds (a removal's start, PEN-3)."""

    kind: Literal["penalty"] = "penalty"
    player: str
    penalty: Literal["warning", "hands", "rounds", "removal", "exclude", "disqualify"]
    count: int = 0
    at_table: int = 0
    now: float = 0.0
    reason: str = ""


class Cancelled(FloorDecision):
    """CANCEL-1..9: the tournament cancelled (``crash``: CRASH-4), compensation by stage."""

    kind: Literal["cancelled"] = "cancelled"
    cause: Literal["director", "crash", "too_few"]
    reason: str = ""


class Unregistered(FloorDecision):
    """TOURN-7: a player left the field before the start, buy-in and fee refunded."""

    kind: Literal["unregistered"] = "unregistered"
    player: str


class SitAndGoSet(FloorDecision):
    """SNG-1..7: this tournament is a HexaPro (Extreme) sit & go at this buy-in and fee."""

    kind: Literal["sit_and_go"] = "sit_and_go"
    format: Literal["hexapro", "hexapro_extreme"]
    buy_in: int
    fee: int = 0


class MultiplierDrawn(FloorDecision):
    """SNG-3/6: the multiplier drawn at the start (``times`` as text: "1.5")."""

    kind: Literal["multiplier"] = "multiplier"
    times: str
# ---------------------------------------------------------- end of the floor's discipline


DirectorInput = Annotated[
    Create | Register | Start | TableReport | Buy | BuyRefused | LevelUp | BreakBegun
    | ClockState | FloorOp | HandForHandOn | HandForHandOff | HandForHandSkip
    | LastHandsDrawn
    | ReEnter | Surrender | DealMade  # the director's money (money.py)
    | PenaltyGiven | Cancelled | SitAndGoSet | MultiplierDrawn | Unregistered,  # discipline.py
    Field(discriminator="kind")]
"""Every input the director journals, one model a kind."""
_INPUTS: Final[TypeAdapter[DirectorInput]] = TypeAdapter(DirectorInput)


# ---------------------------------------------------------------------------- the store
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


#: what the floor's log leaves out: the tables' reports, the level clock's own changes
ROUTINE: Final = frozenset({"event", "clock", "level", "break", "h4h_skip"})
#: at most this many decisions a read returns
LOG_LIMIT: Final = 500


@dataclass(frozen=True, slots=True)
class Journaled:
    """One journaled input, with its number and when it was written."""

    seq: int
    entry: DirectorInput
    at: float


class DirectorJournal:
    """Appends a tournament's inputs and reads them back for replay."""

    def __init__(self, sessions: sessionmaker[Session]) -> None:
        self._sessions = sessions
        self._seq: dict[str, int] = {}

    def append_many(self, tournament: str, inputs: Sequence[DirectorInput],
                    at: float) -> None:
        """Write ``inputs`` in one transaction, numbered after the last."""
        if not inputs:
            return
        with self._sessions() as session, session.begin():
            seq = self._seq.get(tournament)
            if seq is None:
                seq = session.scalar(select(func.max(DirectorRecord.seq)).where(
                    DirectorRecord.tournament == tournament)) or 0
            for entry in inputs:
                seq += 1
                session.add(DirectorRecord(tournament=tournament, seq=seq, kind=entry.kind,
                                           body=entry.model_dump(mode="json",
                                                                 exclude={"kind"}), at=at))
        self._seq[tournament] = seq

    def replay(self, tournament: str) -> Iterator[Journaled]:
        """The tournament's inputs in order, each parsed into its model (a row that is
        not one, e.g. a table event of an older wire schema, raises ``ValueError``)."""
        with self._sessions() as session:
            rows = session.execute(select(DirectorRecord.seq, DirectorRecord.kind,
                                          DirectorRecord.body, DirectorRecord.at).where(
                DirectorRecord.tournament == tournament).order_by(DirectorRecord.seq)).all()
        for row in rows:
            try:
                entry = _INPUTS.validate_python({**row.body, "kind": row.kind})
            except ValidationError as exc:
                raise ValueError(f"tournament {tournament}: journaled input {row.seq} "
                                 f"({row.kind}) is not readable: {exc.errors()[0]['msg']}"
                                 ) from None
            yield Journaled(row.seq, entry, row.at)
        self._seq[tournament] = rows[-1].seq if rows else 0

    def decisions(self, tournament: str, *, after: int = 0,
                  last: int | None = None) -> list[Journaled]:
        """The floor's log: the tournament's journaled inputs that are not routine
        (:data:`ROUTINE`), in order, numbered after ``after``; ``last``: only the last
        that many. At most :data:`LOG_LIMIT` (the first ones after ``after``)."""
        newest_first = last is not None
        with self._sessions() as session:
            rows = session.execute(select(DirectorRecord.seq, DirectorRecord.kind,
                                          DirectorRecord.body, DirectorRecord.at).where(
                DirectorRecord.tournament == tournament, DirectorRecord.seq > after,
                DirectorRecord.kind.not_in(ROUTINE)).order_by(
                DirectorRecord.seq.desc() if newest_first else DirectorRecord.seq).limit(
                min(last or LOG_LIMIT, LOG_LIMIT))).all()
        if newest_first:
            rows = rows[::-1]
        return [Journaled(r.seq, _INPUTS.validate_python({**r.body, "kind": r.kind}), r.at)
                for r in rows]

    def ids(self) -> list[str]:
        """Every tournament journaled, in the order they were created."""
        with self._sessions() as session:
            return list(session.scalars(select(DirectorRecord.tournament).where(
                DirectorRecord.kind == "create").order_by(DirectorRecord.id)))

    def latest(self) -> str | None:
        """The tournament created last, if any."""
        with self._sessions() as session:
            return session.scalar(select(DirectorRecord.tournament).where(
                DirectorRecord.kind == "create").order_by(DirectorRecord.id.desc()).limit(1))


def describe(entry: DirectorInput) -> str:
    """One line of the floor's log: what the input did, in the floor's words."""
    match entry:
        case Create(options=options):
            return (f"created {options.get('name', '?')} over tables "
                    f"{', '.join(options.get('tables', {}))}")
        case Register(player=player):
            return f"registered {player}"
        case Start():
            return "started: the seat draw (TOURN-2), the clock runs"
        case Buy(player=player, what=what):
            return f"{what.replace('_', '-')} for {player} (TOURN-{10 if what == 'rebuy' else 12})"
        case BuyRefused(player=player, what=what):
            return f"the table refused the {what.replace('_', '-')} for {player}"
        case FloorOp(op=op, table=table):
            where = f" table {table}" if table is not None else ""
            return {"balance": "balanced the tables (TOURN-19)",
                    "break": f"broke{where} (TOURN-20)",
                    "redraw": "final-table redraw (TOURN-28)"}.get(op, f"{op}{where}")
        case HandForHandOn(tables=tables):
            return f"hand-for-hand began (TOURN-22), tables {', '.join(map(str, tables))}"
        case HandForHandOff():
            return "hand-for-hand ended"
        case LastHandsDrawn(card=card):
            return f"last hands of the day drawn (TOURN-27){f': {card} each' if card else ''}"
        case ReEnter(player=player):
            return f"{player} re-entered (TOURN-6)"
        case Surrender(player=player, chips=chips):
            return f"{player} surrendered {chips} chips (TOURN-15)"
        case DealMade(method=method):
            return f"deal made by {method.replace('_', '-')} (TOURN-29)"
        case PenaltyGiven(player=player, penalty=penalty, count=count):
            return f"penalty for {player}: {penalty}{f' x{count}' if count else ''}"
        case Cancelled(cause=cause):
            return f"cancelled ({cause})"
        case SitAndGoSet(format=fmt, buy_in=buy_in):
            return f"sit & go set: {fmt}, buy-in {buy_in}"
        case MultiplierDrawn(times=times):
            return f"sit & go multiplier drawn: x{times} (SNG-3)"
        case _:
            return entry.kind
