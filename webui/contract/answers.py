"""The answers the API gives, as pydantic models: the fields other tools rely on, typed. An
answer may carry more fields than its model names (`extra="allow"`): a page's helpers grow, a
tool reads what it knows. The fuzz run checks every answer against its model."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, RootModel


class Answer(BaseModel):
    model_config = ConfigDict(extra="allow")


class Refusal(Answer):
    """Every error: the sentence in the device's language, and for most what it is."""

    error: str = Field(description="What was wrong, in the device's language.")
    code: str | None = Field(
        None,
        description="What the refusal is: a stable snake_case code "
        '(webui/API.md, "What an error is").',
    )
    values: dict[str, Any] | None = Field(None, description="What the sentence is made from.")


class Created(Answer):
    id: str


class Deleted(Answer):
    deleted: str


class Breakdown(Answer):
    fifteens: int
    pairs: int
    runs: int
    flush: int
    nobs: int


class ScoreAnswer(Answer):
    """`cribcam score --jsonl`'s output line."""

    total: int = Field(ge=0, le=29)
    breakdown: Breakdown


class DiscardOption(Answer):
    rank: int
    discard: list[str]
    keep: list[str]
    net: float


class AdviceAnswer(Answer):
    dealt: list[str]
    players: int
    role: str
    options: list[DiscardOption]


class Outcome(Answer):
    winner: int


class Match(Answer):
    games_per_match: int
    games: list[str]
    over: bool


class GameState(Answer):
    """A game's whole state (webui/API.md, "GET /api/games/<id>")."""

    id: str
    match_id: str
    names: list[str]
    created: float
    updated: float
    revision: int = Field(ge=0)
    settings: dict[str, Any]
    phase: str
    dealer: int | None
    scores: list[int]
    turn: int | None
    count: int
    starter: str | None
    outcome: Outcome | None
    actions: int = Field(ge=0)
    log: list[dict[str, Any]]
    shows: list[dict[str, Any]]
    play: list[dict[str, Any]]
    seen: list[str]
    hands_known: bool
    match: Match


class GameSummary(Answer):
    id: str
    match_id: str
    created: float
    updated: float
    names: list[str]
    revision: int


class GameList(Answer):
    games: list[GameSummary]


class SavedGame(Answer):
    """`Game.to_json()`: what `cribcam replay` reads."""

    settings: dict[str, Any]
    first_dealer: int | None
    actions: list[dict[str, Any]]


class CountView(Answer):
    """The "settle it" view of the current count."""

    game: str
    deal: int
    phase: str
    count: int
    finished: bool
    points: int
    steps: list[dict[str, Any]]


class TableStatus(Answer):
    """What table mode asks now (`question`) and the last step it applied by itself."""

    question: dict[str, Any] | None
    last: dict[str, Any] | None


class LearntSeats(Answer):
    """Where the camera learnt each seat sits, in the picture's pixels."""

    learnt: list[dict[str, Any]]


class TableAnswerResult(GameState):
    table_mode: TableStatus


class CameraView(Answer):
    enabled: bool
    state: str
    detail: str


class Detection(Answer):
    card: str
    confidence: float
    box: list[float]


class Reading(Answer):
    """One `cribcam detect --json` object."""

    image: str
    cards: list[Detection]
    index_px: float | None = None


class FrameReading(Reading):
    game: str
    frame: str


class Tune(Answer):
    state: str
    deck: str | None
    fraction: float
    text: str


class Decks(Answer):
    active: str | None
    decks: list[dict[str, Any]]
    tune: Tune
    tuning: bool


class DeckDeleted(Decks):
    deleted: str


class Enrolment(Answer):
    id: str
    name: str
    mode: Literal["any", "suits"]
    shots: list[dict[str, Any]]
    candidates: list[dict[str, Any]]
    ready: bool


class EnrolmentStarted(Enrolment):
    replaces: bool


class ShotAdded(Enrolment):
    added: dict[str, Any]


class EnrolmentSaved(Answer):
    deck: dict[str, Any]
    session: Enrolment
    tune: Tune | None = None


class TuneStarted(Answer):
    tune: Tune


class CorrectionSaved(Answer):
    deck: dict[str, Any]
    card: str
    file: str


class Devices(Answer):
    pairing: bool
    devices: list[dict[str, Any]]


class Health(Answer):
    ok: bool
    version: str
    detector: bool
    reader: dict[str, Any]
    camera: bool


class PlayerEntry(Answer):
    name: str
    key: str
    games: int
    wins: int
    match_points: int


class Players(Answer):
    players: list[PlayerEntry]


class PlayerRecord(Answer):
    """A player's record over their finished games (webui/API.md, "Players' records")."""

    name: str
    key: str
    games: int
    wins: int
    losses: int
    match_points: int
    hands: dict[str, Any]


class HeadToHead(Answer):
    player: str
    other: str
    games: int
    wins: dict[str, int]
    recent: list[dict[str, Any]]


class ExportedGame(Answer):
    """A game to take away: what `cribcam replay` reads, with its id and names."""

    id: str
    names: list[str]
    settings: dict[str, Any]
    actions: list[dict[str, Any]]


class Exported(RootModel[list[ExportedGame]]):
    """The games chosen, oldest first."""


class Imported(Answer):
    added: list[str]
    extended: list[str]
    unchanged: list[str]
