"""What table mode needs of the camera's smoothed table, by game seat: the starter, the cards
laid in the play in order, the crib, and whether the table is clear."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from scorer.cards import Card
from tablemode.seats import game_seat
from vision.table.cards import SeenCard
from vision.table.roles import Seat, TableState
from vision.table.smoothing import PlayEvent

#: The reader's cards for one physical card, likeliest first, with their chances.
Choices = tuple[tuple[Card, float], ...]


@dataclass(frozen=True)
class CardReading:
    """One card as the camera read it, and the frame it was read on (an id, when kept)."""

    choices: Choices
    frame: str | None = None
    #: False where the camera laid the card without deciding what it is (its evidence stayed
    #: thin: `PlayEvent.sure`): the players are asked, however likely its first choice.
    sure: bool = True

    def __post_init__(self) -> None:
        if not self.choices:
            raise ValueError("a card reading needs at least one choice")

    @property
    def card(self) -> Card:
        return self.choices[0][0]

    @property
    def chance(self) -> float:
        return self.choices[0][1]


@dataclass(frozen=True)
class LaidCard:
    """A card laid in the play by game seat `seat`."""

    seat: int
    reading: CardReading


@dataclass(frozen=True)
class TableView:
    starter: CardReading | None = None
    plays: tuple[LaidCard, ...] = ()
    crib: tuple[CardReading, ...] = ()
    #: No face-up card anywhere: the deal is cleared away (or not begun).
    clear: bool = False
    #: The id of the frame this view was last updated from.
    frame: str | None = None


def reading_of(seen: SeenCard | PlayEvent, frame: str | None = None) -> CardReading:
    sure = seen.sure if isinstance(seen, PlayEvent) else True
    if seen.choices:
        return CardReading(tuple(seen.choices), frame, sure)
    chance = seen.confidence if isinstance(seen, SeenCard) else 1.0
    return CardReading(((seen.card, chance),), frame, sure)


def table_view(
    state: TableState,
    events: Sequence[PlayEvent],
    players: int,
    frame_of: Callable[[int], str | None] = lambda index: None,
    frame: str | None = None,
    laid_by: Mapping[Card, Seat] | None = None,
) -> TableView:
    """The view of a smoothed table and the deal's play events (`frame_of` names the kept frame
    of a smoother frame number; `laid_by`, the seat that laid a card where the game says so,
    over the seat where the card was seen: `SeatLearner.laid_by`)."""
    plays: list[LaidCard] = []
    for event in events:
        seat = game_seat(players, (laid_by or {}).get(event.card, event.seat))
        if seat is not None:
            plays.append(LaidCard(seat, reading_of(event, frame_of(event.frame))))
    crib = tuple(reading_of(c, frame) for c in state.crib)
    starter = None if state.starter is None else reading_of(state.starter, frame)
    return TableView(starter, tuple(plays), crib, clear=not state.roles(), frame=frame)
