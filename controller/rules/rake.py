"""Cash-game rake (RULES.md section 15, RAKE-1..8; CONF keys ``rake.rounding``, ``rake.table``).

Two models:

- **percentage** (online tables RAKE-6 2023 and RAKE-7 2019): a percentage of the pot,
  rounded to the cent (RAKE-4), at least one cent on a raked hand (RAKE-3), at most the
  cap, which is halved when exactly 2 or 3 players were dealt in (RAKE-5). Amounts are
  integer **cents**; the percentage is an exact :class:`~fractions.Fraction` (``3.5`` is
  ``Fraction(7, 2)``), so no binary float ever touches money.
- **brackets** (the live casino table RAKE-8): a fixed rake by pot-size bracket. Amounts
  are whole **kr**; the pot is measured before the rake [interp, RAKE-8].

Both take nothing from a hand that ends before the flop (RAKE-2, "no flop, no drop"). The
casino seed does not say whether that applies to it (RULES.md Appendix B.20): RAKE-2 is not
marked online-only, so it is on by default here and ``no_flop_no_drop=False`` turns it off.
No model ever takes more than the pot [conv].

The tables are frozen data (:data:`RAKE_TABLE_2023`, :data:`RAKE_TABLE_2019`,
:data:`CASINO_BRACKETS`). RAKE-6 repeats a stake label (NL100, PL10) with different blinds,
marked ⚠: :func:`rake_policy` finds a row by game, stake label and, where the label alone
is ambiguous, blinds, and raises :class:`ConfigError` naming the candidates instead of
guessing.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from itertools import pairwise
from math import ceil, floor
from typing import Final, Literal

from controller.rules.errors import ConfigError, RulesError

Rounding = Literal["nearest", "up"]
RakeKind = Literal["percentage", "brackets"]

#: CONF ``rake.table`` values: the 2023 tables (003/001), the 2019 tables (000), the
#: casino brackets (002 §28).
RAKE_TABLES: Final = ("2023", "2019", "casino")
ROUNDINGS: Final = ("nearest", "up")


@dataclass(frozen=True, slots=True)
class RakeBracket:
    """Pots up to ``pot_to`` (inclusive; ``None``: no upper end) pay ``rake`` (RAKE-8)."""

    pot_to: int | None
    rake: int


@dataclass(frozen=True, slots=True)
class RakePolicy:
    """How one game at one stake is raked; validated on construction (ConfigError).

    ``percent`` is the percentage itself (``Fraction(7, 2)`` is 3.5 %). ``cap`` and
    ``halved_cap`` (RAKE-5, for exactly 2 or 3 players dealt in) are in ``unit``;
    ``cap=None`` means no cap. ``minimum`` is the least rake on a raked hand (RAKE-3).
    """

    kind: RakeKind
    percent: Fraction = Fraction(0)
    cap: int | None = None
    halved_cap: int | None = None
    rounding: Rounding = "nearest"
    minimum: int = 1
    brackets: tuple[RakeBracket, ...] = ()
    no_flop_no_drop: bool = True
    unit: str = "cent"

    def __post_init__(self) -> None:
        problem = _policy_problem(self)
        if problem:
            raise ConfigError(problem, "RAKE-8" if self.kind == "brackets" else "RAKE-1")

    @classmethod
    def percentage(cls, percent: Fraction | int | str, cap: int | None, *,
                   halved_cap: int | None = None, rounding: Rounding = "nearest",
                   no_flop_no_drop: bool = True) -> RakePolicy:
        """A percentage policy in cents; ``halved_cap`` defaults to half the cap (RAKE-5),
        which must then be a whole cent."""
        if cap is not None and halved_cap is None:
            if cap % 2:
                raise ConfigError(f"half of the cap {cap} is not a whole cent: give halved_cap",
                                  "RAKE-5")
            halved_cap = cap // 2
        return cls("percentage", Fraction(percent), cap, halved_cap, rounding,
                   no_flop_no_drop=no_flop_no_drop)

    def cap_for(self, players_dealt: int) -> int | None:
        """The cap that applies: halved when exactly 2 or 3 players were dealt in (RAKE-5)."""
        return self.halved_cap if players_dealt in (2, 3) else self.cap


def _policy_problem(p: RakePolicy) -> str | None:
    if p.kind not in ("percentage", "brackets"):
        return f"rake kind must be 'percentage' or 'brackets', not {p.kind!r}"
    if p.rounding not in ROUNDINGS:
        return f"rake.rounding must be one of {ROUNDINGS}, not {p.rounding!r}"
    if p.minimum < 0:
        return f"minimum rake cannot be negative ({p.minimum})"
    if p.kind == "brackets":
        uppers = [b.pot_to for b in p.brackets]
        if not p.brackets or uppers[-1] is not None or None in uppers[:-1]:
            return "brackets must end with one open bracket (pot_to=None)"
        bounded = [u for u in uppers if u is not None]
        if any(a >= b for a, b in pairwise(bounded)) or bounded[0] < 0:
            return "bracket upper ends must be non-negative and strictly increasing"
        if any(b.rake < 0 for b in p.brackets):
            return "a bracket's rake cannot be negative"
        return None
    if not 0 <= p.percent <= 100:
        return f"rake percent must be from 0 to 100, not {p.percent}"
    if p.brackets:
        return "a percentage policy has no brackets"
    if (p.cap is None) != (p.halved_cap is None):
        return "cap and halved_cap are given together (RAKE-5) or not at all"
    if p.cap is not None and p.halved_cap is not None and not 0 <= p.halved_cap <= p.cap:
        return f"halved cap {p.halved_cap} must be from 0 to the cap {p.cap}"
    return None


def rake_for(policy: RakePolicy, pot: int, *, saw_flop: bool, players_dealt: int) -> int:
    """The rake taken from a pot of ``pot`` (in ``policy.unit``, measured before the rake).

    RAKE-2 no flop, no drop; RAKE-4 rounding; RAKE-3 minimum; RAKE-5 halved cap; RAKE-8
    brackets. Never more than the pot [conv], never negative.
    """
    if pot < 0:
        raise RulesError(f"a pot cannot be negative ({pot})", "RAKE-1")
    if players_dealt < 2:
        raise RulesError(f"a hand deals in at least 2 players, not {players_dealt}", "RAKE-5")
    if pot == 0 or (policy.no_flop_no_drop and not saw_flop):  # RAKE-2
        return 0
    if policy.kind == "brackets":  # RAKE-8
        rake = next(b.rake for b in policy.brackets if b.pot_to is None or pot <= b.pot_to)
        return min(rake, pot)
    exact = pot * policy.percent / 100
    rake = ceil(exact) if policy.rounding == "up" else floor(exact + Fraction(1, 2))  # RAKE-4
    rake = max(rake, policy.minimum)  # RAKE-3
    cap = policy.cap_for(players_dealt)  # RAKE-5
    if cap is not None:
        rake = min(rake, cap)
    return min(rake, pot)


# ---------------------------------------------------------------- the tables


@dataclass(frozen=True, slots=True)
class RakeRow:
    """One row of a rake table (RAKE-6/7): blinds and caps in cents, ``percent`` in %."""

    table: str
    game: str
    stake: str
    blinds: tuple[int, int]
    percent: Fraction
    cap: int
    halved_cap: int
    note: str = ""

    @property
    def blinds_text(self) -> str:
        """The blinds in euros as the rulebook writes them, e.g. ``0.05/0.10``."""
        return "/".join(f"{b // 100}.{b % 100:02d}" for b in self.blinds)


def _rows(table: str, data: str, halve: bool) -> tuple[RakeRow, ...]:
    """Rows from ``game|stake|sb/bb cents|percent|cap cents[|halved cap cents][|note]``."""
    rows = []
    for line in data.strip().splitlines():
        game, stake, blinds, percent, cap, *rest = (f.strip() for f in line.split("|"))
        sb, bb = (int(b) for b in blinds.split("/"))
        halved = int(cap) // 2 if halve else int(rest.pop(0))
        rows.append(RakeRow(table, game, stake, (sb, bb), Fraction(percent), int(cap), halved,
                            rest[0] if rest else ""))
    return tuple(rows)


#: RAKE-6, 2023 (003 = 001), Plan 1. Halved caps are half the caps (RAKE-5). Rows with a
#: note are the ⚠ rows of the rulebook (Appendix B.1), kept as given.
RAKE_TABLE_2023: Final = _rows("2023", """
NLHE|NL4|2/4|2|50
NLHE|NL10|5/10|3.5|100
NLHE|NL100|5/10|3.5|200|⚠ label/blinds clash
NLHE|NL25|15/25|4.5|200|⚠ 000 gives 0.10/0.25
NLHE|NL50|25/50|5.5|200
NLHE|NL100|50/100|6|300
NLHE|NL200|100/200|6|300
NLHE|NL400|200/400|6|300
PLO|PL4|2/4|2|50
PLO|PL10|5/10|3|150
PLO|PL25|10/25|3|250
PLO|PL10|25/50|3|150|⚠ label/blinds clash
PLO|PL50|25/50|3.5|300
PLO|PL100|50/100|6|300
PLO|PL200|100/200|6|300
PLO|PL400|200/400|6|300
Banzai NLHE|NL1|5/10|2|25
Banzai NLHE|NL5|25/50|2|50
Banzai NLHE|NL20|100/200|2.5|100
Banzai NLHE|NL50|250/500|2.5|150
Banzai NLHE|NL100|500/1000|2.5|200
""", halve=True)

#: RAKE-7, 2019 (000), with its own halved-cap column; the Banzai NL1 halved cap (€1.00,
#: not half of €3) is 000's text, kept as given (Appendix A.13).
RAKE_TABLE_2019: Final = _rows("2019", """
NLHE|NL4|2/4|1|100|50
NLHE|NL10|5/10|3|200|100
NLHE|NL25|10/25|5|300|150
NLHE|NL50|25/50|5.5|300|150
NLHE|NL100|50/100|6|300|150
NLHE|NL200|100/200|6|300|150
NLHE|NL400|200/400|6|300|150
PLO|PL4|2/4|1|100|50
PLO|PL10|5/10|3|200|100
PLO|PL25|10/25|3|300|150
PLO|PL50|25/50|3.5|300|150
PLO|PL100|50/100|6|300|150
PLO|PL200|100/200|6|300|150
PLO|PL400|200/400|6|300|150
Banzai NLHE|NL1|5/10|1|300|100|⚠ 000's halved cap, not half of the cap
Banzai NLHE|NL5|25/50|1|300|150
Banzai NLHE|NL20|100/200|1|300|150
""", halve=False)

#: RAKE-8 casino brackets (002 §28), pot and rake in whole kr.
CASINO_BRACKETS: Final = (
    RakeBracket(1000, 20), RakeBracket(2000, 30), RakeBracket(3000, 50),
    RakeBracket(4000, 70), RakeBracket(5000, 90), RakeBracket(6000, 110),
    RakeBracket(7000, 130), RakeBracket(8000, 150), RakeBracket(9000, 170),
    RakeBracket(10000, 190), RakeBracket(None, 200),
)

_TABLES: Final = {"2023": RAKE_TABLE_2023, "2019": RAKE_TABLE_2019}


def find_row(table: str, game: str, stake: str,
             blinds: tuple[int, int] | None = None) -> RakeRow:
    """The one row of ``table`` for ``game`` and ``stake`` (and ``blinds`` in cents, needed
    where the stake label repeats: RAKE-6 ⚠ rows). Raises :class:`ConfigError` when no row
    or more than one row fits, naming the candidates."""
    rows = _TABLES.get(table)
    if rows is None:
        raise ConfigError(f"rake.table {table!r} has no stake rows; percentage tables are "
                          f"{sorted(_TABLES)}", "RAKE-6")
    games = sorted({r.game for r in rows})
    if game not in games:
        raise ConfigError(f"the {table} rake table has no game {game!r}; it has {games}",
                          "RAKE-6")
    labelled = [r for r in rows if r.game == game and r.stake == stake]
    fits = [r for r in labelled if blinds is None or r.blinds == blinds]
    if len(fits) == 1:
        return fits[0]
    rule = "RAKE-6" if table == "2023" else "RAKE-7"
    if not labelled:
        stakes = sorted({r.stake for r in rows if r.game == game})
        raise ConfigError(f"the {table} rake table has no {game} stake {stake!r}; it has "
                          f"{stakes}", rule)
    options = ", ".join(f"{r.blinds_text}" + (f" ({r.note})" if r.note else "")
                        for r in labelled)
    if not fits:
        raise ConfigError(f"{game} {stake} in the {table} rake table has blinds {options}, "
                          f"not {blinds} (cents)", rule)
    raise ConfigError(f"{game} {stake} is ambiguous in the {table} rake table: it has rows "
                      f"with blinds {options}; pass blinds (in cents) to choose one "
                      "(a product decision, RULES.md Appendix B.1)", rule)


def rake_policy(table: str, game: str = "", stake: str = "",
                blinds: tuple[int, int] | None = None, *, rounding: Rounding = "nearest",
                no_flop_no_drop: bool = True) -> RakePolicy:
    """The policy for CONF ``rake.table`` (``"2023"``, ``"2019"`` or ``"casino"``), game
    (``"NLHE"``, ``"PLO"``, ``"Banzai NLHE"``) and stake label (``"NL10"``), with CONF
    ``rake.rounding``. Percentage tables are in cents; ``"casino"`` ignores game, stake and
    rounding and is in kr (RAKE-8)."""
    if table == "casino":
        return RakePolicy("brackets", brackets=CASINO_BRACKETS, no_flop_no_drop=no_flop_no_drop,
                          minimum=0, unit="kr")
    if table not in RAKE_TABLES:
        raise ConfigError(f"rake.table must be one of {RAKE_TABLES}, not {table!r}", "RAKE-6")
    row = find_row(table, game, stake, blinds)
    return RakePolicy.percentage(row.percent, row.cap, halved_cap=row.halved_cap,
                                 rounding=rounding, no_flop_no_drop=no_flop_no_drop)


__all__ = [
    "CASINO_BRACKETS", "RAKE_TABLES", "RAKE_TABLE_2019", "RAKE_TABLE_2023", "ROUNDINGS",
    "RakeBracket", "RakeKind", "RakePolicy", "RakeRow", "Rounding", "find_row", "rake_for",
    "rake_policy",
]
