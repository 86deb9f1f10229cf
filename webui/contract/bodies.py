"""Every request body and query the API takes, as pydantic models: strict types, bounds on
every number and length, unknown fields refused. Rules that need the game (a seat it has, a
card already used) stay with the engine, which refuses them with its own codes."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal, TypeAlias

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    RootModel,
    ValidationError,
    ValidationInfo,
    ValidatorFunctionWrapHandler,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from scorer.settings import MAX_GAMES_PER_MATCH, MAX_MATCH_POINTS, Settings
from webui.contract.fields import (
    CardText,
    Correction,
    DeckName,
    FrameId,
    MugginsPoints,
    PlayClaim,
    Seat,
    SeatName,
    ShowClaim,
    Suit,
    cards,
    integer,
    refused,
    refused_as,
    shown,
    text,
)


def _required(schema: dict[str, Any], *names: str) -> None:
    """A model's JSON Schema without the defaults of None a client cannot send (a field left
    out takes its value elsewhere), `names` among its required fields."""
    if names:
        schema["required"] = sorted({*schema.get("required", ()), *names})
    for field in schema["properties"].values():
        nullable = {"type": "null"} in field.get("anyOf", ())
        if "default" in field and field["default"] is None and not nullable:
            del field["default"]


class Body(BaseModel):
    """A JSON object of known fields only; `what` names it in a refusal ("an enrolment")."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    what: ClassVar[str] = "this request"

    @model_validator(mode="wrap")
    @classmethod
    def _known_fields(cls, data: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        if not isinstance(data, dict):
            raise PydanticCustomError("body_not_object", "body_not_object",
                                      {"type": type(data).__name__})  # fmt: skip
        unknown = sorted(set(data) - set(cls.model_fields))
        if unknown:
            raise PydanticCustomError("unknown_body_fields", "unknown_body_fields",
                                      {"what": cls.what, "names": ", ".join(unknown)})  # fmt: skip
        return handler(data)

    def given(self) -> dict[str, Any]:
        """The fields the request gave, as JSON."""
        return self.model_dump(mode="json", exclude_unset=True)


if TYPE_CHECKING:  # mypy sees the value a field's checks leave; pydantic the checks
    CutCards: TypeAlias = list[str]
    Hand: TypeAlias = list[str]
    Discards: TypeAlias = list[str]
    Shown: TypeAlias = list[str]
    GamesPerMatch: TypeAlias = int
    Skunk: TypeAlias = int
    MatchPointsCount: TypeAlias = int
    FileName: TypeAlias = str
    Box: TypeAlias = str
else:
    CutCards = cards(4, "One card per seat, in seat order.")
    Hand = cards(6, "A hand's cards.")
    Discards = cards(2, "The cards laid away.")
    Shown = cards(5, "The hand or crib, without the starter.")
    GamesPerMatch = integer(1, MAX_GAMES_PER_MATCH, "Games in the match.")
    FileName = text(200, "The file name the answer repeats.")
    Box = text(80, "The misread corner index: x1,y1,x2,y2 in pixels.", least=1)
    Skunk = integer(1, 120, "Loser under this: skunk (and double, triple); under the target.")
    MatchPointsCount = integer(0, MAX_MATCH_POINTS, "Match points.")


# -- a game's rules ----------------------------------------------------------------------------
class MatchPointsBody(Body):
    what = "match points"
    win: MatchPointsCount = 1
    skunk: MatchPointsCount = 2
    double_skunk: MatchPointsCount = 3
    triple_skunk: MatchPointsCount = 3
    loss: MatchPointsCount = 0
    triple_skunk_wins_match: bool = False


class SettingsBody(Body):
    """A game's rules (`scorer.settings.Settings`); a field left out takes the usual value. The
    engine checks them first, so its refusals ("target must be 61 or 121") are the answer."""

    what = "the settings"
    # left out: the variant's target, the usual match points (no default a client could send)
    model_config = ConfigDict(json_schema_extra=lambda schema: _required(schema))
    players: Literal[2, 3, 4] = 2
    variant: Literal["six-card", "five-card"] = "six-card"
    target: Literal[61, 121] = Field(
        None,  # type: ignore[arg-type]
        description="Left out: the variant's (121; five-card 61).",
    )
    muggins: bool = False
    muggins_penalties: bool = True
    false_game_penalty: bool = False
    skunk_line: Skunk | None = None
    double_skunk_line: Skunk | None = None
    triple_skunk_line: Skunk | None = None
    match_points: MatchPointsBody | Literal["acc"] = Field(
        None,  # type: ignore[arg-type]
        description='Match points per game, or "acc" (win 2, skunk 3).',
    )
    games_per_match: GamesPerMatch = 1

    _own_fields: ClassVar[frozenset[str]] = frozenset()  # a body's fields beside the settings

    @model_validator(mode="before")
    @classmethod
    def _engine_first(cls, data: Any) -> Any:
        if isinstance(data, dict):  # the engine's own refusal names the setting
            Settings.from_json({k: v for k, v in data.items() if k not in cls._own_fields})
        return data

    def settings(self) -> Settings:
        given = self.given()
        return Settings.from_json({k: v for k, v in given.items() if k not in self._own_fields})


def _names_count(players: int, value: Any) -> PydanticCustomError:
    return PydanticCustomError("names_count", "names_count",
                               {"players": players, "text": shown(value)})  # fmt: skip


class NewGame(SettingsBody):
    """A new game: its settings, and optionally its players' names and its first dealer."""

    what = "a new game"
    _own_fields = frozenset({"names", "first_dealer"})
    names: list[SeatName] | None = Field(
        None, min_length=2, max_length=4, description="One name per seat (default Seat 1, ...)."
    )
    first_dealer: Seat | None = Field(
        None, description="Otherwise the game starts by choosing or cutting for the dealer."
    )

    @field_validator("names", mode="wrap")
    @classmethod
    def _one_name_a_seat(cls, value: Any, handler: ValidatorFunctionWrapHandler,
                         info: ValidationInfo) -> Any:  # fmt: skip
        players = info.data.get("players", 2)
        try:
            names = handler(value)
        except ValidationError as error:
            raise _reasons_of(error, _names_count(players, value)) from None
        if names is not None and len(names) != players:
            raise _names_count(players, value)
        return names


class SeatNames(RootModel[list[SeatName]]):
    """The players' names, one per seat, in seat order."""

    root: list[SeatName] = Field(min_length=2, max_length=4)

    @model_validator(mode="wrap")
    @classmethod
    def _one_name_a_seat(cls, value: Any, handler: ValidatorFunctionWrapHandler,
                         info: ValidationInfo) -> Any:  # fmt: skip
        players = (info.context or {}).get("players", 2)
        try:
            names = handler(value)
        except ValidationError as error:
            raise _reasons_of(error, _names_count(players, value)) from None
        if len(names.root) != players:
            raise _names_count(players, value)
        return names


def _reasons_of(error: ValidationError, otherwise: PydanticCustomError) -> PydanticCustomError:
    """A name's own refusal (`names[1]` holds a control character) as it is; any other
    (not a list, a wrong count) as `otherwise`."""
    first = error.errors()[0]
    if first["type"] in ("lone_surrogate", "control_character", "name_length"):
        at = "".join(f"[{part}]" for part in first["loc"] if isinstance(part, int))
        return PydanticCustomError(first["type"], first["type"],
                                   {**first.get("ctx", {}), "at": at})  # fmt: skip
    return otherwise


# -- actions ------------------------------------------------------------------------------------
class ActionBody(Body):
    frame: FrameId | None = None


class Dealer(ActionBody):
    """The dealer chosen without a cut."""

    what = "a dealer action"
    kind: Literal["dealer"]
    seat: Seat


class Cut(ActionBody):
    """The cut for deal: one card per seat; the lowest deals."""

    what = "a cut action"
    kind: Literal["cut"]
    cards: CutCards


class Deal(ActionBody):
    """The deal: hands left out when they stay hidden until the show."""

    what = "a deal action"
    kind: Literal["deal"]
    hands: list[Hand] | None = Field(None, max_length=4)
    crib_card: CardText | None = Field(None, description="Three players: the pack's card "
                                                         "to the crib.")  # fmt: skip


class Discard(ActionBody):
    """A seat's discards to the crib (the cards, when the hands are known)."""

    what = "a discard action"
    kind: Literal["discard"]
    seat: Seat
    cards: Discards | None = None


class Starter(ActionBody):
    """The starter cut after the discards."""

    what = "a starter action"
    kind: Literal["starter"]
    card: CardText


class Play(ActionBody):
    """A card played in the count, with the points claimed for it (muggins games)."""

    what = "a play action"
    kind: Literal["play"]
    seat: Seat | None = Field(None, description="Left out: whose turn it is.")
    card: CardText
    claim: PlayClaim | None = None


class Go(ActionBody):
    """A go: the seat cannot play without passing 31."""

    what = "a go action"
    kind: Literal["go"]
    seat: Seat | None = Field(None, description="Left out: whose turn it is.")


class Show(ActionBody):
    """The next hand or crib counted (its cards, when the hands were hidden)."""

    what = "a show action"
    kind: Literal["show"]
    cards: Shown | None = None
    claim: ShowClaim | None = None


class Muggins(ActionBody):
    """An opponent takes points a player missed."""

    what = "a muggins action"
    kind: Literal["muggins"]
    seat: Seat
    points: MugginsPoints


class Correct(ActionBody):
    """A peg moved by hand: points added to or taken from a seat."""

    what = "a correct action"
    kind: Literal["correct"]
    seat: Seat
    points: Correction


ACTIONS = (Dealer, Cut, Deal, Discard, Starter, Play, Go, Show, Muggins, Correct)


class Action(RootModel[Annotated[Dealer | Cut | Deal | Discard | Starter | Play | Go | Show
                                 | Muggins | Correct, Field(discriminator="kind")]]):  # fmt: skip
    """One action of the table, by its `kind`."""

    @model_validator(mode="wrap")
    @classmethod
    def _an_object(cls, data: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        if not isinstance(data, dict):
            raise PydanticCustomError("action_body_not_object", "action_body_not_object",
                                      {"type": type(data).__name__})  # fmt: skip
        return handler(data)


# -- the engine's stable endpoints ----------------------------------------------------------------
class ScoreRequest(Body):
    """One `cribcam score --jsonl` line."""

    what = "a score request"
    hand: Shown
    starter: CardText
    crib: bool = False


class AdviceRequest(Body):
    """A dealt hand to choose discards from."""

    what = "advice"
    hand: Hand
    role: Literal["dealer", "partner", "pone"] = "dealer"  # `scorer.advice.Role`
    players: Literal[2, 3, 4] = 2
    variant: Literal["six-card", "five-card"] = "six-card"


# -- table mode ---------------------------------------------------------------------------------
if TYPE_CHECKING:
    ProposalKey: TypeAlias = str
else:
    ProposalKey = Annotated[text(200, "The proposal's key.", least=1), refused_as("proposal_key")]


class TableAnswer(Body):
    """The open question answered: the cards it is, and the points claimed."""

    what = "an answer"
    key: ProposalKey
    cards: Hand | None = None
    claim: ShowClaim | None = Field(None, description="A play's (0-14) or a show's (0-29).")


class TableUndo(Body):
    """Take back what the camera applied; with `cards`, read it so instead."""

    what = "an undo"
    key: ProposalKey
    cards: Hand | None = None


class TableDismiss(Body):
    """The open question is not a card: it is not asked again."""

    what = "a dismissal"
    key: ProposalKey


class SeatFix(Body):
    """A learnt seat put right: `player` sits where the camera learnt `seat` (they swap)."""

    what = "a seat fix"
    seat: Seat
    player: Seat


# -- decks --------------------------------------------------------------------------------------
class NewEnrolment(Body):
    """Teach a deck: its name and how its photos are taken."""

    what = "an enrolment"
    model_config = ConfigDict(json_schema_extra=lambda schema: _required(schema, "name"))
    # checked even when left out, so that a missing name is "'name' must be a deck name"
    name: DeckName = Field(None, validate_default=True)
    mode: Literal["suits", "any"] | None = Field(
        None, description='"suits": one suit a photo, laid out A to K; "any" (default): any photos.'
    )
    suits: (
        Annotated[
            list[Suit] | Annotated[str, Field(max_length=7)],
            Field(min_length=1),
            refused_as("enrol_suits"),
        ]
        | None
    ) = Field(
        None,
        description='With mode suits: the order they are shot in, each once: ["C", "D", '
        '"H", "S"] or "CDHS".',
    )

    @field_validator("mode", mode="wrap")
    @classmethod
    def _mode(cls, value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        try:
            return handler(value)
        except ValidationError:
            raise refused("enrol_mode", value) from None


class CardWord(Body):
    """The player's word on one card: what it is, or null: not a card."""

    what = "a correction"
    card: CardText | None = Field(description="null: not a card.")


class EnrolmentEnd(Body):
    """Save the enrolment; then tune the deck (`tune`) and read with it (`use`)."""

    what = "finishing an enrolment"
    tune: Annotated[bool, refused_as("not_boolean")] = True
    use: Annotated[bool, refused_as("not_boolean")] = True


class DeckChoice(Body):
    """The deck to read with: its name, or null for the base model."""

    what = "choosing a deck"
    name: DeckName | None = Field(description="null: the base model.")


class DeckRename(Body):
    what = "renaming a deck"
    name: DeckName


# -- queries ------------------------------------------------------------------------------------
class Query(Body):
    """A query string's parameters."""

    what = "the query"


class TableQuery(Query):
    table: Literal["0", "1"] | None = Field(
        None, description="1: table mode's page: what the camera sees is applied."
    )


class DetectQuery(Query):
    name: FileName | None = None


class ShotQuery(Query):
    suit: Literal["C", "D", "H", "S", "c", "d", "h", "s"] | None = Field(
        None, description="Suits mode: the suit the photo shows (default: the next one)."
    )


class CorrectionQuery(Query):
    card: CardText = Field(description="What the card really is.")
    box: Box
    deck: DeckName | None = Field(None, description="Default: the deck in use.")


# -- records ----------------------------------------------------------------------------------
class ExportQuery(Query):
    format: Annotated[Literal["json", "csv"], refused_as("export_format")] = "json"
    player: FileName | None = Field(None, description="Only the games this player played.")
    game: FileName | None = Field(None, description="Only this game (404 if it is not here).")


class GamesImport(RootModel[list[dict[str, Any]]]):
    """Games from an export, merged by id: all are taken in or none. Each is checked by
    replaying it (a record that does not replay is refused, naming the game)."""

    root: list[dict[str, Any]] = Field(max_length=10_000)
