"""What the director's API takes and returns (Base/Create/Public families, as in the
FastAPI full-stack template). Nothing here can carry a hole card: the director never
holds one. Bridge side (pydantic); not part of the pure core."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

WireId = Annotated[str, StringConstraints(min_length=1, max_length=64,
                                          pattern=r"^[A-Za-z0-9_.:-]+$")]
Money = Annotated[int, Field(ge=0, le=10**10, description="cents")]


class BreakCreate(BaseModel):
    """A break after a level, with the chip denominations a colour-up takes off."""

    model_config = ConfigDict(extra="forbid")
    after_level: Annotated[int, Field(ge=1, le=18)]
    minutes: Annotated[float, Field(gt=0, le=120)]
    colour_up: Annotated[list[Annotated[int, Field(gt=0, le=10**6)]], Field(max_length=6)] = []


class TournamentBase(BaseModel):
    """A tournament as published."""

    model_config = ConfigDict(extra="forbid")
    name: Annotated[str, StringConstraints(min_length=1, max_length=64, strip_whitespace=True)]
    structure: Literal["standard", "turbo"] = "standard"
    starting_stack: Annotated[int, Field(gt=0, le=10**9)] = 5_000
    buy_in: Money = 10_000
    fee: Money = 0


class TournamentCreate(TournamentBase):
    """Create a tournament over tables (wire id -> seats) with players registered now."""

    tables: Annotated[dict[WireId, Annotated[int, Field(ge=2, le=10)]],
                      Field(min_length=1, max_length=64)]
    players: Annotated[list[WireId], Field(max_length=2000)] = []
    level_minutes: Annotated[float, Field(gt=0, le=240)] | None = None
    breaks: Annotated[list[BreakCreate], Field(max_length=10)] = []
    late_registration_levels: Annotated[int, Field(ge=0, le=18)] = 0
    seed: Annotated[int, Field(ge=0, le=2**31)] = 0
    hand_for_hand_margin: Annotated[int, Field(ge=0, le=20)] = 1
    auto_balance: bool = Field(False, description="carry out balancing and breaking at once "
                               "(otherwise the director confirms the suggestions)")
    time_bank_start: Annotated[int, Field(ge=0, le=20)] = Field(
        0, description="time-bank extension chips each player holds from the start")
    time_bank_final_table: Annotated[int, Field(ge=0, le=20)] = Field(
        0, description="... and again from the final table on")
    rebuy_levels: Annotated[int, Field(ge=0, le=18)] = Field(
        0, description="TOURN-10: rebuys are open during this many first levels (0: none)")
    rebuy_price: Money | None = Field(None, description="cents; none: the buy-in")
    rebuy_fee: Money = 0
    add_on: bool = Field(False, description="TOURN-12: an add-on in the break after level 2 "
                         "(give that break in breaks)")
    add_on_price: Money | None = Field(None, description="cents; none: the buy-in")
    add_on_fee: Money = 0
    re_entry: bool = Field(False, description="TOURN-4/6: an eliminated player may enter "
                           "again while late registration is open")
    max_entries: Annotated[int, Field(ge=1, le=20)] = Field(
        1, description="entries per player, the first included (more needs re_entry)")
    surrender: bool = Field(False, description="TOURN-15: players may hand in chips to "
                            "rebuy (needs rebuy_levels)")
    bounty: Money = Field(0, description="TOURN-17: cents of each buy-in on the player's head")
    progressive: tuple[Annotated[int, Field(ge=0, le=10_000)],
                       Annotated[int, Field(ge=0, le=10_000)]] | None = Field(
        None, description="TOURN-17 progressive knockout: (paid, added to the knocker's "
        "bounty) in basis points of the bounty")
    deals: bool = Field(True, description="TOURN-29: deals and chops are allowed here")


class PlayerCreate(BaseModel):
    """Register a player (a late entry once the tournament runs, TOURN-4/5)."""

    model_config = ConfigDict(extra="forbid")
    player: WireId


class BalanceConfirm(BaseModel):
    """Carry out the suggested moves shown with ``version``."""

    model_config = ConfigDict(extra="forbid")
    version: Annotated[int, Field(ge=0, le=2**62)] | None = None


class LastHandsCreate(BaseModel):
    """TOURN-27: the card drawn (3..7), or none to draw it here."""

    model_config = ConfigDict(extra="forbid")
    card: Annotated[int, Field(ge=3, le=7)] | None = None


class DirectorSeatPublic(BaseModel):
    """A player at a table."""

    seat: int
    player: str
    stack: int
    arriving: bool


class DirectorTablePublic(BaseModel):
    """A table of the tournament as it reports itself."""

    table: str
    number: int
    seats: int
    players: list[DirectorSeatPublic]
    closed: bool
    paused: bool
    hand_for_hand: bool
    in_hand: bool
    hands: int
    h4h_state: str | None


class MovePublic(BaseModel):
    """One suggested move (from_table None: a new entry)."""

    player: str
    from_table: str | None
    from_seat: int | None
    to_table: str
    to_seat: int
    rule: str
    pending: bool = Field(False, description="waits for a hand at its table to end")


class FloorWorkPublic(BaseModel):
    """A floor operation: balance (TOURN-19/20), break (TOURN-21) or redraw (TOURN-28)."""

    op: str
    table: str | None
    moves: list[MovePublic]


class BalancingPublic(BaseModel):
    """What the floor would do now, and the version to confirm it with."""

    version: int
    auto_balance: bool
    suggestions: list[FloorWorkPublic]


class HandForHandPublic(BaseModel):
    """TOURN-22: on, the hand being played, the tables still playing it."""

    on: bool
    hand: int
    waiting_for: list[str]


class PlacePublic(BaseModel):
    """An entry's finishing place (a shared place spans place..place_to) and prize."""

    entry: str
    player: str
    place: int
    place_to: int
    prize: int


class PlacesPublic(BaseModel):
    """Places so far and the prize table."""

    places: list[PlacePublic]
    prizes: list[int]
    prize_pool: int
    places_paid: int
    winner: str | None


class BlindsPublic(BaseModel):
    small_blind: int
    big_blind: int
    ante: int


class LastHandsPublic(BaseModel):
    card: int
    done: bool
    played: dict[str, int]


class TournamentPublic(BaseModel):
    """The tournament now."""

    id: str
    name: str
    stage: str
    level: int
    blinds: BlindsPublic
    on_break: bool
    seconds_left: float
    clock_paused: bool
    players_left: int
    entries: int
    registered: list[str]
    places_paid: int
    in_the_money: bool
    prize_pool: int
    prizes: list[int]
    chips_in_play: int
    average_stack: int
    auto_balance: bool
    version: int
    hand_for_hand: HandForHandPublic
    last_hands: LastHandsPublic | None
    tables: list[DirectorTablePublic]
    suggestions: list[FloorWorkPublic]
    places: list[PlacePublic]
    figures: dict[str, int]
    anomalies: list[str]
    winner: str | None


class TournamentSummary(BaseModel):
    """One tournament of the bridge, as the list shows it."""

    id: str
    name: str
    stage: str
    level: int
    players_left: int
    entries: int
    tables: list[str]


# -------------------------------------------- the director's money (issue 19, money.py)
class SurrenderCreate(BaseModel):
    """TOURN-15: the chips the player hands in (they leave play)."""

    model_config = ConfigDict(extra="forbid")
    chips: Annotated[int, Field(gt=0, le=10**9)]


DealMethod = Literal["icm", "chip_chop"]


class DealConfirm(BaseModel):
    """TOURN-29: confirm the deal shown: its method and each player's amount (cents)."""

    model_config = ConfigDict(extra="forbid")
    method: DealMethod
    amounts: Annotated[dict[WireId, Money], Field(min_length=2, max_length=200)]


class DealPlayerPublic(BaseModel):
    entry: str
    player: str
    stack: int
    amount: int


class DealPublic(BaseModel):
    """A deal previewed (nothing changed): the prizes still to pay and each share."""

    method: DealMethod
    pool: int
    prizes: list[int]
    players: list[DealPlayerPublic]


class BountyPublic(BaseModel):
    """An entry's bounty on their head, knockouts and bounty money won (TOURN-17)."""

    entry: str
    player: str
    status: str
    bounty: int
    knockouts: int
    won: int


class BountiesPublic(BaseModel):
    bounty: int
    progressive: list[int] | None
    residue: int
    players: list[BountyPublic]


class PaidPublic(BaseModel):
    """Who was paid what: the place's prize (a deal's amount), bounties, the total."""

    entry: str
    player: str
    place: int
    place_to: int
    prize: int
    bounties: int
    total: int


class DealMadePublic(BaseModel):
    method: DealMethod
    by: str
    role: str
    amounts: dict[str, int]


class PayoutsPublic(BaseModel):
    """The payout table and who was paid what."""

    prize_pool: int
    places_paid: int
    prizes: list[int]
    paid: list[PaidPublic]
    deal: DealMadePublic | None


# ------------------------------------- the floor's discipline (issue 19, discipline.py)
class PenaltyCreate(BaseModel):
    """A penalty (PEN-1..7): a warning, hands or rounds to miss, a timed removal (PEN-3
    under warning-first rules), exclusion (PEN-6) or disqualification (PEN-7)."""

    model_config = ConfigDict(extra="forbid")
    player: WireId
    penalty: Literal["warning", "hands", "rounds", "removal", "exclude", "disqualify"]
    count: Annotated[int, Field(ge=0, le=1_000)] = 0
    reason: Annotated[str, StringConstraints(max_length=200)] = ""


class CancelCreate(BaseModel):
    """Cancel the tournament (CANCEL-*): ``crash`` when a crash forced it (CRASH-4)."""

    model_config = ConfigDict(extra="forbid")
    cause: Literal["director", "crash", "too_few"] = "director"
    reason: Annotated[str, StringConstraints(max_length=200)] = ""


class CompensationPublic(BaseModel):
    """One player's compensation in cents, by reason, and the rule that gives it."""

    player: str
    refund: int
    fees: int
    prize: int
    bounty: int
    total: int
    rule: str


class CancelPreviewPublic(BaseModel):
    """Who would get what if the tournament were cancelled now (or was)."""

    stage: str
    rule: str  # the CANCEL rule that applies (CANCEL-1..4, -6)
    cause_rule: str | None = None  # CRASH-4 for a crash, once cancelled
    compensation: list[CompensationPublic]
    total: int


class SitAndGoCreate(BaseModel):
    """A HexaPro (Extreme) sit & go at one 3-seat table (SNG-1..7)."""

    model_config = ConfigDict(extra="forbid")
    format: Literal["hexapro", "hexapro_extreme"] = "hexapro"
    buy_in: Annotated[int, Field(gt=0, le=10**7, description="cents")]
    fee: Money = 0
    table: WireId
    players: Annotated[list[WireId], Field(max_length=3)] = []
    seed: Annotated[int, Field(ge=0, le=2**31)] = 0


class FloorPublic(BaseModel):
    """The floor's discipline: penalties, the sit & go, the cancellation, decisions taken
    (with who took them) and confirmed moves (move slips)."""

    penalties: list[dict[str, object]]
    sit_and_go: dict[str, object] | None
    cancelled: dict[str, object] | None
    decisions: list[dict[str, object]]
    moves: list[dict[str, object]]
